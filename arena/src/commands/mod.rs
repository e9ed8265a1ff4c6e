//! One module per subcommand: validate the raw arguments, run, print.

pub mod bench;
pub mod bench_sandbox;
pub mod doctor;
pub mod match_cmd;
pub mod perft;
pub mod tournament;
