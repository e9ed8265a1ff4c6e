//! `arena sprt NEW BASE`: colour-swapped pairs until the GSPRT on pentanomial pair
//! counts accepts H0 or H1 — the strength-regression check for CI. Exit codes (see
//! exit_codes.rs): 0 H1 accepted, 1 H0 accepted, 2 usage, 3 inconclusive at
//! `--max-games`, 4 a bot could not run, 130 interrupted. With `--out`, an interrupted
//! test resumes where it stopped.
//!
//! Across machines the test is played in batches (`--batch K --pairs M`: a slice of
//! the sequential test's schedule, played whole) and decided from their directories
//! (`--decide`, in `sprt_decide`).

use indicatif::ProgressBar;
use ratings::{Confidence, EloModel, SprtConfig, SprtDecision, SprtStatus, table::sprt_line};
use referee::game::Termination;
use uttt::result::EndReason;

use super::{refused, sprt_decide, usage};
use crate::cli::{SprtArgs, SprtModel};
use crate::exit_codes::{self, Code};
use crate::results::manifest::SprtBatchEntry;
use crate::results::recorder::Recorder;
use crate::results::standings::Scoreboard;
use crate::results::store::GameRow;
use crate::results::summary::{SprtVerdict, Summary};
use crate::terminal::progress::games_bar;
use crate::tournament::isolation;
use crate::tournament::prepare::prepare_command_line_batch;
use crate::tournament::run::Watcher;
use crate::tournament::runner::{Finished, Flow, RunEnd};
use crate::tournament::schedule::Format;

/// Runs `arena sprt`.
///
/// # Errors
/// Writing results failed, or the runtime failed.
pub fn run(args: &SprtArgs) -> anyhow::Result<Code> {
    if !args.decide.is_empty() {
        return Ok(sprt_decide::run(&args.decide, args.play.json));
    }
    let (Some(new), Some(base)) = (&args.new, &args.base) else {
        return Ok(usage(
            "name the new version and the baseline: arena sprt NEW BASE",
        ));
    };
    let model = config_model(args.model);
    let config = match SprtConfig::new(args.elo0, args.elo1, args.alpha, args.beta, model) {
        Ok(c) => c,
        Err(e) => return Ok(usage(&e.to_string())),
    };
    let json = args.play.json;
    if json {
        crate::stdout::words_to_stderr();
    }
    let specs = [new.as_str(), base.as_str()];
    let games = args.max_games + args.max_games % 2;
    let batch = batch_entry(args, model);
    let format = Format::RoundRobin;
    let (lineup, prepared) = match prepare_command_line_batch(
        "sprt",
        &specs,
        &args.play,
        format,
        games,
        batch.clone(),
    ) {
        Ok(started) => started,
        Err(e) => return refused(e),
    };
    let mut recorder = prepared.recorder;
    if let Err(e) =
        super::serve_cmd::beside_run(args.play.serve, args.play.show_logs, recorder.out())
    {
        return Ok(super::usage(&format!("{e:#}")));
    }
    let [new, base] = [0, 1].map(|i| lineup.entrants[i].spec.name.clone());
    announce(args, &config, &new, &base, batch.as_ref(), recorder.seed());
    crate::say!("{}", isolation::banner(&lineup.isolation));
    let mut watcher = SprtWatch::new(args, config, new, base, &recorder);
    // A test already decided by the games in --out plays no more; a batch is played
    // whole, whatever its own games say (the test is decided over all batches).
    let decided = watcher.batch.is_none() && watcher.status.decision != SprtDecision::Continue;
    let games = prepared.games.take(if decided { 0 } else { usize::MAX });
    let end = match lineup.run_games(&args.play, games, &mut recorder, &mut watcher) {
        Ok(end) => end,
        Err(e) => return super::failed_run("sprt", e, &recorder, json),
    };
    let code = watcher.exit_code(end, recorder.done());
    let summary = summary(&watcher, batch.as_ref(), code, &recorder)?;
    super::conclude(&summary, &recorder, json)
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

/// The line that says what is tested, and how.
fn announce(
    args: &SprtArgs,
    config: &SprtConfig,
    new: &str,
    base: &str,
    batch: Option<&SprtBatchEntry>,
    seed: u64,
) {
    let part = batch.map_or(String::new(), |b| {
        format!(", batch {} ({} pairs)", b.index, b.pairs)
    });
    crate::say!(
        "SPRT {new} vs {base}{part}: H0 {} vs H1 {} {}, alpha {}, beta {}, at most {} games, {} ms per move, seed {seed}",
        config.elo0(),
        config.elo1(),
        unit(config.model()),
        config.alpha(),
        config.beta(),
        args.max_games,
        args.play.time,
    );
}

/// The unit of elo0 and elo1 in words.
pub fn unit(model: EloModel) -> &'static str {
    match model {
        EloModel::Normalized => "nElo",
        EloModel::Logistic => "Elo",
    }
}

/// summary.json of the run: the test's verdict, or a batch that decides nothing.
///
/// # Errors
/// The games could not be rated.
fn summary(
    watcher: &SprtWatch,
    batch: Option<&SprtBatchEntry>,
    code: Code,
    recorder: &Recorder,
) -> anyhow::Result<Summary> {
    let (new, base) = (watcher.new.as_str(), watcher.base.as_str());
    let mut summary = super::summary_for("sprt", recorder, Some((new, base)), code)?;
    let status = &watcher.status;
    if let Some(b) = batch {
        // A batch decides nothing: the test is decided over all batches (--decide).
        if code == exit_codes::OK {
            summary.exit_reason = format!("batch {} complete", b.index);
        }
        return Ok(summary);
    }
    if code == exit_codes::OK || code == exit_codes::FAILURE || code == exit_codes::INCONCLUSIVE {
        summary.exit_reason = decision_sentence(status.decision, new, base, summary.games_played)
            .unwrap_or_else(|| "inconclusive: no decision within --max-games".to_string());
    }
    summary.sprt = Some(verdict(&watcher.config, status));
    Ok(summary)
}

/// A decided test in words — the one wording of the terminal, summary.json and
/// `arena sprt --decide`: "H0 accepted after 120 games: new is weaker than hoped
/// against base — a regression (exit 1)". `None` while undecided.
pub fn decision_sentence(
    decision: SprtDecision,
    new: &str,
    base: &str,
    games: u64,
) -> Option<String> {
    match decision {
        SprtDecision::AcceptH1 => Some(format!(
            "H1 accepted after {games} games: {new} is not weaker than {base} by the test's standard (exit 0)"
        )),
        SprtDecision::AcceptH0 => Some(format!(
            "H0 accepted after {games} games: {new} is weaker than hoped against {base} — a regression (exit 1)"
        )),
        SprtDecision::Continue => None,
    }
}

/// The test's state as summary.json says it.
pub fn verdict(config: &SprtConfig, status: &SprtStatus) -> SprtVerdict {
    SprtVerdict {
        decision: decision_word(status.decision).to_string(),
        llr: status.llr,
        lower_bound: status.bounds.lower,
        upper_bound: status.bounds.upper,
        elo0: config.elo0(),
        elo1: config.elo1(),
        alpha: config.alpha(),
        beta: config.beta(),
        model: model_word(config.model()).to_string(),
    }
}

/// The model of `--model`.
fn config_model(model: SprtModel) -> EloModel {
    match model {
        SprtModel::Normalized => EloModel::Normalized,
        SprtModel::Logistic => EloModel::Logistic,
    }
}

/// The model as `tournament.json` records it.
fn model_word(model: EloModel) -> &'static str {
    match model {
        EloModel::Normalized => "normalized",
        EloModel::Logistic => "logistic",
    }
}

/// A decision as summary.json says it.
pub fn decision_word(decision: SprtDecision) -> &'static str {
    match decision {
        SprtDecision::AcceptH0 => "H0",
        SprtDecision::AcceptH1 => "H1",
        SprtDecision::Continue => "continue",
    }
}

/// The model a batch's `tournament.json` names, if it names one.
pub fn model_of_word(word: &str) -> Option<EloModel> {
    [EloModel::Normalized, EloModel::Logistic]
        .into_iter()
        .find(|&m| model_word(m) == word)
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
        if let RunEnd::Interrupted(why) = end {
            return super::interrupted(why);
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
