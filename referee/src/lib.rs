//! The referee library of uttt-arena: the one authority on Ultimate Tic-Tac-Toe.
//!
//! - [`rules`] owns the game: marks, squares, rule variants, positions, legal moves
//!   and outcomes. It does no I/O and does not allocate on the hot path; the bots
//!   search with it.
//! - [`notation`] turns squares, positions and move lists into text and back, and
//!   says moves in words for logs ("X played center of top-right board").
//! - [`protocol`] holds the messages of protocol.md as types, parsed and formatted
//!   in both directions.
//! - [`bot`] runs one bot process and speaks the protocol with it, turning every
//!   misbehaviour into a typed fault.
//! - [`game`] plays one game between two seats and records it.
#![deny(missing_docs)]

pub mod bot;
pub mod game;
pub mod notation;
pub mod protocol;
pub mod rules;
