//! What the scheduler says about a bot's move: how long its process tree ran on
//! a CPU and how long it was runnable but waiting for one, from per-task
//! `schedstat` (`/proc/PID/task/TID/schedstat`: on-CPU ns, run-queue wait ns,
//! time slices), and the wait for a CPU of the referee's thread that asked for
//! the move, over the same span.
//!
//! The tree is the bot's process and its descendants, found through each
//! task's `children` file (no scan of all of `/proc`): a process that left the
//! tree by double-forking to PID 1 is not counted, nor are the last
//! milliseconds of a task that exited before the reading at the move's end.
//! Both only ever make the bot's counters smaller, so they cannot hide a slow
//! bot from the fair clock's floor (see [`super::charge`]).
//!
//! Reading is per move (before the request, after the reply, and at a
//! deadline), never per poll: a one-thread bot costs three small reads.

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
    /// Times the task was put on a CPU.
    runs: u64,
}

/// What the scheduler counted over a move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Measured {
    /// On-CPU time of the bot's process tree.
    pub cpu: Duration,
    /// Time the bot's tasks were runnable but not running, summed.
    pub wait: Duration,
    /// The referee's estimated lateness: its asking thread's wait for a CPU
    /// while sending the request, plus its mean wait per wake-up during the
    /// move (for the reading of the reply).
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
    runs: u64,
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
            runs: times.runs,
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

    /// How long the same thread waited for a CPU, on average, each time it was
    /// woken since: the estimate of how late the referee read the reply (the
    /// thread also wakes for timers while the bot thinks, and its whole wait
    /// would count each of those). `None` once the thread is gone.
    pub(crate) fn wait_per_run_since(&self) -> Option<Duration> {
        let now = std::fs::read_to_string(format!("/proc/self/task/{}/schedstat", self.tid))
            .ok()
            .as_deref()
            .and_then(parse)?;
        let runs = now.runs.saturating_sub(self.runs).max(1);
        Some(Duration::from_nanos(
            now.wait_ns.saturating_sub(self.wait_ns) / runs,
        ))
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
    /// Reads the counters of the tree of `root` and of the referee; `None`
    /// when the host or the bot gives none.
    pub(crate) fn start(root: u32) -> Option<Meter> {
        if !available() {
            return None;
        }
        Some(Meter {
            root,
            tree: TreeTimes::read(root)?,
            referee: RefereeTimes::read(),
            sending: Duration::ZERO,
        })
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

    /// What was used since the start; `None` once the tree is gone.
    pub(crate) fn measured(&self) -> Option<Measured> {
        let tree = TreeTimes::read(self.root)?.since(&self.tree);
        let late = self
            .referee
            .as_ref()
            .and_then(RefereeTimes::wait_per_run_since)
            .unwrap_or_default()
            .saturating_add(self.sending);
        Some(Measured {
            cpu: tree.cpu,
            wait: tree.wait,
            late,
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

/// Whether this host gives per-task schedstat (the fair clock's measure):
/// `/proc/self/schedstat` parses and has counted this process's CPU time. Read
/// once per process.
pub fn available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        std::fs::read_to_string("/proc/thread-self/schedstat")
            .ok()
            .as_deref()
            .and_then(parse)
            .is_some_and(|t| t.cpu_ns > 0)
    })
}

/// The first two fields of a `schedstat` line: "on-CPU-ns wait-ns slices".
fn parse(line: &str) -> Option<TaskTimes> {
    let mut fields = line.split_ascii_whitespace();
    let cpu_ns = fields.next()?.parse().ok()?;
    let wait_ns = fields.next()?.parse().ok()?;
    let runs = fields.next()?.parse().ok()?;
    Some(TaskTimes {
        cpu_ns,
        wait_ns,
        runs,
    })
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
                runs: 5
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
                .map(|&(tid, cpu_ns, wait_ns)| {
                    (
                        tid,
                        TaskTimes {
                            cpu_ns,
                            wait_ns,
                            runs: 1,
                        },
                    )
                })
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
        let waited = before.wait_per_run_since().expect("this thread is alive");
        assert!(waited < Duration::from_secs(10), "{waited:?}");
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
