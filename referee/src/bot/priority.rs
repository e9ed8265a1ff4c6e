//! A timed bot's claim on the CPU: its scheduling priority, raised above the
//! machine's other work where the referee may raise it (root, or
//! `CAP_SYS_NICE`), so that a bot that thinks by the clock gets the CPU time
//! it was promised however busy the machine is (issue 50's governor).
//!
//! Two knobs, because Linux has two places a priority counts:
//! - the task's nice value, which orders it against the tasks of its own
//!   scheduling group;
//! - its session's autogroup (`/proc/self/autogroup`, where autogrouping is
//!   on), which orders that whole session against every other session: a bot
//!   runs in a session of its own, so without this its nice value would
//!   order it only against itself, and each busy program of another session
//!   would weigh as much as the bot.
//!
//! Both are set by the launcher before it changes uid (a bot cannot raise
//! them back once lowered, nor raise them at all without the privilege).
//! What a bot does with the priority is charged by its clock like any other
//! CPU time; the referee's own threads keep theirs.

use std::io::Write as _;

/// The nice value the governor gives timed bots: the highest. Measured on two
/// cores (BENCHMARKS.md, "The governor"): at -20 a bot beside four busy
/// programs a core waited 2–9% of its move time; at -10, 30–35%; unraised,
/// 84–87%.
pub const RAISED: i32 = -20;

/// Sets the calling process's nice value to `nice`, and its session's
/// autogroup too when `own_session` (a bot that shares the referee's session,
/// under `--sandbox none`, must not raise the operator's shell), as far as it
/// may (a failure leaves the priority as it was: the bot still runs, the
/// governor sees its wait).
pub fn raise_own(nice: i32, own_session: bool) {
    let _ = rustix::process::setpriority_process(None, nice);
    if !own_session {
        return;
    }
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .write(true)
        .open("/proc/self/autogroup")
    {
        // One write: the kernel parses each write whole (`write!` would send
        // the sign and the digits apart, and "-" alone is refused).
        let _ = file.write_all(nice.to_string().as_bytes());
    }
}

/// Whether this process may raise a bot's priority: it is root (or holds
/// `CAP_SYS_NICE`, which the launcher keeps until the uid changes). Probed
/// by raising, then restoring, the calling thread's own nice value.
pub fn can_raise() -> bool {
    static CAN: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *CAN.get_or_init(|| {
        let Ok(before) = rustix::process::getpriority_process(None) else {
            return false;
        };
        if before <= RAISED {
            return true;
        }
        let raised = rustix::process::setpriority_process(None, before - 1).is_ok();
        if raised {
            let _ = rustix::process::setpriority_process(None, before);
        }
        raised
    })
}
