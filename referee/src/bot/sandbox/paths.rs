//! Which files a sandboxed bot needs to see, worked out from its command line:
//! the program's installation (the prefix above a `bin/` directory, so an
//! interpreter finds its libraries), the directories of files named in its
//! arguments (its own script and data), and extra paths from the configuration.
//!
//! Version managers (pyenv, rbenv, nodenv) put *shims* on `PATH`: shell scripts
//! that pick an interpreter at run time from files all over the home directory.
//! A sandbox cannot show all of those, so a shim is resolved once, here, to the
//! interpreter it would run (`pyenv which python3` in the bot's directory).

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Top-level directories beside `/usr` that hold programs and libraries (on
/// merged-/usr systems, symlinks into it). Shown read-only by Landlock and bwrap.
pub(crate) const TOP_LEVEL_DIRS: &[&str] =
    &["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/// System files under `/etc` that programs need to start (dynamic linker, time
/// zone, certificates); shown read-only when they exist.
pub(crate) const ETC_FILES: &[&str] = &[
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/alternatives",
    "/etc/ssl",
];

/// If `program` is a version-manager shim (`exec "…/libexec/pyenv" exec "$program"`),
/// the interpreter it runs for a bot started in `dir`.
pub fn resolve_shim(program: &Path, dir: &Path) -> Option<PathBuf> {
    // A shim is a short script: read no more than that (a program is often a large
    // binary, and a tournament may name it for thousands of bots).
    const SHIM_MAX: u64 = 16 * 1024;
    let mut text = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(std::fs::File::open(program).ok()?, SHIM_MAX + 1),
        &mut text,
    )
    .ok()?;
    if !text.starts_with(b"#!") || text.len() as u64 > SHIM_MAX {
        return None;
    }
    let text = String::from_utf8_lossy(&text);
    let tool = text.lines().find_map(|line| {
        let rest = line.trim().strip_prefix("exec \"")?;
        let (tool, tail) = rest.split_once('"')?;
        (tail.trim_start().starts_with("exec \"$program\"") && tool.contains("/libexec/"))
            .then(|| PathBuf::from(tool))
    })?;
    let name = program.file_name()?;
    let output = Command::new(&tool)
        .arg("which")
        .arg(name)
        .current_dir(dir)
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let path = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    (path.is_absolute() && path.is_file()).then_some(path)
}

/// Whether `path` is inside the directories every sandbox shows anyway (`/usr`
/// and [`TOP_LEVEL_DIRS`]), so it needs no rule of its own.
fn is_system(path: &Path) -> bool {
    path.starts_with("/usr") || TOP_LEVEL_DIRS.iter().any(|p| path.starts_with(p))
}

/// The directory that holds `program`'s installation: the prefix above `bin/`
/// (`/opt/python/bin/python3` → `/opt/python`), else its own directory. Never `/`.
fn install_dir(program: &Path) -> Option<PathBuf> {
    let dir = program.parent()?;
    let prefix = if dir.file_name().is_some_and(|n| n == "bin") {
        dir.parent().filter(|p| *p != Path::new("/")).unwrap_or(dir)
    } else {
        dir
    };
    (prefix != Path::new("/")).then(|| prefix.to_path_buf())
}

/// What a bot needs to read: `program`'s installation (as given and after
/// following symlinks; the running executable alone, when the arena itself serves
/// a built-in bot: its libraries are the system's, and its directory may be the
/// operator's home, `~/bin`), the directory of each absolute file argument, each
/// absolute directory argument, and `extra`. System directories are left out
/// (always visible); so is anything that does not exist. Sorted, without
/// duplicates or paths inside another listed one.
pub fn read_paths(program: &Path, args: &[std::ffi::OsString], extra: &[PathBuf]) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    let running = std::env::current_exe().and_then(std::fs::canonicalize).ok();
    let mut push_install = |p: &Path| {
        if running.is_some() && std::fs::canonicalize(p).ok() == running {
            paths.push(p.to_path_buf());
        } else if let Some(dir) = install_dir(p) {
            paths.push(dir);
        }
    };
    push_install(program);
    if let Ok(real) = std::fs::canonicalize(program) {
        push_install(&real);
    }
    for arg in args {
        let path = Path::new(arg);
        if !path.is_absolute() {
            continue;
        }
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => paths.push(path.to_path_buf()),
            Ok(_) => {
                if let Some(dir) = path.parent().filter(|d| *d != Path::new("/")) {
                    paths.push(dir.to_path_buf());
                }
            }
            Err(_) => {}
        }
    }
    paths.extend(extra.iter().cloned());
    let mut paths: Vec<PathBuf> = paths
        .into_iter()
        .filter(|p| p.exists() && !is_system(p))
        .collect();
    paths.sort();
    paths.dedup();
    let mut kept: Vec<PathBuf> = Vec::new();
    for p in paths {
        if !kept.iter().any(|k| p.starts_with(k)) {
            kept.push(p);
        }
    }
    kept
}

/// What another uid must be able to do with a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read a file (`o+r`).
    Read,
    /// Run a program (`o+rx`).
    Execute,
    /// List and enter a directory (`o+rx`).
    List,
}

/// Checks that a process of another, unprivileged uid can reach `path`: every
/// directory from `from` down has `o+x`, and the path itself what `access`
/// needs. `from` is `/` without bwrap, or the directory bwrap binds (bwrap
/// creates the directories above it world-readable).
///
/// # Errors
/// The first component that blocks it, its mode, and the `chmod` that would let
/// another uid through (search only for a directory above: it need not be
/// listable).
pub fn check_other_access(path: &Path, from: &Path, access: Access) -> Result<(), String> {
    let mode = |p: &Path| {
        std::fs::metadata(p)
            .map(|m| m.permissions().mode())
            .map_err(|e| format!("{}: {e}", p.display()))
    };
    let mut dir = PathBuf::new();
    let parent = path.parent().unwrap_or(Path::new("/"));
    for part in parent.components() {
        dir.push(part);
        if !dir.starts_with(from) && dir != from {
            continue;
        }
        let m = mode(&dir)?;
        if m & 0o001 == 0 {
            return Err(format!(
                "{} is not searchable by other users (mode {:o}): `chmod o+x {}` lets them through without listing it",
                dir.display(),
                m & 0o7777,
                dir.display()
            ));
        }
    }
    let m = mode(path)?;
    let (need, what, bits) = match access {
        Access::Read => (0o004, "readable", "o+r"),
        Access::Execute => (0o005, "readable and executable", "o+rx"),
        Access::List => (0o005, "listable", "o+rx"),
    };
    if m & need != need {
        return Err(format!(
            "{} is not {what} by other users (mode {:o}): `chmod {bits} {}`",
            path.display(),
            m & 0o7777,
            path.display()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_dirs_take_the_prefix_above_bin_but_never_the_root() {
        assert_eq!(
            install_dir(Path::new("/opt/py/bin/python3")),
            Some(PathBuf::from("/opt/py"))
        );
        assert_eq!(
            install_dir(Path::new("/srv/bots/mybot")),
            Some(PathBuf::from("/srv/bots"))
        );
        assert_eq!(
            install_dir(Path::new("/bin/sh")),
            Some(PathBuf::from("/bin"))
        );
        assert_eq!(install_dir(Path::new("/mybot")), None);
    }

    #[test]
    fn read_paths_keep_bot_files_and_drop_system_and_nested_ones() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("bot.py");
        std::fs::write(&script, "").unwrap();
        let data = dir.path().join("data");
        std::fs::create_dir(&data).unwrap();
        let paths = read_paths(
            Path::new("/usr/bin/python3"),
            &[
                script.into(),
                "--fast".into(),
                data.into(),
                "/nope/x".into(),
            ],
            &[],
        );
        assert_eq!(paths, vec![dir.path().to_path_buf()]);
    }

    #[test]
    fn the_running_executable_is_read_alone_not_its_directory() {
        let exe = std::env::current_exe().unwrap();
        assert_eq!(read_paths(&exe, &["bot".into()], &[]), vec![exe]);
    }

    #[test]
    fn other_access_names_the_blocking_directory() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("bot.py");
        std::fs::write(&file, "").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        let err = check_other_access(&file, Path::new("/"), Access::Read).unwrap_err();
        assert!(
            err.contains("is not searchable by other users (mode 700)"),
            "{err}"
        );
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(
            check_other_access(&file, Path::new("/"), Access::Read),
            Ok(())
        );
        let err = check_other_access(&file, Path::new("/"), Access::Execute).unwrap_err();
        assert!(err.contains("not readable and executable"), "{err}");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o711)).unwrap();
        let err = check_other_access(dir.path(), Path::new("/"), Access::List).unwrap_err();
        assert!(
            err.contains("is not listable by other users (mode 711)"),
            "{err}"
        );
    }
}
