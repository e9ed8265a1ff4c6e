//! The rules of Ultimate Tic-Tac-Toe, its square notation and the messages of the
//! uttt bot protocol — everything a bot or a referee needs to agree on, and nothing
//! that touches the operating system: no I/O, no clocks, no threads, no processes.
//! The referee, the arena and the reference bots all build on this crate, so there
//! is exactly one authority on what is legal and how a game ends.
//!
//! - [`rules`] owns the game: marks, squares, rule variants, positions, legal moves
//!   and outcomes. It does not allocate on the hot path; search engines use it.
//! - [`notation`] turns squares, positions and move lists into text and back, and
//!   says moves in words for logs ("X played center of top-right board").
//! - [`result`] names how a game ended: who won ([`result::Decision`]) and why
//!   ([`result::EndReason`]), in the words of every output file.
//! - [`protocol`] holds the messages of the line protocol (protocol.md) as types,
//!   parsed and formatted in both directions: a referee formats requests and parses
//!   replies, a bot does the opposite.
//!
#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod notation;
pub mod protocol;
pub mod result;
pub mod rules;
#[cfg(feature = "serde")]
mod serde_text;
