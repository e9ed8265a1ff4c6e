//! `arena`: run Ultimate Tic-Tac-Toe bots against each other.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // The bot launcher: applies resource limits, then becomes the bot (never returns).
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == referee::bot::LAUNCH_ARG) {
        referee::bot::launch(&args[2..]);
    }
    let cli = arena::cli::Cli::parse();
    match arena::run(cli) {
        Ok(code) => code.into(),
        Err(err) => {
            eprintln!("error: {err:#}");
            arena::exit_codes::FAILURE.into()
        }
    }
}
