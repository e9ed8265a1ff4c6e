//! A position cut down to what a playout needs, so playouts run several times
//! faster than through [`uttt::rules::Position`]: nine 9-bit sets per mark,
//! the claimed and closed boards, the board sent to and the side to move. No
//! 81-bit legal-move word to keep up to date, no outcome to build after every
//! mark, and the end of the game is only looked for when a board closes or is
//! claimed (the only marks that can end it).
//!
//! [`uttt::rules`] stays the authority: the tests play thousands of random
//! games under every rule variant through both and compare them move by move.

use rand::Rng;
use uttt::rules::{BoardIndex, Mark, Position, Variant, is_line};

use crate::tactics::{ALL_PLACES, completing, places};

/// `SELECT[set][k]`: the `k`-th lowest place in the 9-bit `set` (0 if absent).
pub(crate) static SELECT: [[u8; 9]; 512] = {
    let mut table = [[0u8; 9]; 512];
    let mut set = 0;
    while set < 512 {
        let mut k = 0;
        let mut place = 0;
        while place < 9 {
            if set >> place & 1 != 0 {
                table[set][k] = place as u8;
                k += 1;
            }
            place += 1;
        }
        set += 1;
    }
    table
};

/// A number in `0..n` from one 64-bit draw by multiply-and-shift. Its bias is
/// below `n / 2^32` (under 2e-8 for 81 moves): far below anything a playout could
/// notice, and it saves the rejection loop of an exact method on the hot path.
#[inline]
pub(crate) fn below(rng: &mut impl Rng, n: u32) -> u32 {
    (((rng.next_u64() >> 32) * u64::from(n)) >> 32) as u32
}

/// A uniformly random member of the non-empty 9-bit `set`.
#[inline]
fn pick(set: u16, rng: &mut impl Rng) -> usize {
    let k = below(rng, set.count_ones()) as usize;
    usize::from(SELECT[usize::from(set & ALL_PLACES)][k])
}

/// `next` meaning "any open board".
const ANY_BOARD: u32 = 9;

/// What the side to move may do in a playout besides a uniformly random move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rollout {
    /// Play a move that wins the game at once.
    pub decisive: bool,
    /// Sent to a board it can claim, claim it.
    pub claim: bool,
}

/// A playout's view of a position that is not over.
///
/// The fields a mark updates are 32 bits wide although 9 bits would do: the
/// state lives in memory during a playout (the cells are indexed), and with
/// 8- and 16-bit fields side by side the compiler loads several in one wider
/// read right after storing one of them, which x86 cannot forward from the
/// store buffer (measured: a third of the playout time on that one load).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayoutBoard {
    /// Marks of X (index 0) and O (index 1), one 9-bit set per board.
    cells: [[u16; 9]; 2],
    /// Boards claimed by X and O.
    won: [u32; 2],
    /// Boards that take no more marks.
    closed: u32,
    /// The board the side to move must play in, or [`ANY_BOARD`].
    next: u32,
    /// The side to move: 0 for X, 1 for O.
    side: u32,
    open_won: bool,
    draws_both: bool,
    most_boards: bool,
}

/// The mark with index `i` (0: X).
#[inline]
fn mark(i: usize) -> Mark {
    if i == 0 { Mark::X } else { Mark::O }
}

impl PlayoutBoard {
    /// The playout view of `pos`, or `None` if the game is over.
    pub fn new(pos: &Position) -> Option<PlayoutBoard> {
        if pos.is_over() {
            return None;
        }
        let mut sim = PlayoutBoard {
            cells: [[0; 9]; 2],
            won: [pos.boards_won().x.into(), pos.boards_won().o.into()],
            closed: 0,
            next: pos.required_board().map_or(ANY_BOARD, |b| b.index() as u32),
            side: pos.side_to_move().index() as u32,
            open_won: pos.rules().has(Variant::OpenWonBoards),
            draws_both: pos.rules().has(Variant::DrawsCountBoth),
            most_boards: pos.rules().has(Variant::MostBoards),
        };
        for board in BoardIndex::ALL {
            let b = board.index();
            sim.cells[0][b] = pos.board_marks(board, Mark::X);
            sim.cells[1][b] = pos.board_marks(board, Mark::O);
            if pos.is_board_closed(board) {
                sim.closed |= 1 << b;
            }
        }
        Some(sim)
    }

    /// The empty cells of board `b`.
    #[inline]
    fn empty(&self, b: usize) -> u16 {
        !(self.cells[0][b] | self.cells[1][b]) & ALL_PLACES
    }

    /// Boards nobody owns that take marks: the boards a mark can still claim.
    #[inline]
    fn claimable(&self) -> u16 {
        !(self.won[0] | self.won[1] | self.closed) as u16 & ALL_PLACES
    }

    /// The boards that count for side `m` in big-board lines.
    #[inline]
    fn line_set(&self, m: usize) -> u16 {
        (if self.draws_both {
            self.won[m] | (self.closed & !(self.won[0] | self.won[1]))
        } else {
            self.won[m]
        }) as u16
    }

    /// The result when the board is closed and nobody has a line.
    fn no_moves_result(&self) -> Option<Mark> {
        if !self.most_boards {
            return None;
        }
        let (x, o) = (self.won[0].count_ones(), self.won[1].count_ones());
        match x.cmp(&o) {
            std::cmp::Ordering::Greater => Some(Mark::X),
            std::cmp::Ordering::Less => Some(Mark::O),
            std::cmp::Ordering::Equal => None,
        }
    }

    /// Marks cell `c` of board `b` (a legal move) for the side to move. Returns
    /// the result if that ends the game (`Some(None)`: a draw), with the end-of-game
    /// checks in the order of [`Position::play`].
    #[inline]
    fn play(&mut self, b: usize, c: usize) -> Option<Option<Mark>> {
        let me = self.side as usize;
        let board_bit = 1u32 << b;
        let mine = self.cells[me][b] | 1 << c;
        self.cells[me][b] = mine;
        let full = mine | self.cells[1 - me][b] == ALL_PLACES;
        let owned = (self.won[0] | self.won[1]) & board_bit != 0;
        let mut changed = true;
        if !owned && is_line(mine) {
            self.won[me] |= board_bit;
            if full || !self.open_won {
                self.closed |= board_bit;
            }
        } else if full {
            self.closed |= board_bit;
        } else {
            changed = false;
        }
        self.side ^= 1;
        self.next = if self.closed >> c & 1 != 0 {
            ANY_BOARD
        } else {
            c as u32
        };
        if !changed {
            // Lines and the set of open boards only change when a board is claimed
            // or closed: nothing else can end the game.
            return None;
        }
        if is_line(self.line_set(me)) {
            Some(Some(mark(me)))
        } else if self.draws_both && is_line(self.line_set(1 - me)) {
            Some(Some(mark(1 - me)))
        } else if self.closed == u32::from(ALL_PLACES) {
            Some(self.no_moves_result())
        } else {
            None
        }
    }

    /// Whether side `me` wins the game by claiming board `b` (which it can claim).
    #[inline]
    fn claim_wins_game(&self, me: usize, b: usize) -> bool {
        completing(self.line_set(me)) >> b & 1 != 0
    }

    /// A uniformly random empty cell of the open boards (a free move).
    #[inline]
    fn random_free_move(&self, rng: &mut impl Rng) -> (usize, usize) {
        let open = !self.closed as u16 & ALL_PLACES;
        let mut total = 0;
        for b in places(open) {
            total += self.empty(b).count_ones();
        }
        let mut k = below(rng, total);
        let mut last = (0, 0);
        for b in places(open) {
            let empty = self.empty(b);
            let n = empty.count_ones();
            if k < n {
                return (b, usize::from(SELECT[usize::from(empty)][k as usize]));
            }
            k -= n;
            last = (b, empty.trailing_zeros() as usize);
        }
        // Unreachable: `k < total`.
        last
    }

    /// Plays the game to its end with `rollout` and returns the winner (`None`:
    /// a draw).
    pub(crate) fn run(mut self, rollout: Rollout, rng: &mut impl Rng) -> Option<Mark> {
        loop {
            let me = self.side as usize;
            let (b, c) = if self.next != ANY_BOARD {
                let b = self.next as usize;
                let empty = self.empty(b);
                let mut choices = empty;
                if rollout.decisive && self.claimable() >> b & 1 != 0 {
                    let claims = completing(self.cells[me][b]) & empty;
                    if claims != 0 {
                        if self.claim_wins_game(me, b) {
                            return Some(mark(me));
                        }
                        if rollout.claim {
                            choices = claims;
                        }
                    }
                }
                (b, pick(choices, rng))
            } else {
                if rollout.decisive {
                    let targets = completing(self.line_set(me)) & self.claimable();
                    for b in places(targets) {
                        if completing(self.cells[me][b]) & self.empty(b) != 0 {
                            return Some(mark(me));
                        }
                    }
                }
                self.random_free_move(rng)
            };
            if let Some(result) = self.play(b, c) {
                return result;
            }
        }
    }

    /// The legal cells of board `b` for the side to move.
    #[cfg(test)]
    fn legal_cells(&self, b: usize) -> u16 {
        let playable = if self.next == ANY_BOARD {
            !self.closed as u16 & ALL_PLACES
        } else {
            1 << self.next
        };
        if playable >> b & 1 == 0 {
            0
        } else {
            self.empty(b)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tactics::square;
    use rand::SeedableRng;
    use rand::rngs::SmallRng;
    use uttt::rules::Rules;

    /// Every combination of variants.
    fn all_rules() -> Vec<Rules> {
        (0..8u8)
            .map(|bits| {
                Variant::ALL
                    .into_iter()
                    .enumerate()
                    .filter(|(i, _)| bits >> i & 1 != 0)
                    .fold(Rules::STANDARD, |r, (_, v)| r.with(v))
            })
            .collect()
    }

    #[test]
    fn random_games_agree_with_the_rules_engine_under_every_variant() {
        let mut rng = SmallRng::seed_from_u64(11);
        for rules in all_rules() {
            for _ in 0..300 {
                let mut pos = Position::new(rules);
                let mut sim = PlayoutBoard::new(&pos).unwrap();
                loop {
                    for board in BoardIndex::ALL {
                        let b = board.index();
                        let legal = pos
                            .legal_moves()
                            .iter()
                            .filter(|sq| sq.board() == board)
                            .fold(0u16, |set, sq| set | 1 << sq.cell().index());
                        assert_eq!(sim.legal_cells(b), legal, "{rules} board {b} in {pos}");
                    }
                    let (b, c) = if sim.next == ANY_BOARD {
                        sim.random_free_move(&mut rng)
                    } else {
                        let b = sim.next as usize;
                        (b, pick(sim.empty(b), &mut rng))
                    };
                    let sq = square(b, c);
                    assert!(pos.is_legal(sq), "{rules}: {sq} in {pos}");
                    pos.play_unchecked(sq);
                    let result = sim.play(b, c);
                    match pos.status().outcome() {
                        Some(outcome) => {
                            assert_eq!(result, Some(outcome.winner()), "{rules}: {pos}");
                            break;
                        }
                        None => {
                            assert_eq!(result, None, "{rules}: {pos}");
                            assert_eq!(PlayoutBoard::new(&pos), Some(sim), "{rules}: {pos}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn free_moves_cover_every_legal_move() {
        let mut rng = SmallRng::seed_from_u64(3);
        let mut pos = Position::new(Rules::STANDARD);
        // Play until a free move with some boards closed comes up.
        let mut free_positions = 0;
        for _ in 0..60 {
            if pos.is_over() {
                break;
            }
            let sim = PlayoutBoard::new(&pos).unwrap();
            if sim.next == ANY_BOARD {
                free_positions += 1;
                let legal = pos.legal_moves();
                let mut seen = std::collections::HashSet::new();
                for _ in 0..40 * legal.len() {
                    let (b, c) = sim.random_free_move(&mut rng);
                    assert!(legal.contains(square(b, c)));
                    seen.insert((b, c));
                }
                assert_eq!(seen.len(), legal.len());
            }
            let moves = pos.legal_moves();
            let sq = moves
                .nth(below(&mut rng, moves.len() as u32) as usize)
                .unwrap();
            pos.play_unchecked(sq);
        }
        assert!(free_positions >= 1);
    }
}
