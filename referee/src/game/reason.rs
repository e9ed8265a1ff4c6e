//! The reason words of protocol.md §5 as a closed set: what `gameover`, the CSV
//! files and the reports say about why a game ended, and whether that was decided
//! on the board or by a bot's fault. Reading a results file checks its words here.

use std::fmt;
use std::str::FromStr;

/// Why a game ended, as one word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EndReason {
    /// A line of three small boards.
    ThreeInARow,
    /// No legal mark left and no line: a draw.
    NoMoves,
    /// `most-boards` variant: no line, no legal mark; more boards won (or a draw).
    MostBoards,
    /// A bot resigned.
    Resign,
    /// A bot missed its deadline.
    Timeout,
    /// A bot chose a square the rules do not allow.
    IllegalMove,
    /// A bot sent a line that is not a valid reply.
    MalformedOutput,
    /// A bot's process ended.
    Crash,
    /// A bot closed a pipe but kept running.
    Disconnect,
    /// A bot did not complete the handshake.
    HandshakeFailure,
}

impl EndReason {
    /// Every reason, in protocol.md's order.
    pub const ALL: [EndReason; 10] = [
        EndReason::ThreeInARow,
        EndReason::NoMoves,
        EndReason::MostBoards,
        EndReason::Resign,
        EndReason::Timeout,
        EndReason::IllegalMove,
        EndReason::MalformedOutput,
        EndReason::Crash,
        EndReason::Disconnect,
        EndReason::HandshakeFailure,
    ];

    /// The word, as in protocol.md §5.
    pub const fn word(self) -> &'static str {
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

    /// Whether the rules decided the game (nobody was at fault). Otherwise the
    /// loser forfeited it — or, when both bots failed before the first move, it is
    /// a draw.
    pub const fn on_the_board(self) -> bool {
        matches!(
            self,
            EndReason::ThreeInARow | EndReason::NoMoves | EndReason::MostBoards
        )
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

impl FromStr for EndReason {
    type Err = String;

    /// The inverse of `Display`.
    fn from_str(s: &str) -> Result<EndReason, String> {
        EndReason::ALL
            .into_iter()
            .find(|r| r.word() == s)
            .ok_or_else(|| {
                let words: Vec<&str> = EndReason::ALL.iter().map(|r| r.word()).collect();
                format!(
                    "'{s}' is not an end reason: use one of {}",
                    words.join(", ")
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip_and_only_board_reasons_are_on_the_board() {
        for r in EndReason::ALL {
            assert_eq!(r.word().parse::<EndReason>(), Ok(r));
        }
        let board: Vec<&str> = EndReason::ALL
            .iter()
            .filter(|r| r.on_the_board())
            .map(|r| r.word())
            .collect();
        assert_eq!(board, ["three-in-a-row", "no-moves", "most-boards"]);
        assert!("Timeout".parse::<EndReason>().is_err());
    }
}
