//! The conformance checker: a bot put through scripted situations, step by step,
//! with what went wrong said in words for its author (`arena check BOT`, and
//! every bot of a tournament file with `arena check --config`); the words
//! themselves ([`words`]), shared with a league's feedback files
//! ([`feedback`]).

pub mod checker;
pub mod feedback;
pub mod record;
pub mod words;
