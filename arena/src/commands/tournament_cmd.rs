//! `arena tournament [CONFIG]`: the main job. Plays the schedule (resuming a results
//! directory that already holds some of it), shows progress, writes every finished
//! game before reporting it, and prints the standings at the end.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use indicatif::ProgressBar;

use super::{played, refused, usage};
use crate::cli::TournamentArgs;
use crate::defaults;
use crate::exit_codes::Code;
use crate::results::recorder::Recorder;
use crate::results::standings;
use crate::results::store::GameRow;
use crate::terminal::progress::games_bar;
use crate::tournament::config::{self, DEFAULT_CONFIG, Tournament};
use crate::tournament::isolation;
use crate::tournament::prepare::{RunSpec, prepare};
use crate::tournament::run::{Watcher, run_games};
use crate::tournament::runner::{Finished, Flow, RunEnd};
use crate::tournament::schedule::Shard;

/// Runs `arena tournament`.
///
/// # Errors
/// Results could not be written, or the runtime failed.
pub fn run(args: &TournamentArgs) -> anyhow::Result<Code> {
    let exe = std::env::current_exe().context("locating the arena executable")?;
    let mut tournament = match load(args.config.as_deref(), &exe)? {
        Ok(t) => t,
        Err(message) => return Ok(usage(&message)),
    };
    tournament.limit_memory(args.memory_mb);
    let host = isolation::detect(&exe);
    let isolation = match isolation::apply(&mut tournament.entrants, &host, args.sandbox) {
        Ok(report) => report,
        Err(message) => return Ok(usage(&message)),
    };
    let shard = match args.shard.as_deref().map(str::parse::<Shard>).transpose() {
        Ok(shard) => shard,
        Err(e) => return Ok(usage(&format!("--shard: {e}"))),
    };
    let out = args.out.clone().or_else(|| tournament.out.clone());
    let out = out.unwrap_or_else(|| crate::results::atomic::stamped_dir(&tournament.name));
    let concurrency = args.concurrency.or(tournament.concurrency);
    let concurrency = concurrency.unwrap_or_else(defaults::concurrency);
    let t = &tournament;
    let spec = RunSpec {
        seed: args.seed.or(t.seed),
        out: Some(&out),
        shard,
        force: args.force,
        ..t.run_spec(concurrency, &isolation)
    };
    let prepared = match prepare(spec) {
        Ok(prepared) => prepared,
        Err(e) => return refused(e),
    };
    let mut recorder = prepared.recorder;
    print_banner(t, &recorder, concurrency, shard);
    println!("  {}", isolation::banner(&isolation));
    let options = t.run_options(concurrency, &out);
    let mut watcher = TournamentWatch {
        quiet: args.quiet,
        resume: resume_command(args, &out),
        out,
    };
    let end = run_games(
        &t.entrants,
        options,
        prepared.games,
        &mut recorder,
        &mut watcher,
    )?;
    Ok(played(end))
}

/// The tournament file, or the built-in ladder without one. `Ok(Err(message))` is
/// the user's to fix.
///
/// # Errors
/// The current directory cannot be read.
fn load(path: Option<&Path>, exe: &Path) -> anyhow::Result<Result<Tournament, String>> {
    let loaded = match path {
        Some(path) => config::load(path, exe),
        None => {
            let cwd = std::env::current_dir().context("reading the current directory")?;
            config::parse("configs/default.toml (built in)", DEFAULT_CONFIG, &cwd, exe)
        }
    };
    Ok(loaded.map_err(|e| e.to_string()))
}

/// A tournament's words: a progress bar with the leader and the latest result on a
/// terminal (a line per game elsewhere, unless `--quiet`), then the standings and
/// the report.
#[derive(Debug)]
struct TournamentWatch {
    quiet: bool,
    out: PathBuf,
    /// The command that resumes the run.
    resume: String,
}

impl Watcher for TournamentWatch {
    fn bar(&self, recorder: &Recorder) -> ProgressBar {
        games_bar(recorder.total(), recorder.done(), self.quiet)
    }

    fn game(
        &mut self,
        finished: &Finished,
        row: &GameRow,
        bar: &ProgressBar,
        recorder: &Recorder,
    ) -> anyhow::Result<Flow> {
        let latest = format!(
            "{} {}",
            row.id,
            super::match_cmd::summary_line(&finished.record)
        );
        if bar.is_hidden() && !self.quiet {
            println!("[{}/{}] {latest}", recorder.done(), recorder.total());
        }
        bar.set_message(format!(
            "leader: {} | latest: {latest}",
            standings::leader(recorder.rows())
        ));
        Ok(Flow::Continue)
    }

    fn summary(&mut self, recorder: &Recorder, _end: RunEnd) -> anyhow::Result<()> {
        standings::report(recorder.rows(), &self.out, !self.quiet)?;
        super::report_cmd::after_tournament(&self.out);
        println!("Results in {}", self.out.display());
        Ok(())
    }

    fn interrupted(&self, recorder: &Recorder) -> String {
        format!(
            "Interrupted after {} of {} games; running games were abandoned. To resume, run:\n  {}",
            recorder.done(),
            recorder.total(),
            self.resume
        )
    }
}

fn resume_command(args: &TournamentArgs, out: &Path) -> String {
    let mut cmd = String::from("arena tournament");
    if let Some(config) = &args.config {
        cmd.push_str(&format!(" {}", config.display()));
    }
    cmd.push_str(&format!(" --out {}", out.display()));
    if let Some(shard) = &args.shard {
        cmd.push_str(&format!(" --shard {shard}"));
    }
    cmd
}

/// The lines before the first game: the bots, the conditions, what is left to play
/// and where the results go.
fn print_banner(t: &Tournament, recorder: &Recorder, concurrency: usize, shard: Option<Shard>) {
    let (seed, total, remaining) = (
        recorder.seed(),
        recorder.total(),
        recorder.total() - recorder.done(),
    );
    let bots = t.names();
    println!(
        "Tournament '{}': {} bots ({})",
        t.name,
        bots.len(),
        bots.join(", ")
    );
    let time = &t.time;
    let ms = |d: Option<std::time::Duration>| {
        d.map_or("-".to_string(), |d| format!("{} ms", d.as_millis()))
    };
    println!(
        "  {total} games{}, {} per move (first {}, margin {} ms){}, rules {}, seed {seed}, {concurrency} at once",
        shard.map_or(String::new(), |s| format!(
            " in shard {}/{}",
            s.index, s.count
        )),
        ms(time.move_time),
        ms(time.first_move_time.or(time.move_time)),
        time.margin.as_millis(),
        time.clock.map_or(String::new(), |c| format!(
            ", clock {} ms + {} ms",
            c.initial.as_millis(),
            c.increment.as_millis()
        )),
        t.rules
    );
    if remaining < total {
        println!(
            "  resuming: {} finished, {remaining} to play",
            total - remaining
        );
    }
    if let Some(out) = recorder.out() {
        println!("  results: {}", out.display());
    }
}
