//! Playouts: finishing a game from a tree leaf with a cheap policy, for the
//! Monte Carlo estimate of the leaf.

use rand::Rng;
use referee::rules::{Cell, Mark, Position, Square};

use crate::tactics::{board_winning_cells, empty_cells, game_winning_move};

/// `SELECT[set][k]`: the `k`-th lowest place in the 9-bit `set` (0 if absent).
static SELECT: [[u8; 9]; 512] = {
    let mut table = [[0u8; 9]; 512];
    let mut set = 0;
    while set < 512 {
        let mut k = 0;
        let mut place = 0;
        while place < 9 {
            if set >> place & 1 != 0 {
                table[set][k] = place as u8;
                k += 1;
            }
            place += 1;
        }
        set += 1;
    }
    table
};

/// A number in `0..n` from one 64-bit draw by multiply-and-shift. Its bias is
/// below `n / 2^32` (under 2e-8 for 81 moves): far below anything a playout could
/// notice, and it saves the rejection loop of an exact method on the hot path.
#[inline]
fn below(rng: &mut impl Rng, n: u32) -> u32 {
    (((rng.next_u64() >> 32) * u64::from(n)) >> 32) as u32
}

/// A random legal move of `pos` (not over): when the player is sent to a board,
/// a random empty cell of it through a 9-bit table; otherwise a random member
/// of the legal set.
#[inline]
fn random_move(pos: &Position, rng: &mut impl Rng) -> Option<Square> {
    match pos.required_board() {
        Some(board) => {
            let empty = empty_cells(pos, board.index());
            let k = below(rng, empty.count_ones()) as usize;
            let cell = SELECT[usize::from(empty)][k];
            Cell::try_new(cell).map(|c| Square::new(board, c))
        }
        None => {
            let moves = pos.legal_moves();
            moves.nth(below(rng, moves.len() as u32) as usize)
        }
    }
}

/// How playouts choose moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Policy {
    /// Uniformly random legal moves: the fastest, and unbiased.
    Random,
    /// Random, except that a move winning the game at once is always played.
    /// Costs a little per move but removes the noisiest games, where the random
    /// side walks past a won game.
    Decisive,
    /// Decisive, and a player sent to a board it can claim claims it. Playouts
    /// look more like real games (nobody leaves a board one mark from claimed) and
    /// end sooner. Measured: 60% against `decisive` (160 games at 20 ms/move).
    #[default]
    Claiming,
}

impl Policy {
    /// All policies.
    pub const ALL: [Policy; 3] = [Policy::Random, Policy::Decisive, Policy::Claiming];

    /// The name on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Policy::Random => "random",
            Policy::Decisive => "decisive",
            Policy::Claiming => "claiming",
        }
    }
}

/// Plays `pos` to the end with `policy` and returns the winner (`None`: a draw).
#[inline]
pub fn playout(mut pos: Position, policy: Policy, rng: &mut impl Rng) -> Option<Mark> {
    loop {
        if pos.is_over() {
            return pos.status().outcome().and_then(|o| o.winner());
        }
        if policy != Policy::Random
            && let Some(win) = game_winning_move(&pos)
        {
            pos.play_unchecked(win);
            continue;
        }
        if policy == Policy::Claiming
            && let Some(b) = pos.required_board()
        {
            let cells = board_winning_cells(&pos, b.index(), pos.side_to_move());
            if cells != 0 {
                let k = below(rng, cells.count_ones()) as usize;
                if let Some(c) = Cell::try_new(SELECT[usize::from(cells)][k]) {
                    pos.play_unchecked(Square::new(b, c));
                    continue;
                }
            }
        }
        match random_move(&pos, rng) {
            Some(sq) => pos.play_unchecked(sq),
            // Unreachable: a game that is not over has a legal move.
            None => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::SmallRng;
    use referee::rules::Rules;

    #[test]
    fn playouts_finish_and_the_decisive_policy_takes_the_win() {
        let mut rng = SmallRng::seed_from_u64(1);
        let start = Position::new(Rules::STANDARD);
        for policy in Policy::ALL {
            for _ in 0..200 {
                let _ = playout(start, policy, &mut rng);
            }
        }
        let pos = crate::fixtures::position(crate::fixtures::X_WINS_WITH_I7);
        for _ in 0..20 {
            assert_eq!(playout(pos, Policy::Decisive, &mut rng), Some(Mark::X));
            assert_eq!(playout(pos, Policy::Claiming, &mut rng), Some(Mark::X));
        }
    }

    #[test]
    fn random_moves_are_legal_and_cover_every_choice() {
        let mut rng = SmallRng::seed_from_u64(5);
        let mut pos = Position::new(Rules::STANDARD);
        let mut plies = 0;
        while !pos.is_over() {
            let legal = pos.legal_moves();
            let mut seen = std::collections::HashSet::new();
            for _ in 0..40 * legal.len() {
                let sq = random_move(&pos, &mut rng).unwrap();
                assert!(legal.contains(sq), "{sq} in {pos}");
                seen.insert(sq);
            }
            assert_eq!(seen.len(), legal.len(), "{pos}");
            pos.play_unchecked(random_move(&pos, &mut rng).unwrap());
            plies += 1;
        }
        assert!(plies > 10);
    }

    #[test]
    fn random_playouts_from_the_start_are_balanced_enough() {
        let mut rng = SmallRng::seed_from_u64(2);
        let start = Position::new(Rules::STANDARD);
        let mut x_wins = 0;
        let n = 2000;
        for _ in 0..n {
            if playout(start, Policy::Random, &mut rng) == Some(Mark::X) {
                x_wins += 1;
            }
        }
        // Random play favours X slightly; a broken playout (always X, never X)
        // would land far outside this band.
        assert!((600..1400).contains(&x_wins), "{x_wins} of {n}");
    }
}
