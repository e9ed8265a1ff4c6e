//! The progress bar, built in one place: a live bar on a terminal (games done of
//! total, rate, ETA, and a line with the leader and the latest result, cut to the
//! terminal's width), and a hidden one off a terminal or with `--quiet`, so logs
//! and tests stay clean.
//!
//! The bar is drawn [`DRAWS_PER_SECOND`] times a second whatever the rate of
//! games, and its message is worth composing no more often ([`Pace`]): a run of
//! instant bots finishes hundreds of games between two draws.

use std::io::IsTerminal as _;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// A bar for `total` games on stderr, hidden unless stderr is a terminal and
/// `quiet` is off.
pub fn games_bar(total: u64, done: u64, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(
        Some(total),
        ProgressDrawTarget::stderr_with_hz(DRAWS_PER_SECOND),
    );
    if let Ok(style) = ProgressStyle::with_template(
        "{elapsed_precise} [{wide_bar:.cyan/blue}] {pos}/{len} games {per_sec} ETA {eta}\n{wide_msg}",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_position(done);
    bar.reset_eta();
    bar.enable_steady_tick(Duration::from_millis(250));
    bar
}

/// When the run is expected to end, as its command last estimated it
/// ([`crate::eta`]); `None` until it can say.
pub type Until = Arc<Mutex<Option<Instant>>>;

/// [`games_bar`] whose time left is the command's estimate (`until`), counted
/// down between two games, instead of the bar's own (which, before the first
/// game ends, takes the wait for slowness and climbs).
pub fn games_bar_until(total: u64, done: u64, quiet: bool, until: &Until) -> ProgressBar {
    let bar = games_bar(total, done, quiet);
    if bar.is_hidden() {
        return bar;
    }
    let until = until.clone();
    let left = move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
        let at = until.lock().ok().and_then(|u| *u);
        let _ = match at {
            Some(at) => write!(
                w,
                "about {} left",
                crate::eta::words(at.saturating_duration_since(Instant::now()))
            ),
            None => write!(w, "estimating the time left…"),
        };
    };
    if let Ok(style) = ProgressStyle::with_template(
        "{elapsed_precise} [{wide_bar:.cyan/blue}] {pos}/{len} games {per_sec} {left}\n{msg}",
    ) {
        bar.set_style(style.progress_chars("=> ").with_key("left", left));
    }
    bar
}

/// How often a visible bar is redrawn.
pub const DRAWS_PER_SECOND: u8 = 8;

/// Says when a bar's message is due again: on the first game, then at most
/// [`DRAWS_PER_SECOND`] times a second, and never for a hidden bar, so what the
/// message shows is computed only when it can be seen.
#[derive(Debug, Default)]
pub struct Pace {
    last: Option<Instant>,
}

impl Pace {
    /// Whether to compose `bar`'s message now (and if so, the time is noted).
    pub fn due(&mut self, bar: &ProgressBar) -> bool {
        if bar.is_hidden() {
            return false;
        }
        let now = Instant::now();
        let every = Duration::from_secs(1) / u32::from(DRAWS_PER_SECOND);
        if self
            .last
            .is_some_and(|last| now.duration_since(last) < every)
        {
            return false;
        }
        self.last = Some(now);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hidden_bar_never_asks_for_its_message_and_a_visible_one_at_a_bounded_rate() {
        let mut pace = Pace::default();
        assert!(!pace.due(&ProgressBar::hidden()));
        let bar = ProgressBar::with_draw_target(Some(10), ProgressDrawTarget::hidden());
        // A bar drawn nowhere is hidden too.
        assert!(!pace.due(&bar));
        let shown =
            ProgressBar::with_draw_target(Some(10), ProgressDrawTarget::term_like(Box::new(Sink)));
        assert!(pace.due(&shown));
        let again = (0..1000).filter(|_| pace.due(&shown)).count();
        assert!(
            again <= 1,
            "{again} messages composed in a burst of 1000 games"
        );
    }

    /// A terminal that shows nothing, for a bar that is not hidden.
    #[derive(Debug)]
    struct Sink;

    impl indicatif::TermLike for Sink {
        fn width(&self) -> u16 {
            80
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, _: &str) -> std::io::Result<()> {
            Ok(())
        }
        fn write_str(&self, _: &str) -> std::io::Result<()> {
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }
}
