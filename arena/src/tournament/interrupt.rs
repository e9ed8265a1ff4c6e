//! Interruptions (Ctrl-C, SIGTERM, SIGHUP, a closed standard output) while work
//! runs outside [`run_games`](super::run::run_games), which watches for them on
//! its own: the builds before a run, the checks of `arena check --config`.
//!
//! Once the runtime has watched a signal, the process no longer dies of it:
//! the signal is only recorded. So work that must stop on one runs inside
//! [`watching`], which turns the signal into an [`Interruption`] the work can
//! wait on ([`Watch::interrupted`]) or poll ([`Watch::caught`]), and the caller
//! reports it and exits with its code like any interrupted run.

use tokio::sync::{Notify, watch};

use super::run::interruption;
use super::runner::{self, Interruption};

/// What the work sees of a pending interruption.
#[derive(Clone, Debug)]
pub struct Watch {
    caught: watch::Receiver<Option<Interruption>>,
}

impl Watch {
    /// The interruption, if one has come.
    pub fn caught(&self) -> Option<Interruption> {
        *self.caught.borrow()
    }

    /// Waits for an interruption (in any runtime); pending forever if the
    /// watcher is gone without one.
    pub async fn interrupted(&self) -> Interruption {
        let mut caught = self.caught.clone();
        match caught.wait_for(Option::is_some).await {
            Ok(why) => why.unwrap_or(Interruption::Interrupt),
            Err(_) => std::future::pending().await,
        }
    }
}

/// Runs `work` while a thread of its own watches for an interruption, and
/// returns what `work` returned and the interruption, if one came. Without a
/// runtime to watch with, `work` runs unwatched (signals keep their default
/// action, which ends the process).
pub fn watching<T>(work: impl FnOnce(&Watch) -> T) -> (T, Option<Interruption>) {
    let (tell, caught) = watch::channel(None);
    let watch = Watch { caught };
    let done = Notify::new();
    let result = std::thread::scope(|scope| {
        let watcher = scope.spawn(|| {
            let Ok(runtime) = runner::runtime(1) else {
                return;
            };
            runtime.block_on(async {
                tokio::select! {
                    why = interruption() => {
                        let _ = tell.send(Some(why));
                    }
                    () = done.notified() => {}
                }
            });
        });
        let result = work(&watch);
        done.notify_one();
        let _ = watcher.join();
        result
    });
    let why = watch.caught();
    (result, why)
}
