//! The bot's process group: kill it, and know when it is really gone.
//!
//! `killpg(SIGKILL)` returns once the signal is queued. A member that is running
//! on a busy machine acts on it only when it is next scheduled, which can be
//! milliseconds later: CI once saw a forked child still `State: R` with SIGKILL
//! pending after the game had been reported over. "No process left behind" has
//! to mean gone, not doomed, so after the kill the referee waits (bounded) until
//! no member of the group is alive.
//!
//! Zombies count as gone (see [`procfs`]).

use std::time::Duration;

use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use super::{poll, procfs};

/// Sends SIGKILL to every member of the group. ESRCH (nobody left) is the normal
/// case after a clean exit.
pub(crate) fn kill(pgid: Pid) {
    let _ = killpg(pgid, Signal::SIGKILL);
}

/// Waits until no member of the group is alive, for at most `bound`. Returns
/// whether the group is gone.
///
/// The common case (everything already reaped) costs one `killpg(pgid, 0)`;
/// otherwise it polls ([`poll::until`]) on a blocking thread.
pub(crate) async fn wait_gone(pgid: Pid, bound: Duration) -> bool {
    if !has_live_member(pgid) {
        return true;
    }
    tokio::task::spawn_blocking(move || poll::until(bound, || !has_live_member(pgid)))
        .await
        .unwrap_or(false)
}

fn has_live_member(pgid: Pid) -> bool {
    match killpg(pgid, None) {
        Err(Errno::ESRCH) => false,
        // Members exist (EPERM: under another uid, which a non-root referee
        // cannot signal but can still see in /proc); some may be zombies.
        _ => procfs::any_alive_in_group(pgid.as_raw()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_group_of_one_sleeper_is_gone_once_killed_and_reaped() {
        let mut child = tokio::process::Command::new("sleep")
            .arg("30")
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .expect("sleep starts");
        let pgid = Pid::from_raw(i32::try_from(child.id().expect("pid")).expect("pid fits"));
        assert!(has_live_member(pgid), "a sleeping member is alive");
        kill(pgid);
        // Unreaped, the killed leader is a zombie: gone for our purposes.
        assert!(wait_gone(pgid, Duration::from_secs(5)).await);
        child.wait().await.expect("reaped");
        assert!(!has_live_member(pgid));
    }
}
