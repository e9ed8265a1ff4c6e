//! What some end-to-end tests need beyond what every test needs (the Rust toolchain,
//! `python3`, `g++` and `node`, README.md), how each is found, and how to get it.
//!
//! `tests/build.rs` includes this file and probes every [`Prerequisite`] when the
//! tests are built: each one present sets its cfg, so a test that needs one declares
//! it and is reported by `cargo test` as ignored, with the fix, where it is missing:
//!
//! ```text
//! #[test]
//! #[cfg_attr(not(has_tmux), ignore = "needs tmux: apt-get install tmux")]
//! fn a_person_plays_a_bot_…() {
//! ```
//!
//! Never a test that returns early and passes. An ignore reason starts with "needs "
//! and names the `apt-get install` command where a package is the fix: `.ci/run`
//! installs those packages and fails when a test was still ignored for one of them.
//!
//! The probes run again when `PATH` or `UTTT_CHROMIUM` changes, or a program is
//! installed into or removed from a directory of `PATH`; the kernel's and the user's
//! (per-task schedstat, root) are read once per build. What only a running test can
//! know (the arena's sandbox layers, a cgroup delegated to this process) is checked
//! there, and a test that cannot run says so with [`say_skipped`].
//!
//! Only `std` here: the build script compiles this file on its own.

use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::PathBuf;
use std::process::Command;

/// Something a few tests need, which a machine may lack.
#[derive(Debug)]
pub struct Prerequisite {
    /// The cfg `tests/build.rs` sets where it is present.
    pub cfg: &'static str,
    /// The Debian packages that bring it (none for what the machine is).
    pub packages: &'static [&'static str],
    /// Whether it is here, or why not and how to get it.
    pub probe: fn() -> Result<(), String>,
}

/// Every prerequisite `tests/build.rs` probes. `.ci/run` installs every package
/// named here and the README names them (`tests/tests/prerequisites.rs` checks).
pub const PREREQUISITES: [Prerequisite; 6] = [
    Prerequisite {
        cfg: "has_tmux",
        packages: &["tmux"],
        probe: tmux,
    },
    Prerequisite {
        cfg: "has_chromium",
        packages: &["chromium"],
        probe: || chromium().map(drop),
    },
    Prerequisite {
        cfg: "has_slurm",
        packages: &["slurm-wlm", "munge"],
        probe: slurm,
    },
    Prerequisite {
        cfg: "has_gnu_parallel",
        packages: &["parallel"],
        probe: gnu_parallel,
    },
    Prerequisite {
        cfg: "has_schedstat",
        packages: &[],
        probe: schedstat,
    },
    Prerequisite {
        cfg: "as_root",
        packages: &[],
        probe: root,
    },
];

/// The directories searched besides `PATH`: a non-login root shell may not have the
/// sbin ones (where `slurmctld` and `munged` live) on its `PATH`.
pub const SYSTEM_DIRS: [&str; 2] = ["/usr/sbin", "/sbin"];

/// `program` on `PATH` or in [`SYSTEM_DIRS`]: an executable file. Programs the tests
/// start by name are found as they will be, on `PATH`: a `PATH` without one is a
/// machine without it.
pub fn find_program(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(SYSTEM_DIRS.map(PathBuf::from))
        .map(|dir| dir.join(program))
        .find(|candidate| {
            candidate
                .metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// `arena play` is driven in a real terminal under tmux (`tests/tests/play_terminal.rs`).
pub fn tmux() -> Result<(), String> {
    find_program("tmux")
        .map(drop)
        .ok_or_else(|| "tmux is not installed: apt-get install tmux".into())
}

/// Headless Chromium for the report's and the live page's tests:
/// `$UTTT_CHROMIUM`, else `chromium` or `chromium-browser` on `PATH`.
///
/// # Errors
/// None is there, or `UTTT_CHROMIUM` names no file; the message says what to do.
pub fn chromium() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("UTTT_CHROMIUM") {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!(
                "UTTT_CHROMIUM={} is not a file: unset it, or name a Chromium binary",
                path.display()
            ))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-browser"].map(|name| dir.join(name)))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| {
            "no headless Chromium on PATH: apt-get install chromium, or set UTTT_CHROMIUM to a Chromium binary".into()
        })
}

/// The programs of a single-node Slurm cluster, and the Debian packages they
/// come from.
pub const SLURM_PROGRAMS: [(&str, &str); 7] = [
    ("munged", "munge"),
    ("slurmctld", "slurmctld (slurm-wlm)"),
    ("slurmd", "slurmd (slurm-wlm)"),
    ("sbatch", "slurm-client (slurm-wlm)"),
    ("squeue", "slurm-client (slurm-wlm)"),
    ("scontrol", "slurm-client (slurm-wlm)"),
    ("scancel", "slurm-client (slurm-wlm)"),
];

/// The scaling recipes run on a single-node Slurm cluster the test starts
/// (`tests/src/slurm.rs`).
pub fn slurm() -> Result<(), String> {
    let missing: Vec<String> = SLURM_PROGRAMS
        .iter()
        .filter(|(program, _)| find_program(program).is_none())
        .map(|(program, package)| format!("{program} (package {package})"))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "not installed: {}; apt-get install slurm-wlm munge",
            missing.join(", ")
        ))
    }
}

/// GNU parallel, not moreutils' `parallel` of the same name.
pub fn gnu_parallel() -> Result<(), String> {
    let Some(program) = find_program("parallel") else {
        return Err("GNU parallel is not installed: apt-get install parallel".into());
    };
    let out = Command::new(program)
        .arg("--version")
        .output()
        .map_err(|e| format!("running parallel --version: {e}"))?;
    if String::from_utf8_lossy(&out.stdout).contains("GNU parallel") {
        Ok(())
    } else {
        Err("`parallel` is not GNU parallel (moreutils'?): apt-get install parallel".into())
    }
}

/// The scheduler's per-task counters (`/proc/PID/task/TID/schedstat`: CPU time,
/// run-queue wait, time slices), which the fair clock charges by; a kernel built
/// without them has no such file, or shows zeros.
pub fn schedstat() -> Result<(), String> {
    let fields = |path: &str| -> Option<Vec<u64>> {
        let text = std::fs::read_to_string(path).ok()?;
        let numbers: Vec<u64> = text
            .split_ascii_whitespace()
            .map(str::parse)
            .collect::<Result<_, _>>()
            .ok()?;
        (numbers.len() >= 3).then_some(numbers)
    };
    if fields("/proc/thread-self/schedstat").is_none() {
        return Err("this kernel has no per-task schedstat (/proc/PID/task/TID/schedstat)".into());
    }
    // CPU time is added up at a tick or a switch: a sleep is a switch.
    let counted = (0..5).any(|attempt| {
        if attempt > 0 {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        fields("/proc/self/schedstat").is_some_and(|f| f[0] > 0)
    });
    if counted {
        Ok(())
    } else {
        Err("this kernel's per-task schedstat counts nothing (it reads 0 0 0)".into())
    }
}

/// Running as root: slurmd starts jobs only as root, and only a referee running as
/// root gives each bot a uid of its own (the sandbox's user layer).
pub fn root() -> Result<(), String> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    // "Uid:\treal\teffective\tsaved\tfilesystem"
    let effective = status
        .lines()
        .find_map(|line| line.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1))
        .and_then(|uid| uid.parse::<u32>().ok());
    match effective {
        Some(0) => Ok(()),
        Some(uid) => Err(format!("not running as root (uid {uid})")),
        None => Err("cannot read the effective uid from /proc/self/status".into()),
    }
}

/// Says that the calling test, or a part of it, did not run here, for a reason only
/// known at run time (when a prerequisite known before is missing, the test is
/// ignored instead). libtest counts such a test as passed and hides what a passing
/// test prints, so this goes past the capture, straight to standard error, as
/// `SKIPPED <test>: <why>` on a line of its own: visible in every run, and listed by
/// `.ci/run` at the end.
pub fn say_skipped(why: &str) {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED {test}: {why}");
}
