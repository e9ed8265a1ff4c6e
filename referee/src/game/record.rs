//! What a finished game leaves behind: every mark with its time and the bot's info,
//! the result, and why the game ended, in words a person understands.

use std::time::Duration;

use crate::bot::{Fault, GameEvidence, Usage};
use uttt::notation::{board_name, illegal_words, move_words};
use uttt::protocol::Info;
use uttt::result::EndReason;
use uttt::rules::{
    BoardIndex, ByMark, DrawReason, IllegalMove, Mark, Outcome, Position, Rules, Square, WinReason,
};

/// Why a game ended. A closed set; [`Termination::reason`] gives the word used in
/// protocol messages and CSV files, [`Termination::describe`] the sentence for people.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Termination {
    /// The rules ended it: a line, no moves, or the most-boards count.
    Board(Outcome),
    /// A bot resigned.
    Resign {
        /// Who resigned.
        by: Mark,
    },
    /// A bot chose a square the rules do not allow.
    IllegalMove {
        /// Who.
        by: Mark,
        /// The square and why it is illegal.
        error: IllegalMove,
    },
    /// A bot broke the protocol, the clock, or died.
    Fault {
        /// Who.
        by: Mark,
        /// What happened.
        fault: Fault,
    },
}

impl Termination {
    /// The reason of protocol.md §5.
    pub fn reason(&self) -> EndReason {
        match self {
            Termination::Board(outcome) => EndReason::from(*outcome),
            Termination::Resign { .. } => EndReason::Resign,
            Termination::IllegalMove { .. } => EndReason::IllegalMove,
            Termination::Fault { fault, .. } => fault.reason(),
        }
    }

    /// The bot at fault, for endings that are a bot's fault (resigning included).
    pub fn culprit(&self) -> Option<Mark> {
        match self {
            Termination::Board(_) => None,
            Termination::Resign { by }
            | Termination::IllegalMove { by, .. }
            | Termination::Fault { by, .. } => Some(*by),
        }
    }

    /// Why the game ended, as a sentence fragment naming the bots, e.g. "O (random)
    /// played e5, which is illegal: e5 is already taken by X".
    pub fn describe(&self, names: &ByMark<String>, boards: ByMark<u32>) -> String {
        let who = |m: Mark| format!("{m} ({})", names.get(m));
        match self {
            Termination::Board(Outcome::Win {
                reason: WinReason::ThreeInARow,
                ..
            }) => "three boards in a row".to_string(),
            Termination::Board(Outcome::Draw {
                reason: DrawReason::NoMoves,
            }) => "no legal move left and no line of boards".to_string(),
            Termination::Board(Outcome::Win {
                winner,
                reason: WinReason::MostBoards,
            }) => format!(
                "no line of boards; more small boards won ({} to {})",
                boards.get(*winner),
                boards.get(!*winner)
            ),
            Termination::Board(Outcome::Draw {
                reason: DrawReason::EqualBoards,
            }) => {
                format!(
                    "no line of boards and equal small boards won ({} each)",
                    boards.x
                )
            }
            Termination::Resign { by } => format!("{} resigned", who(*by)),
            Termination::IllegalMove { by, error } => format!(
                "{} played {}, which is illegal: {}",
                who(*by),
                error.square,
                illegal_words(error)
            ),
            Termination::Fault { by, fault } => format!("{} {fault}", who(*by)),
        }
    }
}

/// One mark of the game.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveRecord {
    /// 1-based ply number (opening moves included).
    pub ply: u32,
    /// Who marked.
    pub mark: Mark,
    /// Where.
    pub square: Square,
    /// Whether the mover could choose any open board.
    pub free_move: bool,
    /// Measured think time (wall); `None` for moves of the opening.
    pub think: Option<Duration>,
    /// What the scheduler counted and what the move was charged; `None` for
    /// moves of the opening and moves read back without it.
    pub usage: Option<Usage>,
    /// The bot's last `info` line for this move.
    pub info: Option<Info>,
    /// The small board this mark claimed, if any.
    pub claimed: Option<BoardIndex>,
    /// The small board this mark filled without a line, if any.
    pub drawn: Option<BoardIndex>,
}

impl MoveRecord {
    /// Describes `square` played from `before` (which must be legal there).
    pub fn new(
        before: &Position,
        after: &Position,
        square: Square,
        think: Option<Duration>,
        info: Option<Info>,
    ) -> Self {
        let board = square.board();
        let won_before = before.boards_won();
        let won_after = after.boards_won();
        let bit = 1u16 << board.index();
        let mark = before.side_to_move();
        let claimed =
            (won_after.get(mark) & bit != 0 && won_before.get(mark) & bit == 0).then_some(board);
        let drawn =
            (after.boards_drawn() & bit != 0 && before.boards_drawn() & bit == 0).then_some(board);
        MoveRecord {
            ply: before.ply() + 1,
            mark,
            square,
            free_move: before.required_board().is_none(),
            think,
            usage: None,
            info,
            claimed,
            drawn,
        }
    }

    /// This mark in the words of the log: "X played center of top-right board"
    /// (with " (opening)" for a move of the opening), then the board it claimed or
    /// filled on a line of its own. One function, so a live game and a replay of
    /// its CSV files say the same thing.
    pub fn narrative(&self, in_opening: bool) -> Vec<String> {
        let mut lines = vec![move_line(self.mark, self.square, in_opening)];
        if let Some(b) = self.claimed {
            lines.push(claim_line(self.mark, b));
        }
        if let Some(b) = self.drawn {
            lines.push(drawn_line(b));
        }
        lines
    }
}

/// The first line of a mark's narrative: "X played center of top-right board",
/// with " (opening)" for a move of the opening. Public, with [`claim_line`] and
/// [`drawn_line`], so that the report's word tables say exactly what the logs say.
pub fn move_line(mark: Mark, square: Square, in_opening: bool) -> String {
    let mut line = move_words(mark, square);
    if in_opening {
        line.push_str(" (opening)");
    }
    line
}

/// "X claims the top-left board".
pub fn claim_line(mark: Mark, board: BoardIndex) -> String {
    format!("{mark} claims the {}", board_name(board))
}

/// "The top-left board is drawn".
pub fn drawn_line(board: BoardIndex) -> String {
    format!("The {} is drawn", board_name(board))
}

/// A finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// The game's id (from its spec).
    pub id: String,
    /// The bots' names by mark.
    pub names: ByMark<String>,
    /// The rules.
    pub rules: Rules,
    /// How many of `moves` came from the opening.
    pub opening_plies: usize,
    /// Every mark, opening included.
    pub moves: Vec<MoveRecord>,
    /// The winner, or `None` for a draw.
    pub winner: Option<Mark>,
    /// Why it ended.
    pub termination: Termination,
    /// The final position.
    pub position: Position,
    /// Wall time from the first message to the last.
    pub duration: Duration,
    /// The seed each bot was sent in `newgame`.
    pub seeds: ByMark<u64>,
    /// Protocol transcripts of both bots, kept when the game ended abnormally.
    pub transcripts: ByMark<Vec<String>>,
    /// What each bot's process left during the game (stderr, peak memory), kept
    /// when the game ended abnormally and the seat was a process.
    pub evidence: ByMark<Option<GameEvidence>>,
}

impl GameRecord {
    /// Small boards won by each side at the end.
    pub fn boards_won(&self) -> ByMark<u32> {
        self.position.boards_won().map(u16::count_ones)
    }

    /// Whether the game ended by a fault, a resignation or an illegal move.
    pub fn is_abnormal(&self) -> bool {
        self.termination.culprit().is_some()
    }

    /// The result line: "X (mcts) wins: three boards in a row." or "Draw: …".
    pub fn result_line(&self) -> String {
        let why = self.termination.describe(&self.names, self.boards_won());
        result_sentence(self.winner, &self.names, &why)
    }

    /// The game in words, one line per mark ("X played center of top-right board"),
    /// board claims and drawn boards on their own lines, then the result.
    pub fn narrative(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .moves
            .iter()
            .flat_map(|m| m.narrative(m.ply as usize <= self.opening_plies))
            .collect();
        lines.push(self.result_line());
        lines
    }
}

/// The result line from its parts: "X (mcts) wins: three boards in a row." or
/// "Draw: …". Public so that a game read back from its CSV row (which keeps the
/// winner and the described reason, not the [`Termination`]) reads the same.
pub fn result_sentence(winner: Option<Mark>, names: &ByMark<String>, why: &str) -> String {
    match winner {
        Some(m) => format!("{m} ({}) wins: {why}.", names.get(m)),
        None => format!("Draw: {why}."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::ExitInfo;
    use uttt::rules::{IllegalReason, Mark};

    fn names() -> ByMark<String> {
        ByMark {
            x: "mcts".into(),
            o: "random".into(),
        }
    }

    #[test]
    fn descriptions_word_for_word() {
        let boards = ByMark { x: 3, o: 2 };
        let sq: Square = "e5".parse().unwrap();
        let cases = [
            (
                Termination::Board(Outcome::Win {
                    winner: Mark::X,
                    reason: WinReason::ThreeInARow,
                }),
                "three-in-a-row",
                "three boards in a row",
            ),
            (
                Termination::Board(Outcome::Draw {
                    reason: DrawReason::NoMoves,
                }),
                "no-moves",
                "no legal move left and no line of boards",
            ),
            (
                Termination::Board(Outcome::Win {
                    winner: Mark::X,
                    reason: WinReason::MostBoards,
                }),
                "most-boards",
                "no line of boards; more small boards won (3 to 2)",
            ),
            (
                Termination::Resign { by: Mark::O },
                "resign",
                "O (random) resigned",
            ),
            (
                Termination::IllegalMove {
                    by: Mark::O,
                    error: IllegalMove {
                        square: sq,
                        reason: IllegalReason::Occupied { by: Mark::X },
                    },
                },
                "illegal-move",
                "O (random) played e5, which is illegal: e5 is already taken by X",
            ),
            (
                Termination::Fault {
                    by: Mark::X,
                    fault: Fault::Crash {
                        exit: ExitInfo::Code(3),
                        partial: None,
                        stderr_tail: String::new(),
                    },
                },
                "crash",
                "X (mcts) crashed (exit code 3)",
            ),
            (
                Termination::Fault {
                    by: Mark::O,
                    fault: Fault::Disconnect {
                        detail: "it closed its standard output but kept running".into(),
                    },
                },
                "disconnect",
                "O (random) disconnected: it closed its standard output but kept running",
            ),
            (
                Termination::Fault {
                    by: Mark::X,
                    fault: Fault::HandshakeFailure {
                        detail: "no 'ready' within 5000 ms".into(),
                    },
                },
                "handshake-failure",
                "X (mcts) failed the handshake: no 'ready' within 5000 ms",
            ),
            (
                Termination::Fault {
                    by: Mark::X,
                    fault: Fault::Malformed {
                        problem: "'hello' is not a move (a1..i9), 'resign' or an 'info' line"
                            .into(),
                    },
                },
                "malformed-output",
                "X (mcts) sent malformed output: 'hello' is not a move (a1..i9), 'resign' or an 'info' line",
            ),
        ];
        for (termination, word, sentence) in cases {
            assert_eq!(termination.reason().name(), word);
            assert_eq!(termination.describe(&names(), boards), sentence);
        }
    }
}
