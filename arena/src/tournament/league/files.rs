//! What a league run leaves besides the games: `grades.csv` (the gradebook: one
//! row per student, by name, with a numeric grade for everyone, a student whose
//! build failed or who was left out included), `grades-history.csv` (every
//! version the league has seen, its grade, its [`Status`]) and a feedback file
//! per student (`feedback/<name>.txt`; a submission left out under a name
//! another entrant of the run has, `feedback/left-out/<name>.txt`). Every text
//! cell goes through the spreadsheet rule ([`ratings::spreadsheet`]): a name
//! starting with `=` stays a name in a spreadsheet and an LMS import; numbers
//! are plain numbers, nothing is a formula.
//!
//! `grades.csv` holds no time, so the same games give the same file byte for
//! byte; the history says when each version was first seen.

use std::path::Path;

use super::super::settings::league::League;
use super::grades::Grade;
use super::versions::VersionRow;
use crate::results::atomic::write_atomic;

pub use crate::results::league::{GRADES_FILE, GradeRow, GradebookRow, HISTORY_FILE, Status};
/// The folder of the students' feedback files.
pub const FEEDBACK_DIR: &str = "feedback";
/// The folder, in [`FEEDBACK_DIR`], of the feedback of a submission left out
/// under a name another entrant of the run has: its own file, never the other's.
pub const LEFT_OUT_DIR: &str = "left-out";

/// Rounds an end of an interval, empty when open.
fn whole(x: f64) -> Option<i64> {
    #[allow(clippy::cast_possible_truncation)]
    x.is_finite().then(|| x.round() as i64)
}

/// The feedback file of `name`, relative to the league's directory: in
/// [`LEFT_OUT_DIR`] when the name is another entrant's this run.
pub fn feedback_path(name: &str, name_taken: bool) -> String {
    if name_taken {
        format!("{FEEDBACK_DIR}/{LEFT_OUT_DIR}/{name}.txt")
    } else {
        format!("{FEEDBACK_DIR}/{name}.txt")
    }
}

/// The faults of `grade` by reason (`timeout:2 crash:1`).
fn faults_words(grade: &Grade) -> String {
    grade
        .faults
        .iter()
        .map(|(r, n)| format!("{r}:{n}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The result word of `grade` (`pass`, `fail`, `undecided`; empty without a
/// pass level).
fn result_word(grade: &Grade) -> String {
    grade
        .outcome
        .map(|o| o.word().to_string())
        .unwrap_or_default()
}

impl GradeRow {
    /// The history's row of `version` (one of `versions` of its student),
    /// graded `grade` when it played; `detail` says why it did not.
    pub fn new(
        version: &VersionRow,
        versions: u32,
        grade: Option<&Grade>,
        detail: Option<&str>,
    ) -> GradeRow {
        let p = grade.and_then(|g| g.placement);
        GradeRow {
            student: version.name.clone(),
            version: version.version.clone(),
            version_since: version.first_seen.clone(),
            versions,
            status: version.status.word().into(),
            rating: p.and_then(|p| whole(p.elo)),
            rating_low: p.and_then(|p| whole(p.interval.low)),
            rating_high: p.and_then(|p| whole(p.interval.high)),
            highest_level: grade.and_then(|g| g.highest.clone()).unwrap_or_default(),
            result: grade.map(result_word).unwrap_or_default(),
            games: grade.map_or(0, |g| g.games),
            faults: grade.map_or(0, |g| g.faults.values().sum()),
            detail: match detail {
                Some(why) => why.to_string(),
                None => grade.map(faults_words).unwrap_or_default(),
            },
            feedback: feedback_path(&version.name, false),
            undecided: grade.map(|g| g.undecided.join(" ")).unwrap_or_default(),
            grade: grade.map(|g| g.grade),
        }
    }
}

/// What a student's row of the gradebook is made of.
#[derive(Clone, Debug)]
pub struct Entry<'a> {
    /// The student.
    pub name: &'a str,
    /// What became of their latest submission.
    pub status: Status,
    /// Its version, when its folder was read.
    pub version: Option<&'a str>,
    /// The version graded (the latest if it played, else their last that did)
    /// and its grade.
    pub graded: Option<(&'a str, &'a Grade)>,
    /// Why the latest did not play (a failed build's last lines, a rule of
    /// submissions it broke).
    pub why: Option<&'a str>,
    /// How many versions of theirs the league has seen.
    pub versions: u32,
    /// Their feedback file ([`feedback_path`]).
    pub feedback: String,
}

impl GradebookRow {
    /// The gradebook's row of `entry`, by `league`'s rule: a student without a
    /// graded version gets the grade for no level.
    pub fn of(entry: &Entry<'_>, league: &League) -> GradebookRow {
        let grade = entry.graded.map(|(_, g)| g);
        let p = grade.and_then(|g| g.placement);
        GradebookRow {
            student: entry.name.to_string(),
            status: entry.status.word().into(),
            grade: Some(grade.map_or(league.no_level_grade, |g| g.grade)),
            result: grade.map(result_word).unwrap_or_default(),
            highest_level: grade.and_then(|g| g.highest.clone()).unwrap_or_default(),
            undecided: grade.map(|g| g.undecided.join(" ")).unwrap_or_default(),
            rating: p.and_then(|p| whole(p.elo)),
            rating_low: p.and_then(|p| whole(p.interval.low)),
            rating_high: p.and_then(|p| whole(p.interval.high)),
            games: grade.map_or(0, |g| g.games),
            faults: grade.map_or(0, |g| g.faults.values().sum()),
            detail: match entry.why {
                Some(why) => why.to_string(),
                None => grade.map(faults_words).unwrap_or_default(),
            },
            version: entry.version.unwrap_or_default().to_string(),
            graded_version: entry.graded.map(|(v, _)| v.to_string()).unwrap_or_default(),
            versions: entry.versions,
            feedback: entry.feedback.clone(),
        }
    }
}

/// The columns of `grades.csv`, for a class without a row.
const GRADEBOOK_COLUMNS: [&str; 16] = [
    "student",
    "status",
    "grade",
    "result",
    "highest_level",
    "undecided",
    "rating",
    "rating_low",
    "rating_high",
    "games",
    "faults",
    "detail",
    "version",
    "graded_version",
    "versions",
    "feedback",
];

/// The columns of `grades-history.csv`, for a league without a version.
const HISTORY_COLUMNS: [&str; 16] = [
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
    "undecided",
    "grade",
];

/// Writes `rows` as a CSV file at `path`, whole; the header `columns` alone
/// when there is none, so an import sees the columns of an empty class.
fn write_csv<T: serde::Serialize>(path: &Path, rows: &[T], columns: &[&str]) -> anyhow::Result<()> {
    let mut out = csv::Writer::from_writer(Vec::new());
    if rows.is_empty() {
        out.write_record(columns)?;
    }
    for row in rows {
        out.serialize(row)?;
    }
    write_atomic(path, &out.into_inner()?)
}

/// Writes `grades.csv` in `dir`: `rows` sorted by student (a name's entrant
/// before a submission left out under it).
///
/// # Errors
/// Writing failed.
pub fn write_gradebook(dir: &Path, rows: &mut [GradebookRow]) -> anyhow::Result<()> {
    rows.sort_by(|a, b| {
        a.student
            .cmp(&b.student)
            .then_with(|| (a.status != Status::Current.word()).cmp(&(b.status != "current")))
    });
    write_csv(&dir.join(GRADES_FILE), rows, &GRADEBOOK_COLUMNS)
}

/// Writes `grades-history.csv` in `dir`.
///
/// # Errors
/// Writing failed.
pub fn write_history(dir: &Path, rows: &[GradeRow]) -> anyhow::Result<()> {
    write_csv(&dir.join(HISTORY_FILE), rows, &HISTORY_COLUMNS)
}

/// Writes a student's feedback file, at `file` (relative to `dir`).
///
/// # Errors
/// Writing failed.
pub fn write_feedback(dir: &Path, file: &str, text: &str) -> anyhow::Result<()> {
    let file = Path::new(file);
    let folder = file.parent().unwrap_or(Path::new(FEEDBACK_DIR));
    crate::results::nofollow::create_dir_in(dir, folder)?;
    write_atomic(&dir.join(file), text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::league::read;

    #[test]
    fn the_gradebook_is_sorted_by_student_and_reads_back_as_grade_rows() {
        let dir = tempfile::tempdir().unwrap();
        let league = League {
            mode: crate::tournament::settings::input::LeagueMode::Levels,
            levels: Vec::new(),
            pass: None,
            pass_score: 0.5,
            similarity_threshold: 0.6,
            min_games: 4,
            max_games: 20,
            starter: None,
            level_grades: Vec::new(),
            no_level_grade: 5.0,
            timed: true,
        };
        let entry = |name: &'static str, status| Entry {
            name,
            status,
            version: None,
            graded: None,
            why: Some("build failed (exit code 1):\nmain.cpp:1:21: error: 'x' was not declared"),
            versions: 0,
            feedback: feedback_path(name, false),
        };
        let mut rows = vec![
            GradebookRow::of(&entry("zed", Status::BuildFailed), &league),
            GradebookRow::of(&entry("=ada", Status::LeftOut), &league),
        ];
        write_gradebook(dir.path(), &mut rows).unwrap();
        // The reader needs a history beside it.
        write_history(dir.path(), &[]).unwrap();
        let text = std::fs::read_to_string(dir.path().join(GRADES_FILE)).unwrap();
        assert!(text.starts_with("student,status,grade,"), "{text}");
        assert!(text.contains("'=ada,left-out,5,"), "{text}");
        let back = read(dir.path()).unwrap().unwrap().grades;
        let names: Vec<&str> = back.iter().map(|r| r.student.as_str()).collect();
        assert_eq!(names, ["=ada", "zed"]);
        assert_eq!(back[1].status, "build-failed");
        assert_eq!(back[1].grade, Some(5.0));
        assert!(back[1].detail.contains("main.cpp:1:21"), "{:?}", back[1]);
    }
}
