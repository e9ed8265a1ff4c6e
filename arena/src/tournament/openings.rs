//! Openings: where each round's first moves come from. The one reader of opening
//! books is here, for `--openings FILE` and a tournament file's `[openings] file`
//! alike; the callers only word a missing file in their own terms.

use std::path::Path;

use uttt::notation::parse_move_list;
use uttt::rules::{Rules, Square};

/// Where openings come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Openings {
    /// Every game starts from the empty board.
    None,
    /// Each round starts after this many random legal plies, drawn from the seed.
    RandomPlies(u32),
    /// Each round uses the next line of this book, cycling.
    Book(Vec<Vec<Square>>),
}

impl Openings {
    /// Whether any game starts after opening moves (a book of empty lines or zero
    /// random plies starts every game from the empty board).
    pub fn has_moves(&self) -> bool {
        match self {
            Openings::None => false,
            Openings::RandomPlies(k) => *k > 0,
            Openings::Book(lines) => lines.iter().any(|l| !l.is_empty()),
        }
    }
}

/// A line of an opening book that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// Reads an opening book: one move list per line (`e5 e4 d2`, commas also work);
/// blank lines and `#` comments are skipped, and so is a byte-order mark at the
/// start (editors on Windows save one). Each line must be legal under `rules` and
/// must not end the game.
///
/// # Errors
/// The first bad line, or no openings at all (line 0 is not used: an empty book is
/// reported as line 1).
pub fn read_book(text: &str, rules: Rules) -> Result<Vec<Vec<Square>>, BookError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut book = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = |message: String| BookError {
            line: i + 1,
            message,
        };
        let moves = parse_move_list(line).map_err(|e| at(e.to_string()))?;
        referee::game::opening_position(rules, &moves).map_err(|e| at(e.to_string()))?;
        book.push(moves);
    }
    if book.is_empty() {
        return Err(BookError {
            line: 1,
            message: "no openings in the file: write one move list per line, e.g. e5 e4".into(),
        });
    }
    Ok(book)
}

/// Why the book at a path cannot be used.
#[derive(Debug)]
pub enum BookFileError {
    /// The file cannot be read.
    Unreadable(std::io::Error),
    /// A line is bad, or there are no openings.
    Bad(BookError),
}

/// Reads the book at `path` (see [`read_book`]).
///
/// # Errors
/// The file cannot be read, or [`read_book`] refuses it.
pub fn read_book_file(path: &Path, rules: Rules) -> Result<Vec<Vec<Square>>, BookFileError> {
    let text = std::fs::read_to_string(path).map_err(BookFileError::Unreadable)?;
    read_book(&text, rules).map_err(BookFileError::Bad)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn books_never_panic_and_name_the_bad_line(text in "\\PC{0,200}") {
            if let Err(e) = read_book(&text, Rules::STANDARD) {
                prop_assert!(e.line >= 1);
            }
        }
    }

    #[test]
    fn a_book_with_a_byte_order_mark_reads_like_one_without() {
        let plain = read_book("# openings\ne5 e4\n\na1,b2\n", Rules::STANDARD).unwrap();
        let marked = read_book("\u{feff}# openings\ne5 e4\n\na1,b2\n", Rules::STANDARD).unwrap();
        assert_eq!(plain, marked);
        assert_eq!(plain.len(), 2);
        assert_eq!(
            read_book("\u{feff}e5 e4\n", Rules::STANDARD).unwrap()[0].len(),
            2
        );
        let e = read_book("e5\ne5 e5\n", Rules::STANDARD).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("is illegal"), "{e:?}");
        assert_eq!(
            read_book("# nothing\n", Rules::STANDARD).unwrap_err().line,
            1
        );
    }

    #[test]
    fn a_missing_book_file_is_unreadable_and_a_bad_one_names_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("book.txt");
        assert!(matches!(
            read_book_file(&path, Rules::STANDARD),
            Err(BookFileError::Unreadable(_))
        ));
        std::fs::write(&path, "e5\nz9\n").unwrap();
        let Err(BookFileError::Bad(e)) = read_book_file(&path, Rules::STANDARD) else {
            panic!("a bad line");
        };
        assert_eq!(e.line, 2);
    }
}
