//! Ratings and match statistics: pure functions from finished games to numbers and
//! tables. No files, no clocks, no processes; output goes to a caller-supplied
//! `impl Write`. The commands `arena ratings`, `arena sprt` and `arena gauntlet` read
//! games from the store and call into this module.
//!
//! # Pieces
//! - [`model`]: the input, [`GameResult`]: X, O, how it ended ([`Ending`]: played
//!   out, or forfeited by a named side), and the [`PairKey`] shared by the two games
//!   of a colour-swapped pair.
//! - [`record`]: W/D/L per bot and per seat, per-reason counts ([`BotRecord`]), and
//!   the first player's results ([`FirstPlayer`]).
//! - [`pentanomial`]: two bots head to head ([`PairingStats`], [`pairings`],
//!   [`head_to_head`]): W/D/L, pair counts LL/LD/WL+DD/WD/WW, and a
//!   [`ScoreEstimate`] with Elo ±, nElo ±, LOS.
//! - [`bradley_terry`]: standings for any number of bots ([`Standings::fit`]): one
//!   maximum-likelihood Elo fit with an X-advantage term, intervals, an LOS matrix
//!   and [`Note`]s for disconnected groups and perfect scores.
//! - [`sprt`]: the GSPRT ([`SprtConfig`]) on pentanomial counts.
//! - [`totals`]: the counts all of the above start from, kept game by game
//!   ([`Totals`]): a run of any length keeps its standings without its games.
//! - [`analysis`] and [`table`]: everything at once ([`Analysis`]) and its terminal
//!   tables and CSV files.
//! - [`placement`]: one bot's rating against opponents of fixed rating (the
//!   reference levels), its likelihood-ratio interval, and the adaptive gauntlet's
//!   choice of opponent and stopping rule (`arena rate`).
//! - [`elo`]: the Elo scale and the [`Confidence`] level.
//! - [`spreadsheet`]: the one rule for text cells of every CSV file the project
//!   writes (here because these tables are the lowest layer that writes CSV).
//!
//! # Wiring the commands
//! `arena ratings`: read games.csv into `Vec<GameResult>`, then
//! `Analysis::build(&games, &FitOptions::default())`, and write
//! [`table::write_standings_table`] to stdout and [`table::write_standings_csv`],
//! [`table::write_crosstable_csv`], [`table::write_reasons_csv`] to files. Anchoring,
//! the prior and the confidence level are [`FitOptions`] fields, so `--anchor NAME=ELO`
//! or `--confidence 0.99` map onto them directly; a bad anchor is a [`FitError`] whose
//! message lists the known bots.
//!
//! `arena sprt`: validate the flags once with [`SprtConfig::new`] (its error names the
//! fix); after each finished pair, `config.status(&head_to_head(&games, new,
//! base).pentanomial)` gives the LLR, the bounds, an [`SprtDecision`] and the Elo ±
//! to print; stop on `AcceptH0` / `AcceptH1` and map them to exit codes.
//!
//! `arena gauntlet`: the same [`Analysis`]; the candidate's row in
//! [`Standings::bots`] and its [`Analysis::pairing`]s against each opponent.
//!
//! # Example
//! ```
//! use ratings::{Decision, EndReason, Ending, FitOptions, GameResult, PairKey, Analysis};
//! use uttt::rules::Mark;
//!
//! let played = |x: &str, o: &str, winner: Option<Mark>, pair: u64| {
//!     let decision = winner.map_or(Decision::Draw, Decision::Win);
//!     let ending = Ending::Played { decision, reason: EndReason::ThreeInARow };
//!     GameResult::new(x, o, ending).map(|g| g.with_pair(PairKey(pair)))
//! };
//! let games = vec![
//!     played("mcts", "random", Some(Mark::X), 0)?,
//!     played("random", "mcts", Some(Mark::O), 0)?,
//!     played("mcts", "random", None, 1)?,
//!     played("random", "mcts", Some(Mark::X), 1)?,
//! ];
//! let report = Analysis::build(&games, &FitOptions::default())?;
//! assert_eq!(report.standings.bots()[0].name(), "mcts");
//! let mut table = Vec::new();
//! ratings::table::write_standings_brief(&mut table, &report, 80)?;
//! assert!(String::from_utf8(table)?.starts_with("Rank  Bot"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

pub mod analysis;
pub mod bradley_terry;
mod covariance;
pub mod elo;
pub mod estimate;
mod graph;
mod linalg;
pub mod model;
pub mod pentanomial;
#[cfg(test)]
mod pinned;
pub mod placement;
pub mod record;
mod sparse;
pub mod spreadsheet;
pub mod sprt;
pub mod table;
pub mod totals;

#[cfg(test)]
mod simulation;

pub use analysis::Analysis;
pub use bradley_terry::{
    Anchor, AppliedPrior, BotRating, FitError, FitOptions, FixedRating, Note, Prior, Rated,
    Standings, VirtualDraws,
};
pub use covariance::EXACT_MAX_BOTS;
pub use elo::Confidence;
pub use estimate::{Interval, ScoreEstimate};
pub use model::{Decision, EndReason, Ending, GameResult, GameResultError, PairKey};
pub use pentanomial::{PairOutcome, PairingStats, Pentanomial};
pub use placement::{AnchoredPair, Placement, Progress, StopRule, next_opponent, place};
pub use record::{BotRecord, FirstPlayer, ReasonTally, Wdl};
pub use sprt::{Bounds, EloModel, SprtConfig, SprtConfigError, SprtDecision, SprtStatus};
pub use totals::{Totals, bot_records, head_to_head, pairings};
