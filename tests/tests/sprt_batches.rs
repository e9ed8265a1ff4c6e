//! An SPRT played in batches (`arena sprt --batch K --pairs M`, on any machines) and
//! decided from their directories (`arena sprt --decide`): the batches are slices of
//! the sequential test with the same seed, the decision is the sequential test's
//! checked at the batch ends, and a directory that is not one batch of the same
//! test, once, is refused rather than counted.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ratings::{EloModel, Pentanomial, SprtConfig, SprtDecision};
use uttt_tests::{Row, arena_text, read_csv};

fn text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// `arena sprt random greedy --batch K --pairs PAIRS --seed SEED --out OUT EXTRA…`.
fn play_batch(
    k: u32,
    pairs: u32,
    seed: &str,
    extra: &[&str],
    out: &Path,
) -> (Option<i32>, String, String) {
    let (k, pairs, out) = (k.to_string(), pairs.to_string(), text(out));
    let mut args = vec![
        "sprt", "random", "greedy", "--batch", &k, "--pairs", &pairs, "--seed", seed, "--out",
        &out, "--quiet",
    ];
    args.extend_from_slice(extra);
    arena_text(&args)
}

/// Plays batch `k` of `pairs` pairs of `random` against `greedy` into `out`.
#[track_caller]
fn batch(k: u32, pairs: u32, seed: &str, extra: &[&str], out: &Path) {
    let (code, stdout, stderr) = play_batch(k, pairs, seed, extra, out);
    assert_eq!(code, Some(0), "batch {k}: {stdout}{stderr}");
    assert!(stdout.contains(&format!("Batch {k} complete")), "{stdout}");
}

/// games.csv rows of `dir` by id, without the timing column.
fn games(dir: &Path) -> BTreeMap<String, Row> {
    read_csv(&dir.join("games.csv"))
        .into_iter()
        .map(|mut row| {
            row.remove("duration_ms");
            (row["id"].clone(), row)
        })
        .collect()
}

/// `new`'s pair counts over `rows`, counted here from the rows' winners (the
/// arena's own counting is what is under test).
fn pentanomial(rows: &[&Row], new: &str) -> Pentanomial {
    let mut half_points: BTreeMap<(&str, u32), (u8, u8)> = BTreeMap::new();
    for row in rows {
        let entry = half_points
            .entry((row["round"].as_str(), row["pair"].parse().expect("pair")))
            .or_default();
        entry.0 += match row["winner_name"].as_str() {
            "" => 1,
            name if name == new => 2,
            _ => 0,
        };
        entry.1 += 1;
    }
    let mut counts = [0; 5];
    for (points, games) in half_points.into_values() {
        assert_eq!(games, 2, "every pair is complete");
        counts[usize::from(points)] += 1;
    }
    Pentanomial::new(counts)
}

const BOUNDS: [&str; 4] = ["--elo0", "0", "--elo1", "100"];

#[test]
fn batches_are_slices_of_the_sequential_test_and_decide_at_the_first_batch_end_that_decides() {
    let work = tempfile::tempdir().expect("temp dir");
    let seq = work.path().join("sequential");
    let mut args = vec![
        "sprt", "random", "greedy", "--seed", "9", "--quiet", "--out",
    ];
    let seq_text = text(&seq);
    args.push(&seq_text);
    args.extend_from_slice(&BOUNDS);
    let (code, stdout, stderr) = arena_text(&args);
    assert_eq!(
        code,
        Some(1),
        "random is weaker than greedy: {stdout}{stderr}"
    );

    let dirs: Vec<PathBuf> = (1..=5)
        .map(|k| work.path().join(format!("batch-{k}")))
        .collect();
    for (k, dir) in (1..).zip(&dirs) {
        batch(k, 3, "9", &BOUNDS, dir);
    }

    // The batches are the sequential test's games: every game it played is the
    // batch game with the same id (pairing, colours, opening, seed and result).
    let batched: BTreeMap<String, Row> = dirs.iter().flat_map(|d| games(d)).collect();
    assert_eq!(batched.len(), 30, "5 batches of 3 pairs");
    let sequential = games(&seq);
    assert!(sequential.len() >= 2);
    for (id, row) in &sequential {
        assert_eq!(batched.get(id), Some(row), "game {id}");
    }

    // The sequential test over the same games, checked after each batch.
    let config = SprtConfig::new(0.0, 100.0, 0.05, 0.05, EloModel::Normalized).expect("bounds");
    let rows: Vec<&Row> = batched.values().collect();
    let deciding = (1..=5)
        .map(|k| (k, config.status(&pentanomial(&rows[..6 * k], "random"))))
        .find(|(_, status)| status.decision != SprtDecision::Continue)
        .expect("random against greedy is decided within 30 games");
    assert_eq!(deciding.1.decision, SprtDecision::AcceptH0);

    // Given in any order, the batches give that decision, at that batch.
    let mut shuffled: Vec<String> = dirs.iter().rev().map(|d| text(d)).collect();
    shuffled.swap(0, 2);
    let mut decide = vec!["sprt", "--decide"];
    decide.extend(shuffled.iter().map(String::as_str));
    let (code, stdout, stderr) = arena_text(&decide);
    assert_eq!(code, Some(1), "H0 accepted: {stdout}{stderr}");
    let (k, status) = deciding;
    let line = stdout
        .lines()
        .find(|l| l.starts_with(&format!("after batch {k} ")))
        .unwrap_or_else(|| panic!("a line for batch {k}: {stdout}"));
    assert!(line.contains(&format!("{} games", 6 * k)), "{line}");
    assert!(
        line.contains(&format!("LLR {:.2}", status.llr)),
        "{line}\n{status:?}"
    );
    assert!(line.ends_with("H0 accepted"), "{line}");
    assert!(
        !stdout.contains(&format!("after batch {} ", k + 1)),
        "nothing after the deciding batch is counted: {stdout}"
    );
    assert!(
        stdout.contains(&format!("H0 accepted after {} games", 6 * k)),
        "{stdout}"
    );

    // The same for a CI step: --json prints only the object on standard output.
    decide.push("--json");
    let (code, stdout, stderr) = arena_text(&decide);
    assert_eq!(code, Some(1), "{stderr}");
    let summary: serde_json::Value =
        serde_json::from_str(&stdout).expect("stdout is one JSON object");
    assert_eq!(summary["exit_code"], 1);
    assert_eq!(summary["sprt"]["decision"], "H0");
    assert_eq!(summary["games_counted"], 6 * k as u64);
    let batches = summary["batches"].as_array().expect("batches");
    assert_eq!(batches.len(), k);
    assert_eq!(batches[k - 1]["decision"], "H0");
    let llr = summary["sprt"]["llr"].as_f64().expect("llr");
    assert!((llr - status.llr).abs() < 1e-9, "{llr} vs {}", status.llr);
    assert_eq!(summary["not_needed"].as_array().map(Vec::len), Some(5 - k));
    assert!(
        stderr.contains("H0 accepted"),
        "the words go to stderr: {stderr}"
    );
}

#[test]
fn a_batch_twice_another_tests_batch_or_a_non_batch_is_refused_and_an_unfinished_one_not_counted() {
    let work = tempfile::tempdir().expect("temp dir");
    let dir = |name: &str| work.path().join(name);
    let bounds = ["--elo0", "-50", "--elo1", "50"];
    batch(1, 2, "3", &bounds, &dir("b1"));
    batch(2, 2, "3", &bounds, &dir("b2"));
    let decide = |dirs: &[&str]| {
        let paths: Vec<String> = dirs.iter().map(|d| text(&dir(d))).collect();
        let mut args = vec!["sprt", "--decide"];
        args.extend(paths.iter().map(String::as_str));
        arena_text(&args)
    };

    // Batch 1 played twice, into two directories.
    batch(1, 2, "3", &bounds, &dir("b1-again"));
    let (code, stdout, stderr) = decide(&["b1", "b2", "b1-again"]);
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert!(stderr.contains("batch 1 appears twice"), "{stderr}");
    assert!(
        stderr.contains(&text(&dir("b1"))) && stderr.contains(&text(&dir("b1-again"))),
        "{stderr}"
    );
    assert!(!stdout.contains("after batch"), "nothing counted: {stdout}");

    // A batch of another test (another seed), and a match's directory.
    batch(3, 2, "4", &bounds, &dir("other-seed"));
    let (code, _, stderr) = decide(&["b1", "other-seed"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("batches of different tests") && stderr.contains("seed 3 there, 4 here"),
        "{stderr}"
    );
    let (code, stdout, stderr) = arena_text(&[
        "match",
        "random",
        "greedy",
        "--games",
        "2",
        "--out",
        &text(&dir("a-match")),
    ]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let (code, _, stderr) = decide(&["b1", "a-match"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("not an SPRT batch"), "{stderr}");

    // A batch cut short is listed and not counted; the test goes on from batch 3.
    std::fs::create_dir(dir("b2-cut")).expect("mkdir");
    for file in ["tournament.json", "moves.csv"] {
        std::fs::copy(dir("b2").join(file), dir("b2-cut").join(file)).expect("copy");
    }
    let games_csv = std::fs::read_to_string(dir("b2").join("games.csv")).expect("games.csv");
    let cut: String = games_csv
        .lines()
        .take(2)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(dir("b2-cut").join("games.csv"), cut).expect("write");
    let (code, stdout, stderr) = decide(&["b2-cut", "b1"]);
    assert_eq!(code, Some(3), "undecided: {stdout}{stderr}");
    assert!(
        stdout.contains("batch 2 (") && stdout.contains("unfinished, 1 of 4 games; not counted"),
        "{stdout}"
    );
    assert!(stdout.contains("after batch 1 "), "{stdout}");
    assert!(!stdout.contains("after batch 2 "), "{stdout}");
    assert!(stdout.contains("next --batch 3"), "{stdout}");

    // A batch's games cannot be moved into another batch's directory.
    let (code, _, stderr) = play_batch(2, 2, "3", &bounds, &dir("b1"));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("holds batch 1 of an SPRT, and this run is batch 2"),
        "{stderr}"
    );
}

#[test]
fn batch_flags_are_checked_before_anything_is_played() {
    let work = tempfile::tempdir().expect("temp dir");
    let out = text(&work.path().join("b"));
    // Every batch needs the test's seed, its size and a directory of its own.
    let (code, _, stderr) = arena_text(&[
        "sprt", "random", "greedy", "--batch", "1", "--pairs", "2", "--out", &out,
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--seed"), "{stderr}");
    // A batch past the test's maximum.
    let (code, _, stderr) = arena_text(&[
        "sprt",
        "random",
        "greedy",
        "--batch",
        "3",
        "--pairs",
        "2",
        "--seed",
        "1",
        "--max-games",
        "8",
        "--out",
        &out,
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("batch 3 of 2 pairs would end at game 12")
            && stderr.contains("--max-games 8"),
        "{stderr}"
    );
    assert!(
        !work.path().join("b").join("games.csv").exists()
            || read_csv(&work.path().join("b").join("games.csv")).is_empty()
    );
    // Deciding needs directories, and no bots.
    let (code, _, stderr) = arena_text(&["sprt", "random", "--decide", &out]);
    assert_eq!(code, Some(2), "{stderr}");
}

/// Rewrites `from`'s games.csv into `to` as if its games were `shift` games (and
/// pairs, and rounds) later: ids, pairs and rounds move, seeds and openings stay.
fn renumbered(from: &Path, to: &Path, shift: u64) {
    let mut reader = csv::Reader::from_path(from.join("games.csv")).expect("games.csv");
    let headers = reader.headers().expect("header").clone();
    let column = |name: &str| headers.iter().position(|h| h == name).expect(name);
    let (id, round, pair) = (column("id"), column("round"), column("pair"));
    let mut writer = csv::Writer::from_path(to.join("games.csv")).expect("write games.csv");
    writer.write_record(&headers).expect("header");
    for record in reader.records() {
        let record = record.expect("row");
        let moved: Vec<String> = record
            .iter()
            .enumerate()
            .map(|(i, cell)| {
                let number = |prefix: &str| {
                    let n: u64 = cell.trim_start_matches(prefix).parse().expect("number");
                    n + if i == id { shift } else { shift / 2 }
                };
                match i {
                    _ if i == id => format!("G{:04}", number("G")),
                    _ if i == round || i == pair => number("").to_string(),
                    _ => cell.to_string(),
                }
            })
            .collect();
        writer.write_record(&moved).expect("row");
    }
    writer.flush().expect("flush");
}

/// Batch 1's games renumbered into batch 2's ids, pairs and rounds, beside batch
/// 2's tournament.json, look like batch 2 by id; their seeds say otherwise, so
/// `--decide` refuses them instead of counting batch 1 twice.
#[test]
fn a_batch_renumbered_into_another_batchs_range_is_refused_by_its_seeds() {
    let work = tempfile::tempdir().expect("temp dir");
    let dir = |name: &str| work.path().join(name);
    batch(1, 2, "5", &BOUNDS, &dir("b1"));
    batch(2, 2, "5", &BOUNDS, &dir("b2"));
    std::fs::create_dir(dir("forged")).expect("mkdir");
    std::fs::copy(
        dir("b2").join("tournament.json"),
        dir("forged").join("tournament.json"),
    )
    .expect("copy");
    renumbered(&dir("b1"), &dir("forged"), 4);
    let forged = games(&dir("forged"));
    let real = games(&dir("b2"));
    assert_eq!(
        forged.keys().collect::<Vec<_>>(),
        real.keys().collect::<Vec<_>>(),
        "the forged batch has batch 2's ids"
    );
    assert_eq!(forged["G0005"]["pair"], real["G0005"]["pair"]);

    let (code, stdout, stderr) =
        arena_text(&["sprt", "--decide", &text(&dir("b1")), &text(&dir("forged"))]);
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    let games_csv = dir("forged").join("games.csv");
    assert!(
        stderr.contains(&format!(
            "{}:2: game G0005 is not batch 2's game G0005",
            games_csv.display()
        )) && stderr.contains(&format!("seed {}", forged["G0005"]["seed"]))
            && stderr.contains(&format!("seed {}", real["G0005"]["seed"])),
        "{stderr}"
    );
    assert!(!stdout.contains("after batch"), "nothing counted: {stdout}");

    // The real batch 2 is counted.
    let (code, stdout, stderr) =
        arena_text(&["sprt", "--decide", &text(&dir("b1")), &text(&dir("b2"))]);
    assert_ne!(code, Some(2), "{stdout}{stderr}");
    assert!(stdout.contains("after batch 2 "), "{stdout}");
}
