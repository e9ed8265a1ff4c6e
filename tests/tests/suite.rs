//! `arena suite` end to end: a real bot process asked once per position, scored
//! per category, the misses drawn, every answer in the CSV, `--min-score` as the
//! exit code; the hidden prover re-proves the shipped suite and catches a wrong
//! answer.

use uttt_tests::{Tag, arena_text, assert_no_leftovers, hostile, read_csv};

/// Two positions for a bot that plays the first legal square: it solves the first
/// (i1, the first legal square, wins at once) and misses the second (it plays d4;
/// the file says e4, which the prover refuses: nothing threatens there).
const TWO: &str = "\
# two positions by hand
id first; category win-in-1; position xxxxxxxx1/oo1oo1oo1/o2o5/9/9/9/9/9/9 3 x; best i1
id second; category defence; moves e5; best e4
";

#[test]
fn a_bot_is_scored_per_category_and_gated_by_min_score() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tag = Tag::new();
    let file = dir.path().join("two.txt");
    std::fs::write(&file, TWO).expect("suite file");
    let csv = dir.path().join("answers.csv");
    let bot = hostile("good", &[], &tag);
    let args = |min: &str| {
        vec![
            "suite".to_string(),
            bot.clone(),
            file.display().to_string(),
            "--csv".into(),
            csv.display().to_string(),
            "--min-score".into(),
            min.into(),
        ]
    };
    let run = |a: Vec<String>| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        arena_text(&a)
    };
    // Scoring is against the file's `best` (only `__suite-prove` proves it).
    let (code, out, err) = run(args("0.5"));
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("  win-in-1            1/1    100.0%"), "{out}");
    assert!(out.contains("  defence             0/1      0.0%"), "{out}");
    assert!(out.contains("  total               1/2     50.0%"), "{out}");
    assert!(
        out.contains("second (defence, standard rules, O to move): played d4"),
        "{out}"
    );
    assert!(out.contains("PASS: 50.0% solved"), "{out}");
    let rows = read_csv(&csv);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["id"], "first");
    assert_eq!(rows[0]["answer"], "i1");
    assert_eq!(rows[0]["solved"], "true");
    assert_eq!(rows[1]["solved"], "false");

    let (code, out, _) = run(args("0.6"));
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("FAIL: 50.0% solved, below --min-score 0.6 (exit 1)"),
        "{out}"
    );
    assert_no_leftovers(&tag);
}

#[test]
fn a_crashing_bot_loses_the_position_and_is_restarted_for_the_next() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tag = Tag::new();
    let file = dir.path().join("two.txt");
    std::fs::write(&file, TWO).expect("suite file");
    let csv = dir.path().join("answers.csv");
    let bot = hostile("exit0-mid", &[], &tag);
    let (code, out, err) = arena_text(&[
        "suite",
        &bot,
        &file.display().to_string(),
        "--csv",
        &csv.display().to_string(),
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    let rows = read_csv(&csv);
    assert_eq!(rows.len(), 2, "both positions were asked");
    for row in &rows {
        assert!(
            row["problem"].starts_with("crashed (exit code 0)"),
            "{row:?}"
        );
        assert_eq!(row["solved"], "false");
    }
    assert_no_leftovers(&tag);
}

#[test]
fn the_shipped_suite_is_proven_and_a_wrong_answer_is_caught() {
    let (code, out, err) = arena_text(&["__suite-prove"]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        out.contains("tactics (shipped): 300 of 300 positions proven by exhaustive search"),
        "{out}"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("bad.txt");
    std::fs::write(&file, TWO).expect("suite file");
    let (code, out, _) = arena_text(&["__suite-prove", &file.display().to_string()]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("second: NOT PROVEN: "), "{out}");
    assert!(!out.contains("first: NOT PROVEN"), "i1 does win: {out}");
}

#[test]
fn a_bad_suite_file_names_its_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("bad.txt");
    std::fs::write(&file, "# ok\nid x; category win-in-1; moves e5; best a1\n").expect("file");
    let (code, _, err) = arena_text(&["suite", "random", &file.display().to_string()]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("bad.txt:line 2: best: a1 is not a legal move here"),
        "{err}"
    );
}

/// Characters a terminal acts on rather than shows: every control character but
/// the newline and tab that end and indent lines.
fn terminal_controls(text: &str) -> Vec<char> {
    text.chars()
        .filter(|&c| c.is_control() && c != '\n' && c != '\t')
        .collect()
}

/// Issue 46 §3.2: a suite file's ids reached the terminal raw (escape sequences
/// that clear the screen and print a fake PASS) and `--csv` without the
/// spreadsheet's apostrophe. An id is shown escaped wherever it is shown, and
/// its CSV cell is escaped and neutralised, like every text the arena did not
/// write; so is an id quoted in a bad line's error.
#[test]
fn ids_holding_escape_sequences_and_formulas_are_escaped_and_neutralised() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tag = Tag::new();
    // One word (ids hold no blank): a formula, then a screen clear, the cursor
    // home, a fake verdict, a bell and an 8-bit CSI.
    let id = "=HYPERLINK(\"https://example.invalid\")\x1b[2J\x1b[HPASS:100%\x07\u{9b}31m";
    let file = dir.path().join("hostile.txt");
    std::fs::write(
        &file,
        format!(
            "id first; category win-in-1; position xxxxxxxx1/oo1oo1oo1/o2o5/9/9/9/9/9/9 3 x; best i1\n\
             id {id}; category defence; moves e5; best e4\n"
        ),
    )
    .expect("suite file");
    let csv = dir.path().join("answers.csv");
    let (code, out, err) = arena_text(&[
        "suite",
        &hostile("good", &[], &tag),
        &file.display().to_string(),
        "--csv",
        &csv.display().to_string(),
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert_eq!(terminal_controls(&out), [], "{out}");
    assert_eq!(terminal_controls(&err), [], "{err}");
    assert!(
        out.contains(
            "=HYPERLINK(\"https://example.invalid\")\\x1b[2J\\x1b[HPASS:100%\\x07\\xc2\\x9b31m \
             (defence, standard rules, O to move): played d4"
        ),
        "the missed position is named by its id, escaped: {out}"
    );
    let text = std::fs::read_to_string(&csv).expect("the CSV");
    assert_eq!(terminal_controls(&text), [], "{text}");
    let rows = read_csv(&csv);
    assert_eq!(
        rows[1]["id"],
        "'=HYPERLINK(\"https://example.invalid\")\\x1b[2J\\x1b[HPASS:100%\\x07\\xc2\\x9b31m"
    );

    // The prover names it the same way.
    let (code, out, err) = arena_text(&["__suite-prove", &file.display().to_string()]);
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert_eq!(terminal_controls(&out), [], "{out}");
    assert!(out.contains("\\x1b[2J\\x1b[HPASS:100%\\x07"), "{out}");

    // Errors quoting a line's text: the id given twice, a category unknown.
    let line = format!("id {id}; category defence; moves e5; best e4\n");
    std::fs::write(&file, format!("{line}{line}")).expect("suite file");
    let (code, out, err) = arena_text(&["suite", "random", &file.display().to_string()]);
    assert_eq!(code, Some(2), "{out}\n{err}");
    assert_eq!(terminal_controls(&err), [], "{err}");
    assert!(
        err.contains("line 2: id '=HYPERLINK(\"https://example.invalid\")\\x1b[2J"),
        "{err}"
    );
    std::fs::write(&file, "id x; category nonsense\x1b[2J; moves e5; best e4\n").expect("file");
    let (code, _, err) = arena_text(&["suite", "random", &file.display().to_string()]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(terminal_controls(&err), [], "{err}");
    assert!(
        err.contains("line 1: unknown category 'nonsense\\x1b[2J'"),
        "{err}"
    );
    assert_no_leftovers(&tag);
}

/// Issue 49: without `--csv` the answers went to `suite.csv` in whatever folder
/// the command ran in. They go beside every other run's results, in a
/// directory of their own under `results/` (or `--out DIR`), and the run says
/// where.
#[test]
fn the_answers_go_beside_the_other_results_and_the_run_says_where() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("two.txt");
    std::fs::write(&file, TWO).expect("suite file");
    let run = |args: &[&str]| {
        let out = std::process::Command::new(uttt_tests::arena_bin())
            .args(["suite", "random", &file.display().to_string()])
            .args(args)
            .current_dir(dir.path())
            .output()
            .expect("running arena");
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let out = run(&[]);
    assert!(!dir.path().join("suite.csv").exists(), "{out}");
    let made: Vec<_> = std::fs::read_dir(dir.path().join("results"))
        .expect("a results directory")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(made.len(), 1, "{made:?}");
    assert!(made[0].starts_with("suite-random-"), "{made:?}");
    let csv = format!("results/{}/suite.csv", made[0]);
    assert_eq!(read_csv(&dir.path().join(&csv)).len(), 2);
    assert!(out.contains(&format!("Answers in {csv}")), "{out}");

    let out = run(&["--out", "results/mine"]);
    assert_eq!(
        read_csv(&dir.path().join("results/mine/suite.csv")).len(),
        2
    );
    assert!(out.contains("Answers in results/mine/suite.csv"), "{out}");
}
