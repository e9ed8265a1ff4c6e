//! The `arena` command line: matches, tournaments, ratings and reports, built on
//! the `referee` library. The binary is a thin `main` over [`run`]; tests drive the
//! real binary.

pub mod cli;
pub mod commands;
pub mod exit_codes;

use exit_codes::Code;

/// Runs one parsed command line and returns the process exit code.
///
/// # Errors
/// Any failure that is not already mapped to a specific exit code; `main` prints
/// it and exits with [`exit_codes::FAILURE`].
pub fn run(cli: cli::Cli) -> anyhow::Result<Code> {
    match cli.command {
        cli::Command::Perft(args) => commands::perft::run(&args),
        cli::Command::Bot(args) => commands::bot::run(&args),
    }
}
