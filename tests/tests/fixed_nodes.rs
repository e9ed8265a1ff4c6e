//! Fixed work for reproducible CI (issue 22): with `--nodes N` (or `[limits] nodes`)
//! and a seed, the built-in bots play the same games whether the machine is idle
//! or busy, because each stops after exactly N nodes of its own search rather than
//! at a deadline. The time limit stays on as a safety net.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use uttt_tests::{Row, arena, arena_text, read_csv};

/// games.csv and moves.csv without their timing columns, in game order (games
/// played at once finish in any order).
fn without_timing(dir: &Path) -> (Vec<Row>, Vec<Row>) {
    let mut games = read_csv(&dir.join("games.csv"));
    for g in &mut games {
        // The wall time, and the share of the CPU each bot got (the load's, and
        // empty where a bot's moves were too short to judge).
        for timing in ["duration_ms", "x_cpu_share", "o_cpu_share"] {
            g.remove(timing);
        }
    }
    games.sort_by(|a, b| a["id"].cmp(&b["id"]));
    let mut moves = read_csv(&dir.join("moves.csv"));
    for m in &mut moves {
        // The timing columns: the wall time and the clock's measurements.
        for timing in ["think_ms", "charged_ms", "cpu_ms", "wait_ms", "late_ms"] {
            m.remove(timing);
        }
    }
    let ply = |m: &Row| m["ply"].parse::<u32>().unwrap_or(0);
    moves.sort_by(|a, b| a["game"].cmp(&b["game"]).then(ply(a).cmp(&ply(b))));
    (games, moves)
}

/// Asserts two runs recorded the same games, naming the first difference.
#[track_caller]
fn assert_same(a: &(Vec<Row>, Vec<Row>), b: &(Vec<Row>, Vec<Row>)) {
    assert_eq!(a.0.len(), b.0.len(), "games");
    for (x, y) in a.0.iter().zip(&b.0) {
        assert_eq!(x, y, "games.csv differs");
    }
    assert_eq!(a.1.len(), b.1.len(), "moves");
    for (x, y) in a.1.iter().zip(&b.1) {
        assert_eq!(x, y, "moves.csv differs");
    }
}

/// Keeps every core busy until dropped.
struct BusyLoops {
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<u64>>,
}

impl BusyLoops {
    fn on_every_core() -> BusyLoops {
        let cores = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..cores.max(2))
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        x = std::hint::black_box(
                            x.wrapping_mul(6364136223846793005).wrapping_add(1),
                        );
                    }
                    x
                })
            })
            .collect();
        BusyLoops { stop, threads }
    }
}

impl Drop for BusyLoops {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

fn play(out: &Path) {
    let run = arena(&[
        "match",
        "mcts",
        "negamax --level hard",
        "--games",
        "4",
        "--nodes",
        "3000",
        "--seed",
        "3",
        "--time",
        "3000",
        "--first-time",
        "3000",
        "--out",
        &out.to_string_lossy(),
    ]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

#[test]
fn with_nodes_and_a_seed_games_are_identical_idle_and_under_load() {
    let work = tempfile::tempdir().unwrap();
    let (idle, busy) = (work.path().join("idle"), work.path().join("busy"));
    play(&idle);
    {
        let _load = BusyLoops::on_every_core();
        play(&busy);
    }
    let (games, moves) = without_timing(&idle);
    assert_eq!(games.len(), 4);
    assert_same(&(games, moves.clone()), &without_timing(&busy));
    // Each engine honoured the limit exactly: negamax reports the nodes it
    // searched and mcts its playouts, never more than asked, and exactly that
    // many whenever the search was not cut short by a proof.
    let searched: Vec<u64> = moves
        .iter()
        .filter(|m| m["bot"] != "opening" && !m["nodes"].is_empty())
        .map(|m| m["nodes"].parse().unwrap())
        .collect();
    assert!(!searched.is_empty());
    assert!(searched.iter().all(|&n| n <= 3000), "{searched:?}");
    let exact = searched.iter().filter(|&&n| n == 3000).count();
    assert!(exact * 2 > searched.len(), "{searched:?}");
}

/// `[limits] nodes` in a tournament file does the same for every bot; the
/// negamax levels and the bots without a search (random, greedy) play the same
/// games twice.
#[test]
fn a_tournament_file_sets_nodes_for_every_bot() {
    let work = tempfile::tempdir().unwrap();
    let config = work.path().join("t.toml");
    std::fs::write(
        &config,
        "seed = 11\ngames = 2\n[time]\nmove-ms = 3000\n[limits]\nnodes = 500\n\
         [[bot]]\ncommand = \"random\"\n[[bot]]\ncommand = \"greedy\"\n\
         [[bot]]\ncommand = \"negamax --level easy\"\n[[bot]]\ncommand = \"mcts\"\n",
    )
    .unwrap();
    // `arena tournament FILE --out DIR --quiet EXTRA…`, which must succeed.
    let play = |file: &Path, out: &Path, extra: &[&str]| {
        let (file, out) = (file.to_string_lossy(), out.to_string_lossy());
        let mut args = vec!["tournament", &file, "--out", &out, "--quiet"];
        args.extend_from_slice(extra);
        let (code, _, stderr) = arena_text(&args);
        assert_eq!(code, Some(0), "{stderr}");
    };
    let mut runs = Vec::new();
    for name in ["a", "b"] {
        let out = work.path().join(name);
        play(&config, &out, &[]);
        runs.push(without_timing(&out));
    }
    assert_eq!(runs[0].0.len(), 12);
    assert_same(&runs[0], &runs[1]);
    let most = runs[0]
        .1
        .iter()
        .filter_map(|m| m["nodes"].parse::<u64>().ok())
        .max();
    assert_eq!(most, Some(500));
    let manifest = std::fs::read_to_string(work.path().join("a").join("tournament.json")).unwrap();
    assert!(manifest.contains("\"nodes\": 500"), "{manifest}");

    // The same limit from the command line (a file without [limits]) plays the same games.
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("[limits]\nnodes = 500\n", "");
    let plain = work.path().join("plain.toml");
    std::fs::write(&plain, text).unwrap();
    let out = work.path().join("c");
    play(&plain, &out, &["--nodes", "500"]);
    assert_same(&runs[0], &without_timing(&out));
}
