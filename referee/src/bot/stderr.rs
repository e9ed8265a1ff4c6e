//! Draining a bot's standard error into a bounded tail, so a bot that floods stderr
//! can neither block on a full pipe nor grow the referee's memory.
//!
//! What leaves this module is escaped ([`escape_lines`]): the tail is quoted in crash
//! messages on the operator's terminal, in games.csv and transcripts, in `arena
//! check` and in the stderr log file, and a bot must not be able to send escape
//! sequences (window titles, screen clears, a carriage return that overwrites a
//! line) to any of them.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncRead, AsyncReadExt as _};

use uttt::protocol::escape_lines;

/// How much of a bot's stderr is kept: the last 64 KiB.
pub const STDERR_TAIL_BYTES: usize = 64 * 1024;

/// The last [`STDERR_TAIL_BYTES`] a bot wrote to stderr, and how much it wrote in all.
#[derive(Debug, Default)]
pub(crate) struct StderrTail {
    tail: VecDeque<u8>,
    total: u64,
}

impl StderrTail {
    fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let keep = bytes.len().min(STDERR_TAIL_BYTES);
        let bytes = &bytes[bytes.len() - keep..];
        let overflow = (self.tail.len() + bytes.len()).saturating_sub(STDERR_TAIL_BYTES);
        self.tail.drain(..overflow);
        self.tail.extend(bytes);
    }
}

/// A shared handle on a bot's stderr tail.
#[derive(Clone, Debug, Default)]
pub(crate) struct SharedStderr(Arc<Mutex<StderrTail>>);

impl SharedStderr {
    /// The kept tail as escaped text (one line per line the bot wrote, control
    /// characters and bytes that are not ASCII as `\xNN`), and the total bytes
    /// written.
    pub(crate) fn snapshot(&self) -> (String, u64) {
        let guard = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (a, b) = guard.tail.as_slices();
        let mut bytes = Vec::with_capacity(a.len() + b.len());
        bytes.extend_from_slice(a);
        bytes.extend_from_slice(b);
        (escape_lines(&bytes), guard.total)
    }

    /// How many bytes the bot has written to stderr so far.
    pub(crate) fn total(&self) -> u64 {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .total
    }

    /// What the bot wrote after its first `mark` bytes (a [`SharedStderr::total`]
    /// taken earlier), as far as the tail still holds it, escaped: the stderr
    /// of one game of a process that plays many.
    pub(crate) fn since(&self, mark: u64) -> String {
        let guard = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let new = usize::try_from(guard.total.saturating_sub(mark)).unwrap_or(usize::MAX);
        let skip = guard.tail.len().saturating_sub(new);
        let bytes: Vec<u8> = guard.tail.iter().skip(skip).copied().collect();
        escape_lines(&bytes)
    }

    /// The last `lines` lines of the tail, escaped, for error messages.
    pub(crate) fn last_lines(&self, lines: usize) -> String {
        let (text, _) = self.snapshot();
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }

    /// Reads `stderr` until it closes, keeping only the tail.
    pub(crate) async fn drain(self, mut stderr: impl AsyncRead + Unpin) {
        let mut chunk = vec![0u8; 16 * 1024];
        while let Ok(n) = stderr.read(&mut chunk).await {
            if n == 0 {
                break;
            }
            let mut guard = self
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            guard.push(&chunk[..n]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_only_the_last_bytes() {
        let mut tail = StderrTail::default();
        for i in 0..100u8 {
            tail.push(&[i; 1000]);
        }
        assert_eq!(tail.total, 100_000);
        assert_eq!(tail.tail.len(), STDERR_TAIL_BYTES);
        assert_eq!(tail.tail.back(), Some(&99));
        tail.push(&vec![7; STDERR_TAIL_BYTES * 2]);
        assert_eq!(tail.tail.len(), STDERR_TAIL_BYTES);
        assert!(tail.tail.iter().all(|&b| b == 7));
    }

    #[test]
    fn what_leaves_is_escaped_line_by_line() {
        let shared = SharedStderr::default();
        shared
            .0
            .lock()
            .unwrap()
            .push(b"\x1b]0;title\x07\x1b[2J\r\nok\r\nforged\rline\n\xc3\xa9\n");
        let (text, total) = shared.snapshot();
        assert_eq!(total, 35);
        assert_eq!(
            text,
            "\\x1b]0;title\\x07\\x1b[2J\nok\nforged\\rline\n\\xc3\\xa9\n"
        );
        assert_eq!(shared.last_lines(2), "forged\\rline\n\\xc3\\xa9");
    }

    #[test]
    fn since_a_mark_is_what_came_after_it() {
        let shared = SharedStderr::default();
        shared.0.lock().unwrap().push(b"game one\n");
        let mark = shared.total();
        shared.0.lock().unwrap().push(b"game two\x1b\n");
        assert_eq!(shared.since(mark), "game two\\x1b\n");
        assert_eq!(shared.since(0), "game one\ngame two\\x1b\n");
        // More than the tail holds: what is kept.
        shared
            .0
            .lock()
            .unwrap()
            .push(&vec![b'z'; STDERR_TAIL_BYTES + 10]);
        assert_eq!(shared.since(mark).len(), STDERR_TAIL_BYTES);
    }
}
