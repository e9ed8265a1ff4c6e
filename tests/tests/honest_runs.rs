//! A green run means the bots really played (issue 22): every bot is started once
//! before the first game and a broken one stops the run with exit 4, in words; a
//! bot that fails its handshake during a run makes it exit 4 whatever the score;
//! a closed standard output (`| head -1`) never turns a run's result into exit 0.

use std::io::{BufRead as _, BufReader};
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use uttt_tests::{Tag, arena, arena_bin, assert_no_leftovers, good, hostile, read_csv};

/// Runs `arena ARGS…` in `dir`, as a user in that directory would.
fn arena_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(arena_bin())
        .current_dir(dir)
        .args(args)
        .output()
        .expect("test setup")
}

fn script(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("test setup");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("test setup");
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The first example of the issue: the opponent never started, and the gauntlet
/// said PASS with exit 0.
#[test]
fn a_gauntlet_against_a_missing_script_plays_no_game_and_exits_4() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let run = arena_in(
        work.path(),
        &[
            "gauntlet",
            "random",
            "--against",
            "python3 nosuch.py",
            "--min-score",
            "0.9",
            "--games",
            "2",
            "--out",
            &out.to_string_lossy(),
        ],
    );
    let (stdout, stderr) = (text(&run.stdout), text(&run.stderr));
    assert_eq!(run.status.code(), Some(4), "{stdout}\n{stderr}");
    assert!(!stdout.contains("PASS"), "{stdout}");
    assert!(
        stderr.contains("a bot could not be started, so no game was played"),
        "{stderr}"
    );
    // The path as the user wrote it, resolved against the user's directory (not
    // the bot's scratch directory).
    let looked_for = work.path().join("nosuch.py");
    assert!(
        stderr.contains(&format!(
            "The file 'nosuch.py' does not exist (looked for {}",
            looked_for.display()
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("can't open file '{}'", looked_for.display())),
        "the interpreter's own message names the user's directory: {stderr}"
    );
    assert!(read_csv(&out.join("games.csv")).is_empty(), "no game");
}

/// Every broken bot is reported at once, each in words, before any game.
#[test]
fn every_broken_bot_is_reported_together_before_any_game() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    script(dir, "silent.sh", "#!/bin/sh\nsleep 30\n");
    script(
        dir,
        "dies.sh",
        "#!/bin/sh\necho 'cannot load weights.bin' >&2\nexit 3\n",
    );
    script(dir, "nointerp.sh", "#!/no/such/interpreter\n");
    let config = dir.join("t.toml");
    std::fs::write(
        &config,
        "games = 2\n[[bot]]\ncommand = \"random\"\n[[bot]]\ncommand = \"./silent.sh\"\n\
         [[bot]]\ncommand = \"./dies.sh\"\n[[bot]]\ncommand = \"./nointerp.sh\"\n\
         [[bot]]\nname = \"cg\"\nprotocol = \"codingame\"\ncommand = \"./dies.sh\"\n",
    )
    .unwrap();
    let out = dir.join("out");
    let run = arena_in(
        dir,
        &[
            "tournament",
            "t.toml",
            "--out",
            &out.to_string_lossy(),
            "--quiet",
        ],
    );
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("4 bots could not be started"), "{stderr}");
    assert!(
        stderr.contains("- silent: no 'ready' within")
            && stderr.contains("it printed nothing at all (did you flush standard output"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "- dies: it exited (exit code 3) before 'ready'; stderr ends: cannot load weights.bin"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("- nointerp: it could not be started")
            && stderr.contains(
                "its first line '#!/no/such/interpreter' names an interpreter that does not"
            ),
        "{stderr}"
    );
    // A foreign-dialect bot has no handshake: it must start and keep running.
    assert!(
        stderr.contains("- cg: it exited (exit code 3) within 300 ms of starting"),
        "{stderr}"
    );
    assert!(!stderr.contains("- random"), "{stderr}");
    assert!(read_csv(&out.join("games.csv")).is_empty(), "no game");
}

/// `"negamax --level insane"` was accepted and lost every game.
#[test]
fn a_built_in_bot_with_a_bad_option_is_refused_with_the_accepted_values() {
    let run = arena(&["match", "random", "negamax --level insane"]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("invalid value 'insane' for '--level <LEVEL>'")
            && stderr.contains("[possible values: easy, medium, hard]"),
        "{stderr}"
    );
}

/// With `--no-preflight` the games are played and lost by handshake failure, and
/// the run still exits 4: a gauntlet never says PASS then.
#[test]
fn without_the_preflight_a_handshake_failure_still_makes_the_run_exit_4() {
    let tag = Tag::new();
    let broken = hostile("exit-before-handshake", &[], &tag);
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("match");
    let run = arena(&[
        "match",
        &good(&tag),
        &broken,
        "--games",
        "2",
        "--no-preflight",
        "--out",
        &out.to_string_lossy(),
    ]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains("in 2 of 2 games a bot could not be started or failed its handshake"),
        "{stderr}"
    );
    let games = read_csv(&out.join("games.csv"));
    assert_eq!(games.len(), 2);
    assert!(games.iter().all(|g| g["reason"] == "handshake-failure"));

    let run = arena(&[
        "gauntlet",
        &good(&tag),
        "--against",
        &broken,
        "--games",
        "2",
        "--min-score",
        "0.5",
        "--no-preflight",
    ]);
    let (stdout, stderr) = (text(&run.stdout), text(&run.stderr));
    assert_eq!(run.status.code(), Some(4), "{stdout}\n{stderr}");
    assert!(!stdout.contains("PASS"), "{stdout}");
    assert_no_leftovers(&tag);
}

/// Runs `arena ARGS…`, reads one line of its standard output and closes it, as
/// `arena … | head -1` does; returns the exit code, the line and stderr.
fn head_1(args: &[&str]) -> (Option<i32>, String, String) {
    let mut child = Command::new(arena_bin())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running arena");
    let mut first = String::new();
    {
        let stdout = child.stdout.take().expect("running arena");
        BufReader::new(stdout)
            .read_line(&mut first)
            .expect("running arena");
    } // closed here
    let output = child.wait_with_output().expect("running arena");
    (output.status.code(), first, text(&output.stderr))
}

/// `arena sprt … | head -1` exited 0 (H1 accepted) where the same run unpiped
/// ends H0 accepted with exit 1.
#[test]
fn a_closed_standard_output_never_turns_an_sprt_regression_into_exit_0() {
    let work = tempfile::tempdir().unwrap();
    let piped = work.path().join("piped");
    let args = |out: &Path| {
        [
            "sprt", "random", "greedy", "--elo0", "-5", "--elo1", "0", "--time", "20", "--quiet",
            "--seed", "7", "--out",
        ]
        .iter()
        .map(|s| (*s).to_string())
        .chain(std::iter::once(out.to_string_lossy().into_owned()))
        .collect::<Vec<String>>()
    };
    let piped_args = args(&piped);
    let piped_args: Vec<&str> = piped_args.iter().map(String::as_str).collect();
    let (code, first, stderr) = head_1(&piped_args);
    assert!(first.starts_with("SPRT random vs greedy"), "{first}");
    // Stopped when a write fails (141), or, when every line it printed before the
    // verdict fit in the pipe, the code it earned (1, H0): never 0.
    match code {
        Some(141) => assert!(stderr.contains("standard output was closed"), "{stderr}"),
        Some(1) => {}
        other => panic!("exit {other:?}, expected 141 or 1:\n{stderr}"),
    }
    // The same test with its output read to the end: H0, exit 1. It resumes the
    // directory the piped run left.
    let whole = Command::new(arena_bin())
        .args(&piped_args)
        .output()
        .unwrap();
    let stdout = text(&whole.stdout);
    assert_eq!(whole.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("H0 accepted"), "{stdout}");
}

/// `arena match … | head -1` stopped after one game with exit 0: it stops as on a
/// signal, keeps the games it finished, says how to resume, and exits 141.
#[test]
fn a_match_whose_output_is_closed_stops_keeps_its_games_and_exits_141() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let out_arg = out.to_string_lossy().into_owned();
    let args = [
        "match", "random", "greedy", "--games", "400", "--time", "20", "--seed", "3", "--out",
        &out_arg,
    ];
    let (code, first, stderr) = head_1(&args);
    assert!(first.starts_with("Match: random vs greedy"), "{first}");
    assert_eq!(code, Some(141), "{stderr}");
    // Closed before or after the first games, depending on when `head` exits.
    assert!(
        stderr.contains("Stopped: standard output was closed"),
        "{stderr}"
    );
    if stderr.contains("closed after") {
        assert!(
            stderr.contains("To resume, run the same command again:"),
            "{stderr}"
        );
    }
    let kept = read_csv(&out.join("games.csv")).len();
    assert!(kept < 400, "the run stopped: {kept} games");
    // Resuming plays the rest.
    let resumed = arena(&args);
    assert_eq!(resumed.status.code(), Some(0), "{}", text(&resumed.stderr));
    assert_eq!(read_csv(&out.join("games.csv")).len(), 400);
}
