//! `arena bot NAME [OPTIONS]`: serve a reference bot on stdin/stdout, so a
//! tournament can name `arena bot mcts` as a bot command with no paths to set up.
//! The bots themselves live in the `bots` crate; this only maps results to exit
//! codes.

use crate::cli::BotArgs;
use crate::exit_codes::{self, Code, UsageError};

/// Runs `arena bot`.
///
/// # Errors
/// Reading from or writing to the referee failed.
pub fn run(args: &BotArgs) -> anyhow::Result<Code> {
    match bots::cli_main(&args.name, &args.args) {
        Ok(()) => Ok(exit_codes::OK),
        Err(error) if error.is_usage() => Err(UsageError::of(error.to_string())),
        Err(error) => Err(error.into()),
    }
}
