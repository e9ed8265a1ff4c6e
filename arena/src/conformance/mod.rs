//! The conformance checker: a bot put through scripted situations, step by step,
//! with what went wrong said in words for its author (`arena check BOT`, and
//! every bot of a tournament file with `arena check --config`).

pub mod checker;
