//! Bots written for CodinGame and Riddles.io play unmodified: a tournament mixing the
//! three protocols completes with results the rules engine agrees with, trailing text
//! is kept as info, dialect faults get the usual reasons, and bots that never exit
//! are killed at the end of every game. A foreign bot plays the rules it believes
//! unless told otherwise, and `arena check` checks it under them, skipping what its
//! protocol cannot say and keeping its failed games for `arena replay`/`repro`.

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
    // CodinGame's and Riddles.io's bots believe different rules: the file chooses.
    let text = format!(
        "seed = 3\ngames = 2\nrules = \"standard\"\nallow-unannounced-rules = true\n\
         [time]\nmove-ms = 1000\n{}{}{}",
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

/// A CodinGame bot believes `most-boards` (its arena gives a full board with no
/// line to whoever won more small boards): with no rules written, that is what it
/// plays, and the run says so; rules it cannot be told are refused, naming its own.
#[test]
fn a_codingame_bot_plays_its_own_arenas_rules_unless_told_otherwise() {
    let tag = Tag::new();
    let run = run_match(&codingame(&tag, "x"), &good(&tag), &["--games", "2"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stdout.contains(
            "rules most-boards: the rules of CodinGame's bots ('codingame_first'), which cannot \
             be told any; a full board with no line goes to whoever won more small boards"
        ),
        "{}",
        run.stdout
    );
    assert_eq!(run.games.len(), 2);
    assert!(
        run.games.iter().all(|g| g["rules"] == "most-boards"),
        "{:?}",
        run.games
    );
    for rules in ["standard", "open-won-boards"] {
        let run = run_match(&codingame(&tag, "x"), &good(&tag), &["--rules", rules]);
        assert_eq!(run.code, Some(2));
        assert!(
            run.stderr.contains(&format!(
                "cannot announce the rules '{rules}': it would play believing the rules are \
                 'most-boards' (its moves are still checked under '{rules}'). Use --rules \
                 most-boards, the rules it knows, or accept this with --allow-unannounced-rules"
            )),
            "{}",
            run.stderr
        );
        assert!(run.games.is_empty());
    }
    let run = run_match(
        &codingame(&tag, "x"),
        &good(&tag),
        &[
            "--rules",
            "standard",
            "--allow-unannounced-rules",
            "--games",
            "1",
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.games[0]["rules"], "standard");
    assert_no_leftovers(&tag);
}

/// A CodinGame bot and a Riddles.io bot believe different rules: with none
/// written, the run is refused with both choices spelled out.
#[test]
fn bots_believing_different_rules_are_refused_with_the_choice_spelled_out() {
    let tag = Tag::new();
    let run = run_match(&codingame(&tag, "x"), &riddles(&tag), &[]);
    assert_eq!(run.code, Some(2), "{}", run.stdout);
    assert!(
        run.stderr.contains(
            "bot 'codingame_first' speaks codingame and believes the rules 'most-boards', bot \
             'riddles_first' speaks riddles and believes 'standard', and neither can be told \
             other rules: choose the rules with --rules most-boards or --rules standard, and let \
             the other bot play rules it does not know with --allow-unannounced-rules"
        ),
        "{}",
        run.stderr
    );
    assert!(run.games.is_empty());
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
    assert!(
        stdout.contains("Rules most-boards: the rules a codingame bot believes"),
        "{stdout}"
    );
    // The two steps that start from a set position cannot be sent to it: skipped, saying why.
    for step in [
        "expects a free move in any open board when sent to a closed board",
        "expects the one legal move when only one is left",
    ] {
        assert!(
            stdout.contains(&format!(
                "SKIP  {step}: codingame tells a bot only its opponent's last move, so a game \
                 cannot start from a set position"
            )),
            "{stdout}"
        );
    }
    assert!(
        stdout.contains("4 of 4 steps passed (2 skipped)"),
        "{stdout}"
    );
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
    let stdout = String::from_utf8_lossy(&riddles.stdout);
    assert_eq!(riddles.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("6 of 6 steps passed"), "{stdout}");
}

/// `--time 100` no longer holds a first move to 100 ms: it gets the larger of
/// `--time` and 1000 ms (CodinGame's first turn), unless `--first-time` says
/// otherwise.
#[test]
fn arena_check_gives_a_first_move_its_own_time() {
    let bot = format!(
        "python3 {} slow-start",
        test_bot("codingame_hostile.py").display()
    );
    let pass = arena(&["check", "--protocol", "codingame", &bot, "--time", "100"]);
    let stdout = String::from_utf8_lossy(&pass.stdout);
    assert_eq!(pass.status.code(), Some(0), "{stdout}");
    let fail = arena(&[
        "check",
        "--protocol",
        "codingame",
        &bot,
        "--time",
        "100",
        "--first-time",
        "100",
        "--margin",
        "20",
    ]);
    let stdout = String::from_utf8_lossy(&fail.stdout);
    assert_eq!(fail.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(
            "FAIL  expects a legal move every turn of a whole game as X, moving first: no reply within 100 ms"
        ),
        "{stdout}"
    );
}

/// An illegal move seen by `arena check` leaves its game in a results directory
/// that `arena replay` draws and `arena repro` replays to the bot.
#[test]
fn a_checks_illegal_move_is_kept_for_replay_and_repro() {
    let work = tempfile::tempdir().unwrap();
    let kept = work.path().join("kept");
    let kept_text = kept.to_string_lossy().into_owned();
    let bot = format!(
        "python3 {} occupied",
        test_bot("codingame_hostile.py").display()
    );
    let run = arena(&[
        "check",
        "--protocol",
        "codingame",
        &bot,
        "--out",
        &kept_text,
    ]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "the game is kept: arena replay {kept_text} --game G0001 (arena repro {kept_text} \
             --game G0001 asks your bot again)"
        )),
        "{stdout}"
    );
    let games = read_csv(&kept.join("games.csv"));
    assert!(!games.is_empty());
    assert_eq!(games[0]["reason"], "illegal-move", "{:?}", games[0]);
    assert_eq!(games[0]["rules"], "most-boards");
    let replay = arena(&["replay", &kept_text, "--game", "G0001"]);
    let shown = String::from_utf8_lossy(&replay.stdout);
    assert_eq!(replay.status.code(), Some(0), "{shown}");
    assert!(
        shown.contains("O (arena-check) wins: X (codingame_hostile) played a1, which is illegal"),
        "{shown}"
    );
    let repro = arena(&["repro", &kept_text, "--game", "G0001"]);
    let again = String::from_utf8_lossy(&repro.stdout);
    assert!(again.contains("Reproduced: illegal-move again"), "{again}");
    // A check that passes keeps nothing.
    let clean = work.path().join("clean");
    let pass = arena(&[
        "check",
        "--protocol",
        "codingame",
        &format!("python3 {}", test_bot("codingame_first.py").display()),
        "--out",
        &clean.to_string_lossy(),
    ]);
    assert_eq!(pass.status.code(), Some(0));
    assert!(!clean.exists());
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
