//! Snapshots of what people read: every subcommand's `--help` and the error
//! messages of common mistakes, through the real binary. A wording change shows up
//! as a reviewed diff of `tests/tests/snapshots/` (`cargo insta review`, or
//! `INSTA_UPDATE=always cargo test --test what_users_read` and read the diff).

use std::path::Path;
use std::process::Command;

use uttt_tests::arena_bin;

/// Runs the arena in `dir` with a fixed terminal width and no colour; returns the
/// exit code and what it printed (stdout, then stderr).
fn arena_in(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(arena_bin())
        .args(args)
        .current_dir(dir)
        .env("COLUMNS", "100")
        .env("NO_COLOR", "1")
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap_or_else(|e| panic!("running arena {args:?}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

const SUBCOMMANDS: &[&str] = &[
    "match",
    "tournament",
    "league",
    "sprt",
    "gauntlet",
    "rate",
    "ratings",
    "check",
    "report",
    "serve",
    "replay",
    "play",
    "perft",
    "bench",
    "doctor",
    "repro",
    "suite",
    "completions",
    "man",
];

#[test]
fn the_help_of_every_subcommand_is_reviewed() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("temp dir: {e}"));
    let (code, top) = arena_in(dir.path(), &["--help"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("help", top);
    for sub in SUBCOMMANDS {
        let (code, text) = arena_in(dir.path(), &[sub, "--help"]);
        assert_eq!(code, 0, "arena {sub} --help exited {code}:\n{text}");
        insta::assert_snapshot!(format!("help_{sub}"), text);
    }
}

/// A mistake a user makes: the files it needs, the command, and its exit code.
struct Mistake {
    name: &'static str,
    files: &'static [(&'static str, &'static str)],
    args: &'static [&'static str],
}

const MISTAKES: &[Mistake] = &[
    Mistake {
        name: "match_missing_bot",
        files: &[],
        args: &["match", "random"],
    },
    Mistake {
        name: "match_unknown_program",
        files: &[],
        args: &["match", "random", "nosuchbot", "-n", "2"],
    },
    Mistake {
        name: "match_zero_games",
        files: &[],
        args: &["match", "random", "greedy", "--games", "0"],
    },
    Mistake {
        name: "unknown_rules",
        files: &[],
        args: &["match", "random", "greedy", "--rules", "openboards"],
    },
    Mistake {
        name: "config_odd_games",
        files: &[(
            "club.toml",
            "name = \"club\"\ngames = 5\n[[bot]]\ncommand = \"random\"\n[[bot]]\ncommand = \"greedy\"\n",
        )],
        args: &["tournament", "club.toml"],
    },
    Mistake {
        name: "config_unknown_key",
        files: &[(
            "club.toml",
            "name = \"club\"\ngame = 4\n[[bot]]\ncommand = \"random\"\n[[bot]]\ncommand = \"greedy\"\n",
        )],
        args: &["tournament", "club.toml"],
    },
    Mistake {
        name: "config_bad_toml",
        files: &[("club.toml", "name = \"club\n")],
        args: &["tournament", "club.toml"],
    },
    Mistake {
        name: "config_missing",
        files: &[],
        args: &["tournament", "nosuch.toml"],
    },
    Mistake {
        name: "bad_opening_book",
        files: &[("book.txt", "e5 e4\ne5 a1\n")],
        args: &["match", "random", "greedy", "--openings", "book.txt"],
    },
    Mistake {
        name: "ratings_missing_file",
        files: &[],
        args: &["ratings", "nosuch/games.csv"],
    },
    Mistake {
        name: "replay_no_results",
        files: &[],
        args: &["replay", "nosuch", "--game", "G0001"],
    },
    Mistake {
        name: "sprt_bounds_reversed",
        files: &[],
        args: &["sprt", "random", "greedy", "--elo0", "5", "--elo1", "0"],
    },
    Mistake {
        name: "perft_too_deep",
        files: &[],
        args: &["perft", "99"],
    },
];

#[test]
fn the_messages_of_common_mistakes_are_reviewed() {
    for mistake in MISTAKES {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("temp dir: {e}"));
        for (file, text) in mistake.files {
            std::fs::write(dir.path().join(file), text)
                .unwrap_or_else(|e| panic!("writing {file}: {e}"));
        }
        let (code, text) = arena_in(dir.path(), mistake.args);
        assert_ne!(
            code, 0,
            "{}: expected a failure, got:\n{text}",
            mistake.name
        );
        let shown = format!("$ arena {}\n{text}[exit {code}]", mistake.args.join(" "));
        insta::assert_snapshot!(format!("mistake_{}", mistake.name), shown);
    }
}

/// The end of a tournament as a terminal of `columns` shows it: the lines after
/// the last game's, up to where the results went (the machine's load, which
/// varies, follows). Every line fits.
fn tournament_end(columns: usize, extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("temp dir: {e}"));
    // The built-in ladder at fixed work with a generous safety net: the same
    // games on any machine, however loaded.
    let mut args = vec![
        "tournament",
        "--games",
        "2",
        "--seed",
        "3",
        "--nodes",
        "50",
        "--time",
        "5000",
        "--concurrency",
        "1",
        "--out",
        "r",
    ];
    args.extend(extra);
    let out = Command::new(arena_bin())
        .args(&args)
        .current_dir(dir.path())
        .env("COLUMNS", columns.to_string())
        .env("NO_COLOR", "1")
        .output()
        .unwrap_or_else(|e| panic!("running arena {args:?}: {e}"));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    let last_game = lines
        .iter()
        .rposition(|l| l.starts_with("[30/30] "))
        .unwrap_or_else(|| panic!("30 games:\n{text}"));
    let results = lines
        .iter()
        .position(|l| l.starts_with("Results in "))
        .unwrap_or_else(|| panic!("where the results went:\n{text}"));
    let end = &lines[last_game + 1..=results];
    let wide: Vec<&&str> = lines[last_game + 1..]
        .iter()
        .filter(|l| l.chars().count() > columns)
        .collect();
    assert!(wide.is_empty(), "wider than {columns} columns: {wide:#?}");
    end.join("\n")
}

/// Issue 49: at 80 columns the end of a tournament was 15 pairing rows of Elo,
/// nElo, LOS and pentanomial counts, mostly `+inf`/`inf`, notes about a
/// "BayesElo-style prior", and a table of 117 columns that wrapped on every
/// row. It is the standings and the winner, fitted to the width; the rest comes
/// with --details, fitted too, undetermined values said in words.
#[test]
fn the_end_of_a_tournament_is_reviewed_at_80_and_120_columns() {
    let at_80 = tournament_end(80, &[]);
    insta::assert_snapshot!("tournament_end_80", at_80);
    for hidden in ["inf", "BayesElo", "Ptnml", "nElo"] {
        assert!(!at_80.contains(hidden), "{hidden}:\n{at_80}");
    }
    insta::assert_snapshot!("tournament_end_120", tournament_end(120, &[]));
    let details = tournament_end(80, &["--details"]);
    assert!(!details.contains("inf "), "{details}");
    insta::assert_snapshot!("tournament_end_80_details", details);
    insta::assert_snapshot!(
        "tournament_end_120_details",
        tournament_end(120, &["--details"])
    );
}
