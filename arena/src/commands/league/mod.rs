//! `arena league FILE`: one run of a season (or, with `--watch`, a run each
//! time a submission or the file changes). The file is a tournament file with
//! a `[league]` table; its results directory lives for the season. This
//! command wires: the builds (`tournament::build`), the run
//! (`tournament::league::season`: versions, the games in batches until every
//! grade is settled, the grades and the files), the students' feedback in
//! words (`conformance::feedback`), the words on the terminal (a progress bar,
//! the faults grouped, the table) and the similarity check ([`similar`]).
//!
//! A command rather than a `format`: a format says who plays whom in one run,
//! and a results directory holding another run is refused; a league's directory
//! holds many runs whose entrants change, on purpose, and leaves files no other
//! format writes.

mod similar;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use indicatif::ProgressBar;

use super::flags;
use super::skeleton;
use crate::cli::LeagueArgs;
use crate::conformance;
use crate::defaults;
use crate::exit_codes::{self, Code, UsageError};
use crate::results::recorder::Recorder;
use crate::results::store::GameRow;
use crate::terminal::progress::{Pace, games_bar};
use crate::tournament::build;
use crate::tournament::config;
use crate::tournament::isolation;
use crate::tournament::league::files;
use crate::tournament::league::season::{Known, Season};
use crate::tournament::league::versions;
use crate::tournament::league::watch::{Event, Looked, Watch, file_stamp};
use crate::tournament::run::Watcher;
use crate::tournament::runner::{Finished, Flow, Interruption, RunEnd};
use crate::tournament::settings::RunSettings;
use crate::tournament::settings::input::{DisplayInput, Given, Input};
use crate::tournament::settings::league::League;

/// Runs `arena league`.
///
/// With `--watch`, only the first run's errors end the command: a later run that
/// cannot start (the file saved half-edited, a folder unreadable for a moment)
/// says what is wrong and the watch goes on, waiting for a fix.
///
/// # Errors
/// A [`UsageError`], results could not be written, or the runtime failed.
pub fn run(args: &LeagueArgs) -> anyhow::Result<Code> {
    let mut serving = false;
    // Looked at before the run, so that a change made while it copies the
    // folders is seen afterwards and played.
    let looked = args.watch.then(|| looked_now(args));
    let code = season_run(args, &mut serving)?;
    let Some(looked) = looked.filter(|_| code == exit_codes::OK) else {
        // The page stays with the finished season until Ctrl-C, as a
        // tournament's does.
        if serving {
            super::serve_cmd::stay_after_run(code);
        }
        return Ok(code);
    };
    let mut watch = Watch::new(looked);
    loop {
        crate::say!(
            "Watching the submissions (every {} s; Ctrl-C stops)…",
            args.poll_seconds
        );
        if let Some(why) = wait_for_change(args, &mut watch) {
            eprintln!("{}: the season's results are kept.", why.describe());
            return Ok(skeleton::interrupted(why));
        }
        let looked = looked_now(args);
        match season_run(args, &mut serving) {
            Ok(code) if code == exit_codes::OK => watch.played(looked),
            Ok(code) => return Ok(code),
            Err(e) => {
                eprintln!("error: {e:#}");
                eprintln!(
                    "The watch goes on: the season's results are kept; the league plays again \
                     once {} loads and something changes.",
                    args.config.display()
                );
                watch.failed(looked_now(args));
            }
        }
    }
}

/// The file's settings with the flags over them; refused without a `[league]`.
fn load(args: &LeagueArgs) -> anyhow::Result<(RunSettings, League)> {
    let exe = flags::arena_exe()?;
    let over = Input {
        concurrency: args.concurrency,
        governor: flags::governor(args.governor),
        governor_wait_s: args.governor_wait,
        out: args.out.clone(),
        sandbox_override: args.sandbox,
        display: DisplayInput {
            pace_ms: args.pace.map(|p| Given::flag(p, "--pace")),
            ..DisplayInput::default()
        },
        ..Input::default()
    };
    let settings =
        config::load_with(&args.config, &exe, over).map_err(|e| UsageError::of(e.to_string()))?;
    let league = settings.league.clone().ok_or_else(|| {
        UsageError::of(format!(
            "{}: a league's file needs a [league] table (e.g. [league] with mode = \"levels\", \
             pass = \"level4\"); to play it once, use arena tournament",
            args.config.display()
        ))
    })?;
    Ok((settings, league))
}

/// The season's directory: the flag's, the file's `out`, else results/<name>.
fn season_dir(settings: &RunSettings) -> PathBuf {
    settings
        .out
        .clone()
        .unwrap_or_else(|| Path::new("results").join(&settings.name))
}

/// One run of the season; its exit code.
fn season_run(args: &LeagueArgs, serving: &mut bool) -> anyhow::Result<Code> {
    let (mut settings, league) = load(args)?;
    let out = season_dir(&settings);
    std::fs::create_dir_all(&out)
        .map_err(|e| UsageError::of(format!("cannot make {}: {e}", out.display())))?;
    let concurrency = settings.concurrency.unwrap_or_else(defaults::concurrency);
    let exe = flags::arena_exe()?;
    let host = isolation::detect(&exe);
    let sandbox = settings.sandbox;
    let known = Known::of(&settings);
    let prepared = build::prepare_bots(
        &mut settings,
        &host,
        &out.join("builds"),
        concurrency,
        sandbox,
    );
    let ready = match skeleton::builds_done(prepared)? {
        Ok(ready) => ready,
        Err(code) => return Ok(code),
    };
    let mut season = Season::open((settings, known), league, &out, &ready, concurrency)?;
    if let Some(addr) = args.serve.filter(|_| !*serving) {
        super::serve_cmd::beside_run(Some(addr), false, Some(&out))
            .map_err(|e| UsageError::of(format!("{e:#}")))?;
        *serving = true;
    }
    crate::say!("{}", season.banner());
    let started = Instant::now();
    let mut watcher = LeagueWatch::new(args.quiet);
    let mut end = RunEnd::Complete;
    while let Some(batch) = season.next_batch()? {
        if !args.quiet {
            crate::say!("{}", batch.words());
        }
        watcher.later = batch.at_most_later;
        end = season.play(batch, &mut watcher)?;
        if end != RunEnd::Complete {
            break;
        }
    }
    season.finish(end == RunEnd::Complete)?;
    let played = season.played();
    crate::say!(
        "Played {played} game{} in {:.1} s.",
        if played == 1 { "" } else { "s" },
        started.elapsed().as_secs_f64()
    );
    let concluded = season.conclude()?;
    for student in &concluded.students {
        let text = conformance::feedback::league(student);
        files::write_feedback(&out, &student.row.feedback, &text)?;
    }
    if !args.quiet && !concluded.faults.is_empty() {
        crate::say!("Games lost by a fault this run (each kind once, with how many):");
        for line in &concluded.faults {
            crate::say!("  {}", uttt::protocol::escape_bytes(line.as_bytes()));
        }
    }
    crate::say!("{}", concluded.table(season.league()));
    // An interrupted run stops here: no bot is started again to be compared.
    if !args.no_similarity && !matches!(end, RunEnd::Interrupted(_)) {
        let league = season.league();
        let is_level = |name: &str| league.levels.iter().any(|l| l.name == name);
        let copies = similar::copies(season.settings(), is_level);
        let lines = similar::check(
            &copies,
            season.settings(),
            league.starter.as_deref(),
            league.similarity_threshold,
            &out,
        )?;
        for line in lines {
            crate::say!("{line}");
        }
    }
    super::report_cmd::after_tournament(&out, season.games());
    Ok(match end {
        RunEnd::Interrupted(why) => skeleton::interrupted(why),
        RunEnd::Complete | RunEnd::Stopped => exit_codes::OK,
    })
}

/// The file and the versions as they are now.
fn looked_now(args: &LeagueArgs) -> Looked {
    Looked {
        file: file_stamp(&args.config),
        versions: load(args)
            .and_then(|(settings, _)| versions::stamps(&settings))
            .ok(),
    }
}

/// Waits, looking every `--poll-seconds`, until [`Watch::look`] sees a change;
/// says a broken file once, and its fix. `Some` if interrupted first.
fn wait_for_change(args: &LeagueArgs, watch: &mut Watch) -> Option<Interruption> {
    let (_, why) = crate::tournament::interrupt::watching(|caught| {
        let mut next = Instant::now();
        loop {
            if caught.caught().is_some() {
                return;
            }
            if Instant::now() >= next {
                next = Instant::now() + Duration::from_secs(args.poll_seconds);
                let file = file_stamp(&args.config);
                let versions = load(args)
                    .and_then(|(settings, _)| versions::stamps(&settings))
                    .map_err(|e| format!("{e:#}"));
                for event in watch.look(file, versions) {
                    match event {
                        Event::Broken(words) => {
                            eprintln!("error: {words}");
                            eprintln!(
                                "Still watching: correct {} and save it; the league plays again \
                                 once it loads.",
                                args.config.display()
                            );
                        }
                        Event::LoadsAgain => {
                            crate::say!("{} loads again.", args.config.display());
                        }
                        Event::Changed => return,
                    }
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    why
}

/// The run's progress: a bar on a terminal (games done of those known so
/// far, the rate, the time left for them, and how many more could follow
/// where a grade is not settled), nothing per game elsewhere.
#[derive(Debug)]
struct LeagueWatch {
    quiet: bool,
    pace: Pace,
    /// The most games later batches could add.
    later: u64,
}

impl LeagueWatch {
    fn new(quiet: bool) -> LeagueWatch {
        LeagueWatch {
            quiet,
            pace: Pace::default(),
            later: 0,
        }
    }
}

impl Watcher for LeagueWatch {
    fn bar(&self, recorder: &Recorder) -> ProgressBar {
        games_bar(recorder.total(), recorder.done(), self.quiet)
    }

    fn game(
        &mut self,
        _finished: &Finished,
        row: &GameRow,
        bar: &ProgressBar,
        _recorder: &Recorder,
    ) -> anyhow::Result<Flow> {
        if self.pace.due(bar) {
            let result = if row.winner_name.is_empty() {
                "a draw".to_string()
            } else {
                format!("{} wins ({})", row.winner_name, row.reason.name())
            };
            let latest = format!("{} vs {}: {result}", row.x, row.o);
            let later = if self.later > 0 {
                format!(
                    " | then at most {} more games where a level is not settled",
                    self.later
                )
            } else {
                String::new()
            };
            bar.set_message(format!("latest: {} {latest}{later}", row.id));
        }
        Ok(Flow::Continue)
    }
}
