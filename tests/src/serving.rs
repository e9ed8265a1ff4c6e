//! A running `arena` (a live page, a run beside one) and plain HTTP requests to it,
//! for the tests of the live page.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use crate::arena_bin;

/// A child process with its output lines arriving on a channel.
#[derive(Debug)]
pub struct Running {
    /// The process.
    pub child: Child,
    /// Its standard output and error, line by line.
    pub lines: Receiver<String>,
}

impl Running {
    /// Starts `arena ARGS…`.
    pub fn start(args: &[&str]) -> Running {
        let mut command = Command::new(arena_bin());
        command.args(args);
        Running::spawn(command)
    }

    /// Starts `command` (an `arena` behind a wrapper, say).
    #[allow(clippy::expect_used)]
    pub fn spawn(mut command: Command) -> Running {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start arena");
        let (tx, lines) = channel();
        for stream in [
            Box::new(child.stdout.take().expect("stdout")) as Box<dyn std::io::Read + Send>,
            Box::new(child.stderr.take().expect("stderr")),
        ] {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    if tx.send(line).is_err() {
                        return;
                    }
                }
            });
        }
        Running { child, lines }
    }

    /// The first `http://…/` address printed.
    #[allow(clippy::panic)]
    pub fn url(&self) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut seen = Vec::new();
        while Instant::now() < deadline {
            if let Ok(line) = self.lines.recv_timeout(Duration::from_millis(100)) {
                if let Some(at) = line.find("http://") {
                    let url: String = line[at..].split_whitespace().next().unwrap_or("").into();
                    return url;
                }
                seen.push(line);
            }
        }
        panic!("no address printed; output: {seen:#?}");
    }

    /// Sends SIGINT and waits (20 s at most, then kills).
    pub fn interrupt(&mut self) {
        let pid = nix::unistd::Pid::from_raw(self.child.id() as i32);
        let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT);
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        self.kill();
    }

    /// Kills and reaps it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.kill();
    }
}

/// One HTTP/1.1 request as written (no normalisation of the path): status, head
/// (lower case) and body.
#[allow(clippy::expect_used)]
pub fn http(base: &str, path: &str) -> (u16, String, String) {
    let host = base
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    let mut stream = TcpStream::connect(&host).expect("connect to the server");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .expect("send request");
    let mut text = String::new();
    stream.read_to_string(&mut text).expect("read response");
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, head.to_ascii_lowercase(), body.to_string())
}
