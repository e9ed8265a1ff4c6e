//! Turns a calibration run of the reference levels into the ratings of
//! `bots/levels.toml`: reads the `games.csv` that `arena tournament
//! configs/levels.toml` wrote, fits it exactly as `arena ratings --anchor
//! level1=0` does (the `ratings` crate's one Bradley–Terry fit), and prints each
//! level's rating and interval, the step from the level below with the interval of
//! that difference (which `arena ratings` does not print), and the `elo` and
//! `interval` lines to copy into the table.
//!
//!     cargo run --release -p arena --example levels_table -- results/levels/games.csv
//!
//! Several files (shards of one run) are fitted together.

use std::path::PathBuf;

use arena::results::standings::to_result;
use arena::results::store::read_games;
use bots::levels::LevelTable;
use clap::Parser;
use ratings::{Anchor, FitOptions, Standings};

#[derive(Debug, Parser)]
struct Args {
    /// games.csv files of the calibration (or of its shards).
    #[arg(required = true)]
    games: Vec<PathBuf>,
    /// The rating level 1 is anchored at.
    #[arg(long, default_value_t = 0.0)]
    anchor: f64,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let mut games = Vec::new();
    let mut forfeits = 0;
    for (file, path) in (0u32..).zip(&args.games) {
        // The one games.csv reader; `file` keeps pairs of different shards apart.
        for row in read_games(path)? {
            let game = to_result(&row, file)?;
            forfeits += usize::from(game.ending().at_fault().is_some());
            games.push(game);
        }
    }
    let options = FitOptions {
        anchor: Anchor::Bot {
            name: "level1".into(),
            elo: args.anchor,
        },
        ..FitOptions::default()
    };
    let standings = Standings::fit(&games, &options)?;
    println!(
        "{} games, {forfeits} forfeits; X advantage {:+.0} Elo; dispersion {:.3}",
        standings.games(),
        standings.x_advantage().map_or(0.0, |x| x.elo),
        standings.dispersion()
    );
    let table = LevelTable::shipped();
    println!("level       Elo   ±95%    step  ±95%");
    let mut toml = String::new();
    for level in table.levels() {
        let name = level.name();
        let (Some(bot), Some(at)) = (standings.bot(&name), standings.position(&name)) else {
            println!("{name:<8}  (no games)");
            continue;
        };
        let half = |r: &ratings::Rated| (r.interval.high - r.interval.low) / 2.0;
        let step = (level.number > 1)
            .then(|| standings.position(&format!("level{}", level.number - 1)))
            .flatten()
            .and_then(|below| standings.difference(at, below))
            .map_or(String::new(), |d| {
                format!("{:+7.0}  {:4.0}", d.elo, half(&d))
            });
        println!(
            "{name:<8} {:6.0}  {:5.0}  {step}",
            bot.rating.elo,
            half(&bot.rating)
        );
        toml.push_str(&format!(
            "level = {:<2}  elo = {:.0}  interval = {:.0}\n",
            level.number,
            bot.rating.elo,
            half(&bot.rating)
        ));
    }
    println!("\nfor bots/levels.toml:\n{toml}");
    Ok(())
}
