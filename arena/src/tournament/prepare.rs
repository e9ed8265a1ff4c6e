//! Binding a run to its results directory before the first game: the seed, the
//! schedule and the games already finished come back from an earlier run on the
//! same directory, and a directory that holds a different run is refused. What is
//! left to play is computed game by game ([`Remaining`]), never listed.

use std::collections::HashSet;
use std::path::Path;
use std::time::Duration;

use referee::bot::ClockMode;
use uttt::notation::{format_move_list, parse_move_list};
use uttt::rules::Rules;

use super::draw::{DrawPlan, draw, results_by_id};
use super::entrant::Entrant;
use super::format::{Drawn, Format};
use super::governor::GovernorSettings;
use super::openings::Openings;
use super::runner::RunOptions;
use super::schedule::{Batch, Games as Computed, Plan, Schedule, ScheduledGame, Shard};
use super::settings::RunSettings;
use crate::results::live::LIVE_DIR;
use crate::results::manifest::{
    BotEntry, DisplayRecord, IsolationReport, Launch, LeftOutRecord, Manifest, ProcessPolicy,
    ScheduleKey, SprtBatchEntry,
};
use crate::results::nofollow::LinkRefused;
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
    /// A results file with a bad row, or a link where the arena reads or writes,
    /// is the user's to fix; anything else (the disk) is a failure.
    fn bad_row_is_usage(e: anyhow::Error) -> StartError {
        if let Some(refused) = LinkRefused::found_in(&e) {
            return StartError::Usage(refused.to_string());
        }
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
    /// How the run is shown (recorded in tournament.json; not part of what
    /// decides the games).
    pub display: DisplayRecord,
    /// The bots left out, with why (recorded in tournament.json for the pages;
    /// not part of what decides the games).
    pub left_out: Vec<LeftOutRecord>,
}

impl<'a> RunSpec<'a> {
    /// How the run of `settings` is identified for `tournament.json` and
    /// resuming, `concurrency` games at once with the bots isolated as
    /// `isolation` says: with its seed, no results directory, no shard, no SPRT
    /// batch and no `--force` (the command sets them).
    pub fn of(
        settings: &'a RunSettings,
        concurrency: usize,
        isolation: &'a IsolationReport,
    ) -> RunSpec<'a> {
        RunSpec {
            name: &settings.name,
            entrants: &settings.entrants,
            rules: settings.rules,
            format: settings.format.clone(),
            games_per_pairing: settings.games,
            openings: &settings.openings,
            seed: settings.seed,
            out: None,
            shard: None,
            batch: None,
            concurrency,
            processes: settings.processes,
            force: false,
            isolation,
            display: DisplayRecord {
                pace_ms: u64::try_from(settings.display.pace.as_millis()).unwrap_or(u64::MAX),
                audience: settings.display.audience,
            },
            left_out: settings
                .left_out
                .iter()
                .map(|l| LeftOutRecord {
                    name: l.name.clone(),
                    why: l.why.clone(),
                })
                .collect(),
        }
    }
}

/// How the games of `settings` are played: `concurrency` at once, the bots'
/// stderr kept in `out/logs` and each running game published in `out/live`
/// when there is a results directory, every bot started once first unless
/// `preflight` is off.
pub fn run_options(
    settings: &RunSettings,
    concurrency: usize,
    out: Option<&Path>,
    preflight: bool,
) -> RunOptions {
    RunOptions {
        concurrency,
        processes: settings.processes,
        handshake_limit: settings.handshake,
        rules: settings.rules,
        log_dir: out.map(|d| d.join("logs")),
        live_dir: out.map(|d| d.join(LIVE_DIR)),
        preflight,
        pace: settings.display.pace,
        governor: GovernorSettings {
            mode: settings.governor,
            timed: settings
                .entrants
                .iter()
                .map(Entrant::plays_by_the_clock)
                .collect(),
            max_wait: settings.governor_wait,
        },
    }
}

/// Builds the schedule, resuming from `out` when it holds earlier results of the
/// same run.
///
/// # Errors
/// [`StartError::Usage`]: a different run in `out`, a bad row in its files, a
/// schedule too large; [`StartError::Failed`]: reading or writing `out` failed.
pub fn prepare(spec: RunSpec<'_>) -> Result<Prepared, StartError> {
    let existing = match spec.out {
        Some(dir) => Manifest::load(dir).map_err(StartError::bad_row_is_usage)?,
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
            manifest.display = spec.display;
            manifest.left_out = spec.left_out.clone();
            manifest.launch = spec.entrants.iter().map(launch).collect();
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
/// A row must be the game the schedule has under its id ([`not_scheduled`]) or the
/// directory holds something else: refused, unless `force` (then the row is kept in
/// the results but its game is played).
fn finished_games(
    schedule: &Games,
    entrants: &[Entrant],
    rows: &[Numbered<GameRow>],
    force: bool,
    games_file: &Path,
) -> Result<HashSet<u64>, String> {
    let names: Vec<&str> = entrants.iter().map(|e| e.spec.name.as_str()).collect();
    let mut finished = HashSet::with_capacity(rows.len());
    for Numbered { line, row } in rows {
        match not_scheduled(schedule, &names, row) {
            Ok(number) => {
                finished.insert(number);
            }
            Err(why) if !force => {
                return Err(format!(
                    "{}:{line}: game {} is not a game of this run ({why}): this directory holds \
                     other results; choose another --out, or delete the line to play the game again",
                    games_file.display(),
                    row.id
                ));
            }
            Err(_) => {}
        }
    }
    Ok(finished)
}

/// The number of the scheduled game `row` is, or why it is none: the schedule has
/// no game under its id, or that game differs in its bots' seats, round, pair,
/// seed or opening (a row moved from elsewhere and given another id keeps the seed
/// and opening of its own game). `names` are the bots by index.
fn not_scheduled(schedule: &Games, names: &[&str], row: &GameRow) -> Result<u64, String> {
    let name = |i: usize| names.get(i).copied().unwrap_or("?");
    let Some(game) = schedule.game(&row.id) else {
        return Err(format!("this run has no game {}", row.id));
    };
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
        return Ok(game.number);
    }
    Err(format!(
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

/// Checks that every row of an SPRT batch (`rows`, read from `games_file`) is the
/// game the test's schedule has under its id, as resuming checks a directory: the
/// same bots in the same seats, round, pair, seed and opening. The id and pair
/// alone prove nothing: another batch's games renumbered into this batch's range
/// would be counted twice.
///
/// # Errors
/// The first row that is not its game, with its line and what differs; or a key
/// this arena cannot rebuild a schedule from.
pub fn check_batch_games(
    key: &ScheduleKey,
    batch: Batch,
    rows: &[Numbered<GameRow>],
    games_file: &Path,
) -> Result<(), String> {
    let plan = plan_of_key(key)?;
    let schedule = Schedule::new(plan, None)
        .and_then(|s| s.only_batch(batch))
        .map_err(|e| format!("{}: {e}", games_file.display()))?;
    let games = Games::Computed(schedule);
    let names: Vec<&str> = key.bots.iter().map(|b| b.name.as_str()).collect();
    for Numbered { line, row } in rows {
        if let Err(why) = not_scheduled(&games, &names, row) {
            return Err(format!(
                "{}:{line}: game {} is not batch {}'s game {} ({why}): the directory holds \
                 games of another batch or test; play batch {} again into an empty directory",
                games_file.display(),
                row.id,
                batch.index,
                row.id,
                batch.index
            ));
        }
    }
    Ok(())
}

/// The plan a [`ScheduleKey`] was made from (see [`schedule_key`]), for a fixed
/// schedule: the bots, rules, format, games per pairing, openings and seed.
///
/// # Errors
/// A format, rules or openings text this arena does not write.
fn plan_of_key(key: &ScheduleKey) -> Result<Plan, String> {
    let unknown = |what: &str, text: &str| {
        format!("tournament.json names {what} '{text}', which this arena cannot schedule")
    };
    let format = match key.format.split_once(':') {
        None if key.format == "round-robin" => Format::RoundRobin,
        Some(("gauntlet", challenger)) => Format::Gauntlet {
            challenger: key
                .bots
                .iter()
                .position(|b| b.name == challenger)
                .ok_or_else(|| unknown("the gauntlet", &key.format))?,
        },
        _ => return Err(unknown("the format", &key.format)),
    };
    let openings = match key.openings.as_str() {
        "none" => Openings::None,
        text => match (
            text.strip_prefix("random-plies "),
            text.strip_prefix("book "),
        ) {
            (Some(k), _) => Openings::RandomPlies(
                k.parse()
                    .map_err(|_| unknown("the openings", &key.openings))?,
            ),
            (_, Some(lines)) => Openings::Book(
                lines
                    .split(" | ")
                    .map(parse_move_list)
                    .collect::<Result<_, _>>()
                    .map_err(|_| unknown("the openings", &key.openings))?,
            ),
            _ => return Err(unknown("the openings", &key.openings)),
        },
    };
    Ok(Plan {
        bots: key.bots.len(),
        format,
        games_per_pairing: key.games_per_pairing,
        openings,
        rules: key
            .rules
            .parse()
            .map_err(|_| unknown("the rules", &key.rules))?,
        seed: key.seed,
    })
}

/// The key of a run (see [`ScheduleKey`]): what decides its games, the bots with
/// their commands and times included.
pub fn schedule_key(plan: &Plan, entrants: &[Entrant]) -> ScheduleKey {
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
        clock: entrants
            .first()
            .map_or(ClockMode::auto(), |e| e.time.clock_mode)
            .to_string(),
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

/// How `entrant` was started, as data for [`Manifest::launch`].
pub fn launch(entrant: &Entrant) -> (String, Launch) {
    (
        entrant.spec.name.clone(),
        Launch::of(entrant.spec.builtin, &entrant.spec.command),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(format: &str, openings: &str) -> ScheduleKey {
        let bot = |name: &str| BotEntry {
            name: name.into(),
            command: format!("arena bot {name}"),
            protocol: "uttt".into(),
            move_ms: Some(100),
            first_move_ms: None,
            margin_ms: 0,
            clock_ms: None,
            increment_ms: None,
            nodes: None,
        };
        ScheduleKey {
            seed: 7,
            rules: "standard".into(),
            format: format.into(),
            games_per_pairing: 4,
            openings: openings.into(),
            bots: vec![bot("a"), bot("b"), bot("c")],
            clock: "fair".into(),
        }
    }

    #[test]
    fn a_changed_clock_is_named_with_the_flag_that_resumes() {
        let old = ScheduleKey {
            clock: "wall".into(),
            ..key("round-robin", "none")
        };
        assert_eq!(
            old.difference(&key("round-robin", "none")),
            "the wall clock there, the fair clock here: resume with --clock wall (or `clock = \"wall\"` under [time])"
        );
    }

    #[test]
    fn a_key_gives_back_the_plan_it_was_written_from() {
        let book = vec![Vec::new(), parse_move_list("e5 e4").unwrap()];
        let plan = Plan {
            bots: 3,
            format: Format::Gauntlet { challenger: 1 },
            games_per_pairing: 4,
            openings: Openings::Book(book.clone()),
            rules: Rules::STANDARD,
            seed: 7,
        };
        let text = format!(
            "book {}",
            book.iter()
                .map(|l| format_move_list(l))
                .collect::<Vec<_>>()
                .join(" | ")
        );
        let back = plan_of_key(&key("gauntlet:b", &text)).unwrap();
        assert_eq!(
            (
                back.bots,
                &back.format,
                back.games_per_pairing,
                &back.openings
            ),
            (
                plan.bots,
                &plan.format,
                plan.games_per_pairing,
                &plan.openings
            )
        );
        assert_eq!((back.rules, back.seed), (plan.rules, plan.seed));
        let back = plan_of_key(&key("round-robin", "random-plies 3")).unwrap();
        assert_eq!(
            (back.format, back.openings),
            (Format::RoundRobin, Openings::RandomPlies(3))
        );
        let err = plan_of_key(&key("swiss:3", "none")).unwrap_err();
        assert!(err.contains("names the format 'swiss:3'"), "{err}");
    }
}
