//! Finding an order of moves that reaches a given position.
//!
//! Bots learn a game only as a list of moves from the empty board (protocol.md
//! `go … moves`), and `games.csv` records openings the same way, so a game that
//! starts from a position text (`arena play --from`) needs some move order that
//! leads there. Any order will do: only the marks, the board the next player is
//! sent to and the side to move matter for the rest of the game.
//!
//! The search works backwards from the target, which the send rule keeps narrow:
//! the last mark must sit in the cell that names the board the next player is
//! sent to (or, for a free move, name a board that is now closed), and the board
//! it sits in is where its player had been sent. Each step takes one such mark
//! off, and is kept only if the rules engine, playing that mark forwards, gives
//! back exactly the position it came from; so the order found is legal by the
//! engine's own judgement, not by a second implementation of the rules. Dead
//! positions are remembered, so transpositions are searched once, and a node
//! budget bounds the work for positions no order reaches.

use std::collections::HashSet;

use uttt::notation::parse_position;
use uttt::rules::{BoardIndex, Mark, Position, Square};

/// Positions the search may expand before giving up: far more than positions
/// from real games need (a few hundred), and small enough to answer in seconds.
pub const DEFAULT_BUDGET: u64 = 200_000;

/// Why no move order was found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReachError {
    /// The game is already over in the target.
    #[error("the game is already over in this position")]
    AlreadyOver,
    /// Every order was tried: the rules cannot reach this position.
    #[error(
        "no order of legal moves reaches this position (check whose turn it is and the next board)"
    )]
    Unreachable,
    /// The budget ran out first.
    #[error("no move order found within {budget} steps; give the game as a move list instead")]
    TooHard {
        /// The budget that ran out.
        budget: u64,
    },
}

/// A move order from the empty board (under the target's rules) that reaches
/// `target`: the same marks, the same next board and the same side to move.
///
/// # Errors
/// [`ReachError`]: the target is over, unreachable, or too hard within `budget`.
pub fn moves_reaching(target: &Position, budget: u64) -> Result<Vec<Square>, ReachError> {
    if target.is_over() {
        return Err(ReachError::AlreadyOver);
    }
    let mut search = Search {
        start: Position::new(target.rules()).to_string(),
        nodes: 0,
        budget,
        dead: HashSet::new(),
    };
    let mut path = Vec::with_capacity(target.ply() as usize);
    match search.visit(target, &mut path) {
        Step::Found => {
            path.reverse();
            Ok(path)
        }
        Step::Dead => Err(ReachError::Unreachable),
        Step::OutOfBudget => Err(ReachError::TooHard { budget }),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Found,
    Dead,
    OutOfBudget,
}

#[derive(Debug)]
struct Search {
    /// The empty board's position text.
    start: String,
    nodes: u64,
    budget: u64,
    dead: HashSet<Position>,
}

impl Search {
    /// Searches for a way from the empty board to `pos`, pushing the moves onto
    /// `path` last move first.
    fn visit(&mut self, pos: &Position, path: &mut Vec<Square>) -> Step {
        if pos.ply() == 0 {
            return if pos.to_string() == self.start {
                Step::Found
            } else {
                Step::Dead
            };
        }
        if self.dead.contains(pos) || !arrivals_are_answered(pos) {
            return Step::Dead;
        }
        self.nodes += 1;
        if self.nodes > self.budget {
            return Step::OutOfBudget;
        }
        for (square, before) in predecessors(pos) {
            path.push(square);
            match self.visit(&before, path) {
                Step::Dead => {
                    path.pop();
                }
                found_or_out => return found_or_out,
            }
        }
        self.dead.insert(*pos);
        Step::Dead
    }
}

/// A necessary condition, cheap enough to check at every step: a player sent to
/// a board that is still open answered with a mark in it (the board was open then
/// too), so in every open board the marks of one player cover the times the other
/// sent them there, except for the last send when it is still to be answered.
fn arrivals_are_answered(pos: &Position) -> bool {
    let mut sent = [[0u8; 9]; 2];
    let mut answered = [[0u8; 9]; 2];
    for sq in Square::all() {
        if let Some(mark) = pos.mark_at(sq) {
            sent[mark.index()][sq.cell().index()] += 1;
            answered[mark.index()][sq.board().index()] += 1;
        }
    }
    let last_mover = !pos.side_to_move();
    BoardIndex::ALL
        .iter()
        .filter(|&&b| !pos.is_board_closed(b))
        .all(|&b| {
            Mark::ALL.iter().all(|&sender| {
                let pending = u8::from(sender == last_mover && pos.required_board() == Some(b));
                sent[sender.index()][b.index()] <= answered[(!sender).index()][b.index()] + pending
            })
        })
}

/// Every (last move, position before it) that the engine confirms leads to `pos`.
fn predecessors(pos: &Position) -> Vec<(Square, Position)> {
    let mover = !pos.side_to_move();
    let text = pos.to_string();
    let Some(grid) = expand(&text) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for sq in Square::all().filter(|&sq| pos.mark_at(sq) == Some(mover)) {
        // The mark names the board the next player is sent to, or a closed board
        // when the next move is free.
        let sent = sq.cell().target_board();
        let fits = match pos.required_board() {
            Some(next) => sent == next,
            None => pos.is_board_closed(sent),
        };
        if !fits {
            continue;
        }
        let mut cells = grid.clone();
        cells[sq.row() as usize * 9 + sq.column() as usize] = '.';
        let rows: Vec<String> = cells.chunks(9).map(|r| r.iter().collect()).collect();
        let side = mover.as_char().to_ascii_lowercase();
        for next in [sq.board().number().to_string(), "*".to_string()] {
            let Ok(before) =
                parse_position(&format!("{} {next} {side}", rows.join("/")), pos.rules())
            else {
                continue;
            };
            if before.play(sq).is_ok_and(|after| after.to_string() == text) {
                found.push((sq, before));
            }
        }
    }
    found
}

/// The 81 squares of a position text's first field, row by row, `.` for empty.
fn expand(text: &str) -> Option<Vec<char>> {
    let rows = text.split_whitespace().next()?;
    let mut cells = Vec::with_capacity(81);
    for c in rows.chars() {
        match c {
            '/' => {}
            '1'..='9' => cells.extend(std::iter::repeat_n('.', c as usize - '0' as usize)),
            other => cells.push(other),
        }
    }
    (cells.len() == 81).then_some(cells)
}

#[cfg(test)]
mod tests {
    use super::*;
    use uttt::rules::{Rules, Variant};

    /// A small deterministic generator, so the test needs no RNG crate state.
    fn next(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    #[test]
    fn positions_of_random_games_are_reached_exactly() {
        for rules in [
            Rules::STANDARD,
            Rules::STANDARD.with(Variant::OpenWonBoards),
        ] {
            let mut seed = 0x9E37_79B9_7F4A_7C15u64;
            for game in 0..60 {
                let mut pos = Position::new(rules);
                let stop = 5 + game % 50;
                while !pos.is_over() && pos.ply() < stop {
                    let legal = pos.legal_moves();
                    let pick = legal.nth((next(&mut seed) % legal.len() as u64) as usize);
                    let Some(sq) = pick else { break };
                    let Ok(after) = pos.play(sq) else { break };
                    if after.is_over() {
                        break;
                    }
                    pos = after;
                }
                let text = pos.to_string();
                let target = parse_position(&text, rules).unwrap();
                let moves = moves_reaching(&target, DEFAULT_BUDGET)
                    .unwrap_or_else(|e| panic!("{text}: {e}"));
                let reached = Position::from_moves(rules, moves).unwrap();
                assert_eq!(reached.to_string(), text);
            }
        }
    }

    #[test]
    fn impossible_and_finished_positions_are_refused() {
        // X's only mark, e5, sends O to the center board, not to board 1.
        let target = parse_position("9/9/9/9/4x4/9/9/9/9 1 o", Rules::STANDARD).unwrap();
        assert_eq!(
            moves_reaching(&target, DEFAULT_BUDGET),
            Err(ReachError::Unreachable)
        );
        let over =
            parse_position("xxxxxxxxx/oo1oo1oo1/9/oo7/9/9/9/9/9 * o", Rules::STANDARD).unwrap();
        assert_eq!(
            moves_reaching(&over, DEFAULT_BUDGET),
            Err(ReachError::AlreadyOver)
        );
    }
}
