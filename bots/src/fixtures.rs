//! Hand-checked positions the engine tests share (position text, see
//! `uttt::notation`). Each test that uses one also checks the property the
//! position is built for, so a wrong fixture fails loudly instead of passing.

use uttt::notation::parse_position;
use uttt::rules::{Position, Rules, Square};

/// X owns the top-left and centre boards and has g7 h7 in the bottom-right board,
/// where it is sent: i7 wins the game. O has d1 f1 (e1 claims board 2).
pub const X_WINS_WITH_I7: &str = "xxxo1oo1o/9/9/o1oxxx3/9/9/o1o3xx1/9/9 9 x";

/// O owns the top-left and centre boards and holds g7 h7 in the bottom-right
/// board. X must play in the top-middle board (d1..f3); three of its moves lose at
/// once: f3 sends O to the bottom-right board, d1 and e2 send O to a closed board
/// (a free move, so O goes there anyway).
pub const X_MUST_NOT_SEND_TO_BOARD_9: &str = "ooo3x1x/3x5/9/x1xooo3/9/9/x1x3oo1/9/1x7 2 x";

/// The three moves that lose at once in [`X_MUST_NOT_SEND_TO_BOARD_9`].
pub const LOSING_IN_BOARD_2: [&str; 3] = ["d1", "e2", "f3"];

/// Parses a fixture under standard rules.
pub fn position(text: &str) -> Position {
    parse_position(text, Rules::STANDARD).expect("fixture position text")
}

/// Parses a square.
pub fn square(text: &str) -> Square {
    text.parse().expect("fixture square")
}
