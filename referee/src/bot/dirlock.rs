//! Holding a directory with an advisory lock (`flock`), so that other referees can
//! tell a directory in use from one abandoned by a referee that died.
//!
//! The kernel drops the lock when its owner dies, however it dies, and a lock
//! works across PID namespaces, where a process ID in a name would not say whether
//! its owner is alive. Used for scratch directories and for the bots' cgroups
//! (cgroupfs directories take `flock` like any other).

use std::fs::{self, File, TryLockError};
use std::io;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

/// Opens and locks `dir` (without waiting), checking that the path still names
/// the locked directory: a sweeper may have removed it, or removed and recreated
/// it, between the open and the lock.
///
/// # Errors
/// The directory cannot be opened, another process holds it, or it was replaced.
pub(crate) fn lock(dir: &Path) -> io::Result<File> {
    let file = File::open(dir)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            return Err(io::Error::other(format!(
                "{} is locked by another referee",
                dir.display()
            )));
        }
        Err(TryLockError::Error(e)) => return Err(e),
    }
    let (held, named) = (file.metadata()?, fs::symlink_metadata(dir)?);
    if (held.dev(), held.ino()) != (named.dev(), named.ino()) {
        return Err(io::Error::other(format!(
            "{} was replaced while it was being locked",
            dir.display()
        )));
    }
    Ok(file)
}

/// Whether `error` (from [`lock`] or any `flock`) says that this file system
/// keeps no locks (`ENOLCK` from some network mounts, "unsupported" from some FUSE
/// mounts) rather than that the lock is taken. Callers then go on without it.
pub fn locks_unsupported(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::Unsupported
        || error.raw_os_error() == Some(nix::errno::Errno::ENOLCK as i32)
}

/// Hands every directory in `parent` whose name starts with `prefix` and that
/// nobody holds to `remove`, holding it meanwhile, so that a referee that created
/// it a moment ago cannot lock it half-removed (it tries another name). Returns
/// the paths `remove` says it removed. Best effort: a directory that cannot be
/// opened or locked (another user's, say) is left alone.
pub(crate) fn sweep_unheld(
    parent: &Path,
    prefix: &str,
    remove: impl Fn(&Path) -> bool,
) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(parent) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|entry| {
            entry
                .file_name()
                .to_str()
                .is_some_and(|n| n.starts_with(prefix))
                && entry.file_type().is_ok_and(|t| t.is_dir())
        })
        .map(|entry| entry.path())
        .filter(|path| lock(path).is_ok_and(|_held| remove(path)))
        .collect()
}
