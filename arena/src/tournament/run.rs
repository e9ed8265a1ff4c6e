//! A run, from the first game to the last word: [`run_games`] is the one place
//! where `match`, `gauntlet`, `sprt` and `tournament` play their games. It starts
//! the async runtime, plays the schedule through [`super::runner`],
//! saves each finished game with the [`Recorder`] before anything reports it,
//! stops on Ctrl-C, updates `tournament.json` at the end and says how to resume
//! an interrupted run.
//!
//! What differs between the commands — the lines printed per game, a progress
//! bar, when to stop early, the summary — is a [`Watcher`]. A new way of running
//! games (another format, a live view) is a new watcher, not a new loop.

use anyhow::Context as _;
use indicatif::ProgressBar;

use std::path::Path;

use super::entrant::Entrant;
use super::governor::Event;
use super::preflight::{self, BotsBroken};
use super::runner::{self, Finished, Flow, Interruption, RunEnd, RunOptions};
use super::schedule::ScheduledGame;
use crate::cores::Cores;
use crate::results::governor_file::GovernorStatus;
use crate::results::recorder::Recorder;
use crate::results::store::GameRow;

/// What a command adds to a run.
pub trait Watcher {
    /// The progress bar the run advances by one per finished game (hidden by
    /// default).
    fn bar(&self, _recorder: &Recorder) -> ProgressBar {
        ProgressBar::hidden()
    }

    /// A game finished and was saved as `row`; `recorder` holds the standings of
    /// every game so far (its scoreboard), not the rows. Called once per game: what
    /// it does must not grow with the games already played (a million-game run
    /// calls it a million times). Returns whether to go on.
    ///
    /// # Errors
    /// Anything that should stop the run as a failure.
    fn game(
        &mut self,
        finished: &Finished,
        row: &GameRow,
        bar: &ProgressBar,
        recorder: &Recorder,
    ) -> anyhow::Result<Flow>;

    /// Whether the run measured everything it set out to (`tournament.json` then
    /// gets its end time): by default, when every game was played.
    fn complete(&self, end: RunEnd) -> bool {
        end == RunEnd::Complete
    }

    /// What the command prints once the games are over and saved, before an
    /// interruption is reported.
    ///
    /// # Errors
    /// Printing or writing the standings failed.
    fn summary(&mut self, _recorder: &Recorder, _end: RunEnd) -> anyhow::Result<()> {
        Ok(())
    }

    /// The message of an interrupted run (on stderr): by default, what stopped it,
    /// what was kept and the command that resumes it.
    fn interrupted(&self, recorder: &Recorder, why: Interruption) -> String {
        let mut text = format!(
            "{} after {} of {} games; running games were abandoned, finished ones kept.",
            why.describe(),
            recorder.done(),
            recorder.total()
        );
        if let Some(out) = recorder.out() {
            text.push_str(&format!(
                " To resume, run the same command again:\n  {}",
                resume_command_into(Some(out))
            ));
        }
        text
    }
}

/// Plays `games` between `entrants` (taken one at a time, as slots free up),
/// records every finished game with `recorder`, and tells `watcher` about it.
/// Stops on Ctrl-C (running games are abandoned, not recorded) or when the
/// watcher says so.
///
/// # Errors
/// The runtime could not start, a game could not be set up, or a result could not
/// be written (running games are then abandoned and every bot is killed).
pub fn run_games(
    entrants: &[Entrant],
    options: RunOptions,
    games: impl IntoIterator<Item = ScheduledGame>,
    recorder: &mut Recorder,
    watcher: &mut impl Watcher,
) -> anyhow::Result<RunEnd> {
    if let Some(warning) = runner::oversubscribed(options.concurrency, &Cores::detect()) {
        eprintln!("warning: {warning}");
    }
    let runtime = runner::runtime(options.concurrency).context("starting the async runtime")?;
    let mut games = games.into_iter().peekable();
    let mut interrupt = std::pin::pin!(interruption());
    if options.preflight && games.peek().is_some() {
        let checked = runtime.block_on(preflight_or(
            entrants,
            options.handshake_limit,
            interrupt.as_mut(),
        ));
        match checked {
            Ok(broken) if broken.is_empty() => {}
            Ok(broken) => return Err(BotsBroken(broken).into()),
            Err(why) => {
                eprintln!("{}: no game was played.", why.describe());
                return Ok(RunEnd::Interrupted(why));
            }
        }
    }
    let bar = watcher.bar(recorder);
    let status_dir = options
        .live_dir
        .as_ref()
        .and_then(|d| d.parent())
        .map(Path::to_path_buf);
    let on_finish = |finished: Finished| -> anyhow::Result<Flow> {
        let row = recorder.record(&finished.game.meta, &finished.record)?;
        bar.inc(1);
        watcher.game(&finished, &row, &bar, recorder)
    };
    // What the governor does is said at once (on stderr, above the bar) and
    // shown on the live page.
    let on_governor = |event: &Event, status: GovernorStatus| {
        bar.suspend(|| eprintln!("governor: {event}"));
        if let Some(dir) = &status_dir {
            status.write(dir);
        }
    };
    let end = runtime.block_on(runner::run(
        entrants.to_vec(),
        options,
        games,
        on_finish,
        on_governor,
        interrupt,
    ));
    bar.finish_and_clear();
    let (end, governed) = end?;
    recorder.governed(governed);
    recorder.finish(watcher.complete(end))?;
    watcher.summary(recorder, end)?;
    if let RunEnd::Interrupted(why) = end {
        eprintln!("{}", watcher.interrupted(recorder, why));
    }
    Ok(end)
}

/// Starts every bot of `entrants` once (see [`preflight`]) before a run is
/// bound to its results directory, so that a command can leave out the bots
/// that cannot start: the broken ones, or the interruption that came first.
///
/// # Errors
/// The runtime could not start.
pub fn preflight_now(
    entrants: &[Entrant],
    handshake_limit: std::time::Duration,
) -> anyhow::Result<Result<Vec<preflight::Broken>, Interruption>> {
    let runtime = runner::runtime(1).context("starting the async runtime")?;
    let interrupt = std::pin::pin!(interruption());
    Ok(runtime.block_on(preflight_or(entrants, handshake_limit, interrupt)))
}

/// The preflight of `entrants`, or `interrupt` if it comes first.
async fn preflight_or(
    entrants: &[Entrant],
    handshake_limit: std::time::Duration,
    interrupt: std::pin::Pin<&mut impl std::future::Future<Output = Interruption>>,
) -> Result<Vec<preflight::Broken>, Interruption> {
    let base_dir = std::env::current_dir().unwrap_or_default();
    tokio::select! {
        broken = preflight::check(entrants, handshake_limit, &base_dir) => Ok(broken),
        why = interrupt => Err(why),
    }
}

/// The command that resumes an interrupted run: this process's command line,
/// quoted for a shell, with `--out DIR` added when it has none (a run that chose
/// its own, time-stamped directory resumes only into that one).
pub fn resume_command_into(out: Option<&std::path::Path>) -> String {
    let mut words: Vec<String> = std::env::args().collect();
    if let Some(first) = words.first_mut() {
        *first = "arena".into();
    }
    let has_out = words
        .iter()
        .any(|w| w == "--out" || w == "-o" || w.starts_with("--out="));
    if let (Some(out), false) = (out, has_out) {
        words.push("--out".into());
        words.push(out.display().to_string());
    }
    shlex::try_join(words.iter().map(String::as_str)).unwrap_or_else(|_| words.join(" "))
}

/// What stops a run early: SIGINT, SIGTERM or SIGHUP, or standard output closing
/// (checked every 100 ms; a write that fails marks it, see `crate::stdout`). A
/// signal that cannot be watched is left to its default action.
pub(super) async fn interruption() -> Interruption {
    use tokio::signal::unix::{SignalKind, signal};
    async fn next(kind: SignalKind) {
        match signal(kind) {
            Ok(mut stream) => {
                stream.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    }
    let closed = async {
        let mut tick = tokio::time::interval(std::time::Duration::from_millis(100));
        loop {
            tick.tick().await;
            if crate::stdout::is_closed() {
                return;
            }
        }
    };
    tokio::select! {
        () = next(SignalKind::interrupt()) => Interruption::Interrupt,
        () = next(SignalKind::terminate()) => Interruption::Terminate,
        () = next(SignalKind::hangup()) => Interruption::HangUp,
        () = closed => Interruption::ClosedOutput,
    }
}
