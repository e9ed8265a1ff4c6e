//! Development self-play: two reference engines play each other in-process, in
//! colour-swapped pairs from shared random openings, at a fixed time per move.
//! The games go through the referee's game loop with in-process seats, so the
//! rules and the records are the tournament's, but there are no processes and no
//! deadlines (overruns are counted instead): for tuning and for checking the
//! ladder. The official numbers come from `arena` with real bot processes.
//!
//!     cargo run --release -p arena --example selfplay -- mcts negamax-hard --games 40 --ms 100
//!     cargo run --release -p arena --example selfplay -- --bench 2
//!
//! Engines are specs as `arena bot` takes them, quoted: "mcts --explore 0.5".
//! `--also SPEC` (repeatable) adds candidates that play the second engine from the
//! same openings, interleaved opening by opening with the first, so candidates
//! compared in one run see the same openings and the same machine load:
//!
//!     selfplay mcts negamax-hard --also "mcts --explore 0.5" --games 40 --ms 100
//!
//! `--odds 4` gives the first engines four times the time: what a search four
//! times as fast would be worth. From about eight times on, give `mcts` a larger
//! tree (`"mcts --max-nodes 16777216"`): its default 2 M nodes fill within about a
//! second, and the search then goes on without growing.

use std::time::{Duration, Instant};

use arena::tournament::local_engine::LocalEngine;
use bots::mcts::playout::{Policy, playout};
use bots::mcts::{MctsConfig, MctsEngine, Selection};
use bots::{Budget, Engine, GameSetup};
use clap::Parser;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use referee::game::{GameSpec, LocalSeat, Termination, TimeControl, play_game};
use uttt::rules::{ByMark, Mark, Position, Rules, Square};

/// Plays two engines against each other, or measures playout speed.
#[derive(Debug, Parser)]
struct Args {
    /// First engine spec, e.g. "negamax --level hard" (scores are reported for it).
    #[arg(required_unless_present = "bench")]
    a: Option<String>,
    /// Second engine spec.
    #[arg(required_unless_present = "bench")]
    b: Option<String>,
    /// More first engines, each playing the second engine on the same openings,
    /// interleaved with the first.
    #[arg(long, value_name = "SPEC")]
    also: Vec<String>,
    /// Games to play per first engine (rounded up to an even number: each opening is played twice).
    #[arg(long, default_value_t = 40)]
    games: u32,
    /// Milliseconds per move for both engines.
    #[arg(long, default_value_t = 100)]
    ms: u64,
    /// Time odds: the first engines get this many times `--ms` (what would a
    /// faster search be worth?).
    #[arg(long, default_value_t = 1.0)]
    odds: f64,
    /// Random plies played before the engines take over, so pairs differ.
    #[arg(long, default_value_t = 2)]
    opening: u32,
    /// Seed for the openings and the engines.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Rules for every game.
    #[arg(long, default_value = "standard")]
    rules: Rules,
    /// Print one line per game, and for each the first engine's value at each of
    /// its moves as a digit (0: sure loss, 5: even, 9: sure win), which shows where
    /// a game was won or never left balance.
    #[arg(long)]
    verbose: bool,
    /// Instead of playing, measure playouts per second for this many seconds.
    #[arg(long, value_name = "SECONDS")]
    bench: Option<f64>,
}

/// What one engine did over the match.
#[derive(Debug, Default)]
struct Tally {
    moves: u64,
    nodes: u64,
    nodes_time: Duration,
    /// The largest time beyond the move's full time (the engine was given the time
    /// less the protocol loop's safety margin).
    worst_overrun: Duration,
    /// Moves that took longer than the full time.
    over_budget: u64,
}

/// Wins, draws and losses of one first engine.
#[derive(Debug, Default)]
struct Score {
    wins: u32,
    draws: u32,
    losses: u32,
}

impl Score {
    fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The mean score per game and the half-width of its 95% interval, from the
    /// observed outcomes.
    fn mean_and_margin(&self) -> (f64, f64) {
        let games = f64::from(self.games().max(1));
        let score = (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / games;
        let mean_sq = (f64::from(self.wins) + 0.25 * f64::from(self.draws)) / games;
        let se = ((mean_sq - score * score).max(0.0) / games).sqrt();
        (score, 1.96 * se)
    }
}

fn main() {
    let args = Args::parse();
    if let Some(seconds) = args.bench {
        bench(seconds, args.rules, args.seed);
        return;
    }
    let (Some(spec_a), Some(spec_b)) = (args.a.as_deref(), args.b.as_deref()) else {
        return;
    };
    let build = |spec: &str| match LocalEngine::from_spec(spec) {
        Ok(engine) => LocalSeat(engine),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: starting the async runtime: {e}");
            std::process::exit(1);
        }
    };
    let specs: Vec<&str> = std::iter::once(spec_a)
        .chain(args.also.iter().map(String::as_str))
        .collect();
    let mut firsts: Vec<LocalSeat<LocalEngine>> = specs.iter().map(|s| build(s)).collect();
    let mut b = build(spec_b);
    let time = Duration::from_millis(args.ms);
    let times = [time.mul_f64(args.odds), time];
    let pairs = args.games.div_ceil(2);
    let mut scores: Vec<Score> = specs.iter().map(|_| Score::default()).collect();
    // Per first engine: its own tally and its opponent's in its games.
    let mut tallies: Vec<[Tally; 2]> = specs.iter().map(|_| Default::default()).collect();
    let started = Instant::now();
    for pair in 0..pairs {
        let mut rng = SmallRng::seed_from_u64(args.seed.wrapping_mul(1_000_003) ^ u64::from(pair));
        let opening = random_opening(args.rules, args.opening, &mut rng);
        let seeds: [u64; 2] = [rng.random(), rng.random()];
        for (i, a) in firsts.iter_mut().enumerate() {
            for (a_plays_x, seed) in [true, false].into_iter().zip(seeds) {
                let a_mark = if a_plays_x { Mark::X } else { Mark::O };
                let game = OneGame {
                    first_mark: a_mark,
                    rules: args.rules,
                    opening: &opening,
                    seed,
                    times,
                    verbose: args.verbose,
                };
                let winner = play_one(&runtime, [a, &mut b], &game, &mut tallies[i]);
                let score = &mut scores[i];
                let result = match winner {
                    Some(w) if w == a_mark => {
                        score.wins += 1;
                        "win"
                    }
                    Some(_) => {
                        score.losses += 1;
                        "loss"
                    }
                    None => {
                        score.draws += 1;
                        "draw"
                    }
                };
                if args.verbose {
                    println!(
                        "game {:3}: {} as {a_mark}: {result}",
                        score.games(),
                        specs[i]
                    );
                }
            }
        }
    }
    println!(
        "{} s, {} ms/move (first engines: {} ms), {}-ply random openings, seed {}",
        started.elapsed().as_secs_f64().round(),
        args.ms,
        times[0].as_millis(),
        args.opening,
        args.seed
    );
    for ((spec_a, score), tally) in specs.iter().zip(&scores).zip(&tallies) {
        let (mean, margin) = score.mean_and_margin();
        println!(
            "{spec_a} vs {spec_b}: {} games, +{} ={} -{}, score {:.1}% ± {:.1}% (95%)",
            score.games(),
            score.wins,
            score.draws,
            score.losses,
            100.0 * mean,
            100.0 * margin,
        );
        for (spec, tally) in [(*spec_a, &tally[0]), (spec_b, &tally[1])] {
            let rate = if tally.nodes_time.is_zero() {
                String::new()
            } else {
                format!(
                    ", {:.0} nodes/s",
                    tally.nodes as f64 / tally.nodes_time.as_secs_f64()
                )
            };
            println!(
                "  {spec}: {} moves, worst overrun {:.2} ms, {} moves late{rate}",
                tally.moves,
                tally.worst_overrun.as_secs_f64() * 1000.0,
                tally.over_budget
            );
        }
    }
}

/// `plies` random moves from the empty board that do not end the game.
fn random_opening(rules: Rules, plies: u32, rng: &mut SmallRng) -> Vec<Square> {
    loop {
        let mut pos = Position::new(rules);
        let mut moves = Vec::new();
        for _ in 0..plies {
            let sq = bots::engine::random_legal(&pos, rng);
            pos.play_unchecked(sq);
            moves.push(sq);
        }
        if !pos.is_over() {
            return moves;
        }
    }
}

/// One game of the match.
#[derive(Debug)]
struct OneGame<'a> {
    /// The mark of the first engine (the one scores are reported for).
    first_mark: Mark,
    rules: Rules,
    opening: &'a [Square],
    seed: u64,
    /// Time per move of the first engine and of the second.
    times: [Duration; 2],
    verbose: bool,
}

/// Plays one game between `engines` (the first plays `game.first_mark`) through
/// the referee's game loop, and returns the winner.
fn play_one(
    runtime: &tokio::runtime::Runtime,
    engines: [&mut LocalSeat<LocalEngine>; 2],
    game: &OneGame<'_>,
    tallies: &mut [Tally; 2],
) -> Option<Mark> {
    let first_is_x = game.first_mark == Mark::X;
    // Index into `engines`, `tallies` and `times` of the engine playing each mark.
    let index = |mark: Mark| usize::from((mark == Mark::X) != first_is_x);
    let [first, second] = engines;
    let names = ByMark::new_with(|m| format!("engine {}", index(m) + 1));
    let spec = GameSpec {
        id: format!("selfplay-{}", game.seed),
        rules: game.rules,
        opening: game.opening.to_vec(),
        time: ByMark::new_with(|m| {
            let ms = game.times[index(m)].as_millis() as u64;
            TimeControl::per_move(ms, ms, 0)
        }),
        seeds: ByMark::new_with(|m| {
            if m == Mark::X {
                game.seed
            } else {
                game.seed ^ 0x5555
            }
        }),
        names,
    };
    let played = if first_is_x {
        runtime.block_on(play_game(&spec, first, second))
    } else {
        runtime.block_on(play_game(&spec, second, first))
    };
    let record = match played {
        Ok(record) => record,
        Err(e) => {
            eprintln!("opening refused: {e}");
            return None;
        }
    };
    if let Termination::IllegalMove { by, error } = &record.termination {
        eprintln!("engine {} played an illegal move: {error}", index(*by) + 1);
    }
    // The first engine's value of each of its moves, as a digit 0..9 (verbose).
    let mut values = String::new();
    for m in &record.moves {
        let Some(elapsed) = m.think else { continue };
        let i = index(m.mark);
        let tally = &mut tallies[i];
        tally.moves += 1;
        let overrun = elapsed.saturating_sub(game.times[i]);
        tally.worst_overrun = tally.worst_overrun.max(overrun);
        if overrun > Duration::ZERO {
            tally.over_budget += 1;
        }
        if let Some(nodes) = m.info.as_ref().and_then(|info| info.nodes) {
            tally.nodes += nodes;
            tally.nodes_time += elapsed;
        }
        if game.verbose
            && i == 0
            && let Some(score) = m.info.as_ref().and_then(|info| info.score)
        {
            values.push(bots::engine::value_digit(score));
        }
    }
    if game.verbose {
        let pos = record.position;
        let won = pos.boards_won();
        let (mine, theirs) = if first_is_x {
            (won.x, won.o)
        } else {
            (won.o, won.x)
        };
        println!(
            "  {} plies, boards: first engine {}, second {}, drawn {}; first engine's values {values}",
            pos.ply(),
            mine.count_ones(),
            theirs.count_ones(),
            pos.boards_drawn().count_ones()
        );
    }
    record.winner
}

/// Playouts per second: bare playouts of each policy from the empty board, then
/// whole MCTS iterations (select, expand, playout, back up) from the empty board,
/// for plain UCT with random playouts and for the default configuration.
fn bench(seconds: f64, rules: Rules, seed: u64) {
    let time = Duration::from_secs_f64(seconds.max(0.01));
    let start = Position::new(rules);
    for policy in Policy::ALL {
        let mut rng = SmallRng::seed_from_u64(seed);
        let began = Instant::now();
        let mut count = 0u64;
        let mut plies = 0u64;
        while began.elapsed() < time {
            for _ in 0..256 {
                let _ = std::hint::black_box(playout(start, policy, &mut rng));
                count += 1;
            }
        }
        // Average game length, measured separately so it does not slow the count.
        for _ in 0..1000 {
            let mut pos = start;
            while !pos.is_over() {
                pos.play_unchecked(bots::engine::random_legal(&pos, &mut rng));
                plies += 1;
            }
        }
        let rate = count as f64 / began.elapsed().as_secs_f64();
        println!(
            "bare {} playouts from the empty board: {rate:.0}/s ({count} in {:.2} s; random games last {:.1} plies)",
            policy.name(),
            began.elapsed().as_secs_f64(),
            plies as f64 / 1000.0
        );
    }
    let pure = MctsConfig {
        selection: Selection::UCT,
        policy: Policy::Random,
        minimax: Some(0.0),
        ..MctsConfig::default()
    };
    for (label, config) in [
        ("pure UCT + solver, random playouts", pure),
        ("default configuration", MctsConfig::default()),
        (
            "default configuration but UCT",
            MctsConfig {
                selection: Selection::UCT,
                ..MctsConfig::default()
            },
        ),
    ] {
        let mut engine = MctsEngine::new(config);
        engine.new_game(&GameSetup {
            mark: Mark::X,
            rules,
            seed,
        });
        let budget = Budget::from_now(time);
        let stats = engine.search(&start, &[], budget);
        let elapsed = budget.start().elapsed().as_secs_f64();
        println!(
            "mcts iterations from the empty board, {label}: {:.0}/s ({} in {elapsed:.2} s, depth {})",
            stats.playouts as f64 / elapsed,
            stats.playouts,
            stats.depth
        );
    }
}
