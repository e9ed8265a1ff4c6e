//! Playouts: finishing a game from a tree leaf with a cheap policy, for the
//! Monte Carlo estimate of the leaf.

use rand::Rng;
use uttt::rules::{Mark, Position};

use super::playout_board::{PlayoutBoard, Rollout};

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
    /// end sooner, and it measured stronger than `decisive`.
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

impl Policy {
    /// What the policy does besides random moves.
    const fn rollout(self) -> Rollout {
        match self {
            Policy::Random => Rollout {
                decisive: false,
                claim: false,
            },
            Policy::Decisive => Rollout {
                decisive: true,
                claim: false,
            },
            Policy::Claiming => Rollout {
                decisive: true,
                claim: true,
            },
        }
    }
}

/// Plays `pos` to the end with `policy` and returns the winner (`None`: a draw).
#[inline]
pub fn playout(pos: Position, policy: Policy, rng: &mut impl Rng) -> Option<Mark> {
    match PlayoutBoard::new(&pos) {
        Some(sim) => sim.run(policy.rollout(), rng),
        None => pos.status().outcome().and_then(|o| o.winner()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::SmallRng;
    use uttt::rules::Rules;

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
