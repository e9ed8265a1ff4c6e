//! A bot's process tree's scheduler counters, read again and again through
//! `/proc` files kept open between readings.
//!
//! Why keep them open: the fair clock reads the tree at every move's start and
//! end (see [`super::schedstat`]). Listing `/proc/PID/task` and opening,
//! reading and closing each task's `schedstat`, `children` and `stat` every
//! time cost a one-thread bot about 20 µs a reading, which halved the games a
//! second of instant bots. A file kept open is printed afresh by the kernel at
//! each `pread` from offset 0: one system call a file. The task list is read
//! again only when a process's thread count (the link count of its
//! `/proc/PID/task`) changes, and a new child shows in its parent's
//! `children`. A task's `stat` (fifty fields the kernel prints each time) is
//! read only when its state is asked for: at a move's start and a deadline.
//!
//! A descriptor held for a task that has exited reads as an error (it names
//! that task, not a later one with its number), so a gone task or process
//! drops out at the next reading. At most [`MAX_OPEN_FILES`] descriptors are
//! held per tree, the bot's own tasks first: a bot with hundreds of threads or
//! processes cannot use up the referee's descriptors; its other tasks are read
//! by opening their files each time, as before.

use std::fs::File;
use std::io::Read as _;
use std::os::unix::fs::FileExt as _;
use std::sync::{Arc, Mutex, PoisonError};

use super::schedstat::{TaskTimes, TreeTimes};

/// Processes visited at most per reading: bounds the cost of a fork bomb (its
/// counters are then partial, which the fair clock's floor makes safe).
const MAX_PROCESSES: usize = 256;

/// Descriptors kept open per tree: a process of five threads (each task's
/// `schedstat`, `children` and `stat`), or the few processes of a bot
/// started through a shell or a launcher.
const MAX_OPEN_FILES: usize = 16;

/// Bytes read at most from one file: a `children` list of thousands of
/// processes is cut (the walk stops at [`MAX_PROCESSES`] anyway).
const MAX_FILE_BYTES: usize = 64 * 1024;

/// The tree's counters at one instant, and whether one of its tasks was
/// runnable (asked for only where it matters: [`TreeWatch::read`]).
#[derive(Debug)]
pub(crate) struct TreeReading {
    pub(crate) times: TreeTimes,
    pub(crate) runnable: bool,
}

/// The open counters of a bot's process tree, from its root process, and of
/// its cgroup.
#[derive(Debug)]
pub(crate) struct TreeWatch {
    root: u32,
    processes: Vec<Process>,
    buf: Vec<u8>,
    /// The bot's cgroup's `cpu.stat`, read with the tree (the CPU time of
    /// every task ever in the group).
    group: Option<File>,
}

/// One process of the tree: where its tasks are listed, and its tasks.
#[derive(Debug)]
struct Process {
    pid: u32,
    /// `/proc/PID/task`, whose link count is its number of threads plus two
    /// (a `stat` of the directory: no text for the kernel to print, unlike
    /// the process's `stat` file).
    task_dir: String,
    tasks: Vec<Task>,
}

/// What one reading of a task found.
struct Counted {
    times: TaskTimes,
    children: Vec<u32>,
    runnable: bool,
}

/// One task (thread) of a process.
#[derive(Debug)]
struct Task {
    tid: i32,
    schedstat: ProcFile,
    children: ProcFile,
    /// Its `stat`, for its state; opened the first time a state is asked for
    /// (the kernel prints fifty fields: read only where the state matters).
    stat: Option<ProcFile>,
}

/// One `/proc` file: kept open while the tree's budget allows, else opened at
/// each reading.
#[derive(Debug)]
struct ProcFile {
    path: String,
    file: Option<File>,
}

impl ProcFile {
    /// Opens `path` if `open` (the tree's descriptors held) is under the
    /// budget; a file that cannot be opened now is tried again at each read.
    fn new(path: String, open: &mut usize) -> ProcFile {
        let file = if *open < MAX_OPEN_FILES {
            File::open(&path).ok()
        } else {
            None
        };
        *open += usize::from(file.is_some());
        ProcFile { path, file }
    }

    fn is_open(&self) -> bool {
        self.file.is_some()
    }

    /// The whole file into `buf` (cleared first, at most [`MAX_FILE_BYTES`]);
    /// `None` once what it names is gone.
    fn read(&self, buf: &mut Vec<u8>) -> Option<()> {
        buf.clear();
        match &self.file {
            Some(file) => {
                let mut chunk = [0u8; 1024];
                while buf.len() < MAX_FILE_BYTES {
                    let offset = u64::try_from(buf.len()).ok()?;
                    let n = file.read_at(&mut chunk, offset).ok()?;
                    if n == 0 {
                        break;
                    }
                    buf.extend_from_slice(chunk.get(..n)?);
                }
            }
            None => {
                let file = File::open(&self.path).ok()?;
                let mut limited = file.take(u64::try_from(MAX_FILE_BYTES).ok()?);
                limited.read_to_end(buf).ok()?;
            }
        }
        Some(())
    }
}

/// The state (`R`, `S`, …) of a `stat` line: its third field, after the
/// command name's closing parenthesis (a name may hold spaces and parentheses).
fn state(stat: &[u8]) -> Option<u8> {
    let close = stat.iter().rposition(|&b| b == b')')?;
    stat.get(close + 1..)?
        .iter()
        .copied()
        .find(|b| !b.is_ascii_whitespace())
}

impl Task {
    fn new(pid: u32, tid: i32, open: &mut usize) -> Task {
        Task {
            tid,
            schedstat: ProcFile::new(format!("/proc/{pid}/task/{tid}/schedstat"), open),
            children: ProcFile::new(format!("/proc/{pid}/task/{tid}/children"), open),
            stat: None,
        }
    }

    /// The task's counters, its children and, if `with_state`, whether it is
    /// runnable; `None` once it has exited.
    fn read(
        &mut self,
        pid: u32,
        with_state: bool,
        buf: &mut Vec<u8>,
        open: &mut usize,
    ) -> Option<Counted> {
        self.schedstat.read(buf)?;
        let times = std::str::from_utf8(buf)
            .ok()
            .and_then(super::schedstat::parse)?;
        let children = match self.children.read(buf) {
            Some(()) => String::from_utf8_lossy(buf)
                .split_ascii_whitespace()
                .filter_map(|c| c.parse::<u32>().ok())
                .collect(),
            None => Vec::new(),
        };
        let runnable = with_state && {
            let tid = self.tid;
            let stat = self
                .stat
                .get_or_insert_with(|| ProcFile::new(format!("/proc/{pid}/task/{tid}/stat"), open));
            stat.read(buf)
                .and_then(|()| state(buf))
                .is_some_and(|state| state == b'R')
        };
        Some(Counted {
            times,
            children,
            runnable,
        })
    }

    fn open_files(&self) -> usize {
        usize::from(self.schedstat.is_open())
            + usize::from(self.children.is_open())
            + self.stat.as_ref().map_or(0, |s| usize::from(s.is_open()))
    }
}

impl Process {
    fn new(pid: u32) -> Process {
        Process {
            pid,
            task_dir: format!("/proc/{pid}/task"),
            tasks: Vec::new(),
        }
    }

    fn open_files(&self) -> usize {
        self.tasks.iter().map(Task::open_files).sum::<usize>()
    }

    /// How many threads the process has; `None` once it is gone.
    fn threads(&self) -> Option<usize> {
        use std::os::unix::fs::MetadataExt as _;
        let links = std::fs::metadata(&self.task_dir).ok()?.nlink();
        usize::try_from(links.checked_sub(2)?)
            .ok()
            .filter(|&n| n > 0)
    }

    /// Lists the process's tasks again, keeping those already open; `None`
    /// once the process is gone.
    fn relist(&mut self, open: &mut usize) -> Option<()> {
        let mut tids: Vec<i32> = std::fs::read_dir(&self.task_dir)
            .ok()?
            .flatten()
            .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
            .collect();
        tids.sort_unstable();
        let mut kept = std::mem::take(&mut self.tasks);
        kept.retain(|task| {
            let listed = tids.binary_search(&task.tid).is_ok();
            if !listed {
                *open = open.saturating_sub(task.open_files());
            }
            listed
        });
        for tid in tids {
            match kept.iter().position(|task| task.tid == tid) {
                Some(i) => self.tasks.push(kept.swap_remove(i)),
                None => self.tasks.push(Task::new(self.pid, tid, open)),
            }
        }
        Some(())
    }
}

impl TreeWatch {
    /// Watches the tree of `root` (nothing is opened before the first reading).
    pub(crate) fn new(root: u32) -> TreeWatch {
        TreeWatch {
            root,
            processes: Vec::new(),
            buf: Vec::with_capacity(512),
            group: None,
        }
    }

    /// Reads the bot's cgroup's CPU time, from its open `cpu.stat`, with
    /// every reading of the tree.
    #[must_use]
    pub(crate) fn with_group(mut self, cpu_stat: Option<File>) -> TreeWatch {
        self.group = cpu_stat;
        self
    }

    /// The counters of every task of the tree now, and, if `states` is asked
    /// for, whether one of them is runnable (state `R`: running or waiting
    /// for a CPU); `None` once no task of the tree can be read.
    pub(crate) fn read(&mut self, states: bool) -> Option<TreeReading> {
        let mut open: usize = self.processes.iter().map(Process::open_files).sum();
        let mut times: Vec<(i32, TaskTimes)> = Vec::with_capacity(4);
        let mut runnable = false;
        let mut walked: Vec<u32> = Vec::with_capacity(self.processes.len().max(1));
        let mut gone: Vec<u32> = Vec::new();
        let mut stack = vec![self.root];
        while let Some(pid) = stack.pop() {
            if walked.len() >= MAX_PROCESSES {
                break;
            }
            if walked.contains(&pid) {
                continue;
            }
            walked.push(pid);
            let index = match self.processes.iter().position(|p| p.pid == pid) {
                Some(i) => i,
                None => {
                    self.processes.push(Process::new(pid));
                    self.processes.len() - 1
                }
            };
            let Some(process) = self.processes.get_mut(index) else {
                continue;
            };
            let buf = &mut self.buf;
            let Some(threads) = process.threads() else {
                gone.push(pid);
                continue;
            };
            if threads != process.tasks.len() && process.relist(&mut open).is_none() {
                gone.push(pid);
                continue;
            }
            let mut exited: Vec<i32> = Vec::new();
            let mut read: Vec<i32> = Vec::with_capacity(process.tasks.len());
            for pass in 0..2 {
                for task in &mut process.tasks {
                    if read.contains(&task.tid) {
                        continue;
                    }
                    let Some(counted) = task.read(pid, states && !runnable, buf, &mut open) else {
                        exited.push(task.tid);
                        continue;
                    };
                    read.push(task.tid);
                    times.push((task.tid, counted.times));
                    runnable |= counted.runnable;
                    stack.extend(counted.children);
                }
                if exited.is_empty() || pass == 1 {
                    break;
                }
                // A thread ended: one may have started in its place with the
                // count unchanged. List them again now, so a new thread's time
                // is not missed from this reading.
                process.tasks.retain(|task| !exited.contains(&task.tid));
                exited.clear();
                if process.relist(&mut open).is_none() {
                    break;
                }
            }
            process.tasks.retain(|task| !exited.contains(&task.tid));
        }
        // A process gone or out of the tree is forgotten, and its files closed.
        self.processes
            .retain(|p| walked.contains(&p.pid) && !gone.contains(&p.pid));
        // Read after the tasks: a task that exits between the two readings
        // has its CPU time in the group's by then.
        let group = self
            .group
            .as_ref()
            .and_then(super::sandbox::cgroup::cpu_usage);
        (!times.is_empty()).then(|| TreeReading {
            times: TreeTimes::from_tasks(times).with_group(group),
            runnable,
        })
    }
}

/// One [`TreeWatch`] for the session (a move's start, a deadline) and the
/// thread that reads the bot's output (the counters with a reply): one set of
/// open files per bot.
#[derive(Clone, Debug)]
pub(crate) struct SharedWatch(Arc<Mutex<TreeWatch>>);

impl SharedWatch {
    /// Watches the tree of `root`, and its cgroup through `cpu_stat`; `None`
    /// where the host has no per-task schedstat.
    pub(crate) fn new(root: u32, cpu_stat: Option<File>) -> Option<SharedWatch> {
        super::schedstat::available().then(|| {
            SharedWatch(Arc::new(Mutex::new(
                TreeWatch::new(root).with_group(cpu_stat),
            )))
        })
    }

    /// [`TreeWatch::read`], by whichever thread asks.
    pub(crate) fn read(&self, states: bool) -> Option<TreeReading> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .read(states)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn watch_of(root: u32) -> Option<TreeWatch> {
        super::super::schedstat::available().then(|| TreeWatch::new(root))
    }

    fn this_process() -> u32 {
        std::process::id()
    }

    fn tid() -> i32 {
        nix::unistd::gettid().as_raw()
    }

    #[test]
    fn the_state_is_read_past_a_name_with_spaces_and_parentheses() {
        let line = b"4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 7 0 1234 \
                     1000 200 18446744073709551615\n";
        assert_eq!(state(line), Some(b'S'));
        assert_eq!(state(b"1 (R) x) D 1 2"), Some(b'D'));
        assert_eq!(state(b"1 (x)"), None, "no state");
        assert_eq!(state(b"no parenthesis R"), None);
    }

    #[test]
    #[cfg_attr(
        not(has_schedstat),
        ignore = "needs the kernel's per-task schedstat (/proc/PID/task/TID/schedstat)"
    )]
    fn a_thread_started_after_the_first_reading_is_counted_in_the_next() {
        let Some(mut watch) = watch_of(this_process()) else {
            panic!("no per-task schedstat here, although build.rs found it");
        };
        let first = watch.read(false).expect("this process is readable");
        assert!(first.times.has(tid()), "the calling thread is in the tree");
        let (tell, told) = std::sync::mpsc::channel();
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            let _ = tell.send(tid());
            let _ = stopped.recv();
        });
        let new = told.recv().expect("the thread says its id");
        assert!(!first.times.has(new));
        let second = watch.read(false).expect("this process is readable");
        assert!(second.times.has(new), "a new thread is listed");
        drop(stop);
        thread.join().expect("the thread ends");
        // Gone once it has ended (a thread leaves the group at once).
        let mut third = watch.read(false).expect("this process is readable");
        for _ in 0..100 {
            if !third.times.has(new) {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
            third = watch.read(false).expect("this process is readable");
        }
        assert!(!third.times.has(new), "an ended thread drops out");
    }

    #[test]
    #[cfg_attr(
        not(has_schedstat),
        ignore = "needs the kernel's per-task schedstat (/proc/PID/task/TID/schedstat)"
    )]
    fn a_thread_started_in_place_of_one_that_ended_is_counted_in_the_same_reading() {
        let Some(mut watch) = watch_of(this_process()) else {
            panic!("no per-task schedstat here, although build.rs found it");
        };
        let first = std::thread::spawn(tid);
        let gone = first.join().expect("the thread ends");
        let (tell, told) = std::sync::mpsc::channel();
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let (hold, held) = std::sync::mpsc::channel::<()>();
        // One thread alive across the swap, so the count stays the same.
        let old = std::thread::spawn(move || {
            let _ = tell.send(tid());
            let _ = held.recv();
        });
        let old_tid = told.recv().expect("the thread says its id");
        assert!(watch.read(false).expect("readable").times.has(old_tid));
        drop(hold);
        old.join().expect("the thread ends");
        let (tell, told) = std::sync::mpsc::channel();
        let new = std::thread::spawn(move || {
            let _ = tell.send(tid());
            let _ = stopped.recv();
        });
        let new_tid = told.recv().expect("the thread says its id");
        let reading = watch.read(false).expect("readable");
        drop(stop);
        new.join().expect("the thread ends");
        assert!(
            reading.times.has(new_tid),
            "the new thread is counted at once"
        );
        assert!(!reading.times.has(old_tid) && !reading.times.has(gone));
    }

    #[test]
    #[cfg_attr(
        not(has_schedstat),
        ignore = "needs the kernel's per-task schedstat (/proc/PID/task/TID/schedstat)"
    )]
    fn many_threads_are_all_counted_with_few_descriptors_held() {
        let Some(mut watch) = watch_of(this_process()) else {
            panic!("no per-task schedstat here, although build.rs found it");
        };
        let (tell, told) = std::sync::mpsc::channel();
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let stopped = std::sync::Arc::new(std::sync::Mutex::new(stopped));
        let threads: Vec<_> = (0..40)
            .map(|_| {
                let tell = tell.clone();
                let stopped = std::sync::Arc::clone(&stopped);
                std::thread::spawn(move || {
                    let _ = tell.send(tid());
                    let _ = stopped.lock().map(|s| s.recv());
                })
            })
            .collect();
        let tids: Vec<i32> = (0..40).filter_map(|_| told.recv().ok()).collect();
        let reading = watch.read(true).expect("this process is readable");
        let again = watch.read(true).expect("this process is readable");
        drop(stop);
        for thread in threads {
            thread.join().expect("the thread ends");
        }
        for t in &tids {
            assert!(reading.times.has(*t) && again.times.has(*t), "thread {t}");
        }
        assert!(reading.runnable, "the reading thread itself is running");
        let open: usize = watch.processes.iter().map(Process::open_files).sum();
        assert!(
            (1..=MAX_OPEN_FILES).contains(&open),
            "{open} descriptors held"
        );
    }

    #[test]
    #[cfg_attr(
        not(has_schedstat),
        ignore = "needs the kernel's per-task schedstat (/proc/PID/task/TID/schedstat)"
    )]
    fn a_reaped_child_reads_as_gone_and_a_sleeping_one_as_not_runnable() {
        let mut child = std::process::Command::new("sleep")
            .arg("60")
            .spawn()
            .expect("sleep starts");
        let Some(mut watch) = watch_of(child.id()) else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("no per-task schedstat here, although build.rs found it");
        };
        let mut asleep = false;
        for _ in 0..200 {
            let reading = watch.read(true).expect("sleep is readable");
            asleep = !reading.runnable;
            if asleep {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = child.kill();
        let _ = child.wait();
        assert!(asleep, "sleep is seen asleep");
        assert!(watch.read(true).is_none(), "a reaped process is gone");
        assert!(watch.processes.is_empty(), "and its files are closed");
    }

    #[test]
    #[cfg_attr(
        not(has_schedstat),
        ignore = "needs the kernel's per-task schedstat (/proc/PID/task/TID/schedstat)"
    )]
    fn a_busy_child_is_runnable_and_an_exited_grandchild_drops_out() {
        use std::os::unix::process::CommandExt as _;
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sh -c 'sleep 0.3' & while :; do :; done"])
            .process_group(0)
            .spawn()
            .expect("sh starts");
        let root = child.id();
        let Some(mut watch) = watch_of(root) else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("no per-task schedstat here, although build.rs found it");
        };
        let busy = watch.read(true).is_some_and(|r| r.runnable);
        std::thread::sleep(Duration::from_millis(100));
        let with_grandchild = watch.read(true);
        let mut without = None;
        for _ in 0..300 {
            std::thread::sleep(Duration::from_millis(10));
            without = watch.read(true);
            if without.as_ref().is_some_and(|r| r.times.len() == 1) {
                break;
            }
        }
        let group = nix::unistd::Pid::from_raw(i32::try_from(root).unwrap_or(i32::MAX));
        let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
        let _ = child.wait();
        assert!(busy, "a busy loop is running or waiting to run");
        assert!(
            with_grandchild.is_some_and(|r| r.times.len() >= 2),
            "the grandchild (and its sleep) are in the tree"
        );
        let without = without.expect("the busy root is readable");
        assert_eq!(without.times.len(), 1, "the grandchild's exit is seen");
        assert!(without.runnable);
        assert_eq!(watch.processes.len(), 1, "its files are closed");
    }
}
