//! What a tournament file says about builds: each bot's build step, what a
//! failed build (or a submission that cannot start) does to the run, and the
//! bots that do not take part. Plain values
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
    /// The most its folder may hold (a submission's; `None` for a bot the
    /// file names, whose folder is the teacher's own).
    pub cap: Option<SubmissionCap>,
}

/// The most a submission's folder may hold (`submission-max-mb`,
/// `submission-max-files`): far above any class's bot, far below what would
/// cost the arena its memory or its disk. A folder is measured as written
/// (a sparse file counts its full length: that is what a bot, a copy and a
/// hash would read), and a folder over either bound is left out with why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubmissionCap {
    /// Bytes of its regular files, together.
    pub bytes: u64,
    /// Its entries: files, folders and links, together.
    pub files: u64,
}

impl SubmissionCap {
    /// The cap of a file that sets `max_mb` (MiB) and `max_files`, each
    /// defaulting to [`crate::defaults::SUBMISSION_MAX_MB`] and
    /// [`crate::defaults::SUBMISSION_MAX_FILES`].
    pub fn of(max_mb: Option<u64>, max_files: Option<u64>) -> SubmissionCap {
        SubmissionCap {
            bytes: max_mb
                .unwrap_or(crate::defaults::SUBMISSION_MAX_MB)
                .saturating_mul(1 << 20),
            files: max_files.unwrap_or(crate::defaults::SUBMISSION_MAX_FILES),
        }
    }

    /// Why a folder that holds `over` is left out, with the fix.
    pub fn refusal(&self, over: &Over) -> String {
        let limits = format!(
            "a submission may hold at most {} and {} files and folders (submission-max-mb and \
             submission-max-files in the tournament file)",
            mib(self.bytes),
            self.files
        );
        match over {
            Over::Bytes { file, length } => format!(
                "it holds more than {} (its file {file} alone is {}): {limits}: remove what the \
                 bot does not need (data, builds, archives)",
                mib(self.bytes),
                mib(*length)
            ),
            Over::Files => format!(
                "it holds more than {} files and folders: {limits}: remove what the bot does \
                 not need (builds, caches, node_modules)",
                self.files
            ),
        }
    }
}

impl Default for SubmissionCap {
    fn default() -> SubmissionCap {
        SubmissionCap::of(None, None)
    }
}

/// What a folder over its [`SubmissionCap`] was found holding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Over {
    /// Its files together pass the bytes: `file` (relative to the folder, as
    /// the student knows it) is the one that crossed the line, `length` long.
    Bytes {
        /// The file.
        file: String,
        /// Its length in bytes.
        length: u64,
    },
    /// It holds more entries than the cap allows.
    Files,
}

/// `50 MiB`, `3.0 GiB`, `512 bytes`: a size in words.
fn mib(bytes: u64) -> String {
    const MIB: u64 = 1 << 20;
    let f = bytes as f64;
    if bytes >= 1 << 30 {
        format!("{:.1} GiB", f / f64::from(1u32 << 30))
    } else if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= MIB {
        format!("{:.1} MiB", f / MIB as f64)
    } else {
        format!("{bytes} bytes")
    }
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

/// What a submission (a bot from a glob) that cannot start does to the run
/// (`on-preflight-failure`). A bot the file or the command line names always
/// stops the run when it cannot start (exit 4): a CI file that lists its bots
/// stays strict, a class plays without the broken one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnPreflightFailure {
    /// The submission is left out, named with why; the others play.
    #[default]
    LeaveOut,
    /// Nothing is played (exit 4), as for a named bot.
    Stop,
}
