//! One module per subcommand: validate the raw arguments, run, print.

pub mod bench;
pub mod match_cmd;
pub mod perft;
pub mod play;
pub mod replay;
pub mod tournament;
