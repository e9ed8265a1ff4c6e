//! Helpers for the end-to-end tests: the real `arena` binary, the test bots under
//! `tests/bots/`, result files, and a check that no bot process outlives its run.
//!
//! Every test bot gets a unique tag on its command line; a process whose command
//! line carries the tag after the run is a leaked process.

pub mod busy;
pub mod classes;
pub mod events;
pub mod prerequisites;
pub mod serving;
pub mod slurm;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// One CSV row, by column name.
pub type Row = HashMap<String, String>;

/// The workspace root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// A test bot script under `tests/bots/`.
pub fn test_bot(file: &str) -> PathBuf {
    repo_root().join("tests").join("bots").join(file)
}

/// The `arena` binary of this build profile, built on first use (cargo does not
/// build another package's binaries for a test crate).
#[allow(clippy::expect_used)]
pub fn arena_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let exe = std::env::current_exe().expect("test executable path");
        // target/<profile>/deps/<test> → target/<profile>
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("target profile directory")
            .to_path_buf();
        let release = profile_dir.file_name().is_some_and(|n| n == "release");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut build = Command::new(cargo);
        build
            .current_dir(repo_root())
            .args(["build", "--quiet", "-p", "arena", "--bin", "arena"]);
        if release {
            build.arg("--release");
        }
        let status = build
            .status()
            .expect("running cargo build for the arena binary");
        assert!(status.success(), "cargo build -p arena failed");
        profile_dir.join("arena")
    })
}

/// A unique marker for one test's bot processes.
#[derive(Clone, Debug)]
pub struct Tag(pub String);

impl Tag {
    /// A fresh tag (process id, counter and time).
    pub fn new() -> Tag {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let t = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        Tag(format!(
            "uttt-test-{}-{n}-{}",
            std::process::id(),
            t % 1_000_000_000
        ))
    }
}

impl Default for Tag {
    fn default() -> Self {
        Tag::new()
    }
}

/// A bot spec running `tests/bots/hostile.py BEHAVIOUR ARGS… --tag TAG`.
pub fn hostile(behaviour: &str, args: &[&str], tag: &Tag) -> String {
    let mut spec = format!("python3 {} {behaviour}", test_bot("hostile.py").display());
    for a in args {
        spec.push(' ');
        spec.push_str(&quote(a));
    }
    spec.push_str(&format!(" --tag {}", tag.0));
    spec
}

/// Quotes one word for a bot spec (split like a shell would).
pub fn quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,".contains(c))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// A bot spec running the well-behaved `tests/bots/good.py --tag TAG`.
pub fn good(tag: &Tag) -> String {
    format!("python3 {} --tag {}", test_bot("good.py").display(), tag.0)
}

/// Runs `arena ARGS…` and returns its output.
#[allow(clippy::expect_used)]
pub fn arena(args: &[&str]) -> Output {
    Command::new(arena_bin())
        .args(args)
        .output()
        .expect("running arena")
}

/// Runs `arena ARGS…`: its exit code, standard output and standard error as text.
pub fn arena_text(args: &[&str]) -> (Option<i32>, String, String) {
    let out = arena(args);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A finished command's standard output, as text.
pub fn stdout_text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A finished command's standard error, as text.
pub fn stderr_text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts a finished command's exit code, showing what it printed otherwise.
#[track_caller]
pub fn assert_exit(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        stdout_text(out),
        stderr_text(out)
    );
}

/// What `arena match` did.
#[derive(Debug)]
pub struct MatchRun {
    /// Exit code.
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// Rows of games.csv.
    pub games: Vec<Row>,
    /// Rows of moves.csv.
    pub moves: Vec<Row>,
    /// The output directory (kept alive with the run).
    pub dir: tempfile::TempDir,
}

/// Runs `arena match A B --out DIR EXTRA…` and reads the result files.
#[allow(clippy::expect_used)]
pub fn run_match(a: &str, b: &str, extra: &[&str]) -> MatchRun {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().to_string_lossy().into_owned();
    let mut args = vec!["match", a, b, "--out", &out, "--seed", "1"];
    args.extend_from_slice(extra);
    let output = arena(&args);
    MatchRun {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        games: read_csv(&dir.path().join("games.csv")),
        moves: read_csv(&dir.path().join("moves.csv")),
        dir,
    }
}

/// Reads a CSV file into rows (empty if the file does not exist).
#[allow(clippy::expect_used)]
pub fn read_csv(path: &Path) -> Vec<Row> {
    let Ok(mut reader) = csv::Reader::from_path(path) else {
        return Vec::new();
    };
    reader
        .deserialize::<Row>()
        .map(|r| r.expect("valid CSV row"))
        .collect()
}

/// Processes (pid, command line) whose command line contains `tag`, ignoring
/// zombies (they have no command line).
pub fn processes_with(tag: &Tag) -> Vec<(u32, String)> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()))
        .filter_map(|pid| {
            let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&raw).replace('\0', " ");
            cmdline.contains(&tag.0).then_some((pid, cmdline))
        })
        .collect()
}

/// Asserts that no process carrying `tag` is left (waiting up to 2 s for the kernel
/// to finish killing).
pub fn assert_no_leftovers(tag: &Tag) {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let left = processes_with(tag);
        if left.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "bot processes left behind: {left:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The Rust starter kit (`bots/starters/rust`, the workspace member
/// `uttt-starter`), built for this build profile as [`arena_bin`] builds the arena.
#[allow(clippy::expect_used)]
pub fn rust_starter_bin() -> PathBuf {
    let profile_dir = arena_bin()
        .parent()
        .expect("target profile directory")
        .to_path_buf();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(cargo);
    build
        .current_dir(repo_root())
        .args(["build", "--quiet", "-p", "uttt-starter"]);
    if profile_dir.file_name().is_some_and(|n| n == "release") {
        build.arg("--release");
    }
    let status = build
        .status()
        .expect("running cargo build for the Rust starter");
    assert!(status.success(), "cargo build -p uttt-starter failed");
    profile_dir.join("uttt-starter")
}

/// Bot specs for the four starter kits (Python, JavaScript, the C++ one built
/// into `dir` with g++, and the Rust one built by cargo).
#[allow(clippy::expect_used)]
pub fn starter_specs(dir: &Path) -> Vec<String> {
    let starters = repo_root().join("bots").join("starters");
    let binary = dir.join("starter-cpp");
    let built = Command::new("g++")
        .args(["-std=c++17", "-O2", "-o"])
        .arg(&binary)
        .arg(starters.join("cpp").join("starter.cpp"))
        .status()
        .expect("g++ is needed for the C++ starter kit (apt-get install g++)");
    assert!(built.success(), "the C++ starter kit builds");
    vec![
        format!(
            "python3 {}",
            starters.join("python").join("starter.py").display()
        ),
        format!("node {}", starters.join("js").join("starter.js").display()),
        binary.display().to_string(),
        rust_starter_bin().display().to_string(),
    ]
}
