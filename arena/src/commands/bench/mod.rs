//! `arena bench`: benchmarks of the referee itself, each compared in the same run
//! with a baseline measured on the same machine.
//!
//! - `overhead`: per-move cost of the referee with an instant bot, against the raw
//!   round trip of a line over pipes between two processes (the floor), and over
//!   socket pairs (what the referee gives bots as their standard streams); and the
//!   same games again publishing live files (what a run with a results directory
//!   does), in the same rounds; and the live files alone (one of those games'
//!   marks published again and again, no bots), whose cost the bots' scheduling
//!   noise would hide on a busy machine.
//! - `timing`: clock precision under two concurrent games: bots that answer 20 ms
//!   inside the limit must never be flagged, bots 20 ms past limit + margin always.
//! - `games`: games per second through the real runner.
//! - `sandbox`: bot start-up cost under each isolation layer ([`startup`]).
//! - `clock`: false and missed time losses of the wall and fair clocks on the
//!   same moves, beside busy loops ([`clock`]).
//! - `ratings`: `arena ratings` and `arena report` on generated games of many
//!   names, against reading their games.csv alone ([`ratings`]).
//!
//! The hidden bots used here (`__echo`, `__instant`, `__sleeper`,
//! [`helper_bots`]) are part of the `arena` binary so the benchmark needs nothing
//! else installed.

pub mod clock;
pub mod helper_bots;
pub mod ratings;
pub mod startup;
pub mod tournament;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use referee::bot::{BotCommand, BotSession, ClockMode};
use referee::game::{
    GameRecord, GameSpec, MoveObserver as _, TimeControl, play_game, play_game_observed,
};
use uttt::rules::{ByMark, Rules};

use crate::cli::{BenchArgs, BenchKind};
use crate::defaults;
use crate::exit_codes::{self, Code};
use crate::millis::{MarginMs, MoveMs};
use crate::results::live::LiveGame;
use crate::results::store::GameMeta;
use crate::tournament::governor::{GovernorMode, GovernorSettings};
use crate::tournament::settings::input::TimeInput;
use crate::tournament::settings::time::time_control;

/// Runs `arena bench`.
///
/// # Errors
/// A helper process could not be started or the runtime failed.
pub fn run(args: &BenchArgs) -> anyhow::Result<Code> {
    let exe = std::env::current_exe().context("locating the arena executable")?;
    let games = args.games.unwrap_or(10);
    match args.kind {
        BenchKind::Overhead => overhead(&exe, args.moves),
        BenchKind::Timing => timing(&exe, games),
        BenchKind::Games => self::games(&exe, games.max(20)),
        BenchKind::Sandbox => startup::run(&exe, games),
        BenchKind::Tournament => tournament::run(&exe, args),
        BenchKind::Clock => clock::run(&exe, args.moves, args.seconds),
        BenchKind::Ratings => ratings::run(&exe, args),
    }?;
    Ok(exit_codes::OK)
}

fn helper(exe: &Path, args: &[&str]) -> BotCommand {
    let mut command = BotCommand::new(exe);
    command.args = args.iter().map(Into::into).collect();
    command
}

/// Rounds of (floor, referee) measurements; the medians are compared, so a burst of
/// load from other processes on the machine hits both sides alike.
const ROUNDS: usize = 7;

fn overhead(exe: &Path, moves: u32) -> anyhow::Result<()> {
    // One game at a time, as `arena match` runs it.
    let runtime = crate::tournament::runner::runtime(1)?;
    let per_round = (moves / ROUNDS as u32).max(500);
    let mut floors = Vec::new();
    let mut socket_floors = Vec::new();
    let mut walls = Vec::new();
    let mut wall_clock = Vec::new();
    let mut thinks = Vec::new();
    let mut live_walls = Vec::new();
    let mut live_thinks = Vec::new();
    let mut alone = Vec::new();
    let live_dir = std::env::temp_dir().join(format!("arena-bench-live-{}", std::process::id()));
    for _ in 0..ROUNDS {
        floors.push(pipe_floor(exe, per_round)?);
        socket_floors.push(socket_floor(exe, per_round)?);
        let auto = ClockMode::auto();
        let (wall, think, _) = runtime.block_on(referee_per_move(exe, per_round, None, auto))?;
        walls.push(wall);
        thinks.push(think);
        let (wall, _, _) =
            runtime.block_on(referee_per_move(exe, per_round, None, ClockMode::Wall))?;
        wall_clock.push(wall);
        let live = Some(live_dir.as_path());
        let (wall, think, game) = runtime.block_on(referee_per_move(exe, per_round, live, auto))?;
        live_walls.push(wall);
        live_thinks.push(think);
        alone.push(live_files_alone(&live_dir, &game, per_round));
    }
    let _ = std::fs::remove_dir_all(&live_dir);
    let (live_wall, live_think) = (median(&mut live_walls), median(&mut live_thinks));
    let (floor, wall, think) = (median(&mut floors), median(&mut walls), median(&mut thinks));
    let socket = median(&mut socket_floors);
    let alone = median(&mut alone);
    let wall_clock = median(&mut wall_clock);
    crate::say!("medians of {ROUNDS} alternating rounds, {per_round} round trips or moves each");
    crate::say!(
        "pipe floor: {:.1} us per round trip (blocking write + read of one line)",
        micros(floor)
    );
    crate::say!(
        "socket pair floor: {:.1} us per round trip (the same over the socket pairs bots get; {:.2}x pipes)",
        micros(socket),
        micros(socket) / micros(floor)
    );
    crate::say!(
        "referee:    {:.1} us per move wall ({:.1} us measured think time; the {} clock)",
        micros(wall),
        micros(think),
        ClockMode::auto()
    );
    crate::say!(
        "referee on the wall clock: {:.1} us per move wall (the {} clock {:+.1} us a move)",
        micros(wall_clock),
        ClockMode::auto(),
        micros(wall) - micros(wall_clock)
    );
    crate::say!(
        "referee publishing live files: {:.1} us per move wall ({:.1} us measured think time; {:+.1} us per move)",
        micros(live_wall),
        micros(live_think),
        micros(live_wall) - micros(wall)
    );
    crate::say!(
        "live files alone: {:.2} us per move (a game's files created, its marks published, removed; no bots)",
        micros(alone)
    );
    crate::say!(
        "ratio (referee per move / floor): {:.2}",
        micros(wall) / micros(floor)
    );
    Ok(())
}

fn median(values: &mut [Duration]) -> Duration {
    values.sort();
    values[values.len() / 2]
}

/// The floor: a blocking write and read of one short line, parent to child and back.
fn pipe_floor(exe: &Path, trips: u32) -> anyhow::Result<Duration> {
    let mut child = Command::new(exe)
        .arg("__echo")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .context("starting the echo helper")?;
    let (Some(writer), Some(reader)) = (child.stdin.take(), child.stdout.take()) else {
        anyhow::bail!("echo helper has no pipes");
    };
    let floor = round_trips(writer, reader, trips)?;
    let _ = child.wait();
    Ok(floor)
}

/// [`pipe_floor`] over two UNIX socket pairs, as the referee connects a bot.
fn socket_floor(exe: &Path, trips: u32) -> anyhow::Result<Duration> {
    use std::os::unix::net::UnixStream;
    let (child_in, writer) = UnixStream::pair()?;
    let (child_out, reader) = UnixStream::pair()?;
    let mut child = Command::new(exe)
        .arg("__echo")
        .stdin(Stdio::from(std::os::fd::OwnedFd::from(child_in)))
        .stdout(Stdio::from(std::os::fd::OwnedFd::from(child_out)))
        .spawn()
        .context("starting the echo helper")?;
    let floor = round_trips(writer, reader, trips)?;
    let _ = child.wait();
    Ok(floor)
}

/// The mean time of `trips` round trips of one short line to the echo helper;
/// closes `writer` at the end, so the helper exits.
fn round_trips(
    mut writer: impl std::io::Write,
    mut reader: impl std::io::Read,
    trips: u32,
) -> anyhow::Result<Duration> {
    let mut buf = [0u8; 64];
    let started = Instant::now();
    for _ in 0..trips {
        writer.write_all(b"go e4 100\n")?;
        let _ = reader.read(&mut buf)?;
    }
    Ok(started.elapsed() / trips)
}

/// The wall time per move of publishing `game`'s marks in live files in `dir`, as
/// a game does (files created, a mark at a time, removed), played back until
/// `moves` marks, with no bot and no referee around it.
fn live_files_alone(dir: &Path, game: &GameRecord, moves: u32) -> Duration {
    let per_game = game.moves.len().max(1) as u32;
    let games = moves.div_ceil(per_game);
    let started = Instant::now();
    for n in 0..games {
        let meta = GameMeta {
            id: format!("A{n:07}"),
            round: 1,
            pair: 1,
            seed: 1,
        };
        let mut live = LiveGame::start(dir, &meta, game.names.clone(), game.rules);
        for record in &game.moves {
            live.marked(record);
        }
    }
    started.elapsed() / (games * per_game)
}

/// Whole games between two instant bots through the real session and game code,
/// each move charged by `clock`; wall time per move, mean measured think time and the last game. With `live`,
/// each game is also published in live files there, as the runner does for a
/// results directory (created, a row per mark, removed at the end).
async fn referee_per_move(
    exe: &Path,
    moves: u32,
    live: Option<&Path>,
    clock: ClockMode,
) -> anyhow::Result<(Duration, Duration, GameRecord)> {
    let handshake = defaults::HANDSHAKE.duration();
    let time = fixed_time(1000, 0)?;
    let mut x = BotSession::start(&helper(exe, &["__instant"]), handshake).await?;
    let mut o = BotSession::start(&helper(exe, &["__instant"]), handshake).await?;
    x.set_clock(clock);
    o.set_clock(clock);
    let spec = GameSpec {
        id: "bench".into(),
        rules: Rules::STANDARD,
        opening: Vec::new(),
        time: ByMark::new_with(|_| time),
        seeds: ByMark { x: 1, o: 2 },
        names: ByMark {
            x: "a".into(),
            o: "b".into(),
        },
    };
    let mut played = 0u32;
    let mut think = Duration::ZERO;
    let mut last = None;
    let started = Instant::now();
    while played < moves {
        let mut observer = live.and_then(|dir| {
            let meta = GameMeta {
                id: format!("G{played:07}"),
                round: 1,
                pair: 1,
                seed: 1,
            };
            LiveGame::start(dir, &meta, spec.names.clone(), spec.rules)
        });
        let record = play_game_observed(&spec, &mut x, &mut o, &mut observer).await?;
        drop(observer);
        played += record.moves.len() as u32;
        think += record
            .moves
            .iter()
            .filter_map(|m| m.think)
            .sum::<Duration>();
        last = Some(record);
    }
    let elapsed = started.elapsed();
    x.quit().await;
    o.quit().await;
    let last = last.context("no game played")?;
    Ok((elapsed / played, think / played, last))
}

/// Games per second of `random` vs `random` through the real runner, at concurrency 1
/// and 2, with processes reused and with a process per game; next to the raw cost of
/// spawning a process and the pipe floor.
fn games(exe: &Path, games: u32) -> anyhow::Result<()> {
    use crate::results::manifest::ProcessPolicy;

    // Raw process spawn: start `arena __echo` with stdin closed and wait for it.
    let spawns = 200;
    let started = Instant::now();
    for _ in 0..spawns {
        Command::new(exe)
            .arg("__echo")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .status()?;
    }
    let spawn = started.elapsed() / spawns;
    let floor = pipe_floor(exe, 5000)?;
    crate::say!(
        "raw spawn + exit of a process: {:.2} ms; pipe floor: {:.1} us",
        spawn.as_secs_f64() * 1e3,
        micros(floor)
    );
    for concurrency in [1, 2] {
        for processes in [ProcessPolicy::Reuse, ProcessPolicy::PerGame] {
            let rate = runner_rate(None, 2, games, concurrency, processes)?;
            crate::say!(
                "random vs random, concurrency {concurrency}, {}: {games} games in {:.2} s = {:.1} games/s ({:.0} moves/s)",
                if processes == ProcessPolicy::Reuse {
                    "processes reused"
                } else {
                    "a process per game"
                },
                rate.wall.as_secs_f64(),
                f64::from(games) / rate.wall.as_secs_f64(),
                rate.plies as f64 / rate.wall.as_secs_f64()
            );
        }
    }
    Ok(())
}

/// The first `games` games of a round robin of `bots` copies of `random` (each
/// pairing as many games as it takes) through the runner alone (nothing recorded,
/// no watcher): the floor the processes set, with this process's CPU time spent
/// on them. With `isolated`, the bots are planned under this machine's sandbox
/// layers as `arena tournament` plans them (`arena bench games` leaves that out).
///
/// # Errors
/// The bots could not be resolved, isolated or played.
pub fn runner_rate(
    isolated: Option<&Path>,
    bots: u32,
    games: u32,
    concurrency: usize,
    processes: crate::results::manifest::ProcessPolicy,
) -> anyhow::Result<tournament::Rate> {
    use crate::tournament::bot_spec::Resolver;
    use crate::tournament::entrant::Entrant;
    use crate::tournament::format::Format;
    use crate::tournament::openings::Openings;
    use crate::tournament::runner::{self, Flow, RunOptions};
    use crate::tournament::schedule::{Plan, Schedule};

    let resolver = Resolver::from_env()?;
    let random = resolver
        .resolve("random")
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let time = TimeControl::per_move(1000, 1000, 100);
    let mut entrants: Vec<Entrant> = (1..=bots.max(2))
        .map(|k| {
            let mut spec = random.clone();
            if k > 1 {
                spec.name = format!("random-{k}");
            }
            Entrant { spec, time }
        })
        .collect();
    if let Some(exe) = isolated {
        let host = crate::tournament::isolation::detect(exe);
        crate::tournament::isolation::apply(&mut entrants, &host, None)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    let pairings = entrants.len() * (entrants.len() - 1) / 2;
    let schedule = Schedule::new(
        Plan {
            bots: entrants.len(),
            format: Format::RoundRobin,
            games_per_pairing: games.div_ceil(u32::try_from(pairings).unwrap_or(1)).max(1),
            openings: Openings::None,
            rules: Rules::STANDARD,
            seed: 1,
        },
        None,
    )?;
    let options = RunOptions {
        concurrency,
        processes,
        handshake_limit: defaults::HANDSHAKE.duration(),
        rules: Rules::STANDARD,
        log_dir: None,
        live_dir: None,
        preflight: false,
        pace: std::time::Duration::ZERO,
        // The referee's own cost is measured: nothing governs the bots.
        governor: GovernorSettings {
            mode: GovernorMode::Off,
            ..GovernorSettings::default()
        },
    };
    let mut plies = 0u64;
    let on_finish = |f: runner::Finished| -> anyhow::Result<Flow> {
        plies += f.record.moves.len() as u64;
        Ok(Flow::Continue)
    };
    let runtime = runner::runtime(concurrency)?;
    let cpu = own_cpu();
    let started = Instant::now();
    runtime.block_on(runner::run(
        entrants,
        options,
        schedule.games().take(games as usize),
        on_finish,
        |_: &crate::tournament::governor::Event, _| {},
        std::future::pending::<runner::Interruption>(),
    ))?;
    Ok(tournament::Rate {
        games: u64::from(games),
        wall: started.elapsed(),
        cpu: own_cpu().saturating_sub(cpu),
        plies,
    })
}

/// This process's CPU time so far, user and system, its children excluded.
fn own_cpu() -> Duration {
    use nix::sys::resource::{UsageWho, getrusage};
    getrusage(UsageWho::RUSAGE_SELF).map_or(Duration::ZERO, |usage| {
        let time = |t: nix::sys::time::TimeVal| {
            Duration::from_secs(u64::try_from(t.tv_sec()).unwrap_or(0))
                + Duration::from_micros(u64::try_from(t.tv_usec()).unwrap_or(0))
        };
        time(usage.user_time()) + time(usage.system_time())
    })
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn timing(exe: &Path, games: u32) -> anyhow::Result<()> {
    // The command line's defaults.
    const LIMIT_MS: u64 = defaults::MOVE_TIME.get();
    const MARGIN_MS: u64 = defaults::MARGIN.get();
    let limit = fixed_time(LIMIT_MS, MARGIN_MS)?;
    // Two games at once, as `arena tournament --concurrency 2` runs them.
    let runtime = crate::tournament::runner::runtime(2)?;
    for (label, delay, expect_flag) in [
        ("20 ms inside the limit", LIMIT_MS - 20, false),
        ("20 ms past limit + margin", LIMIT_MS + MARGIN_MS + 20, true),
    ] {
        let (flagged, asked) = runtime.block_on(async {
            let mut tasks = tokio::task::JoinSet::new();
            for game in 0..2 {
                let exe = exe.to_path_buf();
                tasks.spawn(async move {
                    let delay = delay.to_string();
                    let sleeper = helper(&exe, &["__sleeper", "--delay-ms", &delay]);
                    let mut flagged = 0u32;
                    let mut asked = 0u32;
                    for _ in 0..games {
                        let handshake = defaults::HANDSHAKE.duration();
                        let mut x = BotSession::start(&sleeper, handshake).await?;
                        let mut o =
                            BotSession::start(&helper(&exe, &["__instant"]), handshake).await?;
                        let spec = GameSpec {
                            id: format!("timing-{game}"),
                            rules: Rules::STANDARD,
                            opening: Vec::new(),
                            time: ByMark::new_with(|_| limit),
                            seeds: ByMark { x: 1, o: 2 },
                            names: ByMark {
                                x: "sleeper".into(),
                                o: "instant".into(),
                            },
                        };
                        let record = play_game(&spec, &mut x, &mut o).await?;
                        let sleeper_moves = record
                            .moves
                            .iter()
                            .filter(|m| m.mark == uttt::rules::Mark::X)
                            .count() as u32;
                        let timed_out =
                            record.termination.reason() == uttt::result::EndReason::Timeout;
                        asked += sleeper_moves + u32::from(timed_out);
                        flagged += u32::from(timed_out);
                        x.kill().await;
                        o.kill().await;
                    }
                    anyhow::Ok((flagged, asked))
                });
            }
            let (mut flagged, mut asked) = (0, 0);
            while let Some(done) = tasks.join_next().await {
                let (f, a) = done??;
                flagged += f;
                asked += a;
            }
            anyhow::Ok((flagged, asked))
        })?;
        let verdict = if expect_flag {
            format!(
                "{flagged} of {games_total} games flagged on time (expected all)",
                games_total = games * 2
            )
        } else {
            format!("{flagged} timeouts in {asked} moves (expected none)")
        };
        crate::say!(
            "limit {LIMIT_MS} ms + margin {MARGIN_MS} ms, bot answers {label} ({delay} ms), 2 games at once: {verdict}"
        );
    }
    Ok(())
}

/// A benchmark game's time control: `move_ms` for every move, the first
/// included, and `margin_ms` forgiven, made as every run's is
/// ([`time_control`]).
///
/// # Errors
/// A time out of its range.
fn fixed_time(move_ms: u64, margin_ms: u64) -> anyhow::Result<TimeControl> {
    let moves = MoveMs::new(move_ms)?;
    let input = TimeInput::fixed(moves, moves, MarginMs::new(margin_ms)?);
    time_control(&input).map_err(|e| anyhow::anyhow!("{}", e.message))
}
