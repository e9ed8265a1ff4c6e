//! How to start a bot: its program, arguments, environment, directory, limits
//! and the isolation asked for and decided. A plain value, filled in by whoever
//! resolves a bot (the arena) and read by whoever starts it ([`super::process`],
//! the sandbox's start-up): it starts nothing itself.

use std::ffi::OsString;
use std::path::PathBuf;

use super::limits::ResourceLimits;
use super::sandbox::{SandboxPlan, SandboxRequest};

/// How to start a bot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotCommand {
    /// The program: a path, or a name looked up on `PATH`.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Variables added to the bot's otherwise clean environment.
    pub env: Vec<(OsString, OsString)>,
    /// The directory to run in. `None`: a private scratch directory, created for the
    /// process and removed after it.
    pub working_dir: Option<PathBuf>,
    /// Resource limits, applied by the launcher.
    pub limits: ResourceLimits,
    /// The launcher executable (normally the `arena` binary itself). `None` starts
    /// the bot directly, without resource limits or parent-death protection.
    pub launcher: Option<PathBuf>,
    /// The isolation asked for (see [`sandbox`](super::sandbox)).
    pub sandbox: SandboxRequest,
    /// The isolation decided at start-up by [`sandbox::plan`](super::sandbox::plan).
    /// `None`: resource limits through the launcher only, if there is one.
    pub plan: Option<SandboxPlan>,
    /// The scheduling priority (nice value) the launcher gives the bot and its
    /// session, where it may (see [`super::priority`]); `None` leaves it as
    /// the referee's.
    pub priority: Option<i32>,
}

impl BotCommand {
    /// A command with no arguments, default limits and no launcher.
    pub fn new(program: impl Into<PathBuf>) -> BotCommand {
        BotCommand {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            working_dir: None,
            limits: ResourceLimits::default(),
            launcher: None,
            sandbox: SandboxRequest::default(),
            plan: None,
            priority: None,
        }
    }

    /// The command as a person would type it, for messages.
    pub fn display(&self) -> String {
        std::iter::once(self.program.as_os_str())
            .chain(self.args.iter().map(OsString::as_os_str))
            .map(|s| {
                let s = s.to_string_lossy();
                if s.contains(' ') {
                    format!("'{s}'")
                } else {
                    s.into_owned()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}
