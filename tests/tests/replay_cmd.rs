//! `arena replay` on results written by a real `arena match`: the story must be
//! the one the match told live (`--verbose`), word for word, and the board must
//! show the position the recorded moves lead to.

use std::path::{Path, PathBuf};

use uttt::notation::position_from_move_list;
use uttt::rules::{Position, Rules, Square};
use uttt_tests::{arena_text, read_csv, run_match, test_bot};

/// Plays the first legal square twice per game, then crashes with exit code 3.
const CRASHES: &str = r#"
import sys
moves = 0
for line in sys.stdin:
    w = line.split()
    if not w:
        continue
    f = dict(zip(w[1::2], w[2::2]))
    if w[0] == "uttt":
        print("id name crashy\nready", flush=True)
    elif w[0] == "newgame":
        moves = 0
    elif w[0] == "go":
        moves += 1
        if moves > 2:
            sys.exit(3)
        print(f["legal"].split(",")[0], flush=True)
"#;

/// `good.py`, which always plays the first legal square: games are reproducible.
fn first_legal() -> String {
    format!(
        "first=python3 {} --name first",
        test_bot("good.py").display()
    )
}

fn script(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("writing a test bot");
    format!("python3 {}", path.display())
}

/// The narrative `arena match --verbose` printed for `id`: the indented lines
/// before "Game k/n (id): …".
fn live_story(stdout: &str, id: &str) -> Vec<String> {
    let lines: Vec<&str> = stdout.lines().collect();
    let end = lines
        .iter()
        .position(|l| l.starts_with("Game ") && l.contains(&format!("({id})")))
        .unwrap_or_else(|| panic!("no summary for {id} in:\n{stdout}"));
    let start = lines[..end]
        .iter()
        .rposition(|l| l.is_empty())
        .map_or(0, |i| i + 1);
    lines[start..end]
        .iter()
        .map(|l| l.trim_start().to_string())
        .collect()
}

/// The story `arena replay` printed: between the header's blank line and the
/// blank line before the board.
fn replayed_story(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .skip(2)
        .take_while(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

fn moves_of(moves_csv: &Path, id: &str) -> Vec<String> {
    read_csv(moves_csv)
        .into_iter()
        .filter(|r| r["game"] == id)
        .map(|r| r["square"].clone())
        .collect()
}

/// Checks the drawn grid against `pos`: every square shows its mark, or a dot or
/// a blank when empty, and the last move sits in brackets.
fn assert_board_shows(stdout: &str, pos: &Position, last: Option<Square>) {
    let lines: Vec<&str> = stdout.lines().collect();
    for row in 0..9u8 {
        let label = format!(" {} ", row + 1);
        let line: Vec<char> = lines
            .iter()
            .find(|l| l.starts_with(&label))
            .unwrap_or_else(|| panic!("no board row {}:\n{stdout}", row + 1))
            .chars()
            .collect();
        for column in 0..9u8 {
            let sq = Square::from_column_row(column, row).expect("square on the grid");
            let at = 5 + 2 * usize::from(column) + 4 * usize::from(column / 3);
            let shown = line[at];
            match pos.mark_at(sq) {
                Some(mark) => assert_eq!(shown, mark.as_char(), "{sq} in:\n{stdout}"),
                None => assert!(
                    shown == '·' || shown == ' ',
                    "{sq} shows '{shown}':\n{stdout}"
                ),
            }
            let bracketed = line[at - 1] == '[' && line[at + 1] == ']';
            assert_eq!(bracketed, last == Some(sq), "brackets at {sq}:\n{stdout}");
        }
    }
}

#[test]
fn replay_tells_each_game_as_the_match_did_and_draws_the_final_board() {
    let bots = tempfile::tempdir().expect("temp dir");
    let first = first_legal();
    let crashy = script(bots.path(), "crashy.py", CRASHES);
    let m = run_match(&first, &crashy, &["--games", "2", "--verbose"]);
    assert_eq!(m.code, Some(0), "{}\n{}", m.stdout, m.stderr);
    let dir = m.dir.path().to_string_lossy().into_owned();
    let moves_csv = m.dir.path().join("moves.csv");
    assert_eq!(m.games.len(), 2);
    for game in &m.games {
        let id = game["id"].as_str();
        let (code, stdout, stderr) = arena_text(&["replay", &dir, "--game", id]);
        assert_eq!(code, Some(0), "{stderr}");
        let story = replayed_story(&stdout);
        assert_eq!(
            story,
            live_story(&m.stdout, id),
            "replay of {id}:\n{stdout}"
        );
        assert!(
            story
                .last()
                .is_some_and(|l| l.contains("crashed (exit code 3)")),
            "the crash is the recorded result: {story:?}"
        );
        assert!(
            stdout.starts_with(&format!(
                "Game {id}: {} (X) vs {} (O), standard rules\n",
                game["x"], game["o"]
            )),
            "{stdout}"
        );
        let squares = moves_of(&moves_csv, id);
        let pos = position_from_move_list(Rules::STANDARD, &squares.join(" "))
            .expect("recorded moves are legal");
        let last = squares.last().map(|s| s.parse().expect("a square"));
        assert_board_shows(&stdout, &pos, last);
        assert!(stdout.contains(&format!("Position: {pos}\n")), "{stdout}");
        assert!(
            stdout.contains(&format!("Moves: {}\n", squares.join(" "))),
            "{stdout}"
        );
        assert!(!stdout.contains('\x1b'), "no colour into a pipe");
    }
}

#[test]
fn replay_at_a_ply_stops_the_story_and_draws_that_position() {
    let first = first_legal();
    let m = run_match(&first, &first, &["--games", "2", "--verbose"]);
    assert_eq!(m.code, Some(0), "{}\n{}", m.stdout, m.stderr);
    let dir = m.dir.path().to_string_lossy().into_owned();
    let squares = moves_of(&m.dir.path().join("moves.csv"), "G0002");
    assert!(squares.len() > 6);

    // The whole game first: claims on their own lines, as the match told it.
    let (code, stdout, stderr) = arena_text(&["replay", &dir, "--game", "G0002"]);
    assert_eq!(code, Some(0), "{stderr}");
    let story = replayed_story(&stdout);
    assert_eq!(story, live_story(&m.stdout, "G0002"));
    assert!(
        story.iter().any(|l| l.contains(" claims the ")),
        "{story:?}"
    );

    let (code, stdout, stderr) = arena_text(&["replay", &dir, "--game", "G0002", "--ply", "5"]);
    assert_eq!(code, Some(0), "{stderr}");
    let story = replayed_story(&stdout);
    let played: Vec<&String> = story.iter().filter(|l| l.contains(" played ")).collect();
    assert_eq!(played.len(), 5, "{story:?}");
    assert_eq!(
        story.last().map(String::as_str),
        Some(
            format!(
                "(stopped at ply 5 of {}; the game goes on for {} more)",
                squares.len(),
                squares.len() - 5
            )
            .as_str()
        )
    );
    let pos = position_from_move_list(Rules::STANDARD, &squares[..5].join(" ")).expect("legal");
    assert_board_shows(&stdout, &pos, squares[4].parse().ok());
    assert!(
        stdout.contains(&format!(
            "After ply 5 of {} (X {}):",
            squares.len(),
            squares[4]
        )),
        "{stdout}"
    );

    // Ply 0: the empty board, every board open to X.
    let (code, stdout, _) = arena_text(&["replay", &dir, "--game", "G0002", "--ply", "0"]);
    assert_eq!(code, Some(0));
    assert_board_shows(&stdout, &Position::new(Rules::STANDARD), None);
    assert_eq!(stdout.matches('╔').count(), 9, "{stdout}");
    assert!(
        stdout.contains("X to move: free move, any open board"),
        "{stdout}"
    );
}

#[test]
fn replay_errors_name_the_problem_and_the_fix() {
    let empty = tempfile::tempdir().expect("temp dir");
    let first = first_legal();
    let m = run_match(&first, &first, &["--games", "2"]);
    let dir = m.dir.path().to_string_lossy().into_owned();

    let (code, _, stderr) = arena_text(&["replay", &dir, "--game", "G0042"]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("no game 'G0042' in") && stderr.contains("its 2 games are: G0001, G0002"),
        "{stderr}"
    );
    let (code, _, stderr) = arena_text(&["replay", &dir]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("choose one with --game"), "{stderr}");
    let (code, _, stderr) = arena_text(&["replay", &dir, "--game", "G0001", "--ply", "500"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("--ply 500: game G0001 has"), "{stderr}");
    let missing = PathBuf::from(&dir).join("nowhere");
    let (code, _, stderr) = arena_text(&["replay", &missing.to_string_lossy(), "--game", "G0001"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("does not exist"), "{stderr}");
    let (code, _, stderr) = arena_text(&["replay", &empty.path().to_string_lossy()]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("has no games.csv"), "{stderr}");

    // A moves.csv whose 3rd move of G0001 was changed to an occupied square.
    let path = m.dir.path().join("moves.csv");
    let text = std::fs::read_to_string(&path).expect("moves.csv");
    let squares = moves_of(&path, "G0001");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let third = lines
        .iter()
        .position(|l| l.starts_with("G0001,3,"))
        .expect("ply 3 of G0001");
    lines[third] = lines[third].replacen(
        &format!(",{},", squares[2]),
        &format!(",{},", squares[0]),
        1,
    );
    std::fs::write(&path, lines.join("\n") + "\n").expect("writing moves.csv");
    let (code, _, stderr) = arena_text(&["replay", &dir, "--game", "G0001"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "moves.csv: line {}: game G0001, ply 3 ({}) is illegal",
            third + 1,
            squares[0]
        )),
        "{stderr}"
    );
}
