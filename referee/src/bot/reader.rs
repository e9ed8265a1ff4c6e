//! Framing a bot's standard output into bounded lines on an OS thread of its own,
//! so the arrival time of each newline is taken when it is read, a line can never
//! exceed [`MAX_LINE_BYTES`] in memory, and a flood of lines is held back by a
//! bounded channel (the bot blocks on its full socket, not the referee on its
//! memory).
//!
//! Why a thread and not a task: the fair clock must know how late the referee
//! read a reply (see [`super::charge`]). A thread that does nothing but wait for
//! the bot's output wakes only when output arrives, so the growth of its own
//! run-queue wait (`/proc/thread-self/schedstat`, marked just before it waits
//! and just after it has read) is exactly how long the output sat unread
//! because the machine gave the referee no CPU, when it blocked once and was
//! not preempted in between ([`WaitMark::lateness_until`]; otherwise nothing
//! is counted, and the bot is charged). That lateness travels with each line
//! (`StdoutEvent::Line`'s `late`). A task on a shared tokio worker could only
//! estimate it (the worker wakes for everything else).
//!
//! The thread ends at end of file (the bot and every holder of its stdout are
//! gone), after a line too long, when the receiving end is dropped, or when
//! [`ReaderThread::stop`] shuts the socket's reading side (a descendant that
//! escaped every kill may hold the bot's end open; the kill and the drop of the
//! process stop it). One thread per bot process: a per-game process costs one
//! thread start (tens of microseconds) beside its fork and exec.

use std::io::Read as _;
use std::net::Shutdown;
use std::os::fd::AsFd as _;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

#[cfg(doc)]
use super::schedstat::WaitMark;
use super::schedstat::{ThreadDelay, TreeTimes};
use super::treewatch::SharedWatch;
use std::sync::Arc;
use uttt::protocol::MAX_LINE_BYTES;

/// How many complete lines may wait unread.
const CHANNEL_LINES: usize = 64;

/// The reading thread's stack: it holds no more than a few small frames (the
/// read buffer is on the heap).
const STACK_BYTES: usize = 128 * 1024;

/// What the reader saw on a bot's stdout.
#[derive(Debug)]
pub(crate) enum StdoutEvent {
    /// A complete line (without `\n`), when its newline was read, how long
    /// the bytes that completed it had waited to be read because the reading
    /// thread was in the run queue (zero where the host cannot measure it),
    /// and the bot's tree's scheduler counters read right then (where the
    /// host has them), so a move's counters end where its wall time does.
    Line {
        bytes: Vec<u8>,
        at: Instant,
        late: Duration,
        counters: Option<Arc<TreeTimes>>,
    },
    /// A line grew past [`MAX_LINE_BYTES`]; reading stopped. Holds the start of it.
    TooLong { prefix: Vec<u8> },
    /// End of file; `partial` is an unterminated last line, if any.
    Closed { partial: Vec<u8> },
}

/// The receiving end: complete lines, and a peek at the current unterminated line
/// (for messages like "your bot printed 'e5' without a newline").
#[derive(Debug)]
pub(crate) struct LineReader {
    pub(crate) events: mpsc::Receiver<StdoutEvent>,
    pub(crate) partial: watch::Receiver<Vec<u8>>,
}

/// How much of an unterminated line is kept for messages.
const PARTIAL_PEEK: usize = 200;

/// The thread that reads a bot's stdout. Dropping it stops the reading (the
/// thread then ends on its own; it is never joined, so nothing can hang on it).
#[derive(Debug)]
pub(crate) struct ReaderThread {
    stream: Arc<UnixStream>,
    /// Set while the thread holds bytes it has taken from the socket and not
    /// yet handed over as events.
    busy: Arc<AtomicBool>,
    handle: std::thread::JoinHandle<()>,
}

impl ReaderThread {
    /// Whether output the bot has written may be missing from the events:
    /// bytes wait unread in the socket, or the thread is framing what it read.
    /// When neither holds, everything written before the call is in the
    /// channel (the thread marks itself busy before it takes bytes out of the
    /// socket and idle only after handing them over; the socket is looked at
    /// first).
    pub(crate) fn behind(&self) -> bool {
        if self.handle.is_finished() {
            return false;
        }
        let mut fds = [PollFd::new(self.stream.as_fd(), PollFlags::POLLIN)];
        let unread = poll(&mut fds, PollTimeout::ZERO).is_ok_and(|n| n > 0);
        unread || self.busy.load(Ordering::SeqCst)
    }

    /// Stops the reading: the thread sees end of file, hands over a `Closed`
    /// event (if the receiver is still there) and ends. Idempotent.
    pub(crate) fn stop(&self) {
        let _ = self.stream.shutdown(Shutdown::Read);
    }

    /// Whether the thread has ended.
    #[cfg(test)]
    pub(crate) fn is_finished(&self) -> bool {
        self.handle.is_finished()
    }
}

impl Drop for ReaderThread {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Starts the reading thread for the referee's end of a bot's stdout; `tree`
/// watches the bot's process tree, whose counters come with each line.
///
/// # Errors
/// The thread could not be created (the process is out of threads or memory).
pub(crate) fn spawn_reader(
    stdout: UnixStream,
    tree: Option<SharedWatch>,
) -> std::io::Result<(LineReader, ReaderThread)> {
    stdout.set_nonblocking(true)?;
    let (tx, events) = mpsc::channel(CHANNEL_LINES);
    let (partial_tx, partial) = watch::channel(Vec::new());
    let stream = Arc::new(stdout);
    let busy = Arc::new(AtomicBool::new(false));
    let handle = std::thread::Builder::new()
        .name("bot-stdout".into())
        .stack_size(STACK_BYTES)
        .spawn({
            let stream = Arc::clone(&stream);
            let busy = Arc::clone(&busy);
            move || {
                read_lines(&stream, tree.as_ref(), &busy, &tx, &partial_tx);
                busy.store(false, Ordering::SeqCst);
            }
        })?;
    Ok((
        LineReader { events, partial },
        ReaderThread {
            stream,
            busy,
            handle,
        },
    ))
}

/// Whether a line of `len` bytes (without its `\n`) ending in `last` breaks the line
/// limit. The limit counts the line without its end, `\n` or `\r\n` (protocol.md §1):
/// one byte more is allowed if it is a `\r`, which a `\n` may still follow.
fn too_long(len: usize, last: Option<u8>) -> bool {
    len > MAX_LINE_BYTES && !(len == MAX_LINE_BYTES + 1 && last == Some(b'\r'))
}

/// One read of the bot's output, with how late it was taken.
struct Read {
    /// Bytes read; 0 at end of file.
    len: usize,
    /// How long they waited to be read because this thread had no CPU.
    late: Duration,
    /// The bot's tree's counters, read with them if they end a line.
    counters: Option<Arc<TreeTimes>>,
}

/// Waits until the socket is readable, marks the thread busy, and reads what is
/// there, measuring the lateness: the wait for a CPU from the poll's start to
/// its return where it is exactly the wake-up's (see
/// [`ThreadDelay`]/`WaitMark::lateness_until`), and all of it from the poll's
/// return to the end of the read and of the counters' reading (the output was
/// there). Marked before the arrival is stamped: a preemption in between then
/// counts in neither, never in the lateness alone.
fn wait_and_read(
    stream: &UnixStream,
    busy: &AtomicBool,
    delay: Option<&ThreadDelay>,
    tree: Option<&SharedWatch>,
    chunk: &mut [u8],
) -> std::io::Result<Read> {
    let mark = || delay.and_then(ThreadDelay::mark);
    loop {
        busy.store(false, Ordering::SeqCst);
        let before = mark();
        let mut fds = [PollFd::new(stream.as_fd(), PollFlags::POLLIN)];
        match poll(&mut fds, PollTimeout::NONE) {
            Ok(_) | Err(nix::errno::Errno::EINTR) => {}
            Err(e) => return Err(e.into()),
        }
        busy.store(true, Ordering::SeqCst);
        let woken = mark();
        let mut reading: &UnixStream = stream;
        match reading.read(chunk) {
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
                ) => {}
            Err(e) => return Err(e),
            Ok(len) => {
                let counters = tree
                    .filter(|_| chunk.get(..len).is_some_and(|c| c.contains(&b'\n')))
                    .and_then(|tree| tree.read(false))
                    .map(|reading| Arc::new(reading.times));
                let late = match (before, woken, mark()) {
                    (Some(before), Some(woken), Some(after)) => before
                        .lateness_until(&woken)
                        .saturating_add(woken.waited_until(&after)),
                    _ => Duration::ZERO,
                };
                return Ok(Read {
                    len,
                    late,
                    counters,
                });
            }
        }
    }
}

fn read_lines(
    stream: &UnixStream,
    tree: Option<&SharedWatch>,
    busy: &AtomicBool,
    tx: &mpsc::Sender<StdoutEvent>,
    partial_tx: &watch::Sender<Vec<u8>>,
) {
    let delay = ThreadDelay::open();
    let mut line: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 8 * 1024];
    loop {
        let (n, late, counters) =
            match wait_and_read(stream, busy, delay.as_ref(), tree, &mut chunk) {
                Ok(Read { len: 0, .. }) | Err(_) => {
                    let _ = tx.blocking_send(StdoutEvent::Closed { partial: line });
                    return;
                }
                Ok(Read {
                    len,
                    late,
                    counters,
                }) => (len, late, counters),
            };
        let at = Instant::now();
        let mut rest = &chunk[..n];
        while let Some(newline) = rest.iter().position(|&b| b == b'\n') {
            let last = newline
                .checked_sub(1)
                .map_or(line.last(), |i| rest.get(i))
                .copied();
            if too_long(line.len() + newline, last) {
                line.extend_from_slice(&rest[..newline.min(PARTIAL_PEEK)]);
                line.truncate(PARTIAL_PEEK);
                let _ = tx.blocking_send(StdoutEvent::TooLong { prefix: line });
                return;
            }
            line.extend_from_slice(&rest[..newline]);
            let bytes = std::mem::take(&mut line);
            if tx
                .blocking_send(StdoutEvent::Line {
                    bytes,
                    at,
                    late,
                    counters: counters.clone(),
                })
                .is_err()
            {
                return;
            }
            rest = &rest[newline + 1..];
        }
        if too_long(
            line.len() + rest.len(),
            rest.last().or(line.last()).copied(),
        ) {
            line.extend_from_slice(&rest[..rest.len().min(PARTIAL_PEEK)]);
            line.truncate(PARTIAL_PEEK);
            let _ = tx.blocking_send(StdoutEvent::TooLong { prefix: line });
            return;
        }
        line.extend_from_slice(rest);
        partial_tx.send_replace(line[..line.len().min(PARTIAL_PEEK)].to_vec());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    /// A reader on a socket pair, and the bot's end.
    fn started() -> (LineReader, ReaderThread, UnixStream) {
        let (bot, referee) = UnixStream::pair().expect("a socket pair");
        let (lines, thread) = spawn_reader(referee, None).expect("the thread starts");
        (lines, thread, bot)
    }

    /// Polls `cond` for up to five seconds.
    fn eventually(mut cond: impl FnMut() -> bool) -> bool {
        let start = std::time::Instant::now();
        while start.elapsed() < Duration::from_secs(5) {
            if cond() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        false
    }

    #[test]
    fn lines_come_framed_then_the_partial_line_at_end_of_file_and_the_thread_ends() {
        let (mut lines, thread, mut bot) = started();
        bot.write_all(b"info depth 3\r\ne5\nd4").expect("write");
        drop(bot);
        let mut got = Vec::new();
        while let Some(event) = lines.events.blocking_recv() {
            got.push(event);
        }
        match got.as_slice() {
            [
                StdoutEvent::Line { bytes: a, .. },
                StdoutEvent::Line { bytes: b, .. },
                StdoutEvent::Closed { partial },
            ] => {
                assert_eq!(a.as_slice(), b"info depth 3\r");
                assert_eq!(b.as_slice(), b"e5");
                assert_eq!(partial.as_slice(), b"d4");
            }
            other => panic!("{other:?}"),
        }
        assert!(eventually(|| thread.is_finished()));
        assert!(!thread.behind(), "an ended reader holds nothing back");
    }

    #[test]
    fn stopping_ends_the_thread_while_an_escaped_process_holds_the_socket_open() {
        let (mut lines, thread, mut bot) = started();
        bot.write_all(b"e5\n").expect("write");
        assert!(matches!(
            lines.events.blocking_recv(),
            Some(StdoutEvent::Line { .. })
        ));
        thread.stop();
        assert!(matches!(
            lines.events.blocking_recv(),
            Some(StdoutEvent::Closed { .. })
        ));
        assert!(
            eventually(|| thread.is_finished()),
            "the thread ends though `bot` is open"
        );
        drop(bot);
    }

    #[test]
    fn a_flood_blocks_the_thread_on_the_full_channel_until_the_receiver_goes() {
        let (lines, thread, bot) = started();
        let writer = std::thread::spawn(move || {
            let mut bot = bot;
            // Far more than the channel and the socket hold; fails once the
            // reader is gone.
            for _ in 0..100_000 {
                if bot.write_all(b"info x\n").is_err() {
                    break;
                }
            }
        });
        assert!(
            eventually(|| lines.events.len() == CHANNEL_LINES),
            "the channel fills"
        );
        assert!(thread.behind(), "unread output is waiting");
        assert!(!thread.is_finished());
        drop(lines);
        assert!(
            eventually(|| thread.is_finished()),
            "a dropped receiver ends it"
        );
        drop(thread);
        writer
            .join()
            .expect("the writer ends once the reader is gone");
    }

    #[test]
    fn once_everything_is_handed_over_the_reader_is_not_behind() {
        let (mut lines, thread, mut bot) = started();
        assert!(eventually(|| !thread.behind()));
        bot.write_all(b"e5\n").expect("write");
        assert!(matches!(
            lines.events.blocking_recv(),
            Some(StdoutEvent::Line { .. })
        ));
        assert!(eventually(|| !thread.behind()));
        bot.write_all(b"d4").expect("write");
        assert!(eventually(|| lines.partial.borrow().as_slice() == b"d4"));
        assert!(
            eventually(|| !thread.behind()),
            "a partial line is taken in"
        );
    }

    #[test]
    fn the_limit_does_not_count_the_line_end() {
        assert!(!too_long(MAX_LINE_BYTES, Some(b'x')));
        assert!(!too_long(MAX_LINE_BYTES + 1, Some(b'\r')));
        assert!(too_long(MAX_LINE_BYTES + 1, Some(b'x')));
        assert!(too_long(MAX_LINE_BYTES + 2, Some(b'\r')));
        assert!(!too_long(0, None));
    }
}
