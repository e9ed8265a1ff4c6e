//! How a game ended, as the words every output file and the `gameover` message
//! use: who won ([`Decision`]: `X`, `O` or `draw`) and why ([`EndReason`]:
//! `three-in-a-row`, `timeout`, …). One type each, with `Display` and `FromStr`
//! that round-trip, so readers of results never compare strings.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use crate::rules::{DrawReason, Mark, Outcome, WinReason};

/// The result of a game: a side won (on the board or because the other side
/// forfeited), or nobody did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Decision {
    /// This side won.
    Win(Mark),
    /// Nobody won.
    Draw,
}

impl Decision {
    /// The decision with `winner` as the winner, or a draw for `None`.
    pub const fn from_winner(winner: Option<Mark>) -> Decision {
        match winner {
            Some(mark) => Decision::Win(mark),
            None => Decision::Draw,
        }
    }

    /// The winner, or `None` for a draw.
    pub const fn winner(self) -> Option<Mark> {
        match self {
            Decision::Win(mark) => Some(mark),
            Decision::Draw => None,
        }
    }

    /// The points `mark` earned, in half points (0, 1 or 2) so sums stay exact.
    pub fn half_points(self, mark: Mark) -> u8 {
        match self {
            Decision::Draw => 1,
            Decision::Win(winner) if winner == mark => 2,
            Decision::Win(_) => 0,
        }
    }
}

impl fmt::Display for Decision {
    /// `X`, `O` or `draw`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Decision::Win(mark) => write!(f, "{mark}"),
            Decision::Draw => f.write_str("draw"),
        }
    }
}

/// A word that is not a [`Decision`] or an [`EndReason`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{word}' is not {what}: use {expected}")]
pub struct ParseResultError {
    word: String,
    what: &'static str,
    expected: String,
}

impl FromStr for Decision {
    type Err = ParseResultError;

    /// The inverse of `Display`.
    fn from_str(s: &str) -> Result<Decision, ParseResultError> {
        match s {
            "X" => Ok(Decision::Win(Mark::X)),
            "O" => Ok(Decision::Win(Mark::O)),
            "draw" => Ok(Decision::Draw),
            _ => Err(ParseResultError {
                word: s.to_string(),
                what: "a result",
                expected: "X, O or draw".into(),
            }),
        }
    }
}

/// Why a game ended: the reason words of protocol.md §5. The first three are
/// decided on the board; every other one is the fault of one side, who loses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// Three claimed boards in a line.
    ThreeInARow,
    /// The player to move had no legal mark, and there was no line: a draw.
    NoMoves,
    /// No legal mark left, decided by the number of boards won (house rule).
    MostBoards,
    /// A bot resigned.
    Resign,
    /// A bot missed its deadline.
    Timeout,
    /// A bot chose a square the rules do not allow.
    IllegalMove,
    /// A bot sent a line that is not a move.
    MalformedOutput,
    /// A bot's process died.
    Crash,
    /// A bot closed its output.
    Disconnect,
    /// A bot did not complete the handshake (or could not be started).
    HandshakeFailure,
}

impl EndReason {
    /// Every reason: the three decided on the board first (the order tables show
    /// them in: a line, the house rule's count, no moves left), then the faults.
    pub const ALL: [EndReason; 10] = [
        EndReason::ThreeInARow,
        EndReason::MostBoards,
        EndReason::NoMoves,
        EndReason::Resign,
        EndReason::Timeout,
        EndReason::IllegalMove,
        EndReason::MalformedOutput,
        EndReason::Crash,
        EndReason::Disconnect,
        EndReason::HandshakeFailure,
    ];

    /// The reason word, as in files and in `gameover`.
    pub const fn name(self) -> &'static str {
        match self {
            EndReason::ThreeInARow => "three-in-a-row",
            EndReason::NoMoves => "no-moves",
            EndReason::MostBoards => "most-boards",
            EndReason::Resign => "resign",
            EndReason::Timeout => "timeout",
            EndReason::IllegalMove => "illegal-move",
            EndReason::MalformedOutput => "malformed-output",
            EndReason::Crash => "crash",
            EndReason::Disconnect => "disconnect",
            EndReason::HandshakeFailure => "handshake-failure",
        }
    }

    /// Whether the game was decided on the board (nobody at fault).
    pub const fn on_the_board(self) -> bool {
        matches!(
            self,
            EndReason::ThreeInARow | EndReason::NoMoves | EndReason::MostBoards
        )
    }
}

impl From<Outcome> for EndReason {
    fn from(outcome: Outcome) -> EndReason {
        match outcome {
            Outcome::Win {
                reason: WinReason::ThreeInARow,
                ..
            } => EndReason::ThreeInARow,
            Outcome::Draw {
                reason: DrawReason::NoMoves,
            } => EndReason::NoMoves,
            Outcome::Win {
                reason: WinReason::MostBoards,
                ..
            }
            | Outcome::Draw {
                reason: DrawReason::EqualBoards,
            } => EndReason::MostBoards,
        }
    }
}

/// Reasons sort by their words, so tables listing them stay alphabetical.
impl Ord for EndReason {
    fn cmp(&self, other: &EndReason) -> Ordering {
        self.name().cmp(other.name())
    }
}

impl PartialOrd for EndReason {
    fn partial_cmp(&self, other: &EndReason) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for EndReason {
    type Err = ParseResultError;

    /// The inverse of `Display`.
    fn from_str(s: &str) -> Result<EndReason, ParseResultError> {
        EndReason::ALL
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| ParseResultError {
                word: s.to_string(),
                what: "an end reason",
                expected: format!("one of {}", EndReason::ALL.map(EndReason::name).join(", ")),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_round_trips() {
        for reason in EndReason::ALL {
            assert_eq!(reason.to_string().parse::<EndReason>(), Ok(reason));
        }
        for decision in [
            Decision::Win(Mark::X),
            Decision::Win(Mark::O),
            Decision::Draw,
        ] {
            assert_eq!(decision.to_string().parse::<Decision>(), Ok(decision));
        }
    }

    #[test]
    fn unknown_words_are_refused_with_the_known_ones() {
        let err = "Q".parse::<Decision>().unwrap_err().to_string();
        assert_eq!(err, "'Q' is not a result: use X, O or draw");
        let err = "fell-asleep".parse::<EndReason>().unwrap_err().to_string();
        assert!(err.starts_with("'fell-asleep' is not an end reason: use one of three-in-a-row, "));
    }

    #[test]
    fn reasons_sort_alphabetically_and_the_board_decides_three() {
        let mut all = EndReason::ALL.to_vec();
        all.sort();
        let words: Vec<&str> = all.iter().map(|r| r.name()).collect();
        let mut sorted = words.clone();
        sorted.sort_unstable();
        assert_eq!(words, sorted);
        let board: Vec<EndReason> = EndReason::ALL
            .into_iter()
            .filter(|r| r.on_the_board())
            .collect();
        assert_eq!(
            board,
            [
                EndReason::ThreeInARow,
                EndReason::MostBoards,
                EndReason::NoMoves
            ]
        );
    }
}
