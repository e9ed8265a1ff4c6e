//! `arena play` driven like a person would: in a real terminal (tmux), with
//! typed squares, arrow keys, undo and quit, reading the screen after each step,
//! then checking the files it wrote.
//!
//! Ignored, with the command that installs it, where tmux is not installed (.ci/run
//! installs it).

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use uttt::notation::{parse_move_list, parse_position};
use uttt::rules::{Position, Rules};
use uttt_tests::{Tag, arena, arena_bin, processes_with, read_csv, test_bot};

/// X to move in the top-middle board after 32 marks of a random game. X has
/// won the top-left and top-right boards and holds d1 and e1: f1 wins the game.
const NEAR_THE_END: &str = "o1xxx1oox/o1x5x/1ox1o2ox/xox5o/9/1o4o1x/2xx1oo1o/3x2o1o/4xx3 2 x";

/// A tmux server of our own (its own socket), running one command in a window
/// of a known size; killed with everything in it when dropped.
struct Terminal {
    socket: String,
}

impl Terminal {
    /// Starts it (the tests that call this are ignored without tmux).
    fn start(command: &str) -> Terminal {
        let term = Terminal {
            socket: format!("arena-play-{}", Tag::new().0),
        };
        let shell = format!("{command}; echo EXIT=$?; sleep 600");
        let out = term.tmux(&[
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            "100",
            "-y",
            "45",
            &shell,
        ]);
        assert!(out.status.success(), "tmux new-session: {out:?}");
        term
    }

    fn tmux(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .env_remove("NO_COLOR")
            .output()
            .expect("running tmux")
    }

    /// Presses keys, in tmux's names: "e", "Enter", "Up", "C-c"…
    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(keys);
        assert!(self.tmux(&args).status.success());
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-t", "t"]).stdout).into_owned()
    }

    /// Waits until the screen shows `text`, and returns the screen.
    /// The screen once it shows `text` and has stopped changing: a capture taken
    /// while the arena is still redrawing would show half of the new frame.
    fn wait_for(&self, text: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut previous = String::new();
        loop {
            let screen = self.screen();
            if screen.contains(text) && screen == previous {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "the screen never showed {text:?} (and held still); it shows:\n{screen}"
            );
            previous = screen;
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
    }
}

fn quoted(path: &Path) -> String {
    format!("'{}'", path.display())
}

#[test]
#[cfg_attr(
    not(has_tmux),
    ignore = "needs tmux to play in a real terminal: apt-get install tmux"
)]
fn a_person_plays_a_bot_with_typed_squares_refusals_undo_and_arrow_keys() {
    let work = tempfile::tempdir().expect("temp dir");
    // Plays the first legal square it is offered, so the bot's replies are known.
    let bot = test_bot("good.py");
    let out = work.path().join("results");
    let tag = Tag::new();
    let command = format!(
        "{} play \"first=python3 {} --name first --tag {}\" --from '{NEAR_THE_END}' --out {} --name tester",
        quoted(arena_bin()),
        bot.display(),
        tag.0,
        quoted(&out)
    );
    let term = Terminal::start(&command);
    let turn = "X to move in the top-middle board - your move, tester";
    let screen = term.wait_for(turn);
    assert!(
        screen.contains("arena play: tester (X) vs first (O, bot), standard rules"),
        "{screen}"
    );
    assert!(
        screen.contains("(cursor: e2, center of top-middle board)"),
        "{screen}"
    );

    // A square in the wrong board, then a taken one typed as board.cell.
    term.keys(&["e", "5", "Enter"]);
    term.wait_for(
        "Not allowed: e5 is in the center board, but you must play in the top-middle board",
    );
    term.keys(&["2", ".", "2", "Enter"]);
    term.wait_for("Not allowed: e1 is already taken by X");
    // Nothing of this game can be taken back yet: it started here.
    term.keys(&["u"]);
    term.wait_for("Nothing to undo: this is where the game started");

    // d2 sends O to the middle-left board, where the bot answers a5.
    term.keys(&["d", "2", "Enter"]);
    let screen = term.wait_for("X to move in the middle-left board - your move, tester");
    assert!(
        screen.contains("O played middle-left of middle-left board (first): a5"),
        "{screen}"
    );
    assert!(
        screen.contains(" 2 │ O   X │ │ X · · │"),
        "d2 is drawn:\n{screen}"
    );

    // Undo takes back the reply and the move.
    term.keys(&["u"]);
    let screen = term.wait_for("Took back d2 and a5");
    assert!(screen.contains(turn), "{screen}");
    assert!(
        screen.contains(" 2 │ O   X │ ║ · · · ║"),
        "d2 is gone:\n{screen}"
    );

    // From the cursor (e2, the center of the board): up to e1, right to f1.
    assert!(
        screen.contains("(cursor: e2, center of top-middle board)"),
        "{screen}"
    );
    term.keys(&["Up", "Right"]);
    term.wait_for("(cursor: f1, top-right of top-middle board)");
    term.keys(&["Enter"]);
    let screen = term.wait_for("EXIT=");
    assert!(
        screen.contains("X (tester) wins: three boards in a row."),
        "{screen}"
    );
    assert!(screen.contains("Saved as game G0001 in"), "{screen}");
    assert!(screen.contains("EXIT=0"), "{screen}");
    // The tag is on the tmux and arena command lines too; only the bot counts.
    let left: Vec<(u32, String)> = processes_with(&tag)
        .into_iter()
        .filter(|(_, cmd)| !cmd.contains(" play "))
        .collect();
    assert!(left.is_empty(), "the bot was left running: {left:?}");

    // The record is the final line: the found opening, then f1; no d2 or a5.
    let games = read_csv(&out.join("games.csv"));
    assert_eq!(games.len(), 1);
    let game = &games[0];
    assert_eq!(
        (game["x"].as_str(), game["o"].as_str()),
        ("tester", "first")
    );
    assert_eq!(game["winner"], "X");
    assert_eq!(game["reason"], "three-in-a-row");
    assert_eq!(game["plies"], "33");
    let opening = parse_move_list(&game["opening"]).expect("opening moves");
    let reached = Position::from_moves(Rules::STANDARD, opening).expect("a legal opening");
    let target = parse_position(NEAR_THE_END, Rules::STANDARD).expect("position text");
    assert_eq!(reached.to_string(), target.to_string());
    let moves = read_csv(&out.join("moves.csv"));
    assert_eq!(moves.len(), 33);
    let last = &moves[32];
    assert_eq!(
        (
            last["ply"].as_str(),
            last["square"].as_str(),
            last["bot"].as_str()
        ),
        ("33", "f1", "tester")
    );
    assert!(
        !last["think_ms"].is_empty(),
        "a person's move has its think time"
    );
    assert!(moves[..32].iter().all(|m| m["bot"] == "opening"));

    // And it reads back.
    let replay = arena(&["replay", &out.to_string_lossy()]);
    let text = String::from_utf8_lossy(&replay.stdout);
    assert!(
        text.contains("X played top-right of top-middle board\nX claims the top-middle board\nX (tester) wins: three boards in a row."),
        "{text}"
    );
}

#[test]
#[cfg_attr(
    not(has_tmux),
    ignore = "needs tmux to play in a real terminal: apt-get install tmux"
)]
fn two_people_share_the_terminal_undo_one_move_and_can_leave() {
    let work = tempfile::tempdir().expect("temp dir");
    let out = work.path().join("results");
    let command = format!(
        "{} play --two-players --name ann --name bob --out {}",
        quoted(arena_bin()),
        quoted(&out)
    );
    let term = Terminal::start(&command);
    term.wait_for("X to move: free move, any open board - your move, ann");
    term.keys(&["e", "5", "Enter"]);
    term.wait_for("O to move in the center board - your move, bob");
    term.keys(&["E", "4", "Enter"]);
    term.wait_for("X to move in the top-middle board - your move, ann");
    term.keys(&["u"]);
    let screen = term.wait_for("Took back e4");
    assert!(
        screen.contains("O to move in the center board - your move, bob"),
        "{screen}"
    );
    term.keys(&["C-c"]);
    let screen = term.wait_for("EXIT=");
    assert!(
        screen.contains("You left the game after 1 move; it was not recorded."),
        "{screen}"
    );
    assert!(
        screen.contains("To play on from there: arena play --two-players --from \"e5\""),
        "{screen}"
    );
    assert!(screen.contains("EXIT=130"), "{screen}");
    assert!(
        !out.join("games.csv").exists(),
        "an unfinished game is not recorded"
    );
}

#[test]
fn play_refuses_to_start_without_a_terminal() {
    let output = arena(&["play", "--two-players"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("arena play needs a terminal"), "{stderr}");
}
