//! What a league run leaves besides the games: `grades.csv` (one row per
//! student, their current version, or their own row when this run left them
//! out), `grades-history.csv` (every version the league has seen, its last
//! grade, current or retired) and a feedback file per student
//! (`feedback/<name>.txt`; a submission left out under a name another entrant
//! of the run has, `feedback/left-out/<name>.txt`). Every text cell goes through the spreadsheet
//! rule ([`ratings::spreadsheet`]): a name starting with `=` stays a name in a
//! spreadsheet and an LMS import; numbers are plain numbers, nothing is a formula.

use std::collections::BTreeSet;
use std::path::Path;

use super::super::settings::RunSettings;
use super::super::settings::league::League;
use super::super::submissions::looks_builtin;
use super::grades::{Grade, grade};
use super::versions::{Status, VersionRow};
use crate::results::atomic::write_atomic;
use crate::results::store::GameRow;

pub use crate::results::league::{GRADES_FILE, GradeRow, HISTORY_FILE};
/// The folder of the students' feedback files.
pub const FEEDBACK_DIR: &str = "feedback";
/// The folder, in [`FEEDBACK_DIR`], of the feedback of a submission left out
/// under a name another entrant of the run has: its own file, never the other's.
pub const LEFT_OUT_DIR: &str = "left-out";

/// A row's `status` when this run left the student out.
pub const LEFT_OUT: &str = "left-out";

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

    /// The row of a submission this run left out, `why`: graded as `last`, its
    /// own last version (with `versions` of them), when it has one; else a row
    /// of its own with no version, no games and no result. Its feedback file is
    /// its own: in [`LEFT_OUT_DIR`] when `name` is another entrant's this run.
    pub fn left_out(
        name: &str,
        why: String,
        last: Option<(&VersionRow, u32, &Grade)>,
        name_taken: bool,
    ) -> GradeRow {
        let mut row = match last {
            Some((version, versions, grade)) => GradeRow::new(version, versions, grade),
            None => GradeRow {
                student: name.to_string(),
                version: String::new(),
                version_since: String::new(),
                versions: 0,
                status: String::new(),
                rating: None,
                rating_low: None,
                rating_high: None,
                highest_level: String::new(),
                result: String::new(),
                games: 0,
                faults: 0,
                detail: String::new(),
                feedback: String::new(),
            },
        };
        row.status = LEFT_OUT.into();
        row.detail = why;
        row.feedback = if name_taken {
            format!("{FEEDBACK_DIR}/{LEFT_OUT_DIR}/{name}.txt")
        } else {
            format!("{FEEDBACK_DIR}/{name}.txt")
        };
        row
    }
}

/// The rows of the submissions this run left out (`settings.left_out`), one
/// per name, its reasons together: each graded as its own last version in
/// `registry` (over `rows`, every game of the league) when it has one. A name
/// that is a level's, a built-in bot's or another entrant's of this run has
/// none: the versions under that name are the other bot's, never its.
pub fn left_out_rows(
    settings: &RunSettings,
    league: &League,
    registry: &[VersionRow],
    rows: &[GameRow],
) -> Vec<(GradeRow, Grade)> {
    let is_level = |name: &str| league.levels.iter().any(|l| l.name == name);
    let entrants: BTreeSet<&str> = settings
        .entrants
        .iter()
        .map(|e| e.spec.name.as_str())
        .collect();
    let mut reasons: Vec<(&str, Vec<&str>)> = Vec::new();
    for left in &settings.left_out {
        match reasons.iter_mut().find(|(name, _)| *name == left.name) {
            Some((_, whys)) => whys.push(&left.why),
            None => reasons.push((&left.name, vec![&left.why])),
        }
    }
    let mut out = Vec::new();
    for (name, whys) in reasons {
        let own = !entrants.contains(name) && !is_level(name) && looks_builtin(name).is_none();
        // A level writes no feedback file: only a graded entrant's is taken.
        let taken = entrants.contains(name) && !is_level(name);
        let last = registry.iter().rev().find(|r| own && r.name == name);
        let versions = registry.iter().filter(|r| r.name == name).count();
        let g = match last {
            Some(last) => grade(league, name, &last.version, rows),
            None => grade(league, name, "", &[]),
        };
        let row = GradeRow::left_out(
            name,
            whys.join("; "),
            last.map(|l| (l, u32::try_from(versions).unwrap_or(u32::MAX), &g)),
            taken,
        );
        out.push((row, g));
    }
    out
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
/// level's score and the faults, with where to look; for a student this run
/// left out, why (with the fix) first, then their last version's grade if they
/// have one.
pub fn feedback_text(row: &GradeRow, grade: &Grade, pass: Option<&str>, pass_score: f64) -> String {
    let mut text = String::new();
    if row.status == LEFT_OUT {
        text.push_str(&format!(
            "{}: LEFT OUT of this run: nothing of it was played.\nWhy: {}\n",
            row.student, row.detail
        ));
        if row.version.is_empty() {
            text.push_str("No version of this submission has played in this league yet.\n");
            return text;
        }
        text.push_str("The grade below is that of its last version that played.\n");
    }
    text.push_str(&format!(
        "{}: version {} (first seen {}), {} version{} so far\n",
        row.student,
        row.version,
        row.version_since,
        row.versions,
        if row.versions == 1 { "" } else { "s" }
    ));
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

/// Writes a student's feedback file, where the row's `feedback` says.
///
/// # Errors
/// Writing failed.
pub fn write_feedback(dir: &Path, row: &GradeRow, text: &str) -> anyhow::Result<()> {
    let file = Path::new(&row.feedback);
    let folder = file.parent().unwrap_or(Path::new(FEEDBACK_DIR));
    crate::results::nofollow::create_dir_in(dir, folder)?;
    write_atomic(&dir.join(file), text.as_bytes())
}
