//! Checked coordinates: which small board, which cell inside it, which square,
//! and a square's text form (`e5`), which the protocol and the logs share.
//!
//! Boards and cells are both numbered 0..9 in reading order (top-left, top-middle,
//! top-right, middle-left, center, …). A square is `board * 9 + cell`, which is also
//! its bit in the position's bitboards.

use std::fmt;
use std::str::FromStr;

/// The nine places of a 3×3 grid in words, in reading order: a board's place
/// in the big grid, or a cell's in its board.
const PLACE_NAMES: [&str; 9] = [
    "top-left",
    "top-middle",
    "top-right",
    "middle-left",
    "center",
    "middle-right",
    "bottom-left",
    "bottom-middle",
    "bottom-right",
];

/// One of the nine small boards, 0..9 in reading order from the top left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BoardIndex(u8);

/// One of the nine cells inside a small board, 0..9 in reading order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell(u8);

/// One of the 81 squares. Written `a1`..`i9` by [`crate::notation`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

macro_rules! nine {
    ($ty:ident) => {
        impl $ty {
            /// How many there are.
            pub const NUM: usize = 9;
            /// All nine, in reading order.
            pub const ALL: [$ty; 9] = [
                $ty(0),
                $ty(1),
                $ty(2),
                $ty(3),
                $ty(4),
                $ty(5),
                $ty(6),
                $ty(7),
                $ty(8),
            ];

            /// `Some` for 0..9.
            #[inline]
            pub const fn try_new(index: u8) -> Option<Self> {
                if index < 9 { Some($ty(index)) } else { None }
            }

            /// 0..9 in reading order.
            #[inline]
            pub const fn index(self) -> usize {
                self.0 as usize
            }

            /// Row 0..3 inside its 3×3 grid.
            #[inline]
            pub const fn row(self) -> u8 {
                self.0 / 3
            }

            /// Column 0..3 inside its 3×3 grid.
            #[inline]
            pub const fn column(self) -> u8 {
                self.0 % 3
            }

            /// The human number 1..=9 used by the `board.cell` notation.
            pub const fn number(self) -> u8 {
                self.0 + 1
            }

            /// Its place in its 3×3 grid in words: `top-left`, …, `center`, …
            pub const fn place(self) -> &'static str {
                PLACE_NAMES[self.0 as usize]
            }
        }

        impl fmt::Display for $ty {
            /// Human numbering, 1..=9.
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.number())
            }
        }
    };
}

nine!(BoardIndex);
nine!(Cell);

impl Cell {
    /// The board this cell sends the opponent to: the same place in the big grid.
    #[inline]
    pub const fn target_board(self) -> BoardIndex {
        BoardIndex(self.0)
    }
}

impl Square {
    /// How many squares there are.
    pub const NUM: usize = 81;

    /// All 81 squares in bit order (board by board: `a1 b1 c1 a2 …` is the
    /// top-left board).
    ///
    /// ```
    /// use uttt::rules::Square;
    /// assert_eq!(Square::ALL.len(), Square::NUM);
    /// assert_eq!(Square::ALL[40].to_string(), "e5");
    /// assert!(Square::ALL.iter().enumerate().all(|(i, sq)| sq.index() == i));
    /// ```
    pub const ALL: [Square; 81] = {
        let mut all = [Square(0); 81];
        let mut i = 0;
        while i < 81 {
            all[i] = Square(i as u8);
            i += 1;
        }
        all
    };

    /// The square at `cell` of `board`.
    #[inline]
    pub const fn new(board: BoardIndex, cell: Cell) -> Square {
        Square(board.0 * 9 + cell.0)
    }

    /// `Some` for 0..81 (`board * 9 + cell`).
    #[inline]
    pub const fn try_from_index(index: u8) -> Option<Square> {
        if index < 81 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// # Safety-free contract
    /// `index` must be below 81; callers are the bitboard iterators, which only
    /// produce such indices. Debug builds check it.
    #[inline]
    pub(crate) const fn from_index_unchecked(index: u8) -> Square {
        debug_assert!(index < 81);
        Square(index)
    }

    /// From a column and row, each 0..9, counted from the top left of the whole grid.
    pub const fn from_column_row(column: u8, row: u8) -> Option<Square> {
        if column >= 9 || row >= 9 {
            return None;
        }
        let board = (row / 3) * 3 + column / 3;
        let cell = (row % 3) * 3 + column % 3;
        Some(Square(board * 9 + cell))
    }

    /// All 81 squares in bit order, as an iterator ([`Square::ALL`]).
    pub fn all() -> impl Iterator<Item = Square> {
        Square::ALL.into_iter()
    }

    /// `board * 9 + cell`, the bit index.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The small board holding this square.
    #[inline]
    pub const fn board(self) -> BoardIndex {
        BoardIndex(self.0 / 9)
    }

    /// The cell inside its small board.
    #[inline]
    pub const fn cell(self) -> Cell {
        Cell(self.0 % 9)
    }

    /// Column 0..9 across the whole grid, left to right (a..i).
    pub const fn column(self) -> u8 {
        self.board().column() * 3 + self.cell().column()
    }

    /// Row 0..9 across the whole grid, top to bottom (1..9).
    pub const fn row(self) -> u8 {
        self.board().row() * 3 + self.cell().row()
    }
}

/// Why text is not a square.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseSquareError {
    /// Nothing was given.
    #[error("no square given: squares are written a1..i9 (column a-i, row 1-9)")]
    Empty,
    /// The column letter is outside a..i.
    #[error("'{text}' is not a square: columns are a..i")]
    BadColumn {
        /// The text as given.
        text: String,
    },
    /// The row digit is outside 1..9.
    #[error("'{text}' is not a square: rows are 1..9")]
    BadRow {
        /// The text as given.
        text: String,
    },
    /// Anything else, read as the protocol writes squares (`a1`..`i9`, lower case).
    #[error("'{text}' is not a square: squares are a1..i9 in lower case (column a-i, row 1-9)")]
    Malformed {
        /// The text as given.
        text: String,
    },
    /// Anything else, read as a person types squares ([`parse_square_lenient`]: either
    /// case, or `board.cell`). Characters that do not show (a byte-order mark, a
    /// zero-width space) are written escaped, so the message says what is wrong.
    #[error(
        "'{}' is not a square: type a1..i9 (column a-i, row 1-9) or board.cell like 5.1",
        .text.escape_debug()
    )]
    Unrecognised {
        /// The text as given.
        text: String,
    },
}

impl fmt::Display for Square {
    /// `a1`..`i9`: the column a–i left to right, the row 1–9 top to bottom.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.column()) as char, self.row() + 1)
    }
}

impl FromStr for Square {
    type Err = ParseSquareError;

    /// Exactly `a1`..`i9`, lower case, as the protocol requires. Use
    /// [`crate::notation::parse_square_lenient`] for what people type.
    ///
    /// ```
    /// use uttt::rules::{BoardIndex, Cell, Square};
    /// let e5: Square = "e5".parse().unwrap();
    /// assert_eq!(e5, Square::new(BoardIndex::ALL[4], Cell::ALL[4]));
    /// assert_eq!(e5.to_string(), "e5");
    /// assert_eq!("i9".parse::<Square>().unwrap().index(), 80);
    /// let err = "j1".parse::<Square>().unwrap_err();
    /// assert_eq!(err.to_string(), "'j1' is not a square: columns are a..i");
    /// assert!("E5".parse::<Square>().is_err(), "the protocol writes lower case");
    /// ```
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let bytes = s.as_bytes();
        if bytes.is_empty() {
            return Err(ParseSquareError::Empty);
        }
        let text = || s.to_string();
        match bytes {
            [col, row] if col.is_ascii_lowercase() && row.is_ascii_digit() => {
                if !(b'a'..=b'i').contains(col) {
                    return Err(ParseSquareError::BadColumn { text: text() });
                }
                if *row == b'0' {
                    return Err(ParseSquareError::BadRow { text: text() });
                }
                Square::from_column_row(col - b'a', row - b'1')
                    .ok_or(ParseSquareError::Malformed { text: text() })
            }
            [col, rest @ ..] if col.is_ascii_lowercase() && rest.iter().all(u8::is_ascii_digit) => {
                if (b'a'..=b'i').contains(col) {
                    Err(ParseSquareError::BadRow { text: text() })
                } else {
                    Err(ParseSquareError::BadColumn { text: text() })
                }
            }
            _ => Err(ParseSquareError::Malformed { text: text() }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_row_round_trip_for_every_square() {
        for sq in Square::all() {
            assert_eq!(Square::from_column_row(sq.column(), sq.row()), Some(sq));
        }
    }

    #[test]
    fn center_of_center_is_column_4_row_4() {
        let sq = Square::new(BoardIndex::ALL[4], Cell::ALL[4]);
        assert_eq!((sq.column(), sq.row()), (4, 4));
    }

    #[test]
    fn out_of_range_is_none() {
        assert_eq!(Square::try_from_index(81), None);
        assert_eq!(BoardIndex::try_new(9), None);
        assert_eq!(Cell::try_new(200), None);
        assert_eq!(Square::from_column_row(9, 0), None);
    }
}
