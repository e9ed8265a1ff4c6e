//! A league (`arena league`): one results directory that lives for a season.
//! Each entrant is a *version* ([`versions`]: its submission folder's and build
//! command's hash); a run plays only the games its current versions have not
//! played yet ([`pairings`]), the same games for every version of every student,
//! as many against a level as it takes to settle the version's pass there, up to
//! `max-games` ([`grades`]); it grades every version against the reference
//! levels from those games, so a grade neither moves because a classmate
//! submitted nor needs a game replayed, and two copies of one program get the
//! same grade. [`season`] is one run, from the builds' result to the files:
//! `grades.csv`, the history and the students' feedback ([`files`], the facts
//! of each student in [`student`]), the
//! gradebook exports ([`gradebook`]), the faults in the students' terms
//! ([`faults`]); [`watch`] says when `--watch` has something to play.
//!
//! This folder decides and records; the command (`commands::league`) wires
//! it to the builds, the words and the similarity check.

pub mod faults;
pub mod files;
pub mod gradebook;
pub mod grades;
pub mod pairings;
pub mod season;
pub mod student;
pub mod versions;
pub mod watch;
