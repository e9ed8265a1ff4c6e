//! `arena sprt NEW BASE`: colour-swapped pairs until the GSPRT on pentanomial pair
//! counts accepts H0 or H1 — the strength-regression check for CI. Exit codes (see
//! exit_codes.rs): 0 H1 accepted, 1 H0 accepted, 2 usage, 3 inconclusive at
//! `--max-games`, 4 a bot could not run, 130 interrupted. With `--out`, an interrupted
//! test resumes where it stopped.
//!
//! Across machines the test is played in batches (`--batch K --pairs M`: a slice of
//! the sequential test's schedule, played whole) and decided from their directories
//! (`--decide`, in [`decide`]).

pub mod decide;
pub mod words;

use indicatif::ProgressBar;
use ratings::{Confidence, EloModel, SprtConfig, SprtDecision, SprtStatus, table::sprt_line};
use referee::game::Termination;
use uttt::result::EndReason;

use self::words::{Undecided, decision_sentence, model_word, unit, verdict};
use super::flags;
use super::skeleton::{Fit, GameCommand, Stage, interrupted, overloaded, play, summary_for};
use crate::cli::{SprtArgs, SprtModel};
use crate::exit_codes::{self, Code, UsageError};
use crate::results::manifest::SprtBatchEntry;
use crate::results::recorder::Recorder;
use crate::results::standings::Scoreboard;
use crate::results::store::GameRow;
use crate::results::summary::Summary;
use crate::terminal::progress::games_bar;
use crate::tournament::prepare::Remaining;
use crate::tournament::run::Watcher;
use crate::tournament::runner::{Finished, Flow, RunEnd};
use crate::tournament::schedule::ScheduledGame;
use crate::tournament::settings::input::FormatKind;

/// Runs `arena sprt`.
///
/// # Errors
/// A [`UsageError`], writing results failed, or the runtime failed.
pub fn run(args: &SprtArgs) -> anyhow::Result<Code> {
    if !args.decide.is_empty() {
        return Ok(decide::run(&args.decide, args.play.json));
    }
    let (Some(new), Some(base)) = (&args.new, &args.base) else {
        return Err(UsageError::of(
            "name the new version and the baseline: arena sprt NEW BASE",
        ));
    };
    let model = config_model(args.model);
    let config = SprtConfig::new(args.elo0, args.elo1, args.alpha, args.beta, model)
        .map_err(|e| UsageError::of(e.to_string()))?;
    if args.play.json {
        crate::stdout::words_to_stderr();
    }
    let games = args.max_games + args.max_games % 2;
    let bots = [new.as_str(), base.as_str()];
    let input = flags::input("sprt", &bots, (FormatKind::RoundRobin, games), &args.play)?;
    let (settings, isolation) = flags::settings(input)?;
    let batch = batch_entry(args, model);
    let stage = Stage {
        batch: batch.clone(),
        ..flags::stage(&settings, &isolation, &args.play)
    };
    let [new, base] = [0, 1].map(|i| settings.entrants[i].spec.name.clone());
    play(&stage, |recorder| SprtWatch {
        status: status_of(&config, &new, &base, recorder.scoreboard()),
        config,
        confidence: Confidence::default(),
        new,
        base,
        max_games: args.max_games,
        quiet: args.quiet,
        last_printed_pairs: 0,
        infrastructure: None,
        batch: args
            .batch
            .map(|k| (k, args.play.out.iter().cloned().collect())),
        batch_entry: batch,
        move_time: settings.time.move_time.map_or(0, |d| d.as_millis()),
        fit: Fit::default(),
    })
}

/// The batch `--batch K --pairs M` asks for, with the test it belongs to.
fn batch_entry(args: &SprtArgs, model: EloModel) -> Option<SprtBatchEntry> {
    args.batch
        .zip(args.pairs)
        .map(|(index, pairs)| SprtBatchEntry {
            index,
            pairs,
            elo0: args.elo0,
            elo1: args.elo1,
            alpha: args.alpha,
            beta: args.beta,
            model: model_word(model).into(),
        })
}

/// The model of `--model`.
fn config_model(model: SprtModel) -> EloModel {
    match model {
        SprtModel::Normalized => EloModel::Normalized,
        SprtModel::Logistic => EloModel::Logistic,
    }
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
    /// The batch this run plays, when it plays one: it never stops early.
    batch: Option<(u32, Vec<std::path::PathBuf>)>,
    /// The same batch as tournament.json records it.
    batch_entry: Option<SprtBatchEntry>,
    /// Milliseconds per move, for the banner.
    move_time: u128,
    fit: Fit,
}

impl GameCommand for SprtWatch {
    const NAME: &'static str = "sprt";

    /// The line that says what is tested, and how.
    fn banner(&self, recorder: &Recorder) {
        let (new, base, config) = (&self.new, &self.base, &self.config);
        let part = self.batch_entry.as_ref().map_or(String::new(), |b| {
            format!(", batch {} ({} pairs)", b.index, b.pairs)
        });
        crate::say!(
            "SPRT {new} vs {base}{part}: H0 {} vs H1 {} {}, alpha {}, beta {}, at most {} games, {} ms per move, seed {}",
            config.elo0(),
            config.elo1(),
            unit(config.model()),
            config.alpha(),
            config.beta(),
            self.max_games,
            self.move_time,
            recorder.seed()
        );
    }

    /// A test already decided by the games in --out plays no more; a batch is
    /// played whole, whatever its own games say (the test is decided over all
    /// batches).
    fn games(
        &mut self,
        remaining: Remaining,
        _recorder: &Recorder,
        _more: bool,
    ) -> anyhow::Result<Box<dyn Iterator<Item = ScheduledGame>>> {
        let decided = self.batch.is_none() && self.status.decision != SprtDecision::Continue;
        Ok(Box::new(remaining.take(if decided {
            0
        } else {
            usize::MAX
        })))
    }

    /// summary.json of the run: the test's verdict, or a batch that decides
    /// nothing.
    fn conclusion(&mut self, end: RunEnd, recorder: &Recorder) -> anyhow::Result<Summary> {
        let code = self.exit_code(end, recorder);
        let (new, base) = (self.new.as_str(), self.base.as_str());
        let mut summary = summary_for(Self::NAME, recorder, &self.fit, Some((new, base)), code)?;
        if let Some(b) = &self.batch_entry {
            // A batch decides nothing: the test is decided over all batches (--decide).
            if code == exit_codes::OK {
                summary.exit_reason = format!("batch {} complete", b.index);
            }
            return Ok(summary);
        }
        if code == exit_codes::OVERLOADED {
            summary.exit_reason = exit_codes::meaning(code).to_string();
        } else if code == exit_codes::OK
            || code == exit_codes::FAILURE
            || code == exit_codes::INCONCLUSIVE
        {
            summary.exit_reason =
                decision_sentence(self.status.decision, new, base, summary.games_played)
                    .unwrap_or_else(|| "inconclusive: no decision within --max-games".to_string());
        }
        let undecided = if code == exit_codes::INCONCLUSIVE {
            Undecided::OutOfGames
        } else {
            Undecided::MoreGamesMayDecide
        };
        summary.sprt = Some(verdict(&self.config, &self.status, undecided));
        Ok(summary)
    }
}

impl SprtWatch {
    fn line(&self) -> String {
        sprt_line(&self.config, &self.status, self.confidence)
    }

    fn exit_code(&self, end: RunEnd, recorder: &Recorder) -> Code {
        let done = recorder.done();
        if let Some(problem) = &self.infrastructure {
            eprintln!(
                "error: a bot could not run, so the test says nothing about strength: {problem}"
            );
            return exit_codes::INFRASTRUCTURE;
        }
        if let RunEnd::Interrupted(why) = end {
            return interrupted(why);
        }
        if let Some((k, out)) = &self.batch {
            let dirs: Vec<String> = out.iter().map(|d| d.display().to_string()).collect();
            crate::say!(
                "Batch {k} complete ({done} games). Decide the test over every batch played so far: \
                 arena sprt --decide {} (and the other batches' directories)",
                dirs.join(" ")
            );
            return exit_codes::OK;
        }
        if let Some(code) = overloaded(recorder) {
            return code;
        }
        let (new, base) = (&self.new, &self.base);
        if let Some(sentence) = decision_sentence(self.status.decision, new, base, done) {
            crate::say!("{sentence}");
        }
        match self.status.decision {
            SprtDecision::AcceptH1 => exit_codes::OK,
            SprtDecision::AcceptH0 => exit_codes::FAILURE,
            SprtDecision::Continue => {
                crate::say!(
                    "Inconclusive after {done} games (exit 3): raise --max-games or widen elo0/elo1"
                );
                exit_codes::INCONCLUSIVE
            }
        }
    }
}

/// The test's status over the games `new` and `base` played so far.
fn status_of(config: &SprtConfig, new: &str, base: &str, board: &Scoreboard) -> SprtStatus {
    config.status(&board.totals().pairing(new, base).pentanomial)
}

impl Watcher for SprtWatch {
    fn bar(&self, recorder: &Recorder) -> ProgressBar {
        let total = if self.batch.is_some() {
            recorder.total()
        } else {
            u64::from(self.max_games)
        };
        games_bar(total, recorder.done(), self.quiet)
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
        self.status = status_of(&self.config, &self.new, &self.base, recorder.scoreboard());
        let line = self.line();
        bar.set_message(line.clone());
        let pairs = recorder.done() / 2;
        if bar.is_hidden()
            && !self.quiet
            && pairs >= self.last_printed_pairs + 10
            && self.status.decision == SprtDecision::Continue
        {
            crate::say!("{} games: {line}", recorder.done());
            self.last_printed_pairs = pairs;
        }
        Ok(
            if self.status.decision == SprtDecision::Continue || self.batch.is_some() {
                Flow::Continue
            } else {
                Flow::Stop
            },
        )
    }

    fn complete(&self, end: RunEnd) -> bool {
        end == RunEnd::Complete
            || (self.batch.is_none() && self.status.decision != SprtDecision::Continue)
    }

    fn summary(&mut self, recorder: &Recorder, _end: RunEnd) -> anyhow::Result<()> {
        crate::say!("{} games: {}", recorder.done(), self.line());
        Ok(())
    }
}
