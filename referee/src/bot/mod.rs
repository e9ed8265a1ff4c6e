//! A bot as a child process that speaks protocol.md.
//!
//! - [`charge`]: the clock modes (fair, wall, CPU) and which time a move is
//!   charged; [`schedstat`]: the scheduler's per-task counters (CPU time,
//!   run-queue wait) of a bot's process tree and of the referee;
//!   `treewatch`: that tree's counters read through files kept open.
//! - [`command`]: how to start a bot (program, arguments, limits, isolation).
//! - [`process`]: start (own process group, clean environment, scratch directory,
//!   resource limits through the launcher), bounded line reading, stderr draining,
//!   kill-and-reap of the whole group.
//! - `reader`: a bot's stdout framed into bounded lines on an OS thread of its
//!   own, whose run-queue wait per read is the referee's measured lateness.
//! - [`group`]: the process group's kill, and the wait until its members are gone.
//! - [`procfs`]: which processes are still alive (not zombies), from `/proc`.
//! - [`poll`]: the bounded wait for what the kernel finishes in its own time.
//! - [`session`]: the handshake and one timed request/reply at a time, turning
//!   everything a bot can do wrong into a typed [`Fault`].
//! - [`stdio`]: the bot's standard streams, socket pairs that cannot be reopened
//!   through `/proc`.
//! - [`scratch`]: the private scratch directory, and the removal of those left by
//!   a killed referee.
//! - [`dirlock`]: the `flock` that tells a directory in use from an abandoned one.
//! - [`limits`]: the resource limits and the launcher that applies them.
//! - [`priority`]: a timed bot's scheduling priority, raised where the referee
//!   may (the governor's claim on the CPU for it).
//! - [`memwatch`]: the referee's count of a bot's whole process tree against its
//!   memory limit, where no cgroup `memory.max` does it, slower between games;
//!   [`members`]: who is in that tree, found without reading all of `/proc`
//!   each time.
//! - [`sandbox`]: the isolation layers, their detection, and the launcher.
//! - [`task`]: a command (a build step) run to its end under a bot's isolation.
//!
//! Nothing here knows the rules: whether a square is legal is the game's question.

pub mod charge;
pub mod command;
mod dirlock;
mod group;
pub mod limits;
mod members;
mod memwatch;
mod poll;
pub mod priority;
pub mod process;
mod procfs;
mod reader;
pub mod sandbox;
pub mod schedstat;
mod scratch;
pub mod session;
mod stderr;
mod stdio;
pub mod task;
mod treewatch;

pub use charge::{ClockMode, Measured, Usage};
pub use command::BotCommand;
pub use dirlock::locks_unsupported;
pub use limits::{LAUNCH_ARG, ResourceLimits, launch};
pub use process::{BotProcess, ExitInfo, SpawnError};
pub use scratch::sweep_abandoned;
pub use session::{
    Answer, BotIdentity, BotSession, Closed, FailedStart, Fault, GameEvidence, QUIT_GRACE, Reply,
};
pub use stderr::STDERR_TAIL_BYTES;
