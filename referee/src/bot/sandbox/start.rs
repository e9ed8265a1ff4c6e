//! The command line a bot process is started with under its plan:
//!
//! - no layers: the program itself, or, where the clock's cgroup can be made
//!   (see [`cgroup::accounting`]), `LAUNCHER __launch --cgroup DIR
//!   --keep-privileges --same-session -- PROGRAM ARGS`: the launcher only
//!   joins the group, so that every process the bot starts is counted (and
//!   killed with it), and changes nothing else (capabilities, session, `PATH`);
//! - launcher layers: `LAUNCHER __launch FLAGS -- PROGRAM ARGS`;
//! - with bwrap: `LAUNCHER __launch -- BWRAP ARGS -- LAUNCHER __launch FLAGS
//!   --in-namespace -- PROGRAM ARGS` (the outer launcher only adds the
//!   parent-death signal; the inner one applies everything else inside the
//!   namespaces).
//!
//! With the `user` layer a uid is leased for the life of the process and the
//! scratch directory is handed to it.
//!
//! Under the launcher (every mode but `none`) the bot starts in a session of its
//! own (the launcher's `setsid`) and with [`bot_path`] as its `PATH`, not the
//! operator's.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use super::bwrap::{self, View};
use super::cgroup::{self, BotCgroup};
use super::launch::{LAUNCH_ARG, LaunchSpec};
use super::uids::{self, UidLease};
use super::{Layer, SandboxPlan};
use crate::bot::command::BotCommand;
use crate::bot::limits::ResourceLimits;

/// What [`build`] produced.
#[derive(Debug)]
pub(crate) struct Prepared {
    /// Program and arguments.
    pub argv: Vec<OsString>,
    /// Whether the launcher starts it: it then makes the process a session (and
    /// so a process group) of its own, which the caller must not do first.
    pub launched: bool,
    /// The bot's `PATH` under the launcher; `None` keeps the referee's (mode
    /// `none`, where nothing is promised).
    pub path: Option<OsString>,
    /// The uid this process runs as, held until it is swept.
    pub lease: Option<UidLease>,
    /// Whether bwrap stands between the referee and the bot (it reports a bot
    /// killed by signal N as exit code 128 + N).
    pub wrapped: bool,
    /// The process tree's cgroup, killed and removed with the bot.
    pub cgroup: Option<BotCgroup>,
    /// The memory limit the referee must count itself (no `memory.max` does).
    pub watch_memory: Option<u64>,
}

/// The plan a command runs with: its own, or for commands never planned, the
/// launcher with resource limits only (the behaviour before sandbox plans).
fn effective_plan(command: &BotCommand) -> SandboxPlan {
    match (&command.plan, &command.launcher) {
        (Some(plan), _) => plan.clone(),
        (None, Some(_)) => SandboxPlan {
            layers: super::LayerSet::EMPTY.with(Layer::Rlimits),
            ..SandboxPlan::default()
        },
        (None, None) => SandboxPlan::none(),
    }
}

/// Builds the start of `command`, running in `dir` (`own_dir`: a scratch directory
/// the referee created, which the bot's uid may take over).
///
/// # Errors
/// No free uid, or the scratch directory cannot be handed over.
pub(crate) fn build(command: &BotCommand, dir: &Path, own_dir: bool) -> std::io::Result<Prepared> {
    let plan = effective_plan(command);
    let program = plan
        .program
        .clone()
        .unwrap_or_else(|| command.program.clone());
    let launcher = match &command.launcher {
        Some(l) if !plan.layers.is_empty() => l,
        Some(l) => return Ok(counted_only(command, program, l)),
        None => {
            let mut argv = vec![program.into_os_string()];
            argv.extend(command.args.iter().cloned());
            return Ok(Prepared {
                argv,
                launched: false,
                path: None,
                lease: None,
                wrapped: false,
                cgroup: None,
                watch_memory: None,
            });
        }
    };
    let lease = match (plan.layers.contains(Layer::User), plan.uids) {
        (true, Some(range)) => {
            let lease = uids::lease(range)?;
            if own_dir {
                let id = Some(lease.uid());
                nix::unistd::chown(
                    dir,
                    id.map(nix::unistd::Uid::from_raw),
                    id.map(nix::unistd::Gid::from_raw),
                )
                .map_err(std::io::Error::from)?;
            } else if plan.lend_working_dir {
                uids::lend_tree(dir, lease.uid())?;
            }
            Some(lease)
        }
        _ => None,
    };
    let wrapped = plan.layers.contains(Layer::Bwrap) && plan.bwrap.is_some();
    let cgroup = match (plan.layers.contains(Layer::Cgroup), &plan.cgroup) {
        (true, Some(base)) => Some(base.create(&command.limits)?),
        _ => clock_group(),
    };
    // The group is joined by the first launcher, outside bwrap's namespaces.
    // It keeps its capabilities only when bwrap, run as root, needs them.
    let outer = LaunchSpec {
        cgroup: cgroup.as_ref().map(|g| g.path().to_path_buf()),
        keep_privileges: wrapped,
        ..LaunchSpec::default()
    };
    let limits = plan
        .layers
        .contains(Layer::Rlimits)
        .then(|| ResourceLimits {
            processes: command.limits.processes.filter(|_| lease.is_some()),
            ..command.limits
        });
    let inner = LaunchSpec {
        limits,
        user: lease.as_ref().map(UidLease::uid),
        expose: if lease.is_some() {
            plan.expose.clone()
        } else {
            Vec::new()
        },
        landlock: plan
            .layers
            .contains(Layer::Landlock)
            .then_some(plan.landlock)
            .filter(|f| f.available()),
        read_only: plan.read_only.clone(),
        read_write: vec![dir.to_path_buf()],
        seccomp: plan.layers.contains(Layer::Seccomp),
        in_namespace: wrapped,
        cgroup: None,
        keep_privileges: false,
        same_session: false,
        priority: command.priority,
    };
    let path = bot_path(&program, launcher);
    let mut argv: Vec<OsString> = vec![launcher.clone().into_os_string(), LAUNCH_ARG.into()];
    argv.extend(outer.to_args());
    if let (true, Some(bwrap)) = (wrapped, &plan.bwrap) {
        let inside = std::fs::canonicalize(launcher).unwrap_or_else(|_| launcher.clone());
        let mut shown: Vec<PathBuf> = plan.read_only.clone();
        if !shown.iter().any(|p| inside.starts_with(p)) && !inside.starts_with("/usr") {
            shown.push(inside.clone());
        }
        argv.push("--".into());
        argv.push(bwrap.clone().into_os_string());
        argv.extend(bwrap::args(&View {
            read_only: &shown,
            scratch: dir,
            as_root: plan.as_root,
            keep_setuid: lease.is_some(),
            keep_nice: plan.as_root && command.priority.is_some(),
        }));
        argv.extend(["--".into(), inside.into_os_string(), LAUNCH_ARG.into()]);
    }
    argv.extend(inner.to_args());
    argv.push("--".into());
    argv.push(program.into_os_string());
    argv.extend(command.args.iter().cloned());
    let watch_memory = command
        .limits
        .memory
        .filter(|_| plan.layers.contains(Layer::Rlimits))
        .filter(|_| !cgroup.as_ref().is_some_and(BotCgroup::memory_limited));
    Ok(Prepared {
        argv,
        launched: true,
        path: Some(path),
        lease,
        wrapped,
        cgroup,
        watch_memory,
    })
}

/// A group for the clock alone (no limits in it), where one can be made: a
/// bot that cannot have one is charged by the wall clock (see
/// `charge::Usage::charge`), so a failure here is not the bot's.
fn clock_group() -> Option<BotCgroup> {
    cgroup::accounting()
        .ok()
        .and_then(|base| base.create(&ResourceLimits::NONE).ok())
}

/// The start of a bot with no layers: the program itself, through a launcher
/// that only joins the clock's group where one can be made (it keeps the
/// capabilities, the session and the referee's `PATH`: mode `none` promises
/// nothing and takes nothing away).
fn counted_only(command: &BotCommand, program: PathBuf, launcher: &Path) -> Prepared {
    let mut argv = Vec::new();
    let cgroup = clock_group();
    if let Some(group) = &cgroup {
        let spec = LaunchSpec {
            cgroup: Some(group.path().to_path_buf()),
            keep_privileges: true,
            same_session: true,
            priority: command.priority,
            ..LaunchSpec::default()
        };
        argv.extend([launcher.as_os_str().to_os_string(), LAUNCH_ARG.into()]);
        argv.extend(spec.to_args());
        argv.push("--".into());
    }
    argv.push(program.into_os_string());
    argv.extend(command.args.iter().cloned());
    Prepared {
        argv,
        // The launcher stays in the referee's session: the caller makes its
        // process group, as for a program started directly.
        launched: false,
        path: None,
        lease: None,
        wrapped: false,
        cgroup,
        watch_memory: None,
    }
}

/// The directories of a bot's `PATH` that are the same on every machine: where a
/// shell, `env` and the system's interpreters and compilers are.
pub const SYSTEM_PATH: [&str; 3] = ["/usr/local/bin", "/usr/bin", "/bin"];

/// The `PATH` a bot gets under the launcher: the directory of the program it runs
/// (an interpreter outside the system's, so that what it starts by name is the
/// same installation; never the launcher's own), then [`SYSTEM_PATH`]. Nothing of
/// the operator's `PATH`, which shows their home's layout and tools a bot has no
/// business running. A bot that needs more names it in its `env`.
pub fn bot_path(program: &Path, launcher: &Path) -> OsString {
    let system = SYSTEM_PATH.map(Path::new);
    let own = program
        .parent()
        .filter(|dir| program.is_absolute() && program != launcher && !system.contains(dir));
    let dirs: Vec<&Path> = own.into_iter().chain(system).collect();
    // A directory with `:` in its name cannot be a PATH entry.
    std::env::join_paths(&dirs)
        .or_else(|_| std::env::join_paths(system))
        .unwrap_or_else(|_| OsStr::new("/usr/bin:/bin").to_os_string())
}

/// Kills every process left under `lease`'s uid (`LAUNCHER __launch --sweep UID`)
/// and waits for that, then releases the uid.
pub(crate) async fn sweep(launcher: &Path, lease: UidLease) {
    let _ = tokio::process::Command::new(launcher)
        .arg(LAUNCH_ARG)
        .arg("--sweep")
        .arg(lease.uid().to_string())
        .env_clear()
        .stdin(std::process::Stdio::null())
        .status()
        .await;
    drop(lease);
}

/// [`sweep`] for `Drop`, blocking (a few milliseconds).
pub(crate) fn sweep_blocking(launcher: &Path, lease: UidLease) {
    let _ = std::process::Command::new(launcher)
        .arg(LAUNCH_ARG)
        .arg("--sweep")
        .arg(lease.uid().to_string())
        .env_clear()
        .stdin(std::process::Stdio::null())
        .status();
    drop(lease);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bots_path_is_its_interpreters_directory_and_the_systems() {
        let launcher = Path::new("/home/op/bin/arena");
        let path = |program: &str| bot_path(Path::new(program), launcher);
        assert_eq!(path("/usr/bin/python3"), "/usr/local/bin:/usr/bin:/bin");
        assert_eq!(
            path("/opt/py/bin/python3"),
            "/opt/py/bin:/usr/local/bin:/usr/bin:/bin"
        );
        assert_eq!(
            path("/home/op/bin/arena"),
            "/usr/local/bin:/usr/bin:/bin",
            "a built-in bot learns nothing of where the arena is installed"
        );
        assert_eq!(path("bot"), "/usr/local/bin:/usr/bin:/bin");
        assert_eq!(path("/odd:dir/bot"), "/usr/local/bin:/usr/bin:/bin");
    }
}
