//! `report.html`: one self-contained page about a results directory — standings
//! with an Elo chart, crosstable, LOS matrix, first-player and end-reason tables,
//! the configuration, and every game in a viewer that steps through it.
//!
//! - [`load`] reads the directory (games.csv, moves.csv, tournament.json, logs,
//!   transcripts) through the readers of [`crate::results`];
//! - each game is replayed by [`crate::results::replay`] with the rules engine, the
//!   one authority on the rules: the page's script only draws what it is given;
//! - [`page`] writes the HTML, its style and script inline, and the game data as
//!   JSON; [`chart`] draws the Elo chart and picks the score colours;
//! - [`league`] draws a league's table with each student's rating history and
//!   the flagged similar pairs, for the report and the live page;
//! - [`event`] draws a Swiss's table and a knockout's bracket, for the report
//!   and the live page;
//! - [`escape`] keeps bot-written text (names, info, stderr) from becoming markup.
//!
//! The page needs nothing else: no network, no fonts, no files beside it.

pub mod chart;
pub mod compact;
pub mod escape;
pub mod event;
pub mod league;
pub mod load;
pub mod page;
pub mod replayed;

use std::path::{Path, PathBuf};

use anyhow::Context as _;

use ratings::FitOptions;

/// The report's file name inside a results directory.
pub const REPORT_FILE: &str = "report.html";

/// The report of the results in `dir`, as HTML.
///
/// # Errors
/// The directory has no readable `games.csv`, or `moves.csv` has a bad row.
pub fn generate(dir: &Path) -> anyhow::Result<String> {
    let results = load::load(dir)?;
    let report = crate::results::standings::build(&results.games, &FitOptions::default())
        .map_err(|e| format!("{e:#}"));
    let nonce = format!("{:032x}", rand::random::<u128>());
    let html = page::render(&page::Inputs {
        results: &results,
        report,
        nonce: &nonce,
    })?;
    Ok(html)
}

/// Writes the report of `dir` to `out` (default `dir/report.html`) and returns the
/// path written.
///
/// # Errors
/// As [`generate`], or the file cannot be written.
pub fn write(dir: &Path, out: Option<&Path>) -> anyhow::Result<PathBuf> {
    let html = generate(dir)?;
    let path = out.map_or_else(|| dir.join(REPORT_FILE), Path::to_path_buf);
    crate::results::atomic::write_atomic(&path, html.as_bytes())
        .with_context(|| format!("writing the report to {}", path.display()))?;
    Ok(path)
}
