//! Reference levels: a ladder of fixed-work engines, `level1` (random moves) to the
//! strongest `mcts`, rated on one Elo scale, so that "my bot reaches level 5" means
//! the same on every machine and every day.
//!
//! - [`table`] reads the table of levels (`bots/levels.toml`, compiled in): each
//!   level's engine spec, its share of random moves, its rating and interval.
//! - [`engine`] plays a level: the engine spec through the registry, with that
//!   share of its moves uniformly random.
//! - [`games`] plays engines against each other in-process (the reduced
//!   calibration check and development tools; the published calibration runs
//!   through `arena tournament`).
//!
//! A level must be stopped by its work (playouts, nodes or depth), never by the
//! clock: otherwise it would play stronger on a faster or quieter machine and the
//! ratings would not carry over. Every shipped level is checked to be
//! [`crate::Work::Fixed`].

pub mod engine;
pub mod games;
pub mod table;

pub use engine::LevelEngine;
pub use table::{Level, LevelTable, StepRange, TableError};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Work;
    use crate::engine::Engine;

    #[test]
    fn every_shipped_level_builds_and_its_work_is_fixed() {
        for level in LevelTable::shipped().levels() {
            let engine = LevelEngine::new(level).unwrap();
            assert_eq!(engine.work(), Work::Fixed, "{}", level.engine);
            assert_eq!(engine.name(), level.name());
        }
    }
}
