//! The `cgroup` layer: every bot process tree in a cgroup v2 group of its own,
//! created under the referee's cgroup when that subtree is delegated to it.
//!
//! Why a cgroup on top of the process group: a bot that double-forks with `setsid`
//! leaves its process group, so killing the group misses it, and the uid sweep
//! needs root. `cgroup.kill` ends every process in the group at once, whatever
//! it did to its session, and a process cannot leave a cgroup it has no write
//! access to. Where the `memory` and `pids` controllers are delegated as well,
//! `memory.max` (the `memory-mb` limit, counted in resident memory of the whole
//! tree instead of per-process address space) and `pids.max` (the `processes`
//! limit, per bot instead of per uid) apply too; detection reports which.
//!
//! The bot joins its group in the launcher, before `exec` (and outside bwrap's
//! namespaces): it is inside before it can run a single instruction of its own.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::bot::limits::ResourceLimits;

/// The referee's own cgroup, where bot groups are created.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CgroupBase {
    dir: PathBuf,
    /// `memory.max` can be set in the groups created here.
    memory: bool,
    /// `pids.max` can be set in the groups created here.
    pids: bool,
}

/// Numbers the groups of one referee process.
static NEXT_GROUP: AtomicU64 = AtomicU64::new(0);

/// The prefix of every group the arena creates (`arena-PID-N`).
const PREFIX: &str = "arena-";

/// How long [`BotCgroup::kill`] waits for the group to empty before removing it.
const KILL_WAIT: Duration = Duration::from_secs(2);
/// How often it looks (the group normally empties within a few hundred µs).
const KILL_POLL: Duration = Duration::from_micros(200);

impl CgroupBase {
    /// Finds the referee's cgroup v2 directory and checks that it may create
    /// groups there with `cgroup.kill`.
    ///
    /// # Errors
    /// Why not, with what would fix it.
    pub fn find() -> Result<CgroupBase, String> {
        let mountinfo = fs::read_to_string("/proc/self/mountinfo")
            .map_err(|e| format!("cannot read /proc/self/mountinfo: {e}"))?;
        let mount = cgroup2_mount(&mountinfo).ok_or(
            "no cgroup v2 hierarchy is mounted here (cgroup v1 only): it needs cgroup v2 with a subtree delegated to the referee",
        )?;
        let own = fs::read_to_string("/proc/self/cgroup")
            .map_err(|e| format!("cannot read /proc/self/cgroup: {e}"))?;
        let own = own_cgroup(&own).ok_or("this process is in no cgroup v2 group")?;
        let dir = match own.trim_start_matches('/') {
            "" => PathBuf::from(mount),
            below => Path::new(mount).join(below),
        };
        kill_stale_groups(&dir);
        let probe = dir.join(format!("{PREFIX}probe-{}", std::process::id()));
        fs::create_dir(&probe).map_err(|e| {
            format!(
                "cannot create a cgroup in {}: {e} (delegate it to this user, e.g. `systemd-run --user --scope -p Delegate=yes arena …`, or run as root)",
                dir.display()
            )
        })?;
        let has_kill = probe.join("cgroup.kill").exists();
        let _ = fs::remove_dir(&probe);
        if !has_kill {
            return Err("this kernel's cgroup v2 has no cgroup.kill (Linux 5.14 or later)".into());
        }
        let read = |file: &str| fs::read_to_string(dir.join(file)).unwrap_or_default();
        let offered = read("cgroup.controllers");
        for controller in ["memory", "pids"] {
            if has_word(&offered, controller)
                && !has_word(&read("cgroup.subtree_control"), controller)
            {
                // Refused (EBUSY) when the referee's group holds processes and is
                // not the root: then the limits are simply not available.
                let _ = fs::write(dir.join("cgroup.subtree_control"), format!("+{controller}"));
            }
        }
        let enabled = read("cgroup.subtree_control");
        Ok(CgroupBase {
            memory: has_word(&enabled, "memory"),
            pids: has_word(&enabled, "pids"),
            dir,
        })
    }

    /// What the layer does here, for `arena doctor` and the banner.
    pub fn describe(&self) -> String {
        let limit = |on: bool, name: &str| {
            if on {
                format!("{name} per bot")
            } else {
                format!("no {name} (controller not delegated here)")
            }
        };
        format!(
            "cgroup.kill per bot under {}; {}; {}",
            self.dir.display(),
            limit(self.memory, "memory.max"),
            limit(self.pids, "pids.max")
        )
    }

    /// Creates the group for one bot process with `limits`.
    ///
    /// # Errors
    /// The group cannot be created or a limit cannot be written.
    pub(crate) fn create(&self, limits: &ResourceLimits) -> io::Result<BotCgroup> {
        let n = NEXT_GROUP.fetch_add(1, Ordering::Relaxed);
        let path = self.dir.join(format!("{PREFIX}{}-{n}", std::process::id()));
        fs::create_dir(&path)?;
        let group = BotCgroup { path };
        if self.memory
            && let Some(bytes) = limits.address_space
        {
            fs::write(group.path.join("memory.max"), bytes.to_string())?;
            // Swap would let the bot exceed the limit slowly instead of failing.
            let _ = fs::write(group.path.join("memory.swap.max"), "0");
        }
        if self.pids
            && let Some(count) = limits.processes
        {
            fs::write(group.path.join("pids.max"), count.to_string())?;
        }
        Ok(group)
    }
}

/// One bot's group: killed and removed when dropped.
#[derive(Debug)]
pub(crate) struct BotCgroup {
    path: PathBuf,
}

impl BotCgroup {
    /// The group's directory (the launcher writes its pid into `cgroup.procs`).
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Kills every process in the group, waits (briefly) until it is empty and
    /// removes it. Idempotent. The wait polls every [`KILL_POLL`], finer than
    /// tokio's millisecond timer, so it runs on a blocking thread.
    pub(crate) async fn kill(&self) {
        let path = self.path.clone();
        let _ = tokio::task::spawn_blocking(move || kill_and_remove(&path)).await;
    }
}

impl Drop for BotCgroup {
    fn drop(&mut self) {
        kill_and_remove(&self.path);
    }
}

/// Writes `cgroup.kill`, waits (at most [`KILL_WAIT`]) until no live process is
/// left in the group (zombies are not counted), and removes the group. Nothing to
/// do when it is already gone.
fn kill_and_remove(path: &Path) {
    if !path.exists() {
        return;
    }
    let _ = fs::write(path.join("cgroup.kill"), "1");
    let populated = || {
        fs::read_to_string(path.join("cgroup.events"))
            .is_ok_and(|events| events.lines().any(|l| l == "populated 1"))
    };
    let give_up = std::time::Instant::now() + KILL_WAIT;
    while populated() && std::time::Instant::now() < give_up {
        std::thread::sleep(KILL_POLL);
    }
    let _ = fs::remove_dir(path);
}

/// Joins the group at `dir` (run by the launcher, before `exec`).
///
/// # Errors
/// The group cannot be joined.
pub fn join(dir: &Path) -> Result<(), String> {
    fs::write(dir.join("cgroup.procs"), "0")
        .map_err(|e| format!("cannot join the bot's cgroup {}: {e}", dir.display()))
}

/// The mount point of the cgroup v2 hierarchy in `/proc/self/mountinfo` text.
fn cgroup2_mount(mountinfo: &str) -> Option<&str> {
    mountinfo.lines().find_map(|line| {
        let (fields, rest) = line.split_once(" - ")?;
        let fstype = rest.split_whitespace().next()?;
        (fstype == "cgroup2").then(|| fields.split_whitespace().nth(4))?
    })
}

/// This process's cgroup v2 path in `/proc/self/cgroup` text (`0::PATH`).
fn own_cgroup(text: &str) -> Option<&str> {
    text.lines().find_map(|l| l.strip_prefix("0::"))
}

fn has_word(text: &str, word: &str) -> bool {
    text.split_whitespace().any(|w| w == word)
}

/// Kills and removes the groups of referees that are gone (killed before they
/// could clean up). Their bots normally die with them through the parent-death
/// signal, but bwrap re-arms that signal only after dropping privileges, so a
/// referee killed during a bot's first milliseconds can leave bwrap running.
fn kill_stale_groups(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(PREFIX))
            .and_then(|rest| rest.trim_start_matches("probe-").split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            kill_and_remove(&entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cgroup2_mount_and_own_group_are_read_from_proc_text() {
        let hybrid = "35 25 0:30 / /sys/fs/cgroup/memory rw,relatime shared:15 - cgroup cgroup rw,memory\n\
                      36 25 0:31 / /sys/fs/cgroup/unified rw,relatime shared:16 - cgroup2 cgroup2 rw\n";
        assert_eq!(cgroup2_mount(hybrid), Some("/sys/fs/cgroup/unified"));
        let v1_only = "35 25 0:30 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n";
        assert_eq!(cgroup2_mount(v1_only), None);
        assert_eq!(
            own_cgroup("4:memory:/x\n0::/user.slice/arena.scope\n"),
            Some("/user.slice/arena.scope")
        );
        assert_eq!(own_cgroup("4:memory:/x\n"), None);
        assert!(has_word("cpu memory pids", "pids"));
        assert!(!has_word("cpu memoryx", "memory"));
    }
}
