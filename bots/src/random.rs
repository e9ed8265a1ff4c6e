//! `random`: a uniformly random legal move. The bottom rung of the ladder and the
//! baseline every other engine must beat.

use rand::SeedableRng;
use rand::rngs::SmallRng;
use uttt::rules::{Position, Square};

use crate::engine::{Budget, Choice, Engine, GameSetup, Work, random_legal};

/// Plays a uniformly random legal move, instantly.
#[derive(Debug)]
pub struct RandomEngine {
    rng: SmallRng,
}

impl RandomEngine {
    /// A random engine seeded with 0 until the first game.
    pub fn new() -> RandomEngine {
        RandomEngine {
            rng: SmallRng::seed_from_u64(0),
        }
    }
}

impl Default for RandomEngine {
    fn default() -> Self {
        RandomEngine::new()
    }
}

impl Engine for RandomEngine {
    fn name(&self) -> String {
        "random".into()
    }

    fn new_game(&mut self, setup: &GameSetup) {
        self.rng = SmallRng::seed_from_u64(setup.seed);
    }

    fn choose(&mut self, pos: &Position, _history: &[Square], _budget: Budget) -> Choice {
        Choice::plain(random_legal(pos, &mut self.rng))
    }

    fn work(&self) -> Work {
        Work::Fixed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::time::Duration;
    use uttt::rules::{Mark, Rules};

    #[test]
    fn every_legal_move_of_the_empty_board_comes_up() {
        let mut engine = RandomEngine::new();
        engine.new_game(&GameSetup::standard(Mark::X, 7));
        let pos = Position::new(Rules::STANDARD);
        let seen: HashSet<Square> = (0..2000)
            .map(|_| {
                engine
                    .choose(&pos, &[], Budget::from_now(Duration::from_millis(1)))
                    .square
            })
            .collect();
        assert_eq!(seen.len(), 81);
    }
}
