//! Standard output that a reader may close under us (`arena sprt … | head -1`).
//!
//! Every line `arena` prints goes through [`say!`] (or [`say_raw!`]): when a write
//! fails, standard output is marked closed and nothing more is written to it. The
//! run notices ([`is_closed`]) and stops as on a signal, keeping every finished
//! game, so a closed pipe can never turn the exit code a run earned into a 0 (a
//! `println!` would panic, and a quiet exit on that panic was exit 0).

use std::io::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};

static CLOSED: AtomicBool = AtomicBool::new(false);
static TO_STDERR: AtomicBool = AtomicBool::new(false);

/// Sends what [`say!`] prints to standard error from now on, keeping standard
/// output for one machine-readable object (`--json`).
pub fn words_to_stderr() {
    TO_STDERR.store(true, Ordering::Relaxed);
}

/// Writes `text` to standard output whatever [`words_to_stderr`] said (the
/// `--json` object), unless it is closed.
pub fn write_data(text: &str) {
    if is_closed() {
        return;
    }
    let mut out = std::io::stdout().lock();
    if out
        .write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .is_err()
    {
        CLOSED.store(true, Ordering::Relaxed);
    }
}

/// Whether a write to standard output has failed (the reader went away).
pub fn is_closed() -> bool {
    CLOSED.load(Ordering::Relaxed)
}

/// Writes `text` to standard output unless it is closed; a failed write closes it.
pub fn write(text: std::fmt::Arguments<'_>) {
    if TO_STDERR.load(Ordering::Relaxed) {
        let _ = std::io::stderr().lock().write_fmt(text);
        return;
    }
    if is_closed() {
        return;
    }
    let mut out = std::io::stdout().lock();
    if out.write_fmt(text).and_then(|()| out.flush()).is_err() {
        CLOSED.store(true, Ordering::Relaxed);
    }
}

/// `println!` that never panics: see the module documentation.
#[macro_export]
macro_rules! say {
    () => {
        $crate::stdout::write(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::stdout::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` that never panics: see the module documentation.
#[macro_export]
macro_rules! say_raw {
    ($($arg:tt)*) => {
        $crate::stdout::write(format_args!($($arg)*))
    };
}
