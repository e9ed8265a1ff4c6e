//! The table of reference levels (`bots/levels.toml`, compiled into the binary):
//! what each level is and where it stands on the Elo scale. This module reads and
//! checks the table; it does not play (that is [`super::engine`]).

use std::fmt;
use std::sync::OnceLock;

use serde::Deserialize;

/// The table shipped with this build.
static SHIPPED: &str = include_str!("../../levels.toml");

/// One reference level.
#[derive(Clone, Debug, PartialEq)]
pub struct Level {
    /// Its number, 1 (the weakest) to the table's length.
    pub number: u8,
    /// The engine, as `arena bot` takes it (`"mcts --playouts 3000"`); an engine
    /// whose work is fixed, which a unit test checks for the shipped table.
    pub engine: String,
    /// The share of moves (0..=1) played uniformly at random instead of the
    /// engine's choice, drawn from the game's seed.
    pub random_moves: f64,
    /// Its rating, level 1 anchored.
    pub elo: f64,
    /// The 95% half-width of `elo`, relative to level 1.
    pub interval: f64,
    /// The deadline of one move when a level plays at its fixed work (`arena
    /// rate`), a safety net only, when this level needs more than the usual one:
    /// the levels above 10 think seconds a move, and ten times that on a loaded
    /// machine.
    pub safety_net_ms: Option<u64>,
}

impl Level {
    /// Its bot name: `level3`.
    pub fn name(&self) -> String {
        format!("level{}", self.number)
    }

    /// The definition in words: the engine, and the share of random moves if any.
    pub fn definition(&self) -> String {
        if self.random_moves > 0.0 {
            format!(
                "{}, {}% of moves random",
                self.engine,
                (self.random_moves * 100.0).round()
            )
        } else {
            self.engine.clone()
        }
    }
}

/// The range of steps between neighbouring levels the definitions aim for, in Elo.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepRange {
    /// The smallest step.
    pub low: f64,
    /// The largest step.
    pub high: f64,
}

impl StepRange {
    /// Whether `step` is in the range.
    pub fn contains(&self, step: f64) -> bool {
        (self.low..=self.high).contains(&step)
    }
}

/// Why a levels table is unusable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableError(String);

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "levels table: {}", self.0)
    }
}

impl std::error::Error for TableError {}

/// The file's shape; [`LevelTable::parse`] checks what TOML cannot say.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTable {
    steps: StepRange,
    level: Vec<RawLevel>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawLevel {
    level: u8,
    engine: String,
    #[serde(default)]
    random_moves: f64,
    elo: f64,
    interval: f64,
    #[serde(default)]
    safety_net_ms: Option<u64>,
}

/// The reference levels, weakest first: numbered 1, 2, … without gaps, each
/// rated above the one before.
#[derive(Clone, Debug, PartialEq)]
pub struct LevelTable {
    steps: StepRange,
    levels: Vec<Level>,
}

impl LevelTable {
    /// The table compiled into this build.
    pub fn shipped() -> &'static LevelTable {
        static TABLE: OnceLock<LevelTable> = OnceLock::new();
        TABLE.get_or_init(|| {
            // The shipped file is checked by a unit test, so this cannot fail in
            // a tested build.
            LevelTable::parse(SHIPPED).expect("bots/levels.toml is checked by a unit test")
        })
    }

    /// Reads a table in the format of `bots/levels.toml`.
    ///
    /// # Errors
    /// Bad TOML or a missing field (the message names the line), a step range
    /// that is not two positive numbers in order, levels not
    /// numbered 1, 2, 3…, an empty engine or one that is itself a level, a share
    /// of random moves outside 0..=1, ratings that are not finite or do not rise
    /// from level to level, or a negative interval.
    pub fn parse(text: &str) -> Result<LevelTable, TableError> {
        let raw: RawTable = toml::from_str(text).map_err(|e| TableError(e.to_string()))?;
        let steps = raw.steps;
        if !(steps.low.is_finite() && steps.high.is_finite() && 0.0 < steps.low)
            || steps.low >= steps.high
        {
            return Err(TableError(format!(
                "[steps] low = {}, high = {}: give two positive numbers, low below high",
                steps.low, steps.high
            )));
        }
        if raw.level.is_empty() {
            return Err(TableError("no [[level]] entries".into()));
        }
        let mut levels: Vec<Level> = Vec::with_capacity(raw.level.len());
        for (i, entry) in raw.level.into_iter().enumerate() {
            let fail = |problem: String| Err(TableError(format!("level {}: {problem}", i + 1)));
            if usize::from(entry.level) != i + 1 {
                return fail(format!(
                    "numbered {}; levels are numbered 1, 2, 3… in order",
                    entry.level
                ));
            }
            let first = entry.engine.split_whitespace().next().unwrap_or_default();
            if first.is_empty() {
                return fail("the engine is empty".into());
            }
            if first.starts_with("level") {
                return fail(format!(
                    "the engine '{first}' is a level; name an engine such as mcts"
                ));
            }
            if !(0.0..=1.0).contains(&entry.random_moves) {
                return fail(format!(
                    "random-moves = {} is not a share from 0 to 1",
                    entry.random_moves
                ));
            }
            if !entry.elo.is_finite() || !entry.interval.is_finite() || entry.interval < 0.0 {
                return fail("elo must be a number and interval a number ≥ 0".into());
            }
            if let Some(below) = levels.last()
                && entry.elo <= below.elo
            {
                return fail(format!(
                    "elo {} is not above level {}'s {}",
                    entry.elo, below.number, below.elo
                ));
            }
            levels.push(Level {
                number: entry.level,
                engine: entry.engine.trim().to_string(),
                random_moves: entry.random_moves,
                elo: entry.elo,
                interval: entry.interval,
                safety_net_ms: entry.safety_net_ms,
            });
        }
        Ok(LevelTable { steps, levels })
    }

    /// The steps between neighbouring levels the definitions aim for.
    pub fn steps(&self) -> StepRange {
        self.steps
    }

    /// Every level, weakest first.
    pub fn levels(&self) -> &[Level] {
        &self.levels
    }

    /// Level `number` (1-based), if there is one.
    pub fn get(&self, number: u8) -> Option<&Level> {
        self.levels.get(usize::from(number).checked_sub(1)?)
    }

    /// The number of the strongest level.
    pub fn top(&self) -> u8 {
        self.levels.last().map_or(0, |l| l.number)
    }
}

/// The table as `arena bot level --help` shows it: level, name, definition, Elo ±
/// and the step from the level below.
impl fmt::Display for LevelTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self
            .levels
            .iter()
            .map(|l| l.definition().chars().count())
            .max()
            .unwrap_or(0);
        writeln!(
            f,
            "level  name     {:<width$}    Elo  ±95%   step",
            "definition"
        )?;
        let mut below: Option<f64> = None;
        for level in &self.levels {
            let step = below.map_or(String::new(), |b| format!("{:+.0}", level.elo - b));
            writeln!(
                f,
                "{:>5}  {:<7}  {:<width$}  {:>5.0}  {:>4.0}  {:>5}",
                level.number,
                level.name(),
                level.definition(),
                level.elo,
                level.interval,
                step
            )?;
            below = Some(level.elo);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = r#"
[steps]
low = 150
high = 250

[[level]]
level = 1
engine = "random"
elo = 0
interval = 0

[[level]]
level = 2
engine = "mcts --playouts 100"
random-moves = 0.25
elo = 180.5
interval = 21
"#;

    #[test]
    fn a_table_reads_into_typed_levels() {
        let table = LevelTable::parse(TWO).unwrap();
        assert_eq!(table.top(), 2);
        assert_eq!(
            table.steps(),
            StepRange {
                low: 150.0,
                high: 250.0
            }
        );
        assert!(table.steps().contains(150.0) && !table.steps().contains(251.0));
        let two = table.get(2).unwrap();
        assert_eq!(
            two,
            &Level {
                number: 2,
                engine: "mcts --playouts 100".into(),
                random_moves: 0.25,
                elo: 180.5,
                interval: 21.0,
                safety_net_ms: None,
            }
        );
        assert_eq!(two.name(), "level2");
        assert_eq!(two.definition(), "mcts --playouts 100, 25% of moves random");
        assert_eq!(table.get(1).unwrap().definition(), "random");
        assert!(table.get(0).is_none() && table.get(3).is_none());
    }

    #[test]
    fn the_printed_table_shows_ratings_and_steps() {
        let text = LevelTable::parse(TWO).unwrap().to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(lines[0].contains("definition") && lines[0].contains("step"));
        assert!(lines[1].trim_end().ends_with("0     0"), "{text}");
        assert!(lines[2].contains("level2") && lines[2].trim_end().ends_with("+180"));
    }

    #[test]
    fn mistakes_in_a_table_are_refused_with_the_level_and_the_problem() {
        let with = |from: &str, to: &str| TWO.replacen(from, to, 1);
        let cases = [
            (with("level = 2", "level = 3"), "level 2: numbered 3"),
            (
                with("elo = 180.5", "elo = -5"),
                "level 2: elo -5 is not above",
            ),
            (with("random-moves = 0.25", "random-moves = 1.5"), "1.5"),
            (
                with("interval = 21", "interval = -1"),
                "interval a number ≥ 0",
            ),
            (
                with("\"mcts --playouts 100\"", "\"level --n 1\""),
                "the engine 'level' is a level",
            ),
            (with("\"mcts --playouts 100\"", "\"  \""), "empty"),
            (with("elo = 180.5", "elo = \"high\""), "line"),
            (with("interval = 21", "interval = 21\nnote = 1"), "note"),
            (with("high = 250", "high = 100"), "low below high"),
            (with("[steps]\nlow = 150\nhigh = 250", ""), "steps"),
            (String::new(), "level"),
        ];
        for (text, expected) in cases {
            let err = LevelTable::parse(&text).unwrap_err().to_string();
            assert!(err.contains(expected), "{expected:?} not in {err:?}");
        }
    }

    #[test]
    fn the_shipped_table_reads() {
        let table = LevelTable::parse(SHIPPED).unwrap();
        assert!(table.top() >= 2);
        assert_eq!(
            table.get(1).map(|l| l.elo),
            Some(0.0),
            "level 1 is the anchor"
        );
    }
}
