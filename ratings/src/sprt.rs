//! The sequential probability ratio test: play until the data say "better by at
//! least elo1" (H1) or "not better than elo0" (H0), with error rates α and β.
//!
//! # Statistic
//! The generalized SPRT (GSPRT) of fishtest and fastchess (fishtest
//! `server/fishtest/stats/LLRcalc.py`: `LLR_logistic`, `LLR_normalized`, `MLE_expected`,
//! `MLE_t_value`; fastchess `app/src/matchmaking/sprt/sprt.cpp`). With `p̂` the observed distribution of the outcome scores `aᵢ`
//! (pentanomial pairs `0, ¼, ½, ¾, 1`, or trinomial games `0, ½, 1`) and `N` the count,
//!
//! `LLR = N · Σᵢ p̂ᵢ · ln(p1ᵢ / p0ᵢ)`,
//!
//! where `pⱼ` is the distribution closest to `p̂` (maximum likelihood) that satisfies
//! hypothesis j:
//!
//! - [`EloModel::Logistic`]: mean score `sⱼ = 1/(1 + 10^(−eloⱼ/400))`. Then
//!   `pᵢ = p̂ᵢ/(1 + θ(aᵢ − sⱼ))` with θ the root of `Σ p̂ᵢ(aᵢ − sⱼ)/(1 + θ(aᵢ − sⱼ)) = 0`.
//! - [`EloModel::Normalized`]: `(μ − ½)/σ = tⱼ`, `tⱼ = nEloⱼ/(800/ln 10)`, times √2 for
//!   pair scores (a pair's σ is the per-game σ over √2). Solved by the fixed-point
//!   iteration of `MLE_t_value`: `φᵢ = aᵢ − ½ − ½·t·σ·(1 + ((aᵢ − μ)/σ)²)` from the
//!   current μ, σ, then `pᵢ = p̂ᵢ/(1 + θφᵢ)` with θ the root of `Σ p̂ᵢφᵢ/(1 + θφᵢ) = 0`,
//!   repeated until it settles. Normalized Elo makes the test's length depend on the
//!   bounds, not on the draw rate (Van den Bergh, "Comments on Normalized Elo",
//!   <https://www.cantate.be/Fishtest/normalized_elo_practical.pdf>); it is fastchess's
//!   default.
//!
//! Like both tools, zero counts are replaced by `1e-3` first, so that `p̂` has full
//! support and every logarithm is finite.
//!
//! # Bounds
//! Wald's: accept H0 when `LLR ≤ ln(β/(1 − α))`, H1 when `LLR ≥ ln((1 − β)/α)`
//! (±2.944 for α = β = 0.05). No overshoot correction is applied. The error rates are
//! approximately α and β: overshoot at each check pushes them down, while the GSPRT
//! fits its nuisance parameters (the draw and pair distribution) from the data, which
//! can push them up a little. The simulations in this module's tests (2000 tests per
//! hypothesis, checks every 8 pairs) gave 4.2–5.5% for α = β = 5%.
//!
//! # Use
//! `arena sprt` keeps the [`Pentanomial`] of the candidate against the baseline
//! (complete colour-swapped pairs only; see [`super::totals::pairings`]), calls
//! [`SprtConfig::status`] after every finished pair and stops on a decision.

use std::fmt;

use super::elo::{NELO_PER_T, score_from_elo};
use super::estimate::ScoreEstimate;
use super::pentanomial::{PairOutcome, Pentanomial};

/// Zero counts become this before the statistic is computed (fishtest
/// `LLRcalc.regularize`, fastchess).
pub const ZERO_COUNT: f64 = 1e-3;

const MAX_FIXED_POINT_STEPS: usize = 100;

/// What elo0 and elo1 measure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EloModel {
    /// Logistic Elo: differences in expected score.
    Logistic,
    /// Normalized Elo (nElo): the expected score's excess over ½ per unit of
    /// per-game standard deviation, scaled by 800/ln 10. fastchess's default.
    #[default]
    Normalized,
}

impl fmt::Display for EloModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EloModel::Logistic => "logistic",
            EloModel::Normalized => "normalized",
        })
    }
}

/// A validated SPRT: `elo0 < elo1`, `0 < α, β` and `α + β < 1`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtConfig {
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
    model: EloModel,
}

/// Why an SPRT configuration was refused.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum SprtConfigError {
    /// elo0 is not below elo1, or one is not finite.
    #[error("elo0 ({elo0}) must be below elo1 ({elo1}): e.g. elo0=0 elo1=5")]
    Bounds {
        /// The given elo0.
        elo0: f64,
        /// The given elo1.
        elo1: f64,
    },
    /// An error rate outside (0, 1), or α + β ≥ 1.
    #[error(
        "alpha ({alpha}) and beta ({beta}) must be between 0 and 1 with alpha + beta < 1: \
         e.g. alpha=0.05 beta=0.05"
    )]
    ErrorRates {
        /// The given α.
        alpha: f64,
        /// The given β.
        beta: f64,
    },
}

/// Wald's stopping bounds on the LLR.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// `ln(β/(1 − α))`: at or below, accept H0.
    pub lower: f64,
    /// `ln((1 − β)/α)`: at or above, accept H1.
    pub upper: f64,
}

/// Where the test stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SprtDecision {
    /// Not better than elo0: the candidate fails.
    AcceptH0,
    /// Better by at least elo1: the candidate passes.
    AcceptH1,
    /// Keep playing.
    Continue,
}

/// The LLR, its bounds, the decision and the Elo estimate to show while it runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtStatus {
    /// The log-likelihood ratio.
    pub llr: f64,
    /// The bounds it is compared with.
    pub bounds: Bounds,
    /// The decision.
    pub decision: SprtDecision,
    /// The candidate's pentanomial score estimate (Elo ±, nElo ±, LOS), `None`
    /// before the first complete pair. Naive: it ignores the optional stopping, so
    /// after a decision it is biased away from the boundary it did not hit (fishtest
    /// reports a median-unbiased estimate for that reason, `stats/sprt.py`).
    pub estimate: Option<ScoreEstimate>,
}

impl SprtConfig {
    /// A test of H0: `elo ≤ elo0` against H1: `elo ≥ elo1`, in `model` units.
    ///
    /// # Errors
    /// `elo0 ≥ elo1` or not finite; α or β outside (0, 1) or `α + β ≥ 1`.
    pub fn new(
        elo0: f64,
        elo1: f64,
        alpha: f64,
        beta: f64,
        model: EloModel,
    ) -> Result<SprtConfig, SprtConfigError> {
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
            return Err(SprtConfigError::Bounds { elo0, elo1 });
        }
        let rate_ok = |r: f64| r > 0.0 && r < 1.0;
        if !(rate_ok(alpha) && rate_ok(beta) && alpha + beta < 1.0) {
            return Err(SprtConfigError::ErrorRates { alpha, beta });
        }
        Ok(SprtConfig {
            elo0,
            elo1,
            alpha,
            beta,
            model,
        })
    }

    /// elo0.
    pub fn elo0(&self) -> f64 {
        self.elo0
    }

    /// elo1.
    pub fn elo1(&self) -> f64 {
        self.elo1
    }

    /// α, the chance of accepting H1 when H0 holds.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// β, the chance of accepting H0 when H1 holds.
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// What elo0 and elo1 measure.
    pub fn model(&self) -> EloModel {
        self.model
    }

    /// Wald's bounds from α and β.
    pub fn bounds(&self) -> Bounds {
        Bounds {
            lower: (self.beta / (1.0 - self.alpha)).ln(),
            upper: ((1.0 - self.beta) / self.alpha).ln(),
        }
    }

    /// The LLR of pentanomial pair counts. 0 with no pairs.
    pub fn llr(&self, pairs: &Pentanomial) -> f64 {
        let counts = pairs.counts();
        let scores = PairOutcome::ALL.map(PairOutcome::score);
        self.llr_of(&scores, &counts, std::f64::consts::SQRT_2)
    }

    /// The full status after `pairs`.
    pub fn status(&self, pairs: &Pentanomial) -> SprtStatus {
        let llr = self.llr(pairs);
        let bounds = self.bounds();
        let decision = if llr >= bounds.upper {
            SprtDecision::AcceptH1
        } else if llr <= bounds.lower {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        };
        SprtStatus {
            llr,
            bounds,
            decision,
            estimate: pairs.estimate(),
        }
    }

    /// The test checked only after each batch, as a distributed test is (fishtest
    /// checks its LLR when a worker's batch arrives): the status over all pairs up
    /// to and including each batch, in the order given, ending with the first batch
    /// that decides. The sequential test over the same games would stop within a
    /// batch instead; checked at the batch ends it decides at the same batch.
    pub fn after_batches(&self, batches: impl IntoIterator<Item = Pentanomial>) -> Vec<SprtStatus> {
        let mut total = [0u64; 5];
        let mut statuses = Vec::new();
        for batch in batches {
            for (sum, count) in total.iter_mut().zip(batch.counts()) {
                *sum += count;
            }
            let status = self.status(&Pentanomial::new(total));
            statuses.push(status);
            if status.decision != SprtDecision::Continue {
                break;
            }
        }
        statuses
    }

    /// `t_scale` converts per-game t-values to the unit's (√2 for pairs).
    fn llr_of(&self, scores: &[f64], counts: &[u64], t_scale: f64) -> f64 {
        if counts.iter().all(|&c| c == 0) {
            return 0.0;
        }
        let regularised: Vec<f64> = counts
            .iter()
            .map(|&c| if c == 0 { ZERO_COUNT } else { c as f64 })
            .collect();
        let n: f64 = regularised.iter().sum();
        let observed: Vec<f64> = regularised.iter().map(|c| c / n).collect();
        let fit = |elo: f64| match self.model {
            EloModel::Logistic => closest_with_mean(&observed, scores, score_from_elo(elo)),
            EloModel::Normalized => closest_with_t(&observed, scores, elo / NELO_PER_T * t_scale),
        };
        let (p0, p1) = (fit(self.elo0), fit(self.elo1));
        n * observed
            .iter()
            .zip(p0.iter().zip(&p1))
            .map(|(q, (a, b))| q * (b / a).ln())
            .sum::<f64>()
    }
}

/// The distribution `pᵢ = p̂ᵢ/(1 + θ(aᵢ − s))` with mean `s`: the maximum-likelihood
/// distribution under a mean constraint (fishtest `MLE_expected`).
fn closest_with_mean(observed: &[f64], scores: &[f64], s: f64) -> Vec<f64> {
    let shifted: Vec<f64> = scores.iter().map(|a| a - s).collect();
    match secular_root(observed, &shifted) {
        Some(theta) => reweight(observed, &shifted, theta),
        None => observed.to_vec(),
    }
}

/// The maximum-likelihood distribution with `(μ − ½)/σ = t` (fishtest `MLE_t_value`):
/// fixed-point iteration until the distribution stops changing.
///
/// The iteration evaluates μ and σ at its current distribution. Started from `p̂`
/// itself, it cannot take a first step when `p̂` is extreme (e.g. every pair lost:
/// σ is tiny and no reweighting of `p̂` reaches `t`); it then restarts from `p̂`
/// mixed with the uniform distribution, and from the distribution with mean ½.
/// The first start whose result meets the constraint wins.
fn closest_with_t(observed: &[f64], scores: &[f64], t: f64) -> Vec<f64> {
    let uniform = 1.0 / observed.len() as f64;
    let starts = [
        observed.to_vec(),
        observed.iter().map(|q| 0.5 * q + 0.5 * uniform).collect(),
        closest_with_mean(observed, scores, 0.5),
    ];
    let mut best: Option<(f64, Vec<f64>)> = None;
    for start in starts {
        let p = t_fixed_point(observed, scores, t, start);
        let miss = (t_value(&p, scores) - t).abs();
        if miss < 1e-9 {
            return p;
        }
        if best.as_ref().is_none_or(|(m, _)| miss < *m) {
            best = Some((miss, p));
        }
    }
    best.map_or_else(|| observed.to_vec(), |(_, p)| p)
}

/// Mean and variance of the distribution `p` over `scores`.
fn mean_var(p: &[f64], scores: &[f64]) -> (f64, f64) {
    let mu: f64 = p.iter().zip(scores).map(|(p, a)| p * a).sum();
    let var = p
        .iter()
        .zip(scores)
        .map(|(p, a)| p * (a - mu).powi(2))
        .sum();
    (mu, var)
}

/// `(μ − ½)/σ` of a distribution over `scores` (−∞/+∞/0 when σ is 0).
fn t_value(p: &[f64], scores: &[f64]) -> f64 {
    let (mu, var) = mean_var(p, scores);
    if var > 0.0 {
        (mu - 0.5) / var.sqrt()
    } else {
        f64::INFINITY.copysign(mu - 0.5)
    }
}

fn t_fixed_point(observed: &[f64], scores: &[f64], t: f64, start: Vec<f64>) -> Vec<f64> {
    let mut p = start;
    for _ in 0..MAX_FIXED_POINT_STEPS {
        let (mu, var) = mean_var(&p, scores);
        let sigma = var.sqrt();
        if sigma <= 0.0 {
            break;
        }
        let phi: Vec<f64> = scores
            .iter()
            .map(|a| a - 0.5 - 0.5 * t * sigma * (1.0 + ((a - mu) / sigma).powi(2)))
            .collect();
        let Some(theta) = secular_root(observed, &phi) else {
            break;
        };
        let next = reweight(observed, &phi, theta);
        let change = next
            .iter()
            .zip(&p)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        p = next;
        if change < 1e-15 {
            break;
        }
    }
    p
}

fn reweight(observed: &[f64], v: &[f64], theta: f64) -> Vec<f64> {
    observed
        .iter()
        .zip(v)
        .map(|(q, v)| q / (1.0 + theta * v))
        .collect()
}

/// The root θ of `f(θ) = Σ wᵢvᵢ/(1 + θvᵢ) = 0` on the interval where every
/// `1 + θvᵢ > 0`, i.e. `(−1/max v, −1/min v)`. `f` falls strictly from +∞ to −∞ there,
/// so the root is unique; Newton steps are kept inside a shrinking bracket, with
/// bisection when a step would leave it. `None` unless some `vᵢ` is negative and some
/// positive (then the constraint cannot be met).
fn secular_root(weights: &[f64], v: &[f64]) -> Option<f64> {
    let v_max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let v_min = v.iter().copied().fold(f64::INFINITY, f64::min);
    if !(v_max > 0.0 && v_min < 0.0) {
        return None;
    }
    let (mut lo, mut hi) = (-1.0 / v_max, -1.0 / v_min);
    let mut theta = 0.0;
    for _ in 0..200 {
        let (mut f, mut df) = (0.0, 0.0);
        for (w, v) in weights.iter().zip(v) {
            let z = 1.0 + theta * v;
            f += w * v / z;
            df -= w * v * v / (z * z);
        }
        if f == 0.0 {
            break;
        }
        if f > 0.0 {
            lo = theta;
        } else {
            hi = theta;
        }
        let newton = theta - f / df;
        let next = if newton > lo && newton < hi {
            newton
        } else {
            (lo + hi) / 2.0
        };
        if (next - theta).abs() <= 1e-16 * theta.abs().max(1.0) {
            theta = next;
            break;
        }
        theta = next;
    }
    Some(theta)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Wdl;

    fn config(elo0: f64, elo1: f64, model: EloModel) -> SprtConfig {
        SprtConfig::new(elo0, elo1, 0.05, 0.05, model).unwrap()
    }

    /// Reference LLRs from testdata/sprt_reference.py (Python standard library; it
    /// maximises the Lagrange dual directly instead of using the secular-equation and
    /// fixed-point algorithms above). Columns: counts, elo0, elo1, logistic LLR,
    /// normalized LLR.
    const REFERENCES: [(&[u64], f64, f64, f64, f64); 6] = [
        (
            &[10, 40, 100, 45, 5],
            0.0,
            5.0,
            -0.315_185_699_8,
            -0.161_202_996_4,
        ),
        (
            &[10, 40, 100, 45, 5],
            -5.0,
            0.0,
            -0.084_602_725_6,
            -0.078_397_120_5,
        ),
        (
            &[48, 210, 480, 250, 62],
            0.0,
            2.0,
            0.831_773_864_4,
            0.562_822_175_7,
        ),
        (
            &[3, 0, 11, 9, 2],
            0.0,
            10.0,
            0.274_001_141_6,
            0.225_310_610_2,
        ),
        (&[120, 260, 125], 0.0, 5.0, 0.040_532_596_5, 0.051_016_228_0),
        (
            &[0, 0, 7, 0, 0],
            0.0,
            5.0,
            -0.096_300_502_4,
            -0.001_779_113_0,
        ),
    ];

    impl SprtConfig {
        /// The LLR of trinomial game counts (games not played in pairs): the
        /// general formula checked against the references' three-outcome cases.
        fn llr_trinomial(&self, games: &Wdl) -> f64 {
            let counts = [games.losses, games.draws, games.wins];
            self.llr_of(&[0.0, 0.5, 1.0], &counts, 1.0)
        }
    }

    fn llr(counts: &[u64], c: &SprtConfig) -> f64 {
        match *counts {
            [l, d, w] => c.llr_trinomial(&Wdl {
                wins: w,
                draws: d,
                losses: l,
            }),
            [a, b, m, d, e] => c.llr(&Pentanomial::new([a, b, m, d, e])),
            _ => panic!("3 or 5 counts"),
        }
    }

    #[test]
    fn llr_matches_the_independent_reference() {
        for (counts, elo0, elo1, logistic, normalized) in REFERENCES {
            let got = llr(counts, &config(elo0, elo1, EloModel::Logistic));
            assert!(
                (got - logistic).abs() < 1e-8,
                "{counts:?} logistic {got} vs {logistic}"
            );
            let got = llr(counts, &config(elo0, elo1, EloModel::Normalized));
            assert!(
                (got - normalized).abs() < 1e-8,
                "{counts:?} normalized {got} vs {normalized}"
            );
        }
    }

    #[test]
    fn llr_is_close_to_the_closed_form_approximation() {
        // fishtest LLRcalc.LLR_alt2 (also c-chess-cli `src/sprt.c`), for small
        // differences: N·(s1 − s0)(2ŝ − s0 − s1)/(2σ̂²) over pairs.
        // [10, 40, 100, 45, 5]: ŝ = 98.75/200 = 0.49375, σ̂² = 0.0452734,
        // s0 = ½, s1 = 1/(1 + 10^(−5/400)) = 0.5071945:
        // 200·0.0071945·(0.9875 − 1.0071945)/(2·0.0452734) = −0.31299.
        let got = config(0.0, 5.0, EloModel::Logistic).llr(&Pentanomial::new([10, 40, 100, 45, 5]));
        assert!((got + 0.312_99).abs() < 0.005, "{got}");
    }

    #[test]
    fn bounds_are_walds() {
        // ln(0.05/0.95) = −2.944439, ln(0.95/0.05) = 2.944439.
        let b = config(0.0, 5.0, EloModel::Normalized).bounds();
        assert!((b.lower + 2.944_439).abs() < 1e-6);
        assert!((b.upper - 2.944_439).abs() < 1e-6);
        // α = 0.05, β = 0.10: ln(0.10/0.95) = −2.251292, ln(0.90/0.05) = 2.890372.
        let b = SprtConfig::new(0.0, 5.0, 0.05, 0.10, EloModel::Logistic)
            .unwrap()
            .bounds();
        assert!((b.lower + 2.251_292).abs() < 1e-6);
        assert!((b.upper - 2.890_372).abs() < 1e-6);
    }

    #[test]
    fn bad_configurations_are_refused() {
        assert!(SprtConfig::new(5.0, 0.0, 0.05, 0.05, EloModel::Logistic).is_err());
        assert!(SprtConfig::new(0.0, 0.0, 0.05, 0.05, EloModel::Logistic).is_err());
        assert!(SprtConfig::new(0.0, f64::NAN, 0.05, 0.05, EloModel::Logistic).is_err());
        assert!(SprtConfig::new(0.0, 5.0, 0.0, 0.05, EloModel::Logistic).is_err());
        assert!(SprtConfig::new(0.0, 5.0, 0.6, 0.5, EloModel::Logistic).is_err());
        let err = SprtConfig::new(3.0, 1.0, 0.05, 0.05, EloModel::Normalized).unwrap_err();
        assert_eq!(
            err.to_string(),
            "elo0 (3) must be below elo1 (1): e.g. elo0=0 elo1=5"
        );
    }

    #[test]
    fn decisions_follow_the_bounds() {
        let c = config(0.0, 5.0, EloModel::Normalized);
        let empty = c.status(&Pentanomial::default());
        assert_eq!(
            (empty.llr, empty.decision, empty.estimate),
            (0.0, SprtDecision::Continue, None)
        );
        // Lots of clearly better results: H1.
        let good = c.status(&Pentanomial::new([20, 150, 400, 250, 60]));
        assert_eq!(good.decision, SprtDecision::AcceptH1, "{good:?}");
        assert!(good.estimate.unwrap().elo() > 0.0);
        // Lots of clearly worse results: H0.
        let bad = c.status(&Pentanomial::new([60, 250, 400, 150, 20]));
        assert_eq!(bad.decision, SprtDecision::AcceptH0, "{bad:?}");
        // A mirror image flips the sign of the LLR of a symmetric test.
        let sym = config(-5.0, 5.0, EloModel::Logistic);
        let up = sym.llr(&Pentanomial::new([20, 150, 400, 250, 60]));
        let down = sym.llr(&Pentanomial::new([60, 250, 400, 150, 20]));
        assert!((up + down).abs() < 1e-9, "{up} {down}");
    }

    #[test]
    fn the_logistic_fit_has_the_hypothesised_mean() {
        let observed = [0.05, 0.2, 0.5, 0.2, 0.05];
        let scores = PairOutcome::ALL.map(PairOutcome::score);
        let p = closest_with_mean(&observed, &scores, 0.53);
        let mean: f64 = p.iter().zip(&scores).map(|(p, a)| p * a).sum();
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!((mean - 0.53).abs() < 1e-12);
    }

    #[test]
    fn the_normalized_fit_has_the_hypothesised_t() {
        let observed = [0.05, 0.2, 0.5, 0.2, 0.05];
        let scores = PairOutcome::ALL.map(PairOutcome::score);
        let p = closest_with_t(&observed, &scores, 0.1);
        let mean: f64 = p.iter().zip(&scores).map(|(p, a)| p * a).sum();
        let var: f64 = p
            .iter()
            .zip(&scores)
            .map(|(p, a)| p * (a - mean).powi(2))
            .sum();
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(((mean - 0.5) / var.sqrt() - 0.1).abs() < 1e-10);
    }
}

#[cfg(test)]
mod error_rates {
    //! Whole tests simulated from a known truth: at elo0 H1 is accepted about α of
    //! the time at most, at elo1 H0 about β at most.
    use super::super::simulation::Simulator;
    use super::*;

    /// A typical pair distribution with many even pairs (σ_pair ≈ 0.22).
    const BASE: [f64; 5] = [0.04, 0.22, 0.48, 0.22, 0.04];
    const SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

    /// `BASE` tilted by `exp(λ·a)`.
    fn tilted(lambda: f64) -> [f64; 5] {
        let w: Vec<f64> = BASE
            .iter()
            .zip(SCORES)
            .map(|(b, a)| b * (lambda * a).exp())
            .collect();
        let total: f64 = w.iter().sum();
        [
            w[0] / total,
            w[1] / total,
            w[2] / total,
            w[3] / total,
            w[4] / total,
        ]
    }

    /// The tilt whose `measure` (increasing in λ) equals `target`, by bisection.
    fn solve_tilt(measure: impl Fn(&[f64; 5]) -> f64, target: f64) -> [f64; 5] {
        let (mut lo, mut hi) = (-5.0, 5.0);
        for _ in 0..200 {
            let mid = (lo + hi) / 2.0;
            if measure(&tilted(mid)) < target {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        tilted((lo + hi) / 2.0)
    }

    fn mean(p: &[f64; 5]) -> f64 {
        p.iter().zip(SCORES).map(|(p, a)| p * a).sum()
    }

    /// A pair distribution whose true strength is exactly `elo` in `model` units.
    fn truth(elo: f64, model: EloModel) -> [f64; 5] {
        match model {
            EloModel::Logistic => solve_tilt(mean, score_from_elo(elo)),
            EloModel::Normalized => {
                // Per-game nElo = (μ − ½)/(√2·σ_pair)·800/ln 10.
                let nelo = |p: &[f64; 5]| {
                    let m = mean(p);
                    let var: f64 = p.iter().zip(SCORES).map(|(p, a)| p * (a - m).powi(2)).sum();
                    (m - 0.5) / (2.0 * var).sqrt() * NELO_PER_T
                };
                solve_tilt(nelo, elo)
            }
        }
    }

    /// Runs `runs` SPRTs with pairs drawn from `p`, checking every `batch` pairs;
    /// returns how many accepted H0, accepted H1, and the mean number of pairs.
    fn run(config: &SprtConfig, p: &[f64; 5], runs: u32, seed: u64) -> (u32, u32, f64) {
        const BATCH: u64 = 8;
        const MAX_PAIRS: u64 = 40_000;
        let mut sim = Simulator::new(seed, 0.0);
        let (mut h0, mut h1, mut pairs_total) = (0, 0, 0u64);
        for _ in 0..runs {
            let mut counts = Pentanomial::default();
            loop {
                for _ in 0..BATCH {
                    let u = sim.uniform();
                    let mut acc = 0.0;
                    let mut outcome = PairOutcome::WinWin;
                    for (o, q) in PairOutcome::ALL.iter().zip(p) {
                        acc += q;
                        if u < acc {
                            outcome = *o;
                            break;
                        }
                    }
                    counts.add(outcome);
                }
                match config.status(&counts).decision {
                    SprtDecision::AcceptH0 => h0 += 1,
                    SprtDecision::AcceptH1 => h1 += 1,
                    SprtDecision::Continue if counts.pairs() < MAX_PAIRS => continue,
                    SprtDecision::Continue => {}
                }
                break;
            }
            pairs_total += counts.pairs();
        }
        (h0, h1, pairs_total as f64 / f64::from(runs))
    }

    /// α = β = 0.05 over `runs`: at elo0 at most ~α accept H1, at elo1 at most ~β
    /// accept H0 (bound: 0.05 plus 2.5 binomial standard errors), nearly every run
    /// decides, and a truth well beyond either hypothesis is almost always decided
    /// correctly.
    fn check(model: EloModel, elo0: f64, elo1: f64, runs: u32, seed: u64) {
        let config = SprtConfig::new(elo0, elo1, 0.05, 0.05, model).unwrap();
        let limit = 0.05 + 2.5 * (0.05f64 * 0.95 / f64::from(runs)).sqrt();
        let (h0, h1, len) = run(&config, &truth(elo0, model), runs, seed);
        let false_h1 = f64::from(h1) / f64::from(runs);
        eprintln!("{model} at elo0: H0 {h0}, H1 {h1} of {runs}, mean {len:.0} pairs");
        assert!(false_h1 <= limit, "{model}: H1 accepted {false_h1} at elo0");
        assert!(
            h0 + h1 >= runs - runs / 50,
            "{model}: undecided runs at elo0"
        );
        let (h0, h1, len) = run(&config, &truth(elo1, model), runs, seed + 1);
        let false_h0 = f64::from(h0) / f64::from(runs);
        eprintln!("{model} at elo1: H0 {h0}, H1 {h1} of {runs}, mean {len:.0} pairs");
        assert!(false_h0 <= limit, "{model}: H0 accepted {false_h0} at elo1");
        assert!(
            h0 + h1 >= runs - runs / 50,
            "{model}: undecided runs at elo1"
        );
        // One bound-width beyond each hypothesis the wrong decision is rare (Wald's
        // operating characteristic puts it near α³ ≈ 1e-4): allow 1%.
        let width = elo1 - elo0;
        let (_, h1, _) = run(&config, &truth(elo0 - width, model), runs / 4, seed + 2);
        assert!(
            h1 * 100 <= runs / 4,
            "{model}: H1 accepted {h1} times far below elo0"
        );
        let (h0, _, _) = run(&config, &truth(elo1 + width, model), runs / 4, seed + 3);
        assert!(
            h0 * 100 <= runs / 4,
            "{model}: H0 accepted {h0} times far above elo1"
        );
    }

    #[test]
    fn logistic_error_rates_are_within_alpha_and_beta() {
        check(EloModel::Logistic, 0.0, 15.0, 400, 11);
    }

    #[test]
    fn normalized_error_rates_are_within_alpha_and_beta() {
        check(EloModel::Normalized, 0.0, 20.0, 400, 21);
    }

    #[test]
    #[ignore = "long: 2000 tests per hypothesis, about a minute in debug; run with --ignored"]
    fn error_rates_long_run() {
        check(EloModel::Logistic, 0.0, 10.0, 2000, 31);
        check(EloModel::Normalized, 0.0, 10.0, 2000, 41);
    }
}

#[cfg(test)]
mod extreme_counts {
    use super::*;

    /// Every pair lost (or won) is the strongest possible evidence of a weaker (or
    /// stronger) new version: the LLR must point that way under both models. (A
    /// fixed-point iteration started from the observed counts cannot move for these,
    /// which once made "every pair lost" accept H1.)
    #[test]
    fn one_sided_results_push_the_llr_the_right_way() {
        for model in [EloModel::Normalized, EloModel::Logistic] {
            let config = SprtConfig::new(0.0, 5.0, 0.05, 0.05, model).unwrap();
            let lost = config.llr(&Pentanomial::new([10, 0, 0, 0, 0]));
            let won = config.llr(&Pentanomial::new([0, 0, 0, 0, 10]));
            assert!(lost < 0.0, "{model:?}: all lost gives LLR {lost}");
            assert!(won > 0.0, "{model:?}: all won gives LLR {won}");
            let mostly_lost = config.llr(&Pentanomial::new([20, 2, 0, 0, 0]));
            assert!(mostly_lost < lost, "{model:?}: more losses, lower LLR");
        }
    }
}

#[cfg(test)]
mod batches {
    use super::*;

    fn normalized() -> SprtConfig {
        SprtConfig::new(0.0, 10.0, 0.05, 0.05, EloModel::Normalized).expect("valid test")
    }

    /// Checking after each batch gives the status of all pairs so far, and stops at
    /// the first batch that decides, whatever comes after it.
    #[test]
    fn each_status_covers_every_pair_so_far_and_the_first_decision_ends_it() {
        let config = normalized();
        let batch = Pentanomial::new([1, 3, 8, 5, 3]);
        let winning = Pentanomial::new([0, 1, 4, 8, 7]);
        let statuses = config.after_batches(vec![batch; 3]);
        assert_eq!(statuses.len(), 3);
        for (k, status) in statuses.iter().enumerate() {
            let so_far = Pentanomial::new(batch.counts().map(|c| c * (k as u64 + 1)));
            assert_eq!(*status, config.status(&so_far));
        }
        let many = std::iter::repeat_n(winning, 50).chain(std::iter::repeat_n(batch, 5));
        let statuses = config.after_batches(many);
        let last = statuses.last().expect("a status per batch");
        assert_eq!(last.decision, SprtDecision::AcceptH1);
        assert!(
            statuses[..statuses.len() - 1]
                .iter()
                .all(|s| s.decision == SprtDecision::Continue)
        );
        assert!(
            statuses.len() < 50,
            "decided before the winning batches ran out"
        );
    }

    #[test]
    fn no_batches_no_status() {
        assert!(normalized().after_batches(Vec::new()).is_empty());
    }
}
