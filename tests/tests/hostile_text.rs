//! Text a bot writes that must not reach the operator raw: terminal escape sequences
//! in its stderr (quoted in crash and handshake messages: on the terminal, in
//! games.csv, in transcripts, in `arena check`, and in logs/<bot>.stderr.log), and
//! spreadsheet formulas in its `info` lines (moves.csv cells a spreadsheet would run).
//!
//! The hostile bot plays X against the well-behaved good.py.

use std::path::Path;

use uttt_tests::{MatchRun, Row, Tag, arena, assert_no_leftovers, good, hostile, run_match};

const FAST: &[&str] = &[
    "--games",
    "1",
    "--time",
    "200",
    "--first-time",
    "200",
    "--margin",
    "200",
];

/// Characters a terminal acts on rather than shows: every control character (ESC,
/// BEL, CR, backspace, the 8-bit CSI…) but the newline and tab that end and indent
/// lines.
fn terminal_controls(text: &str) -> Vec<char> {
    text.chars()
        .filter(|&c| c.is_control() && c != '\n' && c != '\t')
        .collect()
}

#[track_caller]
fn assert_no_terminal_controls(what: &str, text: &str) {
    let found = terminal_controls(text);
    assert!(
        found.is_empty(),
        "{what} holds raw control characters {found:?}:\n{text}"
    );
}

/// Every text file of a results directory (CSV files, transcripts, logs, the
/// manifest) with its path.
fn result_files(dir: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d).expect("a results directory") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                files.push((path.display().to_string(), text));
            }
        }
    }
    files
}

fn play(behaviour: &str) -> (Row, MatchRun, Tag) {
    let tag = Tag::new();
    // The bot is met in its game, not by the preflight.
    let mut flags = FAST.to_vec();
    flags.push("--no-preflight");
    let run = run_match(&hostile(behaviour, &[], &tag), &good(&tag), &flags);
    // A bot that failed its handshake makes the run exit 4.
    let handshake = run
        .games
        .first()
        .is_some_and(|g| g["reason"] == "handshake-failure");
    assert_eq!(
        run.code,
        Some(if handshake { 4 } else { 0 }),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    assert_eq!(run.games.len(), 1, "{}\n{}", run.stdout, run.stderr);
    assert_no_leftovers(&tag);
    (run.games[0].clone(), run, tag)
}

/// The start of what the bot wrote (`\x1b]0;pwned\x07\x1b[2J…`), escaped.
const ESCAPED_TITLE: &str = "\\x1b]0;pwned\\x07\\x1b[2J\\x1b[31mred\\x1b[0m\\rO (forged) wins";

#[test]
fn escape_sequences_on_stderr_before_the_handshake_are_quoted_escaped_everywhere() {
    let (row, run, _) = play("stderr-escapes-exit");
    assert_eq!(row["reason"], "handshake-failure", "{row:?}");
    assert!(
        row["detail"].contains(&format!(
            "it exited (exit code 4) before 'ready'; stderr ends: {ESCAPED_TITLE}"
        )),
        "{row:?}"
    );
    assert_no_terminal_controls("the terminal output", &run.stdout);
    assert_no_terminal_controls("the terminal's stderr", &run.stderr);
    for (path, text) in result_files(run.dir.path()) {
        assert_no_terminal_controls(&path, &text);
    }
    let transcript = run.dir.path().join("transcripts").join("G0001.txt");
    let transcript = std::fs::read_to_string(&transcript).unwrap();
    assert!(transcript.contains(ESCAPED_TITLE), "{transcript}");
}

#[test]
fn escape_sequences_on_stderr_before_a_crash_are_quoted_escaped_everywhere() {
    let (row, run, _) = play("stderr-escapes-crash");
    assert_eq!(row["reason"], "crash", "{row:?}");
    assert!(
        row["detail"].contains(&format!(
            "crashed (exit code 4); stderr ends: {ESCAPED_TITLE}"
        )),
        "{row:?}"
    );
    assert!(
        run.stdout.contains(ESCAPED_TITLE),
        "the terminal shows the escaped text:\n{}",
        run.stdout
    );
    assert_no_terminal_controls("the terminal output", &run.stdout);
    assert_no_terminal_controls("the terminal's stderr", &run.stderr);
    // The stderr log keeps every line the bot wrote, escaped the same way, so `cat`
    // and `tail -f` on it are safe too.
    let log = run.dir.path().join("logs").join("hostile.stderr.log");
    let log = std::fs::read_to_string(&log).unwrap();
    assert!(log.contains(ESCAPED_TITLE), "{log}");
    assert!(log.contains("\\x1b[1A\\x1b[2Kerased"), "{log}");
    for (path, text) in result_files(run.dir.path()) {
        assert_no_terminal_controls(&path, &text);
    }
}

#[test]
fn arena_check_quotes_a_bots_stderr_escaped() {
    let tag = Tag::new();
    for behaviour in ["stderr-escapes-exit", "stderr-escapes-crash"] {
        let out = arena(&[
            "check",
            &hostile(behaviour, &[], &tag),
            "--time",
            "300",
            "--handshake-time",
            "3000",
        ]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{behaviour}:\n{stdout}");
        assert!(stdout.contains("FAIL"), "{behaviour}:\n{stdout}");
        assert!(
            stdout.contains("\\x1b]0;pwned\\x07"),
            "{behaviour}: the stderr is shown, escaped:\n{stdout}"
        );
        assert_no_terminal_controls(behaviour, &stdout);
        assert_no_terminal_controls(behaviour, &String::from_utf8_lossy(&out.stderr));
    }
    assert_no_leftovers(&tag);
}

/// Whether a spreadsheet opening the cell would run it as a formula (OWASP's list:
/// a leading `=`, `+`, `-`, `@`, tab or carriage return), unless it is a number.
fn runs_as_formula(cell: &str) -> bool {
    cell.starts_with(['=', '+', '-', '@', '\t', '\r']) && cell.parse::<f64>().is_err()
}

#[test]
fn a_formula_in_an_info_line_is_neutralised_in_moves_csv_and_numbers_stay_numbers() {
    let (row, run, _) = play("formula-info");
    assert!(
        ["three-in-a-row", "no-moves"].contains(&row["reason"].as_str()),
        "the info line costs nothing: {row:?}"
    );
    let hostile_moves: Vec<&Row> = run.moves.iter().filter(|m| m["mark"] == "X").collect();
    assert!(!hostile_moves.is_empty());
    for m in &hostile_moves {
        assert!(
            m["info"].starts_with("'=HYPERLINK(\"https://example.invalid/"),
            "{m:?}"
        );
        assert_eq!(
            m["score"].parse::<f64>().ok(),
            Some(-35.0),
            "a negative score stays a number: {m:?}"
        );
    }
    for (file, rows) in [("games.csv", &run.games), ("moves.csv", &run.moves)] {
        for row in rows {
            for (column, cell) in row {
                assert!(
                    !runs_as_formula(cell),
                    "{file}: column {column} holds a formula: {cell:?}"
                );
            }
        }
    }
}
