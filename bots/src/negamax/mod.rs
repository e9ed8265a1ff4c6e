//! `negamax`: alpha-beta search over a hand-written evaluation, in three levels.
//!
//! - `easy`: two plies over a noisy evaluation (±0.4 of a board, fixed per
//!   position and game); a player who sees claims and threats but misjudges
//!   positions.
//! - `medium`, the "beginner computer": at most three plies (its move, the reply,
//!   its next move) and at most 750 ms; picks at random among moves scoring almost
//!   the same.
//! - `hard`: iterative deepening for the whole budget, with a transposition table,
//!   principal-variation search, killer and history ordering, and a check for
//!   immediate game wins at the horizon.
//!
//! Every level plays a game-winning move at once when it has one.
//!
//! A node limit ([`NegamaxEngine::with_node_limit`]) makes any level's work fixed:
//! each move stops after the same nodes whatever the machine, and the table starts
//! empty every game, so a seed replays the same game (the reference levels rely on
//! it).

mod search;
mod tt;

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use uttt::protocol::Info;
use uttt::rules::{Position, Square};

use crate::engine::{Budget, Choice, Engine, GameSetup, Stopwatch, Work};
use crate::tactics::game_winning_move;
pub use search::WIN;
use search::{SearchParams, search};
use tt::Table;

/// How strong the negamax engine plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Level {
    /// Shallow and noisy.
    Easy,
    /// Three plies, the beginner computer.
    #[default]
    Medium,
    /// Iterative deepening for the whole budget.
    Hard,
}

impl Level {
    /// All levels, weakest first.
    pub const ALL: [Level; 3] = [Level::Easy, Level::Medium, Level::Hard];

    /// The level's name on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
        }
    }

    /// How this level searches.
    const fn params(self) -> SearchParams {
        match self {
            Level::Easy => SearchParams {
                max_depth: 2,
                root_margin: 0,
                noise: 40,
                leaf_win_check: false,
            },
            Level::Medium => SearchParams {
                max_depth: 3,
                root_margin: 4,
                noise: 0,
                leaf_win_check: false,
            },
            Level::Hard => SearchParams {
                max_depth: 64,
                root_margin: 0,
                noise: 0,
                leaf_win_check: true,
            },
        }
    }

    /// The most time the level takes for a move, whatever it is given: beginners
    /// answer quickly.
    const fn time_cap(self) -> Option<Duration> {
        match self {
            Level::Easy => Some(Duration::from_millis(300)),
            Level::Medium => Some(Duration::from_millis(750)),
            Level::Hard => None,
        }
    }

    /// log2 of the transposition table's entry count (16 bytes each), if any.
    const fn table_bits(self) -> Option<u32> {
        match self {
            Level::Hard => Some(20),
            _ => None,
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Level {
    type Err = String;
    fn from_str(s: &str) -> Result<Level, String> {
        Level::ALL
            .into_iter()
            .find(|l| l.name() == s)
            .ok_or_else(|| format!("unknown level '{s}': use easy, medium or hard"))
    }
}

/// Alpha-beta negamax at one [`Level`].
#[derive(Debug)]
pub struct NegamaxEngine {
    level: Level,
    node_limit: Option<u64>,
    rng: SmallRng,
    salt: u64,
    table: Option<Table>,
}

impl NegamaxEngine {
    /// An engine of `level`, seeded with 0 until the first game.
    pub fn new(level: Level) -> NegamaxEngine {
        let mut engine = NegamaxEngine {
            level,
            node_limit: None,
            rng: SmallRng::seed_from_u64(0),
            salt: 0,
            table: level.table_bits().map(Table::new),
        };
        engine.reseed(0);
        engine
    }

    /// The same engine stopping each move after at most `nodes` nodes (or at the
    /// deadline, if that comes first): fixed work.
    #[must_use]
    pub fn with_node_limit(mut self, nodes: u64) -> NegamaxEngine {
        self.node_limit = Some(nodes.max(1));
        self
    }

    /// The engine's level.
    pub fn level(&self) -> Level {
        self.level
    }

    fn reseed(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
        self.salt = self.rng.random();
    }
}

impl Engine for NegamaxEngine {
    fn name(&self) -> String {
        format!("negamax-{}", self.level)
    }

    fn new_game(&mut self, setup: &GameSetup) {
        // The new salt also changes every position key, so the table's entries
        // from earlier games can no longer match: no 16 MiB clear while the
        // referee's clock may already run for the first move. Under a node limit
        // the game must not depend on earlier games at all (old entries still
        // decide which new ones are kept), so the table is cleared: a few
        // milliseconds, well inside a first move's time.
        self.reseed(setup.seed);
        if self.node_limit.is_some()
            && let Some(table) = &mut self.table
        {
            table.clear();
        }
    }

    fn choose(&mut self, pos: &Position, _history: &[Square], budget: Budget) -> Choice {
        if let Some(win) = game_winning_move(pos) {
            return Choice {
                square: win,
                info: Some(Info {
                    depth: Some(1),
                    score: Some(f64::from(WIN) / 100.0),
                    pv: vec![win],
                    text: "wins at once".into(),
                    ..Info::default()
                }),
            };
        }
        // One node limit, the move's or the engine's own, whichever is tighter.
        // With one, the level's own time cap stands down: the work is fixed, and
        // only the referee's deadline remains, as a safety net.
        let node_limit = budget.node_limit_with(self.node_limit);
        let budget = match self.level.time_cap() {
            Some(cap) if node_limit.is_none() => budget.capped(cap),
            _ => budget,
        };
        // A node costs well under a microsecond: read the clock every 256 nodes.
        let watch = Stopwatch::new(budget.deadline(), 256);
        let report = search(
            pos,
            self.level.params(),
            self.table.as_mut(),
            watch,
            node_limit,
            self.salt,
            &mut self.rng,
        );
        Choice {
            square: report.best,
            info: Some(Info {
                depth: Some(report.depth),
                score: Some(f64::from(report.score) / 100.0),
                nodes: Some(report.nodes),
                pv: report.pv,
                text: String::new(),
            }),
        }
    }

    /// `easy` and `medium` stop at their depth (a few thousand nodes, far inside
    /// their time caps); `hard` only at a node limit, if it has one.
    fn work(&self) -> Work {
        match (self.level, self.node_limit) {
            (_, Some(_)) | (Level::Easy | Level::Medium, None) => Work::Fixed,
            (Level::Hard, None) => Work::Clock,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{self, LOSING_IN_BOARD_2, X_MUST_NOT_SEND_TO_BOARD_9, X_WINS_WITH_I7};
    use uttt::notation::parse_position;
    use uttt::rules::Rules;

    fn choose(level: Level, text: &str, seed: u64, ms: u64) -> Choice {
        let pos = parse_position(text, Rules::STANDARD).unwrap();
        let mut engine = NegamaxEngine::new(level);
        engine.new_game(&GameSetup::standard(pos.side_to_move(), seed));
        engine.choose(&pos, &[], Budget::from_now(Duration::from_millis(ms)))
    }

    #[test]
    fn every_level_takes_a_win_in_one() {
        for level in Level::ALL {
            for seed in 0..5 {
                let choice = choose(level, X_WINS_WITH_I7, seed, 50);
                assert_eq!(choice.square.to_string(), "i7", "{level} seed {seed}");
            }
        }
    }

    #[test]
    fn medium_and_hard_avoid_an_immediate_loss() {
        let pos = fixtures::position(X_MUST_NOT_SEND_TO_BOARD_9);
        let losing: Vec<Square> = LOSING_IN_BOARD_2.map(fixtures::square).to_vec();
        for &sq in &losing {
            let after = pos.play(sq).unwrap();
            assert!(crate::tactics::can_win_now(&after), "{sq} really loses");
        }
        for level in [Level::Medium, Level::Hard] {
            for seed in 0..5 {
                let choice = choose(level, X_MUST_NOT_SEND_TO_BOARD_9, seed, 100);
                assert!(
                    !losing.contains(&choice.square),
                    "{level} seed {seed}: {}",
                    choice.square
                );
                assert!(pos.is_legal(choice.square));
            }
        }
    }

    #[test]
    fn levels_parse_and_print() {
        for level in Level::ALL {
            assert_eq!(level.name().parse::<Level>(), Ok(level));
        }
        assert!(
            "expert"
                .parse::<Level>()
                .unwrap_err()
                .contains("easy, medium or hard")
        );
    }
}
