//! The one skeleton of the commands that play games (`match`, `gauntlet`,
//! `sprt`, `tournament`, `rate`): bind the run to its results directory (or
//! refuse), serve the live page beside it, say the banner, play the games with
//! the command's watcher, and conclude with summary.json and the exit code. A
//! command brings its settings, its banner, its watcher and its verdict
//! ([`GameCommand`]); the order of the steps and what happens when one fails are
//! the same for all.
//!
//! A Swiss or knockout is played a round at a time: each prepare draws the next
//! round from the results so far, so an interrupted run resumes the same way;
//! the banner and the preflight come once, before the first round.

use std::cell::RefCell;
use std::net::SocketAddr;
use std::path::Path;
use std::rc::Rc;

use ratings::Analysis;

use crate::exit_codes::{self, Code, UsageError};
use crate::results::manifest::{IsolationReport, SprtBatchEntry};
use crate::results::recorder::Recorder;
use crate::results::standings::Scoreboard;
use crate::results::summary::{BrokenBot, Summary};
use crate::terminal::width::{columns, wrap};
use crate::tournament::preflight::BotsBroken;
use crate::tournament::prepare::{Prepared, Remaining, RunSpec, StartError, prepare, run_options};
use crate::tournament::run::{Watcher, run_games};
use crate::tournament::runner::{Interruption, RunEnd};
use crate::tournament::schedule::{ScheduledGame, Shard};
use crate::tournament::settings::RunSettings;

/// The ratings fit of a run's games, made once for the words at the end and
/// summary.json (a command keeps one), and again only if more games were
/// recorded since (a round of a Swiss).
#[derive(Debug, Default)]
pub struct Fit(RefCell<Option<(u64, Rc<Analysis>)>>);

impl Fit {
    /// The fit of the games on `board` (`None` without games).
    ///
    /// # Errors
    /// The games could not be rated.
    pub fn of(&self, board: &Scoreboard) -> anyhow::Result<Option<Rc<Analysis>>> {
        if board.is_empty() {
            return Ok(None);
        }
        let games = board.games();
        if let Some((fitted, fit)) = &*self.0.borrow()
            && *fitted == games
        {
            return Ok(Some(fit.clone()));
        }
        let fit = Rc::new(board.analysis(&ratings::FitOptions::default())?);
        *self.0.borrow_mut() = Some((games, fit.clone()));
        Ok(Some(fit))
    }
}

/// What a game-playing command adds to the skeleton, besides its watcher.
pub trait GameCommand: Watcher {
    /// The command's word in summary.json.
    const NAME: &'static str;

    /// The lines before the first game, the isolation's line after them.
    fn banner(&self, recorder: &Recorder);

    /// The games to play of those left (all by default); `more`: whether another
    /// round will be drawn after them.
    ///
    /// # Errors
    /// The games cannot be made.
    fn games(
        &mut self,
        remaining: Remaining,
        _recorder: &Recorder,
        _more: bool,
    ) -> anyhow::Result<Box<dyn Iterator<Item = ScheduledGame>>> {
        Ok(Box::new(remaining))
    }

    /// A run that failed: by default, summary.json says so (broken bots) and the
    /// error goes on; a command may make a result of it instead.
    ///
    /// # Errors
    /// `error`, when the command makes nothing of it.
    fn failed(&mut self, error: anyhow::Error) -> anyhow::Result<RunEnd> {
        Err(error)
    }

    /// summary.json, with the exit code, once the games are over (the same
    /// [`Fit`] as the words at the end, when they rate the games).
    ///
    /// # Errors
    /// The games could not be rated.
    fn conclusion(&mut self, end: RunEnd, recorder: &Recorder) -> anyhow::Result<Summary>;
}

/// Where and how a run is played, besides its settings.
#[derive(Debug)]
pub struct Stage<'a> {
    /// The settings.
    pub settings: &'a RunSettings,
    /// The isolation the bots were planned under.
    pub isolation: &'a IsolationReport,
    /// The results directory, if any.
    pub out: Option<&'a Path>,
    /// Games at once.
    pub concurrency: usize,
    /// A shard of a fixed schedule.
    pub shard: Option<Shard>,
    /// A batch of an SPRT.
    pub batch: Option<SprtBatchEntry>,
    /// Resume into a directory that holds another run.
    pub force: bool,
    /// Start every bot once before the first game.
    pub preflight: bool,
    /// `--serve`: the live page's address, and whether it shows the logs.
    pub serve: Option<(SocketAddr, bool)>,
    /// `--json`: summary.json's object on standard output.
    pub json: bool,
}

/// Plays the run of `stage` with the command `make` builds once the results
/// directory is bound (its earlier games read), and concludes it.
///
/// # Errors
/// Results could not be written, or the runtime failed.
pub fn play<C: GameCommand>(
    stage: &Stage<'_>,
    make: impl FnOnce(&Recorder) -> C,
) -> anyhow::Result<Code> {
    let settings = stage.settings;
    let first_round = bind(stage)?;
    if let Some((addr, show_logs)) = stage.serve {
        super::serve_cmd::beside_run(Some(addr), show_logs, first_round.recorder.out())
            .map_err(|e| UsageError::of(format!("{e:#}")))?;
    }
    let mut command = make(&first_round.recorder);
    command.banner(&first_round.recorder);
    if let Some(note) = &settings.rules_note {
        crate::say!("{note}");
    }
    crate::say!("{}", crate::tournament::isolation::banner(stage.isolation));
    let clock = format!(
        "clock: {}",
        referee::bot::charge::ClockSupport::detect().words(settings.time.clock_mode)
    );
    crate::say!("{}", wrap(&clock, columns(), "  "));
    let mut next = Some(first_round);
    let mut first = true;
    loop {
        let round = match next.take() {
            Some(round) => round,
            None => bind(stage)?,
        };
        let mut recorder = round.recorder;
        let games = command.games(round.games, &recorder, round.more)?;
        // Every bot is started once before the first game of the run (not again
        // before each round of a Swiss or knockout).
        let options = run_options(
            settings,
            stage.concurrency,
            stage.out,
            first && stage.preflight,
        );
        first = false;
        let played = run_games(
            &settings.entrants,
            options,
            games,
            &mut recorder,
            &mut command,
        );
        let end = match played.or_else(|e| command.failed(e)) {
            Ok(end) => end,
            Err(e) => return failed_run(C::NAME, e, &recorder, stage.json),
        };
        if end != RunEnd::Complete || !round.more {
            let summary = command.conclusion(end, &recorder)?;
            return conclude(&summary, &recorder, stage.json);
        }
    }
}

/// The run of `stage` bound to its results directory: its games left to play
/// (of the next round, for a Swiss or knockout) and their recorder.
///
/// # Errors
/// A [`UsageError`] (another run's directory, a bad row, a schedule too large),
/// or reading or writing the directory failed.
fn bind(stage: &Stage<'_>) -> anyhow::Result<Prepared> {
    let spec = RunSpec {
        out: stage.out,
        shard: stage.shard,
        batch: stage.batch.clone(),
        force: stage.force,
        ..RunSpec::of(stage.settings, stage.concurrency, stage.isolation)
    };
    prepare(spec).map_err(|e| match e {
        StartError::Usage(message) => UsageError::of(message),
        StartError::Failed(error) => error,
    })
}

/// The exit code of a run whose result is its games (`match`, `tournament`): 0,
/// 4 when a bot could not start in some game, or the code of an interruption.
pub fn played(end: RunEnd, recorder: &Recorder) -> Code {
    match end {
        RunEnd::Interrupted(why) => interrupted(why),
        RunEnd::Complete | RunEnd::Stopped => bots_started(recorder).unwrap_or(exit_codes::OK),
    }
}

/// The builds' outcome as a command goes on with it: their lines said, and
/// the bots' isolation and versions; a refusal as a usage error (exit 2); an
/// interruption said and returned as its exit code, nothing having been played.
///
/// # Errors
/// A [`UsageError`] when a bot was refused.
pub fn builds_done(
    result: Result<crate::tournament::build::Ready, crate::tournament::build::NotReady>,
) -> anyhow::Result<Result<crate::tournament::build::Ready, Code>> {
    use crate::tournament::build::NotReady;
    match result {
        Ok(ready) => {
            ready.lines.iter().for_each(|l| crate::say!("{l}"));
            Ok(Ok(ready))
        }
        Err(NotReady::Refused(message)) => Err(UsageError::of(message)),
        Err(NotReady::Interrupted(why)) => {
            eprintln!("{} during the builds: nothing was played.", why.describe());
            Ok(Err(interrupted(why)))
        }
    }
}

/// The exit code of an interruption: 130 for Ctrl-C, 143 for SIGTERM, 129 for
/// SIGHUP, 141 for a closed standard output.
pub const fn interrupted(why: Interruption) -> Code {
    match why {
        Interruption::Interrupt => exit_codes::INTERRUPTED,
        Interruption::Terminate => exit_codes::TERMINATED,
        Interruption::HangUp => exit_codes::HANGUP,
        Interruption::ClosedOutput => exit_codes::CLOSED_OUTPUT,
    }
}

/// Exit 4, said on stderr, when a bot could not be started or failed its handshake
/// in any game of the run: its games were not played, whatever the score says.
pub fn bots_started(recorder: &Recorder) -> Option<Code> {
    let board = recorder.scoreboard();
    let (failed, id, detail) = board.start_failures()?;
    eprintln!(
        "error: in {failed} of {} games a bot could not be started or failed its handshake, so \
         the results do not measure the bots (exit 4); first: {id} {detail}",
        board.games(),
    );
    Some(exit_codes::INFRASTRUCTURE)
}

/// Exit 5, said with why and the fix, when a game a verdict would rest on gave
/// a bot that plays by the clock less than its share of the CPU (see
/// `tournament::governor`): the verdict would measure the machine's load.
pub fn overloaded(recorder: &Recorder) -> Option<Code> {
    let games = recorder.under_served();
    if games == 0 {
        return None;
    }
    let raised = recorder.governor().is_some_and(|g| g.priority_raised);
    let fix = if raised {
        "stop other work on this machine, or play at fixed work (--nodes)"
    } else {
        "run the arena as root (the governor then gives the bots priority over other programs), stop other work on this machine, or play at fixed work (--nodes)"
    };
    eprintln!(
        "inconclusive: the machine was overloaded: in {games} game{} a bot that plays by the clock got less than {:.0}% of the CPU it asked for (games.csv's x_cpu_share and o_cpu_share), so no verdict is stated (exit 5): {fix}",
        if games == 1 { "" } else { "s" },
        100.0 * crate::results::machine_load::MIN_SHARE
    );
    Some(exit_codes::OVERLOADED)
}

/// The end of a run: `summary.json` in its results directory, the same object on
/// standard output with `--json`, and its exit code.
///
/// # Errors
/// summary.json could not be written.
pub fn conclude(summary: &Summary, recorder: &Recorder, json: bool) -> anyhow::Result<Code> {
    if let Some(dir) = recorder.out() {
        summary.write(dir)?;
    }
    for line in failure_lines(&summary.failures) {
        crate::say!("{line}");
    }
    if let Some(load) = &summary.machine {
        let width = columns();
        crate::say!("{}", wrap(&load.line(), width, "  "));
        if let Some(warning) = load
            .warning(std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get))
        {
            eprintln!("{}", wrap(&warning, width, "  "));
        }
    }
    if json {
        crate::stdout::write_data(&summary.to_json()?);
    }
    Ok(Code(summary.exit_code))
}

/// How many failed games the end of a run lists one by one; the rest are counted
/// (summary.json and the report have them all).
const FAILURES_LISTED: usize = 10;

/// The end of a run's words about its failed games: each with the bot, the reason
/// and the one command that reproduces it.
fn failure_lines(failures: &[crate::results::bundle::Failure]) -> Vec<String> {
    let Some(first) = failures.first() else {
        return Vec::new();
    };
    let mut lines = vec![format!(
        "Failures: {} game{} ended by a bot's fault; each has a bundle (transcript, stderr, \
         seeds, position, command) in {}:",
        failures.len(),
        if failures.len() == 1 { "" } else { "s" },
        first
            .bundle
            .as_deref()
            .and_then(|b| std::path::Path::new(b).parent())
            .map_or_else(|| "failures/".to_string(), |p| format!("{}/", p.display()))
    )];
    for f in failures.iter().take(FAILURES_LISTED) {
        let detail: String = f.detail.chars().take(100).collect();
        let cut = if detail.len() < f.detail.len() {
            "…"
        } else {
            ""
        };
        lines.push(format!(
            "  {} {} {}: {detail}{cut}",
            f.game, f.bot, f.reason
        ));
        lines.push(format!("    {}", f.reproduce));
    }
    if failures.len() > FAILURES_LISTED {
        lines.push(format!(
            "  … and {} more (summary.json lists them all)",
            failures.len() - FAILURES_LISTED
        ));
    }
    lines
}

/// A run that failed before or during its games: when the preflight found broken
/// bots, `summary.json` says so (exit 4) before `main` prints the error.
///
/// # Errors
/// `error`, always (or writing summary.json failed).
pub fn failed_run(
    command: &str,
    error: anyhow::Error,
    recorder: &Recorder,
    json: bool,
) -> anyhow::Result<Code> {
    if let Some(broken) = error.downcast_ref::<BotsBroken>() {
        let code = exit_codes::INFRASTRUCTURE;
        let mut summary = Summary::of(
            command,
            recorder,
            None,
            code.0,
            exit_codes::meaning(code).to_string(),
        )?;
        summary.broken_bots = broken
            .0
            .iter()
            .map(|b| BrokenBot {
                name: b.name.clone(),
                problem: b.problem.clone(),
            })
            .collect();
        conclude(&summary, recorder, json)?;
    }
    Err(error)
}

/// A summary whose reason is the code's meaning, rated with `fit` (made now,
/// if the words at the end did not need it).
///
/// # Errors
/// The games could not be rated.
pub fn summary_for(
    command: &str,
    recorder: &Recorder,
    fit: &Fit,
    pair: Option<(&str, &str)>,
    code: Code,
) -> anyhow::Result<Summary> {
    Ok(Summary::with_fit(
        command,
        recorder,
        fit.of(recorder.scoreboard())?.as_deref(),
        pair,
        code.0,
        exit_codes::meaning(code).to_string(),
    ))
}
