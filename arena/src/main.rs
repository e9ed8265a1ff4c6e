//! `arena`: run Ultimate Tic-Tac-Toe bots against each other.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = arena::cli::Cli::parse();
    match arena::run(cli) {
        Ok(code) => code.into(),
        Err(err) => {
            eprintln!("error: {err:#}");
            arena::exit_codes::FAILURE.into()
        }
    }
}
