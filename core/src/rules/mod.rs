//! The rules of Ultimate Tic-Tac-Toe, and nothing else: no I/O, no clocks, no text
//! beyond `Display` of the vocabulary types.
//!
//! Nine small boards sit in a 3×3 grid. The place of a mark inside its small
//! board names the board the opponent must play in next; if that board is closed
//! (won, drawn, or full), the opponent may play in any open board. Three in a row
//! claims a small board; three claimed boards in a row win the game. See
//! [`Position::play`] for the exact order of the end-of-game checks and [`Rules`]
//! for the house variants.

mod lines;
mod mark;
mod moves;
mod outcome;
mod perft;
mod position;
mod square;
mod variant;

pub use lines::{Line, is_line};
pub use mark::{ByMark, Mark};
pub use moves::{MoveSet, MoveSetIter};
pub use outcome::{DrawReason, Outcome, Status, WinReason};
pub use perft::{perft, perft_divide};
pub(crate) use position::PartsError;
pub use position::{BoardState, IllegalMove, IllegalReason, Position};
pub use square::{BoardIndex, Cell, ParseSquareError, Square};
pub use variant::{ParseRulesError, Rules, Variant};
