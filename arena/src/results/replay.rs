//! The one replay of a recorded game: the rows of `moves.csv` played again through
//! the rules engine, the one authority on the rules. `arena report` draws its
//! steps and `arena replay` tells and draws them; neither applies a rule itself.
//!
//! Everything about a step (who owns which board, where the next mark may go, the
//! words for the move) comes from [`Position::play`]. A row the rules refuse, or
//! a gap in the ply numbers, stops the replay at the last good step with a typed
//! [`Stop`]; each reader words it for its own readers. How the replayed game
//! compares with its `games.csv` row (the number of marks, the end, the opening) is
//! likewise left to the reader, which knows what it can show.

use std::time::Duration;

use referee::game::MoveRecord;
use uttt::notation::board_name;
use uttt::rules::{BoardIndex, IllegalMove, Mark, Position, Rules};

use super::store::MoveRow;

/// The position after some number of marks, and how it was reached.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The position after this step's mark (the empty board for step 0).
    pub position: Position,
    /// The mark made at this step; `None` for step 0.
    pub played: Option<Played>,
}

/// One mark as the engine describes it, with what the log said about it.
#[derive(Clone, Debug, PartialEq)]
pub struct Played {
    /// The mark, as the engine describes it (ply, mark, square, claims).
    pub record: MoveRecord,
    /// The bot's name, or `None` for a move of the opening.
    pub bot: Option<String>,
    /// The measured think time in milliseconds, as logged.
    pub think_ms: Option<f64>,
    /// What the bot said about the move (depth, score, nodes, pv, text), in one line.
    pub info: String,
}

/// Why the replay stopped before the last row.
#[derive(Clone, Debug, PartialEq)]
pub struct Stop {
    /// The refused row's index among the rows given (0-based).
    pub index: usize,
    /// What is wrong with it.
    pub problem: RowProblem,
}

/// What the engine found wrong with a row of `moves.csv`.
#[derive(Clone, Debug, PartialEq)]
pub enum RowProblem {
    /// The ply number is not the next one.
    OutOfOrder {
        /// The ply the row should have had.
        expected: usize,
    },
    /// The row's mark is not the side to move.
    NotItsTurn {
        /// The side to move.
        turn: Mark,
    },
    /// The square is illegal in the position.
    Illegal(IllegalMove),
}

/// A game, replayed.
#[derive(Clone, Debug, PartialEq)]
pub struct Replay {
    /// Step 0 (the empty board), then one step per mark that replayed.
    pub steps: Vec<Step>,
    /// The row that did not replay, if any.
    pub stop: Option<Stop>,
}

impl Replay {
    /// The marks that replayed.
    pub fn plies(&self) -> usize {
        self.steps.len() - 1
    }

    /// The moves that replayed, in order.
    pub fn moves(&self) -> impl Iterator<Item = &MoveRecord> {
        self.steps
            .iter()
            .filter_map(|s| s.played.as_ref().map(|p| &p.record))
    }

    /// The position after the last mark that replayed.
    pub fn last(&self) -> &Position {
        // Step 0 is always there.
        &self.steps[self.steps.len() - 1].position
    }
}

impl Step {
    /// The boards the next mark may go in (empty when the game is over), from the
    /// engine's legal moves: one board when the player was sent there, every open
    /// board on a free move.
    pub fn playable(&self) -> Vec<BoardIndex> {
        let legal = self.position.legal_moves();
        BoardIndex::ALL
            .into_iter()
            .filter(|&b| legal.iter().any(|sq| sq.board() == b))
            .collect()
    }

    /// The side to move and where, in words ("O to play in the top-right board");
    /// empty once the game is over.
    pub fn caption(&self) -> String {
        let p = &self.position;
        if p.is_over() {
            return String::new();
        }
        caption_words(p.side_to_move(), p.required_board())
    }
}

/// Who is to move and where, in words: "O to play in the top-right board" when
/// sent there (`Some`), "X has a free move: any open board" otherwise.
pub fn caption_words(side: Mark, sent_to: Option<BoardIndex>) -> String {
    match sent_to {
        Some(b) => format!("{side} to play in the {}", board_name(b)),
        None => format!("{side} has a free move: any open board"),
    }
}

/// Replays `moves` (one game's rows of `moves.csv`, in ply order) under `rules`,
/// up to the first row the engine refuses.
pub fn replay<'a>(rules: Rules, moves: impl IntoIterator<Item = &'a MoveRow>) -> Replay {
    let mut position = Position::new(rules);
    let mut steps = vec![Step {
        position,
        played: None,
    }];
    for (index, row) in moves.into_iter().enumerate() {
        match next_step(&position, row, index) {
            Ok(step) => {
                position = step.position;
                steps.push(step);
            }
            Err(problem) => {
                return Replay {
                    steps,
                    stop: Some(Stop { index, problem }),
                };
            }
        }
    }
    Replay { steps, stop: None }
}

fn next_step(before: &Position, row: &MoveRow, index: usize) -> Result<Step, RowProblem> {
    let expected = index + 1;
    if row.ply as usize != expected {
        return Err(RowProblem::OutOfOrder { expected });
    }
    let turn = before.side_to_move();
    if row.mark != turn {
        return Err(RowProblem::NotItsTurn { turn });
    }
    let after = before.play(row.square).map_err(RowProblem::Illegal)?;
    let think = row
        .think_ms
        .filter(|t| t.is_finite() && *t >= 0.0)
        .map(|t| Duration::from_secs_f64(t / 1000.0));
    Ok(Step {
        position: after,
        played: Some(Played {
            record: MoveRecord::new(before, &after, row.square, think, None),
            bot: (!row.is_opening()).then(|| row.bot.clone()),
            think_ms: row.think_ms,
            info: info_line(row),
        }),
    })
}

/// "depth 7 · score 0.31 · nodes 12000 · pv e5 e4; text".
fn info_line(row: &MoveRow) -> String {
    let mut parts = Vec::new();
    if let Some(d) = row.depth {
        parts.push(format!("depth {d}"));
    }
    if let Some(s) = row.score {
        parts.push(format!("score {s}"));
    }
    if let Some(n) = row.nodes {
        parts.push(format!("nodes {n}"));
    }
    if !row.info.is_empty() {
        parts.push(row.info.clone());
    }
    parts.join(" · ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::store::OPENING_BOT;
    use uttt::notation::parse_move_list;
    use uttt::rules::{BoardState, IllegalReason};

    fn rows(moves: &str) -> Vec<MoveRow> {
        let squares = parse_move_list(moves).unwrap();
        let mut position = Position::new(Rules::STANDARD);
        squares
            .iter()
            .enumerate()
            .map(|(i, &sq)| {
                let mark = position.side_to_move();
                position = position.play(sq).unwrap();
                MoveRow {
                    game: "G1".into(),
                    ply: i as u32 + 1,
                    mark,
                    bot: if i < 2 {
                        OPENING_BOT.into()
                    } else {
                        format!("bot-{mark}")
                    },
                    square: sq,
                    board: sq.board().number(),
                    cell: sq.cell().number(),
                    free_move: false,
                    think_ms: (i >= 2).then_some(1.5),
                    depth: Some(3),
                    score: None,
                    nodes: Some(42),
                    info: "pv e5".into(),
                    claimed: None,
                    drawn: None,
                    charged_ms: None,
                    cpu_ms: None,
                    wait_ms: None,
                    late_ms: None,
                }
            })
            .collect()
    }

    /// O claims the top-left board with its middle row (board.cell notation), each
    /// mark sent there by X's previous one.
    const CLAIM: &str = "9.1 1.4 4.1 1.5 5.1 1.6";

    #[test]
    fn every_step_is_the_engines_position_after_that_many_moves() {
        let replay = replay(Rules::STANDARD, &rows(CLAIM));
        assert_eq!(replay.stop, None);
        assert_eq!(replay.plies(), 6);
        let squares = parse_move_list(CLAIM).unwrap();
        for (k, step) in replay.steps.iter().enumerate() {
            let expected = Position::from_moves(Rules::STANDARD, squares[..k].iter().copied());
            assert_eq!(Ok(step.position), expected, "step {k}");
        }
        // Step 0 is a free move; 9.1, the top-left cell of the bottom-right board,
        // sends O to the top-left board.
        assert_eq!(replay.steps[0].playable().len(), 9);
        assert_eq!(
            replay.steps[0].caption(),
            "X has a free move: any open board"
        );
        assert_eq!(
            replay.steps[1].playable(),
            [BoardIndex::try_new(0).unwrap()]
        );
        assert_eq!(replay.steps[1].caption(), "O to play in the top-left board");
        assert_eq!(replay.moves().count(), 6);
    }

    #[test]
    fn claims_are_the_engines_and_close_the_board() {
        let replay = replay(Rules::STANDARD, &rows(CLAIM));
        let last = replay.steps.last().unwrap();
        let played = last.played.as_ref().unwrap();
        assert_eq!(
            played.record.narrative(false),
            [
                "O played middle-right of top-left board",
                "O claims the top-left board"
            ]
        );
        assert_eq!(
            last.position.board_state(BoardIndex::try_new(0).unwrap()),
            BoardState::Won(Mark::O)
        );
        // Cell 6 sends X to the middle-right board.
        assert_eq!(last.playable(), [BoardIndex::try_new(5).unwrap()]);
        assert_eq!(played.info, "depth 3 · nodes 42 · pv e5");
        assert_eq!(played.bot.as_deref(), Some("bot-O"));
        assert_eq!(played.record.think, Some(Duration::from_micros(1500)));
        assert_eq!(replay.steps[1].played.as_ref().unwrap().bot, None);
    }

    #[test]
    fn a_row_the_rules_refuse_stops_the_replay_with_the_reason() {
        let mut moves = rows(CLAIM);
        moves[3].square = "a2".parse().unwrap(); // 1.4, taken by O at ply 2
        let replayed = replay(Rules::STANDARD, &moves);
        assert_eq!(replayed.plies(), 3);
        let stop = replayed.stop.unwrap();
        assert_eq!(stop.index, 3);
        let RowProblem::Illegal(error) = stop.problem else {
            panic!("{:?}", stop.problem);
        };
        assert_eq!(error.reason, IllegalReason::Occupied { by: Mark::O });

        let mut moves = rows(CLAIM);
        moves.remove(2);
        let stop = replay(Rules::STANDARD, &moves).stop.unwrap();
        assert_eq!(
            (stop.index, stop.problem),
            (2, RowProblem::OutOfOrder { expected: 3 })
        );

        let mut moves = rows(CLAIM);
        moves[0].mark = Mark::O;
        let stop = replay(Rules::STANDARD, &moves).stop.unwrap();
        assert_eq!(
            (stop.index, stop.problem),
            (0, RowProblem::NotItsTurn { turn: Mark::X })
        );
    }
}
