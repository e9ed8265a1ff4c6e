//! What the scheduler says about a bot's move: how long its process tree ran on
//! a CPU and how long it was runnable but waiting for one, from per-task
//! `schedstat` (`/proc/PID/task/TID/schedstat`: on-CPU ns, run-queue wait ns,
//! time slices), and how late the referee was: the wait for a CPU of its
//! thread that sent the request, while it sent it, and that of the thread that
//! reads the bot's output ([`ThreadDelay`], see [`super::reader`]) between the
//! reply's arrival and its reading.
//!
//! The tree is the bot's process and its descendants, found through each
//! task's `children` file (no scan of all of `/proc`): a process that left the
//! tree by double-forking to PID 1 is not counted, nor are the last
//! milliseconds of a task that exited before the reading at the move's end.
//! Both only ever make the bot's counters smaller, so they cannot hide a slow
//! bot from the fair clock's floor (see [`super::charge`]).
//!
//! Reading is per move (before the request, after the reply, and at a
//! deadline), never per poll: a one-thread bot costs three small reads, and the
//! reading thread one `pread` of its own open counters before and after each
//! read of the bot's output.

use std::collections::HashMap;
use std::time::Duration;

/// Processes visited at most per reading: bounds the cost of a fork bomb (its
/// counters are then partial, which the fair clock's floor makes safe).
const MAX_PROCESSES: usize = 256;

/// On-CPU and run-queue-wait nanoseconds of one task, as the kernel counts them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct TaskTimes {
    cpu_ns: u64,
    wait_ns: u64,
}

/// What the scheduler counted over a move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Measured {
    /// On-CPU time of the bot's process tree.
    pub cpu: Duration,
    /// Time the bot's tasks were runnable but not running, summed.
    pub wait: Duration,
    /// How late the referee was, measured: its asking thread's wait for a
    /// CPU while it sent the request, plus its reading thread's wait for a CPU
    /// between the reply's arrival and its reading.
    pub late: Duration,
}

/// Cumulative counters of every task of a tree at one instant, by task id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct TreeTimes {
    tasks: HashMap<i32, TaskTimes>,
}

/// What a tree used between two readings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Spent {
    /// Time its tasks ran on a CPU, summed.
    pub(crate) cpu: Duration,
    /// Time its tasks were runnable but not running, summed.
    pub(crate) wait: Duration,
}

impl TreeTimes {
    /// The counters of `root` and its descendants now; `None` when `root` is
    /// gone or the host has no per-task schedstat.
    pub(crate) fn read(root: u32) -> Option<TreeTimes> {
        let mut tasks = HashMap::new();
        let mut stack = vec![root];
        let mut visited = 0usize;
        while let Some(pid) = stack.pop() {
            visited += 1;
            if visited > MAX_PROCESSES {
                break;
            }
            let Ok(entries) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
                continue;
            };
            for entry in entries.flatten() {
                let Some(tid) = entry.file_name().to_str().and_then(|t| t.parse().ok()) else {
                    continue;
                };
                let dir = entry.path();
                if let Some(times) = std::fs::read_to_string(dir.join("schedstat"))
                    .ok()
                    .as_deref()
                    .and_then(parse)
                {
                    tasks.insert(tid, times);
                }
                if let Ok(children) = std::fs::read_to_string(dir.join("children")) {
                    stack.extend(
                        children
                            .split_ascii_whitespace()
                            .filter_map(|c| c.parse::<u32>().ok()),
                    );
                }
            }
        }
        (!tasks.is_empty()).then_some(TreeTimes { tasks })
    }

    /// What was used from `earlier` to `self`: a task seen both times counts its
    /// growth, a task new since counts all it has (it started during the span).
    pub(crate) fn since(&self, earlier: &TreeTimes) -> Spent {
        let (mut cpu, mut wait) = (0u64, 0u64);
        for (tid, now) in &self.tasks {
            let before = earlier.tasks.get(tid).copied().unwrap_or_default();
            cpu = cpu.saturating_add(now.cpu_ns.saturating_sub(before.cpu_ns));
            wait = wait.saturating_add(now.wait_ns.saturating_sub(before.wait_ns));
        }
        Spent {
            cpu: Duration::from_nanos(cpu),
            wait: Duration::from_nanos(wait),
        }
    }
}

/// The run-queue wait of the referee's thread that asks for a move, at one
/// instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RefereeTimes {
    tid: i32,
    wait_ns: u64,
}

impl RefereeTimes {
    /// The calling thread now; `None` without per-task schedstat.
    pub(crate) fn read() -> Option<RefereeTimes> {
        let times = std::fs::read_to_string("/proc/thread-self/schedstat")
            .ok()
            .as_deref()
            .and_then(parse)?;
        Some(RefereeTimes {
            tid: nix::unistd::gettid().as_raw(),
            wait_ns: times.wait_ns,
        })
    }

    /// How long the same thread has waited for a CPU since (`None` once it is
    /// gone).
    pub(crate) fn wait_since(&self) -> Option<Duration> {
        let now = std::fs::read_to_string(format!("/proc/self/task/{}/schedstat", self.tid))
            .ok()
            .as_deref()
            .and_then(parse)?;
        Some(Duration::from_nanos(
            now.wait_ns.saturating_sub(self.wait_ns),
        ))
    }
}

/// The calling thread's own run-queue wait, read again and again through one
/// open `/proc/thread-self/schedstat` (`pread` at offset 0 makes the kernel
/// print it afresh: one system call a reading). Used by the thread that reads
/// a bot's output, which waits for nothing else: what its wait grows by across
/// one wait for output is how long that output sat unread.
#[derive(Debug)]
pub(crate) struct ThreadDelay {
    file: std::fs::File,
}

impl ThreadDelay {
    /// Opens the calling thread's counters; `None` without per-task schedstat.
    /// The file stays the opening thread's, whoever reads it later.
    pub(crate) fn open() -> Option<ThreadDelay> {
        let delay = ThreadDelay {
            file: std::fs::File::open("/proc/thread-self/schedstat").ok()?,
        };
        delay.read().map(|_| delay)
    }

    /// How long the thread has waited for a CPU in its life, now.
    pub(crate) fn read(&self) -> Option<Duration> {
        use std::os::unix::fs::FileExt as _;
        let mut buf = [0u8; 96];
        let n = self.file.read_at(&mut buf, 0).ok()?;
        let text = std::str::from_utf8(buf.get(..n)?).ok()?;
        parse(text).map(|t| Duration::from_nanos(t.wait_ns))
    }
}

/// The counters at the start of a move, read again to measure it.
#[derive(Clone, Debug)]
pub(crate) struct Meter {
    root: u32,
    tree: TreeTimes,
    referee: Option<RefereeTimes>,
    /// How long the referee waited for a CPU while it sent the request.
    sending: Duration,
}

impl Meter {
    /// Reads the counters of the tree of `root`; `None` when the host or the
    /// bot gives none.
    pub(crate) fn start(root: u32) -> Option<Meter> {
        if !available() {
            return None;
        }
        Some(Meter {
            root,
            tree: TreeTimes::read(root)?,
            referee: None,
            sending: Duration::ZERO,
        })
    }

    /// The move's wall clock has started: the referee's thread's counters are
    /// read now, after the clock, so a wait of the referee before the clock
    /// started can never count as lateness.
    pub(crate) fn clock_started(&mut self) {
        self.referee = RefereeTimes::read();
    }

    /// The request is sent: the referee's thread's wait for a CPU since the
    /// start is time the bot could not use (the clock had started, the request
    /// was not out).
    pub(crate) fn sent(&mut self) {
        if let Some(r) = &self.referee {
            self.sending = r.wait_since().unwrap_or_default();
        }
    }

    /// Whether a task of the tree is runnable now (state `R`): its current wait
    /// for a CPU is not in its counters until it runs, so a charge read now may
    /// be too high.
    pub(crate) fn runnable(&self) -> bool {
        let Ok(entries) = std::fs::read_dir(format!("/proc/{}/task", self.root)) else {
            return false;
        };
        entries.flatten().any(|entry| {
            std::fs::read_to_string(entry.path().join("stat"))
                .ok()
                .and_then(|stat| {
                    let rest = &stat[stat.rfind(')')? + 1..];
                    rest.split_ascii_whitespace().next().map(|s| s == "R")
                })
                .unwrap_or(false)
        })
    }

    /// What was used since the start, with `reading` the reading thread's
    /// measured lateness for the reply (zero while none has come); `None` once
    /// the tree is gone.
    pub(crate) fn measured(&self, reading: Duration) -> Option<Measured> {
        let tree = TreeTimes::read(self.root)?.since(&self.tree);
        Some(Measured {
            cpu: tree.cpu,
            wait: tree.wait,
            late: self.sending.saturating_add(reading),
        })
    }
}

/// Which of the signals of a machine's CPU contention this host gives: what
/// `arena doctor` reports. Only per-task schedstat is used to charge moves; the
/// others say how loaded the machine is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signals {
    /// `/proc/PID/task/TID/schedstat`: CPU time and run-queue wait per task.
    pub per_task: bool,
    /// `/proc/pressure/cpu`: the share of time tasks waited for a CPU (PSI).
    pub pressure: bool,
    /// `cpu.stat` of the cgroup v2 root (`/sys/fs/cgroup/cpu.stat`).
    pub cgroup_cpu_stat: bool,
}

impl Signals {
    /// What this host gives.
    pub fn detect() -> Signals {
        Signals {
            per_task: available(),
            pressure: std::fs::read_to_string("/proc/pressure/cpu")
                .is_ok_and(|t| t.starts_with("some ")),
            cgroup_cpu_stat: std::fs::read_to_string("/sys/fs/cgroup/cpu.stat")
                .is_ok_and(|t| t.contains("usage_usec")),
        }
    }
}

/// Whether this host gives per-task schedstat (the fair clock's measure): the
/// calling thread's `schedstat` parses, and the main thread's has counted CPU
/// time (a thread that has just started may not have been charged any yet).
/// Read once per process.
pub fn available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let read = |path: &str| {
        std::fs::read_to_string(path)
            .ok()
            .as_deref()
            .and_then(parse)
    };
    *AVAILABLE.get_or_init(|| {
        read("/proc/thread-self/schedstat").is_some()
            && read("/proc/self/schedstat").is_some_and(|t| t.cpu_ns > 0)
    })
}

/// The first two fields of a `schedstat` line: "on-CPU-ns wait-ns slices".
fn parse(line: &str) -> Option<TaskTimes> {
    let mut fields = line.split_ascii_whitespace();
    let cpu_ns = fields.next()?.parse().ok()?;
    let wait_ns = fields.next()?.parse().ok()?;
    let _slices: u64 = fields.next()?.parse().ok()?;
    Some(TaskTimes { cpu_ns, wait_ns })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedstat_lines_are_read() {
        assert_eq!(
            parse("1627126 11281325 5\n"),
            Some(TaskTimes {
                cpu_ns: 1_627_126,
                wait_ns: 11_281_325,
            })
        );
        assert_eq!(parse("1627126 11281325"), None, "three fields or none");
        assert_eq!(parse("x 1 2"), None);
        assert_eq!(parse(""), None);
    }

    #[test]
    fn growth_is_counted_per_task_and_new_tasks_count_whole() {
        let at = |pairs: &[(i32, u64, u64)]| TreeTimes {
            tasks: pairs
                .iter()
                .map(|&(tid, cpu_ns, wait_ns)| (tid, TaskTimes { cpu_ns, wait_ns }))
                .collect(),
        };
        let before = at(&[(10, 1_000_000, 500_000), (11, 7_000_000, 0)]);
        // 10 grew, 11 exited (lost), 12 is new.
        let after = at(&[(10, 3_000_000, 1_500_000), (12, 2_000_000, 250_000)]);
        assert_eq!(
            after.since(&before),
            Spent {
                cpu: Duration::from_millis(4),
                wait: Duration::from_micros(1250)
            }
        );
    }

    #[test]
    fn the_referee_thread_is_read_again_by_its_id() {
        if !available() {
            eprintln!("skipped: no per-task schedstat on this host");
            return;
        }
        let before = RefereeTimes::read().expect("this thread is readable");
        assert_eq!(before.tid, nix::unistd::gettid().as_raw());
        let waited = before.wait_since().expect("this thread is alive");
        assert!(waited < Duration::from_secs(10), "{waited:?}");
    }

    #[test]
    fn a_thread_reads_its_own_wait_again_and_it_grows_beside_a_busy_loop() {
        use nix::sched::{CpuSet, sched_setaffinity};
        use nix::unistd::Pid;
        if !available() {
            eprintln!("skipped: no per-task schedstat on this host");
            return;
        }
        let pin = || {
            let mut one = CpuSet::new();
            one.set(0).is_ok() && sched_setaffinity(Pid::from_raw(0), &one).is_ok()
        };
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let spinner = std::thread::spawn({
            let stop = std::sync::Arc::clone(&stop);
            move || {
                let pinned = pin();
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
                pinned
            }
        });
        let reader = std::thread::spawn(move || {
            let pinned = pin();
            let delay = ThreadDelay::open().expect("this thread's counters open");
            let first = delay.read().expect("readable");
            // Each wake-up from a sleep queues behind the busy loop on core 0.
            for _ in 0..50 {
                std::thread::sleep(Duration::from_millis(2));
            }
            let last = delay.read().expect("readable again");
            (pinned, first, last)
        });
        let (pinned, first, last) = reader.join().expect("the reading thread ends");
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let spinner_pinned = spinner.join().expect("the busy loop ends");
        assert!(last >= first, "{first:?} then {last:?}");
        if pinned && spinner_pinned {
            assert!(
                last > first,
                "waking beside a busy loop on one core is waiting: {first:?} then {last:?}"
            );
        }
    }

    #[test]
    fn a_busy_grandchild_is_counted_in_the_tree() {
        use std::os::unix::process::CommandExt as _;
        if !available() {
            eprintln!("skipped: no per-task schedstat on this host");
            return;
        }
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sh -c 'while :; do :; done' & wait"])
            .process_group(0)
            .spawn()
            .expect("sh starts");
        let root = child.id();
        std::thread::sleep(Duration::from_millis(50));
        let first = TreeTimes::read(root).expect("the tree is readable");
        std::thread::sleep(Duration::from_millis(400));
        let second = TreeTimes::read(root).expect("the tree is readable");
        let group = nix::unistd::Pid::from_raw(i32::try_from(root).unwrap_or(i32::MAX));
        let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
        let _ = child.wait();
        let spent = second.since(&first);
        assert!(second.tasks.len() >= 2, "{second:?}");
        assert!(
            spent.cpu >= Duration::from_millis(40),
            "the grandchild's busy loop is counted: {spent:?}"
        );
        assert!(
            spent.cpu + spent.wait <= Duration::from_millis(2000),
            "{spent:?}"
        );
    }
}
