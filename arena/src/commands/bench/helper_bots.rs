//! The hidden bots of the benchmarks, part of the `arena` binary so `arena bench`
//! needs nothing else installed: `__echo` (the pipe-floor baseline), `__instant`
//! and `__sleeper` (protocol bots as cheap as the baseline, so their cost does not
//! inflate the referee's figure).

use std::io::Write as _;
use std::time::Duration;

/// `arena __echo`: answers every line with `e5`. The pipe-floor baseline.
///
/// # Errors
/// Only I/O errors on stdout.
pub fn echo() -> anyhow::Result<()> {
    use std::io::Read as _;
    let mut stdin = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    let mut buf = [0u8; 256];
    // One read and one write per line, like the C baseline (the parent sends one
    // short line at a time and waits for the answer).
    while stdin.read(&mut buf)? > 0 {
        out.write_all(b"e5\n")?;
        out.flush()?;
    }
    Ok(())
}

/// `arena __instant`: a protocol bot that answers every `go` with the first legal
/// square at once, with as little parsing as possible.
///
/// # Errors
/// Only I/O errors on stdout.
pub fn instant() -> anyhow::Result<()> {
    serve_delayed(Duration::ZERO)
}

/// `arena __sleeper --delay-ms N`: like `__instant`, but sleeps N ms before each move.
///
/// # Errors
/// Only I/O errors on stdout.
pub fn sleeper(delay_ms: u64) -> anyhow::Result<()> {
    serve_delayed(Duration::from_millis(delay_ms))
}

/// A protocol bot as cheap as the echo baseline: raw reads into a fixed buffer, the
/// first square after " legal " copied out, one write per answer. Its cost is the
/// bot's, not the referee's, so it must not inflate the referee's figure.
fn serve_delayed(delay: Duration) -> anyhow::Result<()> {
    use std::io::Read as _;
    let mut stdin = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    let mut buf = vec![0u8; 64 * 1024];
    let mut len = 0;
    loop {
        let n = stdin.read(&mut buf[len..])?;
        if n == 0 {
            return Ok(());
        }
        len += n;
        while let Some(end) = buf[..len].iter().position(|&b| b == b'\n') {
            let line = &buf[..end];
            if line.starts_with(b"uttt") {
                out.write_all(b"ready\n")?;
                out.flush()?;
            } else if line.starts_with(b"go") {
                let at = line
                    .windows(7)
                    .position(|w| w == b" legal ")
                    .map_or(end, |i| i + 7);
                let square = line.get(at..at + 2).unwrap_or(b"e5");
                if !delay.is_zero() {
                    std::thread::sleep(delay);
                }
                out.write_all(&[square[0], square[1], b'\n'])?;
                out.flush()?;
            } else if line.starts_with(b"quit") {
                return Ok(());
            }
            buf.copy_within(end + 1..len, 0);
            len -= end + 1;
        }
        if len == buf.len() {
            len = 0; // an absurdly long line: drop it
        }
    }
}
