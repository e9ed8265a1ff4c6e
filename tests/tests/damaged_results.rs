//! A results directory damaged by hand or by a spreadsheet: a duplicated games.csv
//! row, a winner that is not X, O or draw, a row of another run, line ends turned
//! into `\r\n`. Resume, `arena report`, `arena ratings` and `arena replay` read
//! games.csv through one validation and refuse a bad row naming the file, the line
//! and the fix; a run that resumes counts every game it finished, and its score
//! covers them all.

use std::path::Path;

use uttt_tests::{arena_text, read_csv};

/// `arena match random greedy --games 4 --seed 3 --out DIR` (the same command plays
/// and resumes).
fn play_match(dir: &Path) -> (Option<i32>, String, String) {
    arena_text(&[
        "match",
        "random",
        "greedy",
        "--games",
        "4",
        "--seed",
        "3",
        "--out",
        &dir.to_string_lossy(),
    ])
}

/// A finished 4-game match and the lines of its games.csv.
fn finished_match() -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (code, stdout, stderr) = play_match(dir.path());
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let lines = std::fs::read_to_string(dir.path().join("games.csv"))
        .expect("games.csv")
        .lines()
        .map(str::to_string)
        .collect::<Vec<_>>();
    assert_eq!(lines.len(), 5, "a header and 4 rows");
    (dir, lines)
}

fn write_lines(path: &Path, lines: &[String]) {
    std::fs::write(path, lines.join("\n") + "\n").expect("writing games.csv");
}

/// Asserts that resume, report and ratings refuse the directory with `needle`.
#[track_caller]
fn assert_every_reader_refuses(dir: &Path, needle: &str) {
    let games = dir.join("games.csv").to_string_lossy().into_owned();
    let (code, stdout, stderr) = play_match(dir);
    assert_eq!(code, Some(2), "resume:\n{stdout}\n{stderr}");
    assert!(stderr.contains(needle), "resume:\n{stderr}");
    assert!(!stdout.contains("Resuming"), "resume:\n{stdout}");
    let (code, _, stderr) = arena_text(&["report", &dir.to_string_lossy()]);
    assert_ne!(code, Some(0), "report:\n{stderr}");
    assert!(stderr.contains(needle), "report:\n{stderr}");
    let (code, _, stderr) = arena_text(&["ratings", &games]);
    assert_eq!(code, Some(2), "ratings:\n{stderr}");
    assert!(stderr.contains(needle), "ratings:\n{stderr}");
}

#[test]
fn a_duplicated_row_is_refused_by_resume_report_and_ratings_naming_both_lines() {
    let (dir, mut lines) = finished_match();
    lines.push(lines[3].clone());
    write_lines(&dir.path().join("games.csv"), &lines);
    assert_every_reader_refuses(
        dir.path(),
        "games.csv:6: game G0003 appears twice (also at line 4): delete one of the two lines",
    );
}

#[test]
fn a_winner_that_is_not_x_o_or_draw_is_refused_by_resume_report_and_ratings() {
    let (dir, mut lines) = finished_match();
    let mut cells: Vec<String> = lines[2].split(',').map(str::to_string).collect();
    cells[6] = "Q".into();
    lines[2] = cells.join(",");
    write_lines(&dir.path().join("games.csv"), &lines);
    assert_every_reader_refuses(
        dir.path(),
        "games.csv:3: game G0002: winner 'Q' should be X, O or draw",
    );
}

#[test]
fn a_row_of_another_run_is_not_taken_for_a_finished_game() {
    let (dir, mut lines) = finished_match();
    // Game 2 of this run, played by other bots: not this run's game.
    lines[2] = lines[2].replace(",greedy,", ",mcts,");
    lines.truncate(3);
    write_lines(&dir.path().join("games.csv"), &lines);
    let (code, stdout, stderr) = play_match(dir.path());
    assert_eq!(code, Some(2), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("games.csv:3: game G0002 is not a game of this run"),
        "{stderr}"
    );
}

#[test]
fn after_a_resume_the_score_covers_every_game_of_the_match() {
    let (dir, mut lines) = finished_match();
    // As if the run had been stopped after two games.
    lines.truncate(3);
    write_lines(&dir.path().join("games.csv"), &lines);
    let (code, stdout, stderr) = play_match(dir.path());
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("Resuming: 2 games already played"),
        "{stdout}"
    );
    assert!(stdout.contains("Game 3/4"), "{stdout}");
    assert!(stdout.contains("Game 4/4"), "{stdout}");
    assert!(!stdout.contains("Game 5/"), "{stdout}");
    let score = stdout
        .lines()
        .find(|l| l.starts_with("Score of random vs greedy:"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(score.ends_with(" 4 games"), "{score}");
    assert_eq!(read_csv(&dir.path().join("games.csv")).len(), 4);
}

#[test]
fn replay_names_the_right_moves_csv_line_in_a_file_saved_with_crlf_line_ends() {
    let (dir, _) = finished_match();
    let path = dir.path().join("moves.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    // Ply 3 of G0001 moved onto the square of ply 1: occupied, so illegal.
    let first: Vec<String> = lines[1].split(',').map(str::to_string).collect();
    let third = lines
        .iter()
        .position(|l| l.starts_with("G0001,3,"))
        .unwrap();
    let mut cells: Vec<String> = lines[third].split(',').map(str::to_string).collect();
    cells[4] = first[4].clone();
    lines[third] = cells.join(",");
    std::fs::write(&path, lines.join("\r\n") + "\r\n").unwrap();
    let (code, _, stderr) =
        arena_text(&["replay", &dir.path().to_string_lossy(), "--game", "G0001"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "moves.csv: line {}: game G0001, ply 3 ({}) is illegal",
            third + 1,
            first[4]
        )),
        "{stderr}"
    );
}
