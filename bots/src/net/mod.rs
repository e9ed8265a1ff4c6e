//! A small neural network that corrects the linear learned value
//! ([`crate::learned`]): the chance that the side to move wins, a draw counting
//! half, is the logistic of the linear model's log-odds plus the network's
//! output. The evaluation of the `mcts-net` engine family.
//!
//! Why a correction and not a value of its own: fitted alone, the network needed
//! far more games than this machine makes in hours to rank a node's children as
//! well as the linear model's hand-made features (lines, threats, where a move
//! sends) already do, and PUCT's priors are exactly that ranking; starting from
//! the linear model, it only has to learn what those features miss
//! (bots/BENCHMARKS.md, "mcts-net").
//!
//! Its shape is that of the efficiently updatable networks of computer chess
//! (NNUE): a wide first layer over sparse inputs ([`features`]), kept as one
//! accumulator per mark (each mark's view of the board), then a clipped ReLU and
//! one output neuron per bucket (where the side to move is sent, and its mark)
//! over both accumulators, the side to move's first. A move changes a few inputs,
//! so the children of a node are evaluated from their parent's accumulators by
//! adding and subtracting a few rows each ([`Accumulators::child`]): the whole
//! expansion costs about one full evaluation plus a handful of rows per child.
//!
//! Inference is integer arithmetic on the stored weights, exact and the same on
//! every machine: first-layer weights in units of 1/[`QA`] (`i16`, summed with
//! wrapping so an update and its undo always cancel), output weights in units of
//! 1/[`QB`]. [`reference_value`] is the same network written the plain way, for
//! the tests. The weights come from `train_net` (bots/BENCHMARKS.md, "mcts-net");
//! [`train`] holds the fitting, [`selfplay`] the games it learns from.

pub mod features;
pub mod pipeline;
pub mod selfplay;
pub mod train;

use std::sync::OnceLock;

use uttt::rules::{Mark, Position, Rules, Square, Variant};

use features::{BUCKETS, INPUTS, MAX_ACTIVE, active, bucket, child_delta};

/// Units per neuron of the first layer per mark.
pub const HIDDEN: usize = 128;
/// The first layer's scale: its weights and biases are stored as `w * QA`, and a
/// neuron's activation is its sum clipped to `0..=QA`.
pub const QA: i32 = 255;
/// The output layer's scale: its weights are stored as `w * QB`.
pub const QB: i32 = 64;
/// The first bytes of a weights file.
pub const MAGIC: &[u8; 8] = b"UTTTNNv2";

/// A set of weights, named by the rules it was fitted to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NetModel {
    /// Fitted to self-play under the standard rules.
    Standard,
    /// Fitted to self-play under `most-boards`.
    MostBoards,
}

impl NetModel {
    /// Every model.
    pub const ALL: [NetModel; 2] = [NetModel::Standard, NetModel::MostBoards];

    /// The model fitted to `rules`, if there is one. The other rule sets keep the
    /// linear model of [`crate::learned`].
    pub fn for_rules(rules: Rules) -> Option<NetModel> {
        if rules.is_standard() {
            Some(NetModel::Standard)
        } else if rules == Rules::STANDARD.with(Variant::MostBoards) {
            Some(NetModel::MostBoards)
        } else {
            None
        }
    }

    /// The file name of its weights, in `bots/src/net/`.
    pub const fn file_name(self) -> &'static str {
        match self {
            NetModel::Standard => "standard.nnue",
            NetModel::MostBoards => "most_boards.nnue",
        }
    }

    /// The stored weights, compiled in.
    pub fn stored(self) -> &'static [u8] {
        match self {
            NetModel::Standard => include_bytes!("standard.nnue"),
            NetModel::MostBoards => include_bytes!("most_boards.nnue"),
        }
    }

    /// The network, decoded once. A file of another shape gives a network of
    /// zeros (a value of ½ everywhere); a test guards the shipped ones.
    pub fn network(self) -> &'static Network {
        static DECODED: [OnceLock<Network>; 2] = [const { OnceLock::new() }; 2];
        let slot = match self {
            NetModel::Standard => &DECODED[0],
            NetModel::MostBoards => &DECODED[1],
        };
        slot.get_or_init(|| Network::decode(self.stored()).unwrap_or_else(|_| Network::zeros()))
    }
}

/// Why a weights file could not be read.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// It does not start with [`MAGIC`].
    #[error("not a network file (no '{}' header)", String::from_utf8_lossy(MAGIC))]
    Magic,
    /// Its shape is not this build's.
    #[error(
        "a network of {inputs} inputs, {hidden} hidden and {buckets} buckets; this build reads {INPUTS}, {HIDDEN}, {BUCKETS}"
    )]
    Shape {
        /// Inputs in the file.
        inputs: u32,
        /// Hidden units in the file.
        hidden: u32,
        /// Buckets in the file.
        buckets: u32,
    },
    /// It is shorter or longer than its shape says.
    #[error("{found} bytes where the shape needs {expected}")]
    Length {
        /// Bytes the shape needs.
        expected: usize,
        /// Bytes found.
        found: usize,
    },
}

/// The network's weights, as stored (see the module's scales).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    /// First layer: one row of [`HIDDEN`] per input.
    pub l1: Vec<[i16; HIDDEN]>,
    /// First layer's bias.
    pub l1_bias: [i16; HIDDEN],
    /// Output layer: per bucket, the side to move's [`HIDDEN`] then the other's.
    pub l2: Vec<[i16; 2 * HIDDEN]>,
    /// Output biases per bucket, in units of 1/(QA·QB).
    pub l2_bias: [i32; BUCKETS],
}

/// Bytes of a weights file: header, then every number little-endian.
pub const FILE_BYTES: usize =
    8 + 3 * 4 + 2 * (INPUTS * HIDDEN + HIDDEN + BUCKETS * 2 * HIDDEN) + 4 * BUCKETS;

impl Network {
    /// A network whose every weight is 0.
    pub fn zeros() -> Network {
        Network {
            l1: vec![[0; HIDDEN]; INPUTS],
            l1_bias: [0; HIDDEN],
            l2: vec![[0; 2 * HIDDEN]; BUCKETS],
            l2_bias: [0; BUCKETS],
        }
    }

    /// Reads a weights file.
    ///
    /// # Errors
    /// The header, the shape or the length is not this build's.
    pub fn decode(bytes: &[u8]) -> Result<Network, DecodeError> {
        let header = bytes.get(..8).ok_or(DecodeError::Magic)?;
        if header != MAGIC {
            return Err(DecodeError::Magic);
        }
        let word = |at: usize| -> u32 {
            bytes
                .get(at..at + 4)
                .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        };
        let (inputs, hidden, buckets) = (word(8), word(12), word(16));
        if (inputs, hidden, buckets) != (INPUTS as u32, HIDDEN as u32, BUCKETS as u32) {
            return Err(DecodeError::Shape {
                inputs,
                hidden,
                buckets,
            });
        }
        if bytes.len() != FILE_BYTES {
            return Err(DecodeError::Length {
                expected: FILE_BYTES,
                found: bytes.len(),
            });
        }
        let mut at = 20;
        let mut i16s = |out: &mut [i16]| {
            for v in out {
                *v = i16::from_le_bytes([bytes[at], bytes[at + 1]]);
                at += 2;
            }
        };
        let mut net = Network::zeros();
        for row in &mut net.l1 {
            i16s(row);
        }
        i16s(&mut net.l1_bias);
        for row in &mut net.l2 {
            i16s(row);
        }
        for (b, bias) in net.l2_bias.iter_mut().enumerate() {
            *bias = word(at + 4 * b) as i32;
        }
        Ok(net)
    }

    /// The bytes of a weights file.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(FILE_BYTES);
        out.extend_from_slice(MAGIC);
        for n in [INPUTS, HIDDEN, BUCKETS] {
            out.extend_from_slice(&(n as u32).to_le_bytes());
        }
        let rows = self.l1.iter().flat_map(|r| r.iter());
        for v in rows.chain(&self.l1_bias).chain(self.l2.iter().flatten()) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in &self.l2_bias {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out
    }

    /// The chance (0..1) that the side to move of `pos` wins, a draw counting half.
    pub fn value(&self, pos: &Position) -> f32 {
        Accumulators::of(self, pos).value(self, pos)
    }
}

/// The first layer's sums for each mark's view of one position.
#[derive(Clone, Copy, Debug)]
pub struct Accumulators {
    /// Indexed by [`Mark::index`].
    sums: [[i16; HIDDEN]; 2],
}

#[inline]
fn add_row(sum: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
    for (s, r) in sum.iter_mut().zip(row) {
        *s = s.wrapping_add(*r);
    }
}

#[inline]
fn sub_row(sum: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
    for (s, r) in sum.iter_mut().zip(row) {
        *s = s.wrapping_sub(*r);
    }
}

impl Accumulators {
    /// The sums of `pos`, from scratch.
    pub fn of(net: &Network, pos: &Position) -> Accumulators {
        let mut sums = [net.l1_bias; 2];
        let mut on = [0u16; MAX_ACTIVE];
        for me in [Mark::X, Mark::O] {
            let n = active(pos, me, &mut on);
            let sum = &mut sums[me.index()];
            for &input in &on[..n] {
                add_row(sum, &net.l1[usize::from(input)]);
            }
        }
        Accumulators { sums }
    }

    /// The sums of `after`, the position after `square` is played in `pos` (whose
    /// sums these are): a few rows added and subtracted.
    #[inline]
    pub fn child(
        &self,
        net: &Network,
        pos: &Position,
        after: &Position,
        square: Square,
    ) -> Accumulators {
        let mut next = *self;
        for me in [Mark::X, Mark::O] {
            let delta = child_delta(pos, after, square, me);
            let sum = &mut next.sums[me.index()];
            for &input in delta.removed() {
                sub_row(sum, &net.l1[usize::from(input)]);
            }
            for &input in delta.added() {
                add_row(sum, &net.l1[usize::from(input)]);
            }
        }
        next
    }

    /// The chance (0..1) the network gives the side to move of `pos`, whose
    /// sums these are: the linear model's log-odds plus the network's correction.
    #[inline]
    pub fn value(&self, net: &Network, pos: &Position) -> f32 {
        let correction = self.correction(net, bucket(pos), pos.side_to_move());
        crate::learned::sigmoid(crate::learned::log_odds(pos) + correction)
    }

    /// The output of `bucket` for `to_move`: the correction, in log-odds, that
    /// the network adds to the linear model's.
    #[inline]
    pub fn correction(&self, net: &Network, bucket: usize, to_move: Mark) -> f32 {
        // The activations of both views side by side, the side to move's first,
        // then one dot product: a shape the compiler turns into packed
        // multiply-adds.
        let mut active = [0i16; 2 * HIDDEN];
        let (first, second) = active.split_at_mut(HIDDEN);
        for (a, &s) in first.iter_mut().zip(&self.sums[to_move.index()]) {
            *a = s.clamp(0, QA as i16);
        }
        for (a, &s) in second.iter_mut().zip(&self.sums[(!to_move).index()]) {
            *a = s.clamp(0, QA as i16);
        }
        let dot: i32 = active
            .iter()
            .zip(&net.l2[bucket])
            .map(|(&a, &w)| i32::from(a) * i32::from(w))
            .sum();
        (dot + net.l2_bias[bucket]) as f32 / (QA * QB) as f32
    }
}

/// The network's value of `pos` computed the plain way: every input looked up by
/// scanning the board square by square, sums in `i64`, no accumulators. The
/// tests hold [`Network::value`] and [`Accumulators::child`] to it exactly.
pub fn reference_value(net: &Network, pos: &Position) -> f32 {
    let side_sum = |me: Mark| -> Vec<i64> {
        let mut sum: Vec<i64> = net.l1_bias.iter().map(|&b| i64::from(b)).collect();
        let mut add = |input: usize| {
            for (s, &w) in sum.iter_mut().zip(&net.l1[input]) {
                *s += i64::from(w);
            }
        };
        for board in uttt::rules::BoardIndex::ALL {
            let b = board.index();
            if !pos.is_board_closed(board) {
                for cell in uttt::rules::Cell::ALL {
                    match pos.mark_at(Square::new(board, cell)) {
                        Some(m) if m == me => add(b * 9 + cell.index()),
                        Some(_) => add(81 + b * 9 + cell.index()),
                        None => {}
                    }
                }
            }
            let state = match pos.board_state(board) {
                uttt::rules::BoardState::Won(m) if m == me => 0,
                uttt::rules::BoardState::Won(_) => 1,
                _ if pos.is_board_closed(board) => 2,
                _ => {
                    let claim = |m: Mark| {
                        uttt::rules::Cell::ALL.iter().any(|&cell| {
                            let sq = Square::new(board, cell);
                            pos.mark_at(sq).is_none()
                                && uttt::rules::is_line(
                                    pos.board_marks(board, m) | 1 << cell.index(),
                                )
                        })
                    };
                    3 + usize::from(claim(me)) + 2 * usize::from(claim(!me))
                }
            };
            add(162 + b * 7 + state);
        }
        // The wrapping of 16-bit sums, as the accumulators do it.
        sum.iter().map(|&s| i64::from(s as i16)).collect()
    };
    let to_move = pos.side_to_move();
    let sent = pos.required_board().map_or(9, |b| b.index());
    let bucket = sent * 2 + to_move.index();
    let mut total = i64::from(net.l2_bias[bucket]);
    for (k, me) in [to_move, !to_move].into_iter().enumerate() {
        for (j, s) in side_sum(me).into_iter().enumerate() {
            total += s.clamp(0, i64::from(QA)) * i64::from(net.l2[bucket][k * HIDDEN + j]);
        }
    }
    crate::learned::sigmoid(crate::learned::log_odds(pos) + total as f32 / (QA * QB) as f32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    /// A network of random weights large enough that sums wrap now and then.
    fn random_network(seed: u64) -> Network {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut net = Network::zeros();
        for row in &mut net.l1 {
            for v in row.iter_mut() {
                *v = rng.random_range(-600..600);
            }
        }
        for v in &mut net.l1_bias {
            *v = rng.random_range(-300..300);
        }
        for row in &mut net.l2 {
            for v in row.iter_mut() {
                *v = rng.random_range(-200..200);
            }
        }
        for v in &mut net.l2_bias {
            *v = rng.random_range(-100_000..100_000);
        }
        net
    }

    #[test]
    fn inference_matches_the_plain_reference_exactly() {
        let mut rng = SmallRng::seed_from_u64(3);
        let mut nets: Vec<Network> = (0..3).map(random_network).collect();
        nets.extend(NetModel::ALL.iter().map(|m| m.network().clone()));
        for net in &nets {
            for _ in 0..40 {
                let mut pos = Position::new(Rules::STANDARD);
                while !pos.is_over() {
                    let acc = Accumulators::of(net, &pos);
                    assert_eq!(net.value(&pos), reference_value(net, &pos), "{pos}");
                    for sq in pos.legal_moves() {
                        let after = pos.after_unchecked(sq);
                        let child = acc.child(net, &pos, &after, sq);
                        let value = child.value(net, &after);
                        assert_eq!(value, reference_value(net, &after), "{pos} {sq}");
                    }
                    pos.play_unchecked(crate::engine::random_legal(&pos, &mut rng));
                }
            }
        }
    }

    #[test]
    fn the_network_corrects_the_linear_model_and_a_zero_network_is_it() {
        let mut rng = SmallRng::seed_from_u64(9);
        let zero = Network::zeros();
        let shipped = NetModel::Standard.network();
        let mut differs = 0;
        for _ in 0..20 {
            let mut pos = Position::new(Rules::STANDARD);
            while !pos.is_over() {
                assert_eq!(zero.value(&pos), crate::learned::value(&pos), "{pos}");
                differs +=
                    usize::from((shipped.value(&pos) - crate::learned::value(&pos)).abs() > 1e-3);
                pos.play_unchecked(crate::engine::random_legal(&pos, &mut rng));
            }
        }
        // The shipped network does correct it.
        assert!(differs > 100, "{differs}");
    }

    #[test]
    fn files_round_trip_and_bad_files_are_refused() {
        let net = random_network(7);
        let bytes = net.encode();
        assert_eq!(bytes.len(), FILE_BYTES);
        assert_eq!(Network::decode(&bytes), Ok(net));
        assert_eq!(Network::decode(b"nonsense"), Err(DecodeError::Magic));
        let mut short = bytes.clone();
        short.pop();
        assert!(matches!(
            Network::decode(&short),
            Err(DecodeError::Length { .. })
        ));
        let mut other = bytes;
        other[12] = 64;
        assert!(matches!(
            Network::decode(&other),
            Err(DecodeError::Shape { hidden: 64, .. })
        ));
    }

    #[test]
    fn the_shipped_networks_fit_this_build() {
        for model in NetModel::ALL {
            assert_eq!(
                Network::decode(model.stored()).map(|_| ()),
                Ok(()),
                "{model:?}"
            );
        }
    }
}
