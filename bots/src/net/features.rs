//! The inputs of the network: which rows of its first layer a position switches
//! on, seen from one mark ("mine" against "theirs"), and the output bucket.
//!
//! Per perspective there are [`INPUTS`] inputs:
//! - a mark on a cell of a board that still takes marks: mine or theirs, by
//!   square (162); marks in a closed board drop out, the board's state says all;
//! - each board's state (63): mine, theirs, drawn, or open and claimable with one
//!   mark by nobody, by me, by them or by both.
//!
//! So a move changes few inputs: its mark, its board's state, and when it closes
//! the board, that board's marks. [`child_delta`] lists exactly those, which is
//! what lets [`super::Network`] evaluate every child of a node for a few rows
//! each ([`super::Accumulators::child`]); a test checks it against [`active`].
//!
//! The output layer is chosen by the board the side to move is sent to (or a
//! free move) and by its mark: [`bucket`].

use uttt::rules::{BoardIndex, Mark, Position, Square};

use crate::tactics::{ALL_PLACES, completing, places};

/// Inputs per perspective: 2 × 81 marks and 9 × 7 board states.
pub const INPUTS: usize = 2 * 81 + 9 * STATES;
/// Board states, see [`state`].
const STATES: usize = 7;
/// Where the board states start.
const STATE_BASE: usize = 2 * 81;
/// Output buckets: 10 places to be sent (a board or a free move) × 2 marks.
pub const BUCKETS: usize = 20;
/// The most inputs one perspective switches on: every square and every board.
pub const MAX_ACTIVE: usize = 81 + 9;

/// The input of a mark on `square`, mine or not.
#[inline]
pub fn mark_input(square: usize, mine: bool) -> u16 {
    (if mine { square } else { 81 + square }) as u16
}

/// The input of board `b` in state `s` (0..7).
#[inline]
fn state_input(b: usize, s: usize) -> u16 {
    (STATE_BASE + b * STATES + s) as u16
}

/// A board's state for a side with `mine` and `theirs` marks in it: 0 mine, 1
/// theirs, 2 drawn (or closed), else 3 + (I can claim it with one mark) + 2 ·
/// (they can).
#[inline]
fn state(b: usize, mine: u16, theirs: u16, won: [u16; 2], closed: u16) -> usize {
    if won[0] >> b & 1 == 1 {
        0
    } else if won[1] >> b & 1 == 1 {
        1
    } else if closed >> b & 1 == 1 {
        2
    } else {
        let empty = !(mine | theirs) & ALL_PLACES;
        let me = usize::from(completing(mine) & empty != 0);
        let them = usize::from(completing(theirs) & empty != 0);
        3 + me + 2 * them
    }
}

/// The parts of a position the inputs read, from one side's point of view.
#[derive(Clone, Copy, Debug)]
struct View {
    /// Marks per board: mine, theirs.
    marks: [[u16; 9]; 2],
    /// Boards won: mine, theirs.
    won: [u16; 2],
    /// Boards that take no more marks.
    closed: u16,
}

impl View {
    fn of(pos: &Position, me: Mark) -> View {
        let mut marks = [[0u16; 9]; 2];
        let mut closed = 0;
        for board in BoardIndex::ALL {
            let b = board.index();
            marks[0][b] = pos.board_marks(board, me);
            marks[1][b] = pos.board_marks(board, !me);
            if pos.is_board_closed(board) {
                closed |= 1 << b;
            }
        }
        let won = pos.boards_won();
        View {
            marks,
            won: [*won.get(me), *won.get(!me)],
            closed,
        }
    }

    fn state(&self, b: usize) -> usize {
        state(b, self.marks[0][b], self.marks[1][b], self.won, self.closed)
    }
}

/// Writes the inputs `pos` switches on from `me`'s point of view into `out`, and
/// returns how many there are. Works for any position, over or not.
pub fn active(pos: &Position, me: Mark, out: &mut [u16; MAX_ACTIVE]) -> usize {
    let view = View::of(pos, me);
    let mut n = 0;
    for b in 0..9 {
        if view.closed >> b & 1 == 0 {
            for (side, mine) in [(0, true), (1, false)] {
                for c in places(view.marks[side][b]) {
                    out[n] = mark_input(b * 9 + c, mine);
                    n += 1;
                }
            }
        }
        out[n] = state_input(b, view.state(b));
        n += 1;
    }
    n
}

/// The output bucket of `pos`: where its side to move must play (a board, or 9
/// for a free move) and which mark that side is.
#[inline]
pub fn bucket(pos: &Position) -> usize {
    let sent = pos.required_board().map_or(9, BoardIndex::index);
    sent * 2 + pos.side_to_move().index()
}

/// The inputs that change from `pos` to `pos` after `square` (a legal move), from
/// `me`'s point of view: `removed` and `added` rows, each at most 1 + 9 long.
#[derive(Clone, Copy, Debug, Default)]
pub struct Delta {
    /// Rows to subtract.
    pub removed: [u16; 10],
    /// How many of `removed` are in use.
    pub n_removed: u8,
    /// Rows to add.
    pub added: [u16; 2],
    /// How many of `added` are in use.
    pub n_added: u8,
}

impl Delta {
    fn remove(&mut self, input: u16) {
        self.removed[usize::from(self.n_removed)] = input;
        self.n_removed += 1;
    }

    fn add(&mut self, input: u16) {
        self.added[usize::from(self.n_added)] = input;
        self.n_added += 1;
    }

    /// The rows to subtract.
    pub fn removed(&self) -> &[u16] {
        &self.removed[..usize::from(self.n_removed)]
    }

    /// The rows to add.
    pub fn added(&self) -> &[u16] {
        &self.added[..usize::from(self.n_added)]
    }
}

/// What changes in `me`'s inputs when the side to move of `pos` plays `square`,
/// given `after`, the position that results.
pub fn child_delta(pos: &Position, after: &Position, square: Square, me: Mark) -> Delta {
    let mut delta = Delta::default();
    let b = square.board().index();
    let board = square.board();
    let mover_is_me = pos.side_to_move() == me;
    let before = View::of_board(pos, board, me);
    let now = View::of_board(after, board, me);
    let old_state = before.state(b);
    let new_state = now.state(b);
    if now.closed >> b & 1 == 1 {
        // The board closed: its marks drop out, the new one never enters.
        for (side, mine) in [(0, true), (1, false)] {
            for c in places(before.marks[side][b]) {
                delta.remove(mark_input(b * 9 + c, mine));
            }
        }
    } else {
        delta.add(mark_input(square.index_in_order(), mover_is_me));
    }
    if old_state != new_state {
        delta.remove(state_input(b, old_state));
        delta.add(state_input(b, new_state));
    }
    delta
}

impl View {
    /// A view of board `board` alone (the other boards' marks left empty): what
    /// [`child_delta`] needs.
    fn of_board(pos: &Position, board: BoardIndex, me: Mark) -> View {
        let b = board.index();
        let mut marks = [[0u16; 9]; 2];
        marks[0][b] = pos.board_marks(board, me);
        marks[1][b] = pos.board_marks(board, !me);
        let won = pos.boards_won();
        View {
            marks,
            won: [*won.get(me), *won.get(!me)],
            closed: u16::from(pos.is_board_closed(board)) << b,
        }
    }
}

/// The index of a square in board-major order (board × 9 + cell), the order of
/// the mark inputs.
trait BoardMajor {
    fn index_in_order(self) -> usize;
}

impl BoardMajor for Square {
    #[inline]
    fn index_in_order(self) -> usize {
        self.board().index() * 9 + self.cell().index()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::SmallRng;
    use uttt::rules::{Rules, Variant};

    fn sorted(rows: &[u16]) -> Vec<u16> {
        let mut v = rows.to_vec();
        v.sort_unstable();
        v
    }

    #[test]
    fn a_childs_inputs_are_its_parents_changed_by_the_delta() {
        let mut rng = SmallRng::seed_from_u64(11);
        for rules in [
            Rules::STANDARD,
            Rules::STANDARD.with(Variant::MostBoards),
            Rules::STANDARD.with(Variant::OpenWonBoards),
            Rules::STANDARD.with(Variant::DrawsCountBoth),
        ] {
            for _ in 0..150 {
                let mut pos = Position::new(rules);
                while !pos.is_over() {
                    for sq in pos.legal_moves() {
                        let after = pos.after_unchecked(sq);
                        for me in [Mark::X, Mark::O] {
                            let mut out = [0u16; MAX_ACTIVE];
                            let n = active(&pos, me, &mut out);
                            let mut expected: Vec<u16> = out[..n].to_vec();
                            let n2 = active(&after, me, &mut out);
                            let delta = child_delta(&pos, &after, sq, me);
                            for r in delta.removed() {
                                let at = expected.iter().position(|x| x == r);
                                let at = at.unwrap_or_else(|| panic!("{r} not active in {pos}"));
                                expected.swap_remove(at);
                            }
                            expected.extend_from_slice(delta.added());
                            assert_eq!(sorted(&expected), sorted(&out[..n2]), "{pos} {sq}");
                        }
                    }
                    pos.play_unchecked(crate::engine::random_legal(&pos, &mut rng));
                }
            }
        }
    }

    #[test]
    fn inputs_stay_in_range_and_are_distinct() {
        let mut rng = SmallRng::seed_from_u64(12);
        let mut out = [0u16; MAX_ACTIVE];
        for _ in 0..200 {
            let mut pos = Position::new(Rules::STANDARD);
            loop {
                for me in [Mark::X, Mark::O] {
                    let n = active(&pos, me, &mut out);
                    let rows = sorted(&out[..n]);
                    assert!(rows.windows(2).all(|w| w[0] < w[1]));
                    assert!(rows.iter().all(|&r| usize::from(r) < INPUTS));
                    // One state per board.
                    assert_eq!(rows.iter().filter(|&&r| r >= 162).count(), 9);
                }
                assert!(bucket(&pos) < BUCKETS);
                if pos.is_over() {
                    break;
                }
                pos.play_unchecked(crate::engine::random_legal(&pos, &mut rng));
            }
        }
    }
}
