//! `arena tournament [CONFIG]`: the main job. Plays the schedule (resuming a results
//! directory that already holds some of it), shows progress, writes every finished
//! game before reporting it, and prints the standings at the end.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::cli::TournamentArgs;
use crate::config::{self, DEFAULT_CONFIG, ProcessPolicy, Tournament};
use crate::exit_codes::{self, Code};
use crate::manifest::{Manifest, ScheduleKey};
use crate::progress::games_bar;
use crate::runner::{self, RunEnd, RunOptions};
use crate::schedule::{self, Plan, Shard};
use crate::standings;
use crate::store::{GameRow, ResultStore};

/// The default number of games at once: one per core. A bot that thinks on its
/// opponent's time (pondering, background threads) competes with the other games
/// for the cores; lower `--concurrency` for such bots.
pub fn default_concurrency() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// Runs `arena tournament`.
///
/// # Errors
/// Results could not be written, or the runtime failed.
pub fn run(args: &TournamentArgs) -> anyhow::Result<Code> {
    let exe = std::env::current_exe().context("locating the arena executable")?;
    let loaded = match &args.config {
        Some(path) => config::load(path, &exe),
        None => {
            let cwd = std::env::current_dir().context("reading the current directory")?;
            config::parse(
                "configs/default.toml (built in)",
                DEFAULT_CONFIG,
                &cwd,
                &exe,
            )
        }
    };
    let mut tournament = match loaded {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(exit_codes::USAGE);
        }
    };
    let host = crate::sandbox::detect(&exe);
    let sandbox = match crate::sandbox::apply(&mut tournament.entrants, &host, args.sandbox) {
        Ok(report) => report,
        Err(message) => {
            eprintln!("error: {message}");
            return Ok(exit_codes::USAGE);
        }
    };
    let shard = match args.shard.as_deref().map(str::parse::<Shard>).transpose() {
        Ok(shard) => shard,
        Err(e) => {
            eprintln!("error: --shard: {e}");
            return Ok(exit_codes::USAGE);
        }
    };
    let out = args
        .out
        .clone()
        .or_else(|| tournament.out.clone())
        .unwrap_or_else(|| default_out(&tournament.name));
    let existing = Manifest::load(&out)?;
    let seed = args
        .seed
        .or(tournament.seed)
        .or(existing.as_ref().map(|m| m.schedule.seed))
        .unwrap_or_else(rand::random);
    let key = ScheduleKey::new(&tournament, seed);
    if let Some(old) = &existing
        && old.schedule != key
        && !args.force
    {
        eprintln!(
            "error: {} holds results of a different tournament ({}): choose another --out, or add --force to mix them",
            out.display(),
            first_difference(&old.schedule, &key)
        );
        return Ok(exit_codes::USAGE);
    }

    let plan = Plan {
        bots: tournament.entrants.len(),
        format: tournament.format.clone(),
        games_per_pairing: tournament.games,
        openings: tournament.openings.clone(),
        rules: tournament.rules,
        seed,
    };
    let mut games = schedule::schedule(&plan);
    if let Some(shard) = shard {
        games.retain(|g| shard.contains(g));
    }
    let total = games.len();
    let mut store = ResultStore::open(&out)?;
    let mut rows = store.games()?;
    let done: HashSet<String> = rows.iter().map(|r| r.id.clone()).collect();
    games.retain(|g| !done.contains(&g.meta.id));
    let concurrency = args
        .concurrency
        .or(tournament.concurrency)
        .unwrap_or_else(default_concurrency);
    let mut manifest = existing.unwrap_or_else(|| {
        Manifest::new(
            &tournament,
            seed,
            concurrency,
            shard.map(|s| format!("{}/{}", s.index, s.count)),
            total,
        )
    });
    manifest.games_done = total - games.len();
    manifest.finished_at = None;
    manifest.sandbox = Some(sandbox.clone());
    manifest.save(&out)?;

    print_banner(
        &tournament,
        seed,
        total,
        games.len(),
        concurrency,
        &out,
        shard,
    );
    println!("  {}", crate::sandbox::banner(&sandbox));
    let names: Vec<String> = tournament
        .entrants
        .iter()
        .map(|e| e.spec.name.clone())
        .collect();
    let bar = games_bar(total as u64, (total - games.len()) as u64, args.quiet);
    let line_per_game = bar.is_hidden() && !args.quiet;
    let options = RunOptions {
        concurrency,
        reuse_processes: tournament.processes == ProcessPolicy::Reuse,
        handshake_limit: tournament.handshake,
        rules: tournament.rules,
        log_dir: Some(out.join("logs")),
    };
    let on_finish = |finished: runner::Finished| -> anyhow::Result<()> {
        store.append(&finished.game.meta, &finished.record)?;
        store.save_transcripts(&finished.game.meta, &finished.record)?;
        let row = GameRow::new(&finished.game.meta, &finished.record);
        if let Some(culprit) = finished.record.termination.culprit() {
            let name = finished.record.names.get(culprit).clone();
            *manifest
                .failures
                .entry(name)
                .or_default()
                .entry(row.reason.clone())
                .or_default() += 1;
        }
        manifest.games_done += 1;
        let latest = format!(
            "{} {}",
            row.id,
            super::match_cmd::summary_line(&finished.record)
        );
        rows.push(row);
        if line_per_game {
            println!("[{}/{total}] {latest}", manifest.games_done);
        }
        bar.set_message(format!(
            "leader: {} | latest: {latest}",
            standings::leader(&rows)
        ));
        bar.inc(1);
        Ok(())
    };
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let end = runtime.block_on(runner::run(
        tournament.entrants.clone(),
        options,
        games,
        on_finish,
        async {
            let _ = tokio::signal::ctrl_c().await;
        },
    ));
    bar.finish_and_clear();
    let end = end?;
    if end == RunEnd::Complete {
        manifest.finished_at = Some(crate::manifest::now());
    }
    manifest.save(&out)?;

    let rows = store.games()?;
    standings::report(&rows, &names, &out, !args.quiet)?;
    println!("Results in {}", out.display());
    Ok(match end {
        RunEnd::Complete => exit_codes::OK,
        RunEnd::Interrupted => {
            eprintln!(
                "Interrupted after {} of {total} games; running games were abandoned. To resume, run:\n  {}",
                rows.len(),
                resume_command(args, &out)
            );
            exit_codes::INTERRUPTED
        }
    })
}

fn default_out(name: &str) -> PathBuf {
    let stamp: String = crate::manifest::now()
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    let (date, time) = stamp.split_at(stamp.len().min(8));
    PathBuf::from("results").join(format!("{name}-{date}-{time}"))
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

fn first_difference(old: &ScheduleKey, new: &ScheduleKey) -> String {
    if old.seed != new.seed {
        return format!("seed {} there, {} here", old.seed, new.seed);
    }
    if old.bots != new.bots {
        let names = |k: &ScheduleKey| {
            k.bots
                .iter()
                .map(|b| b.name.clone())
                .collect::<Vec<_>>()
                .join(", ")
        };
        return format!(
            "bots or their commands differ: {} there, {} here",
            names(old),
            names(new)
        );
    }
    if old.rules != new.rules {
        return format!("rules {} there, {} here", old.rules, new.rules);
    }
    if old.format != new.format || old.games_per_pairing != new.games_per_pairing {
        return "format or games per pairing differ".into();
    }
    "openings differ".into()
}

fn print_banner(
    t: &Tournament,
    seed: u64,
    total: usize,
    remaining: usize,
    concurrency: usize,
    out: &Path,
    shard: Option<Shard>,
) {
    let bots: Vec<&str> = t.entrants.iter().map(|e| e.spec.name.as_str()).collect();
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
    println!("  results: {}", out.display());
}

/// Counts of each end reason per bot at fault, for reports.
pub fn failures(rows: &[GameRow]) -> BTreeMap<String, BTreeMap<String, u32>> {
    let mut map: BTreeMap<String, BTreeMap<String, u32>> = BTreeMap::new();
    for row in rows {
        if let Some(culprit) = culprit_name(row) {
            *map.entry(culprit)
                .or_default()
                .entry(row.reason.clone())
                .or_default() += 1;
        }
    }
    map
}

/// The bot a fault-type reason is charged to (the loser), if the reason is a fault.
pub fn culprit_name(row: &GameRow) -> Option<String> {
    let board = matches!(
        row.reason.as_str(),
        "three-in-a-row" | "no-moves" | "most-boards"
    );
    if board {
        return None;
    }
    match row.winner.as_str() {
        "X" => Some(row.o.clone()),
        "O" => Some(row.x.clone()),
        _ => None,
    }
}
