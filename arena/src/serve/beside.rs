//! The live page beside a run (`--serve`), in a process of its own.
//!
//! A viewer must never change a result. In the referee's own process every
//! connection a viewer opens takes one of the descriptors the referee needs to
//! start bots (400 idle event streams under a limit of 300 made bots fail to
//! start, and their games were lost by forfeit), and every page it renders takes
//! its time and memory. So the run binds the address (an error there is the
//! user's, at once) and hands the listening socket to `arena __live-page`, the
//! same executable in a process of its own: its own descriptor table, its own
//! memory (the machine's OOM killer picks it, not the referee), at a lower CPU
//! priority (nice 10), reading the results directory as `arena serve` does. It
//! dies with the run (parent-death signal) and never writes a file.

use std::ffi::OsString;
use std::net::SocketAddr;
use std::os::fd::{AsFd as _, OwnedFd};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use anyhow::Context as _;

use super::{Options, bind, serve, url};

/// The hidden first argument that turns the arena's executable into the page
/// process: `arena __live-page PARENT_PID [--show-logs] DIR`, the listening socket
/// as its standard input.
pub const PAGE_ARG: &str = "__live-page";

/// How much lower the page's CPU priority is than the run's.
const NICENESS: i32 = 10;

/// Starts the live page of `dir` on `addr` beside the run, in a process of its
/// own. Call it from the run's main thread: the page dies with the thread that
/// started it.
///
/// # Errors
/// The address cannot be bound, or the process cannot be started.
pub fn beside(addr: SocketAddr, dir: PathBuf, show_logs: bool) -> anyhow::Result<()> {
    let listener = bind(addr)?;
    let shown = url(&listener);
    let exe = std::env::current_exe().context("finding the arena executable")?;
    let mut command = Command::new(exe);
    command.arg(PAGE_ARG).arg(std::process::id().to_string());
    if show_logs {
        command.arg("--show-logs");
    }
    let mut child = command
        .arg(&dir)
        .stdin(Stdio::from(OwnedFd::from(listener)))
        .stdout(Stdio::null())
        .spawn()
        .context("starting the live page's process")?;
    // The parent's copy of the socket went with `command`.
    drop(command);
    eprintln!("Live page: {shown}");
    std::thread::Builder::new()
        .name("live-page".into())
        .spawn(move || {
            if let Ok(status) = child.wait()
                && !status.success()
            {
                eprintln!("warning: the live page stopped ({status}); the run goes on");
            }
        })
        .context("starting the live page's watcher")?;
    Ok(())
}

/// Runs the page process on the arguments after [`PAGE_ARG`]. Never returns.
pub fn page_process(args: &[OsString]) -> ! {
    let code = match run_page(args) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("warning: the live page: {e:#}");
            1
        }
    };
    std::process::exit(code)
}

fn run_page(args: &[OsString]) -> anyhow::Result<()> {
    let usage = || anyhow::anyhow!("usage: arena {PAGE_ARG} PARENT_PID [--show-logs] DIR");
    let (parent, rest) = args.split_first().ok_or_else(usage)?;
    let parent: i32 = parent
        .to_str()
        .and_then(|p| p.parse().ok())
        .ok_or_else(usage)?;
    let show_logs = rest.first().is_some_and(|a| a == "--show-logs");
    let dir = rest.get(usize::from(show_logs)).ok_or_else(usage)?;
    // Killed with the run, even by SIGKILL; and gone already if it went first.
    nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL)
        .context("setting the parent-death signal")?;
    if nix::unistd::getppid().as_raw() != parent {
        anyhow::bail!("the run is gone");
    }
    let _ = rustix::process::setpriority_process(None, NICENESS);
    let socket = std::io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .context("taking the listening socket")?;
    let listener = std::net::TcpListener::from(socket);
    listener.set_nonblocking(true)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?;
    let options = Options {
        dirs: vec![PathBuf::from(dir)],
        show_logs,
    };
    runtime.block_on(serve(listener, options, std::future::pending()))
}
