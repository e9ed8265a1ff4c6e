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
//!
//! The group is also the clock's account ([`crate::bot::account`]): its
//! `cpu.stat` counts the CPU time of every task that was ever in it, those that
//! have exited and those that left the bot's process tree alike. So a bot gets
//! a group wherever one can be made, whatever its sandbox mode: [`accounting`]
//! is the base for bots whose plan has no `cgroup` layer (no limits are set in
//! their groups; they are still killed whole at the end).

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::bot::limits::ResourceLimits;
use crate::bot::{dirlock, poll};

/// The referee's own cgroup, where bot groups are created.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CgroupBase {
    dir: PathBuf,
    /// `memory.max` can be set in the groups created here.
    memory: bool,
    /// `pids.max` can be set in the groups created here.
    pids: bool,
    /// The groups created here have a `cpu.stat` with `usage_usec` (cgroup v2
    /// keeps it in every group, controller or not, since Linux 4.15).
    cpu_stat: bool,
}

/// Numbers the groups of one referee process.
static NEXT_GROUP: AtomicU64 = AtomicU64::new(0);

/// The prefix of every group the arena creates (`arena-PID-N`, `arena-probe-PID-N`).
const PREFIX: &str = "arena-";

/// How long [`BotCgroup::kill`] waits for the group to empty before removing it.
const KILL_WAIT: Duration = Duration::from_secs(2);
/// Names tried by [`create_locked`] before it gives up.
const CREATE_ATTEMPTS: usize = 8;

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
        let (probe, _held) = create_locked(&dir, "probe-").map_err(|e| {
            format!(
                "cannot create a cgroup in {}: {e} (delegate it to this user, e.g. `systemd-run --user --scope -p Delegate=yes arena …`, or run as root)",
                dir.display()
            )
        })?;
        let has_kill = probe.join("cgroup.kill").exists();
        let cpu_stat =
            fs::read_to_string(probe.join("cpu.stat")).is_ok_and(|text| usage(&text).is_some());
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
            cpu_stat,
            dir,
        })
    }

    /// Whether the groups made here count their CPU time (`cpu.stat`).
    pub fn counts_cpu(&self) -> bool {
        self.cpu_stat
    }

    /// The directory groups are made in.
    pub fn dir(&self) -> &Path {
        &self.dir
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
        let (path, lock) = create_locked(&self.dir, "")?;
        let mut group = BotCgroup {
            path,
            memory_limited: false,
            _lock: lock,
        };
        if self.memory
            && let Some(bytes) = limits.memory
        {
            fs::write(group.path.join("memory.max"), bytes.to_string())?;
            // Swap would let the bot exceed the limit slowly instead of failing.
            let _ = fs::write(group.path.join("memory.swap.max"), "0");
            // Past the limit the whole bot goes, as the referee's own count
            // would do, not one process of it picked by the OOM killer.
            let _ = fs::write(group.path.join("memory.oom.group"), "1");
            group.memory_limited = true;
        }
        if self.pids
            && let Some(count) = limits.processes
        {
            fs::write(group.path.join("pids.max"), count.to_string())?;
        }
        Ok(group)
    }
}

/// One bot's group: held (see [`dirlock`]) while it lives, killed and removed
/// when dropped.
#[derive(Debug)]
pub(crate) struct BotCgroup {
    path: PathBuf,
    /// Whether `memory.max` holds the bot's memory limit (the kernel counts it).
    memory_limited: bool,
    /// Released after the removal (fields drop after `Drop::drop`).
    _lock: File,
}

impl BotCgroup {
    /// The group's directory (the launcher writes its pid into `cgroup.procs`).
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The group's `cpu.stat`, opened to be read again and again (see
    /// [`cpu_usage`]); `None` where it has none.
    pub(crate) fn open_cpu_stat(&self) -> Option<File> {
        File::open(self.path.join("cpu.stat")).ok()
    }

    /// Whether the kernel enforces the bot's memory limit (`memory.max`).
    pub(crate) fn memory_limited(&self) -> bool {
        self.memory_limited
    }

    /// Whether the kernel killed the group for reaching `memory.max`, and its
    /// peak usage in bytes (the limit when the kernel does not say).
    pub(crate) fn oom_killed(&self, limit: u64) -> Option<u64> {
        let events = fs::read_to_string(self.path.join("memory.events")).ok()?;
        let kills: u64 = events
            .lines()
            .find_map(|l| {
                l.strip_prefix("oom_group_kill ")
                    .or_else(|| l.strip_prefix("oom_kill "))
            })
            .and_then(|n| n.trim().parse().ok())?;
        (kills > 0).then(|| {
            fs::read_to_string(self.path.join("memory.peak"))
                .ok()
                .and_then(|p| p.trim().parse().ok())
                .unwrap_or(limit)
        })
    }

    /// Kills every process in the group, waits (briefly) until it is empty and
    /// removes it. Idempotent. The wait polls ([`poll::until`]), so it runs on a
    /// blocking thread.
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
/// left in the group (zombies are not counted), and removes the group. Returns
/// whether it removed it (false as well when it was already gone).
fn kill_and_remove(path: &Path) -> bool {
    if !path.exists() {
        return false;
    }
    let _ = fs::write(path.join("cgroup.kill"), "1");
    poll::until(KILL_WAIT, || {
        !fs::read_to_string(path.join("cgroup.events"))
            .is_ok_and(|events| events.lines().any(|l| l == "populated 1"))
    });
    fs::remove_dir(path).is_ok()
}

/// Joins the group at `dir` (run by the launcher, before `exec`).
///
/// # Errors
/// The group cannot be joined.
pub fn join(dir: &Path) -> Result<(), String> {
    fs::write(dir.join("cgroup.procs"), "0")
        .map_err(|e| format!("cannot join the bot's cgroup {}: {e}", dir.display()))
}

/// The base for the clock's groups: the referee's cgroup v2 directory, found
/// once per process, when groups made there count their CPU time. Why not,
/// with the fix, otherwise.
///
/// # Errors
/// No cgroup v2 group can be made here, or its groups have no `cpu.stat`.
pub fn accounting() -> Result<&'static CgroupBase, &'static str> {
    static BASE: std::sync::OnceLock<Result<CgroupBase, String>> = std::sync::OnceLock::new();
    BASE.get_or_init(|| {
        let base = CgroupBase::find()?;
        if base.cpu_stat {
            Ok(base)
        } else {
            Err(format!(
                "the cgroups made in {} have no cpu.stat (Linux 4.15 or later)",
                base.dir.display()
            ))
        }
    })
    .as_ref()
    .map_err(String::as_str)
}

/// The CPU time in a `cpu.stat` text (its `usage_usec` line).
pub(crate) fn usage(cpu_stat: &str) -> Option<Duration> {
    cpu_stat.lines().find_map(|line| {
        line.strip_prefix("usage_usec ")
            .and_then(|n| n.trim().parse().ok())
            .map(Duration::from_micros)
    })
}

/// The CPU time of the group whose `cpu.stat` is `file` now, read afresh
/// (`pread` at offset 0 makes the kernel print it again).
pub(crate) fn cpu_usage(file: &File) -> Option<Duration> {
    use std::os::unix::fs::FileExt as _;
    let mut buf = [0u8; 512];
    let n = file.read_at(&mut buf, 0).ok()?;
    usage(std::str::from_utf8(buf.get(..n)?).ok()?)
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

/// Creates a group `arena-<kind>PID-N` in `dir` and locks it. A name already
/// taken (by a referee with the same PID in another PID namespace) and a group
/// that another referee's sweep took between its creation and the lock are tried
/// again under the next number.
fn create_locked(dir: &Path, kind: &str) -> io::Result<(PathBuf, File)> {
    let mut last = io::Error::other("no attempt made");
    for _ in 0..CREATE_ATTEMPTS {
        let n = NEXT_GROUP.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!("{PREFIX}{kind}{}-{n}", std::process::id()));
        match fs::create_dir(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                last = e;
                continue;
            }
            Err(e) => return Err(e),
        }
        match dirlock::lock(&path) {
            Ok(lock) => return Ok((path, lock)),
            Err(e) => {
                // The sweep that holds it removes it; if nobody does, we do.
                let _ = fs::remove_dir(&path);
                last = e;
            }
        }
    }
    Err(last)
}

/// Kills and removes the groups of referees that are gone (killed before they
/// could clean up): those nobody holds. Their bots normally die with them
/// through the parent-death signal, but bwrap re-arms that signal only after
/// dropping privileges, so a referee killed during a bot's first milliseconds
/// can leave bwrap running. A lock, unlike the PID in the name, also tells
/// whether a referee in another PID namespace that shares this cgroup is alive.
fn kill_stale_groups(dir: &Path) {
    dirlock::sweep_unheld(dir, PREFIX, kill_and_remove);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kill_at_memory_max_is_read_from_memory_events() {
        let dir = tempfile::tempdir().unwrap();
        let group = BotCgroup {
            path: dir.path().to_path_buf(),
            memory_limited: true,
            _lock: File::open(dir.path()).unwrap(),
        };
        fs::write(
            dir.path().join("memory.events"),
            "low 0\nhigh 0\nmax 12\noom 1\noom_kill 0\noom_group_kill 0\n",
        )
        .unwrap();
        assert_eq!(group.oom_killed(64), None, "reached max, killed nobody");
        fs::write(
            dir.path().join("memory.events"),
            "low 0\nhigh 0\nmax 40\noom 1\noom_kill 2\noom_group_kill 1\n",
        )
        .unwrap();
        assert_eq!(group.oom_killed(64), Some(64), "no memory.peak: the limit");
        fs::write(dir.path().join("memory.peak"), "70123520\n").unwrap();
        assert_eq!(group.oom_killed(64), Some(70_123_520));
    }

    #[test]
    fn only_groups_nobody_holds_are_swept() {
        let base = match CgroupBase::find() {
            Ok(base) => base,
            Err(why) => {
                // Whether a cgroup is delegated to this process is known only as it
                // runs, and libtest has no skip at run time: say so past the output
                // capture, as the end-to-end tests do (`.ci/run` lists these lines).
                use std::io::Write as _;
                let thread = std::thread::current();
                let test = thread.name().unwrap_or("a test");
                let _ = writeln!(std::io::stderr().lock(), "SKIPPED {test}: {why}");
                return;
            }
        };
        let live = base.create(&ResourceLimits::default()).expect("a group");
        let live_path = live.path().to_path_buf();
        // PIDs no process here can have (above the kernel's 2^22 limit): by PID
        // both look dead, as a live referee in another PID namespace would.
        let held = base.dir.join(format!("{PREFIX}4194400-0"));
        let abandoned = base.dir.join(format!("{PREFIX}4194401-0"));
        for path in [&held, &abandoned] {
            fs::create_dir(path).expect("a group");
        }
        let holder = dirlock::lock(&held).expect("lock");

        kill_stale_groups(&base.dir);
        assert!(live_path.is_dir(), "this referee's group is held");
        assert!(held.is_dir(), "another referee's group is held");
        assert!(!abandoned.exists(), "nobody held it");

        drop(holder);
        kill_stale_groups(&base.dir);
        assert!(!held.exists(), "abandoned once its holder is gone");
        assert!(live_path.is_dir());
        drop(live);
        assert!(!live_path.exists(), "removed with its bot");
    }

    #[test]
    fn cpu_time_is_read_from_cpu_stat_text() {
        let text = "usage_usec 441014\nuser_usec 400000\nsystem_usec 41014\nnice_usec 0\n";
        assert_eq!(usage(text), Some(Duration::from_micros(441_014)));
        assert_eq!(usage("user_usec 1\n"), None);
        assert_eq!(usage("usage_usec x\n"), None);
    }

    #[test]
    fn a_group_counts_the_cpu_of_children_that_have_exited_and_of_escaped_ones() {
        let base = match accounting() {
            Ok(base) => base,
            Err(why) => {
                // Known only as it runs: said past the output capture, as
                // `only_groups_nobody_holds_are_swept` does.
                use std::io::Write as _;
                let thread = std::thread::current();
                let test = thread.name().unwrap_or("a test");
                let _ = writeln!(std::io::stderr().lock(), "SKIPPED {test}: {why}");
                return;
            }
        };
        let group = base.create(&ResourceLimits::NONE).expect("a group");
        let file = group.open_cpu_stat().expect("cpu.stat");
        assert_eq!(cpu_usage(&file), Some(Duration::ZERO), "nothing ran yet");
        let procs = group.path().join("cgroup.procs");
        let members = || fs::read_to_string(&procs).unwrap_or_default();
        // A shell joins the group, counts to 20,000 and exits: nothing of it
        // is left, and its time is.
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!(
                "echo $$ > {}; i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done",
                procs.display()
            ))
            .status()
            .expect("sh runs");
        assert!(status.success());
        let exited = cpu_usage(&file).expect("readable");
        assert!(
            exited > Duration::ZERO,
            "the exited shell's time is counted"
        );
        assert_eq!(members().trim(), "", "and nothing of it is alive");
        // A shell in the group starts a busy loop that leaves its tree (its
        // parent exits at once): the loop's whole CPU time is the group's.
        let dir = tempfile::tempdir().expect("a directory");
        let pidfile = dir.path().join("loop.pid");
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!(
                "echo $$ > {}; (sh -c 'echo $$ > {}; while :; do :; done' &)",
                procs.display(),
                pidfile.display()
            ))
            .status()
            .expect("sh runs");
        assert!(status.success());
        let own_cpu = |pid: &str| {
            fs::read_to_string(format!("/proc/{pid}/schedstat"))
                .ok()
                .and_then(|t| t.split_whitespace().next().and_then(|n| n.parse().ok()))
                .map(Duration::from_nanos)
        };
        let mut looped = None;
        poll::until(Duration::from_secs(30), || {
            let pid = fs::read_to_string(&pidfile).unwrap_or_default();
            let pid = pid.trim().to_string();
            looped = own_cpu(&pid)
                .filter(|&t| t >= Duration::from_millis(20))
                .map(|t| (pid, t));
            looped.is_some()
        });
        let (pid, _) = looped.expect("the escaped loop ran 20 ms of CPU");
        let parent = fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|t| {
                t.rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().nth(1).map(str::to_string))
            })
            .unwrap_or_default();
        // Its own CPU time first, the group's after: the group's is no less.
        let loop_cpu = own_cpu(&pid).expect("the loop is alive");
        let total = cpu_usage(&file).expect("readable");
        assert!(
            kill_and_remove(group.path()),
            "the group is emptied and removed"
        );
        assert_ne!(
            parent,
            std::process::id().to_string(),
            "the loop left the tree"
        );
        assert!(
            total >= exited + loop_cpu,
            "the group counted {total:?}: the exited shell's {exited:?} and the escaped loop's {loop_cpu:?}"
        );
    }

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
