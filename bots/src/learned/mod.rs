//! A learned value: the chance that the side to move wins (a draw counting half),
//! as a logistic model over sparse board features ([`features`]).
//!
//! The weights were fitted to the results of `mcts` self-play games by
//! `cargo run --release -p bots --example train_value` (see bots/BENCHMARKS.md), and
//! ship inside the binary, so a bot needs no file at run time. There is one set of
//! weights per [`Model`]: the standard rules, `most-boards` (where a game with no
//! line is won on boards, so the same features are worth different amounts) and
//! `open-won-boards` (where won boards stay in play). Under `draws-count-both` the
//! standard model serves, because the features already count drawn boards for both
//! sides there (bots/BENCHMARKS.md has the measurements behind each choice).
//! Combinations of house rules have no model: the hand-written evaluation serves
//! them.

pub mod features;

use std::sync::OnceLock;

use uttt::rules::{Position, Rules, Variant};

use features::{MAX_ACTIVE, WEIGHTS, active};

/// Weights are stored as little-endian `i16` in units of 1/[`SCALE`].
pub const SCALE: f32 = 1024.0;

/// A set of fitted weights, named by the rules it was fitted to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Model {
    /// Fitted to self-play under the standard rules.
    Standard,
    /// Fitted to self-play under `most-boards` alone.
    MostBoards,
    /// Fitted to self-play under `open-won-boards` alone.
    OpenWonBoards,
}

impl Model {
    /// Every model.
    pub const ALL: [Model; 3] = [Model::Standard, Model::MostBoards, Model::OpenWonBoards];

    /// The model that serves `rules`, if one does: the one fitted to them, or for
    /// `draws-count-both` the standard one (measured in bots/BENCHMARKS.md).
    pub fn for_rules(rules: Rules) -> Option<Model> {
        let only = |variant| rules == Rules::STANDARD.with(variant);
        if rules.is_standard() || only(Variant::DrawsCountBoth) {
            Some(Model::Standard)
        } else if only(Variant::MostBoards) {
            Some(Model::MostBoards)
        } else if only(Variant::OpenWonBoards) {
            Some(Model::OpenWonBoards)
        } else {
            None
        }
    }

    /// The stored weights.
    fn stored(self) -> &'static [u8] {
        match self {
            Model::Standard => include_bytes!("weights.bin"),
            Model::MostBoards => include_bytes!("weights_most_boards.bin"),
            Model::OpenWonBoards => include_bytes!("weights_open_won_boards.bin"),
        }
    }

    /// The weights, decoded once. A file of the wrong length (weights from another
    /// feature layout) gives all zeros, a value of ½ everywhere; a test guards it.
    fn weights(self) -> &'static [f32] {
        static DECODED: [OnceLock<Vec<f32>>; 3] = [const { OnceLock::new() }; 3];
        let slot = match self {
            Model::Standard => &DECODED[0],
            Model::MostBoards => &DECODED[1],
            Model::OpenWonBoards => &DECODED[2],
        };
        slot.get_or_init(|| decode(self.stored()).unwrap_or_else(|| vec![0.0; WEIGHTS]))
    }
}

/// The weights in `bytes`, if it holds exactly [`WEIGHTS`] of them.
pub fn decode(bytes: &[u8]) -> Option<Vec<f32>> {
    (bytes.len() == 2 * WEIGHTS).then(|| {
        bytes
            .chunks_exact(2)
            .map(|c| f32::from(i16::from_le_bytes([c[0], c[1]])) / SCALE)
            .collect()
    })
}

/// `weights` as the stored bytes (rounded to the stored precision, clamped).
pub fn encode(weights: &[f32]) -> Vec<u8> {
    weights
        .iter()
        .flat_map(|w| {
            let q = (w * SCALE)
                .round()
                .clamp(f32::from(i16::MIN), f32::from(i16::MAX));
            (q as i16).to_le_bytes()
        })
        .collect()
}

/// The model's raw score (log-odds) under `weights` of a position that switches
/// on the weights `on` (from [`features::active`]).
#[inline]
pub fn logit(weights: &[f32], on: &[u32]) -> f32 {
    on.iter().map(|&i| weights[i as usize]).sum()
}

/// The chance (0..1) that the side to move of `pos` (not over) wins, a draw
/// counting half, by the model of its rules (the standard model for rules that
/// have none: callers check [`Model::for_rules`] first).
#[inline]
pub fn value(pos: &Position) -> f32 {
    let model = Model::for_rules(pos.rules()).unwrap_or(Model::Standard);
    let mut on = [0u32; MAX_ACTIVE];
    let n = active(pos, &mut on);
    sigmoid(logit(model.weights(), &on[..n]))
}

/// The model's log-odds for the side to move of `pos` (not over).
#[inline]
pub fn log_odds(pos: &Position) -> f32 {
    let model = Model::for_rules(pos.rules()).unwrap_or(Model::Standard);
    let mut on = [0u32; MAX_ACTIVE];
    let n = active(pos, &mut on);
    logit(model.weights(), &on[..n])
}

/// The logistic function.
#[inline]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_weights_fit_the_feature_layout() {
        for model in Model::ALL {
            assert_eq!(model.stored().len(), 2 * WEIGHTS, "retrain {model:?}");
        }
    }

    #[test]
    fn each_single_rule_set_has_a_model_and_combinations_have_none() {
        let with = |variant| Rules::STANDARD.with(variant);
        let served = [
            (Rules::STANDARD, Model::Standard),
            (with(Variant::DrawsCountBoth), Model::Standard),
            (with(Variant::MostBoards), Model::MostBoards),
            (with(Variant::OpenWonBoards), Model::OpenWonBoards),
        ];
        for (rules, model) in served {
            assert_eq!(Model::for_rules(rules), Some(model), "{rules}");
        }
        for combination in [
            with(Variant::MostBoards).with(Variant::OpenWonBoards),
            with(Variant::MostBoards).with(Variant::DrawsCountBoth),
            with(Variant::OpenWonBoards).with(Variant::DrawsCountBoth),
        ] {
            assert_eq!(Model::for_rules(combination), None, "{combination}");
        }
        for (i, a) in Model::ALL.iter().enumerate() {
            for b in &Model::ALL[i + 1..] {
                assert_ne!(a.weights(), b.weights(), "{a:?} and {b:?}");
            }
        }
    }

    use crate::fixtures::{self, LOSING_IN_BOARD_2, X_MUST_NOT_SEND_TO_BOARD_9, X_WINS_WITH_I7};

    #[test]
    fn a_side_that_can_win_at_once_is_almost_sure_to_win() {
        let x_wins = fixtures::position(X_WINS_WITH_I7);
        assert!(value(&x_wins) > 0.9, "{}", value(&x_wins));
        // After any of X's losing moves, O to move wins at once.
        let before = fixtures::position(X_MUST_NOT_SEND_TO_BOARD_9);
        for m in LOSING_IN_BOARD_2 {
            let after = before.play(fixtures::square(m)).unwrap();
            assert!(value(&after) > 0.9, "{m}: {}", value(&after));
        }
    }

    #[test]
    fn the_empty_board_favours_x_without_deciding_the_game() {
        // X scores about 57% in the self-play games the weights were fitted to.
        let start = value(&Position::new(Rules::STANDARD));
        assert!((0.5..0.8).contains(&start), "{start}");
    }

    #[test]
    fn encoding_round_trips_to_the_stored_precision() {
        let w = [0.0, 1.5, -2.25, 0.001, 40.0];
        let back = decode(&{
            let mut all = vec![0.0; WEIGHTS];
            all[..5].copy_from_slice(&w);
            encode(&all)
        })
        .unwrap();
        assert_eq!(&back[..3], &w[..3]);
        assert!((back[3] - 0.001).abs() < 1.0 / SCALE);
        assert!((back[4] - 32767.0 / SCALE).abs() < 1e-6, "clamped");
    }
}
