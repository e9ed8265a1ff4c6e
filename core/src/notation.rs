//! Text forms of the game, for people, logs, CSV files and the protocol.
//!
//! - Squares: `a1`..`i9`, column a–i left to right, row 1–9 top to bottom
//!   (`e5` is the centre of the centre board); or `board.cell` with both numbered
//!   1–9 from the top left (`5.5` is the same square).
//! - Words: "center of top-right board", "X played top-left of bottom-middle board".
//! - Move lists: squares separated by spaces or commas.
//! - Position text: one line, `<rows> <next> <side>`, e.g. after `e5`:
//!   `9/9/9/9/4x4/9/9/9/9 5 o`. Rows run top to bottom, `/`-separated, each with 9
//!   squares as `x`, `o`, or a digit counting empty squares (like chess FEN; `.` is
//!   also read as one empty square). `next` is the board (1–9) the side to move must
//!   play in, or `*` for a free move. `side` is `x` or `o`. In the rare board where
//!   both marks have a line (only under `open-won-boards`) the first winner's marks
//!   are written in upper case.
//!
//! Parsing never panics; every error says what was wrong and what is expected.

use std::fmt;

use crate::rules::{
    BoardIndex, BoardState, ByMark, Cell, IllegalMove, Mark, Position, Rules, Square, is_line,
};

pub use crate::rules::ParseSquareError;

/// Parses what a person types: `e5`, `E5`, or `5.5` (board.cell), with spaces
/// around it ignored.
///
/// # Errors
/// [`ParseSquareError`] saying what is expected.
pub fn parse_square_lenient(s: &str) -> Result<Square, ParseSquareError> {
    let s = s.trim();
    if let Some((board, cell)) = s.split_once('.') {
        return parse_board_cell(board, cell)
            .ok_or(ParseSquareError::Unrecognised { text: s.into() });
    }
    s.to_ascii_lowercase()
        .parse::<Square>()
        .map_err(|e| match e {
            ParseSquareError::BadColumn { .. } => ParseSquareError::BadColumn { text: s.into() },
            ParseSquareError::BadRow { .. } => ParseSquareError::BadRow { text: s.into() },
            ParseSquareError::Malformed { .. } => ParseSquareError::Unrecognised { text: s.into() },
            ParseSquareError::Empty | ParseSquareError::Unrecognised { .. } => e,
        })
}

fn parse_board_cell(board: &str, cell: &str) -> Option<Square> {
    let number = |t: &str| match t.trim().as_bytes() {
        [d @ b'1'..=b'9'] => Some(d - b'1'),
        _ => None,
    };
    Some(Square::new(
        BoardIndex::try_new(number(board)?)?,
        Cell::try_new(number(cell)?)?,
    ))
}

/// The `board.cell` form, both numbered 1–9 from the top left: `e5` is `5.5`.
pub fn board_cell(sq: Square) -> String {
    format!("{}.{}", sq.board().number(), sq.cell().number())
}

/// A board in words: "top-right board", "center board".
pub fn board_name(board: BoardIndex) -> String {
    format!("{} board", board.place())
}

/// A square in words: "center of top-right board".
pub fn square_words(sq: Square) -> String {
    format!("{} of {}", sq.cell().place(), board_name(sq.board()))
}

/// A move in words, as the logs write it: "X played center of top-right board".
pub fn move_words(mark: Mark, sq: Square) -> String {
    format!("{mark} played {}", square_words(sq))
}

/// Why a move is illegal, in words addressed to the player, e.g. "e5 is in the
/// center board, but you must play in the top-left board" or "the center board
/// is already won by O": [`IllegalMove`]'s `Display`.
pub fn illegal_words(err: &IllegalMove) -> String {
    err.to_string()
}

/// Why a move list could not be read or played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveListError {
    /// A token is not a square.
    #[error("move {number} ('{token}'): {source}")]
    Parse {
        /// 1-based position in the list.
        number: usize,
        /// The token.
        token: String,
        /// Why.
        source: ParseSquareError,
    },
    /// A square is not a legal move at that point.
    #[error("move {number} ({square}) is illegal: {}", illegal_words(.error))]
    Illegal {
        /// 1-based position in the list.
        number: usize,
        /// The square.
        square: Square,
        /// Why.
        error: IllegalMove,
    },
}

/// Reads squares separated by spaces and/or commas (`e5 e4`, `e5,e4`), lenient
/// about case and the `board.cell` form.
///
/// # Errors
/// The first token that is not a square, with its 1-based number.
pub fn parse_move_list(s: &str) -> Result<Vec<Square>, MoveListError> {
    s.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .enumerate()
        .map(|(i, token)| {
            parse_square_lenient(token).map_err(|source| MoveListError::Parse {
                number: i + 1,
                token: token.to_string(),
                source,
            })
        })
        .collect()
}

/// Squares joined by single spaces.
pub fn format_move_list(moves: &[Square]) -> String {
    moves
        .iter()
        .map(Square::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The position after playing a move list from the empty board.
///
/// # Errors
/// The first move that cannot be read or is illegal.
pub fn position_from_move_list(rules: Rules, s: &str) -> Result<Position, MoveListError> {
    let moves = parse_move_list(s)?;
    Position::from_moves(rules, moves.iter().copied()).map_err(|(i, error)| {
        MoveListError::Illegal {
            number: i + 1,
            square: moves[i],
            error,
        }
    })
}

impl fmt::Display for Position {
    /// The one-line position text described in the module docs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let uppercase_owner = |board: BoardIndex| -> Option<Mark> {
            let both = is_line(self.board_marks(board, Mark::X))
                && is_line(self.board_marks(board, Mark::O));
            match self.board_state(board) {
                BoardState::Won(owner) if both => Some(owner),
                _ => None,
            }
        };
        for row in 0..9u8 {
            if row > 0 {
                f.write_str("/")?;
            }
            let mut empty = 0;
            for column in 0..9u8 {
                let Some(sq) = Square::from_column_row(column, row) else {
                    continue;
                };
                match self.mark_at(sq) {
                    None => empty += 1,
                    Some(mark) => {
                        if empty > 0 {
                            write!(f, "{empty}")?;
                            empty = 0;
                        }
                        let upper = uppercase_owner(sq.board()) == Some(mark);
                        let c = mark.as_char();
                        write!(f, "{}", if upper { c } else { c.to_ascii_lowercase() })?;
                    }
                }
            }
            if empty > 0 {
                write!(f, "{empty}")?;
            }
        }
        match self.required_board() {
            Some(board) => write!(f, " {}", board.number())?,
            None => f.write_str(" *")?,
        }
        write!(f, " {}", self.side_to_move().as_char().to_ascii_lowercase())
    }
}

/// Why position text could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad position text '{text}': {problem}")]
pub struct ParsePositionError {
    /// The text as given.
    pub text: String,
    /// What was wrong and what is expected.
    pub problem: String,
}

/// Reads the one-line position text described in the module docs.
///
/// # Errors
/// [`ParsePositionError`] naming the field that is wrong and what it should be.
pub fn parse_position(text: &str, rules: Rules) -> Result<Position, ParsePositionError> {
    let fail = |problem: String| ParsePositionError {
        text: text.to_string(),
        problem,
    };
    let fields: Vec<&str> = text.split_whitespace().collect();
    let [rows, next, side] = fields[..] else {
        return Err(fail(format!(
            "expected 3 fields '<rows> <next> <side>' (e.g. '9/9/9/9/4x4/9/9/9/9 5 o'), found {}",
            fields.len()
        )));
    };
    let rows: Vec<&str> = rows.split('/').collect();
    if rows.len() != 9 {
        return Err(fail(format!(
            "expected 9 rows separated by '/', found {}",
            rows.len()
        )));
    }
    let mut marks = ByMark::<u128>::default();
    let mut upper: [Option<Mark>; 9] = [None; 9];
    for (row, text) in rows.iter().enumerate() {
        let mut column = 0u8;
        for c in text.chars() {
            let (mark, count) = match c {
                '1'..='9' => (None, c as u8 - b'0'),
                '.' => (None, 1),
                _ => match Mark::from_char(c) {
                    Some(mark) => (Some(mark), 1),
                    None => {
                        return Err(fail(format!(
                            "row {}: '{c}' is not x, o, '.' or a digit 1-9",
                            row + 1
                        )));
                    }
                },
            };
            if column + count > 9 {
                return Err(fail(format!("row {} has more than 9 squares", row + 1)));
            }
            if let Some(mark) = mark {
                let Some(sq) = Square::from_column_row(column, row as u8) else {
                    return Err(fail(format!("row {} has more than 9 squares", row + 1)));
                };
                *marks.get_mut(mark) |= 1 << sq.index();
                if c.is_ascii_uppercase() {
                    upper[sq.board().index()] = Some(mark);
                }
            }
            column += count;
        }
        if column != 9 {
            return Err(fail(format!(
                "row {} has {column} squares, expected 9",
                row + 1
            )));
        }
    }
    let next = match next {
        "*" | "-" => None,
        n => match n.as_bytes() {
            [d @ b'1'..=b'9'] => BoardIndex::try_new(d - b'1'),
            _ => {
                return Err(fail(format!(
                    "next board '{n}' should be 1-9, or * for a free move"
                )));
            }
        },
    };
    let side = match side {
        "x" | "X" => Mark::X,
        "o" | "O" => Mark::O,
        s => return Err(fail(format!("side to move '{s}' should be x or o"))),
    };
    use crate::rules::PartsError as E;
    Position::from_parts(rules, marks, upper, side, next).map_err(|e| {
        fail(match e {
            E::BothMarksOnOneSquare => "a square holds both x and o".to_string(),
            E::TwoLinesInBoard(b) => format!(
                "the {} has a line for both x and o, which the {rules} rules cannot reach",
                board_name(b)
            ),
            E::AmbiguousOwner(b) => format!(
                "the {} has a line for both x and o: write the first winner's marks in upper case",
                board_name(b)
            ),
            E::MarkCounts { x, o, side } => format!(
                "{x} x and {o} o marks cannot have {side} to move (x moves first, then they alternate)"
            ),
            E::RequiredBoardClosed(b) => format!(
                "next board {} is closed: write * for a free move",
                b.number()
            ),
            E::BothHaveLines => {
                "both x and o have three boards in a line: the game would have ended at the first".to_string()
            }
            E::LineForSideToMove(m) => format!(
                "{m} to move already has three boards in a line: the game would have ended"
            ),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Variant;

    #[test]
    fn e5_is_the_center_of_the_center_board() {
        let sq: Square = "e5".parse().unwrap();
        assert_eq!(sq.board().index(), 4);
        assert_eq!(sq.cell().index(), 4);
        assert_eq!(board_cell(sq), "5.5");
        assert_eq!(square_words(sq), "center of center board");
    }

    #[test]
    fn corners_and_words() {
        let a1: Square = "a1".parse().unwrap();
        assert_eq!((a1.board().index(), a1.cell().index()), (0, 0));
        let i9: Square = "i9".parse().unwrap();
        assert_eq!((i9.board().index(), i9.cell().index()), (8, 8));
        // Column h, row 2: top-right board (columns g-i, rows 1-3), its center.
        let h2: Square = "h2".parse().unwrap();
        assert_eq!(
            move_words(Mark::X, h2),
            "X played center of top-right board"
        );
        let d7: Square = "d7".parse().unwrap();
        assert_eq!(square_words(d7), "top-left of bottom-middle board");
    }

    #[test]
    fn every_square_round_trips_in_both_forms() {
        for sq in Square::all() {
            assert_eq!(sq.to_string().parse::<Square>(), Ok(sq));
            assert_eq!(parse_square_lenient(&board_cell(sq)), Ok(sq));
        }
    }

    #[test]
    fn bad_squares_say_what_is_expected() {
        assert_eq!(
            "j4".parse::<Square>().unwrap_err().to_string(),
            "'j4' is not a square: columns are a..i"
        );
        assert_eq!(
            "a0".parse::<Square>().unwrap_err(),
            ParseSquareError::BadRow { text: "a0".into() }
        );
        assert_eq!(
            "a10".parse::<Square>().unwrap_err(),
            ParseSquareError::BadRow { text: "a10".into() }
        );
        assert!(matches!(
            "E5".parse::<Square>(),
            Err(ParseSquareError::Malformed { .. })
        ));
        assert_eq!(
            "E5".parse::<Square>().unwrap_err().to_string(),
            "'E5' is not a square: squares are a1..i9 in lower case (column a-i, row 1-9)"
        );
        assert_eq!(parse_square_lenient(" E5 "), Ok("e5".parse().unwrap()));
        assert!(parse_square_lenient("0.1").is_err());
        assert_eq!(
            parse_square_lenient("\u{feff}e5").unwrap_err().to_string(),
            "'\\u{feff}e5' is not a square: type a1..i9 (column a-i, row 1-9) or board.cell like 5.1"
        );
        assert_eq!("".parse::<Square>(), Err(ParseSquareError::Empty));
    }

    #[test]
    fn start_position_text() {
        let pos = Position::new(Rules::STANDARD);
        assert_eq!(pos.to_string(), "9/9/9/9/9/9/9/9/9 * x");
        let after = position_from_move_list(Rules::STANDARD, "e5").unwrap();
        assert_eq!(after.to_string(), "9/9/9/9/4x4/9/9/9/9 5 o");
        assert_eq!(
            parse_position("9/9/9/9/4x4/9/9/9/9 5 o", Rules::STANDARD),
            Ok(after)
        );
        assert_eq!(
            parse_position("........./9/9/9/....x..../9/9/9/9 5 o", Rules::STANDARD),
            Ok(after)
        );
    }

    #[test]
    fn move_list_errors_name_the_move() {
        let err = position_from_move_list(Rules::STANDARD, "e5 e5").unwrap_err();
        assert_eq!(
            err.to_string(),
            "move 2 (e5) is illegal: e5 is already taken by X"
        );
        let err = position_from_move_list(Rules::STANDARD, "e5, a1").unwrap_err();
        assert_eq!(
            err.to_string(),
            "move 2 (a1) is illegal: a1 is in the top-left board, but you must play in the center board"
        );
        let err = parse_move_list("e5 zz").unwrap_err();
        assert!(err.to_string().starts_with("move 2 ('zz'): "));
    }

    #[test]
    fn bad_position_text_says_why() {
        let r = Rules::STANDARD;
        let e = |t: &str| parse_position(t, r).unwrap_err().problem;
        assert!(e("9/9/9").contains("expected 3 fields"));
        assert!(e("9/9/9 * x").contains("expected 9 rows"));
        assert!(e("9/9/9/9/4x5/9/9/9/9 5 o").contains("row 5 has more than 9"));
        assert!(e("9/9/9/9/4x3/9/9/9/9 5 o").contains("row 5 has 8 squares"));
        assert!(e("9/9/9/9/4z4/9/9/9/9 5 o").contains("'z' is not"));
        assert!(e("9/9/9/9/4x4/9/9/9/9 5 x").contains("cannot have X to move"));
        assert!(e("9/9/9/9/4x4/9/9/9/9 0 o").contains("should be 1-9"));
        assert!(e("9/9/9/9/4x4/9/9/9/9 5 y").contains("should be x or o"));
        assert!(
            e("xxxxxxxxx/9/9/ooooooooo/9/9/x8/9/9 * o").contains("both x and o have three boards")
        );
    }

    #[test]
    fn ambiguous_owner_uses_upper_case() {
        let rules = Rules::STANDARD.with(Variant::OpenWonBoards);
        // Board 1 (top-left): X row on top (won first, upper case), O row at the bottom.
        let text = "XXX6/9/ooo6/9/9/9/9/9/9 * x";
        let pos = parse_position(text, rules).unwrap();
        assert_eq!(
            pos.board_state(BoardIndex::ALL[0]),
            BoardState::Won(Mark::X)
        );
        assert_eq!(pos.to_string(), text);
        assert!(parse_position("xxx6/9/ooo6/9/9/9/9/9/9 * x", rules).is_err());
        assert!(parse_position(text, Rules::STANDARD).is_err());
    }
}
