//! A set of squares as one 81-bit word: the legal moves of a position cost a few
//! instructions to build, count and iterate.

use super::Square;

/// A set of squares (usually the legal moves of a position).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MoveSet(pub(crate) u128);

impl MoveSet {
    /// The empty set.
    pub const EMPTY: MoveSet = MoveSet(0);

    /// Number of squares in the set.
    #[inline]
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether `sq` is in the set.
    #[inline]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 >> sq.index() & 1 != 0
    }

    /// The set plus `sq`.
    #[must_use]
    pub const fn with(self, sq: Square) -> MoveSet {
        MoveSet(self.0 | 1 << sq.index())
    }

    /// The `n`-th square in bit order, if there are more than `n`. Lets a bot pick
    /// a uniformly random move without collecting the set into a vector.
    pub fn nth(self, n: usize) -> Option<Square> {
        self.iter().nth(n)
    }

    /// The squares, in bit order (board by board, cell by cell).
    #[inline]
    pub const fn iter(self) -> MoveSetIter {
        MoveSetIter(self.0)
    }
}

impl IntoIterator for MoveSet {
    type Item = Square;
    type IntoIter = MoveSetIter;
    fn into_iter(self) -> MoveSetIter {
        self.iter()
    }
}

impl FromIterator<Square> for MoveSet {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Self {
        iter.into_iter().fold(MoveSet::EMPTY, MoveSet::with)
    }
}

/// Iterator over a [`MoveSet`].
#[derive(Clone, Debug)]
pub struct MoveSetIter(u128);

impl Iterator for MoveSetIter {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let index = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(Square::from_index_unchecked(index))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for MoveSetIter {}
