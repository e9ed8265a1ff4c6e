//! `summary.json`: what a run of `match`, `gauntlet`, `sprt` or `tournament` was,
//! how it ended and why, for a CI step to read instead of terminal text. Written
//! into every results directory at the end of a run (the preflight's refusal
//! included) and printed by `--json`. The schema is in README.md ("summary.json");
//! [`SUMMARY_VERSION`] changes when a field changes meaning or goes away (new
//! fields may appear without it).

use std::path::Path;

use ratings::table::{CrosstableRow, StandingsRow, crosstable_rows, standings_rows};
use serde::Serialize;

use super::atomic::write_atomic;
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
    /// `match`, `gauntlet`, `sprt` or `tournament`.
    pub command: String,
    /// The command line that was run (what resumes it, too).
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
        let (standings, pairings) = if board.is_empty() {
            (Vec::new(), Vec::new())
        } else {
            let report = board.analysis(&ratings::FitOptions::default())?;
            (standings_rows(&report.standings), crosstable_rows(&report))
        };
        let head_to_head = pair.and_then(|(a, b)| {
            pairings
                .iter()
                .find(|r| r.bot == a && r.opponent == b)
                .cloned()
        });
        Ok(Summary {
            version: SUMMARY_VERSION,
            command: command.to_string(),
            arguments: std::env::args().collect(),
            seed: recorder.seed(),
            games_played: recorder.done(),
            games_total: recorder.total(),
            exit_code,
            exit_reason,
            broken_bots: Vec::new(),
            standings,
            pairings,
            head_to_head,
            sprt: None,
            gauntlet: None,
        })
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
