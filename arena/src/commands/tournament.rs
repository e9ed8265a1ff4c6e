//! `arena tournament [CONFIG]`: the main job. Plays the schedule (resuming a results
//! directory that already holds some of it), shows progress, writes every finished
//! game before reporting it, and prints the standings at the end.

use std::path::Path;

use anyhow::Context as _;

use super::common::{self, RunSpec};
use crate::cli::TournamentArgs;
use crate::config::{self, DEFAULT_CONFIG, Tournament};
use crate::exit_codes::{self, Code};
use crate::progress::games_bar;
use crate::results::manifest::ProcessPolicy;
use crate::results::standings;
use crate::runner::{self, Flow, RunEnd, RunOptions};
use crate::schedule::Shard;

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
            return Ok(common::usage(&e.to_string()));
        }
    };
    if let Some(mib) = args.memory_mb {
        for entrant in &mut tournament.entrants {
            let limits = &mut entrant.spec.command.limits;
            *limits = limits.with_memory(mib * 1024 * 1024);
        }
    }
    let host = crate::sandbox::detect(&exe);
    let sandbox = match crate::sandbox::apply(&mut tournament.entrants, &host, args.sandbox) {
        Ok(report) => report,
        Err(message) => {
            return Ok(common::usage(&message.to_string()));
        }
    };
    let shard = match args.shard.as_deref().map(str::parse::<Shard>).transpose() {
        Ok(shard) => shard,
        Err(e) => {
            return Ok(common::usage(&format!("--shard: {e}")));
        }
    };
    let out = args
        .out
        .clone()
        .or_else(|| tournament.out.clone())
        .unwrap_or_else(|| crate::results::atomic::stamped_dir(&tournament.name));
    let concurrency = args
        .concurrency
        .or(tournament.concurrency)
        .unwrap_or_else(default_concurrency);
    let prepared = common::prepare(RunSpec {
        name: &tournament.name,
        entrants: &tournament.entrants,
        rules: tournament.rules,
        format: tournament.format.clone(),
        games_per_pairing: tournament.games,
        openings: &tournament.openings,
        seed: args.seed.or(tournament.seed),
        out: Some(&out),
        shard,
        concurrency,
        processes: tournament.processes,
        force: args.force,
        sandbox: &sandbox,
    })?;
    let common::Prepared {
        games,
        mut recorder,
    } = match prepared {
        Ok(p) => p,
        Err(message) => {
            return Ok(common::usage(&message.to_string()));
        }
    };
    let total = recorder.total();
    print_banner(
        &tournament,
        recorder.seed(),
        total,
        total - recorder.done(),
        concurrency,
        &out,
        shard,
    );
    println!("  {}", crate::sandbox::banner(&sandbox));
    let bar = games_bar(total, recorder.done(), args.quiet);
    let line_per_game = bar.is_hidden() && !args.quiet;
    let options = RunOptions {
        concurrency,
        reuse_processes: tournament.processes == ProcessPolicy::Reuse,
        handshake_limit: tournament.handshake,
        rules: tournament.rules,
        log_dir: Some(out.join("logs")),
    };
    let on_finish = |finished: runner::Finished| -> anyhow::Result<Flow> {
        let row = recorder.record(&finished.game.meta, &finished.record)?;
        let latest = format!(
            "{} {}",
            row.id,
            super::match_cmd::summary_line(&finished.record)
        );
        if line_per_game {
            println!("[{}/{total}] {latest}", recorder.done());
        }
        bar.set_message(format!(
            "leader: {} | latest: {latest}",
            standings::leader(recorder.rows())
        ));
        bar.inc(1);
        Ok(Flow::Continue)
    };
    let runtime = runner::runtime(concurrency).context("starting the async runtime")?;
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
    recorder.finish(end == RunEnd::Complete)?;
    standings::report(recorder.rows(), &out, !args.quiet)?;
    super::report::after_tournament(&out);
    println!("Results in {}", out.display());
    Ok(match end {
        RunEnd::Complete | RunEnd::Stopped => exit_codes::OK,
        RunEnd::Interrupted => {
            eprintln!(
                "Interrupted after {} of {total} games; running games were abandoned. To resume, run:\n  {}",
                recorder.done(),
                resume_command(args, &out)
            );
            exit_codes::INTERRUPTED
        }
    })
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

fn print_banner(
    t: &Tournament,
    seed: u64,
    total: u64,
    remaining: u64,
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
