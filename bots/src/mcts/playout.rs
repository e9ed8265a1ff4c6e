//! Playouts: finishing a game from a tree leaf with a cheap policy, for the
//! Monte Carlo estimate of the leaf.

use rand::Rng;
use referee::rules::{Mark, Position};

use crate::tactics::game_winning_move;

/// How playouts choose moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Policy {
    /// Uniformly random legal moves: the fastest, and unbiased.
    Random,
    /// Random, except that a move winning the game at once is always played.
    /// Costs a little per move but removes the noisiest games, where the random
    /// side walks past a won game.
    #[default]
    Decisive,
}

impl Policy {
    /// All policies.
    pub const ALL: [Policy; 2] = [Policy::Random, Policy::Decisive];

    /// The name on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Policy::Random => "random",
            Policy::Decisive => "decisive",
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
        if policy == Policy::Decisive
            && let Some(win) = game_winning_move(&pos)
        {
            pos.play_unchecked(win);
            continue;
        }
        let moves = pos.legal_moves();
        let pick = rng.random_range(0..moves.len() as u32) as usize;
        match moves.nth(pick) {
            Some(sq) => pos.play_unchecked(sq),
            // Unreachable: `pick < len` and the game is not over.
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
        }
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
