//! Opening the files inside a results directory without following symbolic links.
//!
//! A results directory is input as much as output: shards copied from other
//! machines, CI artifacts, shared folders. A link planted in one (`logs/alice.stderr.log`
//! pointing at `/etc/cron.d/x`, `live` pointing at `/etc`) must not turn a read
//! into serving another file, nor an append of a bot's chosen text into a write
//! outside the directory, least of all as root. So every file the arena reads or
//! writes inside a results directory is opened here:
//!
//! - the directory a caller names (`--out`, `arena report DIR`) is followed as
//!   given; each component below it is opened with `O_NOFOLLOW`, one directory
//!   descriptor at a time (`openat`), so a link anywhere below it is refused,
//!   not followed, and cannot be swapped in between a check and the open;
//! - what is opened must be a regular file (a FIFO or a device would hang or
//!   flood a reader), opened non-blocking so a FIFO cannot even stall the open;
//! - a file opened for writing must have no other hard link: a second name
//!   elsewhere would receive the same bytes.
//!
//! A refused link is an error naming the path and the fix ([`LinkRefused`]).
//! `NotFound` stays `NotFound`, so "no such file yet" reads as before.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Read as _, Seek as _, SeekFrom};
use std::os::fd::OwnedFd;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Component, Path, PathBuf};

use nix::errno::Errno;
use nix::fcntl::{AtFlags, OFlag, openat};
use nix::sys::stat::{Mode, SFlag, fstatat, mkdirat};
use nix::unistd::{UnlinkatFlags, unlinkat};

/// What a file is opened for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Reading an existing file.
    Read,
    /// Appending (and reading), created if missing.
    Append,
    /// Rewriting an existing file in place (cutting a torn last line).
    Update,
    /// A new file; fails if the name exists (a temporary file).
    CreateNew,
    /// Created if missing, emptied if not.
    Replace,
}

impl Access {
    fn flags(self) -> OFlag {
        match self {
            Access::Read => OFlag::O_RDONLY,
            Access::Append => OFlag::O_RDWR | OFlag::O_APPEND | OFlag::O_CREAT,
            Access::Update => OFlag::O_RDWR,
            Access::CreateNew => OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL,
            Access::Replace => OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_TRUNC,
        }
    }

    const fn writes(self) -> bool {
        !matches!(self, Access::Read)
    }
}

/// A path inside a results directory that is not what the arena writes there: a
/// symbolic link, something other than a regular file or directory, or a file
/// with another name elsewhere.
#[derive(Debug, thiserror::Error)]
pub enum LinkRefused {
    /// A symbolic link.
    #[error(
        "{} is a symbolic link: the arena never follows links inside a results directory \
         (it may come from anywhere); remove it (rm '{}'), or put the file itself there",
        .0.display(), .0.display()
    )]
    Symlink(PathBuf),
    /// A FIFO, socket, device, or a directory where a file belongs (or the reverse).
    #[error(
        "{} is not a regular file: the arena reads and writes only plain files inside a \
         results directory; remove it",
        .0.display()
    )]
    NotAFile(PathBuf),
    /// A file with another hard link, which would receive what is written.
    #[error(
        "{} has {names} names (hard links): writing to it would write to the others too; \
         replace it with a copy of its own (cp '{}' x && mv x '{}')",
        .path.display(), .path.display(), .path.display()
    )]
    HardLinked {
        /// The file.
        path: PathBuf,
        /// How many names it has.
        names: u64,
    },
}

impl LinkRefused {
    /// The refusal inside `error`, if it is one (an I/O error with context).
    pub fn found_in(error: &anyhow::Error) -> Option<&LinkRefused> {
        error.chain().find_map(|cause| {
            cause
                .downcast_ref::<io::Error>()
                .and_then(io::Error::get_ref)
                .and_then(|inner| inner.downcast_ref::<LinkRefused>())
                .or_else(|| cause.downcast_ref::<LinkRefused>())
        })
    }
}

impl From<LinkRefused> for io::Error {
    fn from(refused: LinkRefused) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, refused)
    }
}

/// The components of `rel`, each a plain name (no `..`, no root, no `.`).
fn names(rel: &Path) -> io::Result<Vec<&OsStr>> {
    rel.components()
        .map(|c| match c {
            Component::Normal(name) => Ok(name),
            _ => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is not a plain relative path", rel.display()),
            )),
        })
        .collect()
}

/// What a failed `openat` of `name` in `dir` means, worded for the path `shown`.
fn explain(dir: &OwnedFd, name: &OsStr, errno: Errno, shown: &Path) -> io::Error {
    match fstatat(dir, name, AtFlags::AT_SYMLINK_NOFOLLOW) {
        Ok(stat) if SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT == SFlag::S_IFLNK => {
            LinkRefused::Symlink(shown.to_path_buf()).into()
        }
        Ok(_) if matches!(errno, Errno::ENOTDIR | Errno::EISDIR | Errno::ENXIO) => {
            LinkRefused::NotAFile(shown.to_path_buf()).into()
        }
        _ => io::Error::from(errno),
    }
}

/// The directory `root` (followed, as the caller named it) and then each of
/// `dirs` below it, none followed. Returns the last one's descriptor.
fn walk(root: &Path, dirs: &[&OsStr]) -> io::Result<OwnedFd> {
    let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
    let mut dir: OwnedFd = File::open(root)?.into();
    let mut shown = root.to_path_buf();
    for name in dirs {
        shown.push(name);
        dir = openat(&dir, *name, flags | OFlag::O_NOFOLLOW, Mode::empty())
            .map_err(|e| explain(&dir, name, e, &shown))?;
    }
    Ok(dir)
}

/// Opens `rel` (a plain relative path) inside `root` for `access`, following no
/// link below `root`.
///
/// # Errors
/// As the system call (`NotFound` when it does not exist), or [`LinkRefused`].
pub fn open_in(root: &Path, rel: &Path, access: Access) -> io::Result<File> {
    let names = names(rel)?;
    let Some((last, dirs)) = names.split_last() else {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "no file named"));
    };
    let shown = root.join(rel);
    let dir = walk(root, dirs)?;
    let flags = access.flags() | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC | OFlag::O_NONBLOCK;
    let fd = openat(&dir, *last, flags, Mode::from_bits_truncate(0o644))
        .map_err(|e| explain(&dir, last, e, &shown))?;
    let file = File::from(fd);
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(LinkRefused::NotAFile(shown).into());
    }
    if access.writes() && meta.nlink() > 1 {
        return Err(LinkRefused::HardLinked {
            path: shown,
            names: meta.nlink(),
        }
        .into());
    }
    // Back to blocking I/O: the flag was only there to keep a FIFO from stalling
    // the open, and a regular file ignores it.
    nix::fcntl::fcntl(
        &file,
        nix::fcntl::FcntlArg::F_SETFL(access.flags() & OFlag::O_APPEND),
    )
    .map_err(io::Error::from)?;
    Ok(file)
}

/// Opens the file `path` for `access` without following it if it is a link (its
/// directory is followed as named).
///
/// # Errors
/// As [`open_in`].
pub fn open(path: &Path, access: Access) -> io::Result<File> {
    let (dir, name) = split(path)?;
    open_in(dir, Path::new(name), access)
}

fn split(path: &Path) -> io::Result<(&Path, &OsStr)> {
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} names no file", path.display()),
        )
    })?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Ok((dir, name))
}

/// The whole of the file `path` (see [`open`]).
///
/// # Errors
/// As [`open`], or reading failed.
pub fn read(path: &Path) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    open(path, Access::Read)?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The last `max` bytes of `rel` inside `root` (see [`open_in`]), and how many
/// bytes come before them: a log is read from its end, whatever its size.
///
/// # Errors
/// As [`open_in`], or reading failed.
pub fn read_tail_in(root: &Path, rel: &Path, max: u64) -> io::Result<(Vec<u8>, u64)> {
    let mut file = open_in(root, rel, Access::Read)?;
    let len = file.metadata()?.len();
    let start = len.saturating_sub(max);
    file.seek(SeekFrom::Start(start))?;
    let mut bytes = Vec::new();
    file.take(max).read_to_end(&mut bytes)?;
    Ok((bytes, start))
}

/// Makes the directory `rel` inside `root` and every missing one above it (mode
/// 0755), refusing a link or a file on the way.
///
/// # Errors
/// A component is a link or not a directory, or cannot be made.
pub fn create_dir_in(root: &Path, rel: &Path) -> io::Result<()> {
    let names = names(rel)?;
    for depth in 1..=names.len() {
        let (name, above) = (names[depth - 1], &names[..depth - 1]);
        let dir = walk(root, above)?;
        match mkdirat(&dir, name, Mode::from_bits_truncate(0o755)) {
            Ok(()) | Err(Errno::EEXIST) => {}
            Err(e) => return Err(e.into()),
        }
    }
    walk(root, &names).map(drop)
}

/// The names in the directory `rel` inside `root` (none if it does not exist),
/// sorted. A caller opens each through [`open_in`], which refuses a link or
/// anything but a plain file, so it can say what it left out.
///
/// # Errors
/// The directory is a link, or cannot be listed.
pub fn list_in(root: &Path, rel: &Path) -> io::Result<Vec<String>> {
    match walk(root, &names(rel)?) {
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    }
    let mut files: Vec<String> = std::fs::read_dir(root.join(rel))?
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    files.sort();
    Ok(files)
}

/// Refuses `root` if a name in one of its `folders` (or a folder itself) is a
/// link: a results directory is checked once before a run writes to it, so a
/// planted link is named up front rather than met (and refused) by a write
/// halfway through.
///
/// # Errors
/// The first link found ([`LinkRefused::Symlink`]), or a folder cannot be listed.
pub fn refuse_links(root: &Path, folders: &[&str]) -> io::Result<()> {
    for folder in folders {
        for name in list_in(root, Path::new(folder))? {
            let path = root.join(folder).join(&name);
            if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_symlink()) {
                return Err(LinkRefused::Symlink(path).into());
            }
        }
    }
    Ok(())
}

/// Makes the folder `path` (its parent, followed as named, made if missing) and
/// refuses it if it, or a name directly in it, is a link: for a folder of a results
/// directory whose entries are then used by their paths (`builds/`, whose copies
/// are removed and rewritten).
///
/// # Errors
/// As [`create_dir_in`] and [`refuse_links`].
pub fn folder_without_links(path: &Path) -> io::Result<()> {
    let (parent, name) = split(path)?;
    let name = name.to_str().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a UTF-8 name", path.display()),
        )
    })?;
    std::fs::create_dir_all(parent)?;
    create_dir_in(parent, Path::new(name))?;
    refuse_links(parent, &[name])
}

/// Removes the file `rel` inside `root` (a link there is removed, never followed;
/// nothing outside `root` is touched). A missing file is not an error.
///
/// # Errors
/// A directory on the way is a link, or the removal failed.
pub fn remove_in(root: &Path, rel: &Path) -> io::Result<()> {
    let names = names(rel)?;
    let Some((last, dirs)) = names.split_last() else {
        return Ok(());
    };
    let dir = match walk(root, dirs) {
        Ok(dir) => dir,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    match unlinkat(&dir, *last, UnlinkatFlags::NoRemoveDir) {
        Ok(()) | Err(Errno::ENOENT) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;
    use std::os::unix::fs::symlink;

    fn refused(e: &io::Error) -> String {
        assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{e}");
        e.to_string()
    }

    #[test]
    fn a_link_as_the_file_or_a_directory_above_it_is_refused_for_reading_and_writing() {
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("crontab");
        std::fs::write(&target, "kept\n").unwrap();
        let results = tempfile::tempdir().unwrap();
        let root = results.path();
        std::fs::create_dir(root.join("logs")).unwrap();
        symlink(&target, root.join("logs/alice.stderr.log")).unwrap();
        symlink(outside.path(), root.join("live")).unwrap();

        let log = Path::new("logs/alice.stderr.log");
        for access in [
            Access::Read,
            Access::Append,
            Access::Replace,
            Access::Update,
        ] {
            let e = open_in(root, log, access).unwrap_err();
            assert!(refused(&e).contains("is a symbolic link"), "{e}");
        }
        let e = open_in(root, Path::new("live/crontab"), Access::Append).unwrap_err();
        assert!(refused(&e).contains("live is a symbolic link"), "{e}");
        let e = create_dir_in(root, Path::new("live/deeper")).unwrap_err();
        assert!(refused(&e).contains("is a symbolic link"), "{e}");
        assert!(list_in(root, Path::new("live")).is_err());
        assert_eq!(
            list_in(root, Path::new("logs")).unwrap(),
            ["alice.stderr.log"]
        );
        remove_in(root, Path::new("live/crontab")).unwrap_err();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept\n");
        assert!(!outside.path().join("deeper").exists());
        // A link is removed as a name, never followed.
        remove_in(root, log).unwrap();
        assert!(target.exists());
        // A folder whose entries are used by path is refused for a link among them.
        symlink(outside.path(), root.join("logs/alice")).unwrap();
        let e = folder_without_links(&root.join("logs")).unwrap_err();
        assert!(refused(&e).contains("logs/alice is a symbolic link"), "{e}");
        folder_without_links(&root.join("builds")).unwrap();
        assert!(root.join("builds").is_dir());
    }

    #[test]
    fn plain_files_are_appended_read_from_the_end_listed_and_removed() {
        let results = tempfile::tempdir().unwrap();
        let root = results.path();
        let log = Path::new("logs/bot.stderr.log");
        assert_eq!(
            open_in(root, log, Access::Read).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        create_dir_in(root, Path::new("logs")).unwrap();
        create_dir_in(root, Path::new("logs")).unwrap();
        for line in ["one\n", "two\n"] {
            open_in(root, log, Access::Append)
                .unwrap()
                .write_all(line.as_bytes())
                .unwrap();
        }
        assert_eq!(read(&root.join(log)).unwrap(), b"one\ntwo\n");
        assert_eq!(read_tail_in(root, log, 4).unwrap(), (b"two\n".to_vec(), 4));
        assert_eq!(
            list_in(root, Path::new("logs")).unwrap(),
            ["bot.stderr.log"]
        );
        remove_in(root, log).unwrap();
        remove_in(root, log).unwrap();
        assert!(!root.join(log).exists());
    }

    #[test]
    fn a_fifo_or_a_second_hard_link_is_refused_without_blocking() {
        let results = tempfile::tempdir().unwrap();
        let root = results.path();
        let fifo = root.join("games.csv");
        nix::unistd::mkfifo(&fifo, Mode::from_bits_truncate(0o644)).unwrap();
        let e = open(&fifo, Access::Read).unwrap_err();
        assert!(refused(&e).contains("not a regular file"), "{e}");
        let file = root.join("moves.csv");
        std::fs::write(&file, "x\n").unwrap();
        std::fs::hard_link(&file, root.join("elsewhere")).unwrap();
        assert_eq!(
            read(&file).unwrap(),
            b"x\n",
            "reading a linked file is harmless"
        );
        let e = open(&file, Access::Append).unwrap_err();
        assert!(refused(&e).contains("has 2 names"), "{e}");
        let e = open_in(root, Path::new("../x"), Access::Read).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    }
}
