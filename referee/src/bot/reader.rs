//! Framing a bot's standard output into bounded lines on a task of its own, so the
//! arrival time of each newline is taken when it is read, a line can never exceed
//! [`MAX_LINE_BYTES`] in memory, and a flood of lines is held back by a bounded
//! channel (the bot blocks on its full pipe, not the referee on its memory).

use tokio::io::{AsyncRead, AsyncReadExt as _};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use uttt::protocol::MAX_LINE_BYTES;

/// How many complete lines may wait unread.
const CHANNEL_LINES: usize = 64;

/// What the reader saw on a bot's stdout.
#[derive(Debug)]
pub(crate) enum StdoutEvent {
    /// A complete line (without `\n`) and when its newline was read.
    Line { bytes: Vec<u8>, at: Instant },
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

/// Starts the reader task for `stdout`.
pub(crate) fn spawn_reader(
    stdout: impl AsyncRead + Unpin + Send + 'static,
) -> (LineReader, tokio::task::JoinHandle<()>) {
    let (tx, events) = mpsc::channel(CHANNEL_LINES);
    let (partial_tx, partial) = watch::channel(Vec::new());
    let task = tokio::spawn(read_lines(stdout, tx, partial_tx));
    (LineReader { events, partial }, task)
}

/// Whether a line of `len` bytes (without its `\n`) ending in `last` breaks the line
/// limit. The limit counts the line without its end, `\n` or `\r\n` (protocol.md §1):
/// one byte more is allowed if it is a `\r`, which a `\n` may still follow.
fn too_long(len: usize, last: Option<u8>) -> bool {
    len > MAX_LINE_BYTES && !(len == MAX_LINE_BYTES + 1 && last == Some(b'\r'))
}

async fn read_lines(
    mut stdout: impl AsyncRead + Unpin,
    tx: mpsc::Sender<StdoutEvent>,
    partial_tx: watch::Sender<Vec<u8>>,
) {
    let mut line: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 8 * 1024];
    loop {
        let n = match stdout.read(&mut chunk).await {
            Ok(0) | Err(_) => {
                let _ = tx.send(StdoutEvent::Closed { partial: line }).await;
                return;
            }
            Ok(n) => n,
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
                let _ = tx.send(StdoutEvent::TooLong { prefix: line }).await;
                return;
            }
            line.extend_from_slice(&rest[..newline]);
            let bytes = std::mem::take(&mut line);
            if tx.send(StdoutEvent::Line { bytes, at }).await.is_err() {
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
            let _ = tx.send(StdoutEvent::TooLong { prefix: line }).await;
            return;
        }
        line.extend_from_slice(rest);
        partial_tx.send_replace(line[..line.len().min(PARTIAL_PEEK)].to_vec());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_does_not_count_the_line_end() {
        assert!(!too_long(MAX_LINE_BYTES, Some(b'x')));
        assert!(!too_long(MAX_LINE_BYTES + 1, Some(b'\r')));
        assert!(too_long(MAX_LINE_BYTES + 1, Some(b'x')));
        assert!(too_long(MAX_LINE_BYTES + 2, Some(b'\r')));
        assert!(!too_long(0, None));
    }
}
