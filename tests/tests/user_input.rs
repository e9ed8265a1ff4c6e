//! Careless input from the person running the arena: numbers out of range (the same
//! bounds on the command line as in a tournament file), an opening book saved with a
//! byte-order mark, file-level config errors, and a bot name that cannot be used.
//! Each is refused (exit 2) before any bot starts, with a message that names the flag
//! or the file and line, and the fix — or, for the byte-order mark, accepted.

use std::path::Path;

use uttt_tests::{arena_text, read_csv};

#[test]
fn out_of_range_times_on_the_command_line_are_refused_naming_the_flag_and_the_range() {
    let cases: &[(&[&str], &str, &str)] = &[
        (
            &["--clock", "1000", "--increment", "18446744073709551615"],
            "--increment",
            "0 to 3600000",
        ),
        (&["--time", "3600001"], "--time", "1 to 3600000"),
        (
            &["--time", "18446744073709551615"],
            "--time",
            "1 to 3600000",
        ),
        (&["--first-time", "0"], "--first-time", "1 to 3600000"),
        (&["--margin", "600001"], "--margin", "0 to 600000"),
        (&["--clock", "86400001"], "--clock", "1 to 86400000"),
        (
            &["--handshake-time", "0"],
            "--handshake-time",
            "1 to 600000",
        ),
        (&["--concurrency", "100000"], "--concurrency", "1..=256"),
    ];
    for (flags, flag, range) in cases {
        let mut args = vec!["match", "random", "random", "--games", "2"];
        args.extend_from_slice(flags);
        let (code, stdout, stderr) = arena_text(&args);
        assert_eq!(code, Some(2), "{flags:?}:\n{stdout}\n{stderr}");
        assert!(
            stderr.contains(flag) && stderr.contains(range),
            "{flags:?}: the message names {flag} and {range}:\n{stderr}"
        );
        assert!(!stdout.contains("Game 1/"), "{flags:?}: nothing is played");
    }
    let (code, _, stderr) = arena_text(&["check", "random", "--time", "18446744073709551615"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("1 to 3600000"), "{stderr}");
    let (code, _, stderr) = arena_text(&["sprt", "random", "greedy", "--max-games", "4294967295"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--max-games"), "{stderr}");
}

#[test]
fn a_tournament_file_has_the_same_bounds_as_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    for (key, value, range) in [
        ("move-ms", "3600001", "1 to 3600000"),
        ("first-move-ms", "0", "1 to 3600000"),
        ("margin-ms", "600001", "0 to 600000"),
        ("clock-ms", "86400001", "1 to 86400000"),
    ] {
        let path = dir.path().join("t.toml");
        std::fs::write(
            &path,
            format!(
                "[time]\n{key} = {value}\n[[bot]]\ncommand = \"random\"\n[[bot]]\ncommand = \"greedy\"\n"
            ),
        )
        .unwrap();
        let (code, _, stderr) = arena_text(&["tournament", &path.to_string_lossy()]);
        assert_eq!(code, Some(2), "{key}: {stderr}");
        assert!(
            stderr.contains("t.toml:2: ") && stderr.contains(range),
            "{key}: {stderr}"
        );
    }
}

fn write_book(dir: &Path) -> String {
    let path = dir.join("book.txt");
    std::fs::write(&path, "\u{feff}# saved by a Windows editor\ne5 e4\n")
        .expect("writing the book");
    path.to_string_lossy().into_owned()
}

#[test]
fn an_opening_book_with_a_byte_order_mark_is_read_on_the_command_line_and_in_a_config() {
    let dir = tempfile::tempdir().unwrap();
    let book = write_book(dir.path());
    let out = dir.path().join("match");
    let (code, stdout, stderr) = arena_text(&[
        "match",
        "random",
        "greedy",
        "--games",
        "2",
        "--openings",
        &book,
        "--out",
        &out.to_string_lossy(),
    ]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let games = read_csv(&out.join("games.csv"));
    assert_eq!(games.len(), 2, "{stdout}");
    assert!(games.iter().all(|g| g["opening"] == "e5 e4"), "{games:?}");

    let config = dir.path().join("t.toml");
    std::fs::write(
        &config,
        "games = 2\n[openings]\nfile = \"book.txt\"\n[[bot]]\ncommand = \"random\"\n[[bot]]\ncommand = \"greedy\"\n",
    )
    .unwrap();
    let out = dir.path().join("tournament");
    let (code, stdout, stderr) = arena_text(&[
        "tournament",
        &config.to_string_lossy(),
        "--out",
        &out.to_string_lossy(),
        "--quiet",
    ]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let games = read_csv(&out.join("games.csv"));
    assert_eq!(games.len(), 2, "{stdout}");
    assert!(games.iter().all(|g| g["opening"] == "e5 e4"), "{games:?}");
}

#[test]
fn errors_about_a_whole_config_file_name_the_file_without_a_line_zero() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.toml");
    std::fs::write(&path, "[[bot]]\ncommand = \"random\"\n").unwrap();
    let (code, _, stderr) = arena_text(&["tournament", &path.to_string_lossy()]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}: a tournament needs at least 2 bots",
            path.display()
        )),
        "{stderr}"
    );
    let missing = dir.path().join("missing.toml");
    let (code, _, stderr) = arena_text(&["tournament", &missing.to_string_lossy()]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("{}: cannot read the file", missing.display())),
        "{stderr}"
    );
    assert!(!stderr.contains(":0:"), "{stderr}");
}

#[test]
fn a_name_prefix_with_characters_a_name_cannot_hold_is_called_an_invalid_name() {
    for name in ["🤖", "café", "a:b"] {
        let spec = format!("{name}=random");
        let (code, _, stderr) = arena_text(&["match", &spec, "greedy", "--games", "2"]);
        assert_eq!(code, Some(2), "{spec}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "name '{name}' has characters that are not allowed: use letters, digits"
            )),
            "{spec}: {stderr}"
        );
        assert!(!stderr.contains("not found on PATH"), "{spec}: {stderr}");
    }
}

/// A mistyped config key, built-in bot name, rule name or subcommand gets the
/// nearest right one (exit 2, nothing played).
#[test]
fn mistyped_names_get_a_did_you_mean() {
    let (code, _, stderr) = arena_text(&["tournment"]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("a similar subcommand exists: 'tournament'"),
        "{stderr}"
    );

    let (code, _, stderr) = arena_text(&["match", "random", "mtcs"]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("program 'mtcs' not found on PATH (did you mean the built-in bot 'mcts'?)"),
        "{stderr}"
    );
    let (code, _, stderr) = arena_text(&["match", "random", "builtin:negamx"]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("no built-in bot 'negamx' (did you mean 'negamax'?)"),
        "{stderr}"
    );

    let (code, _, stderr) = arena_text(&["match", "random", "greedy", "--rules", "most-bords"]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("--rules: unknown rules 'most-bords' (did you mean 'most-boards'?)"),
        "{stderr}"
    );

    let work = tempfile::tempdir().unwrap();
    let config = work.path().join("typo.toml");
    let bots = "[[bot]]\ncommand = \"random\"\n[[bot]]\ncommand = \"greedy\"\n";
    for (text, expected) in [
        (
            format!("gamez = 4\n{bots}"),
            "typo.toml:1: unknown field `gamez` (did you mean 'games'?)",
        ),
        (
            format!("{bots}[time]\nmove-mss = 3\n"),
            "typo.toml:6: unknown field `move-mss` (did you mean 'move-ms'?)",
        ),
        (
            format!("rules = \"open-won-board\"\n{bots}"),
            "typo.toml:1: unknown rules 'open-won-board' (did you mean 'open-won-boards'?)",
        ),
    ] {
        std::fs::write(&config, text).unwrap();
        let (code, _, stderr) = arena_text(&["tournament", &config.to_string_lossy()]);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains(expected), "{expected}\n{stderr}");
    }
}
