//! What a CI step and a bot author read (issue 22): `summary.json` in every results
//! directory and the same object with `--json`, `arena match`'s Elo difference with
//! its interval, LOS, draw ratio and pentanomial counts, and CSV cells left empty
//! where the terminal says "too few" (games).

use std::path::Path;
use std::process::Output;

use serde_json::Value;
use uttt_tests::{arena, read_csv};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs `arena ARGS… --out OUT --json`; returns the output, stdout parsed as JSON
/// and `OUT/summary.json`, after checking they are the same object and carry the
/// exit code.
fn with_json(args: &[&str], out: &Path) -> (Output, Value) {
    let out_arg = out.to_string_lossy().into_owned();
    let mut all = args.to_vec();
    all.extend(["--out", &out_arg, "--json"]);
    let run = arena(&all);
    let printed: Value = serde_json::from_slice(&run.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is one JSON object ({e}):\n{}\n{}",
            text(&run.stdout),
            text(&run.stderr)
        )
    });
    let file: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("summary.json")).expect("summary.json"),
    )
    .expect("summary.json");
    assert_eq!(printed, file, "--json prints summary.json");
    assert_eq!(file["version"], 1);
    assert_eq!(
        file["exit_code"].as_i64(),
        run.status.code().map(i64::from),
        "{file}"
    );
    assert!(file["exit_reason"].as_str().is_some_and(|r| !r.is_empty()));
    (run, file)
}

#[test]
fn every_command_writes_summary_json_and_json_prints_it() {
    let work = tempfile::tempdir().unwrap();

    let (run, m) = with_json(
        &["match", "greedy", "random", "--games", "4", "--seed", "1"],
        &work.path().join("match"),
    );
    assert_eq!(run.status.code(), Some(0));
    // The words went to stderr, so stdout parses.
    assert!(text(&run.stderr).contains("Score of greedy vs random"));
    assert_eq!(m["command"], "match");
    assert_eq!(m["games_played"], 4);
    assert_eq!(m["head_to_head"]["bot"], "greedy");
    assert_eq!(m["head_to_head"]["pairs"], 2);
    assert_eq!(m["standings"].as_array().map(Vec::len), Some(2));

    let (run, s) = with_json(
        &[
            "sprt", "random", "greedy", "--elo0", "-5", "--elo1", "0", "--time", "20", "--seed",
            "7", "--quiet",
        ],
        &work.path().join("sprt"),
    );
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stderr));
    assert_eq!(s["sprt"]["decision"], "H0");
    // The same sentence as the terminal's last line and `arena sprt --decide`.
    assert_eq!(
        s["exit_reason"],
        format!(
            "H0 accepted after {} games: random is weaker than hoped against greedy — a regression (exit 1)",
            s["games_played"]
        )
    );
    let llr = s["sprt"]["llr"].as_f64().unwrap();
    assert!(llr <= s["sprt"]["lower_bound"].as_f64().unwrap(), "{s}");
    assert_eq!(s["sprt"]["elo0"], -5.0);
    assert_eq!(s["sprt"]["model"], "normalized");
    let h2h = &s["head_to_head"];
    let counted: u64 = [
        "ptnml_ll",
        "ptnml_ld",
        "ptnml_wl_dd",
        "ptnml_wd",
        "ptnml_ww",
    ]
    .iter()
    .map(|k| h2h[*k].as_u64().unwrap())
    .sum();
    assert_eq!(counted, h2h["pairs"].as_u64().unwrap());
    assert_eq!(h2h["games"], s["games_played"]);

    // Out of games without a decision (exit 3): the test is over, and the word a
    // CI step reads with `jq .sprt.decision` says so (issue 49: it said
    // "continue").
    let (run, out_of_games) = with_json(
        &[
            "sprt",
            "mcts",
            "mcts --playouts 50",
            "--nodes",
            "50",
            "--seed",
            "1",
            "--max-games",
            "4",
            "--quiet",
        ],
        &work.path().join("sprt-short"),
    );
    assert_eq!(run.status.code(), Some(3), "{}", text(&run.stderr));
    assert_eq!(out_of_games["sprt"]["decision"], "inconclusive");

    let (run, g) = with_json(
        &[
            "gauntlet",
            "random",
            "--against",
            "greedy",
            "-n",
            "4",
            "--min-score",
            "0.9",
            "--seed",
            "1",
        ],
        &work.path().join("gauntlet"),
    );
    assert_eq!(run.status.code(), Some(1));
    assert_eq!(g["gauntlet"]["verdict"], "FAIL");
    assert!(
        g["exit_reason"]
            .as_str()
            .unwrap()
            .starts_with("FAIL: random scored"),
        "{g}"
    );
    assert_eq!(g["gauntlet"]["min_score"], 0.9);
    assert_eq!(g["gauntlet"]["games"], 4);
    assert!(g["gauntlet"]["score"].as_f64().unwrap() < 0.9);

    let config = work.path().join("t.toml");
    std::fs::write(
        &config,
        "seed = 5\ngames = 2\n[[bot]]\ncommand = \"random\"\n[[bot]]\ncommand = \"greedy\"\n",
    )
    .unwrap();
    let (run, t) = with_json(
        &["tournament", &config.to_string_lossy(), "--quiet"],
        &work.path().join("tournament"),
    );
    assert_eq!(run.status.code(), Some(0));
    assert_eq!(t["command"], "tournament");
    assert_eq!(t["pairings"].as_array().map(Vec::len), Some(2));

    // The preflight's refusal is a summary too: exit 4 and the broken bot.
    let (run, b) = with_json(
        &["match", "random", "python3 nosuch.py"],
        &work.path().join("broken"),
    );
    assert_eq!(run.status.code(), Some(4));
    assert_eq!(b["games_played"], 0);
    assert_eq!(b["broken_bots"][0]["name"], "nosuch");
    assert!(
        b["broken_bots"][0]["problem"]
            .as_str()
            .unwrap()
            .contains("nosuch.py"),
        "{b}"
    );
}

#[test]
fn a_match_says_the_elo_difference_los_draw_ratio_and_pentanomial_counts() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let run = arena(&[
        "match",
        "random",
        "random",
        "--games",
        "20",
        "--seed",
        "4",
        "--out",
        &out.to_string_lossy(),
    ]);
    let stdout = text(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{stdout}");
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let h = &summary["head_to_head"];
    let elo = h["elo"].as_f64().unwrap();
    let error = h["elo_error"].as_f64().unwrap();
    let los = h["los"].as_f64().unwrap();
    let draws = h["draw_ratio"].as_f64().unwrap();
    // The terminal shows the numbers summary.json holds.
    let expected = format!(
        "Elo difference: {elo:+.1} ± {error:.1} (95%), LOS: {:.1}%, draw ratio: {:.1}%",
        los * 100.0,
        draws * 100.0
    );
    assert!(stdout.contains(&expected), "{expected}\n{stdout}");
    let expected = format!(
        "Pentanomial [LL, LD, WL+DD, WD, WW]: [{}, {}, {}, {}, {}] over 10 pairs",
        h["ptnml_ll"], h["ptnml_ld"], h["ptnml_wl_dd"], h["ptnml_wd"], h["ptnml_ww"]
    );
    assert!(stdout.contains(&expected), "{expected}\n{stdout}");
}

/// Two copies of a deterministic bot: every pair ends alike at an even score, so
/// the games show no spread. The terminal says "too few" (games) and explains it;
/// the CSV cells are empty, not `elo_error 0.0` and `los 0.5`.
#[test]
fn crosstable_cells_without_a_value_are_empty() {
    let work = tempfile::tempdir().unwrap();
    let config = work.path().join("t.toml");
    std::fs::write(
        &config,
        "seed = 5\ngames = 4\n[[bot]]\nname = \"a\"\ncommand = \"greedy\"\n\
         [[bot]]\nname = \"b\"\ncommand = \"greedy\"\n",
    )
    .unwrap();
    let out = work.path().join("out");
    let run = arena(&[
        "tournament",
        &config.to_string_lossy(),
        "--out",
        &out.to_string_lossy(),
        "--details",
    ]);
    let stdout = text(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("too few"), "{stdout}");
    assert!(stdout.contains("too few: not enough games"), "{stdout}");
    let rows = read_csv(&out.join("crosstable.csv"));
    assert_eq!(rows.len(), 2);
    for row in &rows {
        assert_eq!(row["score"], "0.5", "{row:?}");
        for column in ["elo_error", "elo_low", "elo_high", "nelo", "los"] {
            assert_eq!(row[column], "", "{column}: {row:?}");
        }
    }
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["pairings"][0]["los"], Value::Null);
}
