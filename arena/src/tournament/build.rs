//! Copies and build steps. A bot with its own `dir` and a `build = "g++ -O2 -o
//! bot main.cpp"`, and every submission (built or not), runs from a copy of its
//! directory (`<results>/builds/<bot>/`), so the author's folder is never
//! written, not even by the bot, and the bot's own uid can read every file of
//! it whatever their modes were. The copy holds the directories, regular files
//! and the links that stay inside the folder; a link leading out of it fails
//! the copy.
//!
//! **One read.** The author's folder is read once per run, by the copy (the
//! *snapshot*, made in `<results>/build-staging/<bot>/`): everything after
//! reads the snapshot, never the folder. Its hash is the bot's version (what a
//! league records, [`BuildReport::version`]), it becomes the copy that is built
//! and played, and the similarity check of a league reads the copy too. A
//! folder rewritten while the arena reads it is graded as what was copied,
//! under that copy's version: there is no second read to disagree with the
//! first.
//!
//! **A cap.** A submission's folder may hold at most its [`SubmissionCap`]
//! (bytes and entries), counted by the copy as it goes from each file's length
//! before the file is read: a sparse file of gigabytes (no disk used by the
//! student) is refused without a byte of it copied. Files are copied and hashed
//! as streams (memory does not grow with a file), and the holes of a sparse
//! file under the cap stay holes in the copy.
//!
//! A build runs once before the first game, under the bot's own isolation and
//! limits ([`referee::bot::task`]) and a time limit, in the copy, which is lent
//! to the build's uid while it runs ([`referee::bot::sandbox::uids::lend_tree`]):
//! no other uid may write there. Afterwards the copy is taken back: owned by
//! the arena's uid, writable by nobody else, each file readable (and
//! executable when it was), a file the build does not own, a link it made to
//! outside the copy or anything but files, directories and links failing the
//! build ([`take_back`]).
//!
//! A copy is built again only when it is out of date: the SHA-256 of the build
//! command and of the snapshot (names, contents, executable bits, links) is
//! kept with the SHA-256 of the copy as it was left (`<results>/build-records/<bot>`,
//! beside the copies, where no bot's name can reach), and either changing means
//! a new build: a copy that changed since (a swapped binary) is never run. An
//! up-to-date copy is kept and the snapshot dropped.
//!
//! A failed build (its exit, a timeout, or no program where the command expects
//! one) is reported in words with the tail of its output; what happens to the
//! run is the command's choice ([`OnBuildFailure`]). A submission whose folder
//! cannot be copied (over its cap, a link leading out, unreadable) is left out
//! whatever that choice. Ctrl-C (or SIGTERM, SIGHUP) stops the builds
//! ([`BuildsStopped::Interrupted`]). Nothing here prints.

use std::collections::BTreeMap;
use std::io::{Read as _, Seek as _, SeekFrom};
use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use referee::bot::BotCommand;
use referee::bot::sandbox::{HostSupport, SandboxMode, plan};
use referee::bot::task::{TaskEnd, TaskOutcome, run_to_end};
use sha2::{Digest as _, Sha256};

use super::bot_spec::program_problem;
use super::config::Tournament;
use super::entrant::Entrant;
use super::interrupt::{self, Watch};
use super::isolation;
use super::runner::{self, Interruption};
pub use super::settings::builds::{BuildStep, LeftOut, OnBuildFailure, Over, SubmissionCap};
use crate::results::manifest::IsolationReport;

/// How one copy (and build) went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Built {
    /// Copied (and built) now.
    Fresh {
        /// How long the build took (zero for a copy without one).
        took: Duration,
        /// Whether the copy had changed since it was made: its sources had not,
        /// so something else wrote there.
        changed: bool,
    },
    /// Its sources and its copy are those of the last successful build: not
    /// run again.
    UpToDate,
    /// Its folder was not copied (over its cap, a link leading out of it, a
    /// file that cannot be read): nothing was built.
    NotCopied {
        /// In words, with the fix.
        why: String,
    },
    /// It failed: how it ended, and the tail of what it printed.
    Failed {
        /// In words: "exit code 1", "still running after 120 s (killed)", "made
        /// no ./bot".
        why: String,
        /// The last lines it printed (escaped).
        output: String,
    },
}

/// One bot's copy and build.
#[derive(Clone, Debug)]
pub struct BuildReport {
    /// The bot.
    pub name: String,
    /// The build command, if it has one.
    pub command: Option<String>,
    /// How it went.
    pub built: Built,
    /// The SHA-256 (hex) of its build command and of its folder as copied this
    /// run (the snapshot that is built and played, or whose build failed): its
    /// version. `None` when the folder was not copied.
    pub version: Option<String>,
}

impl BuildReport {
    /// The failure in one line, for tables and error messages.
    pub fn failure(&self) -> Option<String> {
        let (why, output) = match &self.built {
            Built::NotCopied { why } => {
                return Some(format!("its folder could not be copied: {why}"));
            }
            Built::Failed { why, output } => (why, output),
            Built::Fresh { .. } | Built::UpToDate => return None,
        };
        if self.command.is_none() {
            return Some(format!("its folder could not be copied: {why}"));
        }
        // A compiler's first error says most; else the last thing said.
        let first_error = output.lines().find(|l| l.contains("error"));
        let last = output.lines().rev().find(|l| !l.trim().is_empty());
        Some(match first_error.or(last) {
            Some(line) => format!("build failed ({why}): {line}"),
            None => format!("build failed ({why})"),
        })
    }

    /// The line a run prints for it, if any (a plain copy says nothing unless
    /// it had to be made again).
    fn line(&self) -> Option<String> {
        match (&self.built, &self.command) {
            (Built::Fresh { took, changed }, Some(command)) => Some(format!(
                "built {} ({command}) in {:.1} s{}",
                self.name,
                took.as_secs_f64(),
                if *changed { CHANGED } else { "" }
            )),
            (Built::Fresh { changed: true, .. }, None) => {
                Some(format!("copied {}{CHANGED}", self.name))
            }
            (Built::UpToDate, Some(_)) => Some(format!(
                "built {}: up to date (its sources have not changed)",
                self.name
            )),
            (Built::Failed { why, .. }, Some(command)) => {
                Some(format!("BUILD FAILED {} ({command}): {why}", self.name))
            }
            _ => None,
        }
    }
}

/// Said of a copy made again because it had changed.
const CHANGED: &str =
    " (its copy had changed since it was made, by something other than its build: made again)";

/// Why the copies and builds did not all finish.
#[derive(Debug)]
pub enum BuildsStopped {
    /// The directory of the copies cannot be used.
    Unusable(String),
    /// Ctrl-C, SIGTERM or SIGHUP (or a closed standard output) came first: the
    /// running builds were stopped and their copies removed.
    Interrupted(Interruption),
}

/// Makes the copy of every entrant named in `builds` (at most `at_once` at a
/// time), runs its build step, and points each bot at its copy. Bots without a
/// copy are untouched; a failed one leaves its bot pointing at nothing
/// runnable, so the caller must leave it out or stop.
///
/// # Errors
/// `work` cannot be made or is a link; an interruption.
pub fn build_all(
    entrants: &mut [Entrant],
    builds: &std::collections::BTreeMap<String, BuildStep>,
    host: &HostSupport,
    work: &Path,
    limit: Duration,
    at_once: usize,
) -> Result<Vec<BuildReport>, BuildsStopped> {
    if builds.is_empty() {
        return Ok(Vec::new());
    }
    let work = &own_directory(work).map_err(BuildsStopped::Unusable)?;
    let records = &own_directory(&beside(work, RECORDS)).map_err(BuildsStopped::Unusable)?;
    let staging = &own_directory(&beside(work, STAGING)).map_err(BuildsStopped::Unusable)?;
    let jobs: Vec<(usize, &BuildStep)> = entrants
        .iter()
        .enumerate()
        .filter_map(|(i, e)| builds.get(&e.spec.name).map(|b| (i, b)))
        .collect();
    let queue = Mutex::new(jobs.clone());
    let done = Mutex::new(Vec::new());
    let shared: &[Entrant] = entrants;
    let ((), stopped) = interrupt::watching(|watch| {
        std::thread::scope(|scope| {
            for _ in 0..at_once.clamp(1, jobs.len().max(1)) {
                scope.spawn(|| {
                    while watch.caught().is_none()
                        && let Some((i, step)) = queue.lock().ok().and_then(|mut q| q.pop())
                    {
                        let place = Place {
                            copy: work.join(&shared[i].spec.name),
                            record: records.join(&shared[i].spec.name),
                            snapshot: staging.join(&shared[i].spec.name),
                        };
                        let built = build_one(&shared[i], step, host, &place, limit, watch);
                        if let (Ok(built), Ok(mut d)) = (built, done.lock()) {
                            d.push((i, built));
                        }
                    }
                });
            }
        });
    });
    // Every snapshot was made the copy or dropped: the folder goes when empty.
    let _ = std::fs::remove_dir(staging);
    if let Some(why) = stopped {
        return Err(BuildsStopped::Interrupted(why));
    }
    let mut done = done.into_inner().unwrap_or_default();
    done.sort_by_key(|(i, _)| *i);
    let mut reports = Vec::new();
    for (i, (built, version)) in done {
        let entrant = &mut entrants[i];
        let step = &builds[&entrant.spec.name];
        let copy = work.join(&entrant.spec.name);
        let built = match built {
            Built::Failed { .. } | Built::NotCopied { .. } => built,
            ok => {
                rebase(&mut entrant.spec.command, &step.source, &copy);
                match program_problem(&entrant.spec.command) {
                    None => ok,
                    Some(problem) => {
                        let _ = std::fs::remove_file(records.join(&entrant.spec.name));
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
            version,
        });
    }
    Ok(reports)
}

/// Why a tournament cannot be played as it is.
#[derive(Debug)]
pub enum NotReady {
    /// In words, with the fix: a build failed under `on-build-failure =
    /// "stop"`, a bot the file names cannot be isolated, fewer than two bots
    /// are left…
    Refused(String),
    /// Interrupted during the builds.
    Interrupted(Interruption),
}

/// A tournament whose bots can start: the lines to show (each build, each bot
/// left out with why, each hidden folder passed over) and how each bot is
/// isolated.
#[derive(Debug)]
pub struct Ready {
    /// What to print before the games.
    pub lines: Vec<String>,
    /// Every bot's isolation.
    pub isolation: IsolationReport,
    /// The version of every bot that runs from a copy, by name: the hash of
    /// its folder as copied this run and of its build command
    /// ([`BuildReport::version`]).
    pub versions: BTreeMap<String, String>,
    /// The builds that failed (their bots left out): each with its command,
    /// how it ended, what it printed and the version that failed.
    pub failed: Vec<BuildReport>,
}

/// Makes the copies and runs the builds of `tournament` in `work`
/// ([`build_all`]), plans every bot's isolation (`sandbox` overrides the
/// file's modes), and leaves out the submissions that cannot take part (a
/// failed build, as `on-build-failure` says; a sandbox that refuses them).
///
/// # Errors
/// [`NotReady`]: a build failed under `on-build-failure = "stop"`, a bot of
/// the file cannot be isolated, the gauntlet's challenger cannot take part,
/// fewer than two bots are left, `work` cannot be made; or an interruption.
pub fn prepare_bots(
    tournament: &mut Tournament,
    host: &HostSupport,
    work: &Path,
    at_once: usize,
    sandbox: Option<SandboxMode>,
) -> Result<Ready, NotReady> {
    let builds = tournament.builds.clone();
    let reports = match build_all(
        &mut tournament.entrants,
        &builds,
        host,
        work,
        tournament.build_limit,
        at_once,
    ) {
        Ok(reports) => reports,
        Err(BuildsStopped::Interrupted(why)) => return Err(NotReady::Interrupted(why)),
        Err(BuildsStopped::Unusable(e)) => {
            return Err(NotReady::Refused(format!(
                "cannot use the build directory {}: {e}",
                work.display()
            )));
        }
    };
    let mut lines = Vec::new();
    let mut failed = Vec::new();
    let mut versions = BTreeMap::new();
    for report in &reports {
        lines.extend(report.line());
        if let Some(version) = &report.version
            && report.failure().is_none()
        {
            versions.insert(report.name.clone(), version.clone());
        }
        match &report.built {
            Built::Failed { output, .. } => {
                if report.command.is_some() {
                    let tail: Vec<&str> = output.lines().collect();
                    for line in &tail[tail.len().saturating_sub(BUILD_TAIL_LINES)..] {
                        lines.push(format!("  | {line}"));
                    }
                }
                failed.push(report);
            }
            Built::NotCopied { .. } => failed.push(report),
            Built::Fresh { .. } | Built::UpToDate => {}
        }
    }
    // A submission's folder that cannot be copied is the student's to fix, as
    // a folder that breaks the rules of submissions is: left out, never a stop.
    let stops = |r: &BuildReport| {
        let submitted = builds.get(&r.name).is_some_and(|b| b.submitted);
        !(submitted && matches!(r.built, Built::NotCopied { .. }))
    };
    if tournament.on_build_failure == OnBuildFailure::Stop && failed.iter().any(|r| stops(r)) {
        let names: Vec<&str> = failed
            .iter()
            .filter(|r| stops(r))
            .map(|r| r.name.as_str())
            .collect();
        return Err(NotReady::Refused(format!(
            "{}\nthe build of {} failed and on-build-failure = \"stop\": fix it, or set on-build-failure = \"leave-out\" to play without it",
            lines.join("\n"),
            names.join(", ")
        )));
    }
    let failed_builds: Vec<BuildReport> = failed
        .iter()
        .filter(|r| matches!(r.built, Built::Failed { .. }))
        .map(|r| (*r).clone())
        .collect();
    for report in failed {
        let why = report.failure().unwrap_or_default();
        tournament
            .leave_out(&report.name, why)
            .map_err(NotReady::Refused)?;
    }
    let isolation =
        isolation::apply_leaving_out(tournament, host, sandbox).map_err(NotReady::Refused)?;
    for left in &tournament.left_out {
        lines.push(format!("left out {}: {}", left.name, left.why));
    }
    for dir in &tournament.hidden {
        lines.push(hidden_line(dir));
    }
    // A league plays each student against its levels, and writes every
    // student's row and feedback even when no student's bot builds.
    if tournament.entrants.len() < 2 && tournament.league.is_none() {
        return Err(NotReady::Refused(format!(
            "{}\nfewer than 2 bots are left to play: fix the builds or the submissions above",
            lines.join("\n")
        )));
    }
    Ok(Ready {
        lines,
        isolation,
        versions,
        failed: failed_builds,
    })
}

/// What is said of a hidden folder a glob passed over.
pub fn hidden_line(dir: &Path) -> String {
    format!(
        "skipped the hidden folder {} (a glob's * does not match a name starting with '.'): rename it to take part",
        dir.display()
    )
}

/// The lines of a failed build's output shown with it.
pub const BUILD_TAIL_LINES: usize = 12;

/// The folder beside the copies that holds each copy's record.
const RECORDS: &str = "build-records";

/// The folder beside the copies where each snapshot is made before it becomes
/// a copy (or is dropped, its copy being up to date).
const STAGING: &str = "build-staging";

/// The folder `name` beside `work` (the copies), so that no bot's name (a
/// copy's directory) can be one of its entries' names.
fn beside(work: &Path, name: &str) -> PathBuf {
    work.parent().unwrap_or(work).join(name)
}

/// `dir`, made if missing, as an absolute path, refused when it is a link
/// (copies are removed and remade inside it: never through a link, to
/// wherever it points).
fn own_directory(dir: &Path) -> Result<PathBuf, String> {
    let fail = |e: std::io::Error| format!("{}: {e}", dir.display());
    // Refuses the folder, or a name directly in it, that is a link.
    crate::results::nofollow::folder_without_links(dir).map_err(|e| e.to_string())?;
    set_mode(dir, 0o755);
    std::fs::canonicalize(dir).map_err(fail)
}

/// Where one bot's copy, its record and its snapshot go.
struct Place {
    copy: PathBuf,
    record: PathBuf,
    snapshot: PathBuf,
}

/// What a successful copy (and build) left: the sources it came from and the
/// copy as it was left, each a SHA-256.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Record {
    sources: String,
    copy: String,
}

impl Record {
    fn read(path: &Path) -> Option<Record> {
        let text = std::fs::read_to_string(path).ok()?;
        let mut lines = text.lines();
        Some(Record {
            sources: lines.next()?.to_string(),
            copy: lines.next()?.to_string(),
        })
    }

    /// Written whole or not at all, through a temporary file whose name no
    /// bot's record can have (`~` is not in bot names).
    fn write(&self, path: &Path) -> std::io::Result<()> {
        let mut temporary = path.as_os_str().to_owned();
        temporary.push("~");
        let temporary = PathBuf::from(temporary);
        let _ = std::fs::remove_file(&temporary);
        let mut file = std::fs::File::options()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .open(&temporary)?;
        std::io::Write::write_all(
            &mut file,
            format!("{}\n{}\n", self.sources, self.copy).as_bytes(),
        )?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)
    }
}

/// Snapshots one bot's folder in `place` (its one read of the folder), and
/// builds the snapshot unless its hash and the copy are those of the last
/// successful build there; with how it went, the snapshot's hash (the
/// version), `None` when the folder was not copied.
///
/// # Errors
/// An interruption (the build stopped, its copy removed).
fn build_one(
    entrant: &Entrant,
    step: &BuildStep,
    host: &HostSupport,
    place: &Place,
    limit: Duration,
    watch: &Watch,
) -> Result<(Built, Option<String>), Interruption> {
    let name = &entrant.spec.name;
    let Place {
        copy,
        record,
        snapshot,
    } = place;
    let not_copied = |why: String| Ok((Built::NotCopied { why }, None));
    if Path::new(name).components().count() != 1 || name == "." || name == ".." {
        return not_copied(format!("'{name}' cannot name a directory of its own"));
    }
    if copy.starts_with(&step.source) || snapshot.starts_with(&step.source) {
        return not_copied(format!(
            "its copy would be inside its own directory ({}): put the results directory elsewhere",
            copy.display()
        ));
    }
    if std::fs::symlink_metadata(snapshot).is_ok()
        && let Err(e) = remove(snapshot)
    {
        return not_copied(format!(
            "an old snapshot {} cannot be removed: {e}",
            snapshot.display()
        ));
    }
    // The one read of the author's folder: everything below reads the snapshot.
    if let Err(e) = copy_tree(&step.source, snapshot, step.cap) {
        let _ = remove(snapshot);
        return not_copied(e.to_string());
    }
    let version = match tree_hash(snapshot, step.command.as_deref()) {
        Ok(hash) => hash,
        Err(e) => {
            let _ = remove(snapshot);
            return not_copied(format!(
                "its snapshot {} cannot be read back: {e}",
                snapshot.display()
            ));
        }
    };
    let recorded = Record::read(record);
    let is_dir = std::fs::symlink_metadata(copy).is_ok_and(|m| m.is_dir());
    let now = is_dir.then(|| tree_hash(copy, None).ok()).flatten();
    let changed = match (&recorded, &now) {
        (Some(r), Some(now)) if r.sources == version && r.copy == *now => {
            // The copy was built from a snapshot with this very hash.
            let _ = remove(snapshot);
            return Ok((Built::UpToDate, Some(version)));
        }
        (Some(r), _) => r.sources == version,
        (None, _) => false,
    };
    let _ = std::fs::remove_file(record);
    let replaced = match std::fs::symlink_metadata(copy) {
        Ok(_) => remove(copy),
        Err(_) => Ok(()),
    }
    .and_then(|()| std::fs::rename(snapshot, copy));
    if let Err(e) = replaced {
        let _ = remove(snapshot);
        return not_copied(format!(
            "its copy {} cannot be replaced: {e}",
            copy.display()
        ));
    }
    let failed = |why: String| {
        Ok((
            Built::Failed {
                why,
                output: String::new(),
            },
            Some(version.clone()),
        ))
    };
    let took = match &step.command {
        None => Duration::ZERO,
        Some(command) => match run_build(entrant, command, host, copy, limit, watch) {
            Err(why) => {
                let _ = remove(copy);
                return Err(why);
            }
            Ok(Ok(took)) => took,
            Ok(Err(built)) => {
                let _ = remove(copy);
                return Ok((built, Some(version)));
            }
        },
    };
    let Ok(hash) = tree_hash(copy, None) else {
        return failed(format!("its copy {} cannot be read back", copy.display()));
    };
    let _ = Record {
        sources: version.clone(),
        copy: hash,
    }
    .write(record);
    Ok((Built::Fresh { took, changed }, Some(version)))
}

/// Runs `command` in `copy`, lent to the build's uid, and takes the copy back.
///
/// # Errors
/// Outer: an interruption. Inner: the build failed (its report), or what it
/// left cannot be taken back.
fn run_build(
    entrant: &Entrant,
    command_line: &str,
    host: &HostSupport,
    copy: &Path,
    limit: Duration,
    watch: &Watch,
) -> Result<Result<Duration, Built>, Interruption> {
    let failed = |why: String| {
        Ok(Err(Built::Failed {
            why,
            output: String::new(),
        }))
    };
    let bot = &entrant.spec.command;
    let mut command = BotCommand::new("/bin/sh");
    // One stream: the compiler's messages and anything on stdout, in order.
    command.args = vec!["-c".into(), format!("exec 1>&2; {command_line}").into()];
    command.env.clone_from(&bot.env);
    // Messages in plain ASCII: a compiler's typographic quotes would reach the
    // student escaped.
    command.env.push(("LC_ALL".into(), "C".into()));
    command.working_dir = Some(copy.to_path_buf());
    command.limits = bot.limits;
    command.launcher.clone_from(&bot.launcher);
    command.sandbox = bot.sandbox.clone();
    command.plan = match plan(host, &command.sandbox, &command, &entrant.spec.name) {
        Ok(mut planned) => {
            planned.lend_working_dir = true;
            Some(planned)
        }
        Err(e) => return failed(format!("it cannot be isolated here: {e}")),
    };
    let outcome: Result<Result<TaskOutcome, String>, Interruption> = match runner::runtime(1) {
        Err(e) => Ok(Err(e.to_string())),
        Ok(rt) => rt.block_on(async {
            tokio::select! {
                done = run_to_end(&command, limit) => Ok(done.map_err(|e| e.to_string())),
                why = watch.interrupted() => Err(why),
            }
        }),
    };
    let done = match outcome? {
        Err(e) => return failed(format!("it could not start: {e}")),
        Ok(done) => done,
    };
    if !done.end.succeeded() {
        return Ok(Err(Built::Failed {
            why: match done.end {
                TaskEnd::TimedOut(_) => format!("{}; the limit is build-seconds", done.end),
                TaskEnd::Exited(_) => done.end.to_string(),
            },
            output: done.output,
        }));
    }
    match take_back(copy) {
        Ok(()) => Ok(Ok(done.elapsed)),
        Err(why) => failed(format!("it succeeded, but {why}")),
    }
}

/// Takes a copy back from the build that was lent it: every entry owned by
/// the arena's uid, directories `0755`, files `0644` (`0755` when executable),
/// a file that had other names (hard links) given a name of its own first so
/// that nothing outside changes. Each directory is taken back before what is
/// in it is looked at, so nothing can be swapped under the walk.
///
/// # Errors
/// What the build left that a bot must not run from: an entry owned by neither
/// the build nor the arena, a link leading outside the copy, anything but
/// files, directories and links.
fn take_back(copy: &Path) -> Result<(), String> {
    let root = std::fs::canonicalize(copy).map_err(|e| format!("{}: {e}", copy.display()))?;
    let lent = std::fs::symlink_metadata(&root)
        .map_err(|e| format!("{}: {e}", root.display()))?
        .uid();
    let me = nix::unistd::geteuid().as_raw();
    let gid = nix::unistd::getegid().as_raw();
    let mut pending = vec![root.clone()];
    while let Some(path) = pending.pop() {
        let shown = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .display()
            .to_string();
        let fail = |e: std::io::Error| format!("it left {shown} that cannot be read: {e}");
        let meta = std::fs::symlink_metadata(&path).map_err(fail)?;
        if meta.uid() != lent && meta.uid() != me {
            return Err(format!(
                "it left {shown}, which belongs to uid {}, not to the build",
                meta.uid()
            ));
        }
        let kind = meta.file_type();
        if kind.is_symlink() {
            match std::fs::canonicalize(&path) {
                Ok(target) if !target.starts_with(&root) => {
                    return Err(format!(
                        "it left a link {shown} that leads outside its copy (to {})",
                        target.display()
                    ));
                }
                _ => {}
            }
        } else if !kind.is_dir() && !kind.is_file() {
            return Err(format!(
                "it left {shown}, which is not a file, a directory or a link"
            ));
        } else if kind.is_file() && meta.nlink() > 1 {
            unshare(&path).map_err(fail)?;
        }
        std::os::unix::fs::lchown(&path, Some(me), Some(gid)).map_err(fail)?;
        if kind.is_dir() {
            set_mode(&path, 0o755);
            for entry in std::fs::read_dir(&path).map_err(fail)? {
                pending.push(entry.map_err(fail)?.path());
            }
        } else if kind.is_file() {
            set_mode(&path, file_mode(meta.mode()));
        }
    }
    Ok(())
}

/// `0755` for a file any execute bit was set on, else `0644`.
const fn file_mode(mode: u32) -> u32 {
    if mode & 0o111 != 0 { 0o755 } else { 0o644 }
}

/// Gives `path`, a file with other names, a copy of its contents of its own
/// under the same name, leaving the other names as they were.
fn unshare(path: &Path) -> std::io::Result<()> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let fresh = path.with_file_name(format!(".{name}.arena-unshare"));
    let mut from = open_nofollow(path)?;
    let mut to = std::fs::File::options()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&fresh)?;
    std::io::copy(&mut from, &mut to)?;
    std::fs::rename(&fresh, path)
}

/// Opens a regular file for reading, refusing a link or anything else in its
/// place (a FIFO swapped in after a listing is refused, never waited on).
fn open_nofollow(path: &Path) -> std::io::Result<std::fs::File> {
    let file = std::fs::File::options()
        .read(true)
        .custom_flags((nix::fcntl::OFlag::O_NOFOLLOW | nix::fcntl::OFlag::O_NONBLOCK).bits())
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other(format!(
            "{} is not a regular file",
            path.display()
        )));
    }
    Ok(file)
}

/// Removes a copy (or a link in its place: the link, not what it leads to).
fn remove(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
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

/// Points the bots of `tournament` that have a copy at copies of their
/// folders made now in `work`, without building: what `arena doctor` plans
/// their isolation against (a program the build would make stands as an empty
/// executable file).
///
/// # Errors
/// A folder cannot be copied (or is over its cap).
pub fn stage_copies(tournament: &mut Tournament, work: &Path) -> Result<(), String> {
    for entrant in &mut tournament.entrants {
        let Some(step) = tournament.builds.get(&entrant.spec.name) else {
            continue;
        };
        let copy = work.join(&entrant.spec.name);
        copy_tree(&step.source, &copy, step.cap)
            .map_err(|e| format!("{}: {e}", step.source.display()))?;
        rebase(&mut entrant.spec.command, &step.source, &copy);
        let program = &entrant.spec.command.program;
        if program.starts_with(&copy) && !program.exists() {
            if let Some(dir) = program.parent() {
                std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
            }
            std::fs::write(program, "").map_err(|e| e.to_string())?;
            set_mode(program, 0o755);
        }
    }
    Ok(())
}

/// A stamp of a bot's folder as it is now, for noticing that it changed
/// (`arena league --watch` looks every few seconds): the hash of the folder and
/// its build command, or, for a folder over its cap, a stamp that says so
/// without a file of it read. Never a version: a version is the hash of the
/// snapshot that plays ([`BuildReport::version`]), which a link inside the
/// folder written as an absolute path, or a dangling one, makes differ from
/// this.
///
/// # Errors
/// The folder cannot be read.
pub fn source_stamp(step: &BuildStep) -> std::io::Result<String> {
    match listing(&step.source, step.cap)? {
        Listing::Over(over) => Ok(format!("over its cap: {over:?}")),
        Listing::Entries(entries) => hash_entries(&step.source, entries, step.command.as_deref()),
    }
}

/// The SHA-256 (hex) of `command` (if any) and the tree at `dir`: each
/// directory, regular file (its length, its contents and whether it is
/// executable) and link (where it leads, as written), by its path relative to
/// `dir`, in path order. Files are read without following links, as streams:
/// memory does not grow with a file.
fn tree_hash(dir: &Path, command: Option<&str>) -> std::io::Result<String> {
    match listing(dir, None)? {
        Listing::Entries(entries) => hash_entries(dir, entries, command),
        Listing::Over(_) => Err(std::io::Error::other("over its cap")),
    }
}

/// [`tree_hash`] of `entries` (relative to `dir`).
fn hash_entries(
    dir: &Path,
    mut entries: Vec<PathBuf>,
    command: Option<&str>,
) -> std::io::Result<String> {
    entries.sort();
    let mut hasher = Sha256::new();
    hasher.update(command.unwrap_or("").as_bytes());
    hasher.update([0]);
    for relative in entries {
        let path = dir.join(&relative);
        let meta = std::fs::symlink_metadata(&path)?;
        hasher.update(relative.to_string_lossy().as_bytes());
        hasher.update([0]);
        if meta.is_symlink() {
            hasher.update(b"l");
            hasher.update(std::fs::read_link(&path)?.to_string_lossy().as_bytes());
        } else if meta.is_dir() {
            hasher.update(b"d");
        } else {
            hasher.update(if meta.mode() & 0o111 != 0 { b"x" } else { b"f" });
            let file = open_nofollow(&path)?;
            let length = file.metadata()?.len();
            hasher.update(length.to_le_bytes());
            let read = std::io::copy(&mut file.take(length), &mut hasher)?;
            if read != length {
                return Err(std::io::Error::other(format!(
                    "{} changed while it was read",
                    relative.display()
                )));
            }
        }
        hasher.update([0]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// The entries below a folder, or what put it over its cap.
enum Listing {
    /// Its directories, regular files and links, relative to it.
    Entries(Vec<PathBuf>),
    /// It holds more than its cap (found from the entries' metadata).
    Over(Over),
}

/// The directories, regular files and links below `root`, relative to it
/// (never entering a link), or, past `cap`, what put it over (the listing stops
/// there). Walked with a list of its own, not by recursion: a folder may be
/// thousands deep.
fn listing(root: &Path, cap: Option<SubmissionCap>) -> std::io::Result<Listing> {
    let mut tally = Tally::new(cap);
    let mut entries = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            let path = entry.path();
            let Ok(relative) = path.strip_prefix(root) else {
                continue;
            };
            let relative = relative.to_path_buf();
            let counted = if kind.is_file() {
                tally.file(&relative, entry.metadata()?.len())
            } else {
                tally.entry()
            };
            if let Err(over) = counted {
                return Ok(Listing::Over(over));
            }
            if kind.is_dir() {
                pending.push(path);
                entries.push(relative);
            } else if kind.is_file() || kind.is_symlink() {
                entries.push(relative);
            }
        }
    }
    Ok(Listing::Entries(entries))
}

/// A folder's entries and bytes counted against its cap as it is walked.
#[derive(Debug)]
struct Tally {
    cap: Option<SubmissionCap>,
    entries: u64,
    bytes: u64,
}

impl Tally {
    const fn new(cap: Option<SubmissionCap>) -> Tally {
        Tally {
            cap,
            entries: 0,
            bytes: 0,
        }
    }

    /// One more entry (of any kind).
    fn entry(&mut self) -> Result<(), Over> {
        self.entries += 1;
        match self.cap {
            Some(cap) if self.entries > cap.files => Err(Over::Files),
            _ => Ok(()),
        }
    }

    /// One more regular file, `relative`, `length` bytes long (counted before
    /// it is read).
    fn file(&mut self, relative: &Path, length: u64) -> Result<(), Over> {
        self.entry()?;
        self.bytes = self.bytes.saturating_add(length);
        match self.cap {
            Some(cap) if self.bytes > cap.bytes => Err(Over::Bytes {
                file: relative.display().to_string(),
                length,
            }),
            _ => Ok(()),
        }
    }
}

/// Why a folder was not copied.
#[derive(Debug)]
enum CopyError {
    /// It holds more than its cap: the refusal in words, with the fix.
    Over(String),
    /// It cannot be read (or the copy written), or it holds a link leading out.
    Io(std::io::Error),
}

impl std::fmt::Display for CopyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CopyError::Over(why) => f.write_str(why),
            CopyError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl From<std::io::Error> for CopyError {
    fn from(e: std::io::Error) -> CopyError {
        CopyError::Io(e)
    }
}

/// Copies the directories, regular files and links below `from` to `to`, as
/// the arena's uid: directories `0755`, files `0644` (`0755` when executable),
/// so another uid can read them all but write none. A link that leads inside
/// `from` becomes a relative link to the same place in the copy; one that
/// leads outside fails the copy; one that leads nowhere is left out. Files
/// are read without following links, as streams, a sparse file's holes left
/// holes; with a `cap`, each file's length is counted before it is read, and
/// the copy stops at the first entry past it.
///
/// # Errors
/// `from` is a link, cannot be read, holds a link leading outside it, or more
/// than `cap`.
fn copy_tree(from: &Path, to: &Path, cap: Option<SubmissionCap>) -> Result<(), CopyError> {
    if std::fs::symlink_metadata(from)?.is_symlink() {
        return Err(std::io::Error::other(format!("{} is a symbolic link", from.display())).into());
    }
    let root = std::fs::canonicalize(from)?;
    let mut tally = Tally::new(cap);
    let refuse = |over: Over| CopyError::Over(cap.unwrap_or_default().refusal(&over));
    let mut pending = vec![(root.clone(), to.to_path_buf())];
    while let Some((from, to)) = pending.pop() {
        std::fs::create_dir_all(&to)?;
        set_mode(&to, 0o755);
        for entry in std::fs::read_dir(&from)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            let source = entry.path();
            let target = to.join(entry.file_name());
            let relative = source.strip_prefix(&root).unwrap_or(&source);
            if kind.is_dir() {
                tally.entry().map_err(refuse)?;
                pending.push((source, target));
            } else if kind.is_file() {
                // The length the file has when opened is what is copied: a
                // file that grows meanwhile is copied as it was.
                let mut reader = open_nofollow(&source)?;
                let meta = reader.metadata()?;
                tally.file(relative, meta.len()).map_err(refuse)?;
                let mode = file_mode(meta.mode());
                let mut writer = std::fs::File::options()
                    .write(true)
                    .create_new(true)
                    .mode(mode)
                    .open(&target)?;
                copy_sparse(&mut reader, &mut writer, meta.len())?;
                set_mode(&target, mode);
            } else if kind.is_symlink() {
                tally.entry().map_err(refuse)?;
                let Ok(leads_to) = std::fs::canonicalize(&source) else {
                    continue;
                };
                let Ok(inside) = leads_to.strip_prefix(&root) else {
                    return Err(std::io::Error::other(format!(
                        "the link {} leads outside it (to {})",
                        relative.display(),
                        leads_to.display()
                    ))
                    .into());
                };
                let depth = from
                    .strip_prefix(&root)
                    .map_or(0, |d| d.components().count());
                let mut relative: PathBuf = std::iter::repeat_n("..", depth).collect();
                relative.push(inside);
                if relative.as_os_str().is_empty() {
                    relative.push(".");
                }
                std::os::unix::fs::symlink(&relative, &target)?;
            } else {
                // A FIFO, a socket, a device: not copied, but looked at.
                tally.entry().map_err(refuse)?;
            }
        }
    }
    Ok(())
}

/// Copies the first `length` bytes of `from` to `to` (both at their start), the
/// parts of `from` the file system keeps as holes (`SEEK_HOLE`) left holes in
/// `to`: a sparse file costs the copy only its data. Where the file system
/// cannot say, everything is copied.
fn copy_sparse(
    from: &mut std::fs::File,
    to: &mut std::fs::File,
    length: u64,
) -> std::io::Result<()> {
    use nix::unistd::{Whence, lseek};
    let end = i64::try_from(length).unwrap_or(i64::MAX);
    let mut at: i64 = 0;
    while at < end {
        let data = match lseek(&*from, at, Whence::SeekData) {
            Ok(data) => data,
            // Nothing but a hole from here on.
            Err(nix::errno::Errno::ENXIO) => break,
            // No SEEK_DATA here: the rest is data.
            Err(_) => at,
        };
        if data >= end {
            break;
        }
        let hole = lseek(&*from, data, Whence::SeekHole)
            .unwrap_or(end)
            .clamp(data, end);
        let start = u64::try_from(data).unwrap_or(0);
        let span = u64::try_from(hole - data).unwrap_or(0);
        from.seek(SeekFrom::Start(start))?;
        to.seek(SeekFrom::Start(start))?;
        let copied = std::io::copy(&mut (&mut *from).take(span), to)?;
        if copied < span {
            // It shrank while being read: the rest of the copy stays zeros.
            break;
        }
        at = hole.max(data + 1);
    }
    to.set_len(length)
}

fn set_mode(path: &Path, mode: u32) {
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_follows_names_contents_modes_links_and_the_command() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.cpp"), "int main(){}").unwrap();
        let first = tree_hash(dir.path(), Some("make")).unwrap();
        assert_eq!(first, tree_hash(dir.path(), Some("make")).unwrap());
        assert_ne!(first, tree_hash(dir.path(), Some("make bot")).unwrap());
        std::fs::write(dir.path().join("src/a.cpp"), "int main(){ }").unwrap();
        let edited = tree_hash(dir.path(), Some("make")).unwrap();
        assert_ne!(first, edited);
        std::fs::rename(dir.path().join("src/a.cpp"), dir.path().join("src/b.cpp")).unwrap();
        let renamed = tree_hash(dir.path(), Some("make")).unwrap();
        assert_ne!(edited, renamed);
        set_mode(&dir.path().join("src/b.cpp"), 0o755);
        let executable = tree_hash(dir.path(), Some("make")).unwrap();
        assert_ne!(renamed, executable);
        std::os::unix::fs::symlink("b.cpp", dir.path().join("src/c.cpp")).unwrap();
        assert_ne!(executable, tree_hash(dir.path(), Some("make")).unwrap());
    }

    /// A folder of every kind of entry: files (one executable, one empty,
    /// one binary), folders, a link inside, names that sort differently by
    /// path and by text (`a-c` and `a/…`).
    fn sample_tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::write(root.join("bot.py"), "print('hi')\n").unwrap();
        std::fs::write(root.join("a-c"), "x").unwrap();
        std::fs::write(root.join("src/deep/w.bin"), [0u8, 1, 2, 255]).unwrap();
        std::fs::write(root.join("run"), "#!/bin/sh\n").unwrap();
        set_mode(&root.join("run"), 0o755);
        std::fs::write(root.join("src/empty"), "").unwrap();
        std::os::unix::fs::symlink("../bot.py", root.join("src/link")).unwrap();
        dir
    }

    #[test]
    fn a_folder_hashes_as_it_did_when_files_were_read_whole() {
        // Computed by the hash that read each file into memory: a season's
        // versions stay the same across the change to streams.
        let dir = sample_tree();
        assert_eq!(
            tree_hash(dir.path(), Some("make")).unwrap(),
            "5e36608a431ac40960809f11edaf38b0f9c8fb590904b15246f22ff418a3947c"
        );
        assert_eq!(
            tree_hash(dir.path(), None).unwrap(),
            "7d9ac872478d1aefe4baf3d8bec35f93d0d3b037b588f79bde4850a577e4c776"
        );
        // Its copy hashes the same: the snapshot is what the folder was.
        let copy = tempfile::tempdir().unwrap();
        copy_tree(dir.path(), &copy.path().join("c"), None).unwrap();
        assert_eq!(
            tree_hash(&copy.path().join("c"), Some("make")).unwrap(),
            tree_hash(dir.path(), Some("make")).unwrap()
        );
    }

    /// Bytes the file system holds for `path` (its blocks, not its length).
    fn allocated(path: &Path) -> u64 {
        std::fs::metadata(path).unwrap().blocks() * 512
    }

    #[test]
    fn a_folder_over_its_cap_is_not_copied_and_its_sparse_file_never_read() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("bo");
        std::fs::create_dir(&from).unwrap();
        std::fs::write(from.join("bot.py"), "print()").unwrap();
        let big = std::fs::File::create(from.join("big.bin")).unwrap();
        big.set_len(3 << 30).unwrap();
        let to = dir.path().join("copy");
        let cap = SubmissionCap::default();
        let err = copy_tree(&from, &to, Some(cap)).unwrap_err();
        assert!(matches!(err, CopyError::Over(_)), "{err}");
        assert!(
            err.to_string().starts_with(
                "it holds more than 50 MiB (its file big.bin alone is 3.0 GiB): a submission may \
                 hold at most 50 MiB and 5000 files and folders (submission-max-mb and \
                 submission-max-files in the tournament file)"
            ),
            "{err}"
        );
        let copied = to.join("big.bin");
        assert!(
            !copied.exists() || allocated(&copied) == 0,
            "nothing of it was written"
        );
        // A cap of files and folders together: six entries, five allowed.
        let many = dir.path().join("many");
        for i in 0..3 {
            std::fs::create_dir_all(many.join(format!("d{i}"))).unwrap();
            std::fs::write(many.join(format!("d{i}/f")), "").unwrap();
        }
        let five = SubmissionCap {
            bytes: 1 << 20,
            files: 5,
        };
        let err = copy_tree(&many, &dir.path().join("many-copy"), Some(five)).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("it holds more than 5 files and folders"),
            "{err}"
        );
        let six = SubmissionCap {
            bytes: 1 << 20,
            files: 6,
        };
        copy_tree(&many, &dir.path().join("many-copy2"), Some(six)).unwrap();
        // The stamp `--watch` compares says "over" without reading the file.
        let step = BuildStep {
            command: None,
            source: from.clone(),
            submitted: true,
            cap: Some(cap),
        };
        assert!(source_stamp(&step).unwrap().starts_with("over its cap"));
    }

    #[test]
    fn a_sparse_file_under_the_cap_is_copied_with_its_holes() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("ada");
        std::fs::create_dir(&from).unwrap();
        let path = from.join("weights.bin");
        let mut file = std::fs::File::create(&path).unwrap();
        file.set_len(40 << 20).unwrap();
        file.seek(SeekFrom::Start(20 << 20)).unwrap();
        std::io::Write::write_all(&mut file, &[7u8; 4096]).unwrap();
        drop(file);
        if allocated(&path) > 1 << 20 {
            // This file system keeps no holes: nothing to keep.
            return;
        }
        let to = dir.path().join("copy");
        copy_tree(&from, &to, Some(SubmissionCap::default())).unwrap();
        let copied = to.join("weights.bin");
        assert_eq!(std::fs::metadata(&copied).unwrap().len(), 40 << 20);
        assert!(
            allocated(&copied) < 1 << 20,
            "the holes stay holes: {} bytes allocated",
            allocated(&copied)
        );
        let mut copy = std::fs::File::open(&copied).unwrap();
        let mut around = vec![0u8; 8192];
        copy.seek(SeekFrom::Start((20 << 20) - 4096)).unwrap();
        copy.read_exact(&mut around).unwrap();
        assert!(around[..4096].iter().all(|&b| b == 0));
        assert!(around[4096..].iter().all(|&b| b == 7), "the data is copied");
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

    #[test]
    fn a_copy_is_readable_by_all_writable_by_none_and_keeps_only_inside_links() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("alice");
        std::fs::create_dir_all(from.join("lib/deep")).unwrap();
        std::fs::write(from.join("bot.py"), "print()").unwrap();
        set_mode(&from.join("bot.py"), 0o600);
        std::fs::write(from.join("run"), "#!/bin/sh").unwrap();
        set_mode(&from.join("run"), 0o700);
        std::fs::write(from.join("lib/deep/w.bin"), "w").unwrap();
        set_mode(&from.join("lib"), 0o700);
        // Absolute and relative links inside, one leading nowhere.
        std::os::unix::fs::symlink(from.join("lib/deep/w.bin"), from.join("lib/w.bin")).unwrap();
        std::os::unix::fs::symlink("..", from.join("lib/deep/up")).unwrap();
        std::os::unix::fs::symlink("gone", from.join("dangling")).unwrap();
        let to = dir.path().join("copy");
        copy_tree(&from, &to, None).unwrap();
        let mode = |p: &str| {
            std::fs::symlink_metadata(to.join(p))
                .unwrap()
                .permissions()
                .mode()
                & 0o7777
        };
        assert_eq!(mode("bot.py"), 0o644);
        assert_eq!(mode("run"), 0o755);
        assert_eq!(mode("lib"), 0o755);
        assert_eq!(
            std::fs::read_link(to.join("lib/w.bin")).unwrap(),
            Path::new("../lib/deep/w.bin")
        );
        assert_eq!(std::fs::read_to_string(to.join("lib/w.bin")).unwrap(), "w");
        assert_eq!(
            std::fs::canonicalize(to.join("lib/deep/up")).unwrap(),
            std::fs::canonicalize(to.join("lib")).unwrap()
        );
        assert!(std::fs::symlink_metadata(to.join("dangling")).is_err());

        std::os::unix::fs::symlink("/etc/passwd", from.join("passwd")).unwrap();
        let err = copy_tree(&from, &dir.path().join("copy2"), None).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("the link passwd leads outside it (to /etc/passwd"),
            "{err}"
        );
    }

    #[test]
    fn a_copy_taken_back_refuses_links_outside_and_unshares_hard_links() {
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("copy");
        std::fs::create_dir(&copy).unwrap();
        let outside = dir.path().join("outside.txt");
        std::fs::write(&outside, "mine").unwrap();
        set_mode(&outside, 0o600);
        std::fs::hard_link(&outside, copy.join("linked.txt")).unwrap();
        std::fs::write(copy.join("bot"), "").unwrap();
        set_mode(&copy.join("bot"), 0o777);
        set_mode(&copy, 0o777);
        take_back(&copy).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode(&outside), 0o600, "the other name is untouched");
        assert_eq!(mode(&copy.join("linked.txt")), 0o644);
        assert_eq!(mode(&copy.join("bot")), 0o755);
        assert_eq!(mode(&copy), 0o755);
        assert_eq!(std::fs::metadata(&outside).unwrap().nlink(), 1);

        std::os::unix::fs::symlink(&outside, copy.join("out")).unwrap();
        let err = take_back(&copy).unwrap_err();
        assert!(
            err.starts_with("it left a link out that leads outside its copy"),
            "{err}"
        );
    }
}
