//! The command-line surface (clap derive). Doc comments here are the help text.
//! Raw flags are validated into typed options by each command before anything runs.

use clap::{Args, Parser, Subcommand};

/// Run Ultimate Tic-Tac-Toe bots against each other: matches, tournaments, ratings.
#[derive(Debug, Parser)]
#[command(name = "arena", version, about, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Count move sequences from a position (rules-engine check and benchmark).
    Perft(PerftArgs),
}

/// `arena perft`.
#[derive(Debug, Args)]
pub struct PerftArgs {
    /// Deepest depth to count, 1-20; one line is printed per depth.
    pub depth: String,
    /// Rules: standard, or variants joined by '+' (open-won-boards, draws-count-both, most-boards).
    #[arg(long, default_value = "standard")]
    pub rules: String,
    /// Start after these moves, e.g. "e5 e4" (a1..i9 or board.cell).
    #[arg(long, conflicts_with = "position")]
    pub moves: Option<String>,
    /// Start from this position text, e.g. "9/9/9/9/4x4/9/9/9/9 5 o".
    #[arg(long)]
    pub position: Option<String>,
    /// Print only the deepest depth, split by first move.
    #[arg(long)]
    pub divide: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_valid() {
        Cli::command().debug_assert();
    }
}
