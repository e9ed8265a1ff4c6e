//! The built-in bots through the real binary: the default tournament (the README's
//! main job) completes, every starter kit plays real games, and `arena sprt` reaches
//! the right decision with the documented exit codes.

use uttt_tests::{Tag, arena, hostile, read_csv};

#[test]
fn the_default_tournament_completes_with_standings() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ladder");
    // One shard of five (30 games) keeps this test short; the
    // shard machinery plays exactly what the full run would for those pairs.
    let run = arena(&[
        "tournament",
        "--out",
        &out.to_string_lossy(),
        "--concurrency",
        "2",
        "--shard",
        "1/5",
    ]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let games = read_csv(&out.join("games.csv"));
    assert_eq!(
        games.len(),
        15 * 10 / 5,
        "6 bots, 10 games per pairing, one shard of five"
    );
    for file in [
        "moves.csv",
        "standings.csv",
        "crosstable.csv",
        "reasons.csv",
        "tournament.json",
    ] {
        assert!(out.join(file).exists(), "{file} written");
    }
    let standings = read_csv(&out.join("standings.csv"));
    assert!(
        standings.len() >= 4,
        "the bots of this shard are ranked: {standings:?}"
    );
    assert!(
        stdout.contains("Rank  Bot"),
        "the standings table is printed:\n{stdout}"
    );
    // Faults are rare and must not be the referee's doing: no malformed output or
    // illegal moves from the reference bots.
    for game in &games {
        assert!(
            ![
                "malformed-output",
                "illegal-move",
                "crash",
                "handshake-failure"
            ]
            .contains(&game["reason"].as_str()),
            "{game:?}"
        );
    }
}

#[test]
fn every_starter_kit_plays_through_the_referee() {
    let dir = tempfile::tempdir().unwrap();
    for spec in uttt_tests::starter_specs(dir.path()) {
        let out = dir.path().join("out");
        let _ = std::fs::remove_dir_all(&out);
        let run = arena(&[
            "match",
            &spec,
            "random",
            "-n",
            "2",
            "--out",
            &out.to_string_lossy(),
            "--seed",
            "4",
        ]);
        assert_eq!(
            run.status.code(),
            Some(0),
            "{spec}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        let games = read_csv(&out.join("games.csv"));
        assert_eq!(games.len(), 2);
        for game in &games {
            assert!(
                ["three-in-a-row", "no-moves"].contains(&game["reason"].as_str()),
                "{spec}: {game:?}"
            );
        }
    }
}

#[test]
fn sprt_accepts_h1_for_a_stronger_bot_and_h0_for_a_weaker_one() {
    // elo1 = 100 nElo: a test designed to tell apart bots this different decides in a
    // few pairs (with elo1 = 5 a one-sided result still needs ~150 pairs: the GSPRT
    // only weighs the evidence between elo0 and elo1).
    let fast = [
        "--time",
        "10",
        "--first-time",
        "200",
        "--random-plies",
        "2",
        "--max-games",
        "200",
        "--seed",
        "3",
        "--elo0",
        "0",
        "--elo1",
        "100",
    ];
    let mut args = vec!["sprt", "mcts", "random"];
    args.extend_from_slice(&fast);
    let better = arena(&args);
    let stdout = String::from_utf8_lossy(&better.stdout);
    assert_eq!(better.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("H1 accepted"), "{stdout}");

    let mut args = vec!["sprt", "random", "mcts"];
    args.extend_from_slice(&fast);
    let worse = arena(&args);
    let stdout = String::from_utf8_lossy(&worse.stdout);
    assert_eq!(worse.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("H0 accepted"), "{stdout}");
}

#[test]
fn sprt_exit_codes_for_usage_inconclusive_and_a_bot_that_cannot_run() {
    let usage = arena(&["sprt", "mcts", "random", "--elo0", "5", "--elo1", "0"]);
    assert_eq!(usage.status.code(), Some(2));
    let inconclusive = arena(&[
        "sprt",
        "random",
        "random",
        "--max-games",
        "4",
        "--time",
        "20",
        "--seed",
        "1",
    ]);
    assert_eq!(
        inconclusive.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&inconclusive.stdout)
    );
    let tag = Tag::new();
    let broken = arena(&[
        "sprt",
        &hostile("exit-before-handshake", &[], &tag),
        "random",
        "--time",
        "20",
    ]);
    assert_eq!(
        broken.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&broken.stderr)
    );
    // Found by the preflight, before any game.
    assert!(
        String::from_utf8_lossy(&broken.stderr)
            .contains("could not be started, so no game was played"),
        "{}",
        String::from_utf8_lossy(&broken.stderr)
    );
}

#[test]
fn gauntlet_fails_below_the_minimum_score() {
    let pass = arena(&[
        "gauntlet",
        "greedy",
        "--against",
        "random",
        "-n",
        "6",
        "--time",
        "20",
        "--min-score",
        "0.5",
        "-q",
    ]);
    assert_eq!(
        pass.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&pass.stdout)
    );
    let fail = arena(&[
        "gauntlet",
        "random",
        "--against",
        "greedy",
        "-n",
        "6",
        "--time",
        "20",
        "--min-score",
        "0.9",
        "-q",
    ]);
    assert_eq!(
        fail.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&fail.stdout)
    );
    assert!(String::from_utf8_lossy(&fail.stdout).contains("FAIL: below the minimum score"));
}
