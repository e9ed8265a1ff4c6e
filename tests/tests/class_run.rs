//! A class in front of the screen, through the real binary: a submission that
//! cannot start is left out and the class plays to the end (exit 0), never
//! giving a bye to a bot that cannot play; `--exclude`; a dry run that runs the
//! preflight and leaves nothing behind; a port in use found before the builds;
//! a watchable pace that is never charged to a bot; the words at the end for a
//! class; the feedback a student reads (an insta snapshot). Needs python3.

use std::path::{Path, PathBuf};
use std::process::Command;

use uttt_tests::classes::{ALWAYS_A1, python_bot, tournament, write};
use uttt_tests::{
    arena, arena_bin, assert_exit, read_csv, stderr_text as stderr, stdout_text as stdout,
};

/// A Python bot with a syntax error: it never says `ready`.
const BROKEN: &str = "import sys\n\ndef move(:\n    pass\n";

/// A class: the teacher's `random`, then one folder per student in `students`
/// (bob's the broken one), under a file with `header`.
fn class(dir: &Path, students: &[&str], header: &str) -> PathBuf {
    for student in students {
        let text = if *student == "bob" {
            BROKEN.to_string()
        } else {
            python_bot()
        };
        write(dir, &[(&format!("students/{student}/bot.py"), &text)]);
    }
    let config = dir.join("class.toml");
    std::fs::write(
        &config,
        format!(
            "name = \"class\"\nseed = 5\ngames = 2\n{header}\n[time]\nmove-ms = 300\nfirst-move-ms = 3000\n\n[[bot]]\nname = \"teacher\"\ncommand = \"random\"\n\n[[bot]]\nglob = \"students/*\"\n"
        ),
    )
    .expect("write the config");
    config
}

/// Each bot's byes in a Swiss's swiss.csv.
fn byes(results: &Path) -> Vec<(String, String)> {
    read_csv(&results.join("swiss.csv"))
        .into_iter()
        .map(|r| (r["bot"].clone(), r["byes"].clone()))
        .collect()
}

#[test]
fn a_class_with_a_broken_submission_plays_its_swiss_to_the_end_without_it_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    // Six with bob, five without: a bye every round.
    let config = class(
        dir.path(),
        &["ada", "bob", "cyd", "dee", "eve"],
        "format = \"swiss\"\nrounds = 3",
    );
    let results = dir.path().join("r");
    let out = tournament(&config, &results, &["--quiet"]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    // Named once, with why, its paths as the student knows them.
    assert_eq!(text.matches("left out bob").count(), 1, "{text}");
    assert!(
        text.contains(
            "left out bob: it could not be started: it exited (exit code 1) before 'ready'"
        ) && text.contains("File \"bot.py\", line 3"),
        "{text}"
    );
    assert!(
        text.contains("arena check --config") && text.contains("--feedback"),
        "{text}"
    );
    assert!(
        text.contains("5 bots (teacher, ada, cyd, dee, eve)"),
        "{text}"
    );
    // Played to the end, without bob.
    let rows = read_csv(&results.join("games.csv"));
    assert_eq!(rows.len(), 12, "3 rounds of 2 pairings of 2 games");
    assert!(rows.iter().all(|r| r["x"] != "bob" && r["o"] != "bob"));
    assert!(rows.iter().all(|r| r["reason"] != "handshake-failure"));
    let table = byes(&results);
    assert_eq!(table.len(), 5);
    let total: u32 = table.iter().map(|(_, b)| b.parse::<u32>().unwrap()).sum();
    assert_eq!(total, 3, "one bye a round: {table:?}");
    assert!(text.contains("Winner: "), "{text}");
    assert!(!stderr(&out).contains("error"), "{}", stderr(&out));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(results.join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["exit_code"], 0);
    assert_eq!(summary["left_out"][0]["name"], "bob", "{summary}");

    // A CI file that wants every submission: on-preflight-failure = "stop".
    let strict = tempfile::tempdir().unwrap();
    let config = class(
        strict.path(),
        &["ada", "bob"],
        "on-preflight-failure = \"stop\"",
    );
    let out = tournament(&config, &strict.path().join("r"), &[]);
    assert_exit(&out, 4);
    assert!(
        stderr(&out).contains("a bot could not be started, so no game was played")
            && stderr(&out).contains("- bob: it exited (exit code 1) before 'ready'"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_named_bot_that_cannot_start_still_stops_the_run_with_exit_4() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &[("bob.py", BROKEN)]);
    let config = dir.path().join("ci.toml");
    std::fs::write(
        &config,
        "games = 2\n[[bot]]\ncommand = \"random\"\n[[bot]]\nname = \"bob\"\ncommand = \"python3 bob.py\"\n",
    )
    .unwrap();
    let results = dir.path().join("r");
    let out = tournament(&config, &results, &[]);
    assert_exit(&out, 4);
    assert!(!stdout(&out).contains("left out bob"), "{}", stdout(&out));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(results.join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["broken_bots"][0]["name"], "bob");
    assert_eq!(summary["games_played"], 0);
}

#[test]
fn without_the_preflight_a_bot_that_cannot_play_never_gets_a_swiss_bye_and_its_log_shows_why() {
    let dir = tempfile::tempdir().unwrap();
    // Five bots with bob: bob ranks third in round 1, so the first bye (drawn
    // before any game) goes to dee, the last; after that bob is known broken.
    let config = class(
        dir.path(),
        &["ada", "bob", "cyd", "dee"],
        "format = \"swiss\"\nrounds = 4",
    );
    let results = dir.path().join("r");
    let out = tournament(&config, &results, &["--quiet", "--no-preflight"]);
    // Its games were lost by handshake failure: the results do not measure it.
    assert_exit(&out, 4);
    let table = byes(&results);
    let bob = table.iter().find(|(b, _)| b == "bob").expect("bob's line");
    assert_eq!(bob.1, "0", "{table:?}");
    let total: u32 = table.iter().map(|(_, b)| b.parse::<u32>().unwrap()).sum();
    assert_eq!(total, 4, "one bye a round: {table:?}");
    // The log a bot's page shows (--show-logs) has the traceback as written.
    let log = std::fs::read_to_string(results.join("logs/bob.stderr.log")).expect("bob's log");
    assert!(
        log.contains("--- could not be started: it exited (exit code 1) before 'ready' ---"),
        "{log}"
    );
    assert!(
        log.lines().any(|l| l.trim() == "^") && log.contains("SyntaxError"),
        "{log}"
    );
}

#[test]
fn exclude_leaves_a_bot_out_by_hand_and_a_wrong_name_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let config = class(dir.path(), &["ada", "cyd"], "");
    let results = dir.path().join("r");
    let out = tournament(&config, &results, &["--exclude", "cyd", "--dry-run"]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    assert!(
        text.contains("left out cyd: left out by hand (--exclude)"),
        "{text}"
    );
    assert!(text.contains("2 bots (teacher, ada)"), "{text}");
    let out = tournament(&config, &results, &["--exclude", "cdy"]);
    assert_exit(&out, 2);
    assert!(
        stderr(&out)
            .contains("--exclude cdy: no bot of this run is named 'cdy' (did you mean 'cyd'?)"),
        "{}",
        stderr(&out)
    );
    assert!(!results.exists());
}

#[test]
fn a_dry_run_runs_the_preflight_and_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    class(dir.path(), &["ada", "bob", "cyd"], "");
    // A submission with a build: a dry run used to leave its copy behind.
    write(
        dir.path(),
        &[
            ("students/dee/bot.py", &python_bot()),
            (
                "students/dee/bot.toml",
                "command = \"python3 bot.py\"\nbuild = \"true\"\n",
            ),
        ],
    );
    // No --out: a real run would make results/class-<time>/ here.
    let out = Command::new(arena_bin())
        .args(["tournament", "class.toml", "--dry-run"])
        .current_dir(dir.path())
        .output()
        .expect("running arena");
    assert_exit(&out, 0);
    let text = stdout(&out);
    assert!(text.contains("built dee (true)"), "{text}");
    assert!(
        text.contains("left out bob: it could not be started"),
        "{text}"
    );
    assert!(
        text.contains("Dry run of 'class': 4 bots (teacher, ada, cyd, dee)"),
        "{text}"
    );
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let mut left = left;
    left.sort();
    assert_eq!(left, ["class.toml", "students"], "nothing left behind");
}

#[test]
fn a_port_in_use_is_found_before_the_builds_run() {
    let dir = tempfile::tempdir().unwrap();
    let config = class(dir.path(), &["ada"], "build-seconds = 2");
    write(
        dir.path(),
        &[
            ("students/dee/bot.py", &python_bot()),
            (
                "students/dee/bot.toml",
                "command = \"python3 bot.py\"\nbuild = \"sleep 30\"\n",
            ),
        ],
    );
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let results = dir.path().join("r");
    let out = tournament(&config, &results, &["--serve", &addr]);
    assert_exit(&out, 2);
    assert!(
        stderr(&out).contains(&format!("--serve {addr}: cannot listen there")),
        "{}",
        stderr(&out)
    );
    assert!(!stdout(&out).contains("BUILD FAILED"), "{}", stdout(&out));
    assert!(!results.exists());
}

#[test]
fn a_pace_holds_each_move_on_screen_without_charging_it_to_the_bots() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("paced.toml");
    // 60 ms a move and a margin of 10: a pace of 120 ms charged to the bots
    // would lose every game on time.
    std::fs::write(
        &config,
        "seed = 2\ngames = 2\nconcurrency = 2\n[time]\nmove-ms = 60\nfirst-move-ms = 2000\nmargin-ms = 10\n\
         [display]\npace-ms = 120\n[[bot]]\ncommand = \"random\"\n[[bot]]\nname = \"random2\"\ncommand = \"random\"\n",
    )
    .unwrap();
    let results = dir.path().join("r");
    let out = tournament(&config, &results, &["--quiet"]);
    assert_exit(&out, 0);
    let rows = read_csv(&results.join("games.csv"));
    assert_eq!(rows.len(), 2);
    for row in &rows {
        assert_ne!(row["reason"], "timeout", "{row:?}");
        let plies: u64 = row["plies"].parse().unwrap();
        let ms: u64 = row["duration_ms"].parse().unwrap();
        // Every mark but the first after the game started waited out the pace.
        assert!(
            ms >= plies.saturating_sub(1) * 120,
            "{ms} ms for {plies} plies"
        );
    }
    let manifest = || -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(results.join("tournament.json")).unwrap())
            .unwrap()
    };
    assert_eq!(manifest()["display"]["pace_ms"], 120);
    // The pace decides nothing: the same directory resumes at another pace.
    let again = tournament(&config, &results, &["--quiet", "--pace", "0"]);
    assert_exit(&again, 0);
    assert_eq!(manifest()["display"]["pace_ms"], 0);
    assert_eq!(read_csv(&results.join("games.csv")).len(), 2);
}

#[test]
fn a_class_reads_the_swiss_table_first_and_a_winner_without_nelo_or_notes() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("club.toml");
    std::fs::write(
        &config,
        "name = \"club\"\nseed = 3\ngames = 2\nformat = \"swiss\"\nrounds = 2\n[display]\naudience = \"class\"\n\
         [time]\nmove-ms = 50\n[[bot]]\ncommand = \"negamax --level easy\"\n[[bot]]\ncommand = \"greedy\"\n\
         [[bot]]\ncommand = \"random\"\n[[bot]]\nname = \"random2\"\ncommand = \"random\"\n",
    )
    .unwrap();
    let results = dir.path().join("r");
    let out = tournament(&config, &results, &[]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    let swiss = text
        .find("Swiss after 2 of 2 rounds")
        .expect("the Swiss table");
    let elo = text
        .find("Elo ratings over the event's games")
        .expect("the Elo table");
    assert!(swiss < elo, "{text}");
    let winner = read_csv(&results.join("swiss.csv"))[0]["bot"].clone();
    assert!(text.contains(&format!("Winner: {winner} with ")), "{text}");
    for hidden in ["nElo", "Ptnml", "note:"] {
        assert!(!text.contains(hidden), "{hidden} shown to a class:\n{text}");
    }
    // The full audience (the default, or --audience full) sees them with --details.
    let full = tournament(
        &config,
        &dir.path().join("full"),
        &["--audience", "full", "--details"],
    );
    assert_exit(&full, 0);
    assert!(stdout(&full).contains("nElo"), "{}", stdout(&full));
    assert!(stdout(&full).contains("Winner: "), "{}", stdout(&full));
}

#[test]
fn a_round_robin_names_its_winner_too() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("rr.toml");
    std::fs::write(
        &config,
        "seed = 1\ngames = 2\n[time]\nmove-ms = 50\n[[bot]]\ncommand = \"negamax --level easy\"\n[[bot]]\ncommand = \"random\"\n",
    )
    .unwrap();
    let out = tournament(&config, &dir.path().join("r"), &["--quiet"]);
    assert_exit(&out, 0);
    assert!(
        stdout(&out)
            .lines()
            .any(|l| l.starts_with("Winner: ") && l.contains("point")),
        "{}",
        stdout(&out)
    );
}

/// The feedback files of a class, as a student reads them: a bot with a
/// syntax error (its traceback as lines, the steps after it not run) and a
/// bot that always answers a1 (each step an expectation, the request it was
/// answering, the board, the same fault said once).
#[test]
fn the_feedback_a_student_reads() {
    let dir = tempfile::tempdir().unwrap();
    let config = class(dir.path(), &["bob"], "");
    write(dir.path(), &[("students/fay/bot.py", ALWAYS_A1)]);
    let feedback = dir.path().join("feedback");
    let out = arena(&[
        "check",
        "--config",
        config.to_str().unwrap(),
        "--feedback",
        feedback.to_str().unwrap(),
    ]);
    assert_exit(&out, 1);
    let read = |name: &str| std::fs::read_to_string(feedback.join(format!("{name}.txt"))).unwrap();
    let (bob, fay) = (read("bob"), read("fay"));
    // Nothing of the machine: no temporary or copy paths.
    let tmp = dir.path().display().to_string();
    assert!(!bob.contains(&tmp) && !fay.contains(&tmp), "{bob}\n{fay}");
    insta::assert_snapshot!("feedback_bob", bob);
    insta::assert_snapshot!("feedback_fay", fay);
}
