//! A bot's private scratch directory, and the clean-up of those a killed referee
//! left behind.
//!
//! The directory is mode 0700 from its creation (handed to the bot's uid by the
//! sandbox when it has one): without Landlock or bubblewrap the file modes are
//! all that keep an opponent under another uid out of what a bot leaves there.
//!
//! A directory is removed when its bot process is dropped, but a referee killed
//! with SIGKILL (or by the machine's OOM killer) never gets there, and a killed
//! tournament that is resumed many times would fill the temporary directory with
//! them. So each referee holds every scratch directory it owns ([`super::dirlock`]),
//! and sweeps away, once, every scratch directory nobody holds, whether its
//! referee shared this PID namespace or not (say another container sharing
//! `/tmp`): when a run starts ([`sweep_abandoned`]), and at the latest when it
//! starts its first bot.

use std::fs::{self, File, Permissions};
use std::io;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::Once;

use super::dirlock::{lock, locks_unsupported, sweep_unheld};

/// Name prefix of scratch directories in the temporary directory.
const PREFIX: &str = "uttt-bot-";
/// Only the bot's own uid may list, read or enter its scratch directory.
const MODE: u32 = 0o700;
/// A new directory that loses the race with another referee's sweep (see
/// [`Scratch::create`]) is tried again this many times.
const ATTEMPTS: usize = 8;

/// A scratch directory, locked by this process for as long as it lives and
/// removed on drop.
#[derive(Debug)]
pub(crate) struct Scratch {
    dir: tempfile::TempDir,
    /// Holds the lock; the directory is removed before it is released. `None`
    /// on a file system without locks.
    _lock: Option<File>,
}

impl Scratch {
    /// Creates and locks a new scratch directory in the temporary directory,
    /// after [`sweep_abandoned`] if this process has not swept yet.
    ///
    /// # Errors
    /// The directory cannot be created, opened or locked.
    pub(crate) fn create() -> io::Result<Scratch> {
        sweep_abandoned();
        let tmp = std::env::temp_dir();
        let mut last = io::Error::other("no attempt made");
        for _ in 0..ATTEMPTS {
            let dir = tempfile::Builder::new()
                .prefix(PREFIX)
                .permissions(Permissions::from_mode(MODE))
                .tempdir_in(&tmp)?;
            // Another referee's sweep may take the directory between its creation
            // and the lock: then the lock is refused (the sweep holds it) or the
            // path is gone or is no longer the directory that was locked.
            match lock(dir.path()) {
                Ok(lock) => {
                    return Ok(Scratch {
                        dir,
                        _lock: Some(lock),
                    });
                }
                // No locks on this file system: the bot still gets its directory
                // (removed on drop as ever); only the sweep after a SIGKILLed
                // referee cannot tell it from an abandoned one, and leaves it.
                Err(e) if locks_unsupported(&e) => return Ok(Scratch { dir, _lock: None }),
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    /// The directory.
    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// Removes, the first time a process calls it, the scratch directories of the
/// referees that are gone from the temporary directory.
///
/// A run calls it when it starts, before it knows whether it has anything left
/// to play: a referee killed after its last game but before its exit leaves its
/// bots' directories, and the resumed run that finds every game recorded starts
/// no bot, so a sweep tied to the first bot alone would leave them for good.
pub fn sweep_abandoned() {
    static SWEEP: Once = Once::new();
    SWEEP.call_once(|| {
        remove_abandoned(&std::env::temp_dir());
    });
}

/// Removes every scratch directory in `tmp` that no live process holds, and
/// returns their paths.
pub(crate) fn remove_abandoned(tmp: &Path) -> Vec<PathBuf> {
    sweep_unheld(tmp, PREFIX, |dir| fs::remove_dir_all(dir).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_unlocked_scratch_directories_are_swept() {
        let tmp = tempfile::tempdir().unwrap();
        let abandoned = tmp.path().join("uttt-bot-abandoned");
        fs::create_dir(&abandoned).unwrap();
        fs::write(abandoned.join("bot-output"), "left behind").unwrap();
        let live = tmp.path().join("uttt-bot-live");
        fs::create_dir(&live).unwrap();
        let holder = lock(&live).unwrap();
        let unrelated = tmp.path().join("not-a-bot");
        fs::create_dir(&unrelated).unwrap();
        let plain_file = tmp.path().join("uttt-bot-file");
        fs::write(&plain_file, "").unwrap();

        assert_eq!(remove_abandoned(tmp.path()), vec![abandoned.clone()]);
        assert!(!abandoned.exists());
        assert!(live.is_dir() && unrelated.is_dir() && plain_file.is_file());

        // Once its holder is gone, the live one is abandoned too. A process
        // that another test's thread forks in the meantime holds the lock
        // until it execs (the descriptor is shared until then): on a busy
        // machine that can be a moment, so the sweep is asked again.
        drop(holder);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let swept = loop {
            let swept = remove_abandoned(tmp.path());
            if !swept.is_empty() || std::time::Instant::now() > deadline {
                break swept;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        assert_eq!(swept, vec![live.clone()]);
    }

    #[test]
    fn a_scratch_directory_is_locked_while_it_lives_and_removed_after() {
        let scratch = Scratch::create().unwrap();
        let path = scratch.path().to_path_buf();
        assert!(lock(&path).is_err(), "held by its owner");
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o700, "private to the bot: {mode:o}");
        drop(scratch);
        assert!(!path.exists());
    }
}
