//! Resource limits for a bot, applied in the child just before it becomes the bot.
//!
//! The referee runs on a multi-threaded runtime, where code between `fork` and
//! `exec` (`pre_exec`) may only call async-signal-safe functions. Instead the bot is
//! started through a tiny single-threaded *launcher*: the referee's own executable
//! re-run with a hidden argument (`arena __launch …`). The launcher sets the limits,
//! asks the kernel to kill it if the referee dies, and then `exec`s the bot, so the
//! bot is the same process (same pid, same process group) with the limits in force.

use std::ffi::OsString;
use std::os::unix::process::CommandExt as _;

use nix::sys::resource::{Resource, setrlimit};

/// The hidden first argument that turns the referee's executable into the launcher.
pub const LAUNCH_ARG: &str = "__launch";

/// Limits applied to a bot process (each `None` = unlimited). Core dumps are always
/// disabled: a crashing bot must not fill the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResourceLimits {
    /// Address space in bytes (`RLIMIT_AS`). Off by default: runtimes such as the JVM
    /// and V8 reserve far more virtual memory than they use.
    pub address_space: Option<u64>,
    /// CPU seconds (`RLIMIT_CPU`, soft = hard).
    pub cpu_seconds: Option<u64>,
    /// Largest file the bot may write, in bytes (`RLIMIT_FSIZE`).
    pub file_size: Option<u64>,
    /// Open file descriptors (`RLIMIT_NOFILE`).
    pub open_files: Option<u64>,
}

impl Default for ResourceLimits {
    /// No core dumps, files up to 256 MiB, 1024 open files; memory and CPU time
    /// unlimited (per-move time limits already bound CPU use per move).
    fn default() -> Self {
        ResourceLimits {
            address_space: None,
            cpu_seconds: None,
            file_size: Some(256 * 1024 * 1024),
            open_files: Some(1024),
        }
    }
}

impl ResourceLimits {
    /// The launcher arguments for these limits (before `--`).
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
        args
    }
}

/// Runs the launcher: `[--as N] [--cpu N] [--fsize N] [--nofile N] -- PROGRAM ARGS…`
/// (the arguments after [`LAUNCH_ARG`]). Never returns: it becomes the bot, or exits
/// with 127 after printing why it could not.
pub fn launch(args: &[OsString]) -> ! {
    match prepare(args) {
        Ok(mut command) => {
            let err = command.exec();
            let program = command.get_program().to_string_lossy().into_owned();
            eprintln!("arena launcher: cannot start '{program}': {err}");
        }
        Err(message) => eprintln!("arena launcher: {message}"),
    }
    std::process::exit(127)
}

fn prepare(args: &[OsString]) -> Result<std::process::Command, String> {
    let split = args
        .iter()
        .position(|a| a == "--")
        .ok_or("usage: __launch [--as N] [--cpu N] [--fsize N] [--nofile N] -- PROGRAM ARGS")?;
    let (flags, rest) = (&args[..split], &args[split + 1..]);
    let (program, program_args) = rest.split_first().ok_or("no program after '--'")?;

    set_limit(Resource::RLIMIT_CORE, 0)?;
    for pair in flags.chunks(2) {
        let [flag, value] = pair else {
            return Err("a limit flag has no value".into());
        };
        let value: u64 = value
            .to_str()
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("bad value for {}", flag.to_string_lossy()))?;
        let resource = match flag.to_str() {
            Some("--as") => Resource::RLIMIT_AS,
            Some("--cpu") => Resource::RLIMIT_CPU,
            Some("--fsize") => Resource::RLIMIT_FSIZE,
            Some("--nofile") => Resource::RLIMIT_NOFILE,
            _ => return Err(format!("unknown limit {}", flag.to_string_lossy())),
        };
        set_limit(resource, value)?;
    }
    // If the referee dies (even by SIGKILL), the kernel kills the bot: the setting
    // survives exec. Descendants that leave the process group are the sandbox's job.
    nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL)
        .map_err(|e| format!("cannot set the parent-death signal: {e}"))?;
    if nix::unistd::getppid() == nix::unistd::Pid::from_raw(1) {
        return Err("the referee is gone".into());
    }
    let mut command = std::process::Command::new(program);
    command.args(program_args);
    Ok(command)
}

fn set_limit(resource: Resource, value: u64) -> Result<(), String> {
    // Never raise the hard limit (that needs privileges): clamp to it.
    let (_, hard) = nix::sys::resource::getrlimit(resource)
        .map_err(|e| format!("cannot read {resource:?}: {e}"))?;
    let value = value.min(hard);
    setrlimit(resource, value, value).map_err(|e| format!("cannot set {resource:?}: {e}"))
}
