//! A mean score with the variance of that mean, and everything people read off it:
//! Elo ± error, normalized Elo, likelihood of superiority.
//!
//! Whatever produced the estimate (trinomial game counts, pentanomial pair counts or a
//! mix, see [`super::pentanomial`]), the same normal approximation applies
//! (after fastchess `elo_wdl.cpp` /
//! `elo_pentanomial.cpp` and fishtest `stat_util.py`):
//!
//! - score interval `μ ± z·se`, mapped through `Elo(p) = −400·log10(1/p − 1)`;
//!   the ± shown is half the width of the mapped interval, as fastchess prints it;
//! - `nElo = (μ − ½)/σ_game · 800/ln 10`, where `σ_game = se·√N` is the per-game
//!   standard deviation (for pure pentanomial data this is `√(2·σ²_pair)`);
//! - `LOS = Φ((μ − ½)/se)`, which counts draws (fastchess PR #223), unlike the older
//!   draw-blind `½ + ½·erf((W − L)/√(2(W + L)))` of cutechess.

use super::elo::{Confidence, NELO_PER_T, elo_from_score, prob_positive};

/// A closed interval `[low, high]`; bounds may be infinite for Elo.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// The lower bound.
    pub low: f64,
    /// The upper bound.
    pub high: f64,
}

impl Interval {
    /// Half the width: the "±" people read. Infinite when either bound is.
    pub fn half_width(self) -> f64 {
        if self.low.is_infinite() || self.high.is_infinite() {
            f64::INFINITY
        } else {
            (self.high - self.low) / 2.0
        }
    }

    /// Whether `value` lies inside (bounds included).
    pub fn contains(self, value: f64) -> bool {
        self.low <= value && value <= self.high
    }
}

/// The mean score per game of one side and the sampling variance of that mean.
///
/// Built only from at least one game, so the mean is always defined.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScoreEstimate {
    games: u64,
    score: f64,
    variance: f64,
}

impl ScoreEstimate {
    /// An estimate from `games` games with mean `score` and variance of the mean
    /// `variance`. `None` for zero games or values outside their ranges.
    pub(crate) fn new(games: u64, score: f64, variance: f64) -> Option<ScoreEstimate> {
        let valid = games > 0 && (0.0..=1.0).contains(&score) && variance >= 0.0;
        valid.then_some(ScoreEstimate {
            games,
            score,
            variance,
        })
    }

    /// The number of games behind the estimate.
    pub fn games(&self) -> u64 {
        self.games
    }

    /// The mean score per game, 0 to 1.
    pub fn score(&self) -> f64 {
        self.score
    }

    /// The standard error of the mean score.
    pub fn std_error(&self) -> f64 {
        self.variance.sqrt()
    }

    /// The per-game standard deviation `se·√N` the nElo scale divides by.
    pub fn per_game_sd(&self) -> f64 {
        (self.variance * self.games as f64).sqrt()
    }

    /// The score interval `μ ± z·se`, clipped to `[0, 1]`.
    pub fn score_interval(&self, confidence: Confidence) -> Interval {
        let half = confidence.z() * self.std_error();
        Interval {
            low: (self.score - half).clamp(0.0, 1.0),
            high: (self.score + half).clamp(0.0, 1.0),
        }
    }

    /// The Elo difference of the mean score; ±∞ for a perfect or zero score.
    pub fn elo(&self) -> f64 {
        elo_from_score(self.score)
    }

    /// The score interval mapped to Elo. Asymmetric, and infinite at a bound that
    /// reaches a score of 0 or 1.
    pub fn elo_interval(&self, confidence: Confidence) -> Interval {
        let s = self.score_interval(confidence);
        Interval {
            low: elo_from_score(s.low),
            high: elo_from_score(s.high),
        }
    }

    /// The "±" of the Elo difference: half the width of [`Self::elo_interval`].
    pub fn elo_error(&self, confidence: Confidence) -> f64 {
        self.elo_interval(confidence).half_width()
    }

    /// Normalized Elo: `(μ − ½)/σ_game · 800/ln 10`. Zero for an even score; ±∞
    /// when there is no spread at all but the score is not even.
    pub fn nelo(&self) -> f64 {
        let sd = self.per_game_sd();
        let excess = self.score - 0.5;
        if sd > 0.0 {
            excess / sd * NELO_PER_T
        } else if excess == 0.0 {
            0.0
        } else {
            f64::INFINITY.copysign(excess)
        }
    }

    /// The "±" of normalized Elo. The score interval maps linearly onto nElo, so this
    /// is `z/√N · 800/ln 10` whatever the results: nElo is a t-value by design.
    pub fn nelo_error(&self, confidence: Confidence) -> f64 {
        confidence.z() / (self.games as f64).sqrt() * NELO_PER_T
    }

    /// Likelihood of superiority: `Φ((μ − ½)/se)`, the probability under the normal
    /// approximation that this side is the stronger one.
    pub fn los(&self) -> f64 {
        prob_positive(self.score - 0.5, self.std_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perfect_scores_have_infinite_elo_and_no_nan() {
        let est = ScoreEstimate::new(4, 1.0, 0.0).unwrap();
        assert_eq!(est.elo(), f64::INFINITY);
        assert_eq!(est.elo_error(Confidence::P95), f64::INFINITY);
        assert_eq!(est.nelo(), f64::INFINITY);
        assert_eq!(est.los(), 1.0);
    }

    #[test]
    fn zero_games_is_not_an_estimate() {
        assert!(ScoreEstimate::new(0, 0.5, 0.0).is_none());
        assert!(ScoreEstimate::new(1, 1.5, 0.0).is_none());
    }

    #[test]
    fn nelo_error_depends_only_on_the_number_of_games() {
        // 1.959964 / √100 · 347.4356 = 68.0963
        let est = ScoreEstimate::new(100, 0.6, 0.001).unwrap();
        assert!((est.nelo_error(Confidence::P95) - 68.096_3).abs() < 1e-3);
    }
}
