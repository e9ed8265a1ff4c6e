//! `arena tournament [CONFIG]`: the main job. Plays the schedule (resuming a results
//! directory that already holds some of it), shows progress, writes every finished
//! game before reporting it, and prints the standings at the end. The file is the
//! settings' second front end (`tournament::config`); the flags given here
//! replace its values.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context as _;

use indicatif::ProgressBar;

use super::skeleton::{Fit, GameCommand, Stage, play, played, summary_for};
use super::tournament_end::End;
use super::{flags, skeleton};
use crate::cli::TournamentArgs;
use crate::defaults;
use crate::eta::RunClock;
use crate::exit_codes::{Code, UsageError};
use crate::results::manifest::IsolationReport;
use crate::results::recorder::Recorder;
use crate::results::standings;
use crate::results::store::GameRow;
use crate::results::summary::{BrokenBot, Summary};
use crate::terminal::progress::{Pace, Until, games_bar_until};
use crate::tournament::build;
use crate::tournament::config::{self, DEFAULT_CONFIG};
use crate::tournament::draw::{DrawPlan, draw, event_table, results_by_id};
use crate::tournament::format::{Drawn, Format};
use crate::tournament::isolation;
use crate::tournament::preflight::{BotsBroken, Broken};
use crate::tournament::prepare::Remaining;
use crate::tournament::run::{self, Watcher};
use crate::tournament::runner::{Finished, Flow, Interruption, RunEnd};
use crate::tournament::schedule::{ScheduledGame, Shard};
use crate::tournament::settings::RunSettings;
use crate::tournament::settings::builds::OnPreflightFailure;
use crate::tournament::settings::input::{DisplayInput, EventInput, Given, Input, TimeInput};

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
    if let Some(addr) = args.serve {
        port_is_free(addr)?;
    }
    let out = settings.out.clone();
    let out = out.unwrap_or_else(|| crate::results::atomic::stamped_dir(&settings.name));
    let concurrency = settings.concurrency.unwrap_or_else(defaults::concurrency);
    let host = isolation::detect(&exe);
    let sandbox = settings.sandbox;
    // A dry run builds in a directory of its own, removed when it ends: it
    // leaves nothing behind.
    let scratch = if args.dry_run {
        let dir = tempfile::Builder::new().prefix("arena-dry-run-").tempdir();
        Some(dir.context("making a directory for the dry run's builds")?)
    } else {
        None
    };
    let work = scratch
        .as_ref()
        .map_or_else(|| out.join("builds"), |d| d.path().join("builds"));
    let mut isolation = match skeleton::builds_done(build::prepare_bots(
        &mut settings,
        &host,
        &work,
        concurrency,
        sandbox,
    ))? {
        Ok(ready) => ready.isolation,
        Err(code) => return Ok(code),
    };
    // The preflight comes before the results directory is bound, so that a
    // submission that cannot start is left out like one that does not build.
    let still_broken = if args.no_preflight {
        Vec::new()
    } else {
        match preflight(&mut settings, &mut isolation, args.config.as_deref())? {
            Ok(broken) => broken,
            Err(why) => {
                eprintln!(
                    "{} during the preflight: nothing was played.",
                    why.describe()
                );
                return Ok(skeleton::interrupted(why));
            }
        }
    };
    let shard = args.shard.as_deref().map(str::parse::<Shard>).transpose();
    let shard = shard.map_err(|e| UsageError::of(format!("--shard: {e}")))?;
    if args.dry_run {
        let width = crate::terminal::width::columns();
        for line in dry_run(&settings, concurrency, settings.seed).lines() {
            let text = line.trim_start();
            let indent = &line[..line.len() - text.len()];
            let folded = crate::terminal::width::wrap(
                text,
                width.saturating_sub(indent.len()),
                &format!("{indent}  "),
            );
            crate::say!("{indent}{folded}");
        }
        if !still_broken.is_empty() {
            return Err(BotsBroken(still_broken).into());
        }
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
        // Checked already; again only to refuse a bot the run cannot leave
        // out, with summary.json saying so (exit 4).
        preflight: !still_broken.is_empty(),
        serve: args.serve.map(|addr| (addr, args.show_logs)),
        json: args.json,
    };
    let code = play(&stage, |recorder| TournamentWatch {
        quiet: args.quiet,
        details: args.details,
        resume: crate::tournament::run::resume_command_into(Some(&out)),
        out: out.clone(),
        last: true,
        event: event_plan(&settings, recorder.seed()),
        names: settings.names().iter().map(ToString::to_string).collect(),
        settings: &settings,
        concurrency,
        shard,
        fit: Fit::default(),
        pace: Pace::default(),
        clock: RunClock::new(settings.display.pace, concurrency),
        until: Until::default(),
    })?;
    if args.serve.is_some() {
        super::serve_cmd::stay_after_run(code);
    }
    Ok(code)
}

/// `--serve ADDR` refused before the builds when the address cannot be bound
/// (in use, or not this machine's), rather than after minutes of building.
///
/// # Errors
/// A [`UsageError`] naming the address and a way out.
fn port_is_free(addr: std::net::SocketAddr) -> anyhow::Result<()> {
    match std::net::TcpListener::bind(addr) {
        Ok(_) => Ok(()),
        Err(e) => Err(UsageError::of(format!(
            "--serve {addr}: cannot listen there ({e}); nothing was built or played. Is another \
             arena serving on it? Choose another port, e.g. --serve {}:{}",
            addr.ip(),
            addr.port().wrapping_add(1).max(1024)
        ))),
    }
}

/// Starts every bot once: a submission that cannot start is left out (named,
/// with why, and where its author's feedback comes from: `file`'s check) as
/// `on-preflight-failure` says, and the others that cannot start are
/// returned: the run cannot be played with them (exit 4).
///
/// # Errors
/// The runtime could not start; fewer than two bots are left ([`BotsBroken`],
/// exit 4). `Ok(Err(why))`: interrupted.
fn preflight(
    settings: &mut RunSettings,
    isolation: &mut IsolationReport,
    file: Option<&Path>,
) -> anyhow::Result<Result<Vec<Broken>, Interruption>> {
    let settings_file = file.map(|f| {
        let shown = f.display().to_string();
        shlex::try_quote(&shown).map_or(shown.clone(), |q| q.into_owned())
    });
    let broken = match run::preflight_now(&settings.entrants, settings.handshake)? {
        Ok(broken) => broken,
        Err(why) => return Ok(Err(why)),
    };
    let mut kept = Vec::new();
    let mut left = Vec::new();
    for b in broken {
        let submitted = settings.builds.get(&b.name).is_some_and(|s| s.submitted);
        if submitted && settings.on_preflight_failure == OnPreflightFailure::LeaveOut {
            // Its paths as its author knows them: `bot.py`, not its copy's.
            let copy = settings
                .entrants
                .iter()
                .find(|e| e.spec.name == b.name)
                .and_then(|e| e.spec.command.working_dir.as_ref())
                .map(|d| format!("{}/", d.display()));
            let problem = copy.map_or_else(|| b.problem.clone(), |d| b.problem.replace(&d, ""));
            let why = format!("it could not be started: {problem}");
            settings
                .leave_out(&b.name, why.clone())
                .map_err(UsageError::of)?;
            isolation.bots.remove(&b.name);
            crate::say!("left out {}: {why}", b.name);
            left.push(b);
        } else {
            kept.push(b);
        }
    }
    if let (Some(file), false) = (&settings_file, left.is_empty()) {
        crate::say!(
            "  feedback for each student, with the check's steps: arena check --config {file} --feedback feedback/"
        );
    }
    if settings.entrants.len() < 2 && !left.is_empty() {
        left.extend(kept);
        return Err(BotsBroken(left).into());
    }
    Ok(Ok(kept))
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
            min_score: args.min_score.map(|m| Given::flag(m, "--min-score")),
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
        governor: flags::governor(args.governor),
        governor_wait_s: args.governor_wait,
        out: args.out.clone(),
        bots,
        exclude: args
            .exclude
            .iter()
            .map(|name| Given::flag(name.clone(), "--exclude"))
            .collect(),
        display: DisplayInput {
            pace_ms: args.pace.map(|p| Given::flag(p, "--pace")),
            audience: args.audience.map(|a| Given::flag(a, "--audience")),
        },
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
    let settings = loaded.map_err(|e| UsageError::of(e.to_string()))?;
    if settings.league.is_some() {
        return Err(UsageError::of(
            "this file has a [league] table: play it with arena league FILE (a season's \
             directory, versions and grades), or remove the table to play one tournament",
        ));
    }
    Ok(settings)
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
        "  at most about {} at {concurrency} at once (every move of a {PLIES}-ply game at its full {per_move} ms; usually much less)",
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

/// The event's table and the round about to be played, written as it is drawn:
/// what a live page shows (the bracket, "Round 2 of 3", the pairings) before the
/// round's games end.
///
/// # Errors
/// A file cannot be written.
/// Returns the games of this stage not finished and the rounds after it.
fn write_round(
    plan: &DrawPlan,
    names: &[&str],
    rows: &[GameRow],
    out: &Path,
) -> anyhow::Result<(u64, u64)> {
    use crate::results::round::{self, CurrentRound};
    crate::results::event::write(out, &event_table(plan, names, rows).table)?;
    let finished = results_by_id(names, rows);
    let drawn = draw(plan, &finished);
    let unfinished = drawn
        .games
        .iter()
        .filter(|g| !finished.contains_key(&g.meta.id))
        .count() as u64;
    let Some(current) = drawn.rounds.last() else {
        return Ok((unfinished, 0));
    };
    let name = |i: usize| names.get(i).copied().unwrap_or("?").to_string();
    let of = match plan.format {
        Drawn::Swiss { rounds } => rounds,
        // A bracket of the next power of two: one round per halving.
        Drawn::Knockout { .. } => plan.bots.max(2).next_power_of_two().trailing_zeros(),
    };
    let round = CurrentRound {
        number: current.number,
        of,
        pairs: current
            .matches
            .iter()
            .map(|m| (name(m.a), name(m.b)))
            .collect(),
        byes: current.byes.iter().map(|&b| name(b)).collect(),
    };
    round::write(out, &round)?;
    Ok((unfinished, u64::from(of.saturating_sub(current.number))))
}

/// A tournament's words: a progress bar with the leader and the latest result on a
/// terminal (a line per game elsewhere, unless `--quiet`), then the standings and
/// the report.
#[derive(Debug)]
struct TournamentWatch<'a> {
    quiet: bool,
    /// `--details`: every statistic at the end.
    details: bool,
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
    /// When the bar's message is due.
    pace: Pace,
    /// The time left, as the games end ([`crate::eta`]).
    clock: RunClock,
    /// When the run should end, for the bar.
    until: Until,
}

impl TournamentWatch<'_> {
    /// The bar's end time from the clock, now.
    fn estimate(&self) {
        let now = Instant::now();
        if let Ok(mut until) = self.until.lock() {
            *until = self.clock.left(now).map(|left| now + left);
        }
    }
}

impl GameCommand for TournamentWatch<'_> {
    const NAME: &'static str = "tournament";

    fn banner(&self, recorder: &Recorder) {
        print_banner(self.settings, recorder, self.concurrency, self.shard);
    }

    fn games(
        &mut self,
        remaining: Remaining,
        recorder: &Recorder,
        more: bool,
    ) -> anyhow::Result<Box<dyn Iterator<Item = ScheduledGame>>> {
        self.last = !more;
        let left = recorder.total().saturating_sub(recorder.done());
        let (this, later_rounds) = match &self.event {
            Some(plan) => {
                let names: Vec<&str> = self.names.iter().map(String::as_str).collect();
                write_round(plan, &names, &recorder.recorded_games()?, &self.out)?
            }
            None => (left, 0),
        };
        let this = this.min(left);
        self.clock
            .round(this, (left - this, later_rounds), Instant::now());
        self.estimate();
        Ok(Box::new(remaining))
    }

    fn conclusion(&mut self, end: RunEnd, recorder: &Recorder) -> anyhow::Result<Summary> {
        let mut code = played(end, recorder);
        // A gauntlet's pass mark, once every game was played and they all ran.
        let mut said = None;
        let gate = match self.settings.format {
            Format::Gauntlet { challenger } => self.names.get(challenger).cloned(),
            _ => None,
        };
        if let (Some(challenger), Some(min)) = (&gate, self.settings.min_score)
            && code == crate::exit_codes::OK
            && self.complete(end)
        {
            let tally = recorder.scoreboard().score(challenger);
            let width = crate::terminal::width::columns();
            crate::say!(
                "{}",
                crate::terminal::width::wrap(
                    &format!(
                        "{challenger} scored {}/{} = {:.1}%",
                        tally.points(),
                        tally.games(),
                        tally.score().unwrap_or(0.0) * 100.0
                    ),
                    width,
                    "  "
                )
            );
            (code, said) = super::gauntlet::verdict(tally.score().unwrap_or(0.0), Some(min));
        }
        let mut summary = summary_for(Self::NAME, recorder, &self.fit, None, code)?;
        if let Some(challenger) = &gate {
            super::gauntlet::record_verdict(
                &mut summary,
                recorder,
                challenger,
                self.settings.min_score,
                said,
            );
        }
        summary.left_out = self
            .settings
            .left_out
            .iter()
            .map(|l| BrokenBot {
                name: l.name.clone(),
                problem: l.why.clone(),
            })
            .collect();
        Ok(summary)
    }
}

impl Watcher for TournamentWatch<'_> {
    fn bar(&self, recorder: &Recorder) -> ProgressBar {
        games_bar_until(recorder.total(), recorder.done(), self.quiet, &self.until)
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
        self.clock.ended(
            Duration::from_millis(row.duration_ms),
            row.plies,
            Instant::now(),
        );
        self.estimate();
        if bar.is_hidden() && !self.quiet {
            crate::say!("[{}/{}] {}", recorder.done(), recorder.total(), latest());
        }
        // A knockout's bracket follows its games: a match is shown decided as
        // soon as it is, not when its round ends (the live page reads it). A
        // knockout plays few games (n - 1 matches), so reading them all back
        // after each is cheap.
        if let Some(plan) = self
            .event
            .as_ref()
            .filter(|p| matches!(p.format, Drawn::Knockout { .. }))
        {
            let names: Vec<&str> = self.names.iter().map(String::as_str).collect();
            let table = event_table(plan, &names, &recorder.recorded_games()?);
            crate::results::event::write(&self.out, &table.table)?;
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
        let report = self.fit.of(recorder.scoreboard())?;
        if let Some(report) = &report {
            standings::write_files(report, &self.out)?;
        }
        super::tournament_end::print(&End {
            audience: self.settings.display.audience,
            format: &self.settings.format,
            event: table.as_ref(),
            report: report.as_deref(),
            scoreboard: recorder.scoreboard(),
            over: end == RunEnd::Complete && self.last,
            quiet: self.quiet,
            details: self.details,
            out: &self.out,
        })?;
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
fn print_banner(t: &RunSettings, recorder: &Recorder, concurrency: usize, shard: Option<Shard>) {
    let (seed, total, remaining) = (
        recorder.seed(),
        recorder.total(),
        recorder.total() - recorder.done(),
    );
    let bots = t.names();
    let width = crate::terminal::width::columns();
    let wrap = crate::terminal::width::wrap;
    let first = format!(
        "Tournament '{}': {} bots ({})",
        t.name,
        bots.len(),
        bots.join(", ")
    );
    crate::say!("{}", wrap(&first, width, "  "));
    let time = &t.time;
    let ms = |d: Option<std::time::Duration>| {
        d.map_or("-".to_string(), |d| format!("{} ms", d.as_millis()))
    };
    let conditions = format!(
        "{total} games{}, {} per move (first {}, margin {} ms){}, rules {}, seed {seed}, {concurrency} at once",
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
    crate::say!("  {}", wrap(&conditions, width.saturating_sub(2), "    "));
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
