//! Turns a calibration run of the reference levels into the ratings of
//! `bots/levels.toml`: reads the `games.csv` that `arena tournament
//! configs/levels.toml` wrote, fits it exactly as `arena ratings --anchor
//! level1=0` does (the `ratings` crate's one Bradley–Terry fit), and prints each
//! level's rating and interval, the step from the level below with the interval of
//! that difference (which `arena ratings` does not print), and the `elo` and
//! `interval` lines to copy into the table.
//!
//!     cargo run --release -p bots --example levels_table -- results/levels/games.csv
//!
//! Several files (shards of one run) are fitted together.

use std::path::PathBuf;

use bots::levels::LevelTable;
use clap::Parser;
use ratings::{Anchor, Decision, Ending, FitOptions, GameResult, PairKey, Standings};
use serde::Deserialize;
use uttt::rules::Mark;

#[derive(Debug, Parser)]
struct Args {
    /// games.csv files of the calibration (or of its shards).
    #[arg(required = true)]
    games: Vec<PathBuf>,
    /// The rating level 1 is anchored at.
    #[arg(long, default_value_t = 0.0)]
    anchor: f64,
}

/// The columns of arena's games.csv this needs.
#[derive(Debug, Deserialize)]
struct Row {
    pair: u64,
    x: String,
    o: String,
    winner: String,
    reason: String,
}

/// Reasons of games decided on the board; anything else is a forfeit by the loser.
const PLAYED: [&str; 3] = ["three-in-a-row", "no-moves", "most-boards"];

fn result_of(row: Row) -> Result<GameResult, String> {
    let decision = match row.winner.as_str() {
        "X" => Decision::Win(Mark::X),
        "O" => Decision::Win(Mark::O),
        "draw" => Decision::Draw,
        other => return Err(format!("winner '{other}' is not X, O or draw")),
    };
    let ending = match decision {
        Decision::Win(winner) if !PLAYED.contains(&row.reason.as_str()) => Ending::Forfeit {
            loser: !winner,
            reason: row.reason,
        },
        _ => Ending::Played {
            decision,
            reason: row.reason,
        },
    };
    let game = GameResult::new(row.x, row.o, ending).map_err(|e| e.to_string())?;
    Ok(game.with_pair(PairKey(row.pair)))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let mut games = Vec::new();
    let mut forfeits = 0;
    for (file, path) in args.games.iter().enumerate() {
        let mut reader = csv::Reader::from_path(path)?;
        for (line, row) in reader.deserialize::<Row>().enumerate() {
            let at = |e: String| format!("{}:{}: {e}", path.display(), line + 2);
            let row = row.map_err(|e| at(e.to_string()))?;
            let mut game = result_of(row).map_err(at)?;
            forfeits += usize::from(game.ending().at_fault().is_some());
            // Shards of one run number their pairs alike only within a file.
            if let Some(PairKey(pair)) = game.pair() {
                game = game.with_pair(PairKey((file as u64) << 40 | pair));
            }
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
