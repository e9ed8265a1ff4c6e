//! A level at play: its engine, with a share of its moves replaced by uniformly
//! random ones. The random moves are the knob below the weakest engine worth
//! playing: they make a strong engine blunder at a rate that is fixed, seeded and
//! the same on every machine.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use uttt::protocol::Info;
use uttt::rules::{Position, Square};

use super::table::Level;
use crate::engine::{Budget, Choice, Engine, GameSetup, Work, random_legal};
use crate::registry::{BotError, from_spec};

/// Mixed into the game's seed for the random-move draws, so they are not the
/// engine's own random numbers (which come from the seed itself).
const RANDOM_MOVE_STREAM: u64 = 0x6C65_7665_6C5F_726E;

/// One reference level, ready to play.
#[derive(Debug)]
pub struct LevelEngine {
    number: u8,
    engine: Box<dyn Engine>,
    random_moves: f64,
    rng: SmallRng,
}

impl LevelEngine {
    /// Builds `level`'s engine.
    ///
    /// # Errors
    /// The engine spec is not one the registry knows.
    pub fn new(level: &Level) -> Result<LevelEngine, BotError> {
        Ok(LevelEngine {
            number: level.number,
            engine: from_spec(&level.engine)?,
            random_moves: level.random_moves.clamp(0.0, 1.0),
            rng: SmallRng::seed_from_u64(RANDOM_MOVE_STREAM),
        })
    }
}

impl Engine for LevelEngine {
    fn name(&self) -> String {
        format!("level{}", self.number)
    }

    fn new_game(&mut self, setup: &GameSetup) {
        self.engine.new_game(setup);
        self.rng = SmallRng::seed_from_u64(setup.seed ^ RANDOM_MOVE_STREAM);
    }

    fn choose(&mut self, pos: &Position, history: &[Square], budget: Budget) -> Choice {
        if self.random_moves > 0.0 && self.rng.random_bool(self.random_moves) {
            return Choice {
                square: random_legal(pos, &mut self.rng),
                info: Some(Info {
                    text: "random move".into(),
                    ..Info::default()
                }),
            };
        }
        self.engine.choose(pos, history, budget)
    }

    fn end_game(&mut self) {
        self.engine.end_game();
    }

    fn work(&self) -> Work {
        self.engine.work()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use uttt::rules::{Mark, Rules};

    fn level(engine: &str, random_moves: f64) -> Level {
        Level {
            number: 4,
            engine: engine.into(),
            random_moves,
            elo: 0.0,
            interval: 0.0,
            safety_net_ms: None,
        }
    }

    /// Plays `a` (X) against `b` (O) from the empty board; returns the moves.
    fn game(a: &mut dyn Engine, b: &mut dyn Engine, seed: u64) -> Vec<Square> {
        a.new_game(&GameSetup::standard(Mark::X, seed));
        b.new_game(&GameSetup::standard(Mark::O, seed + 1));
        let mut pos = Position::new(Rules::STANDARD);
        let mut moves = Vec::new();
        while !pos.is_over() {
            let engine: &mut dyn Engine = if pos.side_to_move() == Mark::X {
                &mut *a
            } else {
                &mut *b
            };
            let budget = Budget::from_now(Duration::from_secs(30));
            let square = engine.choose(&pos, &moves, budget).square;
            pos = pos.play(square).expect("engines play legal moves");
            moves.push(square);
        }
        moves
    }

    #[test]
    fn the_share_of_random_moves_is_what_the_level_says() {
        let mut noisy = LevelEngine::new(&level("greedy", 0.3)).unwrap();
        let pos = Position::new(Rules::STANDARD);
        noisy.new_game(&GameSetup::standard(Mark::X, 11));
        let random = (0..4000)
            .filter(|_| {
                let choice = noisy.choose(&pos, &[], Budget::from_now(Duration::from_secs(1)));
                choice.info.is_some_and(|i| i.text == "random move")
            })
            .count();
        // 1200 expected; the standard deviation of the count is 29.
        assert!((1080..=1320).contains(&random), "{random}");
    }

    #[test]
    fn a_level_replays_the_same_game_from_the_same_seed() {
        let play = |seed| {
            let mut a = LevelEngine::new(&level("mcts --playouts 300", 0.2)).unwrap();
            let mut b = LevelEngine::new(&level("negamax --level hard --nodes 2000", 0.1)).unwrap();
            game(&mut a, &mut b, seed)
        };
        assert_eq!(play(5), play(5));
        assert_ne!(play(5), play(6));
    }

    #[test]
    fn a_level_has_its_engines_work_and_its_own_name() {
        let fixed = LevelEngine::new(&level("mcts --playouts 10", 0.0)).unwrap();
        assert_eq!(fixed.work(), Work::Fixed);
        assert_eq!(fixed.name(), "level4");
        let clock = LevelEngine::new(&level("mcts", 0.0)).unwrap();
        assert_eq!(clock.work(), Work::Clock);
        assert!(LevelEngine::new(&level("alphazero", 0.0)).is_err());
    }
}
