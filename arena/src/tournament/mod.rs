//! Running games between bots: who plays, under which conditions, in which order,
//! how many at once, and how a run starts, stops and resumes.
//!
//! The data flow, in module order:
//! - [`settings`] is the front door: the command line's flags and a tournament
//!   file's keys ([`config`]) make one input, validated once into the run's
//!   settings; [`bot_spec`] resolves each bot it describes, and [`entrant`] is a
//!   resolved bot with its time control;
//! - [`openings`] reads opening books; [`schedule`] computes which games are played
//!   (pure, deterministic from the seed, shardable);
//! - [`isolation`] plans every bot under the sandbox layers this machine has;
//! - [`prepare`] binds the schedule to a results directory, resuming what an
//!   earlier run finished;
//! - [`adaptive`] hands out a gauntlet's pairs against opponents chosen as they
//!   start (`arena rate`) instead of in schedule order, and [`placing`] chooses
//!   them: one bot's place on the reference levels' scale;
//! - [`run`] plays it ([`run::run_games`]) through [`runner`], which owns the bot
//!   processes and plays N games at once, as many as its [`governor`] allows
//!   timed bots on this machine's load; [`local_engine`] seats a built-in
//!   engine in this process instead.
//!
//! Finished games are handed to `crate::results` (this module writes no file
//! itself); nothing here prints except what a command's [`run::Watcher`] asks for
//! and the interruption message. Results never import this module, and this
//! module never imports the commands or the command line (`crate::layers`).

pub mod adaptive;
pub mod bot_spec;
pub mod build;
pub mod config;
pub mod draw;
pub mod entrant;
pub mod format;
pub mod governor;
#[cfg(test)]
mod incremental_standings;
pub mod interrupt;
pub mod isolation;
pub mod league;
pub mod local_engine;
pub mod openings;
pub mod pace;
pub mod placing;
pub mod preflight;
pub mod prepare;
pub mod run;
pub mod runner;
pub mod schedule;
pub mod settings;
pub mod submissions;
