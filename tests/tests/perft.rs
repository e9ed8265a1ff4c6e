//! Perft golden numbers, read from tests/data/perft.txt by one driver: the engine
//! at every depth up to 6 (7 with `--ignored`), the naive implementation at the
//! shallow depths it can afford, and both from random mid-game positions under
//! every combination of variants.
//!
//! Depth 7 is left out of the default run; run it with
//! `cargo test -p uttt-tests --test perft -- --ignored`.

mod naive;

use naive::{NaiveGame, all_rules};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use uttt::rules::{BoardIndex, Cell, Position, Rules, Square, perft, perft_divide};

/// Deepest golden number checked in the default test run.
const DEFAULT_MAX_DEPTH: u32 = 6;
/// Deepest golden number the naive implementation is checked against.
const NAIVE_MAX_DEPTH: u32 = 4;

/// One line of the golden file.
#[derive(Debug)]
struct Golden {
    rules: Rules,
    depth: u32,
    nodes: u64,
}

fn golden() -> Vec<Golden> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/perft.txt");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
        .map(|(i, line)| {
            let bad = |what: &str| panic!("{path}:{}: {what} in '{line}'", i + 1);
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [rules, depth, nodes] = fields[..] else {
                bad("expected 'rules depth nodes'")
            };
            Golden {
                rules: rules.parse().unwrap_or_else(|_| bad("unknown rules")),
                depth: depth.parse().unwrap_or_else(|_| bad("bad depth")),
                nodes: nodes.parse().unwrap_or_else(|_| bad("bad node count")),
            }
        })
        .collect()
}

fn square(board: usize, cell: usize) -> Square {
    Square::new(BoardIndex::ALL[board], Cell::ALL[cell])
}

fn check_engine(select: impl Fn(&Golden) -> bool) -> usize {
    let cases: Vec<Golden> = golden().into_iter().filter(select).collect();
    for case in &cases {
        let nodes = perft(&Position::new(case.rules), case.depth);
        assert_eq!(
            nodes, case.nodes,
            "perft {} depth {}",
            case.rules, case.depth
        );
    }
    cases.len()
}

#[test]
fn golden_file_holds_standard_to_depth_7_and_open_won_boards_to_depth_7() {
    let cases = golden();
    for rules in ["standard", "open-won-boards"] {
        let depths: Vec<u32> = cases
            .iter()
            .filter(|c| c.rules.to_string() == rules)
            .map(|c| c.depth)
            .collect();
        assert_eq!(depths, (1..=7).collect::<Vec<_>>(), "{rules}");
    }
}

#[test]
fn engine_perft_matches_the_golden_numbers_up_to_depth_6() {
    let checked = check_engine(|c| c.depth <= DEFAULT_MAX_DEPTH);
    assert_eq!(checked, 12);
}

#[test]
#[ignore = "deeper than the default run needs: cargo test -p uttt-tests --test perft -- --ignored"]
fn engine_perft_matches_the_golden_numbers_beyond_depth_6() {
    let checked = check_engine(|c| c.depth > DEFAULT_MAX_DEPTH);
    assert!(checked >= 2);
}

#[test]
fn naive_perft_matches_the_golden_numbers_up_to_depth_4() {
    let mut checked = 0;
    for case in golden().iter().filter(|c| c.depth <= NAIVE_MAX_DEPTH) {
        let nodes = NaiveGame::new(case.rules).perft(case.depth);
        assert_eq!(
            nodes, case.nodes,
            "naive perft {} depth {}",
            case.rules, case.depth
        );
        checked += 1;
    }
    assert_eq!(checked, 8);
}

/// Perft counts every game that ends inside its horizon, so agreeing on it from
/// positions deep in a game checks the end-of-game rules on thousands of children
/// per position, not just on the one line a random game follows.
#[test]
fn engine_and_naive_perft_agree_from_mid_game_positions_under_every_rules() {
    let mut rng = StdRng::seed_from_u64(8_100_081);
    let mut compared = 0;
    for rules in all_rules() {
        for _ in 0..12 {
            let mut game = NaiveGame::new(rules);
            let mut pos = Position::new(rules);
            let stop = rng.random_range(25..70);
            while game.plies() < stop && !pos.is_over() {
                let moves = game.legal_moves();
                let (b, c) = moves[rng.random_range(0..moves.len())];
                game.play(b, c).expect("naive legal move");
                pos = pos
                    .play(square(b, c))
                    .expect("engine accepts the naive game's legal move");
            }
            if pos.is_over() {
                continue;
            }
            // Split by first move, so a disagreement names the move under which
            // the two differ.
            let depth = if game.legal_moves().len() > 20 { 3 } else { 4 };
            let naive: Vec<(Square, u64)> = game
                .legal_moves()
                .into_iter()
                .map(|(b, c)| {
                    let mut child = game.clone();
                    child.play(b, c).expect("naive legal move");
                    (square(b, c), child.perft(depth - 1))
                })
                .collect();
            assert_eq!(
                perft_divide(&pos, depth),
                naive,
                "{rules} depth {depth} from {pos}"
            );
            compared += 1;
        }
    }
    assert!(compared >= 50, "only {compared} positions compared");
}
