//! The gradebook as a school's system imports it, written beside `grades.csv`
//! after every run, one row per student by name, every student with a number
//! (the league's rule: `level-grades`, `no-level-grade`):
//!
//! - `gradebook-moodle.csv`, for Moodle's "Import grades from CSV" (Grade
//!   administration → Import → CSV file): a header row; a `Username` column to
//!   map to the user's username (the folder's name), a grade column named
//!   after the league to map to a grade item, and a `Feedback` column to map to
//!   its feedback. Moodle reads each grade as a number (`-` or empty: no
//!   grade), at most the site's `gradepointmax` (100 by default). Moodle's
//!   importer: `grade/import/csv/classes/load_data.php`; MoodleDocs, "Grade
//!   import".
//! - `gradebook-canvas.csv`, for Canvas's Gradebook → Import: the columns
//!   `Student`, `ID`, `SIS User ID`, `SIS Login ID`, `Section`, then one
//!   column per assignment (here one, named after the league, which Canvas
//!   makes an assignment of when it has none of that name), and a second row
//!   `Points Possible` giving the assignment's points. Canvas matches a row to
//!   a student by `ID`, `SIS User ID` or `SIS Login ID`: the folder's name is
//!   written as `SIS Login ID` (and as `Student`, for the teacher's eyes).
//!   Canvas Instructor Guide, "How do I import grades in the Gradebook?".
//!
//! So the folders must be named as the school's system knows the students
//! (their username or login). Every text cell follows the spreadsheet rule of
//! every CSV the arena writes: a name starting with `=`, `+`, `-` or `@` gets
//! a leading apostrophe, which the import shows as a name it does not know
//! rather than running it.

use std::path::Path;

use super::super::settings::league::League;
use crate::results::atomic::write_atomic;
use crate::results::league::{CANVAS_FILE, GradebookRow, MOODLE_FILE, Status};

/// A cell of text, by the spreadsheet rule.
fn text(cell: &str) -> String {
    ratings::spreadsheet::neutralise(cell).into_owned()
}

/// A grade as a plain number (`80`, `62.5`).
fn number(x: f64) -> String {
    format!("{x}")
}

/// The one line a gradebook shows beside a student's grade: their result in
/// words, for the student to read.
pub fn summary(row: &GradebookRow) -> String {
    let mut words = match row.highest_level.as_str() {
        "" => "No level reached yet".to_string(),
        level => format!("Reached {level}"),
    };
    if !row.undecided.is_empty() {
        words.push_str(&format!(
            " (not yet decided: {})",
            row.undecided.replace(' ', ", ")
        ));
    }
    match row.result.as_str() {
        "pass" => words.push_str(". Pass."),
        "fail" => words.push_str(". Not passed yet."),
        "undecided" => words.push_str(". Pass not yet decided."),
        _ => words.push('.'),
    }
    if row.status == Status::BuildFailed.word() {
        words.push_str(" The latest submission did not build: see the feedback file.");
    } else if row.status == Status::LeftOut.word() {
        words.push_str(" The latest submission was left out: see the feedback file.");
    }
    words
}

/// The two exports of `rows` (`grades.csv`'s, sorted by student) for the
/// league `name` in `dir`.
///
/// # Errors
/// Writing failed.
pub fn write_exports(
    dir: &Path,
    name: &str,
    league: &League,
    rows: &[GradebookRow],
) -> anyhow::Result<()> {
    let grade = |row: &GradebookRow| number(row.grade.unwrap_or(league.no_level_grade));
    let mut moodle = csv::Writer::from_writer(Vec::new());
    moodle.write_record(["Username", &text(name), "Feedback"])?;
    for row in rows {
        moodle.write_record([text(&row.student), grade(row), text(&summary(row))])?;
    }
    write_atomic(&dir.join(MOODLE_FILE), &moodle.into_inner()?)?;

    let mut canvas = csv::Writer::from_writer(Vec::new());
    canvas.write_record([
        "Student",
        "ID",
        "SIS User ID",
        "SIS Login ID",
        "Section",
        &text(name),
    ])?;
    canvas.write_record([
        "Points Possible",
        "",
        "",
        "",
        "",
        &number(league.best_grade()),
    ])?;
    for row in rows {
        let student = text(&row.student);
        canvas.write_record([student.as_str(), "", "", student.as_str(), "", &grade(row)])?;
    }
    write_atomic(&dir.join(CANVAS_FILE), &canvas.into_inner()?)
}
