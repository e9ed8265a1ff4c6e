//! One bot as a child process: started in its own process group (under the
//! launcher, in a session of its own) with a clean environment and socket pairs
//! for its standard streams ([`stdio`]), its stdout framed into bounded lines, its stderr drained, and the whole group
//! killed and reaped when we are done with it (or dropped).

use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::Duration;

use nix::sys::signal::Signal;
use nix::unistd::Pid;
use tokio::io::AsyncWriteExt as _;
use tokio::net::UnixStream;
use tokio::process::Child;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::command::BotCommand;
use super::group;
use super::memwatch::MemoryWatch;
use super::reader::{LineReader, ReaderThread, StdoutEvent, spawn_reader};
use super::sandbox::cgroup::BotCgroup;
use super::sandbox::start;
use super::sandbox::uids::UidLease;
use super::scratch::Scratch;
use super::stderr::SharedStderr;
use super::stdio;
use super::treewatch::{SharedWatch, TreeReading};

/// How long [`BotProcess::kill`] waits for SIGKILLed group members to die. They
/// normally take microseconds; the bound only keeps an unkillable process (stuck
/// in uninterruptible sleep on a dead NFS mount, say) from stalling the referee.
const GROUP_GONE_BOUND: Duration = Duration::from_secs(2);

/// How long, once a bot has exited, the referee waits for the rest of its output
/// (the last line on stdout, the last words on stderr) to be read. The pipes reach
/// end of file at once; the bound only matters when a descendant holds them open.
const OUTPUT_SETTLE: Duration = Duration::from_millis(200);

/// How a bot process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitInfo {
    /// It exited with this code.
    Code(i32),
    /// It was killed by this signal number.
    Signal(i32),
    /// It was killed for holding more memory than its limit (the referee's
    /// count or the cgroup's `memory.max`), in bytes.
    OverMemory {
        /// Memory counted when it was killed (its peak under `memory.max`).
        used: u64,
        /// The limit.
        limit: u64,
    },
}

impl ExitInfo {
    pub(crate) fn from_status(status: ExitStatus) -> ExitInfo {
        use std::os::unix::process::ExitStatusExt as _;
        match (status.code(), status.signal()) {
            (Some(code), _) => ExitInfo::Code(code),
            (None, Some(signal)) => ExitInfo::Signal(signal),
            (None, None) => ExitInfo::Code(-1),
        }
    }

    /// As [`ExitInfo::from_status`] for a bot under bwrap, which reports a child
    /// killed by signal N as exit code 128 + N.
    pub(crate) fn from_wrapped_status(status: ExitStatus) -> ExitInfo {
        match ExitInfo::from_status(status) {
            ExitInfo::Code(code @ 129..=192) => ExitInfo::Signal(code - 128),
            other => other,
        }
    }
}

impl std::fmt::Display for ExitInfo {
    /// "exit code 3", "signal 11 (SIGSEGV)".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            ExitInfo::Code(code) => write!(f, "exit code {code}"),
            ExitInfo::Signal(number) => match Signal::try_from(number) {
                Ok(signal) => write!(f, "signal {number} ({})", signal.as_str()),
                Err(_) => write!(f, "signal {number}"),
            },
            ExitInfo::OverMemory { used, limit } => {
                let mib = |b: u64| b.div_ceil(1024 * 1024);
                write!(
                    f,
                    "killed for holding {} MiB, over its memory limit of {} MiB (memory-mb)",
                    mib(used),
                    mib(limit)
                )
            }
        }
    }
}

/// Why a bot could not be started at all (the program is missing, not executable…).
#[derive(Debug, thiserror::Error)]
#[error("cannot start bot '{command}': {source}")]
pub struct SpawnError {
    /// The command as typed.
    pub command: String,
    /// The operating system's reason.
    #[source]
    pub source: std::io::Error,
}

/// A running bot process.
#[derive(Debug)]
pub struct BotProcess {
    child: Child,
    pgid: Option<Pid>,
    stdin: Option<UnixStream>,
    pub(crate) stdout: LineReader,
    stderr: SharedStderr,
    /// Frames stdout into lines on a thread of its own (see `reader`).
    stdout_reader: ReaderThread,
    /// The scheduler counters of the process tree (where the host has them).
    tree: Option<SharedWatch>,
    /// The stderr drain: it ends at end of file, when the last holder of the pipe
    /// is gone, so waiting for it gets a dying bot's last words into its crash
    /// message.
    stderr_drain: JoinHandle<()>,
    exit: Option<ExitInfo>,
    /// The dedicated uid, swept (every process of it killed) after the bot.
    lease: Option<UidLease>,
    /// Runs the sweep.
    launcher: Option<PathBuf>,
    /// Whether bwrap reports the bot's exit (see [`ExitInfo::from_wrapped_status`]).
    wrapped: bool,
    /// The process tree's cgroup (sandbox layer `cgroup`): killed with the group,
    /// and when dropped.
    cgroup: Option<BotCgroup>,
    /// Who enforces the memory limit, if anyone.
    memory: Option<MemoryGuard>,
    /// Removed when the process is dropped.
    _scratch: Option<Scratch>,
}

/// Who enforces a bot's memory limit.
#[derive(Debug)]
enum MemoryGuard {
    /// The cgroup's `memory.max`: the kernel kills the whole group past it.
    Kernel {
        /// The limit in bytes.
        limit: u64,
    },
    /// The referee's own count of the process tree.
    Referee(MemoryWatch),
}

/// Result of waiting for the next stdout event.
#[derive(Debug)]
pub(crate) enum Next {
    /// An event from stdout.
    Event(StdoutEvent),
    /// The process exited (stdout may still be open, held by a descendant).
    Exited(ExitInfo),
    /// The deadline passed.
    Deadline,
}

impl BotProcess {
    /// Starts `command`.
    ///
    /// # Errors
    /// [`SpawnError`] if the process cannot be created (with a launcher, a missing
    /// program shows up instead as the launcher exiting with code 127).
    pub fn spawn(command: &BotCommand) -> Result<BotProcess, SpawnError> {
        let err = |source| SpawnError {
            command: command.display(),
            source,
        };
        let scratch = match &command.working_dir {
            Some(_) => None,
            None => Some(Scratch::create().map_err(err)?),
        };
        let dir = command
            .working_dir
            .clone()
            .or_else(|| scratch.as_ref().map(|s| s.path().to_path_buf()))
            .unwrap_or_else(std::env::temp_dir);

        let prepared = start::build(command, &dir, scratch.is_some()).map_err(err)?;
        let Some((program, args)) = prepared.argv.split_first() else {
            return Err(err(std::io::Error::other("empty command line")));
        };
        let mut cmd = tokio::process::Command::new(program);
        cmd.args(args);
        cmd.env_clear();
        if let Some(path) = prepared.path.clone().or_else(|| std::env::var_os("PATH")) {
            cmd.env("PATH", path);
        }
        cmd.env("HOME", &dir)
            .env("TMPDIR", &dir)
            .env("LANG", "C.UTF-8");
        cmd.envs(command.env.iter().map(|(k, v)| (k, v)));
        let (ends, streams) = stdio::socket_pairs().map_err(err)?;
        cmd.current_dir(&dir)
            .stdin(ends.stdin)
            .stdout(ends.stdout)
            .stderr(ends.stderr)
            .kill_on_drop(true);
        // The launcher makes a session of its own, which a process group leader
        // cannot: it must not be made one here.
        if !prepared.launched {
            cmd.process_group(0);
        }
        let child = cmd.spawn().map_err(err)?;
        // The bot's ends now live only in the bot: `cmd` holds them until dropped,
        // and end of file on its stdout must not wait for that.
        drop(cmd);
        let pgid = child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .map(Pid::from_raw);
        let stderr = SharedStderr::default();
        let tree = pgid.and_then(|p| {
            SharedWatch::new(
                p.as_raw().unsigned_abs(),
                prepared.cgroup.as_ref().and_then(BotCgroup::open_cpu_stat),
            )
        });
        let (reader, read_thread) = match spawn_reader(streams.stdout, tree.clone()) {
            Ok(started) => started,
            Err(e) => {
                // `child` is killed when dropped; the rest of its group here.
                if let Some(pgid) = pgid {
                    group::kill(pgid);
                }
                return Err(err(e));
            }
        };
        let drain_task = tokio::spawn(stderr.clone().drain(streams.stderr));
        let stdin = Some(streams.stdin);
        let memory = match (&prepared.cgroup, command.limits.memory) {
            (Some(group), Some(limit)) if group.memory_limited() => {
                Some(MemoryGuard::Kernel { limit })
            }
            _ => prepared.watch_memory.zip(pgid).map(|(limit, pid)| {
                MemoryGuard::Referee(MemoryWatch::start(
                    pid,
                    prepared.cgroup.as_ref().map(|g| g.path().to_path_buf()),
                    limit,
                ))
            }),
        };
        Ok(BotProcess {
            child,
            pgid,
            stdin,
            stdout: reader,
            stderr,
            stdout_reader: read_thread,
            tree,
            stderr_drain: drain_task,
            exit: None,
            lease: prepared.lease,
            launcher: command.launcher.clone(),
            wrapped: prepared.wrapped,
            cgroup: prepared.cgroup,
            memory,
            _scratch: scratch,
        })
    }

    /// The process id (also its process group id).
    pub fn pid(&self) -> Option<u32> {
        self.pgid.map(|p| p.as_raw().unsigned_abs())
    }

    /// Writes `line` and a newline, giving up at `deadline`. Returns the
    /// instant just before the bytes were handed to the kernel (the bot
    /// cannot have seen them earlier).
    ///
    /// # Errors
    /// The write failed (the bot closed its stdin or exited) or did not finish by the
    /// deadline (the bot does not read and its pipe is full).
    pub(crate) async fn write_line(
        &mut self,
        line: &str,
        deadline: Instant,
    ) -> Result<Instant, WriteError> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(WriteError::Closed);
        };
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        let writing = Instant::now();
        let write = async {
            stdin.write_all(&bytes).await?;
            stdin.flush().await
        };
        match tokio::time::timeout_at(deadline, write).await {
            Ok(Ok(())) => Ok(writing),
            Ok(Err(_)) => Err(WriteError::Closed),
            Err(_) => Err(WriteError::Blocked),
        }
    }

    /// Waits for the next stdout event, the process's exit, or `deadline`, in that
    /// order of preference: a line that arrived just before the exit is still read.
    pub(crate) async fn next(&mut self, deadline: Instant) -> Next {
        if let Some(exit) = self.exit {
            // Exited already: take what is left in the channel, then report the exit.
            return match tokio::time::timeout_at(deadline, self.stdout.events.recv()).await {
                Ok(Some(event)) => Next::Event(event),
                Ok(None) => Next::Exited(exit),
                Err(_) => Next::Exited(exit),
            };
        }
        tokio::select! {
            biased;
            event = self.stdout.events.recv() => match event {
                Some(event) => Next::Event(event),
                None => Next::Event(StdoutEvent::Closed { partial: Vec::new() }),
            },
            status = self.child.wait() => {
                let exit = match status {
                    Ok(status) => self.exit_info_of(status),
                    Err(_) => ExitInfo::Code(-1),
                };
                self.exit = Some(exit);
                // What the bot wrote just before exiting may not be framed yet: its
                // stdout reaches end of file at once (unless a descendant holds it),
                // and the reader then hands over the last line or the partial one.
                match tokio::time::timeout(OUTPUT_SETTLE, self.stdout.events.recv()).await {
                    Ok(Some(event)) => Next::Event(event),
                    Ok(None) | Err(_) => Next::Exited(exit),
                }
            }
            () = tokio::time::sleep_until(deadline) => Next::Deadline,
        }
    }

    /// Waits up to `grace` for the process to exit on its own.
    pub(crate) async fn wait_exit(&mut self, grace: Duration) -> Option<ExitInfo> {
        if self.exit.is_some() {
            return self.exit;
        }
        match tokio::time::timeout(grace, self.child.wait()).await {
            Ok(Ok(status)) => {
                self.exit = Some(self.exit_info_of(status));
                self.exit
            }
            _ => None,
        }
    }

    /// The scheduler counters of the bot's process tree now, with whether a
    /// task of it is runnable if `states` is asked for; `None` where the host
    /// has none or the tree is gone.
    pub(crate) fn tree_counters(&self, states: bool) -> Option<TreeReading> {
        self.tree.as_ref().and_then(|tree| tree.read(states))
    }

    /// Whether output the bot wrote may not have reached the events yet: it
    /// waits unread, or the reading thread is framing it (see `reader`).
    pub(crate) fn output_unread(&self) -> bool {
        self.stdout_reader.behind()
    }

    /// Whether the thread reading stdout has ended.
    #[cfg(test)]
    pub(crate) fn reader_finished(&self) -> bool {
        self.stdout_reader.is_finished()
    }

    /// The unterminated line the bot has printed so far, if any (for messages).
    pub(crate) fn partial_line(&self) -> Vec<u8> {
        self.stdout.partial.borrow().clone()
    }

    /// The last `lines` lines of the bot's stderr, escaped.
    pub fn stderr_tail(&self, lines: usize) -> String {
        self.stderr.last_lines(lines)
    }

    /// The kept stderr tail (last 64 KiB), escaped, and the total bytes written to
    /// stderr.
    pub fn stderr_log(&self) -> (String, u64) {
        self.stderr.snapshot()
    }

    /// How many bytes the bot has written to stderr so far: a mark to take
    /// [`BotProcess::stderr_since`] from.
    pub fn stderr_total(&self) -> u64 {
        self.stderr.total()
    }

    /// What the bot wrote to stderr after the first `mark` bytes, as far as the
    /// kept tail (64 KiB) reaches, escaped.
    pub fn stderr_since(&self, mark: u64) -> String {
        self.stderr.since(mark)
    }

    /// The most memory the bot's process tree has held so far in its life, as the
    /// referee measured it (sampled about every 20 ms), or, where the kernel counts
    /// it (`memory.max`), the cgroup's peak. `None` where nothing measures it (no
    /// memory limit, `--sandbox none`) or before the first sample.
    pub fn peak_memory(&self) -> Option<u64> {
        match &self.memory {
            Some(MemoryGuard::Referee(watch)) => Some(watch.peak()).filter(|&b| b > 0),
            Some(MemoryGuard::Kernel { .. }) => self.cgroup.as_ref().and_then(|g| {
                std::fs::read_to_string(g.path().join("memory.peak"))
                    .ok()
                    .and_then(|p| p.trim().parse().ok())
            }),
            None => None,
        }
    }

    /// Whether the bot is in a game or kept between games: the referee's count of
    /// its memory (where it keeps one) is taken less often between games, and at
    /// once when the next starts (see `memwatch`).
    pub(crate) fn playing(&self, playing: bool) {
        if let Some(MemoryGuard::Referee(watch)) = &self.memory {
            watch.playing(playing);
        }
    }

    /// Kills the whole process group and reaps the process. Idempotent.
    pub async fn kill(&mut self) {
        self.signal_group();
        // Everything in the cgroup, escaped or not, dies at once.
        if let Some(cgroup) = &self.cgroup {
            cgroup.kill().await;
        }
        self.stdin = None;
        if self.exit.is_none()
            && let Ok(status) = self.child.wait().await
        {
            self.exit = Some(self.exit_info_of(status));
        }
        // A member that was running when the signal was queued may not have acted
        // on it yet: the game is not over until it has.
        if let Some(pgid) = self.pgid {
            group::wait_gone(pgid, GROUP_GONE_BOUND).await;
        }
        // Descendants that escaped the group (setsid, double fork) die with the
        // bwrap namespace; under a dedicated uid they are swept here.
        if let (Some(lease), Some(launcher)) = (self.lease.take(), &self.launcher) {
            start::sweep(launcher, lease).await;
        }
        // The stderr tail kept for the logs gets its last bytes. Descendants that
        // escaped every kill may hold the pipes open: the readers must not outlive
        // the bot.
        self.settle_stderr().await;
        self.stdout_reader.stop();
        self.stderr_drain.abort();
    }

    /// Waits (at most [`OUTPUT_SETTLE`]) until everything the bot wrote to stderr
    /// has been read. After an exit the pipe is at end of file at once, unless a
    /// descendant that escaped the kill still holds it.
    pub(crate) async fn settle_stderr(&mut self) {
        if !self.stderr_drain.is_finished() {
            let _ = tokio::time::timeout(OUTPUT_SETTLE, &mut self.stderr_drain).await;
        }
    }

    fn exit_info_of(&self, status: ExitStatus) -> ExitInfo {
        let over = match &self.memory {
            Some(MemoryGuard::Referee(watch)) => watch.overrun().map(|o| (o.used, o.limit)),
            Some(MemoryGuard::Kernel { limit }) => self
                .cgroup
                .as_ref()
                .and_then(|g| g.oom_killed(*limit))
                .map(|peak| (peak, *limit)),
            None => None,
        };
        if let Some((used, limit)) = over {
            return ExitInfo::OverMemory { used, limit };
        }
        if self.wrapped {
            ExitInfo::from_wrapped_status(status)
        } else {
            ExitInfo::from_status(status)
        }
    }

    /// Kills the group, and the process itself: a launcher that has not yet made
    /// its session (and so its group) is not in the group it will lead.
    fn signal_group(&mut self) {
        if let Some(pgid) = self.pgid {
            group::kill(pgid);
        }
        let _ = self.child.start_kill();
    }

    /// How the process ended, once it has.
    pub fn exit_info(&self) -> Option<ExitInfo> {
        self.exit
    }
}

impl Drop for BotProcess {
    /// Last line of defence (panics, cancelled games): kill the group. `kill_on_drop`
    /// and tokio's orphan reaper then reap the process.
    fn drop(&mut self) {
        self.signal_group();
        if let (Some(lease), Some(launcher)) = (self.lease.take(), &self.launcher) {
            start::sweep_blocking(launcher, lease);
        }
        self.stdout_reader.stop();
        self.stderr_drain.abort();
    }
}

/// Why a line could not be written to a bot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WriteError {
    /// The pipe is closed: the bot closed stdin or exited.
    Closed,
    /// The write did not complete by the deadline: the bot is not reading.
    Blocked,
}
