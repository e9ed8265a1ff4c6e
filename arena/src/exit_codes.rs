//! Every exit code `arena` uses, in one place. Documented in README.md.

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
/// Infrastructure failure: a bot could not be started or kept running.
pub const INFRASTRUCTURE: Code = Code(4);
/// Interrupted by Ctrl-C; finished games are saved and the run can resume.
pub const INTERRUPTED: Code = Code(130);
