//! One module per subcommand, each thin: arguments → a call into `tournament`,
//! `results`, `report` or `terminal` → an exit code. What two commands share
//! lives in those modules, not here; nothing imports the commands but `lib.rs`.

pub mod bench;
pub mod bot;
pub mod check;
pub mod doctor;
pub mod gauntlet;
pub mod match_cmd;
pub mod perft;
pub mod play;
pub mod rate;
pub mod ratings_cmd;
pub mod replay_cmd;
pub mod report_cmd;
pub mod sprt;
pub mod tournament_cmd;

use crate::exit_codes::{self, Code};
use crate::tournament::prepare::StartError;
use crate::tournament::runner::RunEnd;

/// Prints a usage error and returns its exit code (nothing was played).
pub fn usage(message: &str) -> Code {
    eprintln!("error: {message}");
    exit_codes::USAGE
}

/// The exit code of a run whose result is its games (`match`, `tournament`): 0,
/// or 130 when interrupted.
pub fn played(end: RunEnd) -> Code {
    match end {
        RunEnd::Complete | RunEnd::Stopped => exit_codes::OK,
        RunEnd::Interrupted => exit_codes::INTERRUPTED,
    }
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
