//! The generator of the shipped suite: positions from seeded random games that
//! fit a category, each with its correct moves proven by [`super::correct_moves`].
//! The same seed and quotas give the same file (`arena __suite-generate`).
//!
//! The games are played by a random player that claims a board when it can half of
//! the time, so positions with boards at stake come up often. A position is kept
//! when it is of the wanted category, its correct moves are a real choice (at most
//! half of the legal moves, of at least [`MIN_LEGAL`]), and its position text
//! is new.

use std::collections::HashSet;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use uttt::rules::{Position, Rules, Square, Variant};

use super::prove::{claims_board, winning_moves};
use super::{Category, Entry, correct_moves};

/// How many positions of each category the shipped suite holds.
pub const QUOTAS: [(Category, usize); 6] = [
    (Category::WinIn1, 60),
    (Category::WinIn2, 60),
    (Category::WinIn3, 40),
    (Category::Defence, 50),
    (Category::FreeMoveTrap, 50),
    (Category::HouseRules, 40),
];

/// The fewest legal moves a position may offer: fewer is a guess, not a choice.
const MIN_LEGAL: usize = 5;

/// The house rules the house-rules positions are drawn from.
const HOUSE: [&[Variant]; 4] = [
    &[Variant::OpenWonBoards],
    &[Variant::DrawsCountBoth],
    &[Variant::MostBoards],
    &[Variant::OpenWonBoards, Variant::DrawsCountBoth],
];

/// The positions, category by category in [`QUOTAS`] order, from `seed`.
pub fn suite(seed: u64, quotas: &[(Category, usize)]) -> Vec<Entry> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut seen = HashSet::new();
    let mut entries = Vec::new();
    for &(category, quota) in quotas {
        let mut found = 0;
        let mut games = 0u32;
        // A generous bound, so a quota the games cannot meet ends the search.
        while found < quota && games < 200_000 {
            games += 1;
            let rules = if category == Category::HouseRules {
                HOUSE[rng.random_range(0..HOUSE.len())]
                    .iter()
                    .fold(Rules::STANDARD, |r, v| r.with(*v))
            } else {
                Rules::STANDARD
            };
            let moves = random_game(&mut rng, rules);
            // Late positions have the most at stake; try a few per game.
            for ply in (moves.len().saturating_sub(24)..moves.len()).rev() {
                let Some(entry) = candidate(category, rules, &moves[..ply], found + 1) else {
                    continue;
                };
                if seen.insert(entry.position.to_string()) {
                    entries.push(entry);
                    found += 1;
                }
                break;
            }
        }
    }
    entries
}

/// The position after `moves`, as an entry of `category` numbered `n`, if it is one.
fn candidate(category: Category, rules: Rules, moves: &[Square], n: usize) -> Option<Entry> {
    let pos = Position::from_moves(rules, moves.iter().copied()).ok()?;
    let legal = pos.legal_moves().len();
    if pos.is_over() || legal < MIN_LEGAL {
        return None;
    }
    let best = correct_moves(category, &pos).ok()?;
    if best.len() * 2 > legal {
        return None;
    }
    if category == Category::HouseRules && !differs_from_standard(moves, &best) {
        return None;
    }
    let prefix = match category {
        Category::WinIn1 => "win1",
        Category::WinIn2 => "win2",
        Category::WinIn3 => "win3",
        Category::Defence => "defence",
        Category::FreeMoveTrap => "trap",
        Category::HouseRules => "house",
    };
    Some(Entry {
        id: format!("{prefix}-{n:03}"),
        category,
        rules,
        moves: Some(moves.to_vec()),
        position: pos,
        best,
        note: String::new(),
    })
}

/// Whether the same moves under the standard rules give other winning moves (or
/// no such position at all): a bot that ignores `rules` would go wrong.
pub fn differs_from_standard(moves: &[Square], best: &[Square]) -> bool {
    match Position::from_moves(Rules::STANDARD, moves.iter().copied()) {
        Ok(standard) if !standard.is_over() => winning_moves(&standard, 2) != best,
        _ => true,
    }
}

/// A random game to its end: each move claims a board when one can half of the
/// time, else is uniformly random.
fn random_game(rng: &mut SmallRng, rules: Rules) -> Vec<Square> {
    let mut pos = Position::new(rules);
    let mut moves = Vec::new();
    while !pos.is_over() {
        let legal: Vec<Square> = pos.legal_moves().iter().collect();
        let claiming: Vec<Square> = legal
            .iter()
            .copied()
            .filter(|&sq| claims_board(&pos, sq))
            .collect();
        let sq = if !claiming.is_empty() && rng.random_bool(0.5) {
            claiming[rng.random_range(0..claiming.len())]
        } else {
            legal[rng.random_range(0..legal.len())]
        };
        pos.play_unchecked(sq);
        moves.push(sq);
    }
    moves
}
