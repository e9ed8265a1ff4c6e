//! The covariance of the fitted ratings, from which every interval and LOS of
//! the standings comes: exact up to [`EXACT_MAX_BOTS`] bots, approximated above.
//!
//! # Exact
//! The inverse of the information over the free parameters (a dense Cholesky
//! factorisation: about m³/2 multiply-adds for m free parameters, a fraction of a
//! second at 1,000 bots, seconds at 2,000, minutes at 5,000), scaled by the
//! dispersion φ, then carried to the anchored ratings: a group with an anchored bot
//! is on its scale already; any other is centred, `r_i = β_i − w·β + centre` with
//! `w` the uniform weights over its bots, so `Cov(r_i, r_j) = C_ij − (Cw)_i −
//! (Cw)_j + wᵀCw`.
//!
//! # Approximate, above [`EXACT_MAX_BOTS`] bots
//! Each bot's rating is given the variance it has when every other rating (and the
//! X advantage) is taken as known: `φ/Hᵢᵢ`, the inverse of its own information,
//! `Hᵢᵢ = Σ games·p(1 − p)` over its games (and virtual draws). For a normal
//! distribution that is the conditional variance of one coordinate given the
//! others, `1/(Σ⁻¹)ᵢᵢ` (T. W. Anderson, *An Introduction to Multivariate
//! Statistical Analysis*, 3rd ed., 2003, Theorem 2.5.1). The ratings are then
//! taken as uncorrelated, and a group without anchors is centred as above (the
//! centring of a diagonal `C`: `Cov(r_i, r_j) = δᵢⱼvᵢ − (vᵢ + vⱼ)/n + Σv/n²`).
//!
//! What this gives for a difference, `Var(r_i − r_j) ≈ vᵢ + vⱼ`, is the effective
//! resistance between the two bots in the graph of games with conductances
//! `games·p(1 − p)` (the exact variance of a difference is that resistance: the
//! information is the graph's Laplacian, and its pseudo-inverse gives resistances,
//! D. J. Klein & M. Randić 1993, "Resistance distance", J. Math. Chem. 12), as
//! U. von Luxburg, A. Radl & M. Hein (2014, "Hitting and commute times in large
//! random neighborhood graphs", JMLR 15) show it becomes in large well-connected
//! graphs: `R_ij → 1/dᵢ + 1/dⱼ`, the bots' degrees. Games between bots drawn at
//! random (the merge of many shards) are such a graph, and so is a round robin.
//! Measured against the exact intervals on the same fit (the `scaling` tests of
//! [`super::bradley_terry`]):
//!
//! | games | ±: worst, mean relative error | LOS>next: worst |
//! |---|---|---|
//! | 300 bots, 6,000 pairs between random bots | 2.8%, 1.5% | 0.003 |
//! | a round robin of 40 bots | 1.3%, 0.7% | 0.009 |
//! | 300 bots, 6,000 pairs each within 30 places | 17%, 9% too narrow | 0.004 |
//! | a ladder of 100 bots, each meeting its neighbours | 88%, 81% too narrow | 0.18 |
//!
//! Where bots meet only near neighbours in strength, the uncertainty that builds
//! up along the chain of games is left out, so each bot's interval relative to
//! the group's mean comes out too narrow. The standings say the intervals are
//! approximate ([`super::bradley_terry::Note::ApproximateIntervals`]).
//!
//! The X advantage's variance is exact at every size: one solve with the
//! information ([`super::sparse::Information::solve`]).

use super::linalg::Matrix;

/// Up to this many bots, the covariance is the exact inverse of the information.
pub const EXACT_MAX_BOTS: usize = 2000;

/// The covariance of the anchored ratings in Elo², in standings order.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Covariance {
    /// Every entry, zero across groups.
    Exact(Matrix),
    /// Uncorrelated ratings (see the module docs).
    Diagonal {
        /// Each bot's variance before centring, `φ/Hᵢᵢ` (0 for an anchored bot).
        variance: Vec<f64>,
        /// Each group's centring: its size and the sum of its variances, or `None`
        /// when it holds an anchored bot.
        centring: Vec<Option<(f64, f64)>>,
    },
}

impl Covariance {
    /// `Cov(r_i, r_j)` for two bots of group `group`.
    pub(crate) fn get(&self, i: usize, j: usize, group: usize) -> f64 {
        match self {
            Covariance::Exact(m) => m.get(i, j),
            Covariance::Diagonal { variance, centring } => {
                let own = if i == j { variance[i] } else { 0.0 };
                match centring[group] {
                    Some((n, sum)) => own - (variance[i] + variance[j]) / n + sum / (n * n),
                    None => own,
                }
            }
        }
    }

    /// Whether this is the approximation.
    pub(crate) fn is_approximate(&self) -> bool {
        matches!(self, Covariance::Diagonal { .. })
    }
}
