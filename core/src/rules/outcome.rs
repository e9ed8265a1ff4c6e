//! How a game stands: still going, or over with a winner or a draw and why.
//! Two layers, so "not finished" can never be read as a draw.

use std::fmt;
use std::str::FromStr;

use super::Mark;

/// Whether the game goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// The side to move has at least one legal mark.
    Ongoing,
    /// The game has ended.
    Over(Outcome),
}

impl Status {
    /// The outcome if the game is over.
    pub const fn outcome(self) -> Option<Outcome> {
        match self {
            Status::Ongoing => None,
            Status::Over(outcome) => Some(outcome),
        }
    }
}

/// How a finished game ended on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// `winner` won.
    Win {
        /// Who won.
        winner: Mark,
        /// Why.
        reason: WinReason,
    },
    /// Nobody won.
    Draw {
        /// Why.
        reason: DrawReason,
    },
}

/// Why a game was won on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WinReason {
    /// The winner owns three small boards in a line.
    ThreeInARow,
    /// No line, no legal mark left, and the winner owns more small boards
    /// (only under the `most-boards` variant).
    MostBoards,
}

/// Why a game was drawn on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DrawReason {
    /// The next player has no legal mark and nobody has a line.
    NoMoves,
    /// No legal mark left and both own as many small boards (`most-boards`).
    EqualBoards,
}

impl Outcome {
    /// The winner, or `None` for a draw.
    pub const fn winner(self) -> Option<Mark> {
        match self {
            Outcome::Win { winner, .. } => Some(winner),
            Outcome::Draw { .. } => None,
        }
    }

    /// The reason as a short kebab-case word, as written in CSV files.
    pub const fn reason_name(self) -> &'static str {
        match self {
            Outcome::Win {
                reason: WinReason::ThreeInARow,
                ..
            } => "three-in-a-row",
            Outcome::Win {
                reason: WinReason::MostBoards,
                ..
            } => "most-boards",
            Outcome::Draw {
                reason: DrawReason::NoMoves,
            } => "no-moves",
            Outcome::Draw {
                reason: DrawReason::EqualBoards,
            } => "equal-boards",
        }
    }
}

impl fmt::Display for Outcome {
    /// `X three-in-a-row`, `O most-boards`, `draw no-moves`, `draw equal-boards`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.winner() {
            Some(mark) => write!(f, "{mark} {}", self.reason_name()),
            None => write!(f, "draw {}", self.reason_name()),
        }
    }
}

impl FromStr for Outcome {
    type Err = String;

    /// The inverse of `Display`.
    fn from_str(s: &str) -> Result<Self, String> {
        let err = || {
            format!(
                "'{s}' is not an outcome: expected 'X three-in-a-row', 'O most-boards', \
                 'draw no-moves' or 'draw equal-boards'"
            )
        };
        let (who, why) = s.trim().split_once(' ').ok_or_else(err)?;
        match (who, why.trim()) {
            ("draw", "no-moves") => Ok(Outcome::Draw {
                reason: DrawReason::NoMoves,
            }),
            ("draw", "equal-boards") => Ok(Outcome::Draw {
                reason: DrawReason::EqualBoards,
            }),
            (mark, reason) => {
                let winner = mark.parse::<Mark>().map_err(|_| err())?;
                let reason = match reason {
                    "three-in-a-row" => WinReason::ThreeInARow,
                    "most-boards" => WinReason::MostBoards,
                    _ => return Err(err()),
                };
                Ok(Outcome::Win { winner, reason })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_round_trip() {
        let all = [
            Outcome::Win {
                winner: Mark::X,
                reason: WinReason::ThreeInARow,
            },
            Outcome::Win {
                winner: Mark::O,
                reason: WinReason::MostBoards,
            },
            Outcome::Draw {
                reason: DrawReason::NoMoves,
            },
            Outcome::Draw {
                reason: DrawReason::EqualBoards,
            },
        ];
        for o in all {
            assert_eq!(o.to_string().parse::<Outcome>(), Ok(o));
        }
        assert_eq!(all[0].to_string(), "X three-in-a-row");
        assert!("draw three-in-a-row".parse::<Outcome>().is_err());
    }
}
