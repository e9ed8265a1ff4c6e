//! The launcher: the referee's own executable re-run as `arena __launch FLAGS --
//! PROGRAM ARGS`. It is single-threaded and runs before any async runtime, so it
//! may allocate, open files and change its credentials freely between starting and
//! `exec`ing the bot (which keeps its pid, process group, limits and filters).
//!
//! In order: a session of its own (`setsid`: no controlling terminal, so no
//! `/dev/tty` to write escape sequences to or push keystrokes into); remember
//! the parent; join the bot's cgroup; resource limits (core dumps always off); umask
//! 022; the directories the bot's uid could not reach shown in a private mount
//! namespace ([`expose`]); the dedicated uid (groups dropped, then every leftover process of that uid
//! killed); the parent-death signal, set *after* the uid change because a
//! credential change clears it, then a check that the parent is still the one we
//! started with; every capability dropped and `no_new_privs` set
//! ([`privileges::drop_all`], whatever the layers: a bot that keeps the referee's
//! uid 0 must not keep its powers); Landlock; seccomp (last: it forbids nothing
//! the earlier steps need, but Landlock's own calls must come first); every
//! descriptor above 2 marked close-on-exec; `exec`.
//!
//! The one launcher that keeps its capabilities is the outer one in front of
//! bwrap (`--keep-privileges`): bwrap needs them as root to build the sandbox, and
//! the inner launcher inside it drops them before the bot runs.
//!
//! `arena __launch --sweep UID` instead becomes UID, kills every process of it and
//! removes the System V and POSIX IPC objects it left.

use std::ffi::{OsStr, OsString};
use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;

use nix::sys::resource::{Resource, setrlimit};

use super::landlock::Features;
use super::{cgroup, expose, landlock, privileges, seccomp, uids};
use crate::bot::limits::ResourceLimits;

/// The hidden first argument that turns the referee's executable into the launcher.
pub const LAUNCH_ARG: &str = "__launch";

/// Everything the launcher applies before `exec`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LaunchSpec {
    /// Resource limits (`processes` only makes sense with `user`).
    pub limits: Option<ResourceLimits>,
    /// Become this uid (and gid), with no supplementary groups.
    pub user: Option<u32>,
    /// Show these directories to that uid below a private ancestor first.
    pub expose: Vec<PathBuf>,
    /// Apply Landlock with these features.
    pub landlock: Option<Features>,
    /// Landlock: readable paths besides the system ones.
    pub read_only: Vec<PathBuf>,
    /// Landlock: writable paths.
    pub read_write: Vec<PathBuf>,
    /// Install the seccomp filter.
    pub seccomp: bool,
    /// Started inside a PID namespace, where the parent may legitimately be pid 1.
    pub in_namespace: bool,
    /// Join this cgroup (a directory) first of all.
    pub cgroup: Option<PathBuf>,
    /// Keep the capabilities: only for the launcher that starts bwrap, and for
    /// the one that only joins the clock's group (mode `none`).
    pub keep_privileges: bool,
    /// Stay in the referee's session (the process group the referee made at
    /// start-up stays the bot's): mode `none`, which promises nothing and
    /// changes nothing but the group.
    pub same_session: bool,
    /// The scheduling priority (a nice value) of the bot and of its session's
    /// autogroup, set while the launcher may still raise it (see
    /// [`super::super::priority`]).
    pub priority: Option<i32>,
}

impl LaunchSpec {
    /// The launcher arguments (after [`LAUNCH_ARG`], before `--`).
    pub fn to_args(&self) -> Vec<OsString> {
        let mut args: Vec<OsString> = self.limits.map(|l| l.to_args()).unwrap_or_default();
        if let Some(uid) = self.user {
            args.extend(["--user".into(), uid.to_string().into()]);
        }
        for p in &self.expose {
            args.extend(["--expose".into(), p.into()]);
        }
        if let Some(features) = self.landlock {
            args.extend(["--landlock".into(), features.to_arg().into()]);
        }
        for p in &self.read_only {
            args.extend(["--ro".into(), p.into()]);
        }
        for p in &self.read_write {
            args.extend(["--rw".into(), p.into()]);
        }
        if self.seccomp {
            args.push("--seccomp".into());
        }
        if self.in_namespace {
            args.push("--in-namespace".into());
        }
        if let Some(dir) = &self.cgroup {
            args.extend(["--cgroup".into(), dir.into()]);
        }
        if self.keep_privileges {
            args.push("--keep-privileges".into());
        }
        if self.same_session {
            args.push("--same-session".into());
        }
        if let Some(nice) = self.priority {
            args.extend(["--priority".into(), nice.to_string().into()]);
        }
        args
    }

    /// Parses [`LaunchSpec::to_args`]; returns the spec and the rest after `--`.
    ///
    /// # Errors
    /// An unknown flag, a missing or bad value, or no `--`.
    pub fn parse(args: &[OsString]) -> Result<(LaunchSpec, &[OsString]), String> {
        let mut spec = LaunchSpec::default();
        let mut i = 0;
        let number = |v: Option<&OsString>, flag: &str| -> Result<u64, String> {
            v.and_then(|v| v.to_str())
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("bad value for {flag}"))
        };
        loop {
            let Some(flag) = args.get(i) else {
                return Err(format!(
                    "usage: {LAUNCH_ARG} [--as N] [--cpu N] [--fsize N] [--nofile N] [--nproc N] [--user UID] [--landlock F] [--ro P]… [--rw P]… [--seccomp] [--in-namespace] [--cgroup DIR] [--keep-privileges] [--same-session] [--priority NICE] -- PROGRAM ARGS"
                ));
            };
            let flag = flag.to_string_lossy();
            let value = args.get(i + 1);
            let limits = spec.limits.get_or_insert(ResourceLimits::NONE);
            i += 2;
            match flag.as_ref() {
                "--" => {
                    if spec.limits == Some(ResourceLimits::NONE) {
                        spec.limits = None;
                    }
                    return Ok((spec, &args[i - 1..]));
                }
                "--as" => limits.address_space = Some(number(value, &flag)?),
                "--cpu" => limits.cpu_seconds = Some(number(value, &flag)?),
                "--fsize" => limits.file_size = Some(number(value, &flag)?),
                "--nofile" => limits.open_files = Some(number(value, &flag)?),
                "--nproc" => limits.processes = Some(number(value, &flag)?),
                "--user" => {
                    spec.user =
                        Some(u32::try_from(number(value, &flag)?).map_err(|e| e.to_string())?);
                }
                "--landlock" => {
                    let v = value
                        .and_then(|v| v.to_str())
                        .ok_or("bad value for --landlock")?;
                    spec.landlock = Some(Features::from_arg(v)?);
                }
                "--ro" => spec
                    .read_only
                    .push(value.ok_or("--ro needs a path")?.into()),
                "--expose" => spec
                    .expose
                    .push(value.ok_or("--expose needs a path")?.into()),
                "--rw" => spec
                    .read_write
                    .push(value.ok_or("--rw needs a path")?.into()),
                "--seccomp" => {
                    spec.seccomp = true;
                    i -= 1;
                }
                "--in-namespace" => {
                    spec.in_namespace = true;
                    i -= 1;
                }
                "--cgroup" => spec.cgroup = Some(value.ok_or("--cgroup needs a path")?.into()),
                "--keep-privileges" => {
                    spec.keep_privileges = true;
                    i -= 1;
                }
                "--same-session" => {
                    spec.same_session = true;
                    i -= 1;
                }
                "--priority" => {
                    spec.priority = Some(
                        value
                            .and_then(|v| v.to_str())
                            .and_then(|v| v.parse().ok())
                            .ok_or("bad value for --priority")?,
                    );
                }
                other => return Err(format!("unknown launcher flag {other}")),
            }
        }
    }

    /// Applies everything but the `exec`. Runs in the single-threaded launcher.
    fn apply(&self) -> Result<(), String> {
        if !self.same_session {
            new_session()?;
        }
        let parent = nix::unistd::getppid();
        if !self.in_namespace && parent == nix::unistd::Pid::from_raw(1) {
            return Err("the referee is gone".into());
        }
        // First: while the launcher still has the referee's credentials, and
        // before it can fork.
        if let Some(dir) = &self.cgroup {
            cgroup::join(dir)?;
        }
        // Before the uid changes: raising a priority needs the referee's.
        if let Some(nice) = self.priority {
            crate::bot::priority::raise_own(nice, !self.same_session);
        }
        set_limit(Resource::RLIMIT_CORE, 0)?;
        if let Some(limits) = self.limits {
            for (resource, value) in [
                (Resource::RLIMIT_AS, limits.address_space),
                (Resource::RLIMIT_CPU, limits.cpu_seconds),
                (Resource::RLIMIT_FSIZE, limits.file_size),
                (Resource::RLIMIT_NOFILE, limits.open_files),
                (Resource::RLIMIT_NPROC, limits.processes),
            ] {
                if let Some(value) = value {
                    set_limit(resource, value)?;
                }
            }
        }
        nix::sys::stat::umask(nix::sys::stat::Mode::from_bits_truncate(0o022));
        expose::expose(&self.expose)?;
        if let Some(uid) = self.user {
            uids::become_user(uid)?;
            // Leftovers of an earlier holder of this uid (the caller is spared).
            uids::kill_all_of_own_uid();
            uids::remove_own_ipc();
        }
        // If the referee dies (even by SIGKILL), the kernel kills the bot.
        nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL)
            .map_err(|e| format!("cannot set the parent-death signal: {e}"))?;
        if nix::unistd::getppid() != parent {
            return Err("the referee is gone".into());
        }
        if !self.keep_privileges {
            privileges::drop_all()?;
        }
        if let Some(features) = self.landlock {
            landlock::restrict(features, &self.read_only, &self.read_write)?;
        }
        if self.seccomp {
            seccomp::install()?;
        }
        Ok(())
    }
}

/// Leaves the referee's session for a new one, with the launcher's pid as its
/// session and process group id (the id the referee kills the group by). The
/// launcher inside bwrap is already the leader of the session bwrap made
/// (`--new-session`): that is the same result.
fn new_session() -> Result<(), String> {
    use nix::unistd::{getpid, getsid, setsid};
    match setsid() {
        Ok(_) => Ok(()),
        Err(_) if getsid(None).is_ok_and(|sid| sid == getpid()) => Ok(()),
        Err(e) => Err(format!("cannot start a session of its own: {e}")),
    }
}

fn set_limit(resource: Resource, value: u64) -> Result<(), String> {
    // Never raise the hard limit (that needs privileges): clamp to it.
    let (_, hard) = nix::sys::resource::getrlimit(resource)
        .map_err(|e| format!("cannot read {resource:?}: {e}"))?;
    let value = value.min(hard);
    setrlimit(resource, value, value).map_err(|e| format!("cannot set {resource:?}: {e}"))
}

/// Runs the launcher on the arguments after [`LAUNCH_ARG`]. Never returns: it
/// becomes the bot, or exits with 127 after printing why it could not (the
/// session reports that as "could not be started").
pub fn launch(args: &[OsString]) -> ! {
    if args.first().is_some_and(|a| a == "--sweep") {
        std::process::exit(sweep(args.get(1).map(OsString::as_os_str)));
    }
    let message = match LaunchSpec::parse(args) {
        Ok((spec, rest)) => match (spec.apply(), rest.split_first()) {
            (Ok(()), Some((program, program_args))) => {
                privileges::seal_descriptors();
                let err = std::process::Command::new(program)
                    .args(program_args)
                    .exec();
                format!("cannot start '{}': {err}", program.to_string_lossy())
            }
            (Ok(()), None) => "no program after '--'".into(),
            (Err(message), _) => message,
        },
        Err(message) => message,
    };
    eprintln!("arena launcher: {message}");
    std::process::exit(127)
}

fn sweep(uid: Option<&OsStr>) -> i32 {
    let Some(uid) = uid
        .and_then(OsStr::to_str)
        .and_then(|u| u.parse::<u32>().ok())
    else {
        eprintln!("arena launcher: usage: --sweep UID");
        return 2;
    };
    if uid == 0 {
        eprintln!("arena launcher: refusing to sweep uid 0");
        return 2;
    }
    if let Err(message) = uids::become_user(uid) {
        eprintln!("arena launcher: {message}");
        return 1;
    }
    uids::sweep_own_uid();
    uids::remove_own_ipc();
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_round_trip_through_arguments() {
        let spec = LaunchSpec {
            limits: Some(ResourceLimits {
                memory: None,
                processes: Some(64),
                ..ResourceLimits::default()
            }),
            user: Some(63001),
            expose: vec!["/root/.pyenv/versions/3.11.7".into()],
            landlock: Some(Features {
                fs_abi: 5,
                net: true,
                scope: true,
            }),
            read_only: vec!["/opt/py".into(), "/srv/bot dir".into()],
            read_write: vec!["/tmp/s".into()],
            seccomp: true,
            in_namespace: true,
            cgroup: Some("/sys/fs/cgroup/arena-1-0".into()),
            keep_privileges: true,
            same_session: true,
            priority: Some(-20),
        };
        let mut args = spec.to_args();
        args.extend(["--".into(), "prog".into(), "--x".into()]);
        let (parsed, rest) = LaunchSpec::parse(&args).unwrap();
        assert_eq!(parsed, spec);
        assert_eq!(rest, ["prog", "--x"].map(OsString::from));

        let bare: Vec<OsString> = vec!["--".into(), "p".into()];
        assert_eq!(LaunchSpec::parse(&bare).unwrap().0, LaunchSpec::default());
        let bad: Vec<OsString> = vec!["--cpu".into(), "x".into(), "--".into()];
        assert_eq!(LaunchSpec::parse(&bad).unwrap_err(), "bad value for --cpu");
        let unknown: Vec<OsString> = vec!["--net".into(), "--".into()];
        assert!(
            LaunchSpec::parse(&unknown)
                .unwrap_err()
                .contains("unknown launcher flag --net")
        );
    }
}
