//! How loaded the machine was during a run, from the clock's columns of
//! `moves.csv`: the share of the bots' move time spent waiting for a CPU, the
//! moves whose charged and wall times differ by more than the margin, and the
//! games a wall clock would have decided differently (a move it would have
//! timed out was accepted). Read at the end of a run for summary.json and the
//! terminal's words; empty where the host could not measure.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::Serialize;

use super::manifest::Manifest;
use super::store::{MOVES_FILE, read_moves};

/// From this share of move time waited for a CPU on, the run warns.
pub const OVERLOADED: f64 = 0.10;

/// The machine's load during a run, as the bots felt it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MachineLoad {
    /// The run's clock: `fair`, `wall` or `cpu`.
    pub clock: String,
    /// Bot moves with the scheduler's counters.
    pub moves_measured: u64,
    /// Time the bots waited for a CPU, as a share of their moves' wall time.
    pub waited_share: f64,
    /// Moves whose charged time and wall time differ by more than the margin.
    pub moves_charged_apart: u64,
    /// Games in which a move over its limit by the wall clock was accepted:
    /// a wall clock would have decided them differently.
    pub games_wall_would_differ: u64,
    /// Games at once in the run.
    pub concurrency: usize,
}

impl MachineLoad {
    /// The load of the run in `dir`; `None` without a manifest or without a
    /// measured move.
    pub fn of(dir: &Path) -> Option<MachineLoad> {
        let manifest = Manifest::load(dir).ok().flatten()?;
        let rows = read_moves(&dir.join(MOVES_FILE), |_| true).ok()?;
        let limits: HashMap<&str, (Option<u64>, Option<u64>, u64)> = manifest
            .schedule
            .bots
            .iter()
            .map(|b| (b.name.as_str(), (b.move_ms, b.first_move_ms, b.margin_ms)))
            .collect();
        let (mut measured, mut apart) = (0u64, 0u64);
        let (mut waited, mut wall) = (0f64, 0f64);
        let mut seen: HashSet<(&str, &str)> = HashSet::new();
        let mut differ: HashSet<&str> = HashSet::new();
        for numbered in &rows {
            let m = &numbered.row;
            let (Some(think), Some(wait)) = (m.think_ms, m.wait_ms) else {
                continue;
            };
            measured += 1;
            waited += wait;
            wall += think;
            let first = seen.insert((m.game.as_str(), m.bot.as_str()));
            let Some(&(move_ms, first_ms, margin)) = limits.get(m.bot.as_str()) else {
                continue;
            };
            if m.charged_ms
                .is_some_and(|c| (think - c).abs() > margin as f64)
            {
                apart += 1;
            }
            let allowed = if first { first_ms.or(move_ms) } else { move_ms };
            if allowed.is_some_and(|a| think > (a + margin) as f64) {
                differ.insert(m.game.as_str());
            }
        }
        (measured > 0).then(|| MachineLoad {
            clock: manifest.schedule.clock.clone(),
            moves_measured: measured,
            waited_share: if wall > 0.0 { waited / wall } else { 0.0 },
            moves_charged_apart: apart,
            games_wall_would_differ: differ.len() as u64,
            concurrency: manifest.concurrency,
        })
    }

    /// The terminal's line: "Machine: bots waited for a CPU 23% of their move
    /// time; 41 moves charged apart from the wall clock; 3 games a wall clock
    /// would have decided differently (fair clock)".
    pub fn line(&self) -> String {
        format!(
            "Machine: bots waited for a CPU {:.0}% of their move time; {} move{} charged more than the margin apart from the wall clock; {} game{} a wall clock would have decided differently ({} clock)",
            100.0 * self.waited_share,
            self.moves_charged_apart,
            if self.moves_charged_apart == 1 {
                ""
            } else {
                "s"
            },
            self.games_wall_would_differ,
            if self.games_wall_would_differ == 1 {
                ""
            } else {
                "s"
            },
            self.clock
        )
    }

    /// The warning of an overloaded machine, with advice; `None` below
    /// [`OVERLOADED`].
    pub fn warning(&self, cores: usize) -> Option<String> {
        if self.waited_share < OVERLOADED {
            return None;
        }
        let advice = if self.concurrency > 1 {
            format!(
                "lower --concurrency (now {}) to 1 on {cores} cores, or stop other work on this machine",
                self.concurrency
            )
        } else {
            "stop other work on this machine, or play on one with more cores".to_string()
        };
        let charged = if self.clock == "wall" {
            " and the wall clock charged that wait to them"
        } else {
            ""
        };
        Some(format!(
            "warning: the machine was overloaded: bots waited for a CPU {:.0}% of their move time{charged}: {advice}",
            100.0 * self.waited_share
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(share: f64, concurrency: usize, clock: &str) -> MachineLoad {
        MachineLoad {
            clock: clock.into(),
            moves_measured: 100,
            waited_share: share,
            moves_charged_apart: 41,
            games_wall_would_differ: 1,
            concurrency,
        }
    }

    #[test]
    fn the_warning_names_the_share_and_the_advice() {
        assert_eq!(load(0.05, 2, "fair").warning(2), None);
        assert_eq!(
            load(0.234, 2, "fair").warning(2).as_deref(),
            Some(
                "warning: the machine was overloaded: bots waited for a CPU 23% of their move time: lower --concurrency (now 2) to 1 on 2 cores, or stop other work on this machine"
            )
        );
        assert_eq!(
            load(0.5, 1, "wall").warning(2).as_deref(),
            Some(
                "warning: the machine was overloaded: bots waited for a CPU 50% of their move time and the wall clock charged that wait to them: stop other work on this machine, or play on one with more cores"
            )
        );
        assert_eq!(
            load(0.234, 2, "fair").line(),
            "Machine: bots waited for a CPU 23% of their move time; 41 moves charged more than the margin apart from the wall clock; 1 game a wall clock would have decided differently (fair clock)"
        );
    }
}
