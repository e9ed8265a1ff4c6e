//! What the scheduler says about a bot's move: how long its process tree ran on
//! a CPU and how long it was runnable but waiting for one, from per-task
//! `schedstat` (`/proc/PID/task/TID/schedstat`: on-CPU ns, run-queue wait ns,
//! time slices), and the referee's own wait for a CPU over the same span.
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

use super::charge::Measured;

/// Processes visited at most per reading: bounds the cost of a fork bomb (its
/// counters are then partial, which the fair clock's floor makes safe).
const MAX_PROCESSES: usize = 256;

/// On-CPU and run-queue-wait nanoseconds of one task, as the kernel counts them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct TaskTimes {
    cpu_ns: u64,
    wait_ns: u64,
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

/// The referee's own run-queue wait, per thread, at one instant.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RefereeTimes {
    waits: HashMap<i32, u64>,
}

impl RefereeTimes {
    /// This process's threads now; `None` without per-task schedstat.
    pub(crate) fn read() -> Option<RefereeTimes> {
        let entries = std::fs::read_dir("/proc/self/task").ok()?;
        let mut waits = HashMap::new();
        for entry in entries.flatten() {
            let Some(tid) = entry.file_name().to_str().and_then(|t| t.parse().ok()) else {
                continue;
            };
            if let Some(times) = std::fs::read_to_string(entry.path().join("schedstat"))
                .ok()
                .as_deref()
                .and_then(parse)
            {
                waits.insert(tid, times.wait_ns);
            }
        }
        (!waits.is_empty()).then_some(RefereeTimes { waits })
    }

    /// The longest any one of the referee's threads waited for a CPU from
    /// `earlier` to `self`: the most the reading of a reply can have been
    /// delayed by the referee's own scheduling (the reply is read by one thread
    /// at a time, and every thread's wait is counted here).
    pub(crate) fn longest_wait_since(&self, earlier: &RefereeTimes) -> Duration {
        let longest = self
            .waits
            .iter()
            .map(|(tid, now)| now.saturating_sub(earlier.waits.get(tid).copied().unwrap_or(*now)))
            .max()
            .unwrap_or(0);
        Duration::from_nanos(longest)
    }
}

/// The counters at the start of a move, read again to measure it.
#[derive(Clone, Debug)]
pub(crate) struct Meter {
    root: u32,
    tree: TreeTimes,
    referee: Option<RefereeTimes>,
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
        })
    }

    /// What was used since the start; `None` once the tree is gone.
    pub(crate) fn measured(&self) -> Option<Measured> {
        let tree = TreeTimes::read(self.root)?.since(&self.tree);
        let late = match (&self.referee, RefereeTimes::read()) {
            (Some(before), Some(now)) => now.longest_wait_since(before),
            _ => Duration::ZERO,
        };
        Some(Measured {
            cpu: tree.cpu,
            wait: tree.wait,
            late,
        })
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
    fields.next()?;
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
                wait_ns: 11_281_325
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
    fn the_referee_wait_is_its_slowest_thread() {
        let before = RefereeTimes {
            waits: [(1, 100), (2, 5_000_000)].into_iter().collect(),
        };
        let after = RefereeTimes {
            waits: [(1, 2_000_100), (2, 6_000_000), (3, 9_000_000)]
                .into_iter()
                .collect(),
        };
        // A thread born during the span is not counted: its wait is unknown.
        assert_eq!(after.longest_wait_since(&before), Duration::from_millis(2));
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
