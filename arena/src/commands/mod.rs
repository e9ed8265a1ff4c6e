//! One module per subcommand, each thin: arguments → a call into `tournament`,
//! `results`, `report` or `terminal` → an exit code. What two commands share
//! lives in those modules, not here; nothing imports the commands but `lib.rs`.

pub mod bench;
pub mod bot;
pub mod check;
pub mod check_all;
pub mod doctor;
pub mod gauntlet;
pub mod match_cmd;
pub mod perft;
pub mod play;
pub mod rate;
pub mod ratings_cmd;
pub mod replay_cmd;
pub mod report_cmd;
pub mod serve_cmd;
pub mod sprt;
pub mod sprt_decide;
pub mod tournament_cmd;

use crate::exit_codes::{self, Code};
use crate::tournament::prepare::StartError;

use crate::results::recorder::Recorder;
use crate::results::summary::{BrokenBot, Summary};
use crate::tournament::preflight::BotsBroken;
use crate::tournament::runner::{Interruption, RunEnd};

/// Prints a usage error and returns its exit code (nothing was played).
pub fn usage(message: &str) -> Code {
    eprintln!("error: {message}");
    exit_codes::USAGE
}

/// The exit code of a run whose result is its games (`match`, `tournament`): 0,
/// 4 when a bot could not start in some game, or the code of an interruption.
pub fn played(end: RunEnd, recorder: &Recorder) -> Code {
    match end {
        RunEnd::Interrupted(why) => interrupted(why),
        RunEnd::Complete | RunEnd::Stopped => bots_started(recorder).unwrap_or(exit_codes::OK),
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

/// The exit of a run that could not start: the user's to fix (printed, exit 2),
/// or a failure for `main` to report.
///
/// # Errors
/// The [`StartError::Failed`] error.
pub fn refused(error: StartError) -> anyhow::Result<Code> {
    match error {
        StartError::Usage(message) => Ok(usage(&message)),
        StartError::Failed(error) => Err(error),
    }
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
    if json {
        crate::stdout::write_data(&summary.to_json()?);
    }
    Ok(Code(summary.exit_code))
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

/// A summary whose reason is the code's meaning.
///
/// # Errors
/// The games could not be rated.
pub fn summary_for(
    command: &str,
    recorder: &Recorder,
    pair: Option<(&str, &str)>,
    code: Code,
) -> anyhow::Result<Summary> {
    Summary::of(
        command,
        recorder,
        pair,
        code.0,
        exit_codes::meaning(code).to_string(),
    )
}
