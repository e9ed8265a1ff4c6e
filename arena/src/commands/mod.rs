//! One module per subcommand: validate the raw arguments, run, print.

pub mod bench;
pub mod bench_sandbox;
pub mod bot;
pub mod check;
pub mod common;
pub mod doctor;
pub mod gauntlet;
pub mod match_cmd;
pub mod perft;
pub mod play;
pub mod ratings_cmd;
pub mod replay;
pub mod report;
pub mod sprt;
pub mod tournament;
