//! Showing a bot's own uid the directories it needs below a private one, without
//! bwrap: the interpreter pyenv installs under `/root` (mode 700), say.
//!
//! A uid of its own cannot pass through `/root`, so that bot used to lose its
//! uid and run as root. bwrap solves it by building a filesystem view; where
//! there is no bwrap, the launcher (still root) does the one part that matters:
//! in a private mount namespace it covers the blocking directory with an empty
//! tmpfs (mode 755), recreates the path down to each needed directory, and
//! binds the real directory there read-only. The bot sees `/root` holding only
//! `.pyenv/versions/3.11.7` (everything else of `/root` is hidden, which is
//! better still), and the paths stay the same, so an interpreter finds its
//! libraries where it expects them.
//!
//! The needed directories are opened before the tmpfs hides them and bound
//! from those descriptors. The mount namespace is the bot's alone and ends
//! with it; nothing outside changes.

use std::collections::BTreeMap;
use std::fs::File;
use std::os::fd::AsRawFd as _;
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use nix::mount::{MsFlags, mount};
use nix::sched::{CloneFlags, unshare};

/// The topmost directory above `path` that other users cannot search (no
/// `o+x`), if there is one.
pub fn blocking_ancestor(path: &Path) -> Option<PathBuf> {
    let mut ancestors: Vec<&Path> = path.ancestors().skip(1).collect();
    ancestors.reverse();
    ancestors.into_iter().find_map(|dir| {
        let mode = std::fs::metadata(dir).ok()?.permissions().mode();
        (mode & 0o001 == 0).then(|| dir.to_path_buf())
    })
}

/// Makes each of `paths` reachable for other uids (see the module docs), in a
/// new mount namespace of the calling process. Needs root (`CAP_SYS_ADMIN`);
/// run by the launcher before it changes uid. Paths without a blocking
/// ancestor are left as they are.
///
/// # Errors
/// A path cannot be opened, or a namespace or mount cannot be made.
pub fn expose(paths: &[PathBuf]) -> Result<(), String> {
    let covered: Vec<(PathBuf, &PathBuf)> = paths
        .iter()
        .filter_map(|path| blocking_ancestor(path).map(|ancestor| (ancestor, path)))
        .collect();
    if covered.is_empty() {
        return Ok(());
    }
    let fail = |what: String, e: nix::errno::Errno| format!("cannot {what}: {e}");
    unshare(CloneFlags::CLONE_NEWNS).map_err(|e| fail("make a mount namespace".into(), e))?;
    // Nothing done below may reach the machine's own mount table.
    mount(
        None::<&str>,
        "/",
        None::<&str>,
        MsFlags::MS_REC | MsFlags::MS_PRIVATE,
        None::<&str>,
    )
    .map_err(|e| fail("make the mounts private".into(), e))?;
    // Opened in the new namespace (a bind from another one is refused), before
    // the tmpfs hides them.
    let mut by_ancestor: BTreeMap<PathBuf, Vec<(&Path, File)>> = BTreeMap::new();
    for (ancestor, path) in covered {
        let held = File::options()
            .read(true)
            .custom_flags(libc::O_PATH)
            .open(path)
            .map_err(|e| format!("cannot open {} to show it to the bot: {e}", path.display()))?;
        by_ancestor.entry(ancestor).or_default().push((path, held));
    }
    for (ancestor, held) in &by_ancestor {
        mount(
            Some("tmpfs"),
            ancestor,
            Some("tmpfs"),
            MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
            Some("mode=0755,size=1m"),
        )
        .map_err(|e| fail(format!("cover {}", ancestor.display()), e))?;
        for (path, file) in held {
            let is_dir = file.metadata().is_ok_and(|m| m.is_dir());
            let made = if is_dir {
                std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o755)
                    .create(path)
            } else {
                path.parent()
                    .map_or(Ok(()), |dir| {
                        std::fs::DirBuilder::new()
                            .recursive(true)
                            .mode(0o755)
                            .create(dir)
                    })
                    .and_then(|()| File::create(path).map(drop))
            };
            made.map_err(|e| format!("cannot recreate {}: {e}", path.display()))?;
            let source = format!("/proc/self/fd/{}", file.as_raw_fd());
            mount(
                Some(source.as_str()),
                *path,
                None::<&str>,
                MsFlags::MS_BIND | MsFlags::MS_REC,
                None::<&str>,
            )
            .map_err(|e| fail(format!("show {}", path.display()), e))?;
            mount(
                None::<&str>,
                *path,
                None::<&str>,
                MsFlags::MS_BIND | MsFlags::MS_REMOUNT | MsFlags::MS_RDONLY,
                None::<&str>,
            )
            .map_err(|e| fail(format!("make {} read-only", path.display()), e))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_topmost_closed_directory_is_the_one_to_cover() {
        let dir = tempfile::tempdir().unwrap();
        let outer = dir.path().join("home");
        let inner = outer.join("me").join("python");
        std::fs::create_dir_all(&inner).unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&outer, std::fs::Permissions::from_mode(0o700)).unwrap();
        std::fs::set_permissions(outer.join("me"), std::fs::Permissions::from_mode(0o700)).unwrap();
        assert_eq!(blocking_ancestor(&inner), Some(outer.clone()));
        std::fs::set_permissions(&outer, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(blocking_ancestor(&inner), Some(outer.join("me")));
        std::fs::set_permissions(outer.join("me"), std::fs::Permissions::from_mode(0o755)).unwrap();
        let tmp_is_open = blocking_ancestor(dir.path()).is_none();
        assert_eq!(blocking_ancestor(&inner).is_none(), tmp_is_open);
    }
}
