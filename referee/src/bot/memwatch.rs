//! The referee's count of a bot's memory, where no cgroup `memory.max` does it.
//!
//! `RLIMIT_AS` limits each process's address space on its own: eight children
//! of 48 MiB each pass a 64 MiB limit, and so does memory written into a memfd
//! (it belongs to no process's address space until mapped). The kernel counts
//! a whole process tree only in a cgroup with the `memory` controller, which is
//! often not delegated. So the referee measures the tree itself, every
//! [`MIN_PAUSE`] or so, and kills it the moment the sum is over the limit; the
//! bot's exit is then reported as [`ExitInfo::OverMemory`](super::ExitInfo).
//!
//! What is counted, per process of the tree (the bot's cgroup if it has one,
//! else its descendants and its process group): resident anonymous and shared
//! memory (`RssAnon + RssShmem`), plus the size of every memfd or `/dev/shm`
//! file it holds open and has not mapped. Processes made by `fork` share their
//! parent's pages until they write to them, which that sum counts once per
//! process; when it is over the limit and there are several processes, the
//! proportional sizes (`Pss_Anon + Pss_Shmem`, which split shared pages among
//! their users) decide, so a bot with a big model and a few workers is not
//! killed for memory it does not use. Those are slower to read (a page-table
//! walk), so they are read only then.
//!
//! Not counted (documented): files written to tmpfs directories and closed,
//! and a memfd passed over a socket pair and closed while in flight. Seccomp
//! refuses `memfd_create`; Landlock and bwrap leave no tmpfs but the scratch
//! directory writable.
//!
//! The cost is bounded: each pause is at least ten times the last measurement,
//! so a tree that is slow to measure (thousands of descriptors, gigabytes of
//! shared pages) is measured less often instead of taking the referee's time.
//! The tree's members are found without reading all of `/proc` each time
//! ([`super::members`]).
//!
//! A bot kept between games (a pooled process, `processes = "reuse"`) is
//! measured every [`IDLE_PAUSE`] instead of every [`MIN_PAUSE`], and at once
//! when its next game starts ([`MemoryWatch::playing`]): twenty pooled bots with
//! two games at once left eighteen trees measured fifty times a second for
//! nothing, the arena's largest cost per game. The limit still holds between
//! games, later: a tree over it is killed at the next measurement, at most
//! [`IDLE_PAUSE`] later and no later than the start of its next game, so a bot
//! that allocates while it waits (a background thread) can pass its limit by
//! what it touches in a quarter of a second before it is killed, where a
//! playing bot passes it by what it touches in 20 ms. Where the limit was given
//! explicitly, `RLIMIT_AS` also caps each process's address space at any pace.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::sync::Notify;

use super::members::{Members, descendants_and_group};

/// The shortest pause between measurements: a bot allocating as fast as it can
/// touch pages (a few GB/s) overshoots its limit by at most a few hundred MiB.
const MIN_PAUSE: Duration = Duration::from_millis(20);
/// The pause between measurements of a bot between games.
pub(crate) const IDLE_PAUSE: Duration = Duration::from_millis(250);
/// Each pause is at least this many times the last measurement.
const COST_FACTOR: u32 = 10;

/// The bot used more memory than its limit and was killed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Overrun {
    /// Bytes counted when it was killed.
    pub(crate) used: u64,
    /// The limit in bytes.
    pub(crate) limit: u64,
}

/// A running watch: stops when the tree is gone or dropped.
#[derive(Debug)]
pub(crate) struct MemoryWatch {
    verdict: Arc<OnceLock<Overrun>>,
    /// The largest measurement so far: what a failure bundle reports as the bot's
    /// peak memory.
    peak: Arc<AtomicU64>,
    /// Whether the bot is between games, and the wake-up when one starts.
    pace: Arc<Pace>,
    /// Measurements taken so far (read by the tests of the pace).
    #[cfg_attr(not(test), allow(dead_code))]
    measured: Arc<AtomicU64>,
    task: tokio::task::JoinHandle<()>,
}

/// Whether a bot is in a game, shared by its process and its watch.
#[derive(Debug, Default)]
struct Pace {
    /// Between games: measured every [`IDLE_PAUSE`].
    idle: AtomicBool,
    /// Ends the pause when a game starts.
    woken: Notify,
}

impl MemoryWatch {
    /// Starts watching the tree of `pid` (also its process group id), or the
    /// processes of `cgroup`, against `limit` bytes.
    pub(crate) fn start(pid: Pid, cgroup: Option<PathBuf>, limit: u64) -> MemoryWatch {
        let verdict = Arc::new(OnceLock::new());
        let found = Arc::clone(&verdict);
        let peak = Arc::new(AtomicU64::new(0));
        let highest = Arc::clone(&peak);
        let pace = Arc::new(Pace::default());
        let paced = Arc::clone(&pace);
        let measured = Arc::new(AtomicU64::new(0));
        let counted = Arc::clone(&measured);
        let task = tokio::spawn(async move {
            let mut tree = Tree {
                root: pid.as_raw(),
                cgroup,
                limit,
                members: Members::of(pid.as_raw()),
            };
            // A bot that lives less than a pause (a quick check, a short game)
            // costs nothing; none can touch more than a few hundred MiB by then.
            tokio::time::sleep(MIN_PAUSE).await;
            loop {
                let started = Instant::now();
                let (next, used) = match tokio::task::spawn_blocking(move || {
                    let used = tree.measure();
                    (tree, used)
                })
                .await
                {
                    Ok(result) => result,
                    Err(_) => return,
                };
                tree = next;
                counted.fetch_add(1, Ordering::Relaxed);
                let Some(used) = used else { return };
                highest.fetch_max(used, Ordering::Relaxed);
                if used > limit {
                    let _ = found.set(Overrun { used, limit });
                    tree.kill();
                    return;
                }
                let least = if paced.idle.load(Ordering::Relaxed) {
                    IDLE_PAUSE
                } else {
                    MIN_PAUSE
                };
                let pause = least.max(started.elapsed() * COST_FACTOR);
                tokio::select! {
                    () = tokio::time::sleep(pause) => {}
                    () = paced.woken.notified() => {}
                }
            }
        });
        MemoryWatch {
            verdict,
            peak,
            pace,
            measured,
            task,
        }
    }

    /// The bot is in a game (`true`: measured every [`MIN_PAUSE`] or so, and
    /// at once if it was between games) or between games (`false`: every
    /// [`IDLE_PAUSE`]).
    pub(crate) fn playing(&self, playing: bool) {
        let was_idle = self.pace.idle.swap(!playing, Ordering::Relaxed);
        if playing && was_idle {
            self.pace.woken.notify_one();
        }
    }

    /// The most the tree held at any measurement so far (0 before the first).
    pub(crate) fn peak(&self) -> u64 {
        self.peak.load(Ordering::Relaxed)
    }

    /// Measurements taken so far.
    #[cfg(test)]
    pub(crate) fn measurements(&self) -> u64 {
        self.measured.load(Ordering::Relaxed)
    }

    /// Whether (and by how much) the bot went over its limit.
    pub(crate) fn overrun(&self) -> Option<Overrun> {
        self.verdict.get().copied()
    }
}

impl Drop for MemoryWatch {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The processes of one bot.
#[derive(Debug)]
struct Tree {
    /// The process the referee started (pid and process group id).
    root: i32,
    /// The bot's cgroup, when it has one: its `cgroup.procs` is the tree.
    cgroup: Option<PathBuf>,
    /// The limit in bytes (past it, shared pages are split among their users).
    limit: u64,
    /// Its members, found without a cgroup.
    members: Members,
}

impl Tree {
    /// Bytes the tree holds now; `None` once the root process is gone.
    fn measure(&mut self) -> Option<u64> {
        if !Path::new(&format!("/proc/{}", self.root)).exists() {
            return None;
        }
        let members = self.members();
        let mut files = HashSet::new();
        let mut held = 0;
        let mut resident = 0;
        for &pid in &members {
            resident += status_bytes(pid).unwrap_or(0);
            held += held_files(pid, &mut files);
        }
        if members.len() > 1 && resident + held > self.limit {
            // Pages shared after a fork were counted once per process.
            let shared_split: u64 = members
                .iter()
                .map(|&pid| {
                    proportional_bytes(pid)
                        .or_else(|| status_bytes(pid))
                        .unwrap_or(0)
                })
                .sum();
            resident = resident.min(shared_split);
        }
        Some(resident + held)
    }

    fn members(&mut self) -> Vec<i32> {
        if let Some(procs) = self
            .cgroup
            .as_ref()
            .and_then(|g| std::fs::read_to_string(g.join("cgroup.procs")).ok())
        {
            return procs
                .lines()
                .filter_map(|l| l.trim().parse().ok())
                .collect();
        }
        self.members.now().to_vec()
    }

    /// Kills the tree: the cgroup or the process group, and every descendant
    /// found just now (one that left the group with `setsid` may hold the memory).
    fn kill(&self) {
        let _ = killpg(Pid::from_raw(self.root), Signal::SIGKILL);
        if let Some(group) = &self.cgroup {
            let _ = std::fs::write(group.join("cgroup.kill"), "1");
            return;
        }
        for pid in descendants_and_group(self.root) {
            let _ = nix::sys::signal::kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }
}

/// The sum of the `kB` fields `names` in a `/proc` file of `Key: N kB` lines.
fn kib_fields(text: &str, names: &[&str]) -> u64 {
    text.lines()
        .filter_map(|line| {
            let (key, value) = line.split_once(':')?;
            names.contains(&key.trim()).then_some(())?;
            value.split_whitespace().next()?.parse::<u64>().ok()
        })
        .sum::<u64>()
        * 1024
}

/// Resident anonymous and shared memory of `pid` (readable for any process).
fn status_bytes(pid: i32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    Some(kib_fields(&text, &["RssAnon", "RssShmem"]))
}

/// The proportional share of anonymous and shared memory of `pid` (needs the
/// right to inspect it; `None` otherwise).
fn proportional_bytes(pid: i32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    Some(kib_fields(&text, &["Pss_Anon", "Pss_Shmem"]))
}

/// Bytes of memfds and `/dev/shm` files `pid` holds open, each file counted
/// once across the tree (`seen`: device, inode and size).
fn held_files(pid: i32, seen: &mut HashSet<(u64, u64, u64)>) -> u64 {
    use std::os::unix::fs::MetadataExt as _;
    let dir = format!("/proc/{pid}/fd");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return 0;
    };
    let mut bytes = 0;
    for entry in entries.flatten() {
        let Ok(target) = std::fs::read_link(entry.path()) else {
            continue;
        };
        let target = target.to_string_lossy();
        if !(target.starts_with("/memfd:") || target.starts_with("/dev/shm/")) {
            continue;
        }
        if let Ok(meta) = std::fs::metadata(entry.path()) {
            let size = meta.blocks() * 512;
            if seen.insert((meta.dev(), meta.ino(), size)) {
                bytes += size;
            }
        }
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_fields_are_read() {
        let status =
            "Name:\tpython3\nRssAnon:\t  1000 kB\nRssFile:\t  9999 kB\nRssShmem:\t  24 kB\n";
        assert_eq!(kib_fields(status, &["RssAnon", "RssShmem"]), 1024 * 1024);
        assert_eq!(kib_fields("nothing here", &["RssAnon"]), 0);
    }

    #[test]
    fn this_process_is_measured_with_its_children() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("sleep starts");
        let me = i32::try_from(std::process::id()).expect("pid fits");
        let members = descendants_and_group(me);
        let child_pid = i32::try_from(child.id()).expect("pid fits");
        assert!(
            members.contains(&me) && members.contains(&child_pid),
            "{members:?}"
        );
        let mut tree = Tree {
            root: me,
            cgroup: None,
            limit: u64::MAX,
            members: Members::of(me),
        };
        let used = tree.measure().expect("alive");
        assert!(used > 0, "a running test process holds memory");
        let _ = child.kill();
        let _ = child.wait();
    }

    /// A `sleep` in a process group of its own, watched against `limit` bytes.
    fn watched_sleep(limit: u64) -> (tokio::process::Child, MemoryWatch) {
        let child = tokio::process::Command::new("sleep")
            .arg("30")
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .expect("sleep starts");
        let pid = Pid::from_raw(i32::try_from(child.id().expect("running")).expect("fits"));
        (child, MemoryWatch::start(pid, None, limit))
    }

    #[tokio::test]
    async fn a_bot_between_games_is_measured_less_often() {
        let (_child, watch) = watched_sleep(u64::MAX);
        watch.playing(false);
        tokio::time::sleep(Duration::from_millis(600)).await;
        let idle = watch.measurements();
        // The first after MIN_PAUSE, then one every IDLE_PAUSE: 3 in 600 ms
        // (playing, 20 ms apart, it would be near 30).
        assert!(
            (1..=5).contains(&idle),
            "{idle} measurements in 600 ms idle"
        );
        watch.playing(true);
        tokio::time::sleep(Duration::from_millis(300)).await;
        let playing = watch.measurements() - idle;
        assert!(playing >= 6, "{playing} measurements in 300 ms playing");
    }

    #[tokio::test]
    async fn a_bot_over_its_limit_between_games_is_still_killed() {
        // Any running process holds more than a byte.
        let (mut child, watch) = watched_sleep(1);
        watch.playing(false);
        let exited = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
        assert!(exited.is_ok(), "killed within the idle pause");
        let overrun = watch.overrun().expect("the watch says why");
        assert_eq!(overrun.limit, 1);
        assert!(overrun.used > 1);
    }
}
