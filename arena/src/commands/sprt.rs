//! `arena sprt NEW BASE`: colour-swapped pairs until the GSPRT on pentanomial pair
//! counts accepts H0 or H1 — the strength-regression check for CI. Exit codes (see
//! exit_codes.rs): 0 H1 accepted, 1 H0 accepted, 2 usage, 3 inconclusive at
//! `--max-games`, 4 a bot could not run, 130 interrupted. With `--out`, an interrupted
//! test resumes where it stopped.

use indicatif::ProgressBar;
use ratings::{
    Confidence, EloModel, SprtConfig, SprtDecision, SprtStatus, head_to_head, table::sprt_line,
};
use referee::game::Termination;
use uttt::result::EndReason;

use super::{refused, usage};
use crate::cli::{SprtArgs, SprtModel};
use crate::exit_codes::{self, Code};
use crate::results::recorder::Recorder;
use crate::results::standings::to_result;
use crate::results::store::GameRow;
use crate::terminal::progress::games_bar;
use crate::tournament::isolation;
use crate::tournament::prepare::prepare_command_line;
use crate::tournament::run::Watcher;
use crate::tournament::runner::{Finished, Flow, RunEnd};
use crate::tournament::schedule::Format;

/// Runs `arena sprt`.
///
/// # Errors
/// Writing results failed, or the runtime failed.
pub fn run(args: &SprtArgs) -> anyhow::Result<Code> {
    let model = match args.model {
        SprtModel::Normalized => EloModel::Normalized,
        SprtModel::Logistic => EloModel::Logistic,
    };
    let config = match SprtConfig::new(args.elo0, args.elo1, args.alpha, args.beta, model) {
        Ok(c) => c,
        Err(e) => return Ok(usage(&e.to_string())),
    };
    let specs = [args.new.as_str(), args.base.as_str()];
    let games = args.max_games + args.max_games % 2;
    let (lineup, prepared) =
        match prepare_command_line("sprt", &specs, &args.play, Format::RoundRobin, games) {
            Ok(started) => started,
            Err(e) => return refused(e),
        };
    let mut recorder = prepared.recorder;
    let [new, base] = [0, 1].map(|i| lineup.entrants[i].spec.name.clone());
    println!(
        "SPRT {new} vs {base}: H0 {} vs H1 {} {}, alpha {}, beta {}, at most {} games, {} ms per move, seed {}",
        args.elo0,
        args.elo1,
        match model {
            EloModel::Normalized => "nElo",
            EloModel::Logistic => "Elo",
        },
        args.alpha,
        args.beta,
        args.max_games,
        args.play.time,
        recorder.seed()
    );
    println!("{}", isolation::banner(&lineup.isolation));
    let mut watcher = SprtWatch::new(args, config, new, base, &recorder);
    // A test already decided by the games in --out plays no more.
    let decided = watcher.status.decision != SprtDecision::Continue;
    let games = prepared.games.take(if decided { 0 } else { usize::MAX });
    let end = lineup.run_games(&args.play, games, &mut recorder, &mut watcher)?;
    Ok(watcher.exit_code(end, recorder.done()))
}

/// The test as games finish: its status after each, a line every ten pairs off a
/// terminal, the verdict at the end.
#[derive(Debug)]
struct SprtWatch {
    config: SprtConfig,
    confidence: Confidence,
    new: String,
    base: String,
    status: SprtStatus,
    max_games: u32,
    quiet: bool,
    last_printed_pairs: u64,
    /// A bot that could not be started: the test says nothing about strength.
    infrastructure: Option<String>,
}

impl SprtWatch {
    fn new(
        args: &SprtArgs,
        config: SprtConfig,
        new: String,
        base: String,
        recorder: &Recorder,
    ) -> SprtWatch {
        SprtWatch {
            status: status_of(&config, &new, &base, recorder.rows()),
            config,
            confidence: Confidence::default(),
            new,
            base,
            max_games: args.max_games,
            quiet: args.quiet,
            last_printed_pairs: 0,
            infrastructure: None,
        }
    }

    fn line(&self) -> String {
        sprt_line(&self.config, &self.status, self.confidence)
    }

    fn exit_code(&self, end: RunEnd, done: u64) -> Code {
        if let Some(problem) = &self.infrastructure {
            eprintln!(
                "error: a bot could not run, so the test says nothing about strength: {problem}"
            );
            return exit_codes::INFRASTRUCTURE;
        }
        if end == RunEnd::Interrupted {
            return exit_codes::INTERRUPTED;
        }
        let (new, base) = (&self.new, &self.base);
        match self.status.decision {
            SprtDecision::AcceptH1 => {
                println!(
                    "H1 accepted: {new} is not weaker than {base} by the test's standard (exit 0)"
                );
                exit_codes::OK
            }
            SprtDecision::AcceptH0 => {
                println!(
                    "H0 accepted: {new} is weaker than hoped against {base} — a regression (exit 1)"
                );
                exit_codes::FAILURE
            }
            SprtDecision::Continue => {
                println!(
                    "Inconclusive after {done} games (exit 3): raise --max-games or widen elo0/elo1"
                );
                exit_codes::INCONCLUSIVE
            }
        }
    }
}

/// The test's status over the games `new` and `base` played in `rows`.
fn status_of(config: &SprtConfig, new: &str, base: &str, rows: &[GameRow]) -> SprtStatus {
    let games: Vec<_> = rows.iter().filter_map(|r| to_result(r, 0).ok()).collect();
    config.status(&head_to_head(&games, new, base).pentanomial)
}

impl Watcher for SprtWatch {
    fn bar(&self, recorder: &Recorder) -> ProgressBar {
        games_bar(u64::from(self.max_games), recorder.done(), self.quiet)
    }

    fn game(
        &mut self,
        finished: &Finished,
        _row: &GameRow,
        bar: &ProgressBar,
        recorder: &Recorder,
    ) -> anyhow::Result<Flow> {
        if let Termination::Fault { by, fault } = &finished.record.termination
            && fault.reason() == EndReason::HandshakeFailure
        {
            self.infrastructure = Some(format!("{} {fault}", finished.record.names.get(*by)));
            return Ok(Flow::Stop);
        }
        self.status = status_of(&self.config, &self.new, &self.base, recorder.rows());
        let line = self.line();
        bar.set_message(line.clone());
        let pairs = recorder.done() / 2;
        if bar.is_hidden()
            && !self.quiet
            && pairs >= self.last_printed_pairs + 10
            && self.status.decision == SprtDecision::Continue
        {
            println!("{} games: {line}", recorder.done());
            self.last_printed_pairs = pairs;
        }
        Ok(if self.status.decision == SprtDecision::Continue {
            Flow::Continue
        } else {
            Flow::Stop
        })
    }

    fn complete(&self, end: RunEnd) -> bool {
        end == RunEnd::Complete || self.status.decision != SprtDecision::Continue
    }

    fn summary(&mut self, recorder: &Recorder, _end: RunEnd) -> anyhow::Result<()> {
        println!("{} games: {}", recorder.done(), self.line());
        Ok(())
    }

    fn interrupted(&self, _recorder: &Recorder) -> String {
        "Interrupted: unfinished games were not recorded; run the same command again to resume."
            .into()
    }
}
