//! Development probe: where were recorded games decided, and would a longer search
//! have seen it? Replays the games of a results directory (through the same
//! readers and rules-engine replay as `arena report`) and, at every move of one bot
//! that reported a score, searches the position again with another engine spec from
//! a fresh tree. Prints the recorded and the deep values side by side as digits (0:
//! sure loss, 5: even, 9: sure win), how many of the deep search's moves differ,
//! and the positions the two judge three or more digits apart.
//!
//!     cargo run --release -p arena --example probe_games -- results/ --bot mcts \
//!         --mark O --result draw --spec "mcts --playouts 1000000"

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context as _;
use arena::results::replay::replay;
use arena::results::store::{GAMES_FILE, MOVES_FILE, MoveRow, for_each_move, read_games};
use bots::engine::value_digit;
use bots::registry::from_spec;
use bots::{Budget, GameSetup};
use clap::{Parser, ValueEnum};
use uttt::result::Decision;
use uttt::rules::Mark;

/// A game's result for the probed bot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum BotResult {
    Win,
    Draw,
    Loss,
}

#[derive(Debug, Parser)]
struct Args {
    /// A results directory holding games.csv and moves.csv.
    dir: PathBuf,
    /// The bot whose moves are probed.
    #[arg(long, default_value = "mcts")]
    bot: String,
    /// Only games where the bot played this mark.
    #[arg(long)]
    mark: Option<Mark>,
    /// Only games with this result for the bot.
    #[arg(long, value_enum)]
    result: Option<BotResult>,
    /// The deep search.
    #[arg(long, default_value = "mcts --playouts 2000000")]
    spec: String,
    /// At most this many games.
    #[arg(long, default_value_t = 1000)]
    games: usize,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let games = read_games(&args.dir.join(GAMES_FILE))?;
    let mut moves: std::collections::HashMap<String, Vec<MoveRow>> = Default::default();
    for_each_move(&args.dir.join(MOVES_FILE), |n| {
        moves.entry(n.row.game.clone()).or_default().push(n.row);
        Ok(())
    })?;
    for rows in moves.values_mut() {
        rows.sort_by_key(|m| m.ply);
    }
    let mut engine = from_spec(&args.spec).context("--spec")?;
    let mut probed = 0;
    for game in &games {
        let me = if game.x == args.bot {
            Mark::X
        } else if game.o == args.bot {
            Mark::O
        } else {
            continue;
        };
        let result = match game.winner {
            Decision::Draw => BotResult::Draw,
            Decision::Win(winner) if winner == me => BotResult::Win,
            Decision::Win(_) => BotResult::Loss,
        };
        if args.mark.is_some_and(|m| m != me) || args.result.is_some_and(|r| r != result) {
            continue;
        }
        if probed == args.games {
            break;
        }
        let rows = moves.get(&game.id).map_or(&[][..], Vec::as_slice);
        let replayed = replay(game.rules, rows);
        if let Some(stop) = &replayed.stop {
            eprintln!(
                "skipping game {}: move {} does not replay ({:?})",
                game.id,
                stop.index + 1,
                stop.problem
            );
            continue;
        }
        probed += 1;
        let (mut recorded, mut deep) = (String::new(), String::new());
        let mut disagree = 0;
        // Positions the two searches judged three or more digits apart.
        let mut surprises = Vec::new();
        // Step k (k ≥ 1) is the position after row k - 1's mark; the mark was made
        // from the step before it.
        for (pair, row) in replayed.steps.windows(2).zip(rows) {
            let (before, played) = (&pair[0].position, &pair[1].played);
            let (Some(played), Some(score)) = (played, row.score) else {
                continue;
            };
            let played = &played.record;
            if played.mark != me {
                continue;
            }
            engine.new_game(&GameSetup {
                mark: me,
                rules: before.rules(),
                seed: 1,
            });
            let choice = engine.choose(before, &[], Budget::from_now(Duration::from_secs(60)));
            let (value, text) = choice
                .info
                .map_or((0.0, String::new()), |i| (i.score.unwrap_or(0.0), i.text));
            let (was, now) = (value_digit(score), value_digit(value));
            if (was as u8).abs_diff(now as u8) >= 3 {
                surprises.push(format!(
                    "  ply {}: played {} valued {was}, the deep search plays {} valued {now} ({text})",
                    row.ply, played.square, choice.square
                ));
            }
            recorded.push(was);
            deep.push(now);
            disagree += usize::from(choice.square != played.square);
        }
        let id = &game.id;
        let result = result
            .to_possible_value()
            .map_or_else(String::new, |v| v.get_name().into());
        println!("{id} {me} {result}: recorded {recorded}");
        println!("{id} {me} {result}: deep     {deep} ({disagree} other moves)");
        for line in surprises {
            println!("{line}");
        }
    }
    Ok(())
}
