//! Waiting for what the kernel finishes in its own time: a SIGKILLed process dies
//! when it is next scheduled, a cgroup empties once its last member has.
//!
//! These waits come at a bot's end, usually last a few hundred microseconds, and
//! have nothing to be woken by, so they poll: with short sleeps at first (tokio's
//! timer would round each up to a millisecond, so callers in async code run this
//! on a blocking thread) and longer ones if the wait drags on.

use std::time::{Duration, Instant};

/// The first pause; each next one is twice as long, up to [`LONGEST_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_micros(100);
const LONGEST_PAUSE: Duration = Duration::from_millis(10);

/// Calls `done` until it returns true, for at most `bound`. Returns whether it
/// did. Blocks the thread.
pub(crate) fn until(bound: Duration, mut done: impl FnMut() -> bool) -> bool {
    let give_up = Instant::now() + bound;
    let mut pause = FIRST_PAUSE;
    loop {
        if done() {
            return true;
        }
        if Instant::now() >= give_up {
            return false;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(LONGEST_PAUSE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_stops_when_done_and_gives_up_at_the_bound() {
        let mut calls = 0;
        assert!(until(Duration::from_secs(5), || {
            calls += 1;
            calls == 3
        }));
        assert_eq!(calls, 3);
        let started = Instant::now();
        assert!(!until(Duration::from_millis(20), || false));
        assert!(started.elapsed() >= Duration::from_millis(20));
    }
}
