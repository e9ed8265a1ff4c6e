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
pub mod left_out;
pub mod load;
pub mod page;
pub mod replayed;

use std::path::{Path, PathBuf};

use anyhow::Context as _;

use ratings::FitOptions;

/// The report's file name inside a results directory.
pub const REPORT_FILE: &str = "report.html";

/// The teacher's report's file name (`arena report --teacher`).
pub const TEACHER_REPORT_FILE: &str = "report-teacher.html";

/// The report of the results in `dir`, as HTML, for `reader`.
///
/// # Errors
/// The directory has no readable `games.csv`, or `moves.csv` has a bad row.
pub fn generate(dir: &Path, reader: league::Reader) -> anyhow::Result<String> {
    let results = load::load(dir)?;
    let options = match &results.manifest {
        // A league's Elo is on its grades' scale: the levels at their ratings.
        Some(m) if m.schedule.format.starts_with("league:") => {
            let levels = league::levels_among(m.schedule.bots.iter().map(|b| b.name.as_str()));
            league::anchored(&levels, |name| {
                results.games.iter().any(|g| g.x == name || g.o == name)
            })
        }
        _ => FitOptions::default(),
    };
    let report =
        crate::results::standings::build(&results.games, &options).map_err(|e| format!("{e:#}"));
    let nonce = format!("{:032x}", rand::random::<u128>());
    let html = page::render(&page::Inputs {
        results: &results,
        report,
        nonce: &nonce,
        reader,
    })?;
    Ok(html)
}

/// Writes the report of `dir` for `reader` to `out` (default
/// `dir/report.html`, or `dir/report-teacher.html` for the teacher) and returns
/// the path written.
///
/// # Errors
/// As [`generate`], or the file cannot be written.
pub fn write(dir: &Path, out: Option<&Path>, reader: league::Reader) -> anyhow::Result<PathBuf> {
    let html = generate(dir, reader)?;
    let file = match reader {
        league::Reader::Class => REPORT_FILE,
        league::Reader::Teacher => TEACHER_REPORT_FILE,
    };
    let path = out.map_or_else(|| dir.join(file), Path::to_path_buf);
    crate::results::atomic::write_atomic(&path, html.as_bytes())
        .with_context(|| format!("writing the report to {}", path.display()))?;
    Ok(path)
}
