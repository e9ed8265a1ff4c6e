//! `arena rate` through the real binary at small size: the adaptive gauntlet
//! against the reference levels, its summary (printed, `--json`, summary.json),
//! its games on disk, resuming, faults, and its exit codes.

use std::path::Path;

use serde_json::Value;
use uttt_tests::{Tag, arena, hostile, read_csv};

/// The level names and ratings of the shipped table, weakest first.
fn levels() -> Vec<(String, f64)> {
    let table = bots::levels::LevelTable::shipped();
    table.levels().iter().map(|l| (l.name(), l.elo)).collect()
}

fn summary_file(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("summary.json")).expect("summary.json written");
    serde_json::from_str(&text).expect("summary.json is JSON")
}

#[test]
fn rating_greedy_plays_pairs_around_its_estimate_and_reports_it_everywhere_alike() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rate");
    let out_text = out.to_string_lossy().into_owned();
    let args = [
        "rate",
        "greedy",
        "--precision",
        "150",
        "--max-games",
        "40",
        "--seed",
        "11",
        "--time",
        "50",
        "--json",
        "--out",
        &out_text,
    ];
    let run = arena(&args);
    let stdout = String::from_utf8_lossy(&run.stdout);
    let code = run.status.code();
    assert!(
        code == Some(0) || code == Some(3),
        "exit {code:?}\n{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // --json prints exactly what summary.json holds.
    let printed: Value = serde_json::from_str(&stdout).expect("--json prints JSON only");
    let summary = summary_file(&out);
    assert_eq!(printed, summary);
    let expected_stop = if code == Some(0) {
        "precise"
    } else {
        "max-games"
    };
    assert_eq!(summary["stopped"], expected_stop);
    assert_eq!(summary["bot"], "greedy");

    // Its games: every one greedy against a level, in complete colour-swapped pairs,
    // as many as it says, no more than allowed.
    let games = read_csv(&out.join("games.csv"));
    assert_eq!(summary["games"].as_u64(), Some(games.len() as u64));
    assert!(games.len() <= 40 && games.len() >= 8 && games.len().is_multiple_of(2));
    let levels = levels();
    let is_level = |name: &str| levels.iter().any(|(l, _)| l == name);
    let mut pairs = std::collections::BTreeMap::<String, Vec<(String, String)>>::new();
    for g in &games {
        let (x, o) = (g["x"].clone(), g["o"].clone());
        assert!(
            (x == "greedy" && is_level(&o)) || (o == "greedy" && is_level(&x)),
            "{g:?}"
        );
        pairs.entry(g["pair"].clone()).or_default().push((x, o));
    }
    for (pair, games) in &pairs {
        assert_eq!(games.len(), 2, "pair {pair}: {games:?}");
        assert_eq!(
            games[0],
            (games[1].1.clone(), games[1].0.clone()),
            "pair {pair}"
        );
    }
    // The first pair is against the middle of the scale.
    let first = &games[0];
    let first_level = if first["x"] == "greedy" {
        &first["o"]
    } else {
        &first["x"]
    };
    assert_eq!(first_level, &levels[(levels.len() - 1) / 2].0);

    // The rating, its interval and the levels around it agree with each other,
    // and greedy (level 4's engine without random moves... is level 4) is placed
    // between level 2 and level 6.
    let elo = summary["elo"].as_f64().expect("a finite rating");
    let (low, high) = (
        summary["low"].as_f64().unwrap(),
        summary["high"].as_f64().unwrap(),
    );
    assert!(low <= elo && elo <= high, "{summary}");
    // Stopped for its reason: precise enough, or at --max-games exactly.
    if code == Some(0) {
        assert!((high - low) / 2.0 <= 150.0, "{summary}");
    } else {
        assert_eq!(
            games.len(),
            40,
            "exit 3 means --max-games was reached: {summary}"
        );
    }
    assert!(elo > levels[1].1 && elo < levels[5].1, "{summary}");
    let below = summary["level_below"]["elo"].as_f64().unwrap();
    let above = summary["level_above"]["elo"].as_f64().unwrap();
    assert!(below <= elo && elo < above, "{summary}");
    assert_eq!(summary["faults"], serde_json::json!({}));
    let per_level: u64 = summary["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["games"].as_u64().unwrap())
        .sum();
    assert_eq!(per_level, games.len() as u64);

    // Run again on the same directory: nothing left to play, the same result,
    // now in words.
    let mut again = args.to_vec();
    again.retain(|a| *a != "--json");
    let rerun = arena(&again);
    let text = String::from_utf8_lossy(&rerun.stdout);
    assert_eq!(rerun.status.code(), code, "{text}");
    assert_eq!(read_csv(&out.join("games.csv")).len(), games.len());
    assert_eq!(summary_file(&out), summary);
    assert!(
        text.contains(&format!("greedy: {elo:.0} ± "))
            && text.contains(&format!(
                "between {} ",
                summary["level_below"]["name"].as_str().unwrap()
            ))
            && text.contains("faults: none"),
        "{text}"
    );
}

#[test]
fn a_bot_that_plays_illegal_moves_is_rated_below_the_levels_it_met_with_its_faults_counted() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rate");
    let tag = Tag::new();
    let bot = hostile("occupied", &[], &tag);
    let run = arena(&[
        "rate",
        &bot,
        "--max-games",
        "8",
        "--seed",
        "2",
        "--out",
        &out.to_string_lossy(),
    ]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    // Every game lost: the interval is open below, so never precise: exit 3.
    assert_eq!(run.status.code(), Some(3), "{stdout}");
    let summary = summary_file(&out);
    assert_eq!(summary["elo"], Value::Null);
    assert_eq!(summary["low"], Value::Null);
    assert_eq!(
        summary["faults"]["illegal-move"].as_u64(),
        Some(8),
        "{summary}"
    );
    assert_eq!(summary["stopped"], "max-games");
    // It went down the scale: the last pair was against a weaker level than the first.
    let games = read_csv(&out.join("games.csv"));
    let level_of = |g: &uttt_tests::Row| {
        let x = &g["x"];
        if x.starts_with("level") {
            x.clone()
        } else {
            g["o"].clone()
        }
    };
    let number = |name: String| name.trim_start_matches("level").parse::<u32>().unwrap();
    assert!(number(level_of(&games[games.len() - 1])) < number(level_of(&games[0])));
    assert!(stdout.contains("illegal-move 8"), "{stdout}");
}

#[test]
fn a_bot_that_cannot_start_exits_4_and_bad_flags_exit_2() {
    let tag = Tag::new();
    let dir = tempfile::tempdir().unwrap();
    let broken = arena(&[
        "rate",
        &hostile("exit-before-handshake", &[], &tag),
        "--out",
        &dir.path().join("rate").to_string_lossy(),
    ]);
    let stderr = String::from_utf8_lossy(&broken.stderr);
    assert_eq!(broken.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("the bot could not run"), "{stderr}");
    assert_eq!(
        summary_file(&dir.path().join("rate"))["stopped"],
        "bot-failed"
    );
    let usage = arena(&["rate", "greedy", "--precision", "0"]);
    assert_eq!(usage.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&usage.stderr).contains("--precision 0"));
}

#[test]
fn arena_ratings_with_the_levels_met_anchored_gives_rates_estimate_from_the_same_games() {
    // The by-hand way to place a bot among the levels (a gauntlet, then a fit with
    // the levels' ratings fixed) must agree with `arena rate` on the same games.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rate");
    let run = arena(&[
        "rate",
        "greedy",
        "--precision",
        "80",
        "--max-games",
        "80",
        "--seed",
        "39",
        "--json",
        "--out",
        &out.to_string_lossy(),
    ]);
    assert!(
        matches!(run.status.code(), Some(0 | 3)),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let summary = summary_file(&out);
    let met: Vec<String> = summary["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| format!("{}={}", l["name"].as_str().unwrap(), l["elo"]))
        .collect();
    assert!(met.len() >= 2, "{summary}");
    let fitted = dir.path().join("fitted");
    let games = out.join("games.csv");
    let mut args = vec![
        "ratings".to_string(),
        games.to_string_lossy().into_owned(),
        "--out".into(),
        fitted.to_string_lossy().into_owned(),
    ];
    for anchor in &met {
        args.extend(["--anchor".to_string(), anchor.clone()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let ratings = arena(&args);
    let text = String::from_utf8_lossy(&ratings.stdout);
    assert_eq!(ratings.status.code(), Some(0), "{text}");
    let rows = read_csv(&fitted.join("standings.csv"));
    let row = |bot: &str| rows.iter().find(|r| r["bot"] == bot).expect(bot).clone();
    let number = |r: &uttt_tests::Row, k: &str| r[k].parse::<f64>().unwrap();
    // Every level met keeps its published rating, with no error of its own.
    for (name, elo) in levels() {
        if let Some(r) = rows.iter().find(|r| r["bot"] == name) {
            assert_eq!(number(r, "elo"), elo, "{name}");
            assert_eq!(number(r, "elo_error"), 0.0, "{name}");
        }
    }
    // The bot: rate's estimate to within a few Elo (the fit also estimates the
    // first player's edge; rate's pairs cancel it), an interval of about the same
    // width (±15%: game- against pair-level dispersion).
    let bot = row(summary["bot"].as_str().unwrap());
    let elo = summary["elo"].as_f64().unwrap();
    let half = summary["half_width"].as_f64().unwrap();
    assert!(
        (number(&bot, "elo") - elo).abs() <= 5.0,
        "{bot:?} {summary}"
    );
    assert!(
        (number(&bot, "elo_error") / half - 1.0).abs() <= 0.15,
        "{bot:?} {summary}"
    );
    // Anchoring the same bot twice, or a bot that played no game, is refused.
    let level = met[0].split('=').next().unwrap();
    let twice = arena(&[
        "ratings",
        &games.to_string_lossy(),
        "--anchor",
        &met[0],
        "--anchor",
        &format!("{level}=700"),
    ]);
    assert_eq!(twice.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&twice.stderr).contains(&format!("'{level}' is anchored twice")),
        "{}",
        String::from_utf8_lossy(&twice.stderr)
    );
}

/// `--random-plies 0` rates any bot from the empty board, `--openings FILE` from
/// a book's lines, and the banner says which; more plies than allowed is a usage
/// error.
#[test]
fn rate_starts_from_the_empty_board_or_a_book_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let run_rate = |out: &Path, extra: &[&str]| {
        let out_text = out.to_string_lossy().into_owned();
        let mut args = vec![
            "rate",
            "random",
            "--max-games",
            "4",
            "--seed",
            "3",
            "--quiet",
            "--out",
            &out_text,
        ];
        args.extend_from_slice(extra);
        let run = arena(&args);
        let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
        assert!(
            matches!(run.status.code(), Some(0 | 3)),
            "{stdout}\n{}",
            String::from_utf8_lossy(&run.stderr)
        );
        (stdout, read_csv(&out.join("games.csv")))
    };
    let (stdout, games) = run_rate(&dir.path().join("empty"), &["--random-plies", "0"]);
    assert!(stdout.contains("Openings: the empty board"), "{stdout}");
    assert_eq!(games.len(), 4);
    assert!(games.iter().all(|g| g["opening"].is_empty()), "{games:?}");
    let (stdout, games) = run_rate(&dir.path().join("default"), &[]);
    assert!(stdout.contains("Openings: 4 random plies"), "{stdout}");
    assert!(
        games.iter().all(|g| g["opening"].split(' ').count() == 4),
        "{games:?}"
    );
    let book = dir.path().join("book.txt");
    std::fs::write(&book, "e5 e4\n").unwrap();
    let (stdout, games) = run_rate(
        &dir.path().join("book"),
        &["--openings", &book.to_string_lossy()],
    );
    assert!(stdout.contains("Openings: a book of 1 lines"), "{stdout}");
    assert!(games.iter().all(|g| g["opening"] == "e5 e4"), "{games:?}");
    let usage = arena(&["rate", "random", "--random-plies", "17"]);
    assert_eq!(usage.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&usage.stderr).contains("--random-plies 17: use at most 16"));
}

/// A CodinGame bot cannot be told an opening: `arena rate` rates it from the
/// empty board without being asked, under the levels' standard rules, saying
/// both; asking for random plies is refused with what to do.
#[test]
fn a_codingame_bot_is_rated_from_the_empty_board_saying_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rate");
    let bot = format!(
        "codingame:python3 {}",
        uttt_tests::test_bot("codingame_first.py").display()
    );
    let run = arena(&[
        "rate",
        &bot,
        "--max-games",
        "4",
        "--seed",
        "5",
        "--quiet",
        "--out",
        &out.to_string_lossy(),
    ]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        matches!(run.status.code(), Some(0 | 3)),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        stdout.contains(
            "From the empty board: a codingame bot is told only its opponent's last move, so it \
             cannot start from an opening"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "Under the standard rules, the levels': a codingame bot believes 'most-boards'"
        ),
        "{stdout}"
    );
    let games = read_csv(&out.join("games.csv"));
    assert_eq!(games.len(), 4);
    assert!(
        games
            .iter()
            .all(|g| g["opening"].is_empty() && g["rules"] == "standard"),
        "{games:?}"
    );
    assert_eq!(summary_file(&out)["bot"], "codingame_first");
    let refused = arena(&["rate", &bot, "--random-plies", "2"]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("(remove --random-plies)"), "{stderr}");
}
