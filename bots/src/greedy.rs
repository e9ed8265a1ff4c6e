//! `greedy`: one ply of rules of thumb, the way a new player plays. It looks at
//! each legal move on its own — does it claim the board, block a claim, where does
//! it send the opponent — and never looks further.

use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use uttt::rules::{Position, Square};

use crate::engine::{Budget, Choice, Engine, GameSetup, Work, first_legal};
use crate::tactics::{
    CENTRE, board_winning_cells, can_win_now, claims_board, completing, empty_cells,
};

/// Claiming the small board the mark goes in.
const CLAIM: i32 = 100;
/// Taking the cell where the opponent would claim this board.
const BLOCK: i32 = 60;
/// Sending the opponent where it can win the game at once: almost never.
const SEND_TO_GAME_WIN: i32 = -1000;
/// Sending the opponent to a board it can claim at once.
const SEND_TO_CLAIM: i32 = -50;
/// Sending the opponent to a closed board, which gives it a free move.
const SEND_FREE: i32 = -40;
/// The centre cell of a small board takes part in four lines.
const CENTRE_CELL: i32 = 3;
/// The centre board takes part in four big-board lines.
const CENTRE_BOARD: i32 = 2;

/// Rule-based one-ply player; ties are broken at random from the game's seed.
#[derive(Debug)]
pub struct GreedyEngine {
    rng: SmallRng,
}

impl GreedyEngine {
    /// A greedy engine seeded with 0 until the first game.
    pub fn new() -> GreedyEngine {
        GreedyEngine {
            rng: SmallRng::seed_from_u64(0),
        }
    }
}

impl Default for GreedyEngine {
    fn default() -> Self {
        GreedyEngine::new()
    }
}

/// How much greedy likes `sq` in `pos`; `None` when `sq` wins the game.
fn score(pos: &Position, sq: Square) -> Option<i32> {
    let me = pos.side_to_move();
    let after = pos.after_unchecked(sq);
    if after.status().outcome().and_then(|o| o.winner()) == Some(me) {
        return None;
    }
    let b = sq.board().index();
    let c = sq.cell().index();
    let mut total = 0;
    if claims_board(pos, sq) {
        total += CLAIM;
    }
    let their_claims = completing(pos.board_marks(sq.board(), !me)) & empty_cells(pos, b);
    if their_claims >> c & 1 != 0 {
        total += BLOCK;
    }
    if !after.is_over() {
        total += if can_win_now(&after) {
            SEND_TO_GAME_WIN
        } else {
            match after.required_board() {
                None => SEND_FREE,
                Some(t) if board_winning_cells(&after, t.index(), !me) != 0 => SEND_TO_CLAIM,
                Some(_) => 0,
            }
        };
    }
    if c == CENTRE {
        total += CENTRE_CELL;
    }
    if b == CENTRE {
        total += CENTRE_BOARD;
    }
    Some(total)
}

impl Engine for GreedyEngine {
    fn name(&self) -> String {
        "greedy".into()
    }

    fn new_game(&mut self, setup: &GameSetup) {
        self.rng = SmallRng::seed_from_u64(setup.seed);
    }

    fn choose(&mut self, pos: &Position, _history: &[Square], _budget: Budget) -> Choice {
        let mut best = Vec::with_capacity(81);
        let mut best_score = i32::MIN;
        for sq in pos.legal_moves() {
            let Some(s) = score(pos, sq) else {
                return Choice::plain(sq);
            };
            if s > best_score {
                best.clear();
                best_score = s;
            }
            if s == best_score {
                best.push(sq);
            }
        }
        let square = best
            .choose(&mut self.rng)
            .copied()
            .unwrap_or_else(|| first_legal(pos));
        Choice::plain(square)
    }

    fn work(&self) -> Work {
        Work::Fixed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::X_WINS_WITH_I7;
    use std::time::Duration;
    use uttt::notation::parse_position;
    use uttt::rules::Rules;

    fn choose(text: &str, seed: u64) -> String {
        let pos = parse_position(text, Rules::STANDARD).unwrap();
        let mut engine = GreedyEngine::new();
        engine.new_game(&GameSetup::standard(pos.side_to_move(), seed));
        let choice = engine.choose(&pos, &[], Budget::from_now(Duration::from_millis(10)));
        choice.square.to_string()
    }

    #[test]
    fn takes_the_game_winning_claim() {
        for seed in 0..10 {
            assert_eq!(choose(X_WINS_WITH_I7, seed), "i7");
        }
    }

    #[test]
    fn claims_a_small_board_when_it_can() {
        // X to move in board 5 (centre) holding d4 e4: f4 claims it.
        // O: a1 c1 g1 i1 (no line); X: d4 e4 a9 c9 ... counts: X 4, O 4.
        let text = "o1o3o1o/9/9/3xx4/9/9/x1x6/9/9 5 x";
        for seed in 0..10 {
            assert_eq!(choose(text, seed), "f4");
        }
    }

    #[test]
    fn blocks_the_opponents_claim() {
        // O holds d4 e4 in the centre board; X is sent there and cannot claim:
        // f4 is the only move that stops O.
        let text = "x1x3x1x/9/9/3oo4/9/9/o1o6/9/9 5 x";
        for seed in 0..10 {
            assert_eq!(choose(text, seed), "f4");
        }
    }
}
