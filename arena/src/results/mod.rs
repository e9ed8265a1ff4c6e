//! The files a run leaves behind, and everything that reads them back.
//!
//! - [`store`]: `games.csv` and `moves.csv` as typed rows, appended and synced per
//!   game, with one checked reader per file;
//! - [`manifest`]: `tournament.json`, what was played and how;
//! - [`recorder`]: a run's side of the files: each finished game saved before it is
//!   reported;
//! - [`bundle`]: `failures/<id>/`, everything about one failed game and the
//!   command that reproduces it;
//! - [`live`]: the running games, published move by move under `live/`;
//! - [`tail`]: a results file read as it grows, only what was appended;
//! - [`moves_index`]: one game's rows found in `moves.csv` from its end;
//! - [`replay`]: a recorded game played again through the rules engine;
//! - [`sprt_batches`]: the batch directories of a distributed SPRT, checked as one test;
//! - [`standings`]: scores and the ratings tables written beside the games;
//! - [`summary`]: `summary.json`, a run's verdict and exit code for machines;
//! - [`governor_file`]: what the governor did (summary.json's counts) and is
//!   doing (`governor.json`, for the live page);
//! - [`event`]: a Swiss's table or a knockout's bracket (`swiss.csv`,
//!   `knockout.csv`), and [`round`] the round being played (`round.json`);
//! - [`league`]: a league's grades, every version's grade and the similarity
//!   pairs, as rows, and their reader for the report and the live page;
//! - [`atomic`]: files replaced whole, and the times results carry;
//! - [`logs`]: each bot's stderr, appended capped and read back from its end;
//! - [`nofollow`]: how every file inside a results directory is opened: no
//!   symbolic link below the directory is followed, for reading or writing.
//!
//! Results know nothing of schedules, bot processes or commands: `crate::tournament`
//! writes through this module, `crate::report` and the commands read through it,
//! and this module imports neither (a unit test of `crate::tournament` checks it).

pub mod atomic;
pub mod bundle;
pub mod event;
pub mod governor_file;
pub mod league;
pub mod live;
pub mod logs;
pub mod machine_load;
pub mod manifest;
pub mod moves_index;
pub mod nofollow;
pub mod recorder;
pub mod replay;
pub mod round;
pub mod round_scores;
pub mod sprt_batches;
pub mod standings;
pub mod store;
pub mod summary;
pub mod tail;
