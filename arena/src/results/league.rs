//! The files a league (`arena league`) leaves beside its games, as typed rows,
//! and their one reader: `grades.csv` (the gradebook, [`GradebookRow`]: one row
//! per student, by name, a numeric grade for everyone), `grades-history.csv`
//! ([`GradeRow`]: every version), both written by `tournament::league::files`,
//! `similarity.csv` ([`PairRow`], written by `similarity`), and the
//! [`Status`] words all three files (and `versions.csv`) share. The report and the live page read a league's
//! directory through [`read`]: the students' table with their number of versions,
//! each version's rating for the history chart, the flagged pairs with their
//! evidence.
//!
//! A results directory may come from anyone and the live page reads it again as
//! it changes: each file is read without following a link and only up to
//! [`MAX_BYTES`] (a season of thousands of versions); what lies beyond is left out
//! with a warning, so memory stays bounded whatever the directory holds.

use std::io::Read as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::nofollow::{self, Access};

/// The students' current grades.
pub const GRADES_FILE: &str = "grades.csv";
/// Every version's grade.
pub const HISTORY_FILE: &str = "grades-history.csv";
/// Pairs of submissions compared for similarity.
pub const SIMILARITY_FILE: &str = "similarity.csv";
/// The gradebook as Moodle's CSV grade import reads it.
pub const MOODLE_FILE: &str = "gradebook-moodle.csv";
/// The gradebook as Canvas's gradebook import reads it.
pub const CANVAS_FILE: &str = "gradebook-canvas.csv";

/// What became of a student's latest submission, or of one version: the one
/// vocabulary of `grades.csv`, `grades-history.csv` and `versions.csv`, so a
/// word means the same in all three.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Built, played and graded: the student's folder holds this version now.
    Current,
    /// A later submission replaced it: its games and grade stay in the history.
    Retired,
    /// Its build failed: it played no game (the build's words are in `detail`).
    BuildFailed,
    /// Left out for another reason (its folder over its cap, a name another bot
    /// has, a path leading outside it): it played no game.
    LeftOut,
}

impl Status {
    /// Every status, in the order above.
    pub const ALL: [Status; 4] = [
        Status::Current,
        Status::Retired,
        Status::BuildFailed,
        Status::LeftOut,
    ];

    /// Its word in the files.
    pub const fn word(self) -> &'static str {
        match self {
            Status::Current => "current",
            Status::Retired => "retired",
            Status::BuildFailed => "build-failed",
            Status::LeftOut => "left-out",
        }
    }

    /// Whether a submission of this status played this run.
    pub const fn played(self) -> bool {
        matches!(self, Status::Current)
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.word())
    }
}

/// A grade as a plain number (`80`, `62.5`): what a gradebook import reads,
/// never `80.0`.
mod points {
    use serde::{Deserialize as _, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(x) => s.serialize_str(&format!("{x}")),
            None => s.serialize_str(""),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        let text = String::deserialize(d)?;
        if text.trim().is_empty() {
            return Ok(None);
        }
        text.trim()
            .parse()
            .map(Some)
            .map_err(|_| serde::de::Error::custom(format!("'{text}' is not a number")))
    }
}

/// The most of each league file read (its first complete lines).
pub const MAX_BYTES: u64 = 2 << 20;

/// One row of `grades.csv` and `grades-history.csv`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GradeRow {
    /// The student (the submission folder's name).
    #[serde(with = "ratings::spreadsheet")]
    pub student: String,
    /// The version graded (12 hex digits of its folder's hash).
    #[serde(with = "ratings::spreadsheet")]
    pub version: String,
    /// When the league first saw this version (UTC; empty in `grades.csv`,
    /// which holds no time so that the same games give the same file).
    #[serde(default, with = "ratings::spreadsheet")]
    pub version_since: String,
    /// How many versions of this student the league has seen.
    pub versions: u32,
    /// A [`Status`] word: `current`, `retired`, `build-failed` or `left-out`
    /// (see `detail` for why).
    #[serde(with = "ratings::spreadsheet")]
    pub status: String,
    /// Elo on the levels' scale (level 1 = 0), empty without games or when the
    /// results bound it on one side only.
    pub rating: Option<i64>,
    /// The 95% interval's low end, empty when open.
    pub rating_low: Option<i64>,
    /// Its high end, empty when open.
    pub rating_high: Option<i64>,
    /// The strongest level the games settle it scores `pass-score` against,
    /// empty if none.
    #[serde(with = "ratings::spreadsheet")]
    pub highest_level: String,
    /// `pass`, `fail` or `undecided` against the `pass` level; empty without
    /// one.
    #[serde(with = "ratings::spreadsheet")]
    pub result: String,
    /// Games this version played.
    pub games: u32,
    /// Games it lost by its own fault.
    pub faults: u32,
    /// The faults by reason (`timeout:2 crash:1`), or why it was left out.
    #[serde(with = "ratings::spreadsheet")]
    pub detail: String,
    /// The student's feedback file, relative to the league's directory.
    #[serde(with = "ratings::spreadsheet")]
    pub feedback: String,
    /// The levels whose pass the games have not settled yet (and that could
    /// still change the highest level), space-separated.
    #[serde(default, with = "ratings::spreadsheet")]
    pub undecided: String,
    /// The numeric grade by the league's rule (`[league] grades`).
    #[serde(default, with = "points")]
    pub grade: Option<f64>,
}

/// One row of `grades.csv`, the gradebook: one per student, sorted by name,
/// every student there (one whose build failed or who was left out too) with
/// a numeric grade. It holds no time: the same games give the same file,
/// byte for byte. Read back as a [`GradeRow`] (its columns are a superset but
/// for `version_since`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GradebookRow {
    /// The student (the submission folder's name).
    #[serde(with = "ratings::spreadsheet")]
    pub student: String,
    /// A [`Status`] word: what became of the student's latest submission.
    #[serde(with = "ratings::spreadsheet")]
    pub status: String,
    /// The numeric grade by the league's rule (`[league] grades`), from
    /// `graded_version`'s games; the rule's grade for no level when the
    /// student has no graded version.
    #[serde(with = "points")]
    pub grade: Option<f64>,
    /// `pass`, `fail` or `undecided` against the `pass` level; empty without
    /// one or without a graded version.
    #[serde(with = "ratings::spreadsheet")]
    pub result: String,
    /// The strongest level the games settle it scores `pass-score` against.
    #[serde(with = "ratings::spreadsheet")]
    pub highest_level: String,
    /// The levels not settled yet that could still change `highest_level`.
    #[serde(with = "ratings::spreadsheet")]
    pub undecided: String,
    /// Elo on the levels' scale (level 1 = 0), empty when open.
    pub rating: Option<i64>,
    /// The 95% interval's low end, empty when open.
    pub rating_low: Option<i64>,
    /// Its high end, empty when open.
    pub rating_high: Option<i64>,
    /// Games `graded_version` played.
    pub games: u32,
    /// Games it lost by its own fault.
    pub faults: u32,
    /// The faults by reason (`timeout:2 crash:1`), or why the latest
    /// submission did not play (the build's last lines, the rule it broke).
    #[serde(with = "ratings::spreadsheet")]
    pub detail: String,
    /// The latest submission's version (empty when its folder was not read).
    #[serde(with = "ratings::spreadsheet")]
    pub version: String,
    /// The version the grade is of: `version` when it played, else the
    /// student's last version that did (empty if none ever did).
    #[serde(with = "ratings::spreadsheet")]
    pub graded_version: String,
    /// How many versions of this student the league has seen.
    pub versions: u32,
    /// The student's feedback file, relative to the league's directory.
    #[serde(with = "ratings::spreadsheet")]
    pub feedback: String,
}

/// One compared pair of `similarity.csv`: the scores and the evidence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairRow {
    /// One student.
    #[serde(with = "ratings::spreadsheet")]
    pub a: String,
    /// The other.
    #[serde(with = "ratings::spreadsheet")]
    pub b: String,
    /// Their language family.
    pub family: String,
    /// The fingerprints the two share over those either holds (0 to 1, the
    /// same whichever is `a`), the starter code the teacher named left out of
    /// both: the score.
    pub score: f64,
    /// Fingerprints the two share.
    pub shared: usize,
    /// The behaviour: identical answers over positions both answered (empty
    /// when not asked).
    pub behaviour: Option<f64>,
    /// Positions both answered.
    pub positions: usize,
    /// Whether the score reaches the threshold (`yes`, `no`).
    pub flagged: Flag,
    /// The threshold in force.
    pub threshold: f64,
    /// The matching fragments (`a.py:10-24 ~ bot.py:3-17`), the largest first,
    /// separated by `; `; the agreeing positions' count is in `positions` and
    /// `behaviour`.
    #[serde(with = "ratings::spreadsheet")]
    pub evidence: String,
}

/// Whether a pair is flagged: its source score reaches the threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Flag {
    /// At or above the threshold: for a person to look at.
    Yes,
    /// Below it.
    No,
}

/// A league's directory, read: what the report and the live page show of it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct League {
    /// `grades.csv`: one row per student, best rating first.
    pub grades: Vec<GradeRow>,
    /// `grades-history.csv`: every version the league has seen, in the order it
    /// first saw them.
    pub history: Vec<GradeRow>,
    /// `similarity.csv`, when the similarity has run (`None`: never, or
    /// `--no-similarity` since the start).
    pub pairs: Option<Vec<PairRow>>,
    /// What could not be read whole, in words.
    pub warnings: Vec<String>,
}

impl League {
    /// `student`'s versions, in the order the league first saw them.
    pub fn versions_of<'a>(&'a self, student: &'a str) -> impl Iterator<Item = &'a GradeRow> {
        self.history.iter().filter(move |r| r.student == student)
    }
}

/// The league files of `dir`; `None` when it is not a league's directory (no
/// `grades-history.csv`).
///
/// # Errors
/// A file is a link, cannot be read, or has a bad row (named with its line and
/// the fix).
pub fn read(dir: &Path) -> anyhow::Result<Option<League>> {
    let history_path = dir.join(HISTORY_FILE);
    // A name that is there is read (and refused if it is a link), never skipped.
    if history_path.symlink_metadata().is_err() {
        return Ok(None);
    }
    let mut league = League::default();
    league.history = rows(&history_path, &mut league.warnings)?;
    let grades_path = dir.join(GRADES_FILE);
    if grades_path.symlink_metadata().is_ok() {
        league.grades = rows(&grades_path, &mut league.warnings)?;
    }
    let pairs_path = dir.join(SIMILARITY_FILE);
    if pairs_path.symlink_metadata().is_ok() {
        league.pairs = Some(rows(&pairs_path, &mut league.warnings)?);
    }
    Ok(Some(league))
}

/// The rows of the CSV file `path`: its complete lines within [`MAX_BYTES`].
fn rows<T: for<'de> Deserialize<'de>>(
    path: &Path,
    warnings: &mut Vec<String>,
) -> anyhow::Result<Vec<T>> {
    let mut bytes = Vec::new();
    let mut file = nofollow::open(path, Access::Read)
        .map_err(|e| anyhow::anyhow!("reading {}: {e}", path.display()))?;
    let len = file.metadata().map_or(0, |m| m.len());
    file.by_ref()
        .take(MAX_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| anyhow::anyhow!("reading {}: {e}", path.display()))?;
    if len > MAX_BYTES {
        // Only the complete lines: a row cut in two would read as a bad row.
        let end = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        bytes.truncate(end);
        warnings.push(format!(
            "{} holds {len} bytes: only its first {} are shown",
            path.display(),
            bytes.len()
        ));
    }
    let mut reader = csv::Reader::from_reader(bytes.as_slice());
    reader
        .deserialize()
        .enumerate()
        .map(|(i, row)| {
            row.map_err(|e| {
                anyhow::anyhow!(
                    "{}:{}: {e}: the league writes this file again after its next run \
                     (delete it to have it rewritten)",
                    path.display(),
                    i + 2
                )
            })
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn grade(student: &str, version: &str, rating: Option<i64>) -> GradeRow {
        GradeRow {
            student: student.into(),
            version: version.into(),
            version_since: "2026-12-01T10:00:00Z".into(),
            versions: 1,
            status: "current".into(),
            rating,
            rating_low: rating.map(|r| r - 50),
            rating_high: rating.map(|r| r + 50),
            highest_level: "=level1".into(),
            result: "pass".into(),
            games: 4,
            faults: 0,
            detail: String::new(),
            feedback: format!("feedback/{student}.txt"),
            undecided: String::new(),
            grade: Some(62.5),
        }
    }

    fn write<T: Serialize>(path: &Path, rows: &[T]) {
        let mut out = csv::Writer::from_path(path).unwrap();
        for row in rows {
            out.serialize(row).unwrap();
        }
        out.flush().unwrap();
    }

    #[test]
    fn what_the_league_writes_reads_back_and_a_plain_directory_is_no_league() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path()).unwrap(), None);
        let history = vec![
            grade("=ada", "a1", Some(120)),
            grade("=ada", "a2", None),
            grade("bo", "b1", Some(-30)),
        ];
        write(&dir.path().join(HISTORY_FILE), &history);
        let league = read(dir.path()).unwrap().unwrap();
        assert_eq!(league.history, history);
        assert!(league.grades.is_empty());
        assert_eq!(league.pairs, None);
        assert_eq!(league.versions_of("=ada").count(), 2);
        let text = std::fs::read_to_string(dir.path().join(HISTORY_FILE)).unwrap();
        assert!(text.contains("'=ada"), "a name stays text in a spreadsheet");
        let pair = PairRow {
            a: "ada".into(),
            b: "bo".into(),
            family: "python".into(),
            score: 0.9,
            shared: 40,
            behaviour: None,
            positions: 0,
            flagged: Flag::Yes,
            threshold: 0.6,
            evidence: "bot.py:1-9 ~ bot.py:2-10".into(),
        };
        write(
            &dir.path().join(SIMILARITY_FILE),
            std::slice::from_ref(&pair),
        );
        assert_eq!(read(dir.path()).unwrap().unwrap().pairs, Some(vec![pair]));
    }

    #[test]
    fn a_bad_row_is_named_and_a_huge_file_is_read_only_in_part() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(HISTORY_FILE);
        write(&path, &[grade("ada", "a1", Some(1))]);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("ada,a2,t,x\n");
        std::fs::write(&path, &text).unwrap();
        let e = read(dir.path()).unwrap_err().to_string();
        assert!(e.contains("grades-history.csv:3"), "{e}");

        let row = text.lines().nth(1).unwrap().to_string();
        let header = text.lines().next().unwrap().to_string();
        let many = (MAX_BYTES as usize / row.len()) + 100;
        let mut big = header + "\n";
        for _ in 0..many {
            big.push_str(&row);
            big.push('\n');
        }
        std::fs::write(&path, big).unwrap();
        let league = read(dir.path()).unwrap().unwrap();
        assert!(league.history.len() < many && league.history.len() > many / 2);
        assert_eq!(league.warnings.len(), 1, "{:?}", league.warnings);
    }

    #[test]
    fn a_link_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let other = dir.path().join("elsewhere.csv");
        write(&other, &[grade("ada", "a1", Some(1))]);
        std::os::unix::fs::symlink(&other, dir.path().join(HISTORY_FILE)).unwrap();
        assert!(read(dir.path()).is_err());
    }
}
