//! `arena report DIR [-o FILE]`: the HTML report of a results directory; also
//! written by `arena tournament` when it ends ([`after_tournament`]).

use std::path::Path;

use crate::cli::ReportArgs;
use crate::exit_codes::{self, Code};
use crate::report;

/// Runs `arena report`.
///
/// # Errors
/// Never: every failure is printed and mapped to an exit code.
pub fn run(args: &ReportArgs) -> anyhow::Result<Code> {
    if !args.dir.is_dir() {
        eprintln!(
            "error: {} is not a directory: give the results directory of `arena tournament` or `arena match --out`",
            args.dir.display()
        );
        return Ok(exit_codes::USAGE);
    }
    let reader = if args.teacher {
        report::league::Reader::Teacher
    } else {
        report::league::Reader::Class
    };
    match report::write(&args.dir, args.output.as_deref(), reader) {
        Ok(path) => {
            crate::say!("Report written to {}", path.display());
            Ok(exit_codes::OK)
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            Ok(exit_codes::FAILURE)
        }
    }
}

/// Writes `out/report.html` at the end of a tournament of `games` games. The games
/// are already safe on disk, so a report that cannot be written is a warning, not a
/// failed run. Past [`crate::defaults::REPORT_MAX_GAMES`] it is left to `arena
/// report`: the page holds every game, so its size and the memory that writes it
/// grow with the games, while the run's own memory does not.
pub fn after_tournament(out: &Path, games: u64) {
    if games > crate::defaults::REPORT_MAX_GAMES {
        crate::say!(
            "Report: not written at the end of a run of {games} games (more than {}: the page \
             holds every game); `arena report {}` writes it",
            crate::defaults::REPORT_MAX_GAMES,
            out.display()
        );
        return;
    }
    match report::write(out, None, report::league::Reader::Class) {
        Ok(path) => crate::say!("Report: {}", path.display()),
        Err(e) => eprintln!("warning: no report: {e:#}"),
    }
}
