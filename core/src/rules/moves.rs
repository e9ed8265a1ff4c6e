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
    /// a uniformly random move without collecting the set into a vector: with
    /// `n` drawn uniformly from `0..len()` this is the hot path of random playouts,
    /// so it selects by halving popcounts (a dozen instructions) instead of walking
    /// `n` squares.
    #[inline]
    pub fn nth(self, n: usize) -> Option<Square> {
        let low = self.0 as u64;
        let high = (self.0 >> 64) as u64;
        let in_low = low.count_ones() as usize;
        let index = if n < in_low {
            select64(low, n as u32)
        } else if n - in_low < high.count_ones() as usize {
            64 + select64(high, (n - in_low) as u32)
        } else {
            return None;
        };
        Some(Square::from_index_unchecked(index as u8))
    }

    /// The squares, in bit order (board by board, cell by cell).
    #[inline]
    pub const fn iter(self) -> MoveSetIter {
        MoveSetIter(self.0)
    }
}

/// The position of the `n`-th set bit of `word`; the caller guarantees
/// `n < word.count_ones()`. Narrows to the half, quarter and eighth that holds the
/// bit, then clears the lower set bits of the final byte.
#[inline]
fn select64(mut word: u64, mut n: u32) -> u32 {
    let mut base = 0;
    for width in [32u32, 16, 8] {
        let lower = word & ((1u64 << width) - 1);
        let count = lower.count_ones();
        if n < count {
            word = lower;
        } else {
            n -= count;
            word >>= width;
            base += width;
        }
    }
    for _ in 0..n {
        word &= word - 1;
    }
    base + word.trailing_zeros()
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn nth_agrees_with_iteration(low in any::<u64>(), high in any::<u64>(), n in 0usize..90) {
            let set = MoveSet((u128::from(high) << 64 | u128::from(low)) & ((1 << 81) - 1));
            prop_assert_eq!(set.nth(n), set.iter().nth(n));
        }
    }

    #[test]
    fn nth_of_every_member_of_a_sparse_and_a_full_set() {
        let full = MoveSet((1 << 81) - 1);
        for (n, sq) in full.iter().enumerate() {
            assert_eq!(full.nth(n), Some(sq));
        }
        assert_eq!(full.nth(81), None);
        let sparse = MoveSet(1 | 1 << 63 | 1 << 64 | 1 << 80);
        let got: Vec<usize> = (0..4)
            .filter_map(|n| sparse.nth(n))
            .map(Square::index)
            .collect();
        assert_eq!(got, vec![0, 63, 64, 80]);
        assert_eq!(sparse.nth(4), None);
        assert_eq!(MoveSet::EMPTY.nth(0), None);
    }
}
