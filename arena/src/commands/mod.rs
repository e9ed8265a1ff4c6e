//! One module per subcommand: validate the raw arguments, run, print.

pub mod bench;
pub mod check;
pub mod common;
pub mod gauntlet;
pub mod match_cmd;
pub mod perft;
pub mod ratings_cmd;
pub mod report;
pub mod sprt;
pub mod tournament;
