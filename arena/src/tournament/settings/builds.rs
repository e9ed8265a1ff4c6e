//! What a tournament file says about builds: each bot's build step, what a
//! failed build does to the run, and the bots that do not take part. Plain values
//! read by the settings and by [`super::super::build`], which runs the steps.

use std::path::PathBuf;

/// A bot's copy, and the build step run in it, as its configuration says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildStep {
    /// The command line, run by `/bin/sh -c` in the copy of `source`; `None`:
    /// a submission that is only copied.
    pub command: Option<String>,
    /// The bot's own directory.
    pub source: PathBuf,
    /// Whether the bot comes from a glob of submissions (left out, not fatal,
    /// when it cannot take part).
    pub submitted: bool,
}

/// A bot that does not take part, and why (in words for its author).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeftOut {
    /// Its name.
    pub name: String,
    /// Why, with the fix when there is one.
    pub why: String,
}

/// What a failed build does to the run (`on-build-failure`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnBuildFailure {
    /// The bot is left out; the others play.
    #[default]
    LeaveOut,
    /// Nothing is played.
    Stop,
}
