//! Resource limits for a bot, applied in the child just before it becomes the bot.
//!
//! The referee runs on a multi-threaded runtime, where code between `fork` and
//! `exec` (`pre_exec`) may only call async-signal-safe functions. Instead the bot is
//! started through a tiny single-threaded *launcher*: the referee's own executable
//! re-run with a hidden argument (`arena __launch …`, see
//! [`sandbox::launch`](super::sandbox::launch)). The launcher sets the limits (and
//! the other sandbox layers), asks the kernel to kill it if the referee dies, and
//! then `exec`s the bot, so the bot is the same process (same pid, same process
//! group) with the limits in force.

use std::ffi::OsString;

pub use super::sandbox::launch::{LAUNCH_ARG, launch};

/// Limits applied to a bot process (each `None` = unlimited). Core dumps are always
/// disabled: a crashing bot must not fill the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResourceLimits {
    /// Memory of the bot's whole process tree in bytes: resident anonymous and
    /// shared memory of every process, memfds included. Enforced by the cgroup's
    /// `memory.max` where the controller is delegated, else by the referee's own
    /// count (`bot::memwatch`); the bot is killed past it.
    pub memory: Option<u64>,
    /// Address space of each process in bytes (`RLIMIT_AS`): an allocation past
    /// it fails inside the bot at once. Off by default: runtimes such as the JVM
    /// and V8 reserve far more virtual memory than they use.
    pub address_space: Option<u64>,
    /// CPU seconds (`RLIMIT_CPU`, soft = hard).
    pub cpu_seconds: Option<u64>,
    /// Largest file the bot may write, in bytes (`RLIMIT_FSIZE`).
    pub file_size: Option<u64>,
    /// Open file descriptors (`RLIMIT_NOFILE`).
    pub open_files: Option<u64>,
    /// Processes and threads of the bot's uid (`RLIMIT_NPROC`). Only applied with a
    /// dedicated uid (sandbox layer `user`): the count is per uid across the whole
    /// machine, so under the referee's own uid it would limit the referee too.
    pub processes: Option<u64>,
}

impl ResourceLimits {
    /// [`ResourceLimits::memory`] by default: 1 GiB. Ample for every reference
    /// bot (the largest, `mcts`, caps its tree at 2^21 nodes, about 200 MiB) and
    /// for interpreted bots (a Python or Node bot starts at 10-50 MiB), while a
    /// tournament of two games at once on an 8 GiB machine cannot be pushed into
    /// swap or the kernel's OOM killer by its bots.
    pub const DEFAULT_MEMORY: u64 = 1024 * 1024 * 1024;
}

impl Default for ResourceLimits {
    /// No core dumps, files up to 256 MiB, 1024 open files, 256 processes and
    /// threads (with a dedicated uid), [`ResourceLimits::DEFAULT_MEMORY`] for the
    /// whole process tree; no address-space limit and CPU time unlimited
    /// (per-move time limits already bound CPU use per move).
    fn default() -> Self {
        ResourceLimits {
            memory: Some(ResourceLimits::DEFAULT_MEMORY),
            address_space: None,
            cpu_seconds: None,
            file_size: Some(256 * 1024 * 1024),
            open_files: Some(1024),
            processes: Some(256),
        }
    }
}

impl ResourceLimits {
    /// No limit at all (core dumps are still disabled by the launcher).
    pub const NONE: ResourceLimits = ResourceLimits {
        memory: None,
        address_space: None,
        cpu_seconds: None,
        file_size: None,
        open_files: None,
        processes: None,
    };

    /// Both memory limits at `bytes`, as `memory-mb` and `--memory-mb` set them:
    /// the tree's memory, and each process's address space so that one
    /// allocation past the limit fails inside the bot instead of the bot being
    /// killed.
    #[must_use]
    pub fn with_memory(self, bytes: u64) -> ResourceLimits {
        ResourceLimits {
            memory: Some(bytes),
            address_space: Some(bytes),
            ..self
        }
    }

    /// The launcher arguments for these limits (before `--`; the tree's memory
    /// is not the launcher's to enforce).
    pub fn to_args(&self) -> Vec<OsString> {
        let mut args = Vec::new();
        let mut push = |flag: &str, value: Option<u64>| {
            if let Some(v) = value {
                args.push(flag.into());
                args.push(v.to_string().into());
            }
        };
        push("--as", self.address_space);
        push("--cpu", self.cpu_seconds);
        push("--fsize", self.file_size);
        push("--nofile", self.open_files);
        push("--nproc", self.processes);
        args
    }
}
