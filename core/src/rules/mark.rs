//! The two players' marks and a container holding one value per mark.

use std::fmt;
use std::ops::Not;

/// A player's mark. X always moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mark {
    /// The first player.
    X,
    /// The second player.
    O,
}

impl Mark {
    /// Both marks, X first.
    pub const ALL: [Mark; 2] = [Mark::X, Mark::O];

    /// 0 for X, 1 for O: the index into per-mark arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The mark as an upper-case letter, as protocol and CSV files write it.
    pub const fn as_char(self) -> char {
        match self {
            Mark::X => 'X',
            Mark::O => 'O',
        }
    }

    /// Parses `X`/`x` or `O`/`o` (digit zero is not accepted).
    pub fn from_char(c: char) -> Option<Mark> {
        match c {
            'X' | 'x' => Some(Mark::X),
            'O' | 'o' => Some(Mark::O),
            _ => None,
        }
    }
}

impl Not for Mark {
    type Output = Mark;
    /// The opponent.
    #[inline]
    fn not(self) -> Mark {
        match self {
            Mark::X => Mark::O,
            Mark::O => Mark::X,
        }
    }
}

impl fmt::Display for Mark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.as_char())
    }
}

impl std::str::FromStr for Mark {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut chars = s.chars();
        match (chars.next().and_then(Mark::from_char), chars.next()) {
            (Some(mark), None) => Ok(mark),
            _ => Err(format!("'{s}' is not a mark: write X or O")),
        }
    }
}

/// One value per mark, e.g. boards won by each side or each side's clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByMark<T> {
    /// X's value.
    pub x: T,
    /// O's value.
    pub o: T,
}

impl<T> ByMark<T> {
    /// Builds the pair from a function of the mark.
    pub fn new_with(mut f: impl FnMut(Mark) -> T) -> Self {
        ByMark {
            x: f(Mark::X),
            o: f(Mark::O),
        }
    }

    /// The value for `mark`.
    pub fn get(&self, mark: Mark) -> &T {
        match mark {
            Mark::X => &self.x,
            Mark::O => &self.o,
        }
    }

    /// The value for `mark`, mutably.
    pub fn get_mut(&mut self, mark: Mark) -> &mut T {
        match mark {
            Mark::X => &mut self.x,
            Mark::O => &mut self.o,
        }
    }

    /// Applies `f` to both values.
    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> ByMark<U> {
        ByMark {
            x: f(self.x),
            o: f(self.o),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_is_the_opponent() {
        assert_eq!(!Mark::X, Mark::O);
        assert_eq!(!Mark::O, Mark::X);
    }

    #[test]
    fn marks_parse_and_print() {
        assert_eq!("x".parse::<Mark>(), Ok(Mark::X));
        assert_eq!("O".parse::<Mark>(), Ok(Mark::O));
        assert!("0".parse::<Mark>().is_err());
        assert!("XO".parse::<Mark>().is_err());
        assert_eq!(Mark::O.to_string(), "O");
    }
}
