//! Files replaced whole, and the times written into results. A file rewritten in
//! place (`tournament.json`, the standings, the report, a repaired `moves.csv`)
//! goes through [`write_atomic`], so a crash or a signal leaves the old file or the
//! new one, never half of each. Appending rows is the store's business, not this
//! module's.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::Context as _;

/// Writes `bytes` to `path` so that a crash leaves either the old or the new file:
/// a temporary file in the same directory, synced, renamed over, directory synced.
/// The temporary file is made new (a stale one is removed first, and a link in its
/// place is never followed) and the rename replaces a link at `path` rather than
/// writing through it: results directories may come from anywhere.
///
/// # Errors
/// Any I/O failure, naming the file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    write_atomic_with(path, |file| Ok(file.write_all(bytes)?))
}

/// [`write_atomic`] of what `write` writes into the temporary file: a file
/// rewritten from a stream (a repaired `moves.csv` of millions of rows) is never
/// whole in memory.
///
/// # Errors
/// Any I/O failure, naming the file, or `write`'s error.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut std::fs::File) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = path.with_extension("tmp");
    let _ = std::fs::remove_file(&tmp);
    let mut file = super::nofollow::open(&tmp, super::nofollow::Access::CreateNew)
        .with_context(|| format!("creating {}", tmp.display()))?;
    if let Err(e) = write(&mut file) {
        drop(file);
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    file.sync_all()?;
    std::fs::rename(&tmp, path).with_context(|| format!("replacing {}", path.display()))?;
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// The current time, RFC 3339 UTC to the second.
pub fn now() -> String {
    humantime::format_rfc3339_seconds(SystemTime::now()).to_string()
}

/// A new results directory named after the run and the time it started:
/// `results/<name>-<YYYYMMDD>-<HHMMSS>`.
pub fn stamped_dir(name: &str) -> PathBuf {
    let stamp: String = now().chars().filter(char::is_ascii_digit).collect();
    let (date, time) = stamp.split_at(stamp.len().min(8));
    PathBuf::from("results").join(format!("{name}-{date}-{time}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamped_dir_reads_name_date_time() {
        let dir = stamped_dir("play");
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let parts: Vec<&str> = name.split('-').collect();
        assert_eq!(dir.parent(), Some(Path::new("results")));
        assert_eq!(parts[0], "play");
        assert_eq!((parts[1].len(), parts[2].len()), (8, 6), "{name}");
    }

    #[test]
    fn an_atomic_write_replaces_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.json");
        write_atomic(&path, b"old").unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert!(!path.with_extension("tmp").exists());
    }

    #[test]
    fn an_atomic_write_replaces_a_link_and_never_writes_through_one() {
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("target");
        std::fs::write(&target, "kept").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.json");
        std::os::unix::fs::symlink(&target, &path).unwrap();
        std::os::unix::fs::symlink(&target, path.with_extension("tmp")).unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert!(!std::fs::symlink_metadata(&path).unwrap().is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"kept");
    }
}
