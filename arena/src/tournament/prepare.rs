//! Binding a run to its results directory before the first game: the seed, the
//! schedule and the games already finished come back from an earlier run on the
//! same directory, and a directory that holds a different run is refused. What is
//! left to play is computed game by game ([`Remaining`]), never listed.

use std::collections::HashSet;
use std::path::Path;
use std::time::Duration;

use uttt::notation::format_move_list;
use uttt::rules::Rules;

use super::draw::{DrawPlan, Drawn, draw, results_by_id};
use super::entrant::{Entrant, Lineup};
use super::openings::Openings;
use super::schedule::{Batch, Format, Games as Computed, Plan, Schedule, ScheduledGame, Shard};
use crate::cli::PlayOptions;
use crate::results::manifest::{
    BotEntry, IsolationReport, Manifest, ProcessPolicy, ScheduleKey, SprtBatchEntry,
};
use crate::results::recorder::Recorder;
use crate::results::store::{BadRow, GAMES_FILE, GameMeta, GameRow, Numbered, ResultStore};

/// Why a run could not start. Nothing was played either way.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The user's to fix (exit 2): a bot, a flag, a file, a results directory that
    /// holds another run or a row that cannot be read.
    #[error("{0}")]
    Usage(String),
    /// Reading or writing the results directory failed.
    #[error(transparent)]
    Failed(#[from] anyhow::Error),
}

impl StartError {
    /// A results file with a bad row is the user's to fix; anything else (the
    /// disk) is a failure.
    fn bad_row_is_usage(e: anyhow::Error) -> StartError {
        match e.downcast::<BadRow>() {
            Ok(bad) => StartError::Usage(bad.to_string()),
            Err(e) => StartError::Failed(e),
        }
    }
}

/// Everything needed to start playing.
#[derive(Debug)]
pub struct Prepared {
    /// Games still to play, computed one at a time.
    pub games: Remaining,
    /// The results side.
    pub recorder: Recorder,
    /// A Swiss or knockout: whether another round will be drawn once these
    /// games are played (prepare again then).
    pub more: bool,
}

/// The games of a schedule that are not finished yet, in play order. The finished
/// ones are a set of game numbers, as large as the games played, never as the
/// schedule.
#[derive(Debug)]
pub struct Remaining {
    games: Pending,
    finished: HashSet<u64>,
}

/// The games of a run: computed one by one, or drawn (a Swiss round).
#[derive(Debug)]
enum Pending {
    Computed(Computed),
    Drawn(std::vec::IntoIter<ScheduledGame>),
}

impl Iterator for Remaining {
    type Item = ScheduledGame;

    fn next(&mut self) -> Option<ScheduledGame> {
        let finished = &self.finished;
        match &mut self.games {
            Pending::Computed(games) => games.find(|game| !finished.contains(&game.number)),
            Pending::Drawn(games) => games.find(|game| !finished.contains(&game.number)),
        }
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
    /// An SPRT batch, if the run is one (recorded in tournament.json).
    pub batch: Option<SprtBatchEntry>,
    /// Games at once (recorded).
    pub concurrency: usize,
    /// Process policy (recorded).
    pub processes: ProcessPolicy,
    /// Accept a directory holding another run.
    pub force: bool,
    /// The isolation layers in force (recorded in tournament.json).
    pub isolation: &'a IsolationReport,
}

/// Resolves the bots and prepares the results directory of a command-line run
/// (`match`, `sprt`, `gauntlet`): processes reused, no shard.
///
/// # Errors
/// As [`prepare`], and a bot or a flag the user must fix.
pub fn prepare_command_line(
    name: &str,
    specs: &[&str],
    play: &PlayOptions,
    format: Format,
    games_per_pairing: u32,
) -> Result<(Lineup, Prepared), StartError> {
    prepare_command_line_batch(name, specs, play, format, games_per_pairing, None)
}

/// [`prepare_command_line`] for one batch of a distributed SPRT, or none.
///
/// # Errors
/// As [`prepare_command_line`].
pub fn prepare_command_line_batch(
    name: &str,
    specs: &[&str],
    play: &PlayOptions,
    format: Format,
    games_per_pairing: u32,
    batch: Option<SprtBatchEntry>,
) -> Result<(Lineup, Prepared), StartError> {
    let lineup = Lineup::from_command_line(specs, play).map_err(StartError::Usage)?;
    let prepared = prepare(RunSpec {
        name,
        entrants: &lineup.entrants,
        rules: lineup.rules,
        format,
        games_per_pairing,
        openings: &lineup.openings,
        seed: play.seed,
        out: play.out.as_deref(),
        shard: None,
        batch,
        concurrency: play.concurrency,
        processes: ProcessPolicy::Reuse,
        force: false,
        isolation: &lineup.isolation,
    })?;
    Ok((lineup, prepared))
}

/// Builds the schedule, resuming from `out` when it holds earlier results of the
/// same run.
///
/// # Errors
/// [`StartError::Usage`]: a different run in `out`, a bad row in its files, a
/// schedule too large; [`StartError::Failed`]: reading or writing `out` failed.
pub fn prepare(spec: RunSpec<'_>) -> Result<Prepared, StartError> {
    let existing = match spec.out {
        Some(dir) => Manifest::load(dir)?,
        None => None,
    };
    let seed = spec
        .seed
        .or(existing.as_ref().map(|m| m.schedule.seed))
        .unwrap_or_else(rand::random);
    let plan = Plan {
        bots: spec.entrants.len(),
        format: spec.format,
        games_per_pairing: spec.games_per_pairing,
        openings: spec.openings.clone(),
        rules: spec.rules,
        seed,
    };
    let key = schedule_key(&plan, spec.entrants);
    if let (Format::Drawn(_), Some(_)) = (&plan.format, spec.shard) {
        return Err(StartError::Usage(
            "--shard splits a fixed schedule, but a swiss or knockout draws each round from the results of the last: play it on one machine".into(),
        ));
    }
    if let (Some(old), Some(dir)) = (&existing, spec.out)
        && old.schedule != key
        && !spec.force
    {
        return Err(StartError::Usage(format!(
            "{} holds results of a different run ({}): choose another --out, or add --force to mix them",
            dir.display(),
            old.schedule.difference(&key)
        )));
    }
    if let (Some(old), Some(dir)) = (&existing, spec.out)
        && old.sprt_batch != spec.batch
        && !spec.force
    {
        let what = |b: &Option<SprtBatchEntry>| match b {
            Some(b) => format!("batch {} of an SPRT", b.index),
            None => "no SPRT batch".to_string(),
        };
        return Err(StartError::Usage(format!(
            "{} holds {}, and this run is {}: give every batch a directory of its own",
            dir.display(),
            what(&old.sprt_batch),
            what(&spec.batch)
        )));
    }
    // A fixed schedule is checked (its size) before the directory is touched.
    let fixed = match &plan.format {
        Format::Drawn(drawn) => Err(*drawn),
        _ => {
            let schedule = Schedule::new(plan.clone(), spec.shard)
                .map_err(|e| StartError::Usage(e.to_string()))?;
            Ok(match &spec.batch {
                Some(entry) => schedule
                    .only_batch(Batch {
                        index: entry.index,
                        pairs: entry.pairs,
                    })
                    .map_err(|e| StartError::Usage(e.to_string()))?,
                None => schedule,
            })
        }
    };
    let (store, rows) = match spec.out {
        Some(dir) => {
            let opened = ResultStore::open(dir).and_then(|store| {
                let rows = store.games_numbered()?;
                Ok((store, rows))
            });
            let (store, rows) = opened.map_err(StartError::bad_row_is_usage)?;
            (Some(store), rows)
        }
        None => (None, Vec::new()),
    };
    let (games, total, more) = match fixed {
        Ok(schedule) => {
            let total = schedule.total();
            (Games::Computed(schedule), total, false)
        }
        Err(format) => {
            let names: Vec<&str> = spec.entrants.iter().map(|e| e.spec.name.as_str()).collect();
            let drawn = draw(
                &DrawPlan {
                    bots: plan.bots,
                    format,
                    games_per_pairing: plan.games_per_pairing,
                    openings: plan.openings.clone(),
                    rules: plan.rules,
                    seed: plan.seed,
                },
                &results_by_id(&names, rows.iter().map(|n| &n.row)),
            );
            let total = format
                .games_at_least(plan.bots, plan.games_per_pairing)
                .max(drawn.games.len() as u64);
            (Games::Drawn(drawn.games), total, drawn.more)
        }
    };
    let games_file = spec.out.map(|dir| dir.join(GAMES_FILE)).unwrap_or_default();
    let finished = finished_games(&games, spec.entrants, &rows, spec.force, &games_file)
        .map_err(StartError::Usage)?;
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
            manifest.sandbox = Some(spec.isolation.clone());
            manifest.sprt_batch = spec.batch.clone();
            manifest.save(dir)?;
            Some((store, manifest))
        }
        _ => None,
    };
    let rows = rows.into_iter().map(|n| n.row).collect();
    let recorder = Recorder::new(disk, rows, total, done, seed)?;
    Ok(Prepared {
        games: Remaining {
            games: match games {
                Games::Computed(schedule) => Pending::Computed(schedule.games()),
                Games::Drawn(list) => Pending::Drawn(list.into_iter()),
            },
            finished,
        },
        recorder,
        more,
    })
}

/// The games of a run, to look a finished one up by its id.
enum Games {
    Computed(Schedule),
    Drawn(Vec<ScheduledGame>),
}

impl Games {
    fn game(&self, id: &str) -> Option<ScheduledGame> {
        match self {
            Games::Computed(schedule) => schedule.game(id),
            Games::Drawn(list) => {
                let number = usize::try_from(GameMeta::number_of(id)?).ok()?;
                list.get(number.checked_sub(1)?)
                    .filter(|g| g.meta.id == id)
                    .cloned()
            }
        }
    }
}

/// The numbers of the scheduled games that `rows` (read from `games_file`) hold.
/// A row must be the game the schedule has under its id — the same bots in the same
/// seats, round, pair, seed and opening — or the directory holds something else:
/// refused, unless `force` (then the row is kept in the results but its game is
/// played).
fn finished_games(
    schedule: &Games,
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

/// The key of a run (see [`ScheduleKey`]): what decides its games, the bots with
/// their commands and times included.
fn schedule_key(plan: &Plan, entrants: &[Entrant]) -> ScheduleKey {
    let Plan {
        format,
        games_per_pairing,
        openings,
        rules,
        seed,
        ..
    } = plan;
    let ms = |d: Option<Duration>| d.map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    ScheduleKey {
        seed: *seed,
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
            Format::Drawn(Drawn::Swiss { rounds }) => format!("swiss:{rounds}"),
            Format::Drawn(Drawn::Knockout { tiebreak_pairs }) => {
                format!("knockout:{tiebreak_pairs}")
            }
        },
        games_per_pairing: *games_per_pairing,
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
                nodes: e.time.nodes,
            })
            .collect(),
    }
}
