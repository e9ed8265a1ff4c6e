//! A league (`arena league`): one results directory that lives for a season.
//! Each entrant is a *version* ([`versions`]: its submission folder's and build
//! command's hash); a run plays only the games its current versions have not
//! played yet ([`pairings`]), and grades every version against the reference
//! levels from the games it played ([`grades`]), so a grade neither moves because
//! a classmate submitted nor needs a game replayed.
//!
//! This folder decides who plays and what the games say; the command
//! (`commands::league`) plays them and writes the files.

pub mod files;
pub mod grades;
pub mod pairings;
pub mod versions;
