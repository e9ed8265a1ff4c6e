//! Trains the network of `mcts-net` (`bots::net`): self-play games at fixed work,
//! then a fit of their results, search values and root visits.
//!
//!     cargo build --release -p bots --example train_net
//!     T=./target/release/examples/train_net
//!     $T pipeline --recipe standard --dir nets/standard --out bots/src/net/standard.nnue
//!
//! remakes the shipped network byte for byte (bots/src/net/PROVENANCE.md); `gen`,
//! `fit`, `compare` and `bench` are its steps and measures, one at a time:
//!
//!     $T gen --games 3000 --spec "mcts --playouts 3000" --seed 1 --out g1.txt
//!     $T fit g1.txt --out n1.nnue
//!     $T compare g1.txt --net n1.nnue
//!
//! bots/BENCHMARKS.md ("mcts-net") has what each step measured.

use std::io::{BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use bots::net::selfplay::{GameRecord, generate};
use bots::net::train::{FitOptions, Sample, fit, log_loss, mean, quantized_predict, samples};
use clap::{Parser, Subcommand};
use uttt::rules::Rules;

#[derive(Debug, Parser)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Plays self-play games and writes them, one per line.
    Gen {
        #[arg(long, default_value_t = 1000)]
        games: u64,
        /// The index of the first game (a run in pieces plays the whole run's games).
        #[arg(long, default_value_t = 0)]
        from: u64,
        /// The engine both sides play, of fixed work.
        #[arg(long, default_value = "mcts --playouts 3000")]
        spec: String,
        /// Random plies at the start of a game: uniform in 0..=N.
        #[arg(long, default_value_t = 8)]
        opening: u32,
        #[arg(long, default_value_t = 2)]
        threads: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, default_value = "standard")]
        rules: Rules,
        #[arg(long)]
        out: PathBuf,
    },
    /// Fits a network to games written by `gen`.
    Fit {
        #[arg(required = true)]
        games: Vec<PathBuf>,
        #[arg(long, default_value_t = FitOptions::default().epochs)]
        epochs: u32,
        #[arg(long, default_value_t = FitOptions::default().rate)]
        rate: f32,
        #[arg(long, default_value_t = FitOptions::default().batch)]
        batch: usize,
        #[arg(long, default_value_t = FitOptions::default().search_weight)]
        search_weight: f32,
        #[arg(long, default_value_t = FitOptions::default().policy_weight)]
        policy_weight: f32,
        #[arg(long, default_value_t = FitOptions::default().temperature)]
        temperature: f32,
        #[arg(long, default_value_t = FitOptions::default().seed)]
        seed: u64,
        #[arg(long, default_value = "standard")]
        rules: Rules,
        /// Where to write the network.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Runs the whole recipe of a shipped network: every generation of games and
    /// its fit, each written to DIR (g1.txt, n1.nnue, …), the last network also to
    /// --out; prints the SHA-256 of every file for PROVENANCE.md.
    Pipeline {
        /// standard, most-boards, or tiny (a test-sized run).
        #[arg(long, default_value = "standard")]
        recipe: String,
        #[arg(long, default_value_t = 2)]
        threads: usize,
        #[arg(long)]
        dir: PathBuf,
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Evaluations per second: every child of positions from random games, by the
    /// linear model and by the network (from the parent's sums).
    Bench {
        #[arg(long, default_value_t = 3.0)]
        seconds: f64,
    },
    /// Held-out log-loss of the linear model and of a network file on games.
    Compare {
        #[arg(required = true)]
        games: Vec<PathBuf>,
        #[arg(long)]
        net: Option<PathBuf>,
        #[arg(long, default_value_t = 0.5)]
        search_weight: f32,
        #[arg(long, default_value = "standard")]
        rules: Rules,
    },
}

fn read_games(files: &[PathBuf]) -> Result<Vec<GameRecord>, Box<dyn std::error::Error>> {
    let mut games = Vec::new();
    for file in files {
        let reader = std::io::BufReader::new(std::fs::File::open(file)?);
        for (n, line) in reader.lines().enumerate() {
            let game = line?
                .parse::<GameRecord>()
                .map_err(|e| format!("{}:{}: {e}", file.display(), n + 1))?;
            games.push(game);
        }
    }
    Ok(games)
}

fn write_games(path: &Path, games: &[GameRecord]) -> std::io::Result<()> {
    let mut file = BufWriter::new(std::fs::File::create(path)?);
    for game in games {
        writeln!(file, "{game}")?;
    }
    file.flush()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    match Args::parse().command {
        Command::Gen {
            games,
            from,
            spec,
            opening,
            threads,
            seed,
            rules,
            out,
        } => {
            let started = Instant::now();
            let every = (games / 20).max(1);
            let progress = |n: u64| {
                if n.is_multiple_of(every) {
                    eprintln!(
                        "{n}/{games} games, {:.0} s",
                        started.elapsed().as_secs_f64()
                    );
                }
            };
            let make = bots::net::selfplay::spec_factory(&spec)?;
            let played = generate(&make, from..games, opening, seed, rules, threads, &progress);
            write_games(&out, &played)?;
            println!(
                "{} games in {:.0} s -> {}",
                played.len(),
                started.elapsed().as_secs_f64(),
                out.display()
            );
        }
        Command::Fit {
            games,
            epochs,
            rate,
            batch,
            search_weight,
            policy_weight,
            temperature,
            seed,
            rules,
            out,
        } => {
            let games = read_games(&games)?;
            let options = FitOptions {
                epochs,
                batch,
                rate,
                search_weight,
                policy_weight,
                temperature,
                seed,
                rules,
            };
            let started = Instant::now();
            let net = fit(&games, &options, None, &mut |line| {
                println!("{line} [{:.0} s]", started.elapsed().as_secs_f64());
            })?;
            if let Some(out) = out {
                std::fs::write(&out, net.quantize().encode())?;
                println!("wrote {}", out.display());
            }
        }
        Command::Bench { seconds } => bench(seconds),
        Command::Pipeline {
            recipe,
            threads,
            dir,
            out,
        } => pipeline(&recipe, threads, &dir, out.as_deref())?,
        Command::Compare {
            games,
            net,
            search_weight,
            rules,
        } => {
            let games = read_games(&games)?;
            let held: Vec<GameRecord> = games
                .iter()
                .enumerate()
                .filter(|(i, _)| i % 10 == 9)
                .map(|(_, g)| g.clone())
                .collect();
            let mut positions = Vec::new();
            for game in &held {
                positions.extend(game.positions(rules, |s| s)?);
            }
            let linear = |target: &dyn Fn(f32, f32) -> f32| {
                positions
                    .iter()
                    .map(|(p, r, s)| log_loss(bots::learned::value(p), target(*r, *s)))
                    .sum::<f64>()
                    / positions.len().max(1) as f64
            };
            let blend = |r: f32, s: f32| (1.0 - search_weight) * r + search_weight * s;
            println!(
                "{} held-out positions; linear model: blended target {:.4}, results {:.4}, search values {:.4}",
                positions.len(),
                linear(&blend),
                linear(&|r, _| r),
                linear(&|_, s| s)
            );
            // How often each evaluation's best child is the move the search played.
            let agreement = |value: &dyn Fn(&uttt::rules::Position) -> f32| {
                let (mut agree, mut total) = (0u64, 0u64);
                for game in &held {
                    let mut pos = uttt::rules::Position::new(rules);
                    for (ply, &sq) in game.moves.iter().enumerate() {
                        if ply >= game.random_plies && pos.legal_moves().len() > 1 {
                            let best = pos
                                .legal_moves()
                                .iter()
                                .map(|m| {
                                    let after = pos.after_unchecked(m);
                                    let v = match after.status().outcome() {
                                        Some(o) if o.winner().is_some() => 1.0,
                                        Some(_) => 0.5,
                                        None => 1.0 - value(&after),
                                    };
                                    (m, v)
                                })
                                .fold((sq, f32::MIN), |a, b| if b.1 > a.1 { b } else { a });
                            agree += u64::from(best.0 == sq);
                            total += 1;
                        }
                        pos.play_unchecked(sq);
                    }
                }
                agree as f64 / total.max(1) as f64
            };
            println!(
                "linear model's best child is the move played: {:.1}%",
                100.0 * agreement(&|p| bots::learned::value(p))
            );
            if let Some(path) = net {
                let network = bots::net::Network::decode(&std::fs::read(&path)?)?;
                let all: Vec<Sample> = samples(&held, rules, search_weight, false, |_| 0)?;
                let p = |s: &Sample| quantized_predict(&network, s);
                println!(
                    "network {}: blended target {:.4}, results {:.4}",
                    path.display(),
                    mean(&all, |s| log_loss(p(s), s.target)),
                    mean(&all, |s| log_loss(p(s), s.result)),
                );
                println!(
                    "network's best child is the move played: {:.1}%",
                    100.0 * agreement(&|pos| network.value(pos))
                );
            }
        }
    }
    Ok(())
}

/// Children valued per second by each evaluation, over the same positions.
fn bench(seconds: f64) {
    use rand::SeedableRng;
    use uttt::rules::Position;
    let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
    let mut positions = Vec::new();
    while positions.len() < 20_000 {
        let mut pos = Position::new(Rules::STANDARD);
        while !pos.is_over() {
            positions.push(pos);
            pos.play_unchecked(bots::engine::random_legal(&pos, &mut rng));
        }
    }
    let net = bots::net::NetModel::Standard.network();
    let run = |name: &str, value: &dyn Fn(&Position) -> f32| {
        let started = Instant::now();
        let (mut children, mut total) = (0u64, 0f32);
        'outer: loop {
            for pos in &positions {
                total += value(pos);
                children += pos.legal_moves().len() as u64;
                if started.elapsed().as_secs_f64() > seconds {
                    break 'outer;
                }
            }
        }
        let per_second = children as f64 / started.elapsed().as_secs_f64();
        println!("{name}: {:.2} M children/s ({total:.0})", per_second / 1e6);
    };
    run("linear model", &|pos| {
        pos.legal_moves()
            .iter()
            .map(|sq| bots::learned::value(&pos.after_unchecked(sq)))
            .sum()
    });
    run("network, from the parent's sums", &|pos| {
        let sums = bots::net::Accumulators::of(net, pos);
        pos.legal_moves()
            .iter()
            .map(|sq| {
                let after = pos.after_unchecked(sq);
                let child = sums.child(net, pos, &after, sq);
                child.value(net, &after)
            })
            .sum()
    });
    run("network, each child from scratch", &|pos| {
        pos.legal_moves()
            .iter()
            .map(|sq| net.value(&pos.after_unchecked(sq)))
            .sum()
    });
}

/// The SHA-256 of `bytes` in hex.
fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn pipeline(
    name: &str,
    threads: usize,
    dir: &Path,
    out: Option<&Path>,
) -> Result<(), Box<dyn std::error::Error>> {
    use bots::net::pipeline::{Recipe, run};
    let recipe = match name {
        "standard" => Recipe::standard(),
        "most-boards" => Recipe::most_boards(),
        "tiny" => Recipe::tiny(),
        other => return Err(format!("no recipe '{other}': standard, most-boards or tiny").into()),
    };
    std::fs::create_dir_all(dir)?;
    print!("{recipe}");
    let started = Instant::now();
    let network = run(
        &recipe,
        threads,
        &mut |k, stage| {
            let games = dir.join(format!("g{}.txt", k + 1));
            write_games(&games, &stage.games).map_err(|e| format!("{}: {e}", games.display()))?;
            let text = std::fs::read(&games).map_err(|e| e.to_string())?;
            let bytes = stage.network.encode();
            let net = dir.join(format!("n{}.nnue", k + 1));
            std::fs::write(&net, &bytes).map_err(|e| format!("{}: {e}", net.display()))?;
            println!(
                "generation {}: {} sha256 {}; {} sha256 {} [{:.0} s]",
                k + 1,
                games.display(),
                sha256(&text),
                net.display(),
                sha256(&bytes),
                started.elapsed().as_secs_f64()
            );
            Ok(())
        },
        &mut |line| println!("  {line} [{:.0} s]", started.elapsed().as_secs_f64()),
    )?;
    if let Some(out) = out {
        std::fs::write(out, network.encode())?;
        println!(
            "wrote {} (sha256 {})",
            out.display(),
            sha256(&network.encode())
        );
    }
    Ok(())
}
