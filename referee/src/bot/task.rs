//! A command run to its end under a bot's isolation: a build step (`g++ -o bot
//! main.cpp`, `make`) is as untrusted as the bot it builds, so it starts the way
//! a bot does ([`BotProcess::spawn`]: own process group, clean environment, the
//! launcher's limits and sandbox layers) and is killed, group and all, at its
//! deadline. What it printed comes back as an escaped tail.
//!
//! A task speaks no protocol: its standard output is only drained. Callers that
//! want one stream merge standard output into standard error in the command
//! itself (`exec 1>&2`), whose last [`STDERR_TAIL_BYTES`](super::STDERR_TAIL_BYTES)
//! are kept.

use std::time::Duration;

use tokio::time::Instant;

use super::command::BotCommand;
use super::process::{BotProcess, ExitInfo, Next, SpawnError};
use super::reader::StdoutEvent;

/// How a task ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskEnd {
    /// It exited (or was killed by a signal, or for its memory) on its own.
    Exited(ExitInfo),
    /// It was still running at its deadline and was killed.
    TimedOut(Duration),
}

impl TaskEnd {
    /// Whether the task exited with code 0.
    pub fn succeeded(self) -> bool {
        self == TaskEnd::Exited(ExitInfo::Code(0))
    }
}

impl std::fmt::Display for TaskEnd {
    /// "exit code 1", "signal 9 (SIGKILL)", "still running after 120 s (killed)".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TaskEnd::Exited(exit) => write!(f, "{exit}"),
            TaskEnd::TimedOut(limit) => {
                write!(f, "still running after {} s (killed)", limit.as_secs())
            }
        }
    }
}

/// What a finished task left.
#[derive(Clone, Debug)]
pub struct TaskOutcome {
    /// How it ended.
    pub end: TaskEnd,
    /// The tail of its standard error, escaped line by line.
    pub output: String,
    /// How long it ran.
    pub elapsed: Duration,
}

/// Runs `command` until it exits or `limit` passes (then its whole group is
/// killed), and reaps everything it started.
///
/// # Errors
/// [`SpawnError`] when the process cannot be created at all.
pub async fn run_to_end(command: &BotCommand, limit: Duration) -> Result<TaskOutcome, SpawnError> {
    let started = Instant::now();
    let deadline = started + limit;
    let mut process = BotProcess::spawn(command)?;
    let end = loop {
        match process.next(deadline).await {
            Next::Event(StdoutEvent::Line { .. } | StdoutEvent::TooLong { .. }) => {}
            Next::Event(StdoutEvent::Closed { .. }) => {
                // Its stdout is closed; it may still be running: wait for the exit.
                let left = deadline.saturating_duration_since(Instant::now());
                match process.wait_exit(left).await {
                    Some(exit) => break TaskEnd::Exited(exit),
                    None => break TaskEnd::TimedOut(limit),
                }
            }
            Next::Exited(exit) => break TaskEnd::Exited(exit),
            Next::Deadline => break TaskEnd::TimedOut(limit),
        }
    };
    process.settle_stderr().await;
    let (output, _) = process.stderr_log();
    // Also after a clean exit: whatever it left running in its group goes too.
    process.kill().await;
    let end = match (end, process.exit_info()) {
        // The memory watch may have been what ended it.
        (TaskEnd::Exited(_), Some(exit @ ExitInfo::OverMemory { .. })) => TaskEnd::Exited(exit),
        (end, _) => end,
    };
    Ok(TaskOutcome {
        end,
        output,
        elapsed: started.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell(line: &str) -> BotCommand {
        let mut command = BotCommand::new("/bin/sh");
        command.args = vec!["-c".into(), line.into()];
        command
    }

    fn run(line: &str, limit: Duration) -> TaskOutcome {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(run_to_end(&shell(line), limit)).unwrap()
    }

    #[test]
    fn a_task_that_exits_reports_its_code_and_its_output() {
        let done = run(
            "exec 1>&2; echo compiling; echo 'error: x' ; exit 3",
            Duration::from_secs(10),
        );
        assert_eq!(done.end, TaskEnd::Exited(ExitInfo::Code(3)));
        assert_eq!(done.output, "compiling\nerror: x\n");
        assert!(!done.end.succeeded());
        assert!(run("true", Duration::from_secs(10)).end.succeeded());
    }

    #[test]
    fn a_task_past_its_deadline_is_killed() {
        let done = run("echo started >&2; sleep 30", Duration::from_millis(300));
        assert_eq!(done.end, TaskEnd::TimedOut(Duration::from_millis(300)));
        assert_eq!(done.output, "started\n");
        assert!(done.elapsed < Duration::from_secs(10));
        assert_eq!(done.end.to_string(), "still running after 0 s (killed)");
    }

    #[test]
    fn what_a_task_prints_is_escaped() {
        let done = run("printf '\\033[2Jred\\n' >&2", Duration::from_secs(10));
        assert_eq!(done.output, "\\x1b[2Jred\n");
    }
}
