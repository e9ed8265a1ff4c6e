//! The logistic Elo scale, the normal distribution helpers every other module uses, and
//! the validated [`Confidence`] level.
//!
//! Conventions (as in cutechess `elo.cpp` and fishtest `stat_util.py`): `Elo(p) = −400·log10(1/p − 1)` maps an
//! expected score `p` to an Elo difference; its inverse is `p = 1/(1 + 10^(−elo/400))`.
//! Internally the fits work in natural log-odds ("nats"), which are Elo times
//! `ln 10 / 400`.

use std::fmt;

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// Elo points per unit of natural log-odds: `400 / ln 10` ≈ 173.72.
pub const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// Normalized-Elo points per unit of t-value: `800 / ln 10` ≈ 347.44. One nElo is
/// one Elo when the per-game standard deviation is ½, i.e. with no draws
/// (fishtest `LLRcalc.nelo_divided_by_nt`; Van den Bergh, "Comments on Normalized
/// Elo", <https://www.cantate.be/Fishtest/normalized_elo_practical.pdf>).
pub const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// The Elo difference whose expected score is `score`: `−400·log10(1/score − 1)`.
///
/// Scores of 0 and 1 (and anything outside) map to −∞ and +∞: a perfect score has no
/// finite Elo, and callers show it as such rather than invent a number.
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// The expected score of a player `elo` points stronger: `1/(1 + 10^(−elo/400))`.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The logistic function `1/(1 + e^(−x))`, written to stay accurate for large |x|.
pub(crate) fn logistic(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// `ln(logistic(x))`, accurate for large |x| (no `ln(0)`).
pub(crate) fn ln_logistic(x: f64) -> f64 {
    if x >= 0.0 {
        -(-x).exp().ln_1p()
    } else {
        x - x.exp().ln_1p()
    }
}

/// The standard normal CDF Φ(x), from statrs.
pub fn normal_cdf(x: f64) -> f64 {
    Normal::standard().cdf(x)
}

/// `Φ(mean / sd)`: the probability that a normal quantity with this mean and
/// standard deviation is positive. A zero `sd` gives the limit: 1, 0 or ½.
pub(crate) fn prob_positive(mean: f64, sd: f64) -> f64 {
    if sd > 0.0 && sd.is_finite() {
        normal_cdf(mean / sd)
    } else if mean > 0.0 {
        1.0
    } else if mean < 0.0 {
        0.0
    } else {
        0.5
    }
}

/// Degrees of freedom beyond which [`Confidence::t`] is `z`: there they differ by
/// less than 3·10⁻⁴ at 95%, while statrs's numerical inversion of Student's t goes
/// wrong at very many (1.83 instead of 1.96 at 10⁷).
pub const T_AS_Z_BEYOND: f64 = 1e4;

/// A two-sided confidence level strictly between 0 and 1, such as 95%.
///
/// Checked once at construction, so the normal quantile behind [`Confidence::z`]
/// (which panics outside `[0, 1]` in statrs) is always defined.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Confidence(f64);

impl Confidence {
    /// The 95% level every table and CSV file uses unless told otherwise.
    pub const P95: Confidence = Confidence(0.95);

    /// A level such as `0.95`.
    ///
    /// # Errors
    /// The level is not strictly between 0 and 1 (or is NaN).
    pub fn new(level: f64) -> Result<Confidence, InvalidConfidence> {
        if level > 0.0 && level < 1.0 {
            Ok(Confidence(level))
        } else {
            Err(InvalidConfidence(level))
        }
    }

    /// The level as a fraction, e.g. `0.95`.
    pub fn level(self) -> f64 {
        self.0
    }

    /// The two-sided normal quantile `Φ⁻¹(1 − (1 − level)/2)`: 1.959964 for 95%.
    pub fn z(self) -> f64 {
        Normal::standard().inverse_cdf(0.5 + self.0 / 2.0)
    }

    /// The two-sided quantile of Student's t with `df` degrees of freedom: the
    /// multiplier for an estimate whose scale is itself estimated from `df`
    /// degrees of freedom (12.706 for 95% at 1, 2.009 at 50, [`Confidence::z`] in
    /// the limit). Degrees of freedom that are not positive, or above
    /// [`T_AS_Z_BEYOND`], give `z`.
    pub fn t(self, df: f64) -> f64 {
        match StudentsT::new(0.0, 1.0, df) {
            Ok(t) if df <= T_AS_Z_BEYOND => t.inverse_cdf(0.5 + self.0 / 2.0),
            _ => self.z(),
        }
    }
}

impl Default for Confidence {
    fn default() -> Self {
        Confidence::P95
    }
}

impl fmt::Display for Confidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}%", self.0 * 100.0)
    }
}

/// A confidence level outside (0, 1).
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[error("confidence level {0} is not between 0 and 1 (exclusive): write e.g. 0.95")]
pub struct InvalidConfidence(pub f64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_and_score_are_inverse() {
        for elo in [-800.0, -200.0, -1.0, 0.0, 3.5, 400.0] {
            let back = elo_from_score(score_from_elo(elo));
            assert!((back - elo).abs() < 1e-9, "{elo} -> {back}");
        }
    }

    #[test]
    fn elo_of_hand_scores() {
        // 400 Elo stronger: 10^(400/400) = 10 to 1 odds, so p = 10/11.
        assert!((score_from_elo(400.0) - 10.0 / 11.0).abs() < 1e-15);
        // p = 0.75: 1/p − 1 = 1/3, −400·log10(1/3) = 400·0.477121 = 190.8485.
        assert!((elo_from_score(0.75) - 190.848_501_887_864_9).abs() < 1e-9);
        assert_eq!(elo_from_score(0.5), 0.0);
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
    }

    #[test]
    fn logistic_helpers_match_the_naive_formula_and_stay_finite() {
        for x in [-30.0, -2.0, 0.0, 0.7, 30.0] {
            let naive = 1.0 / (1.0 + f64::exp(-x));
            assert!((logistic(x) - naive).abs() < 1e-15);
            assert!((ln_logistic(x) - naive.ln()).abs() < 1e-12);
        }
        assert!(ln_logistic(-800.0).is_finite());
        // Natural units and Elo agree: logistic(elo / ELO_PER_NAT) = score_from_elo(elo).
        assert!((logistic(150.0 / ELO_PER_NAT) - score_from_elo(150.0)).abs() < 1e-15);
    }

    #[test]
    fn confidence_gives_the_usual_z_and_rejects_bad_levels() {
        assert!((Confidence::P95.z() - 1.959_963_984_540_054).abs() < 1e-9);
        assert!((Confidence::new(0.99).unwrap().z() - 2.575_829).abs() < 1e-6);
        // Student's t: the tables' values, and z once the scale is known.
        assert!((Confidence::P95.t(1.0) - 12.706_2).abs() < 1e-3);
        assert!((Confidence::P95.t(50.0) - 2.008_6).abs() < 1e-3);
        assert!((Confidence::P95.t(T_AS_Z_BEYOND) - Confidence::P95.z()).abs() < 3e-4);
        assert!((Confidence::P95.t(1e7) - Confidence::P95.z()).abs() < 1e-12);
        assert_eq!(Confidence::P95.t(0.0), Confidence::P95.z());
        assert_eq!(Confidence::P95.t(f64::INFINITY), Confidence::P95.z());
        assert!(Confidence::new(1.0).is_err());
        assert!(Confidence::new(0.0).is_err());
        assert!(Confidence::new(f64::NAN).is_err());
    }

    #[test]
    fn prob_positive_handles_zero_spread() {
        assert_eq!(prob_positive(1.0, 0.0), 1.0);
        assert_eq!(prob_positive(-1.0, 0.0), 0.0);
        assert_eq!(prob_positive(0.0, 0.0), 0.5);
        assert!((prob_positive(1.0, 1.0) - 0.841_344_746).abs() < 1e-8);
    }
}
