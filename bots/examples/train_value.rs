//! Trains the learned value (`bots::learned`): self-play games of `mcts` at a
//! fixed number of playouts per move, then a logistic fit of their results.
//!
//!     cargo run --release -p bots --example train_value -- gen --games 20000 --out /tmp/games.txt
//!     cargo run --release -p bots --example train_value -- fit /tmp/games.txt --out bots/src/learned/weights.bin
//!
//! `gen` writes one game per line: the result for X (1, 0.5, 0), the moves, and
//! for each searched move the search's value for its mover (0..1). `fit` trains on
//! every position of every game after its random opening, towards a blend of the
//! game's result and the search's value (`--search-weight`), and reports the
//! log-loss on held-out games against the hand-written evaluation's.
//!
//! A house-rule model is fitted the same way with `--rules` on both steps (the
//! games must be replayed under the rules they were played by); `fit --init`
//! starts from other weights, e.g. the standard model's, instead of zeros.

use std::io::{BufRead, BufWriter, Write};
use std::path::PathBuf;
use std::time::Instant;

use bots::learned::features::{MAX_ACTIVE, WEIGHTS, active};
use bots::learned::{encode, logit, sigmoid};
use bots::registry::{BotError, from_spec};
use bots::{Budget, GameSetup};
use clap::{Parser, Subcommand};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use uttt::rules::{Mark, Position, Rules, Square};

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
        games: u32,
        /// The engine both sides play, as `arena bot` takes it (fix its work
        /// with `--playouts` so a game takes milliseconds).
        #[arg(long, default_value = "mcts --playouts 2000")]
        spec: String,
        /// Random plies at the start of a game: uniform in 0..=N.
        #[arg(long, default_value_t = 8)]
        opening: u32,
        #[arg(long, default_value_t = 2)]
        threads: u32,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The rules of every game.
        #[arg(long, default_value = "standard")]
        rules: Rules,
        #[arg(long)]
        out: PathBuf,
    },
    /// Fits the weights to games written by `gen`.
    Fit {
        /// Files written by `gen`.
        #[arg(required = true)]
        games: Vec<PathBuf>,
        #[arg(long, default_value_t = 6)]
        epochs: u32,
        /// Adagrad learning rate.
        #[arg(long, default_value_t = 0.1)]
        rate: f32,
        /// L2 penalty per update.
        #[arg(long, default_value_t = 1e-6)]
        l2: f32,
        /// Weight of the search's value against the game's result in the target.
        #[arg(long, default_value_t = 0.5)]
        search_weight: f32,
        /// The rules the games were played under.
        #[arg(long, default_value = "standard")]
        rules: Rules,
        /// Start from these weights (a file written by `fit`) instead of zeros.
        #[arg(long)]
        init: Option<PathBuf>,
        /// Where to write the weights; without it, only the losses are reported.
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    match Args::parse().command {
        Command::Gen {
            games,
            spec,
            opening,
            threads,
            seed,
            rules,
            out,
        } => generate(games, &spec, opening, threads.max(1), seed, rules, &out),
        Command::Fit {
            games,
            epochs,
            rate,
            l2,
            search_weight,
            rules,
            init,
            out,
        } => {
            let start = match init {
                Some(path) => bots::learned::decode(&std::fs::read(&path)?).ok_or_else(|| {
                    format!(
                        "{}: not a weights file of this feature layout",
                        path.display()
                    )
                })?,
                None => vec![0.0; WEIGHTS],
            };
            let options = FitOptions {
                epochs,
                rate,
                l2,
                search_weight,
                rules,
            };
            fit(&games, &options, start, out.as_deref())
        }
    }
}

/// One self-play game: its moves, the number of random opening plies, the
/// search's value for the mover of each later move, and X's result.
fn play_one(spec: &str, opening: u32, seed: u64, rules: Rules) -> Result<String, BotError> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut engines = [from_spec(spec)?, from_spec(spec)?];
    for (engine, mark) in engines.iter_mut().zip([Mark::X, Mark::O]) {
        engine.new_game(&GameSetup {
            mark,
            rules,
            seed: rng.random(),
        });
    }
    let random_plies = rng.random_range(0..=opening);
    let mut pos = Position::new(rules);
    let mut moves: Vec<Square> = Vec::new();
    let mut values = Vec::new();
    while !pos.is_over() {
        let sq = if (moves.len() as u32) < random_plies {
            bots::engine::random_legal(&pos, &mut rng)
        } else {
            let engine = &mut engines[usize::from(pos.side_to_move() == Mark::O)];
            let budget = Budget::from_now(std::time::Duration::from_secs(60));
            let choice = engine.choose(&pos, &moves, budget);
            let score = choice.info.and_then(|i| i.score).unwrap_or(0.0);
            values.push(format!("{:.3}", (score + 1.0) / 2.0));
            choice.square
        };
        pos.play_unchecked(sq);
        moves.push(sq);
    }
    let result = match pos.status().outcome().and_then(|o| o.winner()) {
        Some(Mark::X) => "1",
        Some(Mark::O) => "0",
        None => "0.5",
    };
    let moves: Vec<String> = moves.iter().map(ToString::to_string).collect();
    Ok(format!(
        "{result} {random_plies} {} | {}",
        moves.join(" "),
        values.join(" ")
    ))
}

fn generate(
    games: u32,
    spec: &str,
    opening: u32,
    threads: u32,
    seed: u64,
    rules: Rules,
    out: &std::path::Path,
) -> Result<(), Box<dyn std::error::Error>> {
    let started = Instant::now();
    from_spec(spec)?;
    let lines: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    (t..games)
                        .step_by(threads as usize)
                        .filter_map(|g| {
                            play_one(
                                spec,
                                opening,
                                seed.wrapping_mul(7_919) ^ u64::from(g),
                                rules,
                            )
                            .ok()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    });
    let mut file = BufWriter::new(std::fs::File::create(out)?);
    for line in &lines {
        writeln!(file, "{line}")?;
    }
    file.flush()?;
    println!(
        "{} games in {:.0} s -> {}",
        lines.len(),
        started.elapsed().as_secs_f64(),
        out.display()
    );
    Ok(())
}

/// One training position: the weights it switches on and its target.
struct Sample {
    on: [u32; MAX_ACTIVE],
    n: u8,
    target: f32,
    /// The hand-written evaluation's score, in hundredths of a board (for comparison).
    handmade: i32,
}

/// The positions of one line written by `gen`.
fn samples_of(line: &str, search_weight: f32, rules: Rules) -> Result<Vec<Sample>, String> {
    let (head, values) = line.split_once(" | ").ok_or("no ' | '")?;
    let mut words = head.split_whitespace();
    let x_result: f32 = words.next().ok_or("empty")?.parse().map_err(|_| "result")?;
    let random_plies: usize = words.next().ok_or("plies")?.parse().map_err(|_| "plies")?;
    let moves: Vec<Square> = words
        .map(|w| w.parse::<Square>().map_err(|_| format!("bad square {w}")))
        .collect::<Result<_, _>>()?;
    let values: Vec<f32> = values
        .split_whitespace()
        .map(|v| v.parse().map_err(|_| format!("bad value {v}")))
        .collect::<Result<_, _>>()?;
    let mut pos = Position::new(rules);
    let mut out = Vec::new();
    for (ply, &sq) in moves.iter().enumerate() {
        if ply >= random_plies {
            let result = if pos.side_to_move() == Mark::X {
                x_result
            } else {
                1.0 - x_result
            };
            let search = values.get(ply - random_plies).copied().unwrap_or(result);
            let mut on = [0u32; MAX_ACTIVE];
            let n = active(&pos, &mut on);
            out.push(Sample {
                on,
                n: n as u8,
                target: (1.0 - search_weight) * result + search_weight * search,
                handmade: bots::eval::evaluate(&pos),
            });
        }
        pos = pos.play(sq).map_err(|e| format!("illegal {sq}: {e}"))?;
    }
    Ok(out)
}

/// Cross-entropy of predicting `p` for target `y`.
fn log_loss(p: f32, y: f32) -> f64 {
    let p = f64::from(p).clamp(1e-6, 1.0 - 1e-6);
    let y = f64::from(y);
    -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
}

impl Sample {
    /// The weights this position switches on.
    fn on(&self) -> &[u32] {
        &self.on[..usize::from(self.n)]
    }
}

/// The mean log-loss over `samples` of predicting `predict(sample)`.
fn mean_loss(samples: &[Sample], predict: impl Fn(&Sample) -> f32) -> f64 {
    let total: f64 = samples.iter().map(|s| log_loss(predict(s), s.target)).sum();
    total / samples.len().max(1) as f64
}

/// How `fit` trains.
#[derive(Clone, Copy, Debug)]
struct FitOptions {
    epochs: u32,
    rate: f32,
    l2: f32,
    search_weight: f32,
    rules: Rules,
}

fn fit(
    files: &[PathBuf],
    options: &FitOptions,
    mut weights: Vec<f32>,
    out: Option<&std::path::Path>,
) -> Result<(), Box<dyn std::error::Error>> {
    let FitOptions {
        epochs,
        rate,
        l2,
        search_weight,
        rules,
    } = *options;
    let mut games: Vec<Vec<Sample>> = Vec::new();
    for file in files {
        let reader = std::io::BufReader::new(std::fs::File::open(file)?);
        for (n, line) in reader.lines().enumerate() {
            let line = line?;
            let samples = samples_of(&line, search_weight, rules)
                .map_err(|e| format!("{}:{}: {e}", file.display(), n + 1))?;
            games.push(samples);
        }
    }
    // Hold out every tenth game: positions of one game are not independent.
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for (i, game) in games.into_iter().enumerate() {
        if i % 10 == 9 {
            test.extend(game);
        } else {
            train.extend(game);
        }
    }
    println!(
        "{} training positions, {} held out",
        train.len(),
        test.len()
    );
    // Baselines: the mean target everywhere, and the hand-written evaluation
    // through the logistic curve of the best scale (so calibration is not held
    // against it).
    let mean = train.iter().map(|s| f64::from(s.target)).sum::<f64>() / train.len().max(1) as f64;
    let constant = mean_loss(&test, |_| mean as f32);
    let calibrated = [25.0f32, 50.0, 100.0, 200.0, 400.0, 800.0]
        .iter()
        .map(|&scale| {
            let loss = mean_loss(&test, |s| sigmoid(s.handmade as f32 / scale));
            (loss, scale)
        })
        .fold((f64::INFINITY, 0.0), |a, b| if b.0 < a.0 { b } else { a });
    println!(
        "held-out log-loss: constant {constant:.4}, hand-written evaluation at its best scale (1/{}) {:.4}",
        calibrated.1, calibrated.0
    );
    let start = mean_loss(&test, |s| sigmoid(logit(&weights, s.on())));
    println!("held-out log-loss of the starting weights {start:.4}");
    let mut squares = vec![1e-8f32; WEIGHTS];
    let mut rng = SmallRng::seed_from_u64(1);
    let mut order: Vec<usize> = (0..train.len()).collect();
    for epoch in 1..=epochs {
        order.shuffle(&mut rng);
        for &i in &order {
            let s = &train[i];
            let on = s.on();
            let gradient = sigmoid(logit(&weights, on)) - s.target;
            for &i in on {
                let i = i as usize;
                let g = gradient + l2 * weights[i];
                squares[i] += g * g;
                weights[i] -= rate * g / squares[i].sqrt();
            }
        }
        let model = |s: &Sample| sigmoid(logit(&weights, s.on()));
        let (train_loss, test_loss) = (mean_loss(&train, model), mean_loss(&test, model));
        println!("epoch {epoch}: log-loss train {train_loss:.4}, held out {test_loss:.4}");
    }
    if let Some(out) = out {
        std::fs::write(out, encode(&weights))?;
        println!("wrote {}", out.display());
    }
    Ok(())
}
