//! `arena check --config FILE`: the check of `arena check BOT` for every bot of a
//! tournament file at once (a class of submissions), a few at a time. Builds run
//! first, as in a tournament; a bot that does not build or has no bot file fails
//! with that reason. Prints one table — bot, PASS/FAIL, the first failure in
//! words — and writes a feedback file per bot (`<dir>/<bot>.txt`) a teacher can
//! hand to its author: every step, every fault with the board drawn where it
//! happened, the tail of the bot's stderr, or the build's output. A submission
//! left out (its folder reaches outside, its name misleads, its sandbox refuses
//! it) fails with that reason; hidden folders passed over are listed. Exit 0
//! only if every bot passes; Ctrl-C (SIGTERM, SIGHUP) stops the builds and the
//! checks and exits with the code of an interrupted run.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::Context as _;
use referee::bot::sandbox::HostSupport;

use super::usage;
use crate::cli::CheckArgs;
use crate::conformance::checker::{
    CheckOptions, Checker, HANDSHAKE_STEP, Outcome, StepRecord, run_steps, tally,
};
use crate::defaults;
use crate::exit_codes::{self, Code};
use crate::tournament::build::{BuildReport, BuildsStopped, Built, build_all, hidden_line};
use crate::tournament::config::{self, Tournament};
use crate::tournament::entrant::Entrant;
use crate::tournament::format::Format;
use crate::tournament::interrupt::{self, Watch};
use crate::tournament::isolation;
use crate::tournament::runner::{self, Interruption};

/// What became of one bot.
enum Verdict {
    /// It was checked, step by step.
    Checked(Vec<StepRecord>),
    /// It could not be checked: no bot, or a failed build (with its report).
    NotRun {
        why: String,
        build: Option<BuildReport>,
    },
}

impl Verdict {
    fn passed(&self) -> bool {
        matches!(self, Verdict::Checked(steps) if steps.iter().all(|s| s.outcome.ok()))
    }

    /// The first failure in one line.
    fn first_failure(&self) -> String {
        match self {
            Verdict::Checked(steps) => steps
                .iter()
                .find_map(|s| match &s.outcome {
                    Outcome::Fail(why) => Some(format!("{}: {why}", s.name)),
                    _ => None,
                })
                .unwrap_or_default(),
            Verdict::NotRun { why, .. } => why.clone(),
        }
    }
}

/// Runs `arena check --config FILE`.
///
/// # Errors
/// The feedback directory cannot be written.
pub fn run(config_path: &Path, args: &CheckArgs, options: &CheckOptions) -> anyhow::Result<Code> {
    let exe = std::env::current_exe().context("locating the arena executable")?;
    let mut tournament = match config::load(config_path, &exe) {
        Ok(t) => t,
        Err(e) => return Ok(usage(&e.to_string())),
    };
    tournament.limit_memory(args.memory_mb);
    // A check reports every bot: none is the gauntlet's centre.
    tournament.format = Format::RoundRobin;
    let feedback = args
        .feedback
        .clone()
        .unwrap_or_else(|| PathBuf::from("check-feedback"));
    std::fs::create_dir_all(&feedback)
        .with_context(|| format!("creating the feedback directory {}", feedback.display()))?;
    let at_once = args.concurrency.unwrap_or_else(defaults::concurrency);
    let host = isolation::detect(&exe);

    let mut verdicts = match build_and_leave_out(&mut tournament, &host, &feedback, at_once)? {
        Ok(verdicts) => verdicts,
        Err(why) => return Ok(stopped(why, "during the builds")),
    };
    let isolation = match isolation::apply_leaving_out(&mut tournament, &host, Some(args.sandbox)) {
        Ok(report) => report,
        Err(message) => return Ok(usage(&message)),
    };
    verdicts.extend(left_out_verdicts(&tournament));
    crate::say!(
        "Checking {} bots of {} ({} at once)",
        tournament.entrants.len() + verdicts.len(),
        config_path.display(),
        at_once
    );
    crate::say!("{}", isolation::banner(&isolation));
    for dir in &tournament.hidden {
        crate::say!("{}", hidden_line(dir));
    }
    let (checked, interrupted) =
        interrupt::watching(|watch| check_each(&tournament.entrants, options, at_once, watch));
    if let Some(why) = interrupted {
        return Ok(stopped(why, "during the checks"));
    }
    verdicts.extend(checked);
    // Bots checked before those left out of the same name (a folder named
    // like one of the file's bots).
    verdicts.sort_by(|(a, va), (b, vb)| {
        a.cmp(b).then_with(|| {
            matches!(va, Verdict::NotRun { .. }).cmp(&matches!(vb, Verdict::NotRun { .. }))
        })
    });

    write_table_and_feedback(&verdicts, &feedback, &tournament)?;
    let passed = verdicts.iter().filter(|(_, v)| v.passed()).count();
    crate::say!(
        "\n{passed} of {} bots passed. Feedback for each bot: {}/<bot>.txt",
        verdicts.len(),
        feedback.display()
    );
    Ok(if passed == verdicts.len() {
        exit_codes::OK
    } else {
        exit_codes::FAILURE
    })
}

/// An interrupted check: said on stderr, and the exit code of an interrupted
/// run.
fn stopped(why: Interruption, when: &str) -> Code {
    eprintln!("{} {when}: no feedback was written.", why.describe());
    super::skeleton::interrupted(why)
}

/// Makes every bot's copy and runs its build step; the bots whose copy or
/// build failed come back as verdicts (not run, with why), and leave the
/// tournament. `Ok(Err(why))`: interrupted.
///
/// # Errors
/// The builds' directory could not be made.
fn build_and_leave_out(
    tournament: &mut Tournament,
    host: &HostSupport,
    feedback: &Path,
    at_once: usize,
) -> anyhow::Result<Result<Vec<(String, Verdict)>, Interruption>> {
    let mut verdicts: Vec<(String, Verdict)> = Vec::new();
    let builds = tournament.builds.clone();
    let work = feedback.join("builds");
    let reports = match build_all(
        &mut tournament.entrants,
        &builds,
        host,
        &work,
        tournament.build_limit,
        at_once,
    ) {
        Ok(reports) => reports,
        Err(BuildsStopped::Interrupted(why)) => return Ok(Err(why)),
        Err(BuildsStopped::Unusable(e)) => anyhow::bail!("cannot use {}: {e}", work.display()),
    };
    for report in reports {
        if let Some(why) = report.failure() {
            let name = report.name.clone();
            tournament.entrants.retain(|e| e.spec.name != name);
            verdicts.push((
                name,
                Verdict::NotRun {
                    why,
                    build: Some(report),
                },
            ));
        }
    }
    Ok(Ok(verdicts))
}

/// A verdict (not run, with why) for each bot the tournament left out.
fn left_out_verdicts(tournament: &Tournament) -> Vec<(String, Verdict)> {
    tournament
        .left_out
        .iter()
        .map(|left| {
            (
                left.name.clone(),
                Verdict::NotRun {
                    why: left.why.clone(),
                    build: None,
                },
            )
        })
        .collect()
}

/// The table of verdicts on standard output, and each bot's feedback file.
///
/// # Errors
/// A feedback file could not be written.
fn write_table_and_feedback(
    verdicts: &[(String, Verdict)],
    feedback: &Path,
    tournament: &Tournament,
) -> anyhow::Result<()> {
    let width = verdicts
        .iter()
        .map(|(n, _)| n.len())
        .max()
        .unwrap_or(3)
        .max(3);
    crate::say!("\n{:<width$}  result  first failure", "bot");
    let mut files = std::collections::BTreeSet::new();
    for (name, verdict) in verdicts {
        let (word, why) = if verdict.passed() {
            ("PASS", String::new())
        } else {
            ("FAIL", verdict.first_failure())
        };
        crate::say!("{name:<width$}  {word:<6}  {why}");
        // Two verdicts of one name (a folder left out beside a bot of that
        // name) never share a file: the second is `<name>.2.txt`.
        let file = (1..)
            .map(|n| {
                if n == 1 {
                    format!("{name}.txt")
                } else {
                    format!("{name}.{n}.txt")
                }
            })
            .find(|f| files.insert(f.clone()))
            .unwrap_or_default();
        let path = feedback.join(file);
        let author = Author {
            name,
            command: tournament.written.get(name.as_str()).map(String::as_str),
            folders: folders_of(tournament, name),
        };
        let text = feedback_text(&author, verdict);
        crate::results::atomic::write_atomic(&path, text.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// Checks every entrant, `at_once` at a time, each in a thread of its own with a
/// runtime of its own, until `watch` sees an interruption.
fn check_each(
    entrants: &[Entrant],
    options: &CheckOptions,
    at_once: usize,
    watch: &Watch,
) -> Vec<(String, Verdict)> {
    let queue = Mutex::new(entrants.iter().collect::<Vec<_>>());
    let done = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..at_once.clamp(1, entrants.len().max(1)) {
            scope.spawn(|| {
                while watch.caught().is_none()
                    && let Some(entrant) = queue.lock().ok().and_then(|mut q| q.pop())
                {
                    let mut checker = Checker::new(&entrant.spec, options, false);
                    let verdict = match runner::runtime(1) {
                        Ok(rt) => {
                            let steps = rt.block_on(async {
                                tokio::select! {
                                    steps = run_steps(&mut checker) => Some(steps),
                                    _ = watch.interrupted() => None,
                                }
                            });
                            let Some(steps) = steps else { break };
                            Verdict::Checked(steps)
                        }
                        Err(e) => Verdict::NotRun {
                            why: format!("the check could not start: {e}"),
                            build: None,
                        },
                    };
                    if let Ok(mut d) = done.lock() {
                        d.push((entrant.spec.name.clone(), verdict));
                    }
                }
            });
        }
    });
    done.into_inner().unwrap_or_default()
}

/// Whom a feedback file is for: the bot's name, its command as written (to
/// run the check again, or the bot itself), and the folders its paths are
/// shown relative to (its copy, where it ran, and its own).
#[derive(Debug)]
struct Author<'a> {
    name: &'a str,
    command: Option<&'a str>,
    folders: Vec<PathBuf>,
}

impl Author<'_> {
    /// `text` with the bot's folders left out of its paths: `bot.py`, not
    /// `/tmp/…/builds/eve/bot.py`.
    fn relative(&self, text: &str) -> String {
        crate::tournament::league::faults::relative_to(text, &self.folders)
    }
}

/// The folders of bot `name` in `tournament`, longest first (a copy lies
/// inside the results directory, never inside the bot's own folder).
fn folders_of(tournament: &Tournament, name: &str) -> Vec<PathBuf> {
    let mut folders: Vec<PathBuf> = tournament
        .entrants
        .iter()
        .filter(|e| e.spec.name == name)
        .filter_map(|e| e.spec.command.working_dir.clone())
        .chain(tournament.builds.get(name).map(|b| b.source.clone()))
        .collect();
    folders.sort_by_key(|f| std::cmp::Reverse(f.as_os_str().len()));
    folders
}

/// The feedback file of one bot: for its author, in words. Each step is what
/// it expects; a failure says what the bot did, the request it was
/// answering, the board and its stderr as written; the same fault again is
/// said once; steps after a bot could not start are "not run".
fn feedback_text(author: &Author<'_>, verdict: &Verdict) -> String {
    let name = author.name;
    let mut t = String::new();
    let _ = writeln!(t, "Feedback for {name}: arena check");
    let _ = writeln!(t, "{}", "=".repeat(22 + name.len()));
    let quoted = author
        .command
        .map(|c| shlex::try_quote(c).map_or_else(|_| c.to_string(), |q| q.into_owned()));
    if let Some(quoted) = &quoted {
        let _ = writeln!(
            t,
            "\nTo run this check yourself, in your bot's folder (after building it):\n  arena check {quoted}"
        );
    }
    match verdict {
        Verdict::NotRun { why, build } => {
            let why = author.relative(why);
            let _ = writeln!(t, "\nRESULT: FAIL, your bot could not be checked.\n\n{why}");
            if let Some(BuildReport {
                command: Some(command),
                built: Built::Failed { why, output },
                ..
            }) = build
            {
                let _ = writeln!(t, "\nThe build command was: {command}\nIt ended: {why}");
                if !output.is_empty() {
                    let _ = writeln!(t, "What it printed (the end):");
                    for line in author.relative(output).lines() {
                        let _ = writeln!(t, "  | {line}");
                    }
                }
            }
        }
        Verdict::Checked(steps) => {
            let passed = steps.iter().all(|s| s.outcome.ok());
            let _ = writeln!(
                t,
                "\nRESULT: {}, {}.\n",
                if passed { "PASS" } else { "FAIL" },
                tally(steps)
            );
            let mut said: Vec<&str> = Vec::new();
            for step in steps {
                step_text(&mut t, author, step, &mut said);
            }
        }
    }
    t
}

/// One step of a feedback file; `said`: the faults already written out.
fn step_text<'a>(
    t: &mut String,
    author: &Author<'_>,
    step: &'a StepRecord,
    said: &mut Vec<&'a str>,
) {
    let name = &step.name;
    let why = match &step.outcome {
        Outcome::Pass(what) => {
            let _ = writeln!(t, "PASS  {name}: {what}");
            return;
        }
        Outcome::NotRun(why) => {
            let _ = writeln!(t, "----  {name}: {why}");
            return;
        }
        Outcome::Skipped(why) => {
            let _ = writeln!(t, "SKIP  {name}: {why}");
            return;
        }
        Outcome::Fail(why) => why,
    };
    if said.contains(&why.as_str()) {
        let _ = writeln!(t, "FAIL  {name}: the same fault as above");
        return;
    }
    said.push(why);
    let _ = writeln!(t, "FAIL  {name}: {}", author.relative(why));
    if let Some(request) = &step.request {
        let _ = writeln!(t, "      it was answering: {request}");
    }
    if let Some(board) = &step.board {
        for line in board {
            let _ = writeln!(t, "      {line}");
        }
    }
    if !step.stderr.is_empty() {
        let _ = writeln!(t, "      your bot's stderr ends with:");
        for line in &step.stderr {
            let _ = writeln!(t, "      | {}", author.relative(line));
        }
    }
    if name == HANDSHAKE_STEP
        && let Some(command) = author.command
    {
        let _ = writeln!(
            t,
            "      Run `{command}` yourself, in your bot's folder, to see the error: a bot \
             that starts waits for 'uttt 1' on its standard input."
        );
    }
}
