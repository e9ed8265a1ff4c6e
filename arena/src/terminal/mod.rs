//! What a person at a terminal sees and types: the board drawn in text and colour
//! ([`board`]), the human seat of `arena play` ([`human_seat`]: keys, cursor,
//! undo, the screen) and the ledger of its moves ([`ledger`]), the search for a
//! move order that reaches a position text ([`move_order`]), the progress bar of
//! long runs ([`progress`]) and the width the words around a run fit ([`width`]).
//!
//! Nothing here decides a rule (the engine does) or writes a file (the results
//! do); it only draws, reads keys and asks.

pub mod board;
pub mod human_seat;
pub mod ledger;
pub mod move_order;
pub mod progress;
pub mod width;
