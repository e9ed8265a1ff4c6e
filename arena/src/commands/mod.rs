//! One module per subcommand: validate the raw arguments, run, print.

pub mod bot;
pub mod perft;
