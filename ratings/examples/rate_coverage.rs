//! How often `arena rate`'s intervals cover a bot's true rating: simulated bots of
//! known strength are rated by the same adaptive gauntlet (`ratings::placement`:
//! the opponent choice, the stop rule, the estimate and its interval) against a
//! scale whose levels are exactly as strong as published, and the share of
//! intervals that contain the truth is counted, with the games it took.
//!
//!     cargo run --release -p ratings --example rate_coverage -- --runs 4000
//!
//! Games: the Elo model with a first-player edge of 40 Elo, a draw rate `c` between
//! equals (draws `4c·E(1 − E)`), and the two games of a pair sharing an opening
//! whose extra edge for X is uniform in ±`opening` Elo (so pairs are correlated as
//! real ones are). True ratings are spread evenly from 100 below the bottom level to
//! 100 above the top one.

use clap::Parser;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use ratings::elo::score_from_elo;
use ratings::{AnchoredPair, Confidence, Progress, StopRule, next_opponent, place};

#[derive(Debug, Parser)]
struct Args {
    /// Simulated bots per setting.
    #[arg(long, default_value_t = 1000)]
    runs: u32,
    /// Interval half-width the gauntlet stops at.
    #[arg(long, default_value_t = 50.0)]
    precision: f64,
    /// Games it stops at regardless.
    #[arg(long, default_value_t = 1000)]
    max_games: u32,
    /// Pairs before the precision may stop a gauntlet (`arena rate` uses 4).
    #[arg(long, default_value_t = 4)]
    min_pairs: u32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// The published levels (bots/levels.toml, the second calibration of 2026-12-01).
const SCALE: [f64; 10] = [
    0.0, 199.0, 366.0, 565.0, 775.0, 997.0, 1229.0, 1460.0, 1685.0, 1916.0,
];

/// Points of the bot (1, ½, 0) in one game.
fn game(rng: &mut StdRng, edge_for_x: f64, draw_rate: f64, bot_is_x: bool) -> f64 {
    let e = score_from_elo(edge_for_x);
    let p_draw = 4.0 * draw_rate * e * (1.0 - e);
    let u: f64 = rng.random();
    let x_points = if u < e - p_draw / 2.0 {
        1.0
    } else if u < e + p_draw / 2.0 {
        0.5
    } else {
        0.0
    };
    if bot_is_x { x_points } else { 1.0 - x_points }
}

fn main() {
    let args = Args::parse();
    let rule = StopRule {
        precision: args.precision,
        min_pairs: args.min_pairs,
        max_games: args.max_games,
    };
    let mut rng = StdRng::seed_from_u64(args.seed);
    println!(
        "{} simulated bots per row, precision ±{}, at most {} games, 95% intervals",
        args.runs, args.precision, args.max_games
    );
    println!("draw rate  opening ±  covered   mean games  max games  stopped at max");
    for (draw_rate, opening) in [(0.0, 0.0), (0.3, 60.0), (0.5, 120.0)] {
        let (mut covered, mut games, mut most, mut at_max) = (0u32, 0u64, 0u32, 0u32);
        for k in 0..args.runs {
            let lo = SCALE[0] - 100.0;
            let hi = SCALE[SCALE.len() - 1] + 100.0;
            let truth = lo + (hi - lo) * (f64::from(k) + 0.5) / f64::from(args.runs);
            let mut played = [0u32; SCALE.len()];
            let mut pairs = Vec::new();
            let mut placement = None;
            let progress = loop {
                let progress = rule.progress(placement.as_ref());
                if progress != Progress::Continue {
                    break progress;
                }
                let level = next_opponent(&SCALE, placement.as_ref(), &played);
                played[level] += 1;
                let r = SCALE[level];
                let open = opening * (2.0 * rng.random::<f64>() - 1.0);
                let points = game(&mut rng, truth - r + 40.0 + open, draw_rate, true)
                    + game(&mut rng, r - truth + 40.0 + open, draw_rate, false);
                pairs.push(AnchoredPair {
                    opponent: r,
                    points,
                    games: 2,
                });
                placement = place(&pairs, Confidence::default());
            };
            let p = placement.expect("at least one pair");
            covered += u32::from(p.interval.contains(truth));
            games += u64::from(p.games);
            most = most.max(p.games);
            at_max += u32::from(progress == Progress::MaxGames);
        }
        println!(
            "{draw_rate:9.1}  {opening:9.0}  {:6.1}%  {:11.0}  {most:9}  {at_max:14}",
            100.0 * f64::from(covered) / f64::from(args.runs),
            games as f64 / f64::from(args.runs)
        );
    }
}
