//! `arena check` end to end: every reference bot and every starter kit passes; each
//! hostile bot fails, and the failure says what went wrong in words a student
//! understands.

use uttt_tests::{Tag, arena, hostile};

/// Runs `arena check SPEC` with short limits; returns (exit code, stdout). The
/// margin is wide because this checks conformance, not timing: on a shared CI
/// machine with other jobs, a bot that thinks up to its limit was once measured
/// 67 ms past it (timing precision has its own benchmark, `arena bench timing`).
fn check(spec: &str) -> (Option<i32>, String) {
    let out = arena(&[
        "check",
        spec,
        "--time",
        "300",
        "--first-time",
        "300",
        "--margin",
        "250",
        "--handshake-time",
        "3000",
    ]);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn every_reference_bot_passes() {
    for bot in [
        "random",
        "greedy",
        "negamax --level easy",
        "negamax",
        "negamax --level hard",
        "mcts",
    ] {
        let (code, stdout) = check(bot);
        assert_eq!(code, Some(0), "{bot}:\n{stdout}");
        assert!(stdout.contains("8 of 8 steps passed"), "{bot}:\n{stdout}");
    }
}

#[test]
fn every_starter_kit_passes() {
    let dir = tempfile::tempdir().unwrap();
    for spec in uttt_tests::starter_specs(dir.path()) {
        let (code, stdout) = check(&spec);
        assert_eq!(code, Some(0), "{spec}:\n{stdout}");
        assert!(stdout.contains("8 of 8 steps passed"), "{spec}:\n{stdout}");
    }
}

#[test]
fn hostile_bots_fail_with_the_right_words() {
    let tag = Tag::new();
    let cases: &[(&str, &[&str], &str)] = &[
        (
            "exit-before-handshake",
            &[],
            "FAIL  expects 'ready' after 'uttt 1' (the handshake): the handshake failed: it exited (exit code 1) before 'ready'",
        ),
        (
            "bad-handshake",
            &[],
            "the handshake failed: it sent 'hello' before 'ready'",
        ),
        (
            "garbage",
            &[],
            "your bot's answer was not understood: 'hello' is not a move (a1..i9)",
        ),
        (
            "out-of-range",
            &[],
            "your bot's answer was not understood: 'j4' is not a square: columns are a..i",
        ),
        (
            "wrong-board",
            &["--after", "1"],
            "but the board it had to play in is the",
        ),
        ("occupied", &[], "which is already taken by"),
        ("closed-board", &[], "pick a square from `legal`"),
        ("sleep-past-limit", &[], "no reply within 300 ms"),
        (
            "no-newline",
            &[],
            "but never ended the line — print a newline and flush",
        ),
        (
            "crash-signal",
            &[],
            "your bot stopped running (signal 11 (SIGSEGV))",
        ),
        ("invalid-utf8", &[], "not valid UTF-8"),
        (
            "ignore-quit",
            &[],
            "FAIL  expects your bot to exit after 'quit': your bot did not exit within 1000 ms after 'quit'",
        ),
    ];
    for (behaviour, args, expected) in cases {
        let (code, stdout) = check(&hostile(behaviour, args, &tag));
        assert_eq!(code, Some(1), "{behaviour} should fail:\n{stdout}");
        assert!(
            stdout.contains(expected),
            "{behaviour}: expected {expected:?} in:\n{stdout}"
        );
    }
    uttt_tests::assert_no_leftovers(&tag);
}

#[test]
fn a_failure_shows_the_bots_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let bot = dir.path().join("crashy.py");
    std::fs::write(
        &bot,
        "import sys\nfor line in sys.stdin:\n    if line.startswith('uttt'): print('ready', flush=True)\n    elif line.startswith('go'): raise RuntimeError('my strategy crashed')\n",
    )
    .unwrap();
    let (code, stdout) = check(&format!("python3 {}", bot.display()));
    assert_eq!(code, Some(1));
    assert!(
        stdout.contains("your bot stopped running (exit code 1)"),
        "{stdout}"
    );
    assert!(stdout.contains("your bot's stderr ends with:"), "{stdout}");
    assert!(
        stdout.contains("| RuntimeError: my strategy crashed"),
        "{stdout}"
    );
}
