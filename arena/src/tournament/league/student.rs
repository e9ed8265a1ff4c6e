//! What a league run concluded of each student, as facts: their gradebook row,
//! the version graded and the one before it, why their latest submission did
//! not play, the games lost by their own doing and the league's terms; what
//! `conformance::feedback` words into their feedback file, and the table the
//! terminal shows.

use super::super::settings::league::League;
use super::faults::FaultGroup;
use super::files::{GradebookRow, Status};
use super::grades::Grade;

/// Why a student's latest submission did not play this run.
#[derive(Clone, Debug, PartialEq)]
pub enum NotPlayed {
    /// Its build failed.
    Build {
        /// The build command.
        command: Option<String>,
        /// How it ended ("exit code 1").
        ended: String,
        /// The last lines it printed, paths relative to the student's folder.
        output: Vec<String>,
    },
    /// Left out for another reason, with the fix.
    LeftOut {
        /// Why, in words.
        why: String,
    },
}

/// A version of a student that played, and its grade.
#[derive(Clone, Debug, PartialEq)]
pub struct Graded {
    /// The version.
    pub version: String,
    /// When the league first saw it.
    pub since: String,
    /// Its grade.
    pub grade: Grade,
}

/// What a league says of each level and of the rules, for a student's words.
#[derive(Clone, Debug, PartialEq)]
pub struct Terms {
    /// The league's name.
    pub league: String,
    /// The levels, weakest first, with their ratings.
    pub levels: Vec<(String, f64)>,
    /// The pass level.
    pub pass: Option<String>,
    /// The share of points that passes a level.
    pub pass_score: f64,
    /// The first games against each level.
    pub min_games: u32,
    /// The most.
    pub max_games: u32,
    /// The time for a move, when there is a per-move limit.
    pub move_ms: Option<u64>,
    /// The time for a bot's first move of a game.
    pub first_move_ms: Option<u64>,
    /// The league's seed.
    pub seed: u64,
}

/// Everything a student's feedback file says, as facts.
#[derive(Clone, Debug, PartialEq)]
pub struct Student {
    /// Their row of `grades.csv`.
    pub row: GradebookRow,
    /// What became of their latest submission.
    pub status: Status,
    /// The version graded (their latest if it played, else their last that
    /// did).
    pub graded: Option<Graded>,
    /// The version before the graded one that played.
    pub previous: Option<Graded>,
    /// Why the latest did not play.
    pub not_played: Option<NotPlayed>,
    /// The games the graded version lost by its own doing.
    pub faults: Vec<FaultGroup>,
    /// How their bot runs, as written or as the folder's convention says
    /// (`python3 bot.py`).
    pub command: Option<String>,
    /// The league's terms.
    pub terms: Terms,
}

/// What a run concluded: the students (for their feedback files), the table
/// and the faults of this run's games, grouped.
#[derive(Debug)]
pub struct Concluded {
    /// Every student, by name.
    pub students: Vec<Student>,
    /// The faults of the games this run played: one line per student and
    /// reason, with the count.
    pub faults: Vec<String>,
}

impl Concluded {
    /// The table the terminal shows: every student by name, what became of
    /// their latest submission, their grade, result and highest level, their
    /// rating, games and faults; then the rule and what is not settled.
    pub fn table(&self, league: &League) -> String {
        let mut text = String::from(
            "  # Student              Versions  Status        Grade  Result     Highest level  \
             Rating (95%)            Games Faults\n",
        );
        let dash = |s: &str| {
            if s.is_empty() {
                "-".to_string()
            } else {
                s.to_string()
            }
        };
        for (i, s) in self.students.iter().enumerate() {
            let row = &s.row;
            let rating = s
                .graded
                .as_ref()
                .and_then(|g| g.grade.placement)
                .map_or_else(|| "-".to_string(), |p| super::super::placing::line(&p));
            let grade = row
                .grade
                .map_or_else(|| "-".to_string(), |g| format!("{g}"));
            text.push_str(&format!(
                "{:>3} {:<20} {:>8}  {:<12} {:>6}  {:<9}  {:<13}  {:<23} {:>5} {:>6}\n",
                i + 1,
                row.student,
                row.versions,
                row.status,
                grade,
                dash(&row.result),
                dash(&row.highest_level),
                rating,
                row.games,
                row.faults
            ));
        }
        let open: Vec<&str> = self
            .students
            .iter()
            .filter(|s| !s.row.undecided.is_empty())
            .map(|s| s.row.student.as_str())
            .collect();
        if !open.is_empty() {
            text.push_str(&format!(
                "Not decided yet after {} games against a level (max-games): {} (their scores are \
                 too close to the pass mark to tell; a higher max-games plays more)\n",
                league.max_games,
                open.join(", ")
            ));
        }
        if let Some(pass) = &league.pass {
            text.push_str(&format!(
                "Pass: at least {:.0}% of the points against {pass}, settled by the games. ",
                league.pass_score * 100.0
            ));
        }
        text.push_str(
            "grades.csv, grades-history.csv, gradebook-moodle.csv, gradebook-canvas.csv and \
             feedback/ are written.",
        );
        text
    }
}
