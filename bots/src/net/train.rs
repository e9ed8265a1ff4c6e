//! Fitting the network to self-play games ([`super::selfplay`]): a float copy of
//! [`super::Network`], trained by Adam on minibatches towards a blend of each
//! position's game result and its search value, then rounded to the stored
//! integers ([`FloatNet::quantize`]).
//!
//! Everything is seeded and single-threaded with sums in a fixed order, so the
//! same games, options and build give the same bytes: the provenance test of the
//! shipped weights relies on it. Each epoch sees every training game under one
//! of the board's eight symmetries, drawn from the seed (the rules are symmetric:
//! turning or mirroring the big board and every small board alike maps games to
//! games).

use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use uttt::rules::{BoardIndex, Cell, Position, Rules, Square};

use super::features::{BUCKETS, INPUTS, MAX_ACTIVE, active, bucket, child_delta};
use super::selfplay::GameRecord;
use super::{HIDDEN, Network, QA, QB};

/// `square` moved by symmetry `s` (0..8) of the whole board: its board and its
/// cell are moved alike, so the board a move sends to moves with it.
pub fn symmetry(s: usize, square: Square) -> Square {
    // The grid's symmetries, the linear model's own table.
    let perm = &crate::learned::features::SYMMETRIES[s % 8];
    let b = perm[square.board().index()];
    let c = perm[square.cell().index()];
    Square::new(BoardIndex::ALL[b], Cell::ALL[c])
}

/// The largest magnitude a first-layer weight or bias may take, so that the
/// 16-bit sums of inference stay far from wrapping.
pub const L1_CLIP: f32 = 1.98;

/// The network in floats, for training.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNet {
    /// `[input * HIDDEN + j]`.
    pub l1: Vec<f32>,
    /// `[j]`.
    pub l1_bias: Vec<f32>,
    /// `[bucket * 2 * HIDDEN + k]`: the side to move's units, then the other's.
    pub l2: Vec<f32>,
    /// `[bucket]`.
    pub l2_bias: Vec<f32>,
}

/// One training position: the inputs of each side's view, the value target, and
/// the children with the search's share of visits (the policy target).
#[derive(Clone, Debug)]
pub struct Sample {
    /// Inputs of the side to move's view, then of the other's.
    inputs: Vec<u16>,
    /// How many of `inputs` are the side to move's.
    split: usize,
    bucket: usize,
    /// The blended target in 0..1.
    pub target: f32,
    /// The side to move's game result.
    pub result: f32,
    /// The linear model's log-odds for the side to move, which the network corrects.
    offset: f32,
    /// Every legal move, when the search's visits are known.
    children: Vec<ChildSample>,
}

/// A child of a training position: how its inputs differ from its parent's.
#[derive(Clone, Debug)]
struct ChildSample {
    /// Per view (the parent's side to move's, then the other's): rows removed
    /// and rows added.
    removed: [Vec<u16>; 2],
    added: [Vec<u16>; 2],
    bucket: usize,
    /// The mover's value when the move ends the game.
    terminal: Option<f32>,
    /// The search's share of the parent's visits.
    share: f32,
    /// The linear model's log-odds of the child for its side to move (0 when the
    /// move ends the game).
    offset: f32,
}

impl Sample {
    /// The sample of `pos` (not over) with `target` and `result` for its side to
    /// move, and no policy target.
    pub fn new(pos: &Position, target: f32, result: f32) -> Sample {
        let mut on = [0u16; MAX_ACTIVE];
        let me = pos.side_to_move();
        let n = active(pos, me, &mut on);
        let mut inputs = on[..n].to_vec();
        let m = active(pos, !me, &mut on);
        inputs.extend_from_slice(&on[..m]);
        Sample {
            inputs,
            split: n,
            bucket: bucket(pos),
            target,
            result,
            offset: crate::learned::log_odds(pos),
            children: Vec::new(),
        }
    }

    /// The same sample with the search's visits of the children of `pos` as the
    /// policy target (nothing when no child was visited).
    pub fn with_visits(mut self, pos: &Position, visits: &[(Square, u32)]) -> Sample {
        let total: u32 = visits.iter().map(|v| v.1).sum();
        if total == 0 {
            return self;
        }
        let me = pos.side_to_move();
        for sq in pos.legal_moves() {
            let after = pos.after_unchecked(sq);
            let (mut removed, mut added) = ([Vec::new(), Vec::new()], [Vec::new(), Vec::new()]);
            for (k, view) in [me, !me].into_iter().enumerate() {
                let delta = child_delta(pos, &after, sq, view);
                removed[k] = delta.removed().to_vec();
                added[k] = delta.added().to_vec();
            }
            let terminal = after.status().outcome().map(|o| match o.winner() {
                Some(w) if w == me => 1.0,
                Some(_) => 0.0,
                None => 0.5,
            });
            let n = visits.iter().find(|v| v.0 == sq).map_or(0, |v| v.1);
            self.children.push(ChildSample {
                removed,
                added,
                bucket: bucket(&after),
                terminal,
                share: n as f32 / total as f32,
                offset: if terminal.is_none() {
                    crate::learned::log_odds(&after)
                } else {
                    0.0
                },
            });
        }
        self
    }
}

/// The samples of `games` under `rules`, each game moved by the symmetry
/// `symmetry_of(game index)`, with targets `(1 - w) * result + w * search`, and
/// with policy targets when `policy` is set.
///
/// # Errors
/// A game does not replay under `rules`.
pub fn samples(
    games: &[GameRecord],
    rules: Rules,
    search_weight: f32,
    policy: bool,
    symmetry_of: impl Fn(usize) -> usize,
) -> Result<Vec<Sample>, String> {
    let mut out = Vec::new();
    for (i, game) in games.iter().enumerate() {
        let s = symmetry_of(i);
        let positions = game
            .searched(rules, |sq| symmetry(s, sq))
            .map_err(|e| format!("game {}: {e}", i + 1))?;
        for p in positions {
            let target = (1.0 - search_weight) * p.result + search_weight * p.search;
            let sample = Sample::new(&p.position, target, p.result);
            out.push(if policy {
                sample.with_visits(&p.position, &p.visits)
            } else {
                sample
            });
        }
    }
    Ok(out)
}

/// The logistic function.
fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Cross-entropy of predicting `p` for a target `y` in 0..1.
pub fn log_loss(p: f32, y: f32) -> f64 {
    let p = f64::from(p).clamp(1e-6, 1.0 - 1e-6);
    let y = f64::from(y);
    -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
}

/// What [`FloatNet::backward`] measured of one sample before its update.
#[derive(Clone, Copy, Debug, Default)]
pub struct Measured {
    /// Log-loss of the value.
    pub value_loss: f64,
    /// Cross-entropy of the children's softmax against the visits (0 without
    /// a policy target).
    pub policy_loss: f64,
    /// Whether the best child by the network is the most visited one (none
    /// without a policy target).
    pub agrees: Option<bool>,
}

/// The clipped ReLU, and whether its slope is 1 at `s`.
#[inline]
fn crelu(s: f32) -> f32 {
    s.clamp(0.0, 1.0)
}

impl FloatNet {
    /// Small random weights drawn from `seed`.
    pub fn new(seed: u64) -> FloatNet {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut draw = |n: usize, spread: f32, centre: f32| -> Vec<f32> {
            (0..n)
                .map(|_| centre + spread * (rng.random::<f32>() * 2.0 - 1.0))
                .collect()
        };
        FloatNet {
            l1: draw(INPUTS * HIDDEN, 0.1, 0.0),
            l1_bias: draw(HIDDEN, 0.1, 0.3),
            l2: draw(BUCKETS * 2 * HIDDEN, 0.05, 0.0),
            l2_bias: vec![0.0; BUCKETS],
        }
    }

    fn row(&self, input: u16) -> &[f32] {
        &self.l1[usize::from(input) * HIDDEN..][..HIDDEN]
    }

    /// The bias plus the rows of `inputs`.
    fn sum(&self, inputs: &[u16]) -> [f32; HIDDEN] {
        let mut sum = [0f32; HIDDEN];
        sum.copy_from_slice(&self.l1_bias);
        for &input in inputs {
            for (s, w) in sum.iter_mut().zip(self.row(input)) {
                *s += w;
            }
        }
        sum
    }

    /// `sum` with `removed` rows taken away and `added` rows added.
    fn moved(&self, sum: &[f32; HIDDEN], removed: &[u16], added: &[u16]) -> [f32; HIDDEN] {
        let mut out = *sum;
        for &input in removed {
            for (s, w) in out.iter_mut().zip(self.row(input)) {
                *s -= w;
            }
        }
        for &input in added {
            for (s, w) in out.iter_mut().zip(self.row(input)) {
                *s += w;
            }
        }
        out
    }

    /// The output's log-odds of `bucket` for sums of the side to move's view
    /// (`first`) and the other's.
    fn logit(&self, bucket: usize, first: &[f32; HIDDEN], second: &[f32; HIDDEN]) -> f32 {
        let w = &self.l2[bucket * 2 * HIDDEN..][..2 * HIDDEN];
        let mut logit = self.l2_bias[bucket];
        for (s, w) in first.iter().chain(second).zip(w) {
            logit += crelu(*s) * w;
        }
        logit
    }

    /// The chance the network gives the side to move of `sample`.
    pub fn predict(&self, sample: &Sample) -> f32 {
        let first = self.sum(&sample.inputs[..sample.split]);
        let second = self.sum(&sample.inputs[sample.split..]);
        sigmoid(self.logit(sample.bucket, &first, &second) + sample.offset)
    }

    /// The output layer's part of the gradient for `d_logit` at `bucket`, added to
    /// `grad`; returns the gradients of the two sums.
    fn output_backward(
        &self,
        bucket: usize,
        first: &[f32; HIDDEN],
        second: &[f32; HIDDEN],
        d_logit: f32,
        grad: &mut FloatNet,
    ) -> [[f32; HIDDEN]; 2] {
        grad.l2_bias[bucket] += d_logit;
        let w = &self.l2[bucket * 2 * HIDDEN..][..2 * HIDDEN];
        let gw = &mut grad.l2[bucket * 2 * HIDDEN..][..2 * HIDDEN];
        let mut d = [[0f32; HIDDEN]; 2];
        for (side, sum) in [first, second].into_iter().enumerate() {
            for j in 0..HIDDEN {
                let k = side * HIDDEN + j;
                gw[k] += d_logit * crelu(sum[j]);
                if sum[j] > 0.0 && sum[j] < 1.0 {
                    d[side][j] = d_logit * w[k];
                }
            }
        }
        d
    }

    /// Adds `policy_weight` × the policy loss and the value loss of `sample` to
    /// `grad`, the policy's softmax at `temperature`.
    fn backward(
        &self,
        sample: &Sample,
        policy_weight: f32,
        temperature: f32,
        grad: &mut FloatNet,
    ) -> Measured {
        let views = [
            &sample.inputs[..sample.split],
            &sample.inputs[sample.split..],
        ];
        let sums = [self.sum(views[0]), self.sum(views[1])];
        let p = sigmoid(self.logit(sample.bucket, &sums[0], &sums[1]) + sample.offset);
        let mut measured = Measured {
            value_loss: log_loss(p, sample.target),
            ..Measured::default()
        };
        // Gradients of the parent's two sums, from every path.
        let mut d_sums =
            self.output_backward(sample.bucket, &sums[0], &sums[1], p - sample.target, grad);
        if !sample.children.is_empty() && policy_weight > 0.0 {
            // The mover's value of each child, and its softmax.
            let values: Vec<(f32, Option<f32>)> = sample
                .children
                .iter()
                .map(|c| match c.terminal {
                    Some(v) => (v, None),
                    None => {
                        let first = self.moved(&sums[0], &c.removed[0], &c.added[0]);
                        let second = self.moved(&sums[1], &c.removed[1], &c.added[1]);
                        // The child's side to move is the parent's other view.
                        let v = sigmoid(self.logit(c.bucket, &second, &first) + c.offset);
                        (1.0 - v, Some(v))
                    }
                })
                .collect();
            let top = values.iter().map(|v| v.0).fold(f32::MIN, f32::max);
            let exps: Vec<f32> = values
                .iter()
                .map(|v| ((v.0 - top) / temperature).exp())
                .collect();
            let total: f32 = exps.iter().sum();
            let best_by_net = values
                .iter()
                .enumerate()
                .fold(
                    (0, f32::MIN),
                    |a, (i, v)| if v.0 > a.1 { (i, v.0) } else { a },
                )
                .0;
            let best_by_search = sample
                .children
                .iter()
                .enumerate()
                .fold(
                    (0, f32::MIN),
                    |a, (i, c)| if c.share > a.1 { (i, c.share) } else { a },
                )
                .0;
            measured.agrees = Some(best_by_net == best_by_search);
            for (i, c) in sample.children.iter().enumerate() {
                let prob = exps[i] / total;
                if c.share > 0.0 {
                    measured.policy_loss -= f64::from(c.share) * f64::from(prob.max(1e-12)).ln();
                }
                let Some(v) = values[i].1 else { continue };
                let d_logit = policy_weight * (prob - c.share) / temperature * -(v * (1.0 - v));
                let first = self.moved(&sums[0], &c.removed[0], &c.added[0]);
                let second = self.moved(&sums[1], &c.removed[1], &c.added[1]);
                let [d_second, d_first] =
                    self.output_backward(c.bucket, &second, &first, d_logit, grad);
                for (view, d) in [(0, &d_first), (1, &d_second)] {
                    for (a, b) in d_sums[view].iter_mut().zip(d.iter()) {
                        *a += b;
                    }
                    for &input in &c.removed[view] {
                        let row = &mut grad.l1[usize::from(input) * HIDDEN..][..HIDDEN];
                        for (g, b) in row.iter_mut().zip(d.iter()) {
                            *g -= b;
                        }
                    }
                    for &input in &c.added[view] {
                        let row = &mut grad.l1[usize::from(input) * HIDDEN..][..HIDDEN];
                        for (g, b) in row.iter_mut().zip(d.iter()) {
                            *g += b;
                        }
                    }
                }
            }
        }
        for (view, d) in d_sums.iter().enumerate() {
            for (g, b) in grad.l1_bias.iter_mut().zip(d) {
                *g += b;
            }
            for &input in views[view] {
                let row = &mut grad.l1[usize::from(input) * HIDDEN..][..HIDDEN];
                for (g, b) in row.iter_mut().zip(d) {
                    *g += b;
                }
            }
        }
        measured
    }

    fn zeros() -> FloatNet {
        FloatNet {
            l1: vec![0.0; INPUTS * HIDDEN],
            l1_bias: vec![0.0; HIDDEN],
            l2: vec![0.0; BUCKETS * 2 * HIDDEN],
            l2_bias: vec![0.0; BUCKETS],
        }
    }

    fn parts_mut(&mut self) -> [&mut Vec<f32>; 4] {
        [
            &mut self.l1,
            &mut self.l1_bias,
            &mut self.l2,
            &mut self.l2_bias,
        ]
    }

    /// The stored network: weights rounded to their integer units.
    pub fn quantize(&self) -> Network {
        let q16 = |w: f32, scale: i32| -> i16 {
            (w * scale as f32)
                .round()
                .clamp(f32::from(i16::MIN), f32::from(i16::MAX)) as i16
        };
        let mut net = Network::zeros();
        for (input, row) in net.l1.iter_mut().enumerate() {
            for (j, v) in row.iter_mut().enumerate() {
                *v = q16(self.l1[input * HIDDEN + j], QA);
            }
        }
        for (v, &w) in net.l1_bias.iter_mut().zip(&self.l1_bias) {
            *v = q16(w, QA);
        }
        for (b, row) in net.l2.iter_mut().enumerate() {
            for (k, v) in row.iter_mut().enumerate() {
                *v = q16(self.l2[b * 2 * HIDDEN + k], QB);
            }
        }
        for (v, &w) in net.l2_bias.iter_mut().zip(&self.l2_bias) {
            *v = (w * (QA * QB) as f32).round() as i32;
        }
        net
    }
}

/// The stored network's chance for `sample`'s side to move, through the same
/// integer arithmetic as inference (for reporting the loss after rounding).
pub fn quantized_predict(net: &Network, sample: &Sample) -> f32 {
    let mut sums = [net.l1_bias; 2];
    for (side, range) in [(0, 0..sample.split), (1, sample.split..sample.inputs.len())] {
        for &input in &sample.inputs[range] {
            for (s, w) in sums[side].iter_mut().zip(&net.l1[usize::from(input)]) {
                *s = s.wrapping_add(*w);
            }
        }
    }
    let mut total = i64::from(net.l2_bias[sample.bucket]);
    for (side, sum) in sums.iter().enumerate() {
        for (j, &s) in sum.iter().enumerate() {
            let w = net.l2[sample.bucket][side * HIDDEN + j];
            total += i64::from(s.clamp(0, QA as i16)) * i64::from(w);
        }
    }
    sigmoid(total as f32 / (QA * QB) as f32 + sample.offset)
}

/// How [`fit`] trains.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitOptions {
    /// Passes over the training games.
    pub epochs: u32,
    /// Positions per Adam step.
    pub batch: usize,
    /// Adam's step size at the start; it falls linearly to a tenth by the end.
    pub rate: f32,
    /// Weight of the search's value against the game's result in the target.
    pub search_weight: f32,
    /// Weight of the policy loss (the children's softmax against the search's
    /// visits) against the value's; 0 trains the value alone.
    pub policy_weight: f32,
    /// The softmax temperature of the policy: the one `mcts-net` reads its
    /// priors at.
    pub temperature: f32,
    /// Seed of the starting weights, the symmetries and the order.
    pub seed: u64,
    /// The rules the games were played under.
    pub rules: Rules,
}

impl Default for FitOptions {
    fn default() -> FitOptions {
        FitOptions {
            epochs: 10,
            batch: 256,
            rate: 2e-3,
            search_weight: 0.5,
            policy_weight: 1.0,
            temperature: crate::mcts::Selection::PUCT_TEMPERATURE,
            seed: 1,
            rules: Rules::STANDARD,
        }
    }
}

/// Games per shuffled block: positions are shuffled within a block of games,
/// the blocks in a shuffled order of games.
const BLOCK_GAMES: usize = 256;

/// Sums of [`Measured`] over samples.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    samples: usize,
    value_loss: f64,
    policy_loss: f64,
    with_policy: usize,
    agree: usize,
}

impl Tally {
    fn add(&mut self, m: Measured) {
        self.samples += 1;
        self.value_loss += m.value_loss;
        if let Some(agrees) = m.agrees {
            self.with_policy += 1;
            self.policy_loss += m.policy_loss;
            self.agree += usize::from(agrees);
        }
    }
}

impl std::fmt::Display for Tally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let per = |x: f64, n: usize| x / n.max(1) as f64;
        write!(
            f,
            "value {:.4}, policy {:.4}, best child agrees {:.1}%",
            per(self.value_loss, self.samples),
            per(self.policy_loss, self.with_policy),
            100.0 * per(self.agree as f64, self.with_policy)
        )
    }
}

/// Fits a network to `games` (every tenth held out, reported on, never trained
/// on), starting from `start` or from random weights; `log` receives a line per
/// epoch.
///
/// # Errors
/// A game does not replay under the rules.
pub fn fit(
    games: &[GameRecord],
    options: &FitOptions,
    start: Option<FloatNet>,
    log: &mut dyn FnMut(&str),
) -> Result<FloatNet, String> {
    let (train, held): (Vec<_>, Vec<_>) = games.iter().enumerate().partition(|(i, _)| i % 10 != 9);
    let train: Vec<GameRecord> = train.into_iter().map(|(_, g)| g.clone()).collect();
    let held: Vec<GameRecord> = held.into_iter().map(|(_, g)| g.clone()).collect();
    let policy = options.policy_weight > 0.0;
    let held = samples(&held, options.rules, options.search_weight, policy, |_| 0)?;
    let mut net = start.unwrap_or_else(|| FloatNet::new(options.seed));
    let mut rng = SmallRng::seed_from_u64(options.seed ^ 0x5EED);
    let (mut m, mut v) = (FloatNet::zeros(), FloatNet::zeros());
    let mut step = 0i32;
    let (beta1, beta2) = (0.9f32, 0.999f32);
    let total_epochs = options.epochs.max(1);
    let measure = |net: &FloatNet| {
        let mut tally = Tally::default();
        let mut scratch = FloatNet::zeros();
        for s in &held {
            tally.add(net.backward(s, 1.0, options.temperature, &mut scratch));
        }
        tally
    };
    log(&format!(
        "{} training games, {} held-out positions",
        train.len(),
        held.len()
    ));
    for epoch in 0..options.epochs {
        let rate = options.rate * (1.0 - 0.9 * epoch as f32 / total_epochs as f32);
        let mut order: Vec<usize> = (0..train.len()).collect();
        order.shuffle(&mut rng);
        let symmetries: Vec<usize> = (0..train.len()).map(|_| rng.random_range(0..8)).collect();
        let mut tally = Tally::default();
        for block in order.chunks(BLOCK_GAMES) {
            let games: Vec<GameRecord> = block.iter().map(|&i| train[i].clone()).collect();
            let mut batch = samples(&games, options.rules, options.search_weight, policy, |k| {
                symmetries[block[k]]
            })?;
            batch.shuffle(&mut rng);
            for chunk in batch.chunks(options.batch.max(1)) {
                let mut grad = FloatNet::zeros();
                for sample in chunk {
                    tally.add(net.backward(
                        sample,
                        options.policy_weight,
                        options.temperature,
                        &mut grad,
                    ));
                }
                step += 1;
                let scale = 1.0 / chunk.len() as f32;
                let correction1 = 1.0 - beta1.powi(step);
                let correction2 = 1.0 - beta2.powi(step);
                let grads = grad.parts_mut();
                let ms = m.parts_mut();
                let vs = v.parts_mut();
                let ws = net.parts_mut();
                for (part, (((w, g), m), v)) in
                    ws.into_iter().zip(grads).zip(ms).zip(vs).enumerate()
                {
                    for i in 0..w.len() {
                        let g = g[i] * scale;
                        m[i] = beta1 * m[i] + (1.0 - beta1) * g;
                        v[i] = beta2 * v[i] + (1.0 - beta2) * g * g;
                        let update =
                            rate * (m[i] / correction1) / ((v[i] / correction2).sqrt() + 1e-8);
                        w[i] -= update;
                        if part < 2 {
                            w[i] = w[i].clamp(-L1_CLIP, L1_CLIP);
                        }
                    }
                }
            }
        }
        log(&format!(
            "epoch {}: train {tally}; held out {} (rate {rate:.5})",
            epoch + 1,
            measure(&net)
        ));
    }
    let quantized = net.quantize();
    let held_loss = mean(&held, |s| {
        log_loss(quantized_predict(&quantized, s), s.target)
    });
    let result_loss = mean(&held, |s| {
        log_loss(quantized_predict(&quantized, s), s.result)
    });
    log(&format!(
        "stored (rounded) network: held-out value log-loss {held_loss:.4} (against the game results alone {result_loss:.4})"
    ));
    Ok(net)
}

/// The mean of `f` over `samples`.
pub fn mean(samples: &[Sample], f: impl Fn(&Sample) -> f64) -> f64 {
    samples.iter().map(f).sum::<f64>() / samples.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetries_map_games_to_games() {
        let make = super::super::selfplay::spec_factory("mcts --playouts 20").unwrap();
        let games =
            super::super::selfplay::generate(&make, 0..4, 4, 2, Rules::STANDARD, 1, &|_| {});
        for game in &games {
            let end = |s: usize| {
                Position::from_moves(Rules::STANDARD, game.moves.iter().map(|&m| symmetry(s, m)))
                    .unwrap()
            };
            for s in 0..8 {
                let pos = end(s);
                assert_eq!(pos.status(), end(0).status(), "symmetry {s}");
            }
        }
        // Each symmetry is a permutation of the 81 squares; 0 is the identity.
        for s in 0..8 {
            let mut seen: Vec<Square> = Square::ALL.iter().map(|&q| symmetry(s, q)).collect();
            seen.sort();
            seen.dedup();
            assert_eq!(seen.len(), 81);
        }
        assert!(Square::ALL.iter().all(|&q| symmetry(0, q) == q));
    }

    #[test]
    fn the_gradient_matches_finite_differences() {
        let make = super::super::selfplay::spec_factory("mcts --playouts 20").unwrap();
        let games =
            super::super::selfplay::generate(&make, 0..2, 4, 3, Rules::STANDARD, 1, &|_| {});
        let all = samples(&games, Rules::STANDARD, 0.5, true, |_| 0).unwrap();
        let sample = &all[7];
        let net = FloatNet::new(5);
        let mut grad = FloatNet::zeros();
        net.backward(sample, 0.7, 0.1, &mut grad);
        let loss = |n: &FloatNet| {
            let mut scratch = FloatNet::zeros();
            let m = n.backward(sample, 0.7, 0.1, &mut scratch);
            m.value_loss + 0.7 * m.policy_loss
        };
        let input = usize::from(sample.inputs[0]);
        let probes = [
            (0usize, input * HIDDEN + 3),
            (1, 5),
            (2, sample.bucket * 2 * HIDDEN + 9),
            (3, sample.bucket),
        ];
        for (part, i) in probes {
            let h = 1e-2f32;
            let mut up = net.clone();
            up.parts_mut()[part][i] += h;
            let mut down = net.clone();
            down.parts_mut()[part][i] -= h;
            let numeric = (loss(&up) - loss(&down)) / (2.0 * f64::from(h));
            let analytic = f64::from(grad.clone().parts_mut()[part][i]);
            assert!(
                (numeric - analytic).abs() < 1e-3 + 0.05 * numeric.abs(),
                "part {part}: {numeric} vs {analytic}"
            );
        }
    }
}
