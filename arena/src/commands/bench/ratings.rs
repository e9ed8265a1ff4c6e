//! `arena bench ratings`: `arena ratings` and `arena report` on the games of many
//! names, as a merge of returned shards gives them: `--names` bots (5,000 by
//! default) and `--games` games (100,000), in colour-swapped pairs between two
//! names drawn at random, each game's result drawn from the names' true ratings
//! (spread over ±600 Elo, X worth +30 Elo, a fifth of the games drawn). The games
//! are written to games.csv through the results store, as a run writes them, with
//! a fixed seed: the same flags give the same file.
//!
//! The floor, measured in the same run, is reading that games.csv alone (the
//! store's checked reader, in this process): no command that rates the games can
//! take less. Each command runs as a user runs it, a process of this executable
//! (`arena ratings FILE --out DIR`, `arena report DIR`), timed from start to exit,
//! in wall time and in CPU time (user and system, from `getrusage`: on a shared
//! machine the wall time also counts the waits for a core); three rounds,
//! alternating, and the medians compared.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use rand::{Rng as _, SeedableRng as _, rngs::StdRng};
use uttt::result::{Decision, EndReason};
use uttt::rules::{Mark, Rules};

use crate::cli::BenchArgs;
use crate::results::store::{GAMES_FILE, GameMeta, GameRow, ResultStore, read_games_numbered};

/// Rounds of (floor, ratings, report); the medians are compared.
const ROUNDS: usize = 3;

/// The seed of the generated games.
const SEED: u64 = 46;

/// The true ratings are spread evenly over ± this many Elo.
const SPREAD_ELO: f64 = 600.0;

/// The first player's true edge, in Elo.
const X_ADVANTAGE_ELO: f64 = 30.0;

/// The share of games drawn, whoever plays.
const DRAW_RATE: f64 = 0.2;

/// Runs the benchmark.
///
/// # Errors
/// The games could not be written or read, or a command failed.
pub fn run(exe: &Path, args: &BenchArgs) -> anyhow::Result<()> {
    let games = args.games.unwrap_or(100_000);
    let names = args.names;
    let (dir, temporary) = match &args.dir {
        Some(dir) => (dir.clone(), false),
        None => (
            std::env::temp_dir().join(format!("arena-bench-ratings-{}", std::process::id())),
            true,
        ),
    };
    let result = measure(exe, &dir, names, games);
    if temporary {
        let _ = std::fs::remove_dir_all(&dir);
    }
    result
}

fn measure(exe: &Path, dir: &Path, names: u32, games: u32) -> anyhow::Result<()> {
    let written = write_games(dir, names, games)?;
    let file = dir.join(GAMES_FILE);
    crate::say!(
        "{written} games between {names} names in {} ({} bytes); medians of {ROUNDS} alternating rounds",
        file.display(),
        std::fs::metadata(&file).map_or(0, |m| m.len())
    );
    let ratings_out = dir.join("ratings");
    let report_file = dir.join("report.html");
    let (mut floors, mut ratings, mut reports) = (Vec::new(), Vec::new(), Vec::new());
    for round in 1..=ROUNDS {
        let (start, cpu) = (Instant::now(), own_cpu());
        let rows = read_games_numbered(&file)?;
        floors.push(Took {
            wall: start.elapsed(),
            cpu: own_cpu().saturating_sub(cpu),
        });
        anyhow::ensure!(
            rows.len() == written,
            "read {} of {written} games",
            rows.len()
        );
        let file_arg = file.to_string_lossy().into_owned();
        let out_arg = ratings_out.to_string_lossy().into_owned();
        ratings.push(timed(exe, &["ratings", &file_arg, "--out", &out_arg])?);
        let dir_arg = dir.to_string_lossy().into_owned();
        let report_arg = report_file.to_string_lossy().into_owned();
        reports.push(timed(exe, &["report", &dir_arg, "--output", &report_arg])?);
        crate::say!(
            "round {round} (wall/CPU): read games.csv {}, arena ratings {}, arena report {}",
            both(floors[round - 1]),
            both(ratings[round - 1]),
            both(reports[round - 1])
        );
    }
    let (floor, rating, report) = (median(&floors), median(&ratings), median(&reports));
    crate::say!(
        "read games.csv alone (the floor): {} s wall, {} s CPU",
        secs(floor.wall),
        secs(floor.cpu)
    );
    crate::say!(
        "arena ratings --out: {} s wall, {} s CPU ({:.1}x the floor's CPU)",
        secs(rating.wall),
        secs(rating.cpu),
        ratio(rating.cpu, floor.cpu)
    );
    crate::say!(
        "arena report: {} s wall, {} s CPU ({:.1}x the floor's CPU), report.html {} bytes",
        secs(report.wall),
        secs(report.cpu),
        ratio(report.cpu, floor.cpu),
        std::fs::metadata(&report_file).map_or(0, |m| m.len())
    );
    for name in ["standings.csv", "crosstable.csv"] {
        let bytes = std::fs::metadata(ratings_out.join(name)).map_or(0, |m| m.len());
        crate::say!("{name}: {bytes} bytes");
    }
    Ok(())
}

/// Writes `games` games between `names` names into `dir`'s games.csv (replacing
/// one there) and returns how many were written.
fn write_games(dir: &Path, names: u32, games: u32) -> anyhow::Result<usize> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    for file in [GAMES_FILE, crate::results::store::MOVES_FILE] {
        let path = dir.join(file);
        if path.exists() {
            std::fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
        }
    }
    let rows = generate(names, games);
    let mut store = ResultStore::open(dir)?;
    store.append_games(&rows)?;
    Ok(rows.len())
}

/// The games: colour-swapped pairs of two names drawn at random (see the module
/// docs), ids in order.
fn generate(names: u32, games: u32) -> Vec<GameRow> {
    let mut rng = StdRng::seed_from_u64(SEED);
    let width = names.to_string().len();
    let bot = |i: u32| format!("bot{i:0width$}");
    let truth: Vec<f64> = (0..names)
        .map(|i| SPREAD_ELO * (2.0 * f64::from(i) / f64::from(names - 1) - 1.0))
        .collect();
    let mut rows = Vec::with_capacity(games as usize);
    let mut number = 0u64;
    let mut pair = 0u32;
    while rows.len() < games as usize {
        let a = rng.random_range(0..names);
        let b = (a + rng.random_range(1..names)) % names;
        pair += 1;
        for (x, o) in [(a, b), (b, a)] {
            if rows.len() == games as usize {
                break;
            }
            number += 1;
            let diff = truth[x as usize] - truth[o as usize] + X_ADVANTAGE_ELO;
            let expected = 1.0 / (1.0 + 10f64.powf(-diff / 400.0));
            let draw: f64 = rng.random();
            let win: f64 = rng.random();
            let decision = if draw < DRAW_RATE {
                Decision::Draw
            } else if win < expected {
                Decision::Win(Mark::X)
            } else {
                Decision::Win(Mark::O)
            };
            let (x, o) = (bot(x), bot(o));
            let winner_name = match decision {
                Decision::Win(Mark::X) => x.clone(),
                Decision::Win(Mark::O) => o.clone(),
                Decision::Draw => String::new(),
            };
            rows.push(GameRow {
                id: GameMeta::id_of(number),
                round: 1,
                pair,
                x,
                o,
                opening: Vec::new(),
                winner: decision,
                winner_name,
                reason: match decision {
                    Decision::Draw => EndReason::NoMoves,
                    Decision::Win(_) => EndReason::ThreeInARow,
                },
                detail: String::new(),
                plies: 40,
                boards_x: 0,
                boards_o: 0,
                rules: Rules::STANDARD,
                duration_ms: 1,
                seed: number,
                x_version: String::new(),
                o_version: String::new(),
                x_cpu_share: None,
                o_cpu_share: None,
            });
        }
    }
    rows
}

/// A command's wall time and its CPU time (user and system).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Took {
    wall: Duration,
    cpu: Duration,
}

/// The CPU time (user and system) of `who` so far, from `getrusage`.
fn cpu_of(who: nix::sys::resource::UsageWho) -> Duration {
    let time = |t: nix::sys::time::TimeVal| {
        Duration::from_secs(u64::try_from(t.tv_sec()).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec()).unwrap_or(0))
    };
    nix::sys::resource::getrusage(who).map_or(Duration::ZERO, |u| {
        time(u.user_time()) + time(u.system_time())
    })
}

/// This process's waited-for children's CPU time so far.
fn children_cpu() -> Duration {
    cpu_of(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
}

/// This process's own CPU time so far.
fn own_cpu() -> Duration {
    cpu_of(nix::sys::resource::UsageWho::RUSAGE_SELF)
}

/// Runs `exe args` to its end, output discarded, and returns how long it took.
fn timed(exe: &Path, args: &[&str]) -> anyhow::Result<Took> {
    let cpu_before = children_cpu();
    let start = Instant::now();
    let status = Command::new(exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .status()
        .with_context(|| format!("starting {} {}", exe.display(), args.join(" ")))?;
    let took = Took {
        wall: start.elapsed(),
        cpu: children_cpu().saturating_sub(cpu_before),
    };
    anyhow::ensure!(
        status.success(),
        "arena {} failed: {status}",
        args.join(" ")
    );
    Ok(took)
}

/// The median of the wall times and the median of the CPU times.
fn median(values: &[Took]) -> Took {
    let pick = |mut v: Vec<Duration>| {
        v.sort_unstable();
        v[v.len() / 2]
    };
    Took {
        wall: pick(values.iter().map(|t| t.wall).collect()),
        cpu: pick(values.iter().map(|t| t.cpu).collect()),
    }
}

/// Seconds to the millisecond.
fn secs(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

fn both(t: Took) -> String {
    format!("{}/{} s", secs(t.wall), secs(t.cpu))
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64().max(1e-9)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generated_games_are_fixed_by_the_flags_and_in_colour_swapped_pairs() {
        let games = generate(10, 41);
        assert_eq!(games.len(), 41);
        assert_eq!(games, generate(10, 41));
        for pair in games.chunks(2).filter(|p| p.len() == 2) {
            assert_eq!((&pair[0].x, &pair[0].o), (&pair[1].o, &pair[1].x));
            assert_eq!(pair[0].pair, pair[1].pair);
            assert_ne!(pair[0].x, pair[0].o);
        }
        let names: std::collections::BTreeSet<&str> = games
            .iter()
            .flat_map(|g| [g.x.as_str(), g.o.as_str()])
            .collect();
        assert!(names.len() > 5 && names.iter().all(|n| n.len() == "bot00".len()));
    }
}
