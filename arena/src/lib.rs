//! The `arena` command line: matches, tournaments, ratings and reports, built on
//! the `referee` library. The binary is a thin `main` over [`run`]; tests drive the
//! real binary.

pub mod audience;
pub mod cli;
pub mod commands;
pub mod conformance;
pub mod cores;
pub mod defaults;
pub mod eta;
pub mod exit_codes;
#[cfg(test)]
mod layers;
pub mod millis;
pub mod report;
pub mod results;
pub mod serve;
pub mod similarity;
pub mod stdout;
pub mod suggest;
pub mod terminal;
pub mod tournament;

use exit_codes::Code;

/// The version `--version` prints: the package version, and the git commit it was
/// built from when built from a checkout (see `build.rs`), so a bug report names
/// the exact build.
pub const VERSION: &str = env!("ARENA_VERSION");

/// Runs one parsed command line and returns the process exit code.
///
/// # Errors
/// Any failure that is not already mapped to a specific exit code; `main` prints
/// it and exits with [`exit_codes::FAILURE`].
pub fn run(cli: cli::Cli) -> anyhow::Result<Code> {
    match cli.command {
        cli::Command::Match(args) => commands::match_cmd::run(&args),
        cli::Command::Tournament(args) => commands::tournament_cmd::run(&args),
        cli::Command::League(args) => commands::league::run(&args),
        cli::Command::Ratings(args) => commands::ratings_cmd::run(&args),
        cli::Command::Sprt(args) => commands::sprt::run(&args),
        cli::Command::Rate(args) => commands::rate::run(&args),
        cli::Command::Check(args) => commands::check::run(&args),
        cli::Command::Report(args) => commands::report_cmd::run(&args),
        cli::Command::Serve(args) => commands::serve_cmd::run(&args),
        cli::Command::Gauntlet(args) => commands::gauntlet::run(&args),
        cli::Command::Replay(args) => commands::replay_cmd::run(&args),
        cli::Command::Repro(args) => commands::repro::run(&args),
        cli::Command::Suite(args) => commands::suite::run(&args),
        cli::Command::SuiteProve(args) => commands::suite::prove(&args),
        cli::Command::SuiteGenerate(args) => commands::suite::generate(&args),
        cli::Command::Play(args) => commands::play::run(&args),
        cli::Command::Perft(args) => commands::perft::run(&args),
        cli::Command::Bench(args) => commands::bench::run(&args),
        cli::Command::Doctor(args) => commands::doctor::run(&args),
        cli::Command::Completions(args) => commands::completions::run(&args),
        cli::Command::Man(args) => commands::man::run(&args),
        cli::Command::Echo => commands::bench::helper_bots::echo().map(|()| exit_codes::OK),
        cli::Command::Instant => commands::bench::helper_bots::instant().map(|()| exit_codes::OK),
        cli::Command::Sleeper { delay_ms } => {
            commands::bench::helper_bots::sleeper(delay_ms).map(|()| exit_codes::OK)
        }
        cli::Command::Burner { cpu_ms } => {
            commands::bench::helper_bots::burner(cpu_ms).map(|()| exit_codes::OK)
        }
        cli::Command::Bot(args) => commands::bot::run(&args),
    }
}
