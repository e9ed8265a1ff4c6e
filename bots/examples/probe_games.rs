//! Development probe: where were recorded games decided, and would a longer search
//! have seen it? Replays the games of a tournament directory (games.csv and
//! moves.csv as `arena` writes them) and, at every move of one bot that reported a
//! score, searches the position again with another engine spec (a fresh tree),
//! printing the recorded value and the deep one side by side as digits (0: sure
//! loss, 5: even, 9: sure win), how many of the deep search's moves differ, and
//! the positions the two judged three or more digits apart.
//!
//!     cargo run --release -p bots --example probe_games -- results/ --bot mcts \
//!         --mark O --result draw --spec "mcts --playouts 1000000"
use std::collections::HashMap;
use std::path::Path;
use std::path::PathBuf;
use std::time::Duration;

use bots::registry::from_spec;
use bots::{Budget, GameSetup};
use clap::Parser;
use referee::rules::{Mark, Position, Rules, Square};

#[derive(Debug, Parser)]
struct Args {
    /// A tournament directory holding games.csv and moves.csv.
    dir: PathBuf,
    /// The bot whose moves are probed.
    #[arg(long, default_value = "mcts")]
    bot: String,
    /// Only games where the bot played this mark.
    #[arg(long, value_parser = ["X", "O"])]
    mark: Option<String>,
    /// Only games with this result for the bot.
    #[arg(long, value_parser = ["win", "draw", "loss"])]
    result: Option<String>,
    /// The deep search.
    #[arg(long, default_value = "mcts --playouts 2000000")]
    spec: String,
    /// At most this many games.
    #[arg(long, default_value_t = 1000)]
    games: usize,
}

/// The index of the column `name` in the header of `file`.
fn column(header: &csv::StringRecord, name: &str, file: &Path) -> Result<usize, String> {
    header.iter().position(|h| h == name).ok_or_else(|| {
        format!(
            "{}: no column '{name}' in the header; give a directory written by `arena`",
            file.display()
        )
    })
}

/// A value in 0..1 as one digit.
fn digit(value: f32) -> char {
    char::from(b'0' + ((value * 10.0).floor().clamp(0.0, 9.0) as u8))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let games_file = args.dir.join("games.csv");
    let opened =
        |file: &Path| csv::Reader::from_path(file).map_err(|e| format!("{}: {e}", file.display()));
    let mut games = opened(&games_file)?;
    let header = games.headers()?.clone();
    let col = |name: &str| column(&header, name, &games_file);
    let (id, x, o, winner) = (col("id")?, col("x")?, col("o")?, col("winner")?);
    let rules_col = col("rules")?;
    let mut wanted = Vec::new();
    for row in games.records() {
        let row = row?;
        let mark = if row[x] == *args.bot {
            "X"
        } else if row[o] == *args.bot {
            "O"
        } else {
            continue;
        };
        let result = match &row[winner] {
            "draw" => "draw",
            w if w == mark => "win",
            _ => "loss",
        };
        if args.mark.as_deref().is_some_and(|m| m != mark)
            || args.result.as_deref().is_some_and(|r| r != result)
        {
            continue;
        }
        let rules: Rules = row[rules_col].parse().map_err(|_| {
            let line = row.position().map_or(0, csv::Position::line);
            format!(
                "{}:{line}: unknown rules '{}'",
                games_file.display(),
                &row[rules_col]
            )
        })?;
        wanted.push((row[id].to_string(), mark == "X", result, rules));
    }
    wanted.truncate(args.games);
    let mut moves: HashMap<String, Vec<(Square, Option<f32>)>> = HashMap::new();
    let moves_file = args.dir.join("moves.csv");
    let mut reader = opened(&moves_file)?;
    let header = reader.headers()?.clone();
    let col = |name: &str| column(&header, name, &moves_file);
    let (game, square, score) = (col("game")?, col("square")?, col("score")?);
    for row in reader.records() {
        let row = row?;
        let sq: Square = row[square].parse().map_err(|_| {
            let line = row.position().map_or(0, csv::Position::line);
            format!(
                "{}:{line}: bad square '{}'",
                moves_file.display(),
                &row[square]
            )
        })?;
        let sc = row[score].parse::<f32>().ok();
        moves
            .entry(row[game].to_string())
            .or_default()
            .push((sq, sc));
    }
    let mut engine = from_spec(&args.spec)?;
    for (gid, bot_x, result, rules) in wanted {
        let Some(record) = moves.get(&gid) else {
            continue;
        };
        let me = if bot_x { Mark::X } else { Mark::O };
        let mut pos = Position::new(rules);
        let (mut recorded, mut deep) = (String::new(), String::new());
        let mut disagree = 0;
        // Positions the two searches judged three or more digits apart.
        let mut surprises = Vec::new();
        for &(sq, sc) in record {
            if pos.side_to_move() == me
                && let Some(sc) = sc
            {
                engine.new_game(&GameSetup {
                    mark: me,
                    rules,
                    seed: 1,
                });
                let choice = engine.choose(&pos, &[], Budget::from_now(Duration::from_secs(60)));
                let (value, text) = choice
                    .info
                    .map_or((0.0, String::new()), |i| (i.score.unwrap_or(0.0), i.text));
                let (was, now) = (digit((sc + 1.0) / 2.0), digit(((value + 1.0) / 2.0) as f32));
                if (was as u8).abs_diff(now as u8) >= 3 {
                    surprises.push(format!(
                        "  ply {}: played {sq} valued {was}, the deep search plays {} valued {now} ({text})",
                        pos.ply() + 1,
                        choice.square
                    ));
                }
                recorded.push(was);
                deep.push(now);
                disagree += usize::from(choice.square != sq);
            }
            pos = pos
                .play(sq)
                .map_err(|e| format!("{}: game {gid}: {sq}: {e}", moves_file.display()))?;
        }
        println!("{gid} {me} {result}: recorded {recorded}");
        println!("{gid} {me} {result}: deep     {deep} ({disagree} other moves)");
        for line in surprises {
            println!("{line}");
        }
    }
    Ok(())
}
