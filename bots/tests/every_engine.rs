//! Behaviour every reference engine must have, checked through the registry the
//! way `arena bot` builds them: legal moves in any reachable position under any
//! rules, answers within a tiny budget, and the same game from the same seed.

use std::time::Duration;

use bots::registry::{NAMES, from_spec};
use bots::serve::think_time;
use bots::{Budget, Engine, GameSetup};
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use uttt::rules::{Mark, Position, Rules, Square, Variant};

/// Every registered name (`level` with a number), plus the MCTS configurations
/// tests rely on.
fn all_specs() -> Vec<String> {
    let mut specs: Vec<String> = NAMES
        .iter()
        .map(|&n| match n {
            "level" => "level --n 2".to_string(),
            other => other.to_string(),
        })
        .collect();
    specs.push("negamax --level hard --nodes 5000".into());
    specs.push("mcts --rollout random --minimax 0 --tree discard".into());
    specs.push("mcts --playouts 200".into());
    specs.push("mcts --select uct --playouts 200".into());
    specs
}

fn engine(spec: &str) -> Box<dyn Engine> {
    from_spec(spec).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

/// All eight combinations of the house rules.
fn rules(bits: u8) -> Rules {
    let mut rules = Rules::STANDARD;
    for (i, variant) in Variant::ALL.into_iter().enumerate() {
        if bits >> i & 1 != 0 {
            rules = rules.with(variant);
        }
    }
    rules
}

/// The position after `plies` random moves (fewer if the game ends first), and
/// the moves.
fn random_position(rules: Rules, plies: usize, seed: u64) -> (Position, Vec<Square>) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut pos = Position::new(rules);
    let mut history = Vec::new();
    while history.len() < plies {
        let sq = bots::engine::random_legal(&pos, &mut rng);
        let next = pos.after_unchecked(sq);
        if next.is_over() {
            break;
        }
        pos = next;
        history.push(sq);
    }
    (pos, history)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn every_engine_plays_a_legal_move_in_random_positions(
        plies in 0usize..70,
        seed in any::<u64>(),
        rule_bits in 0u8..8,
    ) {
        let rules = rules(rule_bits);
        let (pos, history) = random_position(rules, plies, seed);
        for spec in all_specs() {
            let mut engine = engine(&spec);
            engine.new_game(&GameSetup { mark: pos.side_to_move(), rules, seed });
            let choice = engine.choose(&pos, &history, Budget::from_now(Duration::from_millis(3)));
            prop_assert!(
                pos.is_legal(choice.square),
                "{spec} played {} in {pos} ({rules})", choice.square
            );
        }
    }
}

#[test]
fn every_engine_plays_legally_through_whole_games_with_tree_reuse() {
    // Whole games exercise what single positions do not: state kept between moves.
    for (i, spec) in all_specs().iter().enumerate() {
        let rules = rules(i as u8 % 8);
        let mut engine = engine(spec);
        let mut rng = SmallRng::seed_from_u64(i as u64);
        engine.new_game(&GameSetup {
            mark: Mark::X,
            rules,
            seed: 5,
        });
        let mut pos = Position::new(rules);
        let mut history = Vec::new();
        while !pos.is_over() {
            let sq = if pos.side_to_move() == Mark::X {
                engine
                    .choose(&pos, &history, Budget::from_now(Duration::from_millis(2)))
                    .square
            } else {
                bots::engine::random_legal(&pos, &mut rng)
            };
            pos = pos
                .play(sq)
                .unwrap_or_else(|e| panic!("{spec} under {rules}: {e}"));
            history.push(sq);
        }
        engine.end_game();
    }
}

/// The CPU time this thread has used.
fn thread_cpu_time() -> Duration {
    let t = nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
        .expect("a thread CPU clock");
    Duration::new(
        u64::try_from(t.tv_sec()).unwrap_or(0),
        u32::try_from(t.tv_nsec()).unwrap_or(0),
    )
}

#[test]
fn every_engine_answers_quickly_with_time_1() {
    // `go time 1` leaves half a millisecond to think. The bound below is far
    // above that; an engine that ignored its budget (a fixed-depth search, a fixed
    // number of playouts) would take much longer. It bounds this thread's CPU time,
    // not the wall clock: on a loaded machine the thread may wait for a CPU for
    // longer than the bound, which says nothing about the engine.
    let budget_for_time_1 = think_time(Duration::from_millis(1));
    let positions = [
        random_position(Rules::STANDARD, 0, 1),
        random_position(Rules::STANDARD, 1, 2),
        random_position(Rules::STANDARD, 30, 3),
    ];
    for spec in all_specs() {
        let mut engine = engine(&spec);
        engine.new_game(&GameSetup::standard(Mark::X, 9));
        for (pos, history) in &positions {
            let started = thread_cpu_time();
            let choice = engine.choose(pos, history, Budget::from_now(budget_for_time_1));
            let took = thread_cpu_time().saturating_sub(started);
            assert!(pos.is_legal(choice.square), "{spec}");
            assert!(
                took < Duration::from_millis(40),
                "{spec} used {took:?} of CPU with time 1"
            );
        }
    }
}

#[test]
fn mcts_and_hard_use_their_budget() {
    // The strongest engines think until the deadline (less than a millisecond of
    // overrun allowed for the last clock check), not merely "fast enough".
    let (pos, history) = random_position(Rules::STANDARD, 4, 4);
    for spec in ["mcts", "negamax-hard"] {
        let mut engine = engine(spec);
        engine.new_game(&GameSetup::standard(pos.side_to_move(), 2));
        let budget = Budget::from_now(Duration::from_millis(60));
        engine.choose(&pos, &history, budget);
        let took = budget.start().elapsed();
        assert!(
            took >= Duration::from_millis(55),
            "{spec} stopped after {took:?}"
        );
    }
}

/// Plays `spec` against itself from `seed` with a generous budget and returns the
/// moves.
fn self_game(spec: &str, seed: u64) -> Vec<Square> {
    let mut x = engine(spec);
    let mut o = engine(spec);
    x.new_game(&GameSetup::standard(Mark::X, seed));
    o.new_game(&GameSetup::standard(Mark::O, seed ^ 1));
    let mut pos = Position::new(Rules::STANDARD);
    let mut history = Vec::new();
    while !pos.is_over() {
        let mover = if pos.side_to_move() == Mark::X {
            &mut x
        } else {
            &mut o
        };
        let sq = mover
            .choose(&pos, &history, Budget::from_now(Duration::from_secs(30)))
            .square;
        pos = pos.play(sq).unwrap_or_else(|e| panic!("{spec}: {e}"));
        history.push(sq);
    }
    history
}

#[test]
fn the_same_seed_replays_the_same_game() {
    // Engines whose work does not depend on the clock: fixed depth, fixed
    // playouts, fixed nodes, and the reference levels built from them.
    for spec in [
        "random",
        "greedy",
        "negamax-easy",
        "negamax-medium",
        "negamax --level hard --nodes 3000",
        "mcts --playouts 300",
        "level2",
        "level9",
    ] {
        assert_eq!(self_game(spec, 7), self_game(spec, 7), "{spec}");
    }
    // And the seed matters.
    assert_ne!(self_game("random", 7), self_game("random", 8));
    assert_ne!(
        self_game("mcts --playouts 300", 7),
        self_game("mcts --playouts 300", 8)
    );
}
