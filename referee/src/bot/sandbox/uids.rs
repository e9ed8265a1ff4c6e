//! Dedicated uids: when the referee runs as root, every running bot process gets
//! a uid of its own from a range no account uses (by default 63000-63999; set
//! `ARENA_SANDBOX_UIDS=FIRST-LAST` to change it). With its own uid a bot cannot
//! signal or trace the referee or its opponent, `RLIMIT_NPROC` caps its processes
//! without touching anybody else, and after the game every process of that uid can
//! be killed at once (`kill(-1)` run *as* that uid), even ones that left the
//! process group with `setsid` and a double fork.
//!
//! A uid is held by an exclusive `flock` on `/run/uttt-arena-uids/<uid>.lock`
//! (`/tmp/…` where there is no `/run`), so several arena processes on one machine
//! never share one, whatever their `TMPDIR`; the kernel releases the lock if the
//! referee dies. Uids named in /etc/passwd are skipped.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use nix::fcntl::{Flock, FlockArg};

use crate::bot::dirlock::locks_unsupported;
use crate::bot::{poll, procfs};

/// The environment variable that overrides [`UidRange::DEFAULT`].
pub const UIDS_ENV: &str = "ARENA_SANDBOX_UIDS";

/// A range of uids (and equal gids) reserved for bots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UidRange {
    /// First uid.
    pub first: u32,
    /// Last uid (inclusive).
    pub last: u32,
}

impl UidRange {
    /// 63000-63999: above regular accounts, below systemd's dynamic range.
    pub const DEFAULT: UidRange = UidRange {
        first: 63000,
        last: 63999,
    };

    /// The range from [`UIDS_ENV`], else the default.
    ///
    /// # Errors
    /// The variable is set but malformed.
    pub fn from_env() -> Result<UidRange, String> {
        match std::env::var(UIDS_ENV) {
            Ok(text) => text.parse().map_err(|e| format!("{UIDS_ENV}: {e}")),
            Err(_) => Ok(UidRange::DEFAULT),
        }
    }
}

impl std::fmt::Display for UidRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.first, self.last)
    }
}

impl FromStr for UidRange {
    type Err = String;
    fn from_str(s: &str) -> Result<UidRange, String> {
        let (a, b) = s
            .split_once('-')
            .ok_or_else(|| format!("'{s}' is not a range FIRST-LAST"))?;
        let parse = |v: &str| {
            v.trim()
                .parse::<u32>()
                .map_err(|_| format!("'{v}' is not a uid"))
        };
        let (first, last) = (parse(a)?, parse(b)?);
        if first == 0 || first > last || last >= 65534 {
            return Err(format!(
                "{s}: use 1 <= FIRST <= LAST < 65534 (uids no account uses)"
            ));
        }
        Ok(UidRange { first, last })
    }
}

/// A uid held for one bot process until dropped.
#[derive(Debug)]
pub struct UidLease {
    uid: u32,
    _lock: Flock<File>,
}

impl UidLease {
    /// The uid (also used as the gid).
    pub fn uid(&self) -> u32 {
        self.uid
    }
}

/// Where lock files live: root-only, created on first use, and the same for every
/// arena process on the machine. Not under `$TMPDIR`: two runs with different
/// temporary directories (one per batch job, say) would each lock their own files,
/// lease the same uid, and one run's end-of-game kill of every process of that uid
/// would kill the other run's bot.
fn lock_dir() -> PathBuf {
    let base = if Path::new("/run").is_dir() {
        "/run"
    } else {
        "/tmp"
    };
    Path::new(base).join("uttt-arena-uids")
}

fn ensure_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _};
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let meta = std::fs::symlink_metadata(dir)?;
    if !meta.is_dir() || meta.uid() != nix::unistd::geteuid().as_raw() || meta.mode() & 0o022 != 0 {
        return Err(std::io::Error::other(format!(
            "{} is not a private directory owned by this user",
            dir.display()
        )));
    }
    Ok(())
}

fn passwd_uids() -> Vec<u32> {
    std::fs::read_to_string("/etc/passwd")
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split(':').nth(2)?.parse().ok())
        .collect()
}

/// Takes the first free uid of `range`.
///
/// # Errors
/// The lock directory is unusable, or every uid is taken.
pub fn lease(range: UidRange) -> std::io::Result<UidLease> {
    let dir = lock_dir();
    ensure_private_dir(&dir)?;
    let taken = passwd_uids();
    for uid in range.first..=range.last {
        if taken.contains(&uid) {
            continue;
        }
        let path = dir.join(format!("{uid}.lock"));
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)?;
        match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            Ok(lock) => return Ok(UidLease { uid, _lock: lock }),
            Err((_, nix::errno::Errno::EWOULDBLOCK)) => {}
            Err((_, errno)) => {
                let error = std::io::Error::from(errno);
                // Without locks there is no telling a free uid from one in use.
                return Err(if locks_unsupported(&error) {
                    std::io::Error::other(format!(
                        "cannot lock {}: {errno} (the user layer leases uids with locks in {}: it needs a file system with locks, as /run and /tmp normally are)",
                        path.display(),
                        dir.display()
                    ))
                } else {
                    error
                });
            }
        }
    }
    Err(std::io::Error::other(format!(
        "all sandbox uids {range} are in use: widen {UIDS_ENV}"
    )))
}

/// Becomes `uid` (and gid `uid`, no supplementary groups). Launcher only: changes
/// the whole (single-threaded) process for good.
///
/// # Errors
/// The process lacks the privilege.
pub fn become_user(uid: u32) -> Result<(), String> {
    use nix::unistd::{Gid, Uid, setgid, setgroups, setuid};
    setgroups(&[]).map_err(|e| format!("cannot drop supplementary groups: {e}"))?;
    setgid(Gid::from_raw(uid)).map_err(|e| format!("cannot set gid {uid}: {e}"))?;
    setuid(Uid::from_raw(uid)).map_err(|e| format!("cannot set uid {uid}: {e}"))?;
    Ok(())
}

/// Hands the tree at `dir` (a build's copy, made by the caller) to `uid`: every
/// directory, file and link below it, and `dir` itself, owned by `uid` and its
/// gid. Links are changed, never followed. Children go before their directory,
/// so every path touched still lies below directories only the caller owns: a
/// process of `uid` left from an earlier holder cannot swap an entry for a link
/// elsewhere while the walk runs.
///
/// # Errors
/// An entry cannot be read or changed.
pub fn lend_tree(dir: &Path, uid: u32) -> std::io::Result<()> {
    let meta = std::fs::symlink_metadata(dir)?;
    if meta.is_dir() {
        for entry in std::fs::read_dir(dir)? {
            lend_tree(&entry?.path(), uid)?;
        }
    }
    std::os::unix::fs::lchown(dir, Some(uid), Some(uid))
}

/// Kills every process of the calling user except the caller (`kill(-1)`); run
/// after [`become_user`]. Does not wait: see [`sweep_own_uid`].
pub fn kill_all_of_own_uid() {
    let _ = nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(-1),
        nix::sys::signal::Signal::SIGKILL,
    );
}

/// [`kill_all_of_own_uid`], then again until none of the uid's processes is
/// alive (at most [`SWEEP_BOUND`]): a SIGKILLed process dies only when next
/// scheduled, and one caught forking is killed on the next pass. This is the
/// end of a bot under a dedicated uid, so "gone" must mean gone.
///
/// Costs a read of `/proc` (under a millisecond on a quiet machine): `kill(-1)`
/// cannot say whether it reached anyone, as it counts every process it looked
/// at, permitted or not.
pub fn sweep_own_uid() {
    let me = std::process::id();
    let uid = nix::unistd::getuid().as_raw();
    poll::until(SWEEP_BOUND, || {
        kill_all_of_own_uid();
        !procfs::any_alive_of_uid(uid, me)
    });
}

/// Removes what processes of the calling user left behind outside any process:
/// System V shared memory, message queues and semaphore sets it owns or created
/// (through `ipcrm`, which the user may do for its own objects), and its POSIX
/// shared memory, semaphores and message queues (files in `/dev/shm` and, when
/// mounted, `/dev/mqueue`). Run as the bot's uid, after [`become_user`]: a bot's
/// shared memory would otherwise hold memory after the game, and a message left
/// in a queue would reach whichever bot gets the uid next. Best effort: what
/// cannot be removed is left.
pub fn remove_own_ipc() {
    let uid = nix::unistd::getuid().as_raw();
    for (table, flag) in [("shm", "-m"), ("msg", "-q"), ("sem", "-s")] {
        let text = std::fs::read_to_string(format!("/proc/sysvipc/{table}")).unwrap_or_default();
        let ids = ipc_ids_of(&text, uid);
        if ids.is_empty() {
            continue;
        }
        // The sweep runs with an empty environment: no PATH to search.
        let program = ["/usr/bin/ipcrm", "/bin/ipcrm"]
            .into_iter()
            .find(|p| Path::new(p).is_file())
            .unwrap_or("ipcrm");
        let mut ipcrm = std::process::Command::new(program);
        for id in ids {
            ipcrm.arg(flag).arg(id.to_string());
        }
        let _ = ipcrm
            .env_clear()
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
    }
    for dir in ["/dev/shm", "/dev/mqueue"] {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            use std::os::unix::fs::MetadataExt as _;
            if entry
                .metadata()
                .is_ok_and(|m| m.uid() == uid && !m.is_dir())
            {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// The ids in a `/proc/sysvipc/{shm,msg,sem}` table of the objects owned or
/// created by `uid` (columns found by their header names).
fn ipc_ids_of(table: &str, uid: u32) -> Vec<u64> {
    let mut lines = table.lines();
    let Some(header) = lines.next() else {
        return Vec::new();
    };
    let column = |name: &str| header.split_whitespace().position(|h| h == name);
    let (Some(id), Some(owner), Some(creator)) = (
        column("shmid")
            .or_else(|| column("msqid"))
            .or_else(|| column("semid")),
        column("uid"),
        column("cuid"),
    ) else {
        return Vec::new();
    };
    let uid = uid.to_string();
    lines
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let ours = fields.get(owner) == Some(&uid.as_str())
                || fields.get(creator) == Some(&uid.as_str());
            ours.then(|| fields.get(id)?.parse().ok()).flatten()
        })
        .collect()
}

/// How long [`sweep_own_uid`] waits for the uid's processes to die.
const SWEEP_BOUND: std::time::Duration = std::time::Duration::from_secs(2);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipc_tables_give_the_ids_a_uid_owns_or_created() {
        let shm = "       key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  cgid      atime\n\
                   1234          7   666               1048576   10    0      0 63001 63001 63001 63001          0\n\
                   99            8   600               4096      11    0      0     0     0 63001     0          0\n\
                   5             9   600               4096      12    0      0     0     0     0     0          0\n";
        assert_eq!(ipc_ids_of(shm, 63001), vec![7, 8]);
        let sem = "       key      semid perms      nsems   uid   gid  cuid  cgid      otime      ctime\n\
                   77         3   666          1 63002 63002 63002 63002          0          0\n";
        assert_eq!(ipc_ids_of(sem, 63002), vec![3]);
        assert_eq!(ipc_ids_of(sem, 63001), Vec::<u64>::new());
        assert_eq!(ipc_ids_of("", 1), Vec::<u64>::new());
    }

    #[test]
    fn ranges_parse_and_refuse_root_and_nobody() {
        assert_eq!("63000-63999".parse::<UidRange>(), Ok(UidRange::DEFAULT));
        assert!("0-10".parse::<UidRange>().is_err());
        assert!("100-65534".parse::<UidRange>().is_err());
        assert!("200-100".parse::<UidRange>().is_err());
        assert!("63000".parse::<UidRange>().is_err());
    }
}
