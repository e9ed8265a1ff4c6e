//! Perft: the number of move sequences of a given length, the standard check that
//! move generation and game-end detection are exactly right.

use super::{Position, Square};

/// Number of legal move sequences of `depth` plies from `pos`. A finished game is
/// not expanded. The last ply is counted in bulk (the size of the legal-move set),
/// which is what makes this fast enough to be the engine's benchmark.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    let moves = pos.legal_moves();
    match depth {
        0 => 1,
        1 => moves.len() as u64,
        2 => moves
            .iter()
            .map(|sq| u64::from(pos.legal_count_after(sq)))
            .sum(),
        _ => moves
            .iter()
            .map(|sq| {
                let mut next = *pos;
                next.play_unchecked(sq);
                perft(&next, depth - 1)
            })
            .sum(),
    }
}

/// Perft split by first move: each legal move of `pos` with the perft of the
/// position after it, at `depth - 1`. For finding where two move generators
/// disagree.
pub fn perft_divide(pos: &Position, depth: u32) -> Vec<(Square, u64)> {
    pos.legal_moves()
        .iter()
        .map(|sq| {
            let mut next = *pos;
            next.play_unchecked(sq);
            (sq, perft(&next, depth.saturating_sub(1)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Rules, Variant};

    const STANDARD: [u64; 6] = [81, 720, 6336, 55080, 473256, 4020960];

    #[test]
    fn perft_standard_depths_1_to_5() {
        let pos = Position::new(Rules::STANDARD);
        for (d, &n) in STANDARD.iter().enumerate().take(5) {
            assert_eq!(perft(&pos, d as u32 + 1), n, "depth {}", d + 1);
        }
    }

    /// The bulk count agrees with building the child, on random positions of every
    /// rules combination.
    #[test]
    fn legal_count_after_matches_the_child_position() {
        use rand::{Rng as _, SeedableRng as _, rngs::StdRng};
        let mut rng = StdRng::seed_from_u64(9);
        let variants = [
            Variant::OpenWonBoards,
            Variant::DrawsCountBoth,
            Variant::MostBoards,
        ];
        for bits in 0..8u8 {
            let rules = (0..3)
                .filter(|i| bits >> i & 1 == 1)
                .fold(Rules::STANDARD, |r, i| r.with(variants[i]));
            for _ in 0..300 {
                let mut pos = Position::new(rules);
                while !pos.is_over() {
                    for sq in pos.legal_moves() {
                        let child = pos.after_unchecked(sq);
                        assert_eq!(
                            pos.legal_count_after(sq) as usize,
                            child.legal_moves().len()
                        );
                    }
                    let legal = pos.legal_moves();
                    let pick = legal.nth(rng.random_range(0..legal.len())).unwrap();
                    pos.play_unchecked(pick);
                }
            }
        }
    }

    #[test]
    fn divide_sums_to_perft() {
        let pos = Position::new(Rules::STANDARD);
        let total: u64 = perft_divide(&pos, 4).iter().map(|(_, n)| n).sum();
        assert_eq!(total, 55080);
    }

    #[test]
    fn open_won_boards_matches_standard_until_depth_5() {
        let pos = Position::new(Rules::STANDARD.with(Variant::OpenWonBoards));
        assert_eq!(perft(&pos, 5), 473256);
    }
}
