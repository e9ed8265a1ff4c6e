//! `arena completions SHELL`: a completion script made from the clap definitions,
//! so it can never list a flag the command line does not have.

use clap::CommandFactory as _;

use crate::cli::{Cli, CompletionsArgs};
use crate::exit_codes::{self, Code};

/// Prints the completion script for `args.shell` on standard output.
///
/// # Errors
/// None today; the signature matches the other commands.
pub fn run(args: &CompletionsArgs) -> anyhow::Result<Code> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "arena", &mut script);
    crate::stdout::write_data(&String::from_utf8_lossy(&script));
    Ok(if crate::stdout::is_closed() {
        exit_codes::CLOSED_OUTPUT
    } else {
        exit_codes::OK
    })
}
