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
use crate::results::manifest::IsolationReport;
use crate::results::recorder::Recorder;
use crate::results::standings;
use crate::results::store::GameRow;
use crate::terminal::progress::{Pace, games_bar};
use crate::tournament::config::{self, DEFAULT_CONFIG, Overrides, Tournament};
use crate::tournament::draw::{DrawPlan, event_table};
use crate::tournament::prepare::{RunSpec, prepare};
use crate::tournament::run::{Watcher, run_games};
use crate::tournament::runner::{Finished, Flow, Interruption, RunEnd};
use crate::tournament::schedule::Format;
use crate::tournament::schedule::Shard;
use crate::tournament::{build, isolation};

/// Runs `arena tournament`.
///
/// # Errors
/// Results could not be written, or the runtime failed.
pub fn run(args: &TournamentArgs) -> anyhow::Result<Code> {
    if args.json {
        crate::stdout::words_to_stderr();
    }
    let event = match set_up(args)? {
        Ok(event) => event,
        Err(message) => return Ok(usage(&message)),
    };
    let t = &event.tournament;
    if args.dry_run {
        crate::say!("{}", dry_run(t, event.concurrency, args.seed.or(t.seed)));
        return Ok(crate::exit_codes::OK);
    }
    play(args, &event)
}

/// A tournament ready to play: loaded, built, isolated, with its directory.
#[derive(Debug)]
struct Event {
    tournament: Tournament,
    out: PathBuf,
    concurrency: usize,
    isolation: IsolationReport,
    shard: Option<Shard>,
}

/// Loads the file (with the command line's overrides), runs the build steps and
/// plans the bots' isolation. `Ok(Err(message))` is the user's to fix.
///
/// # Errors
/// The current directory or the executable cannot be found.
fn set_up(args: &TournamentArgs) -> anyhow::Result<Result<Event, String>> {
    let exe = std::env::current_exe().context("locating the arena executable")?;
    let overrides = Overrides {
        games: args.games,
        move_ms: args.time.map(|t| t.get()),
        rounds: args.rounds,
        bots: args.bots.clone(),
        nodes: args.nodes,
    };
    let mut tournament = match load(args.config.as_deref(), &exe, &overrides)? {
        Ok(t) => t,
        Err(message) => return Ok(Err(message)),
    };
    tournament.limit_memory(args.memory_mb);
    let out = args.out.clone().or_else(|| tournament.out.clone());
    let out = out.unwrap_or_else(|| crate::results::atomic::stamped_dir(&tournament.name));
    let concurrency = args.concurrency.or(tournament.concurrency);
    let concurrency = concurrency.unwrap_or_else(defaults::concurrency);
    let host = isolation::detect(&exe);
    match build::build_tournament(&mut tournament, &host, &out.join("builds"), concurrency) {
        Ok(lines) => lines.iter().for_each(|l| crate::say!("{l}")),
        Err(message) => return Ok(Err(message)),
    }
    let isolation = match isolation::apply(&mut tournament.entrants, &host, args.sandbox) {
        Ok(report) => report,
        Err(message) => return Ok(Err(message)),
    };
    let shard = match args.shard.as_deref().map(str::parse::<Shard>).transpose() {
        Ok(shard) => shard,
        Err(e) => return Ok(Err(format!("--shard: {e}"))),
    };
    Ok(Ok(Event {
        tournament,
        out,
        concurrency,
        isolation,
        shard,
    }))
}

/// Plays the event. A Swiss or knockout is played a round (a stage) at a time:
/// each prepare draws from the results so far, so an interrupted run resumes the
/// same way.
///
/// # Errors
/// Results could not be written, or the runtime failed.
fn play(args: &TournamentArgs, event: &Event) -> anyhow::Result<Code> {
    let (t, out) = (&event.tournament, &event.out);
    let mut first = true;
    loop {
        let spec = RunSpec {
            seed: args.seed.or(t.seed),
            out: Some(out),
            shard: event.shard,
            force: args.force,
            ..t.run_spec(event.concurrency, &event.isolation)
        };
        let prepared = match prepare(spec) {
            Ok(prepared) => prepared,
            Err(e) => return refused(e),
        };
        let mut recorder = prepared.recorder;
        if first {
            if let Err(e) = super::serve_cmd::beside_run(args.serve, args.show_logs, Some(out)) {
                return Ok(usage(&format!("{e:#}")));
            }
            print_banner(t, &recorder, event.concurrency, event.shard);
            crate::say!("  {}", isolation::banner(&event.isolation));
        }
        // Every bot is started once before the first game of the run (not again
        // before each round of a Swiss or knockout).
        let options = t.run_options(event.concurrency, out, first && !args.no_preflight);
        first = false;
        let mut watcher = TournamentWatch {
            quiet: args.quiet,
            resume: crate::tournament::run::resume_command_into(Some(out)),
            out: out.clone(),
            last: !prepared.more,
            event: event_plan(t, recorder.seed()),
            names: t.names().iter().map(ToString::to_string).collect(),
            pace: Pace::default(),
        };
        let games = prepared.games;
        let end = match run_games(&t.entrants, options, games, &mut recorder, &mut watcher) {
            Ok(end) => end,
            Err(e) => return super::failed_run("tournament", e, &recorder, args.json),
        };
        if end != RunEnd::Complete || !prepared.more {
            let code = played(end, &recorder);
            let summary = super::summary_for("tournament", &recorder, None, code)?;
            return super::conclude(&summary, &recorder, args.json);
        }
    }
}

/// What `--dry-run` prints: the bots, the games, the first round of a Swiss or
/// knockout, an estimated duration. Nothing is played and no results directory
/// is bound (builds are kept in it for the real run).
fn dry_run(t: &Tournament, concurrency: usize, seed: Option<u64>) -> String {
    let n = t.entrants.len();
    let mut lines = vec![format!(
        "Dry run of '{}': {n} bots ({})",
        t.name,
        t.names().join(", ")
    )];
    let games = match t.event_games(seed.unwrap_or(0)) {
        Ok((games, what)) => {
            lines.push(format!("  {games} games: {what}"));
            games
        }
        Err(e) => {
            lines.push(format!("  {e}"));
            0
        }
    };
    if let Some(plan) = event_plan(t, seed.unwrap_or(0)) {
        let first = crate::tournament::draw::draw(&plan, &std::collections::HashMap::new());
        let names = t.names();
        let name = |i: usize| names.get(i).copied().unwrap_or("?");
        if let Some(round) = first.rounds.first() {
            let pairs: Vec<String> = round
                .matches
                .iter()
                .map(|m| format!("{} v {}", name(m.a), name(m.b)))
                .collect();
            let byes: Vec<&str> = round.byes.iter().map(|&b| name(b)).collect();
            lines.push(format!(
                "  round 1: {}{}",
                pairs.join(", "),
                if byes.is_empty() {
                    String::new()
                } else {
                    format!("; bye: {}", byes.join(", "))
                }
            ));
        }
    }
    // The most a game can take: every move of a long game at its full time.
    const PLIES: u64 = 60;
    let per_move = t.time.move_time.unwrap_or_default().as_millis() as u64;
    let worst_ms = games * PLIES * per_move / concurrency.max(1) as u64;
    lines.push(format!(
        "  at most about {} at {concurrency} at once, if every move of a {PLIES}-ply game used its full {per_move} ms (usually much less)",
        humantime::format_duration(std::time::Duration::from_secs(worst_ms / 1000))
    ));
    lines.push("Nothing was played (--dry-run).".into());
    lines.join("\n")
}

/// The draw of a Swiss or knockout `t` with `seed`, if it is one.
fn event_plan(t: &Tournament, seed: u64) -> Option<DrawPlan> {
    match t.format {
        Format::Drawn(format) => Some(DrawPlan {
            bots: t.entrants.len(),
            format,
            games_per_pairing: t.games,
            openings: t.openings.clone(),
            rules: t.rules,
            seed,
        }),
        _ => None,
    }
}

/// The tournament file, or the built-in ladder without one. `Ok(Err(message))` is
/// the user's to fix.
///
/// # Errors
/// The current directory cannot be read.
fn load(
    path: Option<&Path>,
    exe: &Path,
    overrides: &Overrides,
) -> anyhow::Result<Result<Tournament, String>> {
    let loaded = match path {
        Some(path) => config::load_with(path, exe, overrides),
        None => {
            let cwd = std::env::current_dir().context("reading the current directory")?;
            let file = "configs/default.toml (built in)";
            config::parse_with(file, DEFAULT_CONFIG, &cwd, exe, overrides)
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
    /// Whether these are the last games (a Swiss or knockout draws more after
    /// a round).
    last: bool,
    /// A Swiss or knockout's draw, for its table.
    event: Option<DrawPlan>,
    /// The bots' names, in config order.
    names: Vec<String>,
    /// When the bar's message is due.
    pace: Pace,
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
        let latest = || {
            let line = super::match_cmd::summary_line(&finished.record);
            format!("{} {line}", row.id)
        };
        if bar.is_hidden() && !self.quiet {
            crate::say!("[{}/{}] {}", recorder.done(), recorder.total(), latest());
        }
        if self.pace.due(bar) {
            let leader = recorder.scoreboard().leader();
            bar.set_message(format!("leader: {leader} | latest: {}", latest()));
        }
        Ok(Flow::Continue)
    }

    fn complete(&self, end: RunEnd) -> bool {
        end == RunEnd::Complete && self.last
    }

    fn summary(&mut self, recorder: &Recorder, end: RunEnd) -> anyhow::Result<()> {
        let names: Vec<&str> = self.names.iter().map(String::as_str).collect();
        let table = match &self.event {
            // A Swiss or knockout plays few games: its table reads them all back.
            Some(plan) => Some(event_table(plan, &names, &recorder.recorded_games()?)),
            None => None,
        };
        if let Some(table) = &table {
            crate::results::event::write(&self.out, &table.table)?;
        }
        if end == RunEnd::Complete && !self.last {
            // A round of a Swiss or knockout: the next is drawn from it.
            if let (Some(table), false) = (&table, self.quiet) {
                crate::say!("{}", table.text);
            }
            return Ok(());
        }
        standings::report(recorder.scoreboard(), &self.out, !self.quiet)?;
        if let Some(table) = &table {
            crate::say!("{}", table.text);
        }
        super::report_cmd::after_tournament(&self.out, recorder.done());
        crate::say!("Results in {}", self.out.display());
        Ok(())
    }

    fn interrupted(&self, recorder: &Recorder, why: Interruption) -> String {
        format!(
            "{} after {} of {} games; running games were abandoned, finished ones kept. To resume, run:\n  {}",
            why.describe(),
            recorder.done(),
            recorder.total(),
            self.resume
        )
    }
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
    crate::say!(
        "Tournament '{}': {} bots ({})",
        t.name,
        bots.len(),
        bots.join(", ")
    );
    let time = &t.time;
    let ms = |d: Option<std::time::Duration>| {
        d.map_or("-".to_string(), |d| format!("{} ms", d.as_millis()))
    };
    crate::say!(
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
        crate::say!(
            "  resuming: {} finished, {remaining} to play",
            total - remaining
        );
    }
    if let Some(out) = recorder.out() {
        crate::say!("  results: {}", out.display());
    }
}
