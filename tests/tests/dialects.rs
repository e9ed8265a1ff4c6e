//! Bots written for CodinGame and Riddles.io play unmodified: a tournament mixing the
//! three protocols completes with results the rules engine agrees with, trailing text
//! is kept as info, dialect faults get the usual reasons, and bots that never exit
//! are killed at the end of every game.

use uttt::notation::parse_move_list;
use uttt::rules::{Position, Rules};
use uttt_tests::{Tag, arena, assert_no_leftovers, good, read_csv, run_match, test_bot};

fn codingame(tag: &Tag, message: &str) -> String {
    format!(
        "codingame:python3 {} --message '{message}' --tag {}",
        test_bot("codingame_first.py").display(),
        tag.0
    )
}

fn riddles(tag: &Tag) -> String {
    format!(
        "riddles:python3 {} {}",
        test_bot("riddles_first.py").display(),
        tag.0
    )
}

#[test]
fn a_tournament_mixing_three_protocols_completes_and_agrees_with_the_rules_engine() {
    let tag = Tag::new();
    let work = tempfile::tempdir().unwrap();
    let bot = |name: &str, protocol: &str, spec: String| {
        let (_, command) = spec
            .split_once(':')
            .map_or(("", spec.as_str()), |(p, c)| (p, c));
        format!(
            "[[bot]]\nname = \"{name}\"\nprotocol = \"{protocol}\"\ncommand = \"{}\"\n",
            command.replace('"', "\\\"")
        )
    };
    let text = format!(
        "seed = 3\ngames = 2\n[time]\nmove-ms = 1000\n{}{}{}",
        bot("ours", "uttt", good(&tag)),
        bot("cg", "codingame", codingame(&tag, "gl hf")),
        bot("rd", "riddles", riddles(&tag)),
    );
    let cfg = work.path().join("mixed.toml");
    std::fs::write(&cfg, text).unwrap();
    let out = work.path().join("out");
    let run = arena(&[
        "tournament",
        &cfg.to_string_lossy(),
        "--out",
        &out.to_string_lossy(),
        "--quiet",
    ]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let games = read_csv(&out.join("games.csv"));
    let moves = read_csv(&out.join("moves.csv"));
    assert_eq!(games.len(), 6);
    for game in &games {
        assert!(
            ["three-in-a-row", "no-moves"].contains(&game["reason"].as_str()),
            "{game:?}"
        );
        // Replay the recorded moves with the rules engine: same end, same winner.
        let list: Vec<&str> = moves
            .iter()
            .filter(|m| m["game"] == game["id"])
            .map(|m| m["square"].as_str())
            .collect();
        let pos = Position::from_moves(Rules::STANDARD, parse_move_list(&list.join(" ")).unwrap())
            .unwrap();
        let outcome = pos
            .status()
            .outcome()
            .expect("the game is over on the board");
        let winner = outcome
            .winner()
            .map_or("draw".to_string(), |m| m.to_string());
        assert_eq!(game["winner"], winner, "{game:?}");
        assert_eq!(game["plies"], list.len().to_string());
    }
    // CodinGame's trailing text is the move's info.
    assert!(
        moves
            .iter()
            .any(|m| m["bot"] == "cg" && m["info"] == "gl hf"),
        "trailing text kept"
    );
    // Foreign bots never exit by themselves: none is left.
    assert_no_leftovers(&tag);
}

#[test]
fn dialect_faults_have_the_usual_reasons() {
    let tag = Tag::new();
    let hostile = |behaviour: &str| {
        format!(
            "codingame:python3 {} {behaviour} --tag {}",
            test_bot("codingame_hostile.py").display(),
            tag.0
        )
    };
    let cases = [
        (
            "out-of-range",
            "malformed-output",
            "'9 9' is not 'row col' with row and column 0..8",
        ),
        ("occupied", "illegal-move", "played a7, which is illegal"),
        ("sleep", "timeout", "ran out of time"),
    ];
    for (behaviour, reason, detail) in cases {
        let run = run_match(
            &hostile(behaviour),
            &good(&tag),
            &["--games", "1", "--time", "300", "--first-time", "1000"],
        );
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        let row = &run.games[0];
        assert_eq!(row["reason"], reason, "{behaviour}: {row:?}");
        assert_eq!(row["winner"], "O");
        assert!(row["detail"].contains(detail), "{behaviour}: {row:?}");
    }
    assert_no_leftovers(&tag);
}

#[test]
fn variants_are_refused_for_dialect_bots_unless_allowed() {
    let tag = Tag::new();
    let run = run_match(
        &codingame(&tag, "x"),
        &good(&tag),
        &["--rules", "most-boards"],
    );
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr
            .contains("cannot announce the rules 'most-boards'"),
        "{}",
        run.stderr
    );
    let run = run_match(
        &codingame(&tag, "x"),
        &good(&tag),
        &[
            "--rules",
            "most-boards",
            "--allow-unannounced-rules",
            "--games",
            "1",
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.games.len(), 1);
    assert_no_leftovers(&tag);
}

#[test]
fn arena_check_speaks_the_dialects() {
    let pass = arena(&[
        "check",
        "--protocol",
        "codingame",
        &format!("python3 {}", test_bot("codingame_first.py").display()),
    ]);
    let stdout = String::from_utf8_lossy(&pass.stdout);
    assert_eq!(pass.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("6 of 6 steps passed"), "{stdout}");
    let fail = arena(&[
        "check",
        "--protocol",
        "codingame",
        &format!(
            "python3 {} out-of-range",
            test_bot("codingame_hostile.py").display()
        ),
    ]);
    let stdout = String::from_utf8_lossy(&fail.stdout);
    assert_eq!(fail.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("FAIL  expects a legal move every turn of a whole game as X, moving first: your bot's answer was not understood: '9 9' is not 'row col'"), "{stdout}");
    let riddles = arena(&[
        "check",
        &format!("riddles:python3 {}", test_bot("riddles_first.py").display()),
    ]);
    assert_eq!(
        riddles.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&riddles.stdout)
    );
}

/// A CodinGame bot is told only its opponent's last move: started from an opening
/// it would play on a board it does not know. Refused up front, on the command line
/// and in a config, saying why and what to do.
#[test]
fn codingame_bots_are_refused_openings_on_the_command_line_and_in_a_config() {
    let tag = Tag::new();
    let work = tempfile::tempdir().unwrap();
    let book = work.path().join("book.txt");
    std::fs::write(&book, "e5 e4\n").unwrap();
    let book_arg = book.to_string_lossy().into_owned();
    for (flags, named) in [
        (vec!["--random-plies", "2"], "--random-plies"),
        (vec!["--openings", book_arg.as_str()], "--openings"),
    ] {
        let run = run_match(&codingame(&tag, "x"), &good(&tag), &flags);
        assert_eq!(run.code, Some(2), "{}", run.stderr);
        assert!(
            run.stderr.contains(&format!(
                "speaks codingame, which tells a bot only its opponent's last move, never the \
                 opening moves: started from an opening ({named})"
            )) && run
                .stderr
                .contains(&format!("Play it without openings (remove {named})")),
            "{}",
            run.stderr
        );
        assert!(run.games.is_empty());
    }
    let cfg = work.path().join("cg.toml");
    std::fs::write(
        &cfg,
        format!(
            "[openings]\nrandom-plies = 2\n[[bot]]\ncommand = \"random\"\n[[bot]]\nname = \"cg\"\n\
             protocol = \"codingame\"\ncommand = \"{}\"\n",
            codingame(&tag, "x")
                .trim_start_matches("codingame:")
                .replace('"', "\\\"")
        ),
    )
    .unwrap();
    let out = work.path().join("out");
    let run = arena(&[
        "tournament",
        &cfg.to_string_lossy(),
        "--out",
        &out.to_string_lossy(),
    ]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("cg.toml:7:")
            && stderr.contains("started from an opening ([openings] random-plies)"),
        "{stderr}"
    );
    assert!(!out.exists(), "nothing written");
    assert_no_leftovers(&tag);
}

/// Riddles bots receive the whole field each turn, so they keep openings: a bot
/// that plays the first empty playable cell of the field it is sent plays only
/// legal moves from random openings and from a book, and every game replays
/// through the rules engine to the recorded end.
#[test]
fn riddles_bots_play_from_openings_and_the_rules_engine_agrees() {
    let tag = Tag::new();
    let work = tempfile::tempdir().unwrap();
    let book = work.path().join("book.txt");
    // Openings that send the first mover into occupied and fresh boards.
    std::fs::write(&book, "e5 e4 d2\na1 b2 e6 f8\n").unwrap();
    let book_arg = book.to_string_lossy().into_owned();
    for flags in [
        vec!["--random-plies", "6"],
        vec!["--openings", book_arg.as_str()],
    ] {
        let mut all = vec!["--games", "8", "--time", "1000"];
        all.extend(flags.iter().copied());
        let run = run_match(&riddles(&tag), "random", &all);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        assert_eq!(run.games.len(), 8, "{}", run.stderr);
        for game in &run.games {
            assert!(
                ["three-in-a-row", "no-moves"].contains(&game["reason"].as_str()),
                "{flags:?}: {game:?}"
            );
            assert!(!game["opening"].is_empty(), "{game:?}");
            // moves.csv holds the opening's moves too (bot "opening").
            let list: Vec<&str> = run
                .moves
                .iter()
                .filter(|m| m["game"] == game["id"])
                .map(|m| m["square"].as_str())
                .collect();
            assert!(list.join(" ").starts_with(&game["opening"]), "{game:?}");
            let pos =
                Position::from_moves(Rules::STANDARD, parse_move_list(&list.join(" ")).unwrap())
                    .unwrap();
            let outcome = pos
                .status()
                .outcome()
                .expect("the game is over on the board");
            let winner = outcome
                .winner()
                .map_or("draw".to_string(), |m| m.to_string());
            assert_eq!(game["winner"], winner, "{game:?}");
        }
    }
    assert_no_leftovers(&tag);
}
