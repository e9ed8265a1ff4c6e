//! Classroom and club events end to end, through the real binary: bots from a
//! folder of submissions (a glob), their build steps, a submission that fails
//! to build or holds no bot reported and left out, the batch check with its
//! feedback files, Swiss and knockout formats, command-line overrides and
//! `--dry-run`. Hostile submissions are in hostile_submissions.rs. Needs
//! python3, node and g++ (installed by .ci/run).

use std::path::{Path, PathBuf};

use uttt_tests::classes::{ALWAYS_A1, python_bot, tournament, write};
use uttt_tests::{
    arena, assert_exit, read_csv, repo_root, stderr_text as stderr, stdout_text as stdout,
};

/// A folder of submissions: a good Python bot, a C++ bot that does not compile,
/// a directory with no bot, and a bot whose build never ends; plus a tournament
/// file with the built-in `random` and a glob over the folder.
fn class(dir: &Path, header: &str) -> PathBuf {
    write(
        dir,
        &[
            ("students/ada/bot.py", &python_bot()),
            ("students/bob/main.cpp", "int main() { this is not C++; }\n"),
            ("students/cyd/notes.txt", "I will finish it tomorrow\n"),
            ("students/dee/bot.py", &python_bot()),
            (
                "students/dee/bot.toml",
                "command = \"python3 bot.py\"\nbuild = \"sleep 30\"\n",
            ),
        ],
    );
    let config = dir.join("class.toml");
    std::fs::write(
        &config,
        format!(
            "name = \"class\"\nseed = 5\ngames = 2\nbuild-seconds = 2\n{header}\n[time]\nmove-ms = 300\nfirst-move-ms = 3000\n\n[[bot]]\ncommand = \"random\"\n\n[[bot]]\nglob = \"students/*\"\n"
        ),
    )
    .expect("write the config");
    config
}

#[test]
fn the_shipped_classroom_config_builds_and_plays_every_language() {
    let out_dir = tempfile::tempdir().unwrap();
    let results = out_dir.path().join("r");
    let config = repo_root().join("configs/classroom.toml");
    // The file's pace is for a room watching; the test plays at full speed.
    let out = tournament(&config, &results, &["--quiet", "--pace", "0"]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    assert!(
        text.contains("built bjarne (g++ -std=c++17 -O2 -o bot *.cpp) in"),
        "{text}"
    );
    assert!(
        text.contains("4 bots (teacher, ada, bjarne, grace)"),
        "{text}"
    );
    let rows = read_csv(&results.join("games.csv"));
    assert_eq!(rows.len(), 12, "6 pairings of 2 games");
    for name in ["ada", "bjarne", "grace"] {
        let theirs: Vec<_> = rows
            .iter()
            .filter(|r| r["x"] == name || r["o"] == name)
            .collect();
        assert_eq!(theirs.len(), 6, "{name}");
        // Every game ended by the rules: no student bot crashed or timed out.
        for row in theirs {
            assert!(
                ["three-in-a-row", "no-moves", "most-boards"].contains(&row["reason"].as_str()),
                "{name}: {row:?}"
            );
        }
    }
    // The student's folder is never written to: the bot ran from its copy.
    assert!(!repo_root().join("configs/classroom/bjarne/bot").exists());
    assert!(results.join("builds/bjarne/bot").is_file());
    // Run again on the same directory: the sources did not change, no rebuild.
    let again = tournament(&config, &results, &["--quiet", "--pace", "0"]);
    assert_exit(&again, 0);
    assert!(
        stdout(&again).contains("built bjarne: up to date (its sources have not changed)"),
        "{}",
        stdout(&again)
    );
}

#[test]
fn a_submission_that_fails_to_build_or_holds_no_bot_is_reported_and_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let config = class(dir.path(), "");
    let results = dir.path().join("r");
    let out = tournament(&config, &results, &["--quiet"]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    // The compiler's own words, as the build printed them.
    assert!(
        text.contains("BUILD FAILED bob (g++ -std=c++17 -O2 -o bot *.cpp): exit code 1"),
        "{text}"
    );
    assert!(text.contains("  | ") && text.contains("main.cpp"), "{text}");
    assert!(
        text.contains("BUILD FAILED dee (sleep 30): still running after 2 s (killed); the limit is build-seconds"),
        "{text}"
    );
    assert!(
        text.contains("left out cyd: ") && text.contains("no bot found: add one of main.cpp"),
        "{text}"
    );
    assert!(
        text.contains("left out bob: build failed (exit code 1)"),
        "{text}"
    );
    assert!(text.contains("2 bots (random, ada)"), "{text}");
    let rows = read_csv(&results.join("games.csv"));
    assert_eq!(rows.len(), 2);

    // The same class with on-build-failure = "stop": nothing is played.
    let strict = tempfile::tempdir().unwrap();
    let config = class(strict.path(), "on-build-failure = \"stop\"");
    let results = strict.path().join("r");
    let out = tournament(&config, &results, &[]);
    assert_exit(&out, 2);
    assert!(
        stderr(&out).contains("the build of bob, dee failed and on-build-failure = \"stop\""),
        "{}",
        stderr(&out)
    );
    assert!(!results.join("games.csv").exists());
}

#[test]
fn a_glob_that_matches_nothing_is_an_error_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("t.toml");
    std::fs::write(
        &config,
        "[[bot]]\ncommand = \"random\"\n[[bot]]\nglob = \"students/*\"\n",
    )
    .unwrap();
    let out = arena(&["tournament", config.to_str().unwrap()]);
    assert_exit(&out, 2);
    let err = stderr(&out);
    assert!(
        err.contains("t.toml:4: glob \"students/*\" matches no directory"),
        "{err}"
    );
}

#[test]
fn check_config_checks_every_submission_and_writes_feedback_per_student() {
    let dir = tempfile::tempdir().unwrap();
    let config = class(dir.path(), "");
    // A student whose bot always answers a1, legal or not.
    write(dir.path(), &[("students/eve/bot.py", ALWAYS_A1)]);
    let feedback = dir.path().join("feedback");
    let out = arena(&[
        "check",
        "--config",
        config.to_str().unwrap(),
        "--feedback",
        feedback.to_str().unwrap(),
        "--time",
        "500",
    ]);
    assert_exit(&out, 1);
    let text = stdout(&out);
    let row = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no row for {name}:\n{text}"))
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(row("ada"), "ada PASS");
    assert_eq!(row("random"), "random PASS");
    assert!(
        row("bob").starts_with("bob FAIL build failed (exit code 1): main.cpp:1:"),
        "{text}"
    );
    assert!(row("bob").contains("error:"), "{text}");
    assert!(row("cyd").contains("no bot found"), "{text}");
    assert!(
        row("dee").contains("still running after 2 s (killed)"),
        "{text}"
    );
    assert!(
        row("eve").starts_with(
            "eve FAIL expects a legal move every turn of a whole game as X, moving first: your bot played a1 but the board it had to play in is"
        ),
        "{text}"
    );
    assert!(text.contains("2 of 6 bots passed"), "{text}");

    let read = |name: &str| {
        std::fs::read_to_string(feedback.join(format!("{name}.txt")))
            .unwrap_or_else(|e| panic!("{name}.txt: {e}"))
    };
    assert!(read("ada").contains("RESULT: PASS, 8 of 8 steps passed."));
    let eve = read("eve");
    assert!(eve.contains("RESULT: FAIL"), "{eve}");
    assert!(
        eve.contains("To run this check yourself, in your bot's folder (after building it):\n  arena check 'python3 bot.py'"),
        "{eve}"
    );
    assert!(
        eve.contains("then X played a1 (illegal) in this position:"),
        "{eve}"
    );
    // The board is drawn: its column letters and the frame of a small board.
    assert!(eve.contains("a b c     d e f     g h i"), "{eve}");
    assert!(eve.contains("┌───────┐"), "{eve}");
    let bob = read("bob");
    assert!(
        bob.contains("The build command was: g++ -std=c++17 -O2 -o bot *.cpp"),
        "{bob}"
    );
    assert!(
        bob.contains("  | main.cpp:1:") && bob.contains("error:"),
        "{bob}"
    );
    assert!(read("cyd").contains("no bot found"));
}

#[test]
fn check_config_passes_the_shipped_class() {
    let dir = tempfile::tempdir().unwrap();
    let config = repo_root().join("configs/classroom.toml");
    let out = arena(&[
        "check",
        "--config",
        config.to_str().unwrap(),
        "--feedback",
        dir.path().to_str().unwrap(),
    ]);
    assert_exit(&out, 0);
    assert!(
        stdout(&out).contains("4 of 4 bots passed"),
        "{}",
        stdout(&out)
    );
}

/// A club of five built-in bots (negamax the strongest) in `format`.
fn club(dir: &Path, format: &str) -> PathBuf {
    let config = dir.join("club.toml");
    std::fs::write(
        &config,
        format!(
            "name = \"club\"\nseed = 3\ngames = 2\n{format}\n[time]\nmove-ms = 50\n\
             [[bot]]\ncommand = \"negamax --level easy\"\n[[bot]]\ncommand = \"greedy\"\n\
             [[bot]]\ncommand = \"random\"\n[[bot]]\nname = \"random2\"\ncommand = \"random\"\n\
             [[bot]]\nname = \"greedy2\"\ncommand = \"greedy\"\n"
        ),
    )
    .expect("write the config");
    config
}

#[test]
fn a_swiss_pairs_without_rematches_gives_one_bye_each_and_resumes_the_same_draw() {
    let dir = tempfile::tempdir().unwrap();
    let config = club(dir.path(), "format = \"swiss\"\nrounds = 3");
    let results = dir.path().join("r");
    let out = tournament(&config, &results, &["--quiet"]);
    assert_exit(&out, 0);
    let rows = read_csv(&results.join("games.csv"));
    assert_eq!(rows.len(), 3 * 2 * 2, "3 rounds of 2 pairings of 2 games");
    let mut pairs = std::collections::BTreeSet::new();
    let names = ["negamax-easy", "greedy", "random", "random2", "greedy2"];
    for round in ["1", "2", "3"] {
        let in_round: Vec<_> = rows.iter().filter(|r| r["round"] == round).collect();
        assert_eq!(in_round.len(), 4);
        let playing: std::collections::BTreeSet<&str> = in_round
            .iter()
            .flat_map(|r| [r["x"].as_str(), r["o"].as_str()])
            .collect();
        assert_eq!(playing.len(), 4, "one bye in round {round}");
        for r in in_round.iter().step_by(2) {
            let mut pair = [r["x"].clone(), r["o"].clone()];
            pair.sort();
            assert!(pairs.insert(pair.clone()), "{pair:?} met twice");
        }
    }
    let swiss = read_csv(&results.join("swiss.csv"));
    assert_eq!(swiss.len(), 5);
    assert_eq!(swiss[0]["rank"], "1");
    let byes: u32 = swiss
        .iter()
        .map(|r| r["byes"].parse::<u32>().unwrap())
        .sum();
    assert_eq!(byes, 3, "one bye per round");
    assert!(
        swiss
            .iter()
            .all(|r| r["byes"].parse::<u32>().is_ok_and(|b| b <= 1)),
        "at most one bye each"
    );
    let points: f64 = swiss
        .iter()
        .map(|r| r["points"].parse::<f64>().unwrap())
        .sum();
    assert!(
        (points - (12.0 + 3.0 * 2.0)).abs() < 1e-9,
        "games and byes: {points}"
    );
    assert!(
        stdout(&out).contains("Swiss after 3 of 3 rounds"),
        "{}",
        stdout(&out)
    );
    assert!(
        results.join("standings.csv").is_file(),
        "the Elo fit as always"
    );
    for name in names {
        assert!(swiss.iter().any(|r| r["bot"] == name), "{name}");
    }

    // Lose the last round (as if the run had been interrupted there) and resume:
    // the same round is drawn again from the same results.
    let text = std::fs::read_to_string(results.join("games.csv")).unwrap();
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| l.split(',').nth(1) != Some("3"))
        .collect();
    assert_eq!(kept.len(), 1 + 8, "the header and rounds 1 and 2");
    std::fs::write(results.join("games.csv"), kept.join("\n") + "\n").unwrap();
    let again = tournament(&config, &results, &["--quiet", "--pace", "0"]);
    assert_exit(&again, 0);
    let replayed = read_csv(&results.join("games.csv"));
    let key = |rows: &[uttt_tests::Row]| {
        let mut k: Vec<(String, String, String, String)> = rows
            .iter()
            .map(|r| {
                (
                    r["id"].clone(),
                    r["round"].clone(),
                    r["x"].clone(),
                    r["o"].clone(),
                )
            })
            .collect();
        k.sort();
        k
    };
    assert_eq!(key(&replayed), key(&rows));
}

#[test]
fn a_knockout_gives_the_top_seeds_byes_and_crowns_one_winner() {
    let dir = tempfile::tempdir().unwrap();
    let config = club(dir.path(), "format = \"knockout\"\ntiebreak-pairs = 1");
    let results = dir.path().join("r");
    let out = tournament(&config, &results, &["--quiet"]);
    assert_exit(&out, 0);
    let bracket = read_csv(&results.join("knockout.csv"));
    let byes: Vec<&str> = bracket
        .iter()
        .filter(|r| r["decided_by"] == "bye")
        .map(|r| r["a"].as_str())
        .collect();
    assert_eq!(
        byes,
        ["negamax-easy", "greedy", "random"],
        "5 bots in a bracket of 8"
    );
    let matches = bracket.iter().filter(|r| r["decided_by"] != "bye").count();
    assert_eq!(matches, 4, "n - 1 matches");
    let last = bracket.last().unwrap();
    assert_eq!(last["round"], "3");
    let text = stdout(&out);
    assert!(text.contains("Round 3 (final)"), "{text}");
    assert!(
        text.contains(&format!("Winner: {}", last["winner"])),
        "{text}"
    );
    // Each match is a colour-swapped pair (plus tie-break pairs).
    let rows = read_csv(&results.join("games.csv"));
    assert!(
        rows.len() >= 8 && rows.len().is_multiple_of(2),
        "{}",
        rows.len()
    );
}

#[test]
fn dry_run_prints_what_would_be_played_with_the_command_line_overrides_and_plays_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let config = club(dir.path(), "format = \"swiss\"\nrounds = 3");
    let results = dir.path().join("r");
    let out = tournament(
        &config,
        &results,
        &[
            "--dry-run",
            "--rounds",
            "4",
            "--games",
            "4",
            "--time",
            "100",
            "--bot",
            "mine=random",
        ],
    );
    assert_exit(&out, 0);
    let text = stdout(&out);
    assert!(
        text.contains(
            "Dry run of 'club': 6 bots (negamax-easy, greedy, random, random2, greedy2, mine)"
        ),
        "{text}"
    );
    assert!(
        text.contains("48 games: swiss, 4 rounds of 3 pairings x 4 games"),
        "{text}"
    );
    assert!(
        text.contains("round 1: negamax-easy v random2, greedy v greedy2, random v mine"),
        "{text}"
    );
    // Folded to the width of a terminal (80 columns through a pipe).
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("its full 100 ms"), "{text}");
    assert!(text.contains("Nothing was played (--dry-run)."), "{text}");
    assert!(!results.exists(), "no results directory");
}

#[test]
fn command_line_overrides_change_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("t.toml");
    std::fs::write(
        &config,
        "seed = 1\ngames = 2\n[time]\nmove-ms = 1000\n[[bot]]\ncommand = \"random\"\n[[bot]]\ncommand = \"greedy\"\n",
    )
    .unwrap();
    let results = dir.path().join("r");
    let out = tournament(
        &config,
        &results,
        &[
            "--quiet",
            "--games",
            "4",
            "--time",
            "20",
            "--bot",
            "third=random",
        ],
    );
    assert_exit(&out, 0);
    assert!(
        stdout(&out).contains("12 games, 20 ms per move"),
        "{}",
        stdout(&out)
    );
    let rows = read_csv(&results.join("games.csv"));
    assert_eq!(rows.len(), 3 * 4, "3 pairings of 4 games");
    assert!(rows.iter().any(|r| r["x"] == "third"));

    let odd = arena(&["tournament", config.to_str().unwrap(), "--games", "3"]);
    assert_exit(&odd, 2);
    assert!(
        stderr(&odd).contains("--games 3: games are played in colour-swapped pairs"),
        "{}",
        stderr(&odd)
    );
    let bad = arena(&["tournament", config.to_str().unwrap(), "--bot", "x"]);
    assert_exit(&bad, 2);
    assert!(
        stderr(&bad).contains("--bot 'x': write NAME=COMMAND"),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn the_example_submissions_are_the_starter_kits() {
    let root = repo_root();
    for (example, starter) in [
        (
            "configs/classroom/ada/bot.py",
            "bots/starters/python/starter.py",
        ),
        (
            "configs/classroom/bjarne/main.cpp",
            "bots/starters/cpp/starter.cpp",
        ),
        (
            "configs/classroom/grace/bot.js",
            "bots/starters/js/starter.js",
        ),
    ] {
        assert_eq!(
            std::fs::read_to_string(root.join(example)).unwrap(),
            std::fs::read_to_string(root.join(starter)).unwrap(),
            "{example} is a copy of {starter}: copy it again after changing the kit"
        );
    }
}

#[test]
fn a_knockout_can_be_seeded_by_the_ratings_of_an_earlier_run() {
    let dir = tempfile::tempdir().unwrap();
    let swiss = club(dir.path(), "format = \"swiss\"\nrounds = 3");
    let earlier = dir.path().join("week1");
    assert_exit(&tournament(&swiss, &earlier, &["--quiet"]), 0);
    let standings = read_csv(&earlier.join("standings.csv"));
    let best: Vec<&str> = standings.iter().map(|r| r["bot"].as_str()).collect();

    let knockout = club(dir.path(), "format = \"knockout\"\nseeding = \"week1\"");
    let out = arena(&["tournament", knockout.to_str().unwrap(), "--dry-run"]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    // 5 bots in a bracket of 8: the three best rated sit out round 1, the
    // fourth meets the fifth.
    let expected = format!(
        "round 1: {} v {}; bye: {}, {}, {}",
        best[3], best[4], best[0], best[1], best[2]
    );
    assert!(text.contains(&expected), "{expected}\n{text}");

    std::fs::write(
        dir.path().join("bad.toml"),
        "format = \"knockout\"\nseeding = \"nowhere\"\n[[bot]]\ncommand = \"random\"\n[[bot]]\ncommand = \"greedy\"\n",
    )
    .unwrap();
    let out = arena(&[
        "tournament",
        dir.path().join("bad.toml").to_str().unwrap(),
        "--dry-run",
    ]);
    assert_exit(&out, 2);
    assert!(
        stderr(&out).contains("bad.toml:2: seeding = \"nowhere\": cannot rate the bots of"),
        "{}",
        stderr(&out)
    );
}
