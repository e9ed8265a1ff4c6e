//! `arena tournament [CONFIG]`: the main job. Plays the schedule (resuming a results
//! directory that already holds some of it), shows progress, writes every finished
//! game before reporting it, and prints the standings at the end. The file is the
//! settings' second front end (`tournament::config`); the flags given here
//! replace its values.

use std::path::{Path, PathBuf};

use indicatif::ProgressBar;

use super::skeleton::{Fit, GameCommand, Stage, play, played, summary_for};
use super::{flags, skeleton};
use crate::cli::TournamentArgs;
use crate::defaults;
use crate::exit_codes::{Code, UsageError};
use crate::results::recorder::Recorder;
use crate::results::standings;
use crate::results::store::GameRow;
use crate::results::summary::Summary;
use crate::terminal::progress::games_bar;
use crate::tournament::build::{self, NotReady};
use crate::tournament::config::{self, DEFAULT_CONFIG};
use crate::tournament::draw::{DrawPlan, event_table};
use crate::tournament::format::Format;
use crate::tournament::isolation;
use crate::tournament::prepare::Remaining;
use crate::tournament::run::Watcher;
use crate::tournament::runner::{Finished, Flow, Interruption, RunEnd};
use crate::tournament::schedule::{ScheduledGame, Shard};
use crate::tournament::settings::RunSettings;
use crate::tournament::settings::input::{EventInput, Given, Input, TimeInput};

/// Runs `arena tournament`: loads the file (the command line's values over its
/// own), runs the build steps, plans the bots' isolation, and plays.
///
/// # Errors
/// A [`UsageError`], results could not be written, or the runtime failed.
pub fn run(args: &TournamentArgs) -> anyhow::Result<Code> {
    if args.json {
        crate::stdout::words_to_stderr();
    }
    let exe = flags::arena_exe()?;
    let mut settings = load(args.config.as_deref(), &exe, flags_input(args)?)?;
    let out = settings.out.clone();
    let out = out.unwrap_or_else(|| crate::results::atomic::stamped_dir(&settings.name));
    let concurrency = settings.concurrency.unwrap_or_else(defaults::concurrency);
    let host = isolation::detect(&exe);
    let sandbox = settings.sandbox;
    let work = out.join("builds");
    let isolation = match build::prepare_bots(&mut settings, &host, &work, concurrency, sandbox) {
        Ok(ready) => {
            ready.lines.iter().for_each(|l| crate::say!("{l}"));
            ready.isolation
        }
        Err(NotReady::Refused(message)) => return Err(UsageError::of(message)),
        Err(NotReady::Interrupted(why)) => {
            eprintln!("{} during the builds: nothing was played.", why.describe());
            return Ok(skeleton::interrupted(why));
        }
    };
    let shard = args.shard.as_deref().map(str::parse::<Shard>).transpose();
    let shard = shard.map_err(|e| UsageError::of(format!("--shard: {e}")))?;
    if args.dry_run {
        crate::say!("{}", dry_run(&settings, concurrency, settings.seed));
        return Ok(crate::exit_codes::OK);
    }
    let stage = Stage {
        settings: &settings,
        isolation: &isolation,
        out: Some(&out),
        concurrency,
        shard,
        batch: None,
        force: args.force,
        preflight: !args.no_preflight,
        serve: args.serve.map(|addr| (addr, args.show_logs)),
        json: args.json,
    };
    play(&stage, |recorder| TournamentWatch {
        quiet: args.quiet,
        resume: crate::tournament::run::resume_command_into(Some(&out)),
        out: out.clone(),
        last: true,
        event: event_plan(&settings, recorder.seed()),
        names: settings.names().iter().map(ToString::to_string).collect(),
        settings: &settings,
        concurrency,
        shard,
        fit: Fit::default(),
    })
}

/// The values of the command line that replace the file's (`--games 4 --time
/// 200 --rounds 5 --nodes 500 --bot mine="python3 bot.py" --memory-mb …`).
///
/// # Errors
/// A `--bot` that is not `NAME=COMMAND`.
fn flags_input(args: &TournamentArgs) -> anyhow::Result<Input> {
    let mut bots = Vec::new();
    for text in &args.bots {
        let named = flags::bots(&[text.as_str()], "--bot")?
            .pop()
            .filter(|e| e.bot.name.is_some() && !e.bot.words.is_empty());
        bots.push(named.ok_or_else(|| {
            UsageError::of(format!(
                "--bot '{text}': write NAME=COMMAND, e.g. --bot mine=\"python3 my_bot.py\""
            ))
        })?);
    }
    Ok(Input {
        seed: args.seed,
        event: EventInput {
            games: args.games.map(|g| Given::flag(g, "--games")),
            rounds: args.rounds.map(|r| Given::flag(r, "--rounds")),
            ..EventInput::default()
        },
        time: TimeInput {
            move_ms: args.time.map(|t| Given::flag(t, "--time")),
            nodes: args.nodes.map(|n| Given::flag(n, "--nodes")),
            clock_mode: args.clock.map(|c| Given::flag(c, "--clock")),
            ..TimeInput::default()
        },
        limits: flags::memory(args.memory_mb),
        sandbox_override: args.sandbox,
        concurrency: args.concurrency,
        out: args.out.clone(),
        bots,
        ..Input::default()
    })
}

/// The tournament file (the built-in ladder without one), with `over` in place
/// of its values.
///
/// # Errors
/// A [`UsageError`] naming the file and line (or the flag), or the current
/// directory cannot be read.
fn load(path: Option<&Path>, exe: &Path, over: Input) -> anyhow::Result<RunSettings> {
    let loaded = match path {
        Some(path) => config::load_with(path, exe, over),
        None => {
            let cwd = flags::current_dir()?;
            let file = "configs/default.toml (built in)";
            config::parse_with(file, DEFAULT_CONFIG, &cwd, exe, over)
        }
    };
    loaded.map_err(|e| UsageError::of(e.to_string()))
}

/// What `--dry-run` prints: the bots, the games, the first round of a Swiss or
/// knockout, an estimated duration. Nothing is played and no results directory
/// is bound (builds are kept in it for the real run).
fn dry_run(t: &RunSettings, concurrency: usize, seed: Option<u64>) -> String {
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
fn event_plan(t: &RunSettings, seed: u64) -> Option<DrawPlan> {
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

/// A tournament's words: a progress bar with the leader and the latest result on a
/// terminal (a line per game elsewhere, unless `--quiet`), then the standings and
/// the report.
#[derive(Debug)]
struct TournamentWatch<'a> {
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
    settings: &'a RunSettings,
    concurrency: usize,
    shard: Option<Shard>,
    fit: Fit,
}

impl GameCommand for TournamentWatch<'_> {
    const NAME: &'static str = "tournament";

    fn banner(&self, recorder: &Recorder) {
        print_banner(self.settings, recorder, self.concurrency, self.shard);
    }

    fn games(
        &mut self,
        remaining: Remaining,
        _recorder: &Recorder,
        more: bool,
    ) -> anyhow::Result<Box<dyn Iterator<Item = ScheduledGame>>> {
        self.last = !more;
        Ok(Box::new(remaining))
    }

    fn conclusion(&mut self, end: RunEnd, recorder: &Recorder) -> anyhow::Result<Summary> {
        let code = played(end, recorder);
        summary_for(Self::NAME, recorder, &self.fit, None, code)
    }
}

impl Watcher for TournamentWatch<'_> {
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
            crate::say!("[{}/{}] {latest}", recorder.done(), recorder.total());
        }
        bar.set_message(format!(
            "leader: {} | latest: {latest}",
            standings::leader(recorder.rows())
        ));
        Ok(Flow::Continue)
    }

    fn complete(&self, end: RunEnd) -> bool {
        end == RunEnd::Complete && self.last
    }

    fn summary(&mut self, recorder: &Recorder, end: RunEnd) -> anyhow::Result<()> {
        let names: Vec<&str> = self.names.iter().map(String::as_str).collect();
        let table = self
            .event
            .as_ref()
            .map(|plan| event_table(plan, &names, recorder.rows()));
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
        match self.fit.of(recorder.rows())? {
            None if !self.quiet => crate::say!("No finished games yet."),
            None => {}
            Some(report) => {
                if !self.quiet {
                    standings::print_report(&report)?;
                }
                standings::write_files(&report, &self.out)?;
            }
        }
        if let Some(table) = &table {
            crate::say!("{}", table.text);
        }
        super::report_cmd::after_tournament(&self.out);
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
fn print_banner(t: &RunSettings, recorder: &Recorder, concurrency: usize, shard: Option<Shard>) {
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
