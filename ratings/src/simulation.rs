//! Test-only game generators with known truth, driven by a seeded RNG.
//!
//! Games follow the Elo score model the ratings estimate: X's expected score is
//! `E = 1/(1 + 10^(−(r_x − r_o + h)/400))`, draws happen with probability
//! `4c·E(1 − E)` (so `c` is the draw rate between equals, at most ½), and the rest is
//! split so that the expected score stays exactly `E`:
//! `P(X wins) = E − P(draw)/2`, `P(O wins) = 1 − E − P(draw)/2`.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use uttt::rules::Mark;

use super::elo::score_from_elo;
use super::model::{Decision, Ending, GameResult, PairKey};

/// A seeded source of games.
pub(crate) struct Simulator {
    rng: StdRng,
    /// The draw rate between equal bots, `c` above.
    draw_rate: f64,
}

impl Simulator {
    pub(crate) fn new(seed: u64, draw_rate: f64) -> Simulator {
        assert!((0.0..=0.5).contains(&draw_rate));
        Simulator {
            rng: StdRng::seed_from_u64(seed),
            draw_rate,
        }
    }

    /// A uniform number in [0, 1).
    pub(crate) fn uniform(&mut self) -> f64 {
        self.rng.random::<f64>()
    }

    /// One game's decision when X is `edge` Elo stronger (advantage included).
    pub(crate) fn decision(&mut self, edge: f64) -> Decision {
        let e = score_from_elo(edge);
        let p_draw = 4.0 * self.draw_rate * e * (1.0 - e);
        let u = self.uniform();
        if u < e - p_draw / 2.0 {
            Decision::Win(Mark::X)
        } else if u < e + p_draw / 2.0 {
            Decision::Draw
        } else {
            Decision::Win(Mark::O)
        }
    }

    /// A round robin: every two bots play `pairs` colour-swapped pairs.
    /// `ratings[i]` is bot `b{i}`'s true Elo, `x_advantage` the first-player edge.
    pub(crate) fn round_robin(
        &mut self,
        ratings: &[f64],
        x_advantage: f64,
        pairs: u64,
    ) -> Vec<GameResult> {
        let mut games = Vec::new();
        for i in 0..ratings.len() {
            for j in i + 1..ratings.len() {
                for k in 0..pairs {
                    for (x, o) in [(i, j), (j, i)] {
                        let decision = self.decision(ratings[x] - ratings[o] + x_advantage);
                        games.push(
                            game(&format!("b{x}"), &format!("b{o}"), decision)
                                .with_pair(PairKey(k)),
                        );
                    }
                }
            }
        }
        games
    }

    /// `pairs` colour-swapped pairs, each between two bots drawn at random: the
    /// sparse comparison graph of a merge of shards. `ratings` as in
    /// [`Self::round_robin`].
    pub(crate) fn random_pairs(
        &mut self,
        ratings: &[f64],
        x_advantage: f64,
        pairs: u64,
    ) -> Vec<GameResult> {
        let n = ratings.len();
        let mut games = Vec::new();
        for k in 0..pairs {
            let a = self.rng.random_range(0..n);
            let b = (a + self.rng.random_range(1..n)) % n;
            for (x, o) in [(a, b), (b, a)] {
                let decision = self.decision(ratings[x] - ratings[o] + x_advantage);
                games
                    .push(game(&format!("b{x}"), &format!("b{o}"), decision).with_pair(PairKey(k)));
            }
        }
        games
    }
}

/// A game decided on the board.
pub(crate) fn game(x: &str, o: &str, decision: Decision) -> GameResult {
    let ending = Ending::Played {
        decision,
        reason: crate::model::EndReason::ThreeInARow,
    };
    GameResult::new(x, o, ending).expect("test bots have distinct names")
}
