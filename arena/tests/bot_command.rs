//! `arena bot NAME`: the real binary as a bot process, spoken to over pipes the
//! way the referee will.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn arena_bot(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_arena"))
        .arg("bot")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start arena bot");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write to the bot");
    child.wait_with_output().expect("wait for the bot")
}

const GAME: &str = "uttt 1\n\
    newgame mark O rules standard opponent test seed 42 movetime 50 margin 50\n\
    go time 50 last e5 moves e5 legal d4,e4,f4,d5,f5,d6,e6,f6\n\
    gameover result X reason resign moves e5\n\
    quit\n";

#[test]
fn every_bot_plays_a_game_over_pipes_and_exits_cleanly() {
    for name in bots::registry::NAMES {
        // `level` needs its number; `level3` is the same bot by name.
        let args: &[&str] = if *name == "level" {
            &["level", "--n", "3"]
        } else {
            &[name]
        };
        let output = arena_bot(args, GAME);
        assert!(output.status.success(), "{name}: {output:?}");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(
            lines[..4].iter().filter(|l| l.starts_with("id ")).count(),
            3
        );
        assert_eq!(lines[3], "ready", "{name}: {stdout}");
        let answer = lines.last().copied().unwrap_or_default();
        assert!(
            ["d4", "e4", "f4", "d5", "f5", "d6", "e6", "f6"].contains(&answer),
            "{name} answered {answer:?}: {stdout}"
        );
        assert!(
            output.stderr.is_empty(),
            "{name}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

#[test]
fn options_reach_the_bot() {
    let output = arena_bot(&["negamax", "--level", "hard"], "uttt 1\nquit\n");
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stdout).contains("id name negamax-hard"));
}

#[test]
fn mcts_plays_over_pipes_under_either_selection_rule() {
    for args in [
        vec!["mcts", "--select", "uct", "--explore", "0.4"],
        vec![
            "mcts",
            "--select",
            "puct",
            "--explore",
            "1",
            "--prior-temp",
            "0.2",
        ],
    ] {
        let output = arena_bot(&args, GAME);
        assert!(output.status.success(), "{args:?}: {output:?}");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let answer = stdout.lines().last().unwrap_or_default();
        assert!(
            ["d4", "e4", "f4", "d5", "f5", "d6", "e6", "f6"].contains(&answer),
            "{args:?} answered {answer:?}: {stdout}"
        );
    }
    // A temperature for the rule without priors is a usage error, not ignored.
    let output = arena_bot(&["mcts", "--select", "uct", "--prior-temp", "0.2"], "");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--prior-temp sets the priors of --select puct"),
        "{stderr}"
    );
}

#[test]
fn unknown_bots_and_options_exit_2_and_say_what_is_valid() {
    let output = arena_bot(&["alphazero"], "");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("unknown bot 'alphazero'"), "{stderr}");
    assert!(stderr.contains("random, greedy, negamax"), "{stderr}");

    let output = arena_bot(&["negamax", "--level", "expert"], "");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("possible values: easy, medium, hard"),
        "{stderr}"
    );
}

#[test]
fn help_lists_the_bots_and_their_options() {
    let output = arena_bot(&["--help"], "");
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    // The numbered levels are listed as one family (`level1, level2…`).
    for name in bots::registry::NAMES
        .iter()
        .filter(|n| !n.starts_with("level") || **n == "level")
    {
        assert!(stdout.contains(name), "{name}: {stdout}");
    }
    assert!(stdout.contains("level1, level2"), "{stdout}");
    let output = arena_bot(&["mcts", "--help"], "");
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    for option in ["--playouts", "--select", "--prior-temp"] {
        assert!(stdout.contains(option), "{option}: {stdout}");
    }
}
