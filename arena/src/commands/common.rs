//! What every game-playing command shares: turning `--time`/`--rules`/… and bot
//! specs into entrants, and a results directory that resumes — the seed, the
//! schedule and the games already finished come back from it, and a directory that
//! holds a different run is refused.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use referee::game::{GameClock, TimeControl};
use uttt::notation::parse_move_list;
use uttt::rules::Rules;

use crate::botspec::{Resolver, dedupe_names};
use crate::cli::PlayOptions;
use crate::config::{ProcessPolicy, unannounced_rules_message};
use crate::manifest::{Manifest, ScheduleKey};
use crate::runner::{Entrant, Finished, RunOptions};
use crate::schedule::{Format, Openings, Plan, ScheduledGame, Shard, schedule};
use crate::store::{GameRow, ResultStore};

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
    pub sandbox: crate::sandbox::SandboxReport,
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
    let mut time = TimeControl::per_move(
        play.time,
        play.first_time.unwrap_or(play.time.max(1000)),
        play.margin,
    );
    time.clock = play.clock.map(|c| GameClock {
        initial: Duration::from_millis(c),
        increment: Duration::from_millis(play.increment.unwrap_or(0)),
    });
    time.validate().map_err(|e| format!("--time: {e}"))?;
    if play.concurrency == 0 {
        return Err("--concurrency must be at least 1".into());
    }
    let openings = match (&play.openings, play.random_plies) {
        (Some(path), _) => Openings::Book(read_book(path, rules)?),
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

fn read_book(path: &Path, rules: Rules) -> Result<Vec<Vec<uttt::rules::Square>>, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("--openings {}: {e}", path.display()))?;
    let mut book = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = |e: String| format!("{}:{}: {e}", path.display(), i + 1);
        let moves = parse_move_list(line).map_err(|e| at(e.to_string()))?;
        referee::game::opening_position(rules, &moves).map_err(|e| at(e.to_string()))?;
        book.push(moves);
    }
    if book.is_empty() {
        return Err(format!(
            "--openings {}: no openings in the file",
            path.display()
        ));
    }
    Ok(book)
}

/// Run options for one-off commands: processes reused, stderr logs in `out/logs`.
pub fn run_options(setup: &Setup, play: &PlayOptions) -> RunOptions {
    RunOptions {
        concurrency: play.concurrency,
        reuse_processes: true,
        handshake_limit: Duration::from_millis(play.handshake_time),
        rules: setup.rules,
        log_dir: play.out.as_ref().map(|d| d.join("logs")),
    }
}

/// A run bound to its results directory (or to none).
#[derive(Debug)]
pub struct Recorder {
    store: Option<ResultStore>,
    manifest: Option<Manifest>,
    out: Option<PathBuf>,
    /// Rows of every finished game, resumed ones included.
    pub rows: Vec<GameRow>,
    /// Games in the run (all shards of it: the ones of this shard).
    pub total: usize,
    /// The seed in force.
    pub seed: u64,
}

/// Everything needed to start playing.
#[derive(Debug)]
pub struct Prepared {
    /// Games still to play.
    pub games: Vec<ScheduledGame>,
    /// The results side.
    pub recorder: Recorder,
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
    pub sandbox: &'a crate::sandbox::SandboxReport,
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
    let key = ScheduleKey::from_parts(
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
    let mut games = schedule(&plan);
    if let Some(shard) = spec.shard {
        games.retain(|g| shard.contains(g));
    }
    let total = games.len();
    let (store, rows) = match spec.out {
        Some(dir) => {
            let store = ResultStore::open(dir)?;
            let rows = store.games()?;
            (Some(store), rows)
        }
        None => (None, Vec::new()),
    };
    let done: HashSet<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    games.retain(|g| !done.contains(g.meta.id.as_str()));
    let manifest = match spec.out {
        Some(dir) => {
            let mut manifest = existing.unwrap_or_else(|| {
                let shard = spec.shard.map(|s| format!("{}/{}", s.index, s.count));
                Manifest::new(
                    spec.name,
                    key,
                    &spec.processes,
                    spec.concurrency,
                    shard,
                    total,
                )
            });
            manifest.games_done = total - games.len();
            manifest.finished_at = None;
            manifest.sandbox = Some(spec.sandbox.clone());
            manifest.save(dir)?;
            Some(manifest)
        }
        None => None,
    };
    let recorder = Recorder {
        store,
        manifest,
        out: spec.out.map(Path::to_path_buf),
        rows,
        total,
        seed,
    };
    Ok(Ok(Prepared { games, recorder }))
}

impl Recorder {
    /// Saves a finished game (moves, row, transcripts of an abnormal game) before
    /// anything reports it, and returns its row.
    ///
    /// # Errors
    /// Writing failed.
    pub fn record(&mut self, finished: &Finished) -> anyhow::Result<GameRow> {
        let row = GameRow::new(&finished.game.meta, &finished.record);
        if let Some(store) = &mut self.store {
            store.append(&finished.game.meta, &finished.record)?;
            store.save_transcripts(&finished.game.meta, &finished.record)?;
        }
        if let Some(manifest) = &mut self.manifest {
            manifest.games_done += 1;
            if let Some(culprit) = finished.record.termination.culprit() {
                let name = finished.record.names.get(culprit).clone();
                *manifest
                    .failures
                    .entry(name)
                    .or_default()
                    .entry(row.reason.clone())
                    .or_default() += 1;
            }
        }
        self.rows.push(row.clone());
        Ok(row)
    }

    /// Games finished, resumed ones included.
    pub fn done(&self) -> usize {
        self.rows.len()
    }

    /// The results directory, if any.
    pub fn out(&self) -> Option<&Path> {
        self.out.as_deref()
    }

    /// Updates the manifest at the end of a run (`complete`: every game played).
    ///
    /// # Errors
    /// Writing failed.
    pub fn finish(&mut self, complete: bool) -> anyhow::Result<()> {
        if let (Some(manifest), Some(dir)) = (&mut self.manifest, &self.out) {
            if complete {
                manifest.finished_at = Some(crate::manifest::now());
            }
            manifest.save(dir)?;
        }
        Ok(())
    }
}
