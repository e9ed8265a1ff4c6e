//! The bubblewrap layer: the bot runs in its own PID, network, IPC and UTS
//! namespaces with a minimal filesystem view.
//!
//! - PID namespace + `--die-with-parent`: killing the outer bwrap (the process the
//!   referee started) kills the namespace's init, and the kernel then kills every
//!   process in it — including ones that called `setsid` and double-forked.
//! - Network namespace: only a loopback device nobody listens on.
//! - Filesystem: `/usr` (and the `/bin`, `/lib…` links) read-only, fresh `/proc`,
//!   `/dev` and `/tmp`, the bot's own read-only paths, the launcher, and its scratch
//!   directory read-write. Nothing of the referee's results or other bots.
//!
//! As root, bwrap makes no user namespace (so the dedicated-uid layer still works
//! inside) and keeps only `CAP_SETUID`/`CAP_SETGID` for the inner launcher, which
//! drops them with the uid change. As another user, `--unshare-all` adds a user
//! namespace.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::paths::{ETC_FILES, TOP_LEVEL_DIRS};

/// What to show inside.
#[derive(Clone, Debug)]
pub struct View<'a> {
    /// Paths shown read-only at the same place (the bot's files, the launcher…).
    pub read_only: &'a [PathBuf],
    /// The directory the bot runs in, shown read-write.
    pub scratch: &'a Path,
    /// Whether the referee is root (no user namespace; see the module docs).
    pub as_root: bool,
    /// Keep `CAP_SETUID`/`CAP_SETGID` so the inner launcher can change uid.
    pub keep_setuid: bool,
    /// Keep `CAP_SYS_NICE` so the inner launcher can raise the bot's priority
    /// (and its session's autogroup, which bwrap's new session made) before
    /// it drops every capability.
    pub keep_nice: bool,
}

/// The bwrap arguments before `--` for `view`.
pub fn args(view: &View<'_>) -> Vec<OsString> {
    let mut a: Vec<OsString> = Vec::new();
    let mut push = |items: &[&str]| a.extend(items.iter().map(OsString::from));
    push(&["--die-with-parent", "--new-session"]);
    if view.as_root {
        push(&[
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
        ]);
        if view.keep_nice {
            push(&["--cap-add", "CAP_SYS_NICE"]);
        }
        if view.keep_setuid {
            push(&["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]);
        }
    } else {
        push(&["--unshare-all"]);
    }
    push(&["--ro-bind", "/usr", "/usr"]);
    for top in TOP_LEVEL_DIRS {
        let path = Path::new(top);
        match std::fs::read_link(path) {
            Ok(target) => {
                a.extend(["--symlink".into(), target.into_os_string(), (*top).into()]);
            }
            Err(_) if path.is_dir() => {
                a.extend(["--ro-bind".into(), (*top).into(), (*top).into()]);
            }
            Err(_) => {}
        }
    }
    // bwrap creates missing parents 0700, which a dedicated uid cannot enter.
    a.extend(["--perms", "0755", "--dir", "/etc"].map(OsString::from));
    for file in ETC_FILES {
        a.extend(["--ro-bind-try".into(), (*file).into(), (*file).into()]);
    }
    a.extend(
        ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
            .iter()
            .map(OsString::from),
    );
    let mut made: BTreeSet<PathBuf> = ["/", "/tmp", "/usr", "/proc", "/dev", "/etc"]
        .iter()
        .map(PathBuf::from)
        .collect();
    let mut parents = |a: &mut Vec<OsString>, path: &Path| {
        let mut chain: Vec<&Path> = path.ancestors().skip(1).collect();
        chain.reverse();
        for dir in chain {
            if made.insert(dir.to_path_buf()) {
                a.extend(["--perms".into(), "0755".into(), "--dir".into(), dir.into()]);
            }
        }
    };
    for path in view.read_only {
        parents(&mut a, path);
        a.extend(["--ro-bind".into(), path.into(), path.into()]);
    }
    parents(&mut a, view.scratch);
    a.extend([
        "--bind".into(),
        view.scratch.into(),
        view.scratch.into(),
        "--chdir".into(),
        view.scratch.into(),
    ]);
    a
}

/// Finds `bwrap` on `PATH`.
pub fn find() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("bwrap"))
        .find(|p| p.is_file())
}

/// Runs `bwrap <the arguments we use> -- true` and reports why it failed.
///
/// # Errors
/// bwrap's first line of complaint (e.g. it cannot create namespaces here).
pub fn probe(bwrap: &Path, as_root: bool) -> Result<String, String> {
    let version = Command::new(bwrap)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let scratch = tempfile::Builder::new()
        .prefix("uttt-bwrap-probe-")
        .tempdir()
        .map_err(|e| format!("cannot create a probe directory: {e}"))?;
    let truth = ["/usr/bin/true", "/bin/true"]
        .into_iter()
        .find(|p| Path::new(p).is_file())
        .ok_or("no /usr/bin/true to probe with")?;
    let output = Command::new(bwrap)
        .args(args(&View {
            read_only: &[],
            scratch: scratch.path(),
            as_root,
            keep_setuid: as_root,
            keep_nice: false,
        }))
        .arg("--")
        .arg(truth)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bwrap.display()))?;
    if output.status.success() {
        Ok(version)
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        Err(stderr
            .lines()
            .next()
            .unwrap_or("bwrap failed without a message")
            .trim()
            .to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_get_world_readable_parents_once_and_scratch_is_writable_last() {
        let ro = [PathBuf::from("/work/a/bot"), PathBuf::from("/work/a/model")];
        let a = args(&View {
            read_only: &ro,
            scratch: Path::new("/tmp/uttt-bot-1"),
            as_root: true,
            keep_setuid: true,
            keep_nice: false,
        });
        let text: Vec<String> = a.iter().map(|s| s.to_string_lossy().into_owned()).collect();
        let text = text.join(" ");
        assert!(text.contains("--cap-add CAP_SETUID --cap-add CAP_SETGID"));
        assert!(!text.contains("--unshare-all"), "root: no user namespace");
        assert_eq!(text.matches("--dir /work/a ").count(), 1, "{text}");
        assert!(text.contains("--perms 0755 --dir /work "));
        assert!(text.contains("--ro-bind /work/a/model /work/a/model"));
        assert!(!text.contains("--dir /tmp "), "/tmp is bwrap's own tmpfs");
        assert!(text.ends_with("--bind /tmp/uttt-bot-1 /tmp/uttt-bot-1 --chdir /tmp/uttt-bot-1"));
        let user = args(&View {
            read_only: &[],
            scratch: Path::new("/tmp/x"),
            as_root: false,
            keep_setuid: false,
            keep_nice: false,
        });
        assert!(user.contains(&OsString::from("--unshare-all")));
    }
}
