//! Reference bots for uttt-arena: a ladder of engines behind one [`Engine`] trait,
//! and one protocol loop ([`serve()`]) that plays any of them over stdin/stdout.
//!
//! - [`random`], [`greedy`], [`negamax`] (three levels) and [`mcts`] are the
//!   engines, weakest first.
//! - [`registry`] maps names and options (`negamax --level hard`) to engines; the
//!   `arena bot NAME` subcommand goes through [`cli_main`].
//! - [`levels`] are the reference levels: fixed-work engines on one Elo scale
//!   (`level3`, `level --n 3`), read from the table compiled into the binary.
//! - [`tactics`] holds the board arithmetic the engines share.

#![warn(missing_docs)]

pub mod engine;
pub mod eval;
#[cfg(test)]
mod fixtures;
pub mod greedy;
pub mod learned;
pub mod levels;
pub mod mcts;
pub mod negamax;
pub mod net;
pub mod random;
pub mod registry;
pub mod serve;
pub mod suite;
pub mod tactics;

pub use engine::{Budget, Choice, Engine, GameSetup, Work};
pub use registry::{BotError, cli_main};
pub use serve::{Identity, serve};
