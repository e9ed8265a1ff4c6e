//! A bot's standard input, output and error are UNIX socket pairs, not pipes.
//!
//! Why: a pipe can be opened again by path. A process that may look at another
//! one's `/proc/PID/fd/1` (same uid, no dedicated uid, no PID namespace, no
//! Landlock; e.g. `--sandbox rlimits` as root) opens it for writing and speaks
//! *for* that bot: a `resign` injected into the opponent's stdout is charged to
//! the opponent. A socket cannot be opened through `/proc` (`ENXIO`), so each
//! stream reaches only the two processes given its ends.
//!
//! Each stream is one-way like the pipe it replaces: the referee shuts down the
//! direction it never uses, so a bot writing to its stdin gets `EPIPE` and one
//! reading its stdout gets end of file. Bots see no difference: every runtime
//! reads and writes a stream socket as it does a pipe.

use std::io;
use std::net::Shutdown;
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream as StdStream;
use std::process::Stdio;

use tokio::net::UnixStream;

/// The ends the bot gets, as its fds 0, 1 and 2.
#[derive(Debug)]
pub(crate) struct ChildEnds {
    pub(crate) stdin: Stdio,
    pub(crate) stdout: Stdio,
    pub(crate) stderr: Stdio,
}

/// The referee's ends.
#[derive(Debug)]
pub(crate) struct Referee {
    /// Written to (requests).
    pub(crate) stdin: UnixStream,
    /// Read from (replies), by a thread of its own (see `reader`): not
    /// registered with tokio.
    pub(crate) stdout: StdStream,
    /// Read from (the bot's diagnostics).
    pub(crate) stderr: UnixStream,
}

/// One stream: the bot's end, and the referee's end (non-blocking) with
/// `unused` shut down.
fn pair(unused: Shutdown) -> io::Result<(Stdio, StdStream)> {
    let (bot, referee) = StdStream::pair()?;
    referee.shutdown(unused)?;
    referee.set_nonblocking(true)?;
    Ok((Stdio::from(OwnedFd::from(bot)), referee))
}

/// Creates the three streams. Must run inside the tokio runtime.
///
/// # Errors
/// The sockets could not be created (out of descriptors).
pub(crate) fn socket_pairs() -> io::Result<(ChildEnds, Referee)> {
    let (child_in, stdin) = pair(Shutdown::Read)?;
    let (child_out, stdout) = pair(Shutdown::Write)?;
    let (child_err, stderr) = pair(Shutdown::Write)?;
    Ok((
        ChildEnds {
            stdin: child_in,
            stdout: child_out,
            stderr: child_err,
        },
        Referee {
            stdin: UnixStream::from_std(stdin)?,
            stdout,
            stderr: UnixStream::from_std(stderr)?,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    #[tokio::test]
    async fn a_cat_echoes_through_the_streams_and_its_end_cannot_be_reopened() {
        let (child, mut referee) = socket_pairs().expect("socket pairs");
        let mut cat = tokio::process::Command::new("cat")
            .stdin(child.stdin)
            .stdout(child.stdout)
            .stderr(child.stderr)
            .kill_on_drop(true)
            .spawn()
            .expect("cat starts");
        let pid = cat.id().expect("pid");
        let reopened = std::fs::OpenOptions::new()
            .write(true)
            .open(format!("/proc/{pid}/fd/1"));
        assert_eq!(
            reopened.map_err(|e| e.raw_os_error()).err(),
            Some(Some(libc::ENXIO)),
            "a socket cannot be opened through /proc"
        );
        referee.stdin.write_all(b"e5\n").await.expect("write");
        referee.stdin.shutdown().await.expect("close stdin");
        let mut out = String::new();
        let mut stdout = UnixStream::from_std(referee.stdout).expect("register");
        stdout.read_to_string(&mut out).await.expect("read");
        assert_eq!(out, "e5\n");
        assert!(cat.wait().await.expect("exit").success());
    }
}
