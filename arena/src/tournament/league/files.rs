//! What a league run leaves besides the games: `grades.csv` (one row per
//! student, their current version), `grades-history.csv` (every version the
//! league has seen, its last grade, current or retired) and a feedback file per
//! student (`feedback/<name>.txt`). Every text cell goes through the spreadsheet
//! rule ([`ratings::spreadsheet`]): a name starting with `=` stays a name in a
//! spreadsheet and an LMS import; numbers are plain numbers, nothing is a formula.

use std::path::Path;

use super::grades::Grade;
use super::versions::{Status, VersionRow};
use crate::results::atomic::write_atomic;

pub use crate::results::league::{GRADES_FILE, GradeRow, HISTORY_FILE};
/// The folder of the students' feedback files.
pub const FEEDBACK_DIR: &str = "feedback";

/// Rounds an end of an interval, empty when open.
fn whole(x: f64) -> Option<i64> {
    #[allow(clippy::cast_possible_truncation)]
    x.is_finite().then(|| x.round() as i64)
}

impl GradeRow {
    /// The row of `version`, graded `grade`, one of `versions` of its student.
    pub fn new(version: &VersionRow, versions: u32, grade: &Grade) -> GradeRow {
        let p = grade.placement;
        GradeRow {
            student: version.name.clone(),
            version: version.version.clone(),
            version_since: version.first_seen.clone(),
            versions,
            status: match version.status {
                Status::Current => "current".into(),
                Status::Retired => "retired".into(),
            },
            rating: p.and_then(|p| whole(p.elo)),
            rating_low: p.and_then(|p| whole(p.interval.low)),
            rating_high: p.and_then(|p| whole(p.interval.high)),
            highest_level: grade.highest.clone().unwrap_or_default(),
            result: match grade.passed {
                Some(true) => "pass".into(),
                Some(false) => "fail".into(),
                None => String::new(),
            },
            games: grade.games,
            faults: grade.faults.values().sum(),
            detail: grade
                .faults
                .iter()
                .map(|(r, n)| format!("{r}:{n}"))
                .collect::<Vec<_>>()
                .join(" "),
            feedback: format!("{FEEDBACK_DIR}/{}.txt", version.name),
        }
    }
}

/// Writes `rows` as the CSV file `name` in `dir`, whole.
///
/// # Errors
/// Writing failed.
pub fn write_rows(dir: &Path, name: &str, rows: &[GradeRow]) -> anyhow::Result<()> {
    let mut out = csv::Writer::from_writer(Vec::new());
    for row in rows {
        out.serialize(row)?;
    }
    if rows.is_empty() {
        // The header alone, so an import sees the columns of an empty class.
        out = csv::Writer::from_writer(Vec::new());
        out.write_record([
            "student",
            "version",
            "version_since",
            "versions",
            "status",
            "rating",
            "rating_low",
            "rating_high",
            "highest_level",
            "result",
            "games",
            "faults",
            "detail",
            "feedback",
        ])?;
    }
    write_atomic(&dir.join(name), &out.into_inner()?)
}

/// The words of a student's feedback file: their current version's grade, each
/// level's score and the faults, with where to look.
pub fn feedback_text(row: &GradeRow, grade: &Grade, pass: Option<&str>, pass_score: f64) -> String {
    let mut text = format!(
        "{}: version {} (first seen {}), {} version{} so far\n",
        row.student,
        row.version,
        row.version_since,
        row.versions,
        if row.versions == 1 { "" } else { "s" }
    );
    match grade.placement {
        Some(p) => text.push_str(&format!(
            "Rating on the reference levels' scale: {}\n",
            super::super::placing::line(&p)
        )),
        None => text.push_str("No games against the levels yet.\n"),
    }
    for level in &grade.levels {
        text.push_str(&format!(
            "  against {}: {} of {} points\n",
            level.level, level.points, level.games
        ));
    }
    if let Some(pass) = pass {
        text.push_str(&format!(
            "To pass: score at least {:.0}% against {pass}. Result: {}.\n",
            pass_score * 100.0,
            row.result
        ));
    }
    if row.faults > 0 {
        text.push_str(&format!(
            "Games lost by your bot's own fault: {} ({}). games.csv has each one's detail; \
             failures/ has a bundle with the command that replays it.\n",
            row.faults, row.detail
        ));
    }
    text
}

/// Writes a student's feedback file.
///
/// # Errors
/// Writing failed.
pub fn write_feedback(dir: &Path, row: &GradeRow, text: &str) -> anyhow::Result<()> {
    crate::results::nofollow::create_dir_in(dir, Path::new(FEEDBACK_DIR))?;
    let file = dir.join(FEEDBACK_DIR).join(format!("{}.txt", row.student));
    write_atomic(&file, text.as_bytes())
}
