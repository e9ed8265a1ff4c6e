//! The hidden bots of the benchmarks, part of the `arena` binary so `arena bench`
//! needs nothing else installed: `__echo` (the pipe-floor baseline), `__instant`
//! and `__sleeper` (protocol bots as cheap as the baseline, so their cost does not
//! inflate the referee's figure), and `__burner` (a bot whose every move needs a
//! fixed amount of CPU time, the fair clock's benchmark).

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
    serve_delayed(Think::Sleep(Duration::ZERO))
}

/// `arena __sleeper --delay-ms N`: like `__instant`, but sleeps N ms before each move.
///
/// # Errors
/// Only I/O errors on stdout.
pub fn sleeper(delay_ms: u64) -> anyhow::Result<()> {
    serve_delayed(Think::Sleep(Duration::from_millis(delay_ms)))
}

/// `arena __burner --cpu-ms N`: like `__instant`, but spins before each move until
/// its thread has run N ms on a CPU: an honest bot whose search needs that much
/// computing, however long a loaded machine makes it wait.
///
/// # Errors
/// Only I/O errors on stdout.
pub fn burner(cpu_ms: u64) -> anyhow::Result<()> {
    anyhow::ensure!(
        thread_cpu().is_some(),
        "__burner needs getrusage(RUSAGE_THREAD)"
    );
    serve_delayed(Think::Burn(Duration::from_millis(cpu_ms)))
}

/// How a helper bot spends a move.
#[derive(Clone, Copy)]
enum Think {
    /// Sleeps this long (no CPU).
    Sleep(Duration),
    /// Spins until its thread has used this much CPU time.
    Burn(Duration),
}

impl Think {
    fn spend(self) {
        match self {
            Think::Sleep(d) if d.is_zero() => {}
            Think::Sleep(d) => std::thread::sleep(d),
            Think::Burn(d) => {
                let Some(start) = thread_cpu() else { return };
                let mut x = 0u64;
                while thread_cpu().is_some_and(|now| now.saturating_sub(start) < d) {
                    // About 50 µs of work between readings of the counter.
                    for i in 0..20_000u64 {
                        x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
                    }
                }
            }
        }
    }
}

/// This thread's CPU time so far (user and system, from `getrusage`).
fn thread_cpu() -> Option<Duration> {
    use nix::sys::resource::{UsageWho, getrusage};
    let usage = getrusage(UsageWho::RUSAGE_THREAD).ok()?;
    let micros = |t: nix::sys::time::TimeVal| {
        u64::try_from(t.tv_sec()).unwrap_or(0) * 1_000_000 + u64::try_from(t.tv_usec()).unwrap_or(0)
    };
    Some(Duration::from_micros(
        micros(usage.user_time()) + micros(usage.system_time()),
    ))
}

/// A protocol bot as cheap as the echo baseline: raw reads into a fixed buffer, the
/// first square after " legal " copied out, one write per answer. Its cost is the
/// bot's, not the referee's, so it must not inflate the referee's figure.
fn serve_delayed(think: Think) -> anyhow::Result<()> {
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
                think.spend();
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
