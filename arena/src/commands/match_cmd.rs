//! `arena match A B`: games between two bots in colour-swapped pairs, with the score
//! and the end reasons printed, the narrative with `--verbose`, and CSV files with
//! `--out`.

use std::collections::BTreeMap;

use anyhow::Context as _;
use ratings::Wdl;
use referee::game::GameRecord;

use super::common;
use crate::cli::MatchArgs;
use crate::exit_codes::{self, Code};
use crate::results::standings;
use crate::results::store::GameRow;
use crate::runner::{self, Flow, RunEnd};
use crate::schedule::Format;

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
    let total = recorder.total();
    println!(
        "Match: {} vs {}, {total} games, {} ms per move (first move {} ms, margin {} ms), rules {}, seed {}",
        names[0],
        names[1],
        args.play.time,
        setup.time.first_move_time.map_or(0, |d| d.as_millis()),
        args.play.margin,
        setup.rules,
        recorder.seed()
    );
    println!("{}", crate::sandbox::banner(&setup.sandbox));
    if recorder.done() > 0 {
        println!("Resuming: {} games already played", recorder.done());
    }
    let options = common::run_options(&setup, &args.play);
    let on_finish = |finished: runner::Finished| -> anyhow::Result<Flow> {
        recorder.record(&finished.game.meta, &finished.record)?;
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
    Tally::of(&names[0], &names[1], recorder.rows()).print();
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
    score: Wdl,
    reasons: BTreeMap<String, u32>,
}

impl Tally {
    /// The score of `a` against `b` over the `rows` they played against each other.
    fn of(a: &str, b: &str, rows: &[GameRow]) -> Tally {
        let between: Vec<&GameRow> = rows
            .iter()
            .filter(|r| (r.x == a && r.o == b) || (r.x == b && r.o == a))
            .collect();
        let mut reasons: BTreeMap<String, u32> = BTreeMap::new();
        for row in &between {
            // A fault is the loser's; a draw with a fault reason is a game both bots
            // failed before the first move.
            let key = match row.loser() {
                _ if row.reason.on_the_board() => row.reason.to_string(),
                None => format!("{} by both", row.reason),
                Some(loser) => format!("{} by {}", row.reason, row.bot(loser)),
            };
            *reasons.entry(key).or_default() += 1;
        }
        Tally {
            a: a.into(),
            b: b.into(),
            score: standings::score(between, a),
            reasons,
        }
    }

    fn print(&self) {
        let games = self.score.games();
        println!(
            "Score of {} vs {}: {} - {} - {} [{:.3}] {games} games",
            self.a,
            self.b,
            self.score.wins,
            self.score.losses,
            self.score.draws,
            self.score.score().unwrap_or(0.0)
        );
        let reasons: Vec<String> = self
            .reasons
            .iter()
            .map(|(k, n)| format!("{k}: {n}"))
            .collect();
        println!("Reasons: {}", reasons.join(", "));
    }
}
