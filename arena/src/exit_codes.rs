//! Every exit code `arena` uses, in one place. Documented in docs/guide/ci.md.

/// An exit code with its meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Code(pub u8);

impl From<Code> for std::process::ExitCode {
    fn from(code: Code) -> Self {
        std::process::ExitCode::from(code.0)
    }
}

/// Success (for `arena sprt`: H1 accepted).
pub const OK: Code = Code(0);
/// A runtime failure (for `arena sprt`: H0 accepted, a regression; for
/// `arena check`: a step failed; for `arena gauntlet`: score below threshold).
pub const FAILURE: Code = Code(1);
/// Bad usage or configuration: a flag, a file, a bot spec, a results directory
/// another run is writing. Nothing was played.
pub const USAGE: Code = Code(2);
/// `arena sprt` reached `--max-games` with no decision.
pub const INCONCLUSIVE: Code = Code(3);
/// Infrastructure failure: a bot could not be started or failed its handshake
/// (found by the preflight before any game, or during the run), whatever the score.
pub const INFRASTRUCTURE: Code = Code(4);
/// The machine was overloaded: a bot that plays by the clock got less than its
/// share of the CPU in a game the verdict (`sprt`, `gauntlet --min-score`,
/// `rate`) would rest on, so none is stated.
pub const OVERLOADED: Code = Code(5);
/// Stopped by SIGHUP (the terminal closed); finished games are saved and the run
/// can resume.
pub const HANGUP: Code = Code(129);
/// Interrupted by Ctrl-C (SIGINT); finished games are saved and the run can resume.
pub const INTERRUPTED: Code = Code(130);
/// Standard output was closed before the run had a result (`arena … | head -1`);
/// finished games are saved and the run can resume.
pub const CLOSED_OUTPUT: Code = Code(141);
/// Stopped by SIGTERM (CI runners, Slurm, Kubernetes, systemd); finished games are
/// saved and the run can resume.
pub const TERMINATED: Code = Code(143);

/// A mistake the user must fix before anything can be played — a flag, a
/// file, a bot, a results directory — said as `error: …` with exit 2 (`main`
/// maps it, in one place). Commands return it as an error like any other.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

impl UsageError {
    /// `message` as a usage error, ready for `?`.
    pub fn of(message: impl Into<String>) -> anyhow::Error {
        UsageError(message.into()).into()
    }
}

/// What `code` means, in words (summary.json's `exit_reason`).
pub const fn meaning(code: Code) -> &'static str {
    match code.0 {
        0 => "success",
        1 => "failure",
        2 => "bad usage or configuration; nothing was played",
        3 => "sprt: no decision within --max-games",
        4 => "a bot could not be started or failed its handshake",
        5 => {
            "inconclusive: the machine was overloaded (a timed bot got less than its share of the CPU)"
        }
        129 => "stopped by SIGHUP; finished games kept",
        130 => "stopped by Ctrl-C (SIGINT); finished games kept",
        141 => "standard output was closed before the run had a result; finished games kept",
        143 => "stopped by SIGTERM; finished games kept",
        _ => "unknown",
    }
}

/// The table of docs/guide/ci.md and `arena --help`: every code, what it means.
pub const TABLE: &str = "\
Exit codes (match, gauntlet, sprt, tournament):
  0    success (sprt: H1 accepted; gauntlet: PASS or no --min-score)
  1    failure (sprt: H0 accepted, a regression; gauntlet: FAIL; check: a step failed)
  2    bad usage or configuration; nothing was played
  3    sprt: --max-games reached with no decision
  4    a bot could not be started or failed its handshake (whatever the score)
  5    inconclusive: the machine was overloaded, so sprt, gauntlet --min-score
       and rate state no verdict (a timed bot got under 80% of the CPU it asked
       for in a game, even after the governor played it again)
  129  stopped by SIGHUP; finished games kept, run the same command to resume
  130  stopped by Ctrl-C (SIGINT); likewise
  141  standard output closed before the run had a result (e.g. | head); likewise
  143  stopped by SIGTERM; likewise";
