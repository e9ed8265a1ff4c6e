//! Head-to-head statistics of two bots, counted over colour-swapped pairs.
//!
//! Games are played in pairs: same opening, each bot playing X once. Counting each
//! pair as one unit, with the pair score `a ∈ {0, ¼, ½, ¾, 1}` (the five
//! [`PairOutcome`]s LL, LD, WL+DD, WD, WW), cancels most of the opening's bias and
//! gives tighter, honest error bars (fastchess `elo_pentanomial.cpp`, fishtest
//! `stat_util.py`):
//!
//! - `μ = Σ fᵢ·aᵢ` over the pair-outcome frequencies `fᵢ`,
//! - `σ²_pair = Σ fᵢ(aᵢ − μ)²`, and the standard error of μ is `√(σ²_pair / P)` for
//!   `P` pairs.
//!
//! **Incomplete pairs.** A pair key with one game (its partner is still running or
//! was lost), or two games with the same colours is not a colour-swapped pair; its
//! games count as single games ("unpaired"). Games of one key pair up two by two in
//! the order they come (a third game of a key waits for a fourth), so the counts can
//! be kept game by game ([`super::Totals`]). The estimate
//! then combines both kinds of units around the pooled mean score μ over all N games:
//!
//! `Var(μ̂) = [Σ_pairs (p_k − 2μ)² + U·σ²_game] / N²`
//!
//! where `p_k` is a pair's points (0 to 2), `U` the number of unpaired games and
//! `σ²_game` the trinomial per-game variance over all N games (the best per-game
//! figure available when U is small). With no unpaired games this is exactly the
//! pentanomial formula; with no pairs it is exactly the trinomial one.

use super::estimate::ScoreEstimate;
use super::record::Wdl;

/// The result of one colour-swapped pair for one bot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PairOutcome {
    /// Lost both games: pair score 0.
    LossLoss,
    /// A loss and a draw: ¼.
    LossDraw,
    /// A win and a loss, or two draws: ½.
    Even,
    /// A win and a draw: ¾.
    WinDraw,
    /// Won both games: 1.
    WinWin,
}

impl PairOutcome {
    /// All five, from worst to best; the order of the counts everywhere.
    pub const ALL: [PairOutcome; 5] = [
        PairOutcome::LossLoss,
        PairOutcome::LossDraw,
        PairOutcome::Even,
        PairOutcome::WinDraw,
        PairOutcome::WinWin,
    ];

    /// The outcome worth `half_points` (0..=4) over the two games.
    pub fn from_half_points(half_points: u8) -> Option<PairOutcome> {
        PairOutcome::ALL.get(usize::from(half_points)).copied()
    }

    /// The pair score per game: 0, ¼, ½, ¾ or 1.
    pub fn score(self) -> f64 {
        self as u8 as f64 / 4.0
    }

    /// The same pair seen by the other bot.
    #[must_use]
    pub fn flipped(self) -> PairOutcome {
        PairOutcome::ALL[4 - self as usize]
    }
}

/// Pair counts `[LL, LD, WL+DD, WD, WW]` seen by one bot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Pentanomial {
    counts: [u64; 5],
}

impl Pentanomial {
    /// From counts in the order `[LL, LD, WL+DD, WD, WW]`.
    pub fn new(counts: [u64; 5]) -> Pentanomial {
        Pentanomial { counts }
    }

    /// The counts in the order `[LL, LD, WL+DD, WD, WW]`.
    pub fn counts(&self) -> [u64; 5] {
        self.counts
    }

    /// The count of one outcome.
    pub fn count(&self, outcome: PairOutcome) -> u64 {
        self.counts[outcome as usize]
    }

    /// Counts one pair.
    pub fn add(&mut self, outcome: PairOutcome) {
        self.counts[outcome as usize] += 1;
    }

    /// The number of pairs.
    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The same pairs seen by the other bot.
    #[must_use]
    pub fn flipped(self) -> Pentanomial {
        let mut counts = self.counts;
        counts.reverse();
        Pentanomial { counts }
    }

    /// The pentanomial estimate: mean pair score μ with variance `σ²_pair / P`.
    /// `None` with no pairs. It covers `2P` games.
    pub fn estimate(&self) -> Option<ScoreEstimate> {
        let pairs = self.pairs();
        if pairs == 0 {
            return None;
        }
        let n = pairs as f64;
        let mean = self.weighted_sum(|a| a) / n;
        let var_pair = self.weighted_sum(|a| (a - mean).powi(2)) / n;
        ScoreEstimate::new(2 * pairs, mean, var_pair / n)
    }

    /// `Σ countᵢ·f(aᵢ)` over the five outcomes.
    fn weighted_sum(&self, f: impl Fn(f64) -> f64) -> f64 {
        PairOutcome::ALL
            .iter()
            .map(|o| self.count(*o) as f64 * f(o.score()))
            .sum()
    }
}

/// Everything about the games between two bots, seen by `a`.
#[derive(Clone, Debug, PartialEq)]
pub struct PairingStats {
    /// The bot whose point of view the counts take.
    pub a: String,
    /// Its opponent.
    pub b: String,
    /// `a`'s results over all games.
    pub games: Wdl,
    /// `a`'s results over complete colour-swapped pairs.
    pub pentanomial: Pentanomial,
    /// `a`'s results in games outside complete pairs.
    pub unpaired: Wdl,
}

impl PairingStats {
    /// The same statistics seen by `b`.
    #[must_use]
    pub fn flipped(&self) -> PairingStats {
        PairingStats {
            a: self.b.clone(),
            b: self.a.clone(),
            games: self.games.flipped(),
            pentanomial: self.pentanomial.flipped(),
            unpaired: self.unpaired.flipped(),
        }
    }

    /// `a`'s mean score and its error, from pairs and unpaired games together (see
    /// the module docs). `None` with no games.
    pub fn estimate(&self) -> Option<ScoreEstimate> {
        let n = self.games.games();
        let mu = self.games.score()?;
        let pairs_sq: f64 = PairOutcome::ALL
            .iter()
            .map(|o| self.pentanomial.count(*o) as f64 * (2.0 * o.score() - 2.0 * mu).powi(2))
            .sum();
        let unpaired = self.unpaired.games() as f64 * self.games.per_game_variance()?;
        let n = n as f64;
        ScoreEstimate::new(self.games.games(), mu, (pairs_sq + unpaired) / (n * n))
    }
}

#[cfg(test)]
mod tests {
    use super::super::elo::Confidence;
    use super::super::model::PairKey;
    use super::super::model::fixtures::{draw, o_wins, x_wins};
    use super::super::totals::{head_to_head, pairings};
    use super::*;

    #[test]
    fn pentanomial_error_bar_and_los_by_hand() {
        // Counts [LL, LD, WL+DD, WD, WW] = [0, 2, 4, 3, 1], P = 10 pairs.
        // μ = (2·¼ + 4·½ + 3·¾ + 1·1)/10 = 5.75/10 = 0.575.
        // σ²_pair = [2(0.25 − 0.575)² + 4(0.5 − 0.575)² + 3(0.75 − 0.575)² + (1 − 0.575)²]/10
        //         = [2·0.105625 + 4·0.005625 + 3·0.030625 + 0.180625]/10
        //         = (0.21125 + 0.0225 + 0.091875 + 0.180625)/10 = 0.050625.
        // se = √(0.050625/10) = √0.0050625 = 0.0711512.
        // Elo(0.575) = −400·log10(0.425/0.575) = −400·log10(0.739130) = 52.51.
        // z·se = 1.959964·0.0711512 = 0.139454 → scores [0.435546, 0.714454]
        //   → Elo [−400·log10(1.295975) = −45.04, −400·log10(0.399670) = +159.32],
        //   ± = (159.32 + 45.04)/2 = 102.18.
        // nElo: σ_game = √(2·0.050625) = 0.318198, (0.075/0.318198)·347.4356 = 81.89.
        // LOS = Φ(0.075/0.0711512) = Φ(1.054093) = 0.854080.
        let penta = Pentanomial::new([0, 2, 4, 3, 1]);
        let est = penta.estimate().unwrap();
        assert_eq!(est.games(), 20);
        assert!((est.score() - 0.575).abs() < 1e-12);
        assert!((est.std_error() - 0.071_151_2).abs() < 1e-7);
        assert!((est.elo() - 52.51).abs() < 0.01);
        let ci = est.elo_interval(Confidence::P95);
        assert!((ci.low + 45.04).abs() < 0.01, "{ci:?}");
        assert!((ci.high - 159.32).abs() < 0.01, "{ci:?}");
        assert!((est.elo_error(Confidence::P95) - 102.18).abs() < 0.01);
        assert!((est.nelo() - 81.89).abs() < 0.01);
        assert!((est.los() - 0.854_080).abs() < 1e-6);
    }

    #[test]
    fn pairs_are_tighter_than_the_same_games_counted_singly() {
        // Opening bias: each pair is won by whoever played X, so the pairs are all
        // WL (even) and carry no noise, while the games look like coin flips.
        let mut games = Vec::new();
        for k in 0..10 {
            games.push(x_wins("a", "b").with_pair(PairKey(k)));
            games.push(x_wins("b", "a").with_pair(PairKey(k)));
        }
        let stats = &pairings(&games)[0];
        assert_eq!(stats.pentanomial.counts(), [0, 0, 10, 0, 0]);
        assert_eq!(stats.unpaired.games(), 0);
        let paired = stats.estimate().unwrap();
        let single = stats.games.estimate().unwrap();
        assert_eq!(paired.std_error(), 0.0);
        assert!((single.std_error() - 0.5 / 20f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn incomplete_and_broken_pairs_fall_back_to_single_games() {
        let games = [
            // A complete pair: a wins as X, draws as O → WD.
            x_wins("a", "b").with_pair(PairKey(0)),
            draw("b", "a").with_pair(PairKey(0)),
            // Its partner is missing.
            o_wins("a", "b").with_pair(PairKey(1)),
            // Same colours twice: not a swapped pair.
            x_wins("a", "b").with_pair(PairKey(2)),
            x_wins("a", "b").with_pair(PairKey(2)),
            // No key at all.
            draw("b", "a"),
        ];
        let stats = &pairings(&games)[0];
        assert_eq!((stats.a.as_str(), stats.b.as_str()), ("a", "b"));
        assert_eq!(stats.pentanomial.counts(), [0, 0, 0, 1, 0]);
        assert_eq!(
            stats.unpaired,
            Wdl {
                wins: 2,
                draws: 1,
                losses: 1
            }
        );
        assert_eq!(
            stats.games,
            Wdl {
                wins: 3,
                draws: 2,
                losses: 1
            }
        );
        // Mixed estimate by hand: N = 6, points 4 → μ = 2/3.
        // Pair: p = 1.5 → (1.5 − 4/3)² = 1/36.
        // σ²_game = [3(1/3)² + 2(1/6)² + 1(2/3)²]/6 = (1/3 + 1/18 + 4/9)/6 = (15/18)/6 = 5/36.
        // Var = (1/36 + 4·5/36)/36 = (21/36)/36 = 0.0162037.
        let est = stats.estimate().unwrap();
        assert!((est.score() - 2.0 / 3.0).abs() < 1e-12);
        assert!((est.std_error().powi(2) - 21.0 / 36.0 / 36.0).abs() < 1e-12);
    }

    #[test]
    fn flipping_swaps_the_point_of_view() {
        let games = [
            x_wins("b", "a").with_pair(PairKey(0)),
            x_wins("a", "b").with_pair(PairKey(0)),
            x_wins("b", "a").with_pair(PairKey(1)),
            draw("a", "b").with_pair(PairKey(1)),
        ];
        let ab = &pairings(&games)[0];
        assert_eq!(ab.pentanomial.counts(), [0, 1, 1, 0, 0]);
        let ba = ab.flipped();
        assert_eq!(ba.a, "b");
        assert_eq!(ba.pentanomial.counts(), [0, 0, 1, 1, 0]);
        let (sa, sb) = (ab.estimate().unwrap(), ba.estimate().unwrap());
        assert!((sa.score() + sb.score() - 1.0).abs() < 1e-12);
        assert!((sa.std_error() - sb.std_error()).abs() < 1e-12);
        assert!((sa.los() + sb.los() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn one_game_and_no_games() {
        assert!(pairings(&[]).is_empty());
        let one = pairings(&[x_wins("z", "y")]);
        assert_eq!(one.len(), 1);
        assert_eq!((one[0].a.as_str(), one[0].games.losses), ("y", 1));
        let est = one[0].estimate().unwrap();
        assert_eq!(est.elo(), f64::NEG_INFINITY);
        assert_eq!(est.los(), 0.0);
        assert_eq!(Pentanomial::default().estimate(), None);
    }

    #[test]
    fn head_to_head_takes_the_requested_side() {
        let games = [
            x_wins("new", "base").with_pair(PairKey(0)),
            draw("base", "new").with_pair(PairKey(0)),
            x_wins("new", "other"),
        ];
        let h = head_to_head(&games, "new", "base");
        assert_eq!((h.a.as_str(), h.b.as_str()), ("new", "base"));
        assert_eq!(h.pentanomial.counts(), [0, 0, 0, 1, 0]);
        let h = head_to_head(&games, "base", "new");
        assert_eq!(h.pentanomial.counts(), [0, 1, 0, 0, 0]);
        let none = head_to_head(&games, "base", "other");
        assert_eq!((none.games.games(), none.b.as_str()), (0, "other"));
    }
}

#[cfg(test)]
mod coverage {
    //! Pairs simulated with a strong opening bias: the pentanomial interval covers the
    //! true score about 95% of the time, while the trinomial one (the same games
    //! counted singly) is needlessly wide.
    use super::super::elo::{Confidence, score_from_elo};
    use super::super::model::PairKey;
    use super::super::simulation::{Simulator, game};
    use super::super::totals::head_to_head;

    const EDGE: f64 = 60.0;
    const X_ADVANTAGE: f64 = 50.0;
    /// Each opening favours X by one of these, equally often.
    const OPENING_BIAS: [f64; 3] = [-300.0, 0.0, 300.0];

    #[test]
    fn pentanomial_intervals_cover_the_true_score() {
        // The true mean score of "a" per game: average over openings of its expected
        // score as X and as O (the simulator keeps expected scores exact).
        let truth = OPENING_BIAS
            .iter()
            .map(|b| {
                (score_from_elo(EDGE + X_ADVANTAGE + b) + 1.0
                    - score_from_elo(X_ADVANTAGE + b - EDGE))
                    / 2.0
            })
            .sum::<f64>()
            / OPENING_BIAS.len() as f64;
        let mut sim = Simulator::new(17, 0.3);
        let (reps, pairs) = (2000, 50);
        let (mut penta_hits, mut trino_hits) = (0, 0);
        let (mut penta_width, mut trino_width) = (0.0, 0.0);
        for _ in 0..reps {
            let mut games = Vec::new();
            for k in 0..pairs {
                let bias = OPENING_BIAS[(sim.uniform() * 3.0) as usize % 3];
                let first = sim.decision(EDGE + X_ADVANTAGE + bias);
                let second = sim.decision(X_ADVANTAGE + bias - EDGE);
                games.push(game("a", "b", first).with_pair(PairKey(k)));
                games.push(game("b", "a", second).with_pair(PairKey(k)));
            }
            let stats = head_to_head(&games, "a", "b");
            let penta = stats.estimate().unwrap().score_interval(Confidence::P95);
            let trino = stats
                .games
                .estimate()
                .unwrap()
                .score_interval(Confidence::P95);
            penta_hits += u32::from(penta.contains(truth));
            trino_hits += u32::from(trino.contains(truth));
            penta_width += penta.high - penta.low;
            trino_width += trino.high - trino.low;
        }
        let penta = f64::from(penta_hits) / f64::from(reps);
        let trino = f64::from(trino_hits) / f64::from(reps);
        eprintln!(
            "coverage: pentanomial {penta:.4} (mean width {:.4}), trinomial {trino:.4} (mean width {:.4})",
            penta_width / f64::from(reps),
            trino_width / f64::from(reps)
        );
        assert!(
            (0.93..=0.97).contains(&penta),
            "pentanomial coverage {penta}"
        );
        assert!(trino > 0.975, "trinomial coverage {trino}");
        assert!(penta_width < 0.9 * trino_width);
    }
}
