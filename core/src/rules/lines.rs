//! The eight lines of a 3×3 grid, shared by small boards and the big board, and a
//! 512-entry lookup table so the hot path tests "is there a line" with one load.

/// One of the eight lines of a 3×3 grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Line {
    /// Top row.
    Top,
    /// Middle row.
    Middle,
    /// Bottom row.
    Bottom,
    /// Left column.
    Left,
    /// Center column.
    Center,
    /// Right column.
    Right,
    /// Top-left to bottom-right.
    Diagonal,
    /// Top-right to bottom-left.
    AntiDiagonal,
}

impl Line {
    /// All eight lines.
    pub const ALL: [Line; 8] = [
        Line::Top,
        Line::Middle,
        Line::Bottom,
        Line::Left,
        Line::Center,
        Line::Right,
        Line::Diagonal,
        Line::AntiDiagonal,
    ];

    /// The three places of the line as a 9-bit mask (bit `i` = place `i` in reading order).
    pub const fn mask(self) -> u16 {
        MASKS[self as usize]
    }

    /// The first line fully covered by `set`, if any.
    pub fn find(set: u16) -> Option<Line> {
        Line::ALL
            .into_iter()
            .find(|line| set & line.mask() == line.mask())
    }
}

const MASKS: [u16; 8] = [0o007, 0o070, 0o700, 0o111, 0o222, 0o444, 0o421, 0o124];

const fn has_line_slow(set: u16) -> bool {
    let mut i = 0;
    while i < 8 {
        if set & MASKS[i] == MASKS[i] {
            return true;
        }
        i += 1;
    }
    false
}

/// Bit `s` of this 512-bit table is set when the 9-bit set `s` contains a line.
static LINE_TABLE: [u64; 8] = {
    let mut table = [0u64; 8];
    let mut set = 0u16;
    while set < 512 {
        if has_line_slow(set) {
            table[(set >> 6) as usize] |= 1 << (set & 63);
        }
        set += 1;
    }
    table
};

/// Whether the 9-bit set `set` (bit `i` = place `i` of a 3×3 grid) contains a line.
/// Bits above the ninth are ignored.
#[inline]
pub fn is_line(set: u16) -> bool {
    let set = set & 0x1FF;
    (LINE_TABLE[(set >> 6) as usize] >> (set & 63)) & 1 != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_agrees_with_the_masks() {
        for set in 0..512u16 {
            assert_eq!(is_line(set), Line::find(set).is_some(), "set {set:#o}");
        }
    }

    #[test]
    fn rows_columns_and_diagonals() {
        assert!(is_line(0b000_000_111));
        assert!(is_line(0b100_010_001));
        assert!(is_line(0b001_010_100));
        assert!(!is_line(0b010_101_010));
        assert_eq!(Line::find(0b001_001_001), Some(Line::Left));
    }
}
