//! What the scheduler says about a bot's move: how long its process tree ran on
//! a CPU and how long it was runnable but waiting for one, from per-task
//! `schedstat` (`/proc/PID/task/TID/schedstat`: on-CPU ns, run-queue wait ns,
//! time slices), and how late the referee read the reply: the wait for a CPU
//! of the thread that reads the bot's output ([`ThreadDelay`], see
//! [`super::reader`]) between the reply's arrival and its reading.
//!
//! The tree is the bot's process and its descendants, found through each
//! task's `children` file (no scan of all of `/proc`): a process that left the
//! tree by double-forking to PID 1 is not in it, nor is a task that exited
//! before the reading at the move's end. Their waits are not counted (which
//! only makes the bot's forgiven wait smaller), and neither is their CPU time
//! in the tree's sum: the CPU time a move is charged comes from the bot's
//! cgroup instead ([`TreeTimes::group`], its `cpu.stat`), which counts every
//! task that was ever in it, exited or escaped (see [`super::charge`]).
//!
//! Reading is per move (before the request, after the reply, and at a
//! deadline), never per poll, through files kept open
//! ([`super::treewatch`]): a one-thread bot costs three `pread`s a reading,
//! and the reading thread a `pread` of its own open counters and a
//! `getrusage` before and after each read of the bot's output.

use std::time::Duration;

/// On-CPU and run-queue-wait nanoseconds of one task, as the kernel counts them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TaskTimes {
    cpu_ns: u64,
    wait_ns: u64,
}

/// What the scheduler counted over a move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Measured {
    /// On-CPU time over the move of everything the bot ran: from its cgroup
    /// where it has one ([`Measured::whole`]), else its live process tree's.
    pub cpu: Duration,
    /// On-CPU time the bot used since its previous reply (or since the game's
    /// `newgame`), before this move's request: its use of the opponent's
    /// time, charged to this move. Zero without a cgroup.
    pub ahead: Duration,
    /// Time the bot's live tasks were runnable but not running, summed.
    pub wait: Duration,
    /// How late the referee was, measured: the time from the clock's start
    /// to the request's write, plus its reading thread's wait for a CPU
    /// between the reply's arrival and its reading.
    pub late: Duration,
    /// Whether `cpu` and `ahead` come from the bot's cgroup, and so count
    /// every task it ever started: alive, exited or escaped from its tree.
    pub whole: bool,
}

impl Measured {
    /// The CPU time the move is charged at least: during it and ahead of it.
    pub fn cpu_charged(&self) -> Duration {
        self.cpu.saturating_add(self.ahead)
    }
}

/// Cumulative counters of every task of a tree at one instant, sorted by task
/// id, and of the bot's cgroup (read by [`super::treewatch::TreeWatch`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct TreeTimes {
    tasks: Vec<(i32, TaskTimes)>,
    /// The CPU time of every task ever in the bot's cgroup, where it has one.
    group: Option<Duration>,
}

/// What a tree used between two readings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Spent {
    /// Time its tasks ran on a CPU, summed: all of the cgroup's where both
    /// readings have it ([`Spent::whole`]), else the live tree's.
    pub(crate) cpu: Duration,
    /// Time its live tasks were runnable but not running, summed.
    pub(crate) wait: Duration,
    /// Whether `cpu` is the cgroup's.
    pub(crate) whole: bool,
}

impl TreeTimes {
    /// The counters of a tree's tasks, in any order (a task listed twice
    /// counts once).
    pub(crate) fn from_tasks(mut tasks: Vec<(i32, TaskTimes)>) -> TreeTimes {
        tasks.sort_unstable_by_key(|&(tid, _)| tid);
        tasks.dedup_by_key(|&mut (tid, _)| tid);
        TreeTimes { tasks, group: None }
    }

    /// The same, with the bot's cgroup's CPU time read with them.
    #[must_use]
    pub(crate) fn with_group(mut self, group: Option<Duration>) -> TreeTimes {
        self.group = group;
        self
    }

    /// The bot's cgroup's CPU time at this reading, where it has one.
    pub(crate) fn group(&self) -> Option<Duration> {
        self.group
    }

    /// How many tasks were read.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Whether task `tid` was read.
    #[cfg(test)]
    pub(crate) fn has(&self, tid: i32) -> bool {
        self.tasks.binary_search_by_key(&tid, |&(t, _)| t).is_ok()
    }

    /// What was used from `earlier` to `self`: a task seen both times counts its
    /// growth, a task new since counts all it has (it started during the span).
    pub(crate) fn since(&self, earlier: &TreeTimes) -> Spent {
        let (mut cpu, mut wait) = (0u64, 0u64);
        for (tid, now) in &self.tasks {
            let before = earlier
                .tasks
                .binary_search_by_key(tid, |&(t, _)| t)
                .ok()
                .and_then(|i| earlier.tasks.get(i))
                .map(|&(_, times)| times)
                .unwrap_or_default();
            cpu = cpu.saturating_add(now.cpu_ns.saturating_sub(before.cpu_ns));
            wait = wait.saturating_add(now.wait_ns.saturating_sub(before.wait_ns));
        }
        match (self.group, earlier.group) {
            (Some(now), Some(before)) => Spent {
                cpu: now.saturating_sub(before),
                wait: Duration::from_nanos(wait),
                whole: true,
            },
            _ => Spent {
                cpu: Duration::from_nanos(cpu),
                wait: Duration::from_nanos(wait),
                whole: false,
            },
        }
    }
}

/// The calling thread's own run-queue wait, read again and again through one
/// open `/proc/thread-self/schedstat` (`pread` at offset 0 makes the kernel
/// print it afresh: one system call a reading), with its context switches
/// (`getrusage(RUSAGE_THREAD)`). Used by the thread that reads a bot's output
/// to measure how long output sat unread (see [`WaitMark::lateness_until`]).
#[derive(Debug)]
pub(crate) struct ThreadDelay {
    file: std::fs::File,
}

/// The calling thread's counters at one instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WaitMark {
    /// Run-queue wait in its life.
    wait: Duration,
    /// Times it gave up its CPU to wait for something (`ru_nvcsw`).
    voluntary: libc::c_long,
    /// Times the scheduler took its CPU away (`ru_nivcsw`).
    involuntary: libc::c_long,
}

impl ThreadDelay {
    /// Opens the calling thread's counters; `None` without per-task schedstat.
    /// Only the opening thread may [`ThreadDelay::mark`] (the file is its own,
    /// and so are the context switches).
    pub(crate) fn open() -> Option<ThreadDelay> {
        let delay = ThreadDelay {
            file: std::fs::File::open("/proc/thread-self/schedstat").ok()?,
        };
        delay.mark().map(|_| delay)
    }

    /// The opening thread's counters now.
    pub(crate) fn mark(&self) -> Option<WaitMark> {
        use nix::sys::resource::{UsageWho, getrusage};
        use std::os::unix::fs::FileExt as _;
        let mut buf = [0u8; 96];
        let n = self.file.read_at(&mut buf, 0).ok()?;
        let text = std::str::from_utf8(buf.get(..n)?).ok()?;
        let times = parse(text)?;
        let usage = getrusage(UsageWho::RUSAGE_THREAD).ok()?;
        Some(WaitMark {
            wait: Duration::from_nanos(times.wait_ns),
            voluntary: usage.voluntary_context_switches(),
            involuntary: usage.involuntary_context_switches(),
        })
    }
}

impl WaitMark {
    /// The run-queue wait from this mark to `later`, whatever happened.
    pub(crate) fn waited_until(&self, later: &WaitMark) -> Duration {
        later.wait.saturating_sub(self.wait)
    }

    /// How long output sat unread, from this mark (taken just before the
    /// thread blocks waiting for output) to `later` (just after it has read):
    /// the run-queue wait between them, but only when the thread blocked
    /// exactly once (the wait for output) and was never preempted. Then that
    /// wait began when the output woke it and ended when it ran: exactly the
    /// output's wait to be read. Otherwise part of the wait may lie before the
    /// output came (the thread preempted before it blocked, or output already
    /// there when it looked, so it never blocked), and none of it is counted:
    /// an unmeasured lateness is charged to the bot, never a bot's time
    /// forgiven.
    pub(crate) fn lateness_until(&self, later: &WaitMark) -> Duration {
        let blocked_once = later.voluntary - self.voluntary == 1;
        let preempted = later.involuntary != self.involuntary;
        if blocked_once && !preempted {
            later.wait.saturating_sub(self.wait)
        } else {
            Duration::ZERO
        }
    }
}

/// The counters at the start of a move, read again to measure it.
#[derive(Clone, Debug)]
pub(crate) struct Meter {
    tree: TreeTimes,
    /// How long after the clock started the request was handed to the kernel.
    sending: Duration,
    /// The cgroup's CPU time used before the move since the bot's previous
    /// reply (see [`Measured::ahead`]).
    ahead: Duration,
}

impl Meter {
    /// A move measured from the tree's counters `tree` at its start, the
    /// bot's cgroup having counted `since_reply` when its previous reply was
    /// read (or its game began).
    pub(crate) fn new(tree: TreeTimes, since_reply: Option<Duration>) -> Meter {
        let ahead = tree
            .group
            .zip(since_reply)
            .map_or(Duration::ZERO, |(now, then)| now.saturating_sub(then));
        Meter {
            tree,
            sending: Duration::ZERO,
            ahead,
        }
    }

    /// Whether the move is measured by the bot's cgroup, which counts every
    /// task it ever started (see [`Measured::whole`]).
    pub(crate) fn whole(&self) -> bool {
        self.tree.group.is_some()
    }

    /// The request was handed to the kernel `sending` after the clock
    /// started (stamped just before the write): time the bot could not use,
    /// whatever the referee did with it (ran, or waited for a CPU).
    pub(crate) fn sent(&mut self, sending: Duration) {
        self.sending = sending;
    }

    /// What was used from the start to the tree's counters `now`, with
    /// `reading` the reading thread's measured lateness for the reply (zero
    /// while none has come).
    pub(crate) fn measured(&self, reading: Duration, now: &TreeTimes) -> Measured {
        let tree = now.since(&self.tree);
        Measured {
            cpu: tree.cpu,
            ahead: if tree.whole {
                self.ahead
            } else {
                Duration::ZERO
            },
            wait: tree.wait,
            late: self.sending.saturating_add(reading),
            whole: tree.whole,
        }
    }
}

/// Which of the signals of a machine's CPU contention this host gives: what
/// `arena doctor` reports. Per-task schedstat measures the waits the fair
/// clock forgives; pressure says how loaded the machine is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signals {
    /// `/proc/PID/task/TID/schedstat`: CPU time and run-queue wait per task.
    pub per_task: bool,
    /// `/proc/pressure/cpu`: the share of time tasks waited for a CPU (PSI).
    pub pressure: bool,
}

impl Signals {
    /// What this host gives.
    pub fn detect() -> Signals {
        Signals {
            per_task: available(),
            pressure: std::fs::read_to_string("/proc/pressure/cpu")
                .is_ok_and(|t| t.starts_with("some ")),
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
        // A process that has not been switched out since it started may show
        // no CPU time yet (the kernel adds it up at a tick or a switch): a
        // sleep is a switch. Only a host without the counters stays at zero
        // (the line reads "0 0 0" there).
        read("/proc/thread-self/schedstat").is_some()
            && (0..5).any(|attempt| {
                if attempt > 0 {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                read("/proc/self/schedstat").is_some_and(|t| t.cpu_ns > 0)
            })
    })
}

/// The first two fields of a `schedstat` line: "on-CPU-ns wait-ns slices".
pub(crate) fn parse(line: &str) -> Option<TaskTimes> {
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
        let at = |pairs: &[(i32, u64, u64)]| {
            TreeTimes::from_tasks(
                pairs
                    .iter()
                    .rev()
                    .map(|&(tid, cpu_ns, wait_ns)| (tid, TaskTimes { cpu_ns, wait_ns }))
                    .collect(),
            )
        };
        let before = at(&[(10, 1_000_000, 500_000), (11, 7_000_000, 0)]);
        // 10 grew, 11 exited (lost), 12 is new.
        let after = at(&[(10, 3_000_000, 1_500_000), (12, 2_000_000, 250_000)]);
        assert_eq!(
            after.since(&before),
            Spent {
                cpu: Duration::from_millis(4),
                wait: Duration::from_micros(1250),
                whole: false,
            }
        );
        // With the cgroup read both times, its CPU time is the move's: the
        // exited task 11's last 9 ms, which no live task shows, included.
        let before = before.with_group(Some(Duration::from_millis(8)));
        let after = after.with_group(Some(Duration::from_millis(21)));
        assert_eq!(
            after.since(&before),
            Spent {
                cpu: Duration::from_millis(13),
                wait: Duration::from_micros(1250),
                whole: true,
            }
        );
        let meter = Meter::new(before.clone(), Some(Duration::from_millis(5)));
        let m = meter.measured(Duration::ZERO, &after);
        assert_eq!(
            (m.cpu, m.ahead, m.whole, m.cpu_charged()),
            (
                Duration::from_millis(13),
                Duration::from_millis(3),
                true,
                Duration::from_millis(16)
            ),
            "3 ms used since the previous reply are charged to this move"
        );
        // One reading without the group: the tree's sum, nothing ahead.
        let m = Meter::new(before, Some(Duration::from_millis(5)))
            .measured(Duration::ZERO, &after.with_group(None));
        assert_eq!(
            (m.cpu, m.ahead, m.whole),
            (Duration::from_millis(4), Duration::ZERO, false)
        );
    }

    #[test]
    #[cfg_attr(
        not(has_schedstat),
        ignore = "needs the kernel's per-task schedstat (/proc/PID/task/TID/schedstat)"
    )]
    fn a_thread_reads_its_own_wait_again_and_it_grows_beside_a_busy_loop() {
        use nix::sched::{CpuSet, sched_setaffinity};
        use nix::unistd::Pid;
        assert!(
            available(),
            "no per-task schedstat here, although build.rs found it"
        );
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
            let first = delay.mark().expect("readable");
            // Each wake-up from a sleep queues behind the busy loop on core 0.
            let mut one_sleep = Duration::ZERO;
            for _ in 0..50 {
                let before = delay.mark().expect("readable");
                std::thread::sleep(Duration::from_millis(2));
                let after = delay.mark().expect("readable");
                one_sleep = one_sleep.max(before.lateness_until(&after));
            }
            // A wake-up may be let in at once (EEVDF gives a waking task its lag):
            // what always waits is running beside the busy loop. Spin 50 ms of
            // CPU on the same core: the two share it, so each waits its turn.
            let spun = std::time::Instant::now();
            let cpu = || {
                nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_THREAD)
                    .map(|u| {
                        let t = u.user_time();
                        Duration::from_micros(
                            u64::try_from(t.tv_sec()).unwrap_or(0) * 1_000_000
                                + u64::try_from(t.tv_usec()).unwrap_or(0),
                        )
                    })
                    .unwrap_or_default()
            };
            let cpu_start = cpu();
            while cpu().saturating_sub(cpu_start) < Duration::from_millis(50)
                && spun.elapsed() < Duration::from_secs(5)
            {
                std::hint::spin_loop();
            }
            let last = delay.mark().expect("readable again");
            (pinned, first, last, one_sleep)
        });
        let (pinned, first, last, one_sleep) = reader.join().expect("the reading thread ends");
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let spinner_pinned = spinner.join().expect("the busy loop ends");
        assert!(last.wait >= first.wait, "{first:?} then {last:?}");
        assert!(
            last.voluntary >= first.voluntary + 50,
            "{first:?} then {last:?}"
        );
        assert_eq!(
            first.lateness_until(&last),
            Duration::ZERO,
            "fifty waits are not one wake-up"
        );
        if pinned && spinner_pinned {
            assert!(
                last.wait > first.wait,
                "running beside a busy loop on one core is waiting: {first:?} then {last:?} \
                 (longest wait of one wake-up: {one_sleep:?})"
            );
        }
    }

    /// The fair clock's reads for one move of a one-thread bot, timed: the
    /// tree before the request and after the reply, and the reading thread's
    /// two marks of its own counters (`pread` and `getrusage` each). A benchmark, not a timed assertion:
    /// `cargo test --release -p referee -- --ignored --nocapture counter_reads`.
    #[test]
    #[ignore = "a benchmark: prints the cost, asserts nothing about it"]
    fn counter_reads_per_move_cost() {
        assert!(
            available(),
            "no per-task schedstat here, although build.rs found it"
        );
        let mut child = std::process::Command::new("sleep")
            .arg("60")
            .spawn()
            .expect("sleep starts");
        let own = ThreadDelay::open().expect("this thread's counters");
        // The child in a group of its own where one can be made, as a bot is:
        // each reading then reads the group's `cpu.stat` too.
        let group = crate::bot::sandbox::cgroup::accounting()
            .ok()
            .and_then(|base| base.create(&crate::bot::ResourceLimits::NONE).ok());
        if let Some(group) = &group {
            std::fs::write(group.path().join("cgroup.procs"), child.id().to_string())
                .expect("the child joins the group");
        }
        std::thread::sleep(Duration::from_millis(100));
        let moves = 20_000u32;
        for with_group in [false, true] {
            let cpu_stat = group
                .as_ref()
                .filter(|_| with_group)
                .and_then(|g| g.open_cpu_stat());
            if with_group && cpu_stat.is_none() {
                eprintln!("no cgroup here: the reading with a group is not measured");
                continue;
            }
            let mut watch =
                super::super::treewatch::TreeWatch::new(child.id()).with_group(cpu_stat);
            let started = std::time::Instant::now();
            for _ in 0..moves {
                let start = watch.read(true).expect("the child is readable");
                assert!(!start.runnable, "sleep is asleep");
                let mut meter = Meter::new(start.times, None);
                meter.sent(Duration::ZERO);
                let before = own.mark().expect("readable");
                let after = own.mark().expect("readable");
                let end = watch.read(false).expect("the child is readable");
                let measured = meter.measured(before.lateness_until(&after), &end.times);
                assert!(measured.cpu < Duration::from_millis(100));
                assert_eq!(measured.whole, with_group);
            }
            let per_move = started.elapsed() / moves;
            eprintln!(
                "counter reads per move of a one-thread bot{}: {:.1} us",
                if with_group {
                    ", its cgroup's cpu.stat too"
                } else {
                    ""
                },
                per_move.as_secs_f64() * 1e6
            );
        }
        let _ = child.kill();
        let _ = child.wait();
    }

    #[test]
    #[cfg_attr(
        not(has_schedstat),
        ignore = "needs the kernel's per-task schedstat (/proc/PID/task/TID/schedstat)"
    )]
    fn a_busy_grandchild_is_counted_in_the_tree() {
        use std::os::unix::process::CommandExt as _;
        assert!(
            available(),
            "no per-task schedstat here, although build.rs found it"
        );
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sh -c 'while :; do :; done' & wait"])
            .process_group(0)
            .spawn()
            .expect("sh starts");
        let root = child.id();
        std::thread::sleep(Duration::from_millis(50));
        let mut watch = super::super::treewatch::TreeWatch::new(root);
        let first = watch.read(false).expect("the tree is readable").times;
        std::thread::sleep(Duration::from_millis(400));
        let second = watch.read(false).expect("the tree is readable").times;
        let group = nix::unistd::Pid::from_raw(i32::try_from(root).unwrap_or(i32::MAX));
        let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
        let _ = child.wait();
        let spent = second.since(&first);
        assert!(second.tasks.len() >= 2, "{second:?}");
        // A busy loop is always running or waiting to run: its CPU time and its
        // wait add up to the 400 ms however loaded the machine is.
        assert!(
            spent.cpu > Duration::ZERO && spent.cpu + spent.wait >= Duration::from_millis(200),
            "the grandchild's busy loop is counted: {spent:?}"
        );
        assert!(
            spent.cpu + spent.wait <= Duration::from_millis(2000),
            "{spent:?}"
        );
    }
}
