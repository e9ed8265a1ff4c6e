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
    /// Play a reference bot over the protocol on stdin/stdout.
    ///
    /// Names, weakest first: random, greedy, negamax [--level easy|medium|hard]
    /// (also negamax-easy, negamax-medium, negamax-hard), mcts [--playouts N]
    /// [--explore C] [--rollout random|decisive|claiming] [--minimax W]
    /// [--tree keep|discard]. `arena bot NAME --help` lists a bot's options.
    // The help flag is the bot's: `arena bot mcts --help` must reach mcts's options.
    #[command(disable_help_flag = true)]
    Bot(BotArgs),
}

/// `arena bot`.
#[derive(Debug, Args)]
pub struct BotArgs {
    /// The bot: random, greedy, negamax, negamax-easy, negamax-medium, negamax-hard, mcts.
    #[arg(allow_hyphen_values = true)]
    pub name: String,
    /// The bot's options, e.g. --level hard; everything after NAME is passed to the bot.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<String>,
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
