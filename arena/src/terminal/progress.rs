//! The progress bar, built in one place: a live bar on a terminal (games done of
//! total, rate, ETA, and a line with the leader and the latest result), and a
//! hidden one off a terminal or with `--quiet`, so logs and tests stay clean.

use std::io::IsTerminal as _;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar for `total` games on stderr, hidden unless stderr is a terminal and
/// `quiet` is off.
pub fn games_bar(total: u64, done: u64, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr_with_hz(8));
    if let Ok(style) = ProgressStyle::with_template(
        "{elapsed_precise} [{wide_bar:.cyan/blue}] {pos}/{len} games {per_sec} ETA {eta}\n{msg}",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_position(done);
    bar.reset_eta();
    bar.enable_steady_tick(Duration::from_millis(250));
    bar
}
