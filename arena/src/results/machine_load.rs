//! How loaded the machine was during a run, from the clock's columns of
//! `moves.csv`: the share of the bots' move time spent waiting for a CPU, the
//! moves whose charged and wall times differ by more than the margin, and the
//! games a wall clock would have decided differently (a move it would have
//! timed out was accepted). Counted game by game as the recorder writes the
//! moves ([`LoadTally`]), for summary.json and the terminal's words at the
//! end; empty where the host could not measure.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;

use super::manifest::Manifest;
use super::store::{GameRow, MOVES_FILE, MoveRow, for_each_move};

/// From this share of move time waited for a CPU on, the run warns.
pub const OVERLOADED: f64 = 0.10;

/// The least share of the CPU time it asked for that a timed bot must get in
/// a game for a verdict to rest on that game (`games.csv`'s `x_cpu_share`,
/// `o_cpu_share`). A bot that thinks by the clock at 80% of its CPU does what
/// it would do in 80% of its time: for a search, a fraction of a doubling,
/// some 10 Elo (BENCHMARKS.md, "The governor").
pub const MIN_SHARE: f64 = 0.8;

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
    /// Games in which a bot that plays by the clock got less than
    /// [`MIN_SHARE`] of the CPU time it asked for (`games.csv`'s shares).
    pub games_under_served: u64,
    /// The least share a bot that plays by the clock got in a game, where
    /// measured.
    pub lowest_share: Option<f64>,
}

/// A bot's limits as the schedule gave them: (move, first move, margin) in ms,
/// and whether it plays by the clock (no fixed work).
type Limits = (Option<u64>, Option<u64>, u64, bool);

/// The counts behind a [`MachineLoad`], kept game by game as the recorder
/// writes each game's moves: a run's end reads nothing back (a million games'
/// `moves.csv` is gigabytes), and the memory is the bots' limits.
#[derive(Clone, Debug, Default)]
pub struct LoadTally {
    limits: HashMap<String, Limits>,
    measured: u64,
    waited: f64,
    wall: f64,
    apart: u64,
    differ: u64,
    under_served: u64,
    lowest_share: Option<f64>,
}

impl LoadTally {
    /// Nothing counted yet, for the run `manifest` describes.
    pub fn new(manifest: &Manifest) -> LoadTally {
        LoadTally {
            limits: manifest
                .schedule
                .bots
                .iter()
                .map(|b| {
                    // Plays by the clock: no node budget, and not a built-in of
                    // fixed work (a manifest from before launches were recorded
                    // says nothing of that: by the clock, as it was read then).
                    let fixed = manifest
                        .launch
                        .iter()
                        .any(|(name, launch)| *name == b.name && launch.fixed_work());
                    (
                        b.name.clone(),
                        (
                            b.move_ms,
                            b.first_move_ms,
                            b.margin_ms,
                            b.nodes.is_none() && !fixed,
                        ),
                    )
                })
                .collect(),
            ..LoadTally::default()
        }
    }

    /// The counts of the games already in `dir`'s `moves.csv` (a resumed
    /// run), read one row at a time; a game's rows are together in the file
    /// (the recorder writes them at once), so one game (≤ 81 rows) is held at
    /// a time.
    ///
    /// # Errors
    /// `moves.csv` cannot be read or has a bad row.
    pub fn of_dir(dir: &Path, manifest: &Manifest) -> anyhow::Result<LoadTally> {
        let mut tally = LoadTally::new(manifest);
        let path = dir.join(MOVES_FILE);
        if std::fs::symlink_metadata(&path).is_err() {
            return Ok(tally);
        }
        let mut game: Vec<MoveRow> = Vec::new();
        for_each_move(&path, |numbered| {
            // A game has at most 81 marks: a file from elsewhere that gives one
            // game more is counted in pieces, never held whole.
            if game.len() >= 81 || game.first().is_some_and(|m| m.game != numbered.row.game) {
                tally.add_game(&game);
                game.clear();
            }
            game.push(numbered.row);
            Ok(())
        })?;
        tally.add_game(&game);
        Ok(tally)
    }

    /// Counts one game's moves (in the order played).
    pub fn add_game(&mut self, moves: &[MoveRow]) {
        let mut moved: Vec<&str> = Vec::with_capacity(2);
        let mut differs = false;
        for m in moves {
            let (Some(think), Some(wait)) = (m.think_ms, m.wait_ms) else {
                continue;
            };
            self.measured += 1;
            self.waited += wait;
            self.wall += think;
            let first = !moved.contains(&m.bot.as_str());
            if first {
                moved.push(m.bot.as_str());
            }
            let Some(&(move_ms, first_ms, margin, _)) = self.limits.get(m.bot.as_str()) else {
                continue;
            };
            if m.charged_ms
                .is_some_and(|c| (think - c).abs() > margin as f64)
            {
                self.apart += 1;
            }
            let allowed = if first { first_ms.or(move_ms) } else { move_ms };
            differs |= allowed.is_some_and(|a| think > (a + margin) as f64);
        }
        self.differ += u64::from(differs);
    }

    /// Counts a game's CPU shares: whether a bot that plays by the clock got
    /// less than [`MIN_SHARE`] of what it asked for.
    pub fn add_shares(&mut self, row: &GameRow) {
        let mut under = false;
        for (bot, share) in [(&row.x, row.x_cpu_share), (&row.o, row.o_cpu_share)] {
            let timed = self.limits.get(bot.as_str()).is_some_and(|l| l.3);
            if let (true, Some(share)) = (timed, share) {
                self.lowest_share = Some(self.lowest_share.map_or(share, |l| l.min(share)));
                under |= share < MIN_SHARE;
            }
        }
        self.under_served += u64::from(under);
    }

    /// Games in which a timed bot got less than [`MIN_SHARE`].
    pub fn under_served(&self) -> u64 {
        self.under_served
    }

    /// The load so far, under `manifest`'s clock and concurrency; `None`
    /// before a measured move.
    pub fn load(&self, manifest: &Manifest) -> Option<MachineLoad> {
        (self.measured > 0).then(|| MachineLoad {
            clock: manifest.schedule.clock.clone(),
            moves_measured: self.measured,
            waited_share: if self.wall > 0.0 {
                self.waited / self.wall
            } else {
                0.0
            },
            moves_charged_apart: self.apart,
            games_wall_would_differ: self.differ,
            concurrency: manifest.concurrency,
            games_under_served: self.under_served,
            lowest_share: self.lowest_share,
        })
    }
}

impl MachineLoad {
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
    use crate::results::manifest::{BotEntry, ScheduleKey};
    use crate::results::store::{GameRow, ResultStore};
    use uttt::rules::{Mark, Square};

    fn manifest() -> Manifest {
        let bot = |name: &str| BotEntry {
            name: name.into(),
            command: format!("arena bot {name}"),
            protocol: "uttt".into(),
            move_ms: Some(100),
            first_move_ms: Some(1000),
            margin_ms: 10,
            clock_ms: None,
            increment_ms: None,
            nodes: None,
        };
        let key = ScheduleKey {
            seed: 7,
            rules: "standard".into(),
            format: "round-robin".into(),
            games_per_pairing: 2,
            openings: "none".into(),
            bots: vec![bot("a"), bot("b")],
            clock: "fair".into(),
        };
        Manifest::new(
            "t",
            key,
            crate::results::manifest::ProcessPolicy::Reuse,
            2,
            None,
            2,
        )
    }

    /// A move of `bot` that took `think` ms of wall time, `wait` of them
    /// waiting for a CPU, charged `charged`; `think` `None` is an opening move.
    fn mv(game: &str, ply: u32, bot: &str, think: Option<f64>, wait: f64, charged: f64) -> MoveRow {
        let square: Square = "e5".parse().expect("a square");
        MoveRow {
            game: game.into(),
            ply,
            mark: if ply % 2 == 1 { Mark::X } else { Mark::O },
            bot: bot.into(),
            square,
            board: 5,
            cell: 5,
            free_move: false,
            think_ms: think,
            depth: None,
            score: None,
            nodes: None,
            info: String::new(),
            claimed: None,
            drawn: None,
            charged_ms: think.map(|_| charged),
            cpu_ms: think.map(|t| t - wait),
            wait_ms: think.map(|_| wait),
            late_ms: think.map(|_| 0.0),
        }
    }

    fn games() -> Vec<Vec<MoveRow>> {
        vec![
            vec![
                // The first moves may take 1000 ms: not over.
                mv("G1", 1, "a", Some(500.0), 0.0, 500.0),
                mv("G1", 2, "b", Some(900.0), 0.0, 900.0),
                mv("G1", 3, "a", Some(50.0), 10.0, 40.0),
            ],
            vec![
                mv("G2", 1, OPENING, None, 0.0, 0.0),
                mv("G2", 2, "b", Some(700.0), 0.0, 700.0),
                // Over 100 + 10 by the wall clock, charged 60: apart, and a
                // game a wall clock would have decided differently.
                mv("G2", 3, "a", Some(150.0), 90.0, 60.0),
                mv("G2", 4, "b", Some(120.0), 100.0, 20.0),
            ],
        ]
    }
    const OPENING: &str = crate::results::store::OPENING_BOT;

    #[test]
    fn the_tally_counts_measured_moves_the_moves_charged_apart_and_the_games_that_differ() {
        let manifest = manifest();
        let mut tally = LoadTally::new(&manifest);
        for game in games() {
            tally.add_game(&game);
        }
        let load = tally.load(&manifest).expect("moves were measured");
        assert_eq!(load.moves_measured, 6);
        assert_eq!(load.moves_charged_apart, 2, "150 vs 60 and 120 vs 20");
        assert_eq!(load.games_wall_would_differ, 1, "G2 only");
        let share = 200.0 / 2420.0;
        assert!((load.waited_share - share).abs() < 1e-12, "{load:?}");
        assert_eq!((load.clock.as_str(), load.concurrency), ("fair", 2));
        assert_eq!(LoadTally::new(&manifest).load(&manifest), None);
    }

    #[test]
    fn a_resumed_run_counts_the_games_in_the_directory_as_they_were_counted_when_played() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let manifest = manifest();
        let mut played = LoadTally::new(&manifest);
        {
            let mut store = ResultStore::open(dir.path()).expect("the store opens");
            for (n, game) in games().into_iter().enumerate() {
                let mut row = GameRow::sample("a", "b", uttt::result::Decision::Draw);
                row.id = format!("G{}", n + 1);
                store.append(&row, &game).expect("written");
                played.add_game(&game);
            }
        }
        let resumed = LoadTally::of_dir(dir.path(), &manifest).expect("moves.csv reads");
        assert_eq!(resumed.load(&manifest), played.load(&manifest));
        let empty = tempfile::tempdir().expect("a temporary directory");
        let none = LoadTally::of_dir(empty.path(), &manifest).expect("no file is no games");
        assert_eq!(none.load(&manifest), None);
    }

    fn load(share: f64, concurrency: usize, clock: &str) -> MachineLoad {
        MachineLoad {
            clock: clock.into(),
            moves_measured: 100,
            waited_share: share,
            moves_charged_apart: 41,
            games_wall_would_differ: 1,
            concurrency,
            games_under_served: 0,
            lowest_share: None,
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
