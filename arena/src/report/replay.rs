//! A game's positions, ply by ply, computed by the rules engine from `moves.csv`.
//!
//! The page never applies a rule: everything it draws for a step (who owns which
//! board, which boards are drawn, where the next mark may go, the words for the
//! move) comes from here, where [`Position::play`] decides. A row that the rules
//! refuse, a gap in the ply numbers or a count that disagrees with `games.csv` stops
//! the replay at the last good step and is reported as a [`Replay::problem`], so a
//! damaged or hand-edited file shows as damaged instead of as a wrong game.

use uttt::notation::{board_name, move_words};
use uttt::rules::{BoardIndex, BoardState, Mark, Position, Rules, Square};

use crate::store::{GameRow, MoveRow};

/// The position after some number of marks, and how it was reached.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The position after this step's mark (the empty board for step 0).
    pub position: Position,
    /// The mark made at this step; `None` for step 0.
    pub played: Option<Played>,
}

/// One mark as the log recorded it.
#[derive(Clone, Debug, PartialEq)]
pub struct Played {
    /// Where.
    pub square: Square,
    /// Who.
    pub mark: Mark,
    /// The bot's name, or `None` for a move of the opening.
    pub bot: Option<String>,
    /// The measured think time in milliseconds.
    pub think_ms: Option<f64>,
    /// What the bot said about the move (depth, score, nodes, pv, text), in one line.
    pub info: String,
    /// The move in words, then a board it claimed or drew, as the logs tell it.
    pub lines: Vec<String>,
}

/// A whole game, replayed.
#[derive(Clone, Debug, PartialEq)]
pub struct Replay {
    /// Step 0 (the empty board), then one step per mark.
    pub steps: Vec<Step>,
    /// Why the replay stops before the recorded end, or disagrees with it.
    pub problem: Option<String>,
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
        let side = p.side_to_move();
        match p.required_board() {
            Some(b) => format!("{side} to play in the {}", board_name(b)),
            None => format!("{side} has a free move: any open board"),
        }
    }
}

/// Replays `moves` (one game's rows of `moves.csv`, in ply order) under the rules
/// named in `game`.
pub fn replay(game: &GameRow, moves: &[MoveRow]) -> Replay {
    let rules: Rules = match game.rules.parse() {
        Ok(rules) => rules,
        Err(e) => {
            return Replay {
                steps: vec![Step {
                    position: Position::new(Rules::STANDARD),
                    played: None,
                }],
                problem: Some(format!("game {}: {e}", game.id)),
            };
        }
    };
    let mut position = Position::new(rules);
    let mut steps = vec![Step {
        position,
        played: None,
    }];
    for (i, row) in moves.iter().enumerate() {
        match next_step(&position, row, i) {
            Ok(step) => {
                position = step.position;
                steps.push(step);
            }
            Err(why) => {
                return Replay {
                    steps,
                    problem: Some(format!(
                        "moves.csv, game {} ply {}: {why}",
                        game.id, row.ply
                    )),
                };
            }
        }
    }
    let problem = check_end(game, &position, moves.len());
    Replay { steps, problem }
}

fn next_step(before: &Position, row: &MoveRow, index: usize) -> Result<Step, String> {
    let expected_ply = index + 1;
    if row.ply as usize != expected_ply {
        return Err(format!("expected ply {expected_ply} here"));
    }
    let square: Square = row.square.parse().map_err(|e| format!("{e}"))?;
    let mark = before.side_to_move();
    if row.mark != mark.to_string() {
        return Err(format!(
            "the row says {} moved, but it was {mark}'s turn",
            row.mark
        ));
    }
    let after = before.play(square).map_err(|e| {
        format!(
            "{square} is not a legal move here: {}",
            uttt::notation::illegal_words(&e)
        )
    })?;
    let opening = row.bot == "opening";
    let mut first = move_words(mark, square);
    if opening {
        first.push_str(" (opening)");
    }
    let mut lines = vec![first];
    let board = square.board();
    match (before.board_state(board), after.board_state(board)) {
        (BoardState::Open, BoardState::Won(owner)) => {
            lines.push(format!("{owner} claims the {}", board_name(board)));
        }
        (BoardState::Open, BoardState::Drawn) => {
            lines.push(format!("The {} is drawn", board_name(board)));
        }
        _ => {}
    }
    Ok(Step {
        position: after,
        played: Some(Played {
            square,
            mark,
            bot: (!opening).then(|| row.bot.clone()),
            think_ms: row.think_ms,
            info: info_line(row),
            lines,
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

/// Whether the replayed end agrees with `games.csv`.
fn check_end(game: &GameRow, position: &Position, marks: usize) -> Option<String> {
    if marks != game.plies as usize {
        return Some(format!(
            "moves.csv has {marks} marks for game {}, games.csv says {}",
            game.id, game.plies
        ));
    }
    let outcome = position.status().outcome()?;
    let winner = outcome
        .winner()
        .map_or("draw".to_string(), |m| m.to_string());
    if winner != game.winner || outcome.reason_name() != game.reason {
        return Some(format!(
            "the rules end game {} as {winner} ({}), games.csv says {} ({})",
            game.id,
            outcome.reason_name(),
            game.winner,
            game.reason
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use uttt::notation::parse_move_list;

    fn game(moves: &str, winner: &str, reason: &str) -> (GameRow, Vec<MoveRow>) {
        let squares = parse_move_list(moves).unwrap();
        let mut position = Position::new(Rules::STANDARD);
        let rows: Vec<MoveRow> = squares
            .iter()
            .enumerate()
            .map(|(i, &sq)| {
                let mark = position.side_to_move();
                position = position.play(sq).unwrap();
                MoveRow {
                    game: "G1".into(),
                    ply: i as u32 + 1,
                    mark: mark.to_string(),
                    bot: if i < 2 {
                        "opening".into()
                    } else {
                        format!("bot-{mark}")
                    },
                    square: sq.to_string(),
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
                }
            })
            .collect();
        let row = GameRow {
            id: "G1".into(),
            round: 1,
            pair: 1,
            x: "bot-X".into(),
            o: "bot-O".into(),
            opening: String::new(),
            winner: winner.into(),
            winner_name: String::new(),
            reason: reason.into(),
            detail: String::new(),
            plies: rows.len() as u32,
            boards_x: 0,
            boards_o: 0,
            rules: "standard".into(),
            duration_ms: 1,
            seed: 1,
        };
        (row, rows)
    }

    /// O claims the top-left board with its middle row (board.cell notation), each
    /// mark sent there by X's previous one.
    const CLAIM: &str = "9.1 1.4 4.1 1.5 5.1 1.6";

    #[test]
    fn every_step_is_the_engines_position_after_that_many_moves() {
        let (row, moves) = game(CLAIM, "X", "timeout");
        let replay = replay(&row, &moves);
        assert_eq!(replay.problem, None);
        assert_eq!(replay.steps.len(), 7);
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
    }

    #[test]
    fn claims_are_told_and_close_the_board() {
        let (row, moves) = game(CLAIM, "X", "timeout");
        let replay = replay(&row, &moves);
        let last = replay.steps.last().unwrap();
        let played = last.played.as_ref().unwrap();
        assert_eq!(
            played.lines,
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
        assert_eq!(replay.steps[1].played.as_ref().unwrap().bot, None);
        assert_eq!(
            replay.steps[1].played.as_ref().unwrap().lines[0],
            "X played top-left of bottom-right board (opening)"
        );
    }

    #[test]
    fn an_illegal_row_stops_the_replay_with_the_reason() {
        let (row, mut moves) = game(CLAIM, "X", "timeout");
        moves[3].square = "a2".into(); // 1.4, taken by O at ply 2
        let replay = replay(&row, &moves);
        assert_eq!(replay.steps.len(), 4);
        let problem = replay.problem.unwrap();
        assert!(problem.contains("ply 4"), "{problem}");
        assert!(
            problem.contains("a2 is not a legal move here: a2 is already taken by O"),
            "{problem}"
        );
    }

    #[test]
    fn gaps_wrong_marks_and_counts_are_reported() {
        let (row, mut moves) = game(CLAIM, "X", "timeout");
        moves.remove(2);
        let problem = replay(&row, &moves).problem.unwrap();
        assert!(problem.contains("expected ply 3"), "{problem}");

        let (row, mut moves) = game(CLAIM, "X", "timeout");
        moves[0].mark = "O".into();
        let problem = replay(&row, &moves).problem.unwrap();
        assert!(problem.contains("X's turn"), "{problem}");

        let (mut row, moves) = game(CLAIM, "X", "timeout");
        row.plies = 9;
        let problem = replay(&row, &moves).problem.unwrap();
        assert!(problem.contains("6 marks"), "{problem}");
    }

    #[test]
    fn a_finished_game_must_end_as_games_csv_says() {
        // Always the first legal square: a complete game, decided by the engine.
        let mut position = Position::new(Rules::STANDARD);
        let mut squares = Vec::new();
        while let Some(sq) = position.legal_moves().nth(0) {
            squares.push(sq);
            position = position.play(sq).unwrap();
        }
        let outcome = position.status().outcome().unwrap();
        let winner = outcome
            .winner()
            .map_or("draw".to_string(), |m| m.to_string());
        let list = uttt::notation::format_move_list(&squares);
        let (row, moves) = game(&list, &winner, outcome.reason_name());
        let good = replay(&row, &moves);
        assert_eq!(good.problem, None);
        let last = good.steps.last().unwrap();
        assert!(last.position.is_over());
        assert!(last.playable().is_empty());
        assert_eq!(last.caption(), "");
        let (row, moves) = game(&list, "draw", "crash");
        let problem = replay(&row, &moves).problem.unwrap();
        assert!(problem.contains("games.csv says draw (crash)"), "{problem}");
    }
}
