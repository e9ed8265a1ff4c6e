//! One module per subcommand, each thin: arguments → a call into `tournament`,
//! `results`, `report` or `terminal` → an exit code. What two commands share
//! lives in those modules, not here; nothing imports the commands but `lib.rs`.

pub mod bench;
pub mod bot;
pub mod check;
pub mod check_all;
pub mod doctor;
pub mod flags;
pub mod gauntlet;
pub mod match_cmd;
pub mod perft;
pub mod play;
pub mod rate;
pub mod ratings_cmd;
pub mod replay_cmd;
pub mod report_cmd;
pub mod repro;
pub mod serve_cmd;
pub mod skeleton;
pub mod sprt;
pub mod suite;
pub mod tournament_cmd;

use crate::exit_codes::{self, Code};

/// Prints a usage error and returns its exit code (nothing was played).
pub fn usage(message: &str) -> Code {
    eprintln!("error: {message}");
    exit_codes::USAGE
}
