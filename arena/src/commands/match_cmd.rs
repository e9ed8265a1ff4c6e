//! `arena match A B`: games between two bots in colour-swapped pairs, with the score
//! and the end reasons printed, the narrative with `--verbose`, and CSV files with
//! `--out`.

use std::collections::BTreeMap;

use anyhow::Context as _;
use referee::game::GameRecord;
use uttt::result::EndReason;

use super::common;
use crate::cli::MatchArgs;
use crate::exit_codes::{self, Code};
use crate::runner::{self, Flow, RunEnd};
use crate::schedule::Format;
use crate::store::GameRow;

/// Runs `arena match`.
///
/// # Errors
/// Writing results failed, or the async runtime could not start.
pub fn run(args: &MatchArgs) -> anyhow::Result<Code> {
    if args.games == 0 {
        return Ok(common::usage("--games must be at least 1"));
    }
    let (
        setup,
        common::Prepared {
            games,
            mut recorder,
        },
    ) = match common::start(
        "match",
        &[&args.bot_a, &args.bot_b],
        &args.play,
        Format::RoundRobin,
        args.games,
    )? {
        Ok(started) => started,
        Err(message) => return Ok(common::usage(&message)),
    };
    let names: Vec<String> = setup.entrants.iter().map(|e| e.spec.name.clone()).collect();
    let total = recorder.total;
    println!(
        "Match: {} vs {}, {total} games, {} ms per move (first move {} ms, margin {} ms), rules {}, seed {}",
        names[0],
        names[1],
        args.play.time,
        setup.time.first_move_time.map_or(0, |d| d.as_millis()),
        args.play.margin,
        setup.rules,
        recorder.seed
    );
    println!("{}", crate::sandbox::banner(&setup.sandbox));
    if recorder.done() > 0 {
        println!("Resuming: {} games already played", recorder.done());
    }
    let options = common::run_options(&setup, &args.play);
    let on_finish = |finished: runner::Finished| -> anyhow::Result<Flow> {
        recorder.record(&finished)?;
        if args.verbose {
            println!();
            for line in finished.record.narrative() {
                println!("  {line}");
            }
        }
        println!(
            "Game {}/{total} ({}): {}",
            recorder.done(),
            finished.game.meta.id,
            summary_line(&finished.record)
        );
        Ok(Flow::Continue)
    };
    let runtime = runner::runtime(args.play.concurrency).context("starting the async runtime")?;
    let end = runtime.block_on(runner::run(
        setup.entrants.clone(),
        options,
        games,
        on_finish,
        async {
            let _ = tokio::signal::ctrl_c().await;
        },
    ))?;
    recorder.finish(end == RunEnd::Complete)?;
    println!();
    // Every game of the match, those of earlier runs on this directory included.
    Tally::of(&names[0], &names[1], &recorder.rows).print();
    if let Some(dir) = recorder.out() {
        println!("Results written to {}", dir.display());
    }
    Ok(match end {
        RunEnd::Complete | RunEnd::Stopped => exit_codes::OK,
        RunEnd::Interrupted => {
            eprintln!("Interrupted: unfinished games were not recorded.");
            exit_codes::INTERRUPTED
        }
    })
}

/// "mcts (X) vs random (O): X (mcts) wins: three boards in a row. [31 plies]"
pub fn summary_line(record: &GameRecord) -> String {
    format!(
        "{} (X) vs {} (O): {} [{} plies]",
        record.names.x,
        record.names.o,
        record.result_line(),
        record.position.ply()
    )
}

/// Score of the first bot against the second, and how games ended.
#[derive(Debug)]
struct Tally {
    a: String,
    b: String,
    wins: u32,
    losses: u32,
    draws: u32,
    reasons: BTreeMap<String, u32>,
}

impl Tally {
    /// The score of `a` against `b` over the `rows` they played against each other.
    fn of(a: &str, b: &str, rows: &[GameRow]) -> Tally {
        let mut tally = Tally {
            a: a.into(),
            b: b.into(),
            wins: 0,
            losses: 0,
            draws: 0,
            reasons: BTreeMap::new(),
        };
        let between = |r: &&GameRow| (r.x == a && r.o == b) || (r.x == b && r.o == a);
        for row in rows.iter().filter(between) {
            tally.add(row);
        }
        tally
    }

    fn add(&mut self, row: &GameRow) {
        match row.winner_mark() {
            Ok(Some(_)) if row.winner_name == self.a => self.wins += 1,
            Ok(Some(_)) => self.losses += 1,
            Ok(None) | Err(_) => self.draws += 1,
        }
        // A fault is the loser's; a draw with a fault reason is a game both bots
        // failed before the first move.
        let on_the_board = row
            .reason
            .parse::<EndReason>()
            .is_ok_and(EndReason::on_the_board);
        let key = if on_the_board {
            row.reason.clone()
        } else if row.winner == "draw" {
            format!("{} by both", row.reason)
        } else {
            let loser = if row.winner_name == row.x {
                &row.o
            } else {
                &row.x
            };
            format!("{} by {loser}", row.reason)
        };
        *self.reasons.entry(key).or_default() += 1;
    }

    fn print(&self) {
        let games = self.wins + self.losses + self.draws;
        let score = if games == 0 {
            0.0
        } else {
            (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(games)
        };
        println!(
            "Score of {} vs {}: {} - {} - {} [{score:.3}] {games} games",
            self.a, self.b, self.wins, self.losses, self.draws
        );
        let reasons: Vec<String> = self
            .reasons
            .iter()
            .map(|(k, n)| format!("{k}: {n}"))
            .collect();
        println!("Reasons: {}", reasons.join(", "));
    }
}
