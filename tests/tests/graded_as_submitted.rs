//! A submission is graded as what it is (issue 46, section 2), end to end
//! through the real binary: a folder named like a level, a built-in bot or
//! another entrant has a left-out row and a feedback file of its own and
//! borrows nothing of the other bot. Needs python3.

use std::path::{Path, PathBuf};
use std::process::Output;

use uttt_tests::classes::{python_bot, write};
use uttt_tests::{Row, arena, assert_exit, read_csv, stdout_text};

/// A league over `students/*` against level1 alone, two games each, with
/// `extra` top-level keys and the `[league]` table's `levels`.
fn league_file(dir: &Path, extra: &str, levels: &str) {
    write(
        dir,
        &[(
            "league.toml",
            &format!(
                "name = \"season\"\ngames = 2\nconcurrency = 2\nseed = 5\n{extra}\n\n[time]\n\
                 move-ms = 200\nfirst-move-ms = 3000\n\n[league]\nmode = \"levels\"\n\
                 levels = [{levels}]\n\n[[bot]]\nglob = \"students/*\"\n"
            ),
        )],
    );
}

/// `arena league` on the season in `dir` (quiet, `extra` flags).
fn league(dir: &Path, extra: &[&str]) -> Output {
    let file = dir.join("league.toml");
    let out = dir.join("season");
    let mut args = vec![
        "league",
        file.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
        "-q",
    ];
    args.extend_from_slice(extra);
    arena(&args)
}

/// A file of the season.
fn season(dir: &Path, file: &str) -> PathBuf {
    dir.join("season").join(file)
}

/// The current version of `name` in versions.csv.
fn current(dir: &Path, name: &str) -> String {
    read_csv(&season(dir, "versions.csv"))
        .into_iter()
        .find(|r| r["name"] == name && r["status"] == "current")
        .map(|r| r["version"].clone())
        .unwrap_or_else(|| panic!("no current version of {name}"))
}

#[test]
fn a_folder_named_like_a_level_or_another_bot_has_its_own_left_out_row_and_borrows_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    league_file(dir, "", "\"level1\", \"level2\"");
    // The teacher's own bot, graded beside the students.
    let mut text = std::fs::read_to_string(dir.join("league.toml")).expect("the file");
    text.push_str("\n[[bot]]\nname = \"coach\"\ncommand = \"random\"\n");
    write(dir, &[("league.toml", &text)]);
    let starter = python_bot();
    write(
        dir,
        &[
            ("students/ada/bot.py", &starter),
            ("students/level2/bot.py", &starter),
            ("students/mcts/bot.py", &starter),
            ("students/coach/bot.py", &starter),
        ],
    );
    let run = league(dir, &["--no-similarity"]);
    assert_exit(&run, 0);
    let levels_version = current(dir, "level2");
    let coach_version = current(dir, "coach");
    let grades = read_csv(&season(dir, "grades.csv"));
    for (name, why, feedback) in [
        (
            "level2",
            "is that of the built-in bot 'level2'",
            "feedback/level2.txt",
        ),
        (
            "mcts",
            "is that of the built-in bot 'mcts'",
            "feedback/mcts.txt",
        ),
        (
            "coach",
            "the tournament file names another bot 'coach'",
            "feedback/left-out/coach.txt",
        ),
    ] {
        let rows: Vec<&Row> = grades
            .iter()
            .filter(|r| r["student"] == name && r["status"] == "left-out")
            .collect();
        assert_eq!(rows.len(), 1, "{name}: {grades:#?}");
        let row = rows[0];
        assert_eq!(
            (
                row["version"].as_str(),
                row["versions"].as_str(),
                row["games"].as_str(),
                row["rating"].as_str(),
                row["result"].as_str()
            ),
            ("", "0", "0", "", ""),
            "{name} borrows nothing: {row:?}"
        );
        assert!(
            row["detail"].contains(why) && row["detail"].contains("rename the folder"),
            "{row:?}"
        );
        assert_eq!(row["feedback"], feedback);
        let text = std::fs::read_to_string(season(dir, feedback)).expect("its feedback");
        assert!(
            text.starts_with(&format!("{name}: LEFT OUT of this run"))
                && text.contains(why)
                && text.contains("rename the folder"),
            "{text}"
        );
        assert!(
            !text.contains(&levels_version) && !text.contains(&coach_version),
            "{text}"
        );
    }
    // The teacher's bot keeps its own row and feedback, its games its own.
    let coach = grades
        .iter()
        .find(|r| r["student"] == "coach" && r["status"] == "current")
        .expect("the teacher's bot");
    assert_eq!(
        (coach["version"].as_str(), coach["games"].as_str()),
        (&coach_version[..], "4")
    );
    let coach_feedback =
        std::fs::read_to_string(season(dir, "feedback/coach.txt")).expect("coach's feedback");
    assert!(coach_feedback.contains(&coach_version), "{coach_feedback}");
    // The printed table: the level-named folder with no games of the level's.
    let stdout = stdout_text(&run);
    let line = stdout
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some("level2"))
        .unwrap_or_else(|| panic!("no table line for level2: {stdout}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(words[2], "0", "no versions: {line}");
    assert_eq!(
        words[words.len() - 2..],
        ["0", "0"],
        "no games, no faults: {line}"
    );
}
