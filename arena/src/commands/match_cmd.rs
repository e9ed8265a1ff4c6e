//! `arena match A B`: games between two bots in colour-swapped pairs, with the score
//! and the end reasons printed, the narrative with `--verbose`, and CSV files with
//! `--out`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Context as _;
use referee::game::{GameRecord, TimeControl};
use referee::rules::Rules;

use crate::botspec::{Resolver, dedupe_names};
use crate::cli::MatchArgs;
use crate::exit_codes::{self, Code};
use crate::runner::{self, Entrant, RunEnd, RunOptions};
use crate::schedule::{self, Format, Openings, Plan};
use crate::store::ResultStore;

/// Options after validation.
#[derive(Debug)]
struct Valid {
    entrants: Vec<Entrant>,
    plan: Plan,
    out: Option<PathBuf>,
}

fn validate(args: &MatchArgs) -> Result<Valid, String> {
    let resolver =
        Resolver::from_env().map_err(|e| format!("cannot find the arena executable: {e}"))?;
    let mut specs = Vec::new();
    for raw in [&args.bot_a, &args.bot_b] {
        specs.push(resolver.resolve(raw).map_err(|e| e.to_string())?);
    }
    let mut names: Vec<String> = specs.iter().map(|s| s.name.clone()).collect();
    dedupe_names(&mut names);
    let rules: Rules = args.rules.parse().map_err(|e| format!("--rules: {e}"))?;
    if !args.allow_unannounced_rules
        && let Some(spec) = specs.iter().find(|s| !s.dialect.can_express(rules))
    {
        return Err(crate::config::unannounced_rules_message(
            &spec.name,
            spec.dialect,
            rules,
            "--allow-unannounced-rules",
        ));
    }
    if args.games == 0 {
        return Err("--games must be at least 1".into());
    }
    let time = TimeControl::per_move(
        args.time,
        args.first_time.unwrap_or(args.time.max(1000)),
        args.margin,
    );
    time.validate().map_err(|e| format!("--time: {e}"))?;
    let entrants = specs
        .into_iter()
        .zip(names)
        .map(|(mut spec, name)| {
            spec.name = name;
            Entrant { spec, time }
        })
        .collect();
    let plan = Plan {
        bots: 2,
        format: Format::RoundRobin,
        games_per_pairing: args.games,
        openings: match args.random_plies {
            0 => Openings::None,
            k => Openings::RandomPlies(k),
        },
        rules,
        seed: args.seed.unwrap_or_else(rand::random),
    };
    Ok(Valid {
        entrants,
        plan,
        out: args.out.clone(),
    })
}

/// Runs `arena match`.
///
/// # Errors
/// Writing results failed, or the async runtime could not start.
pub fn run(args: &MatchArgs) -> anyhow::Result<Code> {
    let mut valid = match validate(args) {
        Ok(valid) => valid,
        Err(message) => {
            eprintln!("error: {message}");
            return Ok(exit_codes::USAGE);
        }
    };
    let exe = std::env::current_exe().context("locating the arena executable")?;
    let host = crate::sandbox::detect(&exe);
    let sandbox = match crate::sandbox::apply(&mut valid.entrants, &host, Some(args.sandbox)) {
        Ok(report) => report,
        Err(message) => {
            eprintln!("error: {message}");
            return Ok(exit_codes::USAGE);
        }
    };
    let games = schedule::schedule(&valid.plan);
    let total = games.len();
    let names: Vec<String> = valid.entrants.iter().map(|e| e.spec.name.clone()).collect();
    println!(
        "Match: {} vs {}, {total} games, {} ms per move (first move {} ms, margin {} ms), rules {}, seed {}",
        names[0],
        names[1],
        args.time,
        valid.entrants[0]
            .time
            .first_move_time
            .map_or(0, |d| d.as_millis()),
        args.margin,
        valid.plan.rules,
        valid.plan.seed
    );
    println!("{}", crate::sandbox::banner(&sandbox));
    let mut store = match &valid.out {
        Some(dir) => Some(ResultStore::open(dir)?),
        None => None,
    };
    let options = RunOptions {
        concurrency: args.concurrency,
        reuse_processes: true,
        handshake_limit: std::time::Duration::from_millis(args.handshake_time),
        rules: valid.plan.rules,
        log_dir: valid.out.as_ref().map(|d| d.join("logs")),
    };
    let mut tally = Tally::new(&names[0], &names[1]);
    let mut done = 0usize;
    let on_finish = |finished: runner::Finished| -> anyhow::Result<()> {
        if let Some(store) = store.as_mut() {
            store.append(&finished.game.meta, &finished.record)?;
            store.save_transcripts(&finished.game.meta, &finished.record)?;
        }
        done += 1;
        if args.verbose {
            println!();
            for line in finished.record.narrative() {
                println!("  {line}");
            }
        }
        println!(
            "Game {done}/{total} ({}): {}",
            finished.game.meta.id,
            summary_line(&finished.record)
        );
        tally.add(&finished.record);
        Ok(())
    };
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let end = runtime.block_on(runner::run(
        valid.entrants,
        options,
        games,
        on_finish,
        async {
            let _ = tokio::signal::ctrl_c().await;
        },
    ))?;
    println!();
    tally.print();
    if let Some(dir) = &valid.out {
        println!("Results written to {}", dir.display());
    }
    Ok(match end {
        RunEnd::Complete => exit_codes::OK,
        RunEnd::Interrupted => {
            eprintln!("Interrupted: unfinished games were not recorded.");
            exit_codes::INTERRUPTED
        }
    })
}

/// "mcts (X) vs random (O): X (mcts) wins: three boards in a row. [31 plies]"
pub fn summary_line(record: &GameRecord) -> String {
    format!(
        "{} (X) vs {} (O): {} [{} plies]",
        record.names.x,
        record.names.o,
        record.result_line(),
        record.position.ply()
    )
}

/// Score of the first bot against the second, and how games ended.
#[derive(Debug)]
struct Tally {
    a: String,
    b: String,
    wins: u32,
    losses: u32,
    draws: u32,
    reasons: BTreeMap<String, u32>,
}

impl Tally {
    fn new(a: &str, b: &str) -> Tally {
        Tally {
            a: a.into(),
            b: b.into(),
            wins: 0,
            losses: 0,
            draws: 0,
            reasons: BTreeMap::new(),
        }
    }

    fn add(&mut self, record: &GameRecord) {
        match record.winner.map(|m| record.names.get(m).clone()) {
            Some(name) if name == self.a => self.wins += 1,
            Some(_) => self.losses += 1,
            None => self.draws += 1,
        }
        let key = match record.termination.culprit() {
            Some(m) => format!(
                "{} by {}",
                record.termination.reason_name(),
                record.names.get(m)
            ),
            None => record.termination.reason_name().to_string(),
        };
        *self.reasons.entry(key).or_default() += 1;
    }

    fn print(&self) {
        let games = self.wins + self.losses + self.draws;
        let score = if games == 0 {
            0.0
        } else {
            (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(games)
        };
        println!(
            "Score of {} vs {}: {} - {} - {} [{score:.3}] {games} games",
            self.a, self.b, self.wins, self.losses, self.draws
        );
        let reasons: Vec<String> = self
            .reasons
            .iter()
            .map(|(k, n)| format!("{k}: {n}"))
            .collect();
        println!("Reasons: {}", reasons.join(", "));
    }
}
