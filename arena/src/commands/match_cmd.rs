//! `arena match A B`: games between two bots in colour-swapped pairs, with the score
//! and the end reasons printed, the narrative with `--verbose`, and CSV files with
//! `--out`.

use std::collections::BTreeMap;

use ratings::Wdl;
use referee::game::GameRecord;

use super::{played, refused, usage};
use crate::cli::MatchArgs;
use crate::exit_codes::Code;
use crate::results::recorder::Recorder;
use crate::results::standings;
use crate::results::store::GameRow;
use crate::tournament::isolation;
use crate::tournament::prepare::prepare_command_line;
use crate::tournament::run::Watcher;
use crate::tournament::runner::{Finished, Flow, RunEnd};
use crate::tournament::schedule::Format;

/// Runs `arena match`.
///
/// # Errors
/// Writing results failed, or the async runtime could not start.
pub fn run(args: &MatchArgs) -> anyhow::Result<Code> {
    if args.games == 0 {
        return Ok(usage("--games must be at least 1"));
    }
    let specs = [args.bot_a.as_str(), args.bot_b.as_str()];
    let (lineup, prepared) =
        match prepare_command_line("match", &specs, &args.play, Format::RoundRobin, args.games) {
            Ok(started) => started,
            Err(e) => return refused(e),
        };
    let mut recorder = prepared.recorder;
    let names = lineup.names();
    println!(
        "Match: {} vs {}, {} games, {} ms per move (first move {} ms, margin {} ms), rules {}, seed {}",
        names[0],
        names[1],
        recorder.total(),
        args.play.time,
        lineup.time.first_move_time.map_or(0, |d| d.as_millis()),
        args.play.margin,
        lineup.rules,
        recorder.seed()
    );
    println!("{}", isolation::banner(&lineup.isolation));
    if recorder.done() > 0 {
        println!("Resuming: {} games already played", recorder.done());
    }
    let mut watcher = MatchWatch {
        verbose: args.verbose,
        names,
    };
    let end = lineup.run_games(&args.play, prepared.games, &mut recorder, &mut watcher)?;
    Ok(played(end))
}

/// A match's words: a line per game (the narrative too with `--verbose`), the
/// score at the end.
#[derive(Debug)]
struct MatchWatch {
    verbose: bool,
    names: Vec<String>,
}

impl Watcher for MatchWatch {
    fn game(
        &mut self,
        finished: &Finished,
        _row: &GameRow,
        _bar: &indicatif::ProgressBar,
        recorder: &Recorder,
    ) -> anyhow::Result<Flow> {
        if self.verbose {
            println!();
            for line in finished.record.narrative() {
                println!("  {line}");
            }
        }
        println!(
            "Game {}/{} ({}): {}",
            recorder.done(),
            recorder.total(),
            finished.game.meta.id,
            summary_line(&finished.record)
        );
        Ok(Flow::Continue)
    }

    fn summary(&mut self, recorder: &Recorder, _end: RunEnd) -> anyhow::Result<()> {
        println!();
        // Every game of the match, those of earlier runs on this directory included.
        Tally::of(&self.names[0], &self.names[1], recorder.rows()).print();
        if let Some(dir) = recorder.out() {
            println!("Results written to {}", dir.display());
        }
        Ok(())
    }
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
