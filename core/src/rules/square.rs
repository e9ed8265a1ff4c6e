//! Checked coordinates: which small board, which cell inside it, which square.
//!
//! Boards and cells are both numbered 0..9 in reading order (top-left, top-middle,
//! top-right, middle-left, center, …). A square is `board * 9 + cell`, which is also
//! its bit in the position's bitboards.

use std::fmt;

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

    /// All 81 squares in bit order (board by board).
    pub fn all() -> impl Iterator<Item = Square> {
        (0..81).map(Square)
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
