//! What every game-playing command shares: turning `--time`/`--rules`/… and bot
//! specs into entrants, and a results directory that resumes — the seed, the
//! schedule and the games already finished come back from it, and a directory that
//! holds a different run is refused.

use std::collections::HashSet;
use std::path::Path;
use std::time::Duration;

use referee::game::{GameClock, TimeControl};
use uttt::notation::format_move_list;
use uttt::rules::Rules;

use crate::botspec::{Resolver, dedupe_names};
use crate::cli::PlayOptions;
use crate::config::unannounced_rules_message;
use crate::millis::{IncrementMs, MoveMs};
use crate::results::manifest::{BotEntry, IsolationReport, Manifest, ProcessPolicy, ScheduleKey};
use crate::results::recorder::Recorder;
use crate::results::store::{BadRow, GAMES_FILE, GameRow, Numbered, ResultStore};
use crate::runner::{Entrant, RunOptions};
use crate::schedule::{Format, Games, Openings, Plan, Schedule, ScheduledGame, Shard, read_book};

/// Bots and game settings from the command line.
#[derive(Debug)]
pub struct Setup {
    /// The bots, in the order given.
    pub entrants: Vec<Entrant>,
    /// Rules.
    pub rules: Rules,
    /// Openings.
    pub openings: Openings,
    /// The time control.
    pub time: TimeControl,
    /// The isolation layers in force for each bot.
    pub sandbox: IsolationReport,
}

/// Validates bot specs and the shared options. Errors are messages for the user.
///
/// # Errors
/// What is wrong and how to fix it.
pub fn setup(specs: &[&str], play: &PlayOptions) -> Result<Setup, String> {
    let resolver = Resolver::from_env()
        .map_err(|e| format!("cannot find the arena executable: {e}"))?
        .with_memory_mb(play.memory_mb);
    let mut resolved = Vec::new();
    for raw in specs {
        resolved.push(resolver.resolve(raw).map_err(|e| e.to_string())?);
    }
    let mut names: Vec<String> = resolved.iter().map(|s| s.name.clone()).collect();
    dedupe_names(&mut names);
    let rules: Rules = play.rules.parse().map_err(|e| format!("--rules: {e}"))?;
    if !play.allow_unannounced_rules
        && let Some(spec) = resolved.iter().find(|s| !s.dialect.can_express(rules))
    {
        return Err(unannounced_rules_message(
            &spec.name,
            spec.dialect,
            rules,
            "--allow-unannounced-rules",
        ));
    }
    // The numbers were checked by their types (crate::millis) when the command line
    // was read: a first move of at least a second is within a move time's range.
    let first = play
        .first_time
        .map_or(play.time.get().max(1000), MoveMs::get);
    let mut time = TimeControl::per_move(play.time.get(), first, play.margin.get());
    time.clock = play.clock.map(|c| GameClock {
        initial: c.duration(),
        increment: play.increment.map_or(Duration::ZERO, IncrementMs::duration),
    });
    time.validate().map_err(|e| format!("--time: {e}"))?;
    let openings = match (&play.openings, play.random_plies) {
        (Some(path), _) => Openings::Book(read_book_file(path, rules)?),
        (None, 0) => Openings::None,
        (None, k) if k > 16 => return Err(format!("--random-plies {k}: use at most 16")),
        (None, k) => Openings::RandomPlies(k),
    };
    let mut entrants: Vec<Entrant> = resolved
        .into_iter()
        .zip(names)
        .map(|(mut spec, name)| {
            spec.name = name;
            Entrant { spec, time }
        })
        .collect();
    let host = crate::sandbox::detect(&resolver.arena_exe);
    let sandbox = crate::sandbox::apply(&mut entrants, &host, Some(play.sandbox))?;
    Ok(Setup {
        entrants,
        rules,
        openings,
        time,
        sandbox,
    })
}

fn read_book_file(path: &Path, rules: Rules) -> Result<Vec<Vec<uttt::rules::Square>>, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("--openings {}: {e}", path.display()))?;
    read_book(&text, rules).map_err(|e| format!("{}:{}: {}", path.display(), e.line, e.message))
}

/// Run options for one-off commands: processes reused, stderr logs in `out/logs`.
pub fn run_options(setup: &Setup, play: &PlayOptions) -> RunOptions {
    RunOptions {
        concurrency: play.concurrency,
        reuse_processes: true,
        handshake_limit: play.handshake_time.duration(),
        rules: setup.rules,
        log_dir: play.out.as_ref().map(|d| d.join("logs")),
    }
}

/// Everything needed to start playing.
#[derive(Debug)]
pub struct Prepared {
    /// Games still to play, computed one at a time.
    pub games: Remaining,
    /// The results side.
    pub recorder: Recorder,
}

/// The games of a schedule that are not finished yet, in play order. The finished
/// ones are a set of game numbers, as large as the games played, never as the
/// schedule.
#[derive(Debug)]
pub struct Remaining {
    games: Games,
    finished: HashSet<u64>,
}

impl Iterator for Remaining {
    type Item = ScheduledGame;

    fn next(&mut self) -> Option<ScheduledGame> {
        self.games
            .by_ref()
            .find(|game| !self.finished.contains(&game.number))
    }
}

/// How a run is identified and split.
#[derive(Debug)]
pub struct RunSpec<'a> {
    /// Name in the manifest.
    pub name: &'a str,
    /// The bots.
    pub entrants: &'a [Entrant],
    /// Rules.
    pub rules: Rules,
    /// Who plays whom.
    pub format: Format,
    /// Games per pairing.
    pub games_per_pairing: u32,
    /// Openings.
    pub openings: &'a Openings,
    /// A seed fixed by the user, if any.
    pub seed: Option<u64>,
    /// The results directory, if any.
    pub out: Option<&'a Path>,
    /// A shard, if any.
    pub shard: Option<Shard>,
    /// Games at once (recorded).
    pub concurrency: usize,
    /// Process policy (recorded).
    pub processes: ProcessPolicy,
    /// Accept a directory holding another run.
    pub force: bool,
    /// The isolation layers in force (recorded in tournament.json).
    pub sandbox: &'a IsolationReport,
}

/// Prints a usage error and returns its exit code (nothing was played).
pub fn usage(message: &str) -> crate::exit_codes::Code {
    eprintln!("error: {message}");
    crate::exit_codes::USAGE
}

/// Resolves the bots and prepares the results directory of a command-line run
/// (`match`, `sprt`, `gauntlet`): processes reused, no shard. `Ok(Err(message))` is a
/// usage error for the user.
///
/// # Errors
/// Reading or writing the results directory failed.
pub fn start(
    name: &str,
    specs: &[&str],
    play: &PlayOptions,
    format: Format,
    games_per_pairing: u32,
) -> anyhow::Result<Result<(Setup, Prepared), String>> {
    let setup = match setup(specs, play) {
        Ok(setup) => setup,
        Err(message) => return Ok(Err(message)),
    };
    let prepared = prepare(RunSpec {
        name,
        entrants: &setup.entrants,
        rules: setup.rules,
        format,
        games_per_pairing,
        openings: &setup.openings,
        seed: play.seed,
        out: play.out.as_deref(),
        shard: None,
        concurrency: play.concurrency,
        processes: ProcessPolicy::Reuse,
        force: false,
        sandbox: &setup.sandbox,
    })?;
    Ok(prepared.map(|prepared| (setup, prepared)))
}

/// Builds the schedule, resuming from `out` when it holds earlier results of the
/// same run. `Ok(Err(message))` is a usage error (a different run in `out`).
///
/// # Errors
/// Reading or writing the results directory failed.
pub fn prepare(spec: RunSpec<'_>) -> anyhow::Result<Result<Prepared, String>> {
    let existing = match spec.out {
        Some(dir) => Manifest::load(dir)?,
        None => None,
    };
    let seed = spec
        .seed
        .or(existing.as_ref().map(|m| m.schedule.seed))
        .unwrap_or_else(rand::random);
    let key = schedule_key(
        spec.entrants,
        spec.rules,
        &spec.format,
        spec.games_per_pairing,
        spec.openings,
        seed,
    );
    if let (Some(old), Some(dir)) = (&existing, spec.out)
        && old.schedule != key
        && !spec.force
    {
        return Ok(Err(format!(
            "{} holds results of a different run ({}): choose another --out, or add --force to mix them",
            dir.display(),
            old.schedule.difference(&key)
        )));
    }
    let plan = Plan {
        bots: spec.entrants.len(),
        format: spec.format,
        games_per_pairing: spec.games_per_pairing,
        openings: spec.openings.clone(),
        rules: spec.rules,
        seed,
    };
    let schedule = match Schedule::new(plan, spec.shard) {
        Ok(schedule) => schedule,
        Err(e) => return Ok(Err(e.to_string())),
    };
    let total = schedule.total();
    let (store, rows) = match spec.out {
        Some(dir) => {
            let opened = ResultStore::open(dir).and_then(|store| {
                let rows = store.games_numbered()?;
                Ok((store, rows))
            });
            match opened {
                Ok((store, rows)) => (Some(store), rows),
                Err(e) => return bad_row_is_usage(e),
            }
        }
        None => (None, Vec::new()),
    };
    let games_file = spec.out.map(|dir| dir.join(GAMES_FILE)).unwrap_or_default();
    let finished = match finished_games(&schedule, spec.entrants, &rows, spec.force, &games_file) {
        Ok(finished) => finished,
        Err(message) => return Ok(Err(message)),
    };
    let done = finished.len() as u64;
    let disk = match (store, spec.out) {
        (Some(store), Some(dir)) => {
            let mut manifest = existing.unwrap_or_else(|| {
                let shard = spec.shard.map(|s| format!("{}/{}", s.index, s.count));
                Manifest::new(
                    spec.name,
                    key,
                    spec.processes,
                    spec.concurrency,
                    shard,
                    total,
                )
            });
            manifest.games_total = total;
            manifest.games_done = done;
            manifest.finished_at = None;
            manifest.sandbox = Some(spec.sandbox.clone());
            manifest.save(dir)?;
            Some((store, manifest))
        }
        _ => None,
    };
    let rows = rows.into_iter().map(|n| n.row).collect();
    let recorder = Recorder::new(disk, rows, total, done, seed);
    Ok(Ok(Prepared {
        games: Remaining {
            games: schedule.games(),
            finished,
        },
        recorder,
    }))
}

/// A results file with a bad row is the user's to fix (exit 2, nothing played);
/// anything else (the disk) is an error.
fn bad_row_is_usage(e: anyhow::Error) -> anyhow::Result<Result<Prepared, String>> {
    match e.downcast::<BadRow>() {
        Ok(bad) => Ok(Err(bad.to_string())),
        Err(e) => Err(e),
    }
}

/// The numbers of the scheduled games that `rows` (read from `games_file`) hold.
/// A row must be the game the schedule has under its id — the same bots in the same
/// seats, round, pair, seed and opening — or the directory holds something else:
/// refused, unless `force` (then the row is kept in the results but its game is
/// played).
fn finished_games(
    schedule: &Schedule,
    entrants: &[Entrant],
    rows: &[Numbered<GameRow>],
    force: bool,
    games_file: &Path,
) -> Result<HashSet<u64>, String> {
    let name = |i: usize| entrants.get(i).map_or("?", |e| e.spec.name.as_str());
    let mut finished = HashSet::with_capacity(rows.len());
    for Numbered { line, row } in rows {
        let mismatch = match schedule.game(&row.id) {
            None => Some(format!("this run has no game {}", row.id)),
            Some(game) => {
                let expected = (
                    name(game.x),
                    name(game.o),
                    game.meta.round,
                    game.meta.pair,
                    game.meta.seed,
                    format_move_list(&game.opening),
                );
                let found = (
                    row.x.as_str(),
                    row.o.as_str(),
                    row.round,
                    row.pair,
                    row.seed,
                    format_move_list(&row.opening),
                );
                if expected == found {
                    finished.insert(game.number);
                    None
                } else {
                    Some(format!(
                        "the row has {} (X) vs {} (O), round {}, pair {}, seed {}, opening '{}'; \
                         this run's {} is {} (X) vs {} (O), round {}, pair {}, seed {}, opening '{}'",
                        found.0,
                        found.1,
                        found.2,
                        found.3,
                        found.4,
                        found.5,
                        row.id,
                        expected.0,
                        expected.1,
                        expected.2,
                        expected.3,
                        expected.4,
                        expected.5
                    ))
                }
            }
        };
        if let Some(why) = mismatch
            && !force
        {
            return Err(format!(
                "{}:{line}: game {} is not a game of this run ({why}): this directory holds other \
                 results; choose another --out, or delete the line to play the game again",
                games_file.display(),
                row.id
            ));
        }
    }
    Ok(finished)
}

/// The key of any run: bots, rules, format, games per pairing, openings, seed.
fn schedule_key(
    entrants: &[Entrant],
    rules: Rules,
    format: &Format,
    games_per_pairing: u32,
    openings: &Openings,
    seed: u64,
) -> ScheduleKey {
    let ms = |d: Option<Duration>| d.map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    ScheduleKey {
        seed,
        rules: rules.to_string(),
        format: match format {
            Format::RoundRobin => "round-robin".into(),
            Format::Gauntlet { challenger } => {
                format!(
                    "gauntlet:{}",
                    entrants
                        .get(*challenger)
                        .map_or("?", |e| e.spec.name.as_str())
                )
            }
        },
        games_per_pairing,
        openings: match openings {
            Openings::None => "none".into(),
            Openings::RandomPlies(k) => format!("random-plies {k}"),
            Openings::Book(lines) => format!(
                "book {}",
                lines
                    .iter()
                    .map(|l| format_move_list(l))
                    .collect::<Vec<_>>()
                    .join(" | ")
            ),
        },
        bots: entrants
            .iter()
            .map(|e| BotEntry {
                name: e.spec.name.clone(),
                command: e.spec.command.display(),
                protocol: e.spec.dialect.name().into(),
                move_ms: ms(e.time.move_time),
                first_move_ms: ms(e.time.first_move_time),
                margin_ms: ms(Some(e.time.margin)).unwrap_or(0),
                clock_ms: ms(e.time.clock.map(|c| c.initial)),
                increment_ms: ms(e.time.clock.map(|c| c.increment)),
            })
            .collect(),
    }
}
