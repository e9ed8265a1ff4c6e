//! `summary.json`: what a run of `match`, `gauntlet`, `sprt`, `tournament` or `rate` was,
//! how it ended and why, for a CI step to read instead of terminal text. Written
//! into every results directory at the end of a run (the preflight's refusal
//! included) and printed by `--json`. The schema is in docs/guide/files.md ("summary.json");
//! [`SUMMARY_VERSION`] changes when a field changes meaning or goes away (new
//! fields may appear without it).

use std::path::Path;

use ratings::Analysis;
use ratings::table::{CrosstableRow, StandingsRow, crosstable_rows, standings_rows};
use serde::Serialize;

use super::atomic::write_atomic;
use super::bundle::{self, Failure};
use super::recorder::Recorder;

/// The file name, in a results directory.
pub const SUMMARY_FILE: &str = "summary.json";
/// The schema version.
pub const SUMMARY_VERSION: u32 = 1;

/// The whole file.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// [`SUMMARY_VERSION`].
    pub version: u32,
    /// `match`, `gauntlet`, `sprt`, `tournament` or `rate`.
    pub command: String,
    /// The command line that was run (what resumes it, too); absent for `rate`,
    /// whose summary is the same however the command that finished it was
    /// spelled (`--json`, `--quiet`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<String>,
    /// The seed the games derive from.
    pub seed: u64,
    /// Games finished (earlier runs on the directory included).
    pub games_played: u64,
    /// Games scheduled.
    pub games_total: u64,
    /// The exit code of the run.
    pub exit_code: u8,
    /// Why, in words.
    pub exit_reason: String,
    /// Bots the preflight could not start (then no game was played).
    pub broken_bots: Vec<BrokenBot>,
    /// `tournament`: bots that did not take part, with why (a submission that
    /// did not build or could not start, `--exclude`); the run went on
    /// without them, so they do not decide the exit code.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<BrokenBot>,
    /// Standings: Elo ± (95%) from the fit over every game, as standings.csv.
    pub standings: Vec<StandingsRow>,
    /// Every pairing from both sides, as crosstable.csv: score, Elo ± and LOS
    /// from those games alone, pentanomial pair counts. `null` values are the
    /// terminal's `n/a`.
    pub pairings: Vec<CrosstableRow>,
    /// `match` and `sprt`: the first bot against the second (a row of `pairings`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head_to_head: Option<CrosstableRow>,
    /// `sprt`: the test.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtVerdict>,
    /// `gauntlet`: the challenger's score against its threshold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gauntlet: Option<GauntletVerdict>,
    /// Every game that failed (a crash, a timeout, an illegal or malformed move, a
    /// disconnect, a handshake failure): the bot, why, its bundle under
    /// `failures/` and the command that reproduces it.
    pub failures: Vec<Failure>,
    /// `rate`: the bot's place on the levels' scale. Its fields are at the top
    /// level of the object, where `rate` wrote them before the common fields
    /// joined them.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub rate: Option<RateVerdict>,
    /// How loaded the machine was, from moves.csv's clock columns (absent
    /// without a results directory or where the host could not measure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub machine: Option<super::machine_load::MachineLoad>,
    /// What the governor did to keep timed bots served (absent when no game
    /// was played).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub governor: Option<super::governor_file::GovernorReport>,
}

/// `arena rate`'s placement of a bot on the reference levels' scale.
#[derive(Clone, Debug, Serialize)]
pub struct RateVerdict {
    /// The bot's name in the results.
    pub bot: String,
    /// The maximum-likelihood rating; null when the bot won (or lost) every game.
    pub elo: Option<f64>,
    /// The interval's low end; null when the results do not bound that side.
    pub low: Option<f64>,
    /// The interval's high end; null likewise.
    pub high: Option<f64>,
    /// Half the interval's width; null when a side is open.
    pub half_width: Option<f64>,
    /// The interval's confidence level (0.95).
    pub confidence: f64,
    /// The half-width asked for.
    pub precision: f64,
    /// `precise`, `max-games`, `interrupted` or `bot-failed`.
    pub stopped: String,
    /// Games the bot played.
    pub games: u32,
    /// Its points in them.
    pub points: f64,
    /// The strongest level rated at or below the estimate.
    pub level_below: Option<LevelRef>,
    /// The weakest level rated above it.
    pub level_above: Option<LevelRef>,
    /// The bot's losses by its own fault, by reason (timeout, illegal-move…).
    pub faults: std::collections::BTreeMap<String, u32>,
    /// The games against each level met.
    pub levels: Vec<LevelGames>,
}

/// A reference level and its rating.
#[derive(Clone, Debug, Serialize)]
pub struct LevelRef {
    /// Its name (`level4`).
    pub name: String,
    /// Its rating on the levels' scale.
    pub elo: f64,
}

/// The games against one level.
#[derive(Clone, Debug, Serialize)]
pub struct LevelGames {
    /// The level's name.
    pub name: String,
    /// Its rating.
    pub elo: f64,
    /// Games against it.
    pub games: u32,
    /// The bot's points in them.
    pub points: f64,
}

/// A bot that could not be started.
#[derive(Clone, Debug, Serialize)]
pub struct BrokenBot {
    /// Its name.
    pub name: String,
    /// What happened, in words.
    pub problem: String,
}

/// The SPRT's state at the end.
#[derive(Clone, Debug, Serialize)]
pub struct SprtVerdict {
    /// `H0` (a regression), `H1` (accepted), or `continue` (undecided).
    pub decision: String,
    /// The log-likelihood ratio.
    pub llr: f64,
    /// The lower bound (H0 below it).
    pub lower_bound: f64,
    /// The upper bound (H1 above it).
    pub upper_bound: f64,
    /// H0's Elo.
    pub elo0: f64,
    /// H1's Elo.
    pub elo1: f64,
    /// Type I error rate.
    pub alpha: f64,
    /// Type II error rate.
    pub beta: f64,
    /// `normalized` (nElo) or `logistic` (Elo).
    pub model: String,
}

/// `arena sprt --decide`'s object (`--json`): the test over its batches.
#[derive(Clone, Debug, Serialize)]
pub struct BatchesSummary {
    /// [`SUMMARY_VERSION`].
    pub version: u32,
    /// `sprt --decide`.
    pub command: String,
    /// The command line that was run.
    pub arguments: Vec<String>,
    /// The test's seed (every batch's).
    pub seed: u64,
    /// Pairs in every batch.
    pub pairs_per_batch: u32,
    /// The complete batches counted, in batch order, each with the test's state
    /// after it; the last one decided the test if it is decided.
    pub batches: Vec<BatchState>,
    /// Complete batches not needed (the test was decided before them).
    pub not_needed: Vec<u32>,
    /// Unfinished batches, not counted.
    pub unfinished: Vec<u32>,
    /// Games counted.
    pub games_counted: u64,
    /// The test after the last batch counted (`continue` before any).
    pub sprt: SprtVerdict,
    /// The exit code.
    pub exit_code: u8,
    /// Why, in words.
    pub exit_reason: String,
}

/// One batch as `--decide` counted it.
#[derive(Clone, Debug, Serialize)]
pub struct BatchState {
    /// Its number.
    pub index: u32,
    /// Its directory.
    pub dir: String,
    /// Its games.
    pub games: u64,
    /// The LLR over this batch and every batch before it.
    pub llr: f64,
    /// `H0`, `H1` or `continue` after it.
    pub decision: String,
}

/// The gauntlet's verdict.
#[derive(Clone, Debug, Serialize)]
pub struct GauntletVerdict {
    /// The challenger.
    pub challenger: String,
    /// Its points per game, 0 to 1.
    pub score: Option<f64>,
    /// Its points.
    pub points: f64,
    /// Its games.
    pub games: u64,
    /// `--min-score`, if given.
    pub min_score: Option<f64>,
    /// `PASS` or `FAIL` against `min_score`; `null` without one or when the run
    /// has no result (interrupted, a bot that could not start).
    pub verdict: Option<String>,
}

impl Summary {
    /// A summary of `recorder`'s games, with the standings and pairings of every
    /// game in it, and the head-to-head of `pair` when given.
    ///
    /// # Errors
    /// The games could not be rated.
    pub fn of(
        command: &str,
        recorder: &Recorder,
        pair: Option<(&str, &str)>,
        exit_code: u8,
        exit_reason: String,
    ) -> anyhow::Result<Summary> {
        let board = recorder.scoreboard();
        let fit = if board.is_empty() {
            None
        } else {
            Some(board.analysis(&ratings::FitOptions::default())?)
        };
        Ok(Summary::with_fit(
            command,
            recorder,
            fit.as_ref(),
            pair,
            exit_code,
            exit_reason,
        ))
    }

    /// [`Summary::of`] with the ratings fit of `recorder`'s games already made
    /// (`None` without games).
    pub fn with_fit(
        command: &str,
        recorder: &Recorder,
        fit: Option<&Analysis>,
        pair: Option<(&str, &str)>,
        exit_code: u8,
        exit_reason: String,
    ) -> Summary {
        let (standings, pairings) = match fit {
            None => (Vec::new(), Vec::new()),
            Some(report) => (standings_rows(&report.standings), crosstable_rows(report)),
        };
        let head_to_head = pair.and_then(|(a, b)| {
            pairings
                .iter()
                .find(|r| r.bot == a && r.opponent == b)
                .cloned()
        });
        let failures = recorder
            .out()
            .map(|dir| bundle::failures(dir, recorder.scoreboard().failed_games()))
            .unwrap_or_default();
        Summary {
            version: SUMMARY_VERSION,
            command: command.to_string(),
            arguments: std::env::args().collect(),
            seed: recorder.seed(),
            games_played: recorder.done(),
            games_total: recorder.total(),
            exit_code,
            exit_reason,
            broken_bots: Vec::new(),
            left_out: Vec::new(),
            standings,
            pairings,
            head_to_head,
            sprt: None,
            gauntlet: None,
            failures,
            rate: None,
            machine: recorder.machine_load(),
            governor: recorder.governor().cloned(),
        }
    }

    /// The JSON text (pretty, ending with a newline).
    ///
    /// # Errors
    /// Serialization failed (a bug).
    pub fn to_json(&self) -> anyhow::Result<String> {
        let mut text = serde_json::to_string_pretty(self)?;
        text.push('\n');
        Ok(text)
    }

    /// Writes `summary.json` into `dir`, whole or not at all.
    ///
    /// # Errors
    /// The file could not be written.
    pub fn write(&self, dir: &Path) -> anyhow::Result<()> {
        write_atomic(&dir.join(SUMMARY_FILE), self.to_json()?.as_bytes())
    }
}
