//! Tries candidate level definitions against each other in-process, to design the
//! reference levels before the official calibration through `arena tournament`
//! (bots/BENCHMARKS.md, "Reference levels"). Each candidate is an engine spec as
//! `arena bot` takes it, optionally followed by `@SHARE`, the share of its moves
//! played at random:
//!
//!     cargo build --release -p bots --example levels_probe
//!     ./target/release/examples/levels_probe random greedy@0.5 greedy "mcts --playouts 100" \
//!         --games 40 --window 2 --threads 2
//!
//! Pairs candidates at most `--window` apart in the order given (all pairs by
//! default), prints each pairing's result, then one rating fit over every game
//! (the `ratings` crate, the first candidate anchored at 0) with the steps between
//! neighbours and their 95% intervals, and each candidate's mean time per move.

use std::time::Duration;

use bots::levels::Level;
use bots::levels::games::{Played, Schedule, level_builder, play};
use clap::Parser;
use ratings::{Anchor, Decision, Ending, FitOptions, GameResult, PairKey, Standings};
use uttt::rules::{Mark, Rules};

#[derive(Debug, Parser)]
struct Args {
    /// Candidates, weakest first: "SPEC" or "SPEC@SHARE" (e.g. "greedy@0.4").
    #[arg(required = true)]
    candidates: Vec<String>,
    /// Games per pairing (colour-swapped pairs).
    #[arg(long, default_value_t = 40)]
    games: u32,
    /// Pair only candidates at most this far apart in the list [default: all pairs].
    #[arg(long)]
    window: Option<usize>,
    /// Random plies before the engines take over.
    #[arg(long, default_value_t = 4)]
    opening: u32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, default_value_t = 2)]
    threads: usize,
    #[arg(long, default_value = "standard")]
    rules: Rules,
    /// The deadline of every move, a safety net: candidates should stop by work.
    #[arg(long, default_value_t = 10_000)]
    move_ms: u64,
}

/// A candidate as a level: its spec and share of random moves.
fn level_of(index: usize, text: &str) -> Result<Level, String> {
    let (engine, share) = match text.rsplit_once('@') {
        Some((engine, share)) => (
            engine,
            share
                .parse::<f64>()
                .map_err(|_| format!("'{text}': '{share}' is not a share"))?,
        ),
        None => (text, 0.0),
    };
    Ok(Level {
        number: u8::try_from(index + 1).map_err(|_| "too many candidates")?,
        engine: engine.trim().to_string(),
        random_moves: share,
        elo: 0.0,
        interval: 0.0,
        safety_net_ms: None,
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let levels = args
        .candidates
        .iter()
        .enumerate()
        .map(|(i, c)| level_of(i, c))
        .collect::<Result<Vec<_>, _>>()?;
    let contestants: Vec<_> = levels.iter().map(level_builder).collect();
    let n = levels.len();
    let schedule = Schedule {
        pairings: Schedule::window(n, args.window.unwrap_or(n)),
        pairs: args.games.div_ceil(2),
        opening_plies: args.opening,
        rules: args.rules,
        seed: args.seed,
        move_time: Duration::from_millis(args.move_ms),
    };
    let started = std::time::Instant::now();
    let games = play(&contestants, &schedule, args.threads)?;
    println!(
        "{} games in {:.0} s",
        games.len(),
        started.elapsed().as_secs_f64()
    );
    let label = |i: usize| format!("#{} {}", i + 1, args.candidates[i]);
    for &(a, b) in &schedule.pairings {
        let (mut w, mut d, mut l) = (0, 0, 0);
        for g in games
            .iter()
            .filter(|g| (g.x, g.o) == (a, b) || (g.x, g.o) == (b, a))
        {
            let a_mark = if g.x == a { Mark::X } else { Mark::O };
            match g.winner {
                Some(m) if m == a_mark => w += 1,
                Some(_) => l += 1,
                None => d += 1,
            }
        }
        let score = (f64::from(w) + f64::from(d) / 2.0) / f64::from(w + d + l).max(1.0);
        println!(
            "{:<40} vs {:<40} +{w} ={d} -{l}  {:.1}%",
            label(a),
            label(b),
            100.0 * score
        );
    }
    let results = games.iter().map(result_of).collect::<Result<Vec<_>, _>>()?;
    let options = FitOptions {
        anchor: Anchor::Bot {
            name: "#1".into(),
            elo: 0.0,
        },
        ..FitOptions::default()
    };
    let standings = Standings::fit(&results, &options)?;
    println!("\nrating fit, #1 at 0 (95%):");
    for i in 0..n {
        let name = format!("#{}", i + 1);
        let (Some(bot), Some(at)) = (standings.bot(&name), standings.position(&name)) else {
            continue;
        };
        let step = (i > 0)
            .then(|| standings.position(&format!("#{i}")))
            .flatten()
            .and_then(|below| standings.difference(at, below))
            .map_or(String::new(), |d| {
                format!(
                    "step {:+.0} ± {:.0}",
                    d.elo,
                    (d.interval.high - d.interval.low) / 2.0
                )
            });
        let (moves, think) = games
            .iter()
            .flat_map(|g| [(g.x, g.moves.x, g.think.x), (g.o, g.moves.o, g.think.o)])
            .filter(|(c, _, _)| *c == i)
            .fold((0u64, Duration::ZERO), |(m, t), (_, gm, gt)| {
                (m + u64::from(gm), t + gt)
            });
        println!(
            "{:<44} {:>6.0} ± {:>3.0}  {:<18} {:.2} ms/move",
            label(i),
            bot.rating.elo,
            (bot.rating.interval.high - bot.rating.interval.low) / 2.0,
            step,
            think.as_secs_f64() * 1000.0 / moves.max(1) as f64
        );
    }
    Ok(())
}

/// A game as the ratings crate reads it.
fn result_of(g: &Played) -> Result<GameResult, ratings::GameResultError> {
    let ending = Ending::of(g.winner.map_or(Decision::Draw, Decision::Win), g.reason);
    Ok(
        GameResult::new(format!("#{}", g.x + 1), format!("#{}", g.o + 1), ending)?
            .with_pair(PairKey(g.pair)),
    )
}
