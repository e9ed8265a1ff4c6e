//! Build steps: `build = "g++ -O2 -o bot main.cpp"` runs once before the first
//! game, under the bot's own isolation and limits ([`referee::bot::task`]) and a
//! time limit, in a copy of the bot's directory (`<results>/builds/<bot>/`), so a
//! student's folder is never written to and a bot with a uid of its own can write
//! its build. The bot then runs from that copy.
//!
//! A copy is rebuilt only when its sources changed: the SHA-256 of the build
//! command and every file of the directory (names and contents) is kept beside
//! it (`<bot>.sha256`) after a successful build.
//!
//! A failed build (its exit, a timeout, or no program where the command expects
//! one) is reported in words with the tail of its output; what happens to the
//! run is the command's choice ([`OnBuildFailure`]). Nothing here prints.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use referee::bot::BotCommand;
use referee::bot::sandbox::{HostSupport, plan};
use referee::bot::task::{TaskEnd, run_to_end};
use sha2::{Digest as _, Sha256};

use super::bot_spec::program_problem;
use super::config::Tournament;
use super::entrant::Entrant;
use super::runner;
pub use super::settings::builds::{BuildStep, LeftOut, OnBuildFailure};

/// How one build went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Built {
    /// Built now, in this time.
    Fresh(Duration),
    /// Its sources are those of the last successful build: not run again.
    UpToDate,
    /// It failed: how it ended, and the tail of what it printed.
    Failed {
        /// In words: "exit code 1", "still running after 120 s (killed)", "made
        /// no ./bot".
        why: String,
        /// The last lines it printed (escaped).
        output: String,
    },
}

/// One bot's build.
#[derive(Clone, Debug)]
pub struct BuildReport {
    /// The bot.
    pub name: String,
    /// The command.
    pub command: String,
    /// How it went.
    pub built: Built,
}

impl BuildReport {
    /// The failure in one line, for tables and error messages.
    pub fn failure(&self) -> Option<String> {
        match &self.built {
            Built::Failed { why, output } => {
                // A compiler's first error says most; else the last thing said.
                let first_error = output.lines().find(|l| l.contains("error"));
                let last = output.lines().rev().find(|l| !l.trim().is_empty());
                Some(match first_error.or(last) {
                    Some(line) => format!("build failed ({why}): {line}"),
                    None => format!("build failed ({why})"),
                })
            }
            _ => None,
        }
    }
}

/// Runs the build of every entrant named in `builds` (at most `at_once` at a
/// time), in copies under `work`, and points each built bot at its copy. Bots
/// without a build are untouched; a failed build leaves its bot pointing at
/// nothing runnable, so the caller must leave it out or stop.
///
/// # Errors
/// `work` cannot be created.
pub fn build_all(
    entrants: &mut [Entrant],
    builds: &std::collections::BTreeMap<String, BuildStep>,
    host: &HostSupport,
    work: &Path,
    limit: Duration,
    at_once: usize,
) -> std::io::Result<Vec<BuildReport>> {
    if builds.is_empty() {
        return Ok(Vec::new());
    }
    std::fs::create_dir_all(work)?;
    // The sandbox binds the copy by its path: a relative one means nothing there.
    let work = &std::fs::canonicalize(work)?;
    set_mode(work, 0o755);
    let jobs: Vec<(usize, &BuildStep)> = entrants
        .iter()
        .enumerate()
        .filter_map(|(i, e)| builds.get(&e.spec.name).map(|b| (i, b)))
        .collect();
    let queue = Mutex::new(jobs.clone());
    let done = Mutex::new(Vec::new());
    let shared: &[Entrant] = entrants;
    std::thread::scope(|scope| {
        for _ in 0..at_once.clamp(1, jobs.len().max(1)) {
            scope.spawn(|| {
                while let Some((i, step)) = queue.lock().ok().and_then(|mut q| q.pop()) {
                    let built = build_one(&shared[i], step, host, work, limit);
                    if let Ok(mut d) = done.lock() {
                        d.push((i, built));
                    }
                }
            });
        }
    });
    let mut done = done.into_inner().unwrap_or_default();
    done.sort_by_key(|(i, _)| *i);
    let mut reports = Vec::new();
    for (i, built) in done {
        let entrant = &mut entrants[i];
        let step = &builds[&entrant.spec.name];
        let copy = work.join(&entrant.spec.name);
        let built = match built {
            Built::Failed { .. } => built,
            ok => {
                rebase(&mut entrant.spec.command, &step.source, &copy);
                match program_problem(&entrant.spec.command) {
                    None => ok,
                    Some(problem) => {
                        let _ = std::fs::remove_file(hash_file(work, &entrant.spec.name));
                        Built::Failed {
                            why: format!("it succeeded, but {problem}"),
                            output: String::new(),
                        }
                    }
                }
            }
        };
        reports.push(BuildReport {
            name: entrant.spec.name.clone(),
            command: step.command.clone(),
            built,
        });
    }
    Ok(reports)
}

/// Runs the builds of `tournament` in `work` ([`build_all`]) and leaves out the
/// bots whose build failed, as its `on-build-failure` says. Returns the lines to
/// show: each build, and each bot left out (by a glob or a build) with why.
///
/// # Errors
/// In words: a build failed under `on-build-failure = "stop"`, the gauntlet's
/// challenger cannot take part, fewer than two bots are left, or `work` cannot be
/// made.
pub fn build_tournament(
    tournament: &mut Tournament,
    host: &HostSupport,
    work: &Path,
    at_once: usize,
) -> Result<Vec<String>, String> {
    let builds = tournament.builds.clone();
    let reports = build_all(
        &mut tournament.entrants,
        &builds,
        host,
        work,
        tournament.build_limit,
        at_once,
    )
    .map_err(|e| format!("cannot make the build directory {}: {e}", work.display()))?;
    let mut lines = Vec::new();
    let mut failed = Vec::new();
    for report in &reports {
        match &report.built {
            Built::Fresh(took) => lines.push(format!(
                "built {} ({}) in {:.1} s",
                report.name,
                report.command,
                took.as_secs_f64()
            )),
            Built::UpToDate => lines.push(format!(
                "built {}: up to date (its sources have not changed)",
                report.name
            )),
            Built::Failed { why, output } => {
                lines.push(format!(
                    "BUILD FAILED {} ({}): {why}",
                    report.name, report.command
                ));
                let tail: Vec<&str> = output.lines().collect();
                for line in &tail[tail.len().saturating_sub(BUILD_TAIL_LINES)..] {
                    lines.push(format!("  | {line}"));
                }
                failed.push(report);
            }
        }
    }
    if tournament.on_build_failure == OnBuildFailure::Stop && !failed.is_empty() {
        let names: Vec<&str> = failed.iter().map(|r| r.name.as_str()).collect();
        return Err(format!(
            "{}\nthe build of {} failed and on-build-failure = \"stop\": fix it, or set on-build-failure = \"leave-out\" to play without it",
            lines.join("\n"),
            names.join(", ")
        ));
    }
    for report in failed {
        let why = report.failure().unwrap_or_default();
        tournament.leave_out(&report.name, why)?;
    }
    for left in &tournament.left_out {
        lines.push(format!("left out {}: {}", left.name, left.why));
    }
    if tournament.entrants.len() < 2 {
        return Err(format!(
            "{}\nfewer than 2 bots are left to play: fix the builds or the submissions above",
            lines.join("\n")
        ));
    }
    Ok(lines)
}

/// The lines of a failed build's output shown with it.
pub const BUILD_TAIL_LINES: usize = 12;

fn hash_file(work: &Path, name: &str) -> PathBuf {
    work.join(format!("{name}.sha256"))
}

/// Builds one bot in `work/<name>` unless its sources are those of the last
/// successful build there.
fn build_one(
    entrant: &Entrant,
    step: &BuildStep,
    host: &HostSupport,
    work: &Path,
    limit: Duration,
) -> Built {
    let name = &entrant.spec.name;
    let copy = work.join(name);
    let failed = |why: String| Built::Failed {
        why,
        output: String::new(),
    };
    let hash = match source_hash(&step.source, &step.command) {
        Ok(hash) => hash,
        Err(e) => {
            return failed(format!(
                "its directory {} cannot be read: {e}",
                step.source.display()
            ));
        }
    };
    if copy.starts_with(&step.source) {
        return failed(format!(
            "its copy would be inside its own directory ({}): put the results directory elsewhere",
            copy.display()
        ));
    }
    let recorded = hash_file(work, name);
    if copy.is_dir() && std::fs::read_to_string(&recorded).is_ok_and(|h| h.trim() == hash) {
        return Built::UpToDate;
    }
    let _ = std::fs::remove_file(&recorded);
    if copy.exists()
        && let Err(e) = std::fs::remove_dir_all(&copy)
    {
        return failed(format!(
            "the old copy {} cannot be removed: {e}",
            copy.display()
        ));
    }
    if let Err(e) = copy_tree(&step.source, &copy) {
        return failed(format!(
            "its directory cannot be copied to {}: {e}",
            copy.display()
        ));
    }
    let bot = &entrant.spec.command;
    let mut command = BotCommand::new("/bin/sh");
    // One stream: the compiler's messages and anything on stdout, in order.
    command.args = vec!["-c".into(), format!("exec 1>&2; {}", step.command).into()];
    command.env.clone_from(&bot.env);
    // Messages in plain ASCII: a compiler's typographic quotes would reach the
    // student escaped.
    command.env.push(("LC_ALL".into(), "C".into()));
    command.working_dir = Some(copy.clone());
    command.limits = bot.limits;
    command.launcher.clone_from(&bot.launcher);
    command.sandbox = bot.sandbox.clone();
    command.plan = match plan(host, &command.sandbox, &command, name) {
        Ok(planned) => Some(planned),
        Err(e) => return failed(format!("it cannot be isolated here: {e}")),
    };
    let outcome = runner::runtime(1)
        .map_err(|e| e.to_string())
        .and_then(|rt| {
            rt.block_on(run_to_end(&command, limit))
                .map_err(|e| e.to_string())
        });
    match outcome {
        Err(e) => failed(format!("it could not start: {e}")),
        Ok(done) if done.end.succeeded() => {
            let _ = std::fs::write(&recorded, format!("{hash}\n"));
            Built::Fresh(done.elapsed)
        }
        Ok(done) => Built::Failed {
            why: match done.end {
                TaskEnd::TimedOut(_) => format!("{}; the limit is build-seconds", done.end),
                TaskEnd::Exited(_) => done.end.to_string(),
            },
            output: done.output,
        },
    }
}

/// Points a bot resolved in `from` at the same files in `to`.
fn rebase(command: &mut BotCommand, from: &Path, to: &Path) {
    let moved = |p: &Path| p.strip_prefix(from).ok().map(|rest| to.join(rest));
    if let Some(p) = moved(&command.program) {
        command.program = p;
    }
    for arg in &mut command.args {
        if let Some(p) = moved(Path::new(arg.as_os_str())) {
            *arg = p.into_os_string();
        }
    }
    command.working_dir = Some(to.to_path_buf());
}

/// The SHA-256 (hex) of `command` and every regular file below `dir`: its path
/// relative to `dir` and its contents, in path order. Symbolic links are passed
/// over (they are not copied either).
fn source_hash(dir: &Path, command: &str) -> std::io::Result<String> {
    let mut files = Vec::new();
    walk(dir, dir, &mut files)?;
    files.sort();
    let mut hasher = Sha256::new();
    hasher.update(command.as_bytes());
    hasher.update([0]);
    for relative in files {
        hasher.update(relative.to_string_lossy().as_bytes());
        hasher.update([0]);
        let bytes = std::fs::read(dir.join(&relative))?;
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

fn walk(root: &Path, dir: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let path = entry.path();
        if kind.is_dir() {
            walk(root, &path, files)?;
        } else if kind.is_file()
            && let Ok(relative) = path.strip_prefix(root)
        {
            files.push(relative.to_path_buf());
        }
    }
    Ok(())
}

/// Copies the regular files and directories below `from` to `to`. Directories
/// are left writable by anyone (the build may run as a uid of its own; the
/// sandbox, not the mode, confines it), files readable, executables kept so.
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::create_dir_all(to)?;
    set_mode(to, 0o777);
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)?;
            let executable = entry.metadata()?.permissions().mode() & 0o111 != 0;
            set_mode(&target, if executable { 0o755 } else { 0o644 });
        }
    }
    Ok(())
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt as _;
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_follows_names_contents_and_the_command() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.cpp"), "int main(){}").unwrap();
        let first = source_hash(dir.path(), "make").unwrap();
        assert_eq!(first, source_hash(dir.path(), "make").unwrap());
        assert_ne!(first, source_hash(dir.path(), "make bot").unwrap());
        std::fs::write(dir.path().join("src/a.cpp"), "int main(){ }").unwrap();
        let edited = source_hash(dir.path(), "make").unwrap();
        assert_ne!(first, edited);
        std::fs::rename(dir.path().join("src/a.cpp"), dir.path().join("src/b.cpp")).unwrap();
        assert_ne!(edited, source_hash(dir.path(), "make").unwrap());
    }

    #[test]
    fn a_rebased_bot_runs_its_copy() {
        let mut command = BotCommand::new("/s/alice/bot");
        command.args = vec!["/s/alice/weights.bin".into(), "--fast".into()];
        rebase(
            &mut command,
            Path::new("/s/alice"),
            Path::new("/r/builds/alice"),
        );
        assert_eq!(command.program, Path::new("/r/builds/alice/bot"));
        assert_eq!(command.args[0], "/r/builds/alice/weights.bin");
        assert_eq!(command.args[1], "--fast");
        assert_eq!(
            command.working_dir.as_deref(),
            Some(Path::new("/r/builds/alice"))
        );
    }
}
