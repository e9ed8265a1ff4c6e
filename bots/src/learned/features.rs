//! The sparse features of the learned value: which weights a position switches on.
//!
//! Everything is seen from the side to move ("mine" against "theirs"), so one set
//! of weights serves both marks. Small boards are folded by the symmetry of the
//! big board (a corner board is seen as the top-left one, an edge board as the
//! top one), so four corner boards teach one table.

use uttt::rules::{Line, Mark, Position};

use crate::tactics::{
    ALL_PLACES, board, claimable_boards, completing, game_winning_boards, places, playable_boards,
};

/// 3^9: the patterns of one small board (each cell empty, mine or theirs).
const PATTERNS: usize = 19_683;
/// Coarse states of a board in a big-board line, see [`coarse`].
const COARSE: usize = 7;

/// Open board patterns, by symmetry class (corner, edge, centre).
const PATTERN_BASE: usize = 0;
/// The eight big-board lines, each a tuple of three coarse board states.
const LINE_BASE: usize = PATTERN_BASE + 3 * PATTERNS;
/// The board the side to move is sent to (0..9) and its coarse state, or a free move.
const SENT_BASE: usize = LINE_BASE + 8 * COARSE * COARSE * COARSE;
/// The pattern of the board the side to move must play in, by symmetry class.
const SENT_PATTERN_BASE: usize = SENT_BASE + 9 * COARSE + 1;
/// Game-winning threats: can the side to move win now, and how many boards would
/// win the game for each side (0, 1, 2+).
const THREAT_BASE: usize = SENT_PATTERN_BASE + 3 * PATTERNS;
/// Which mark is to move (X has the first-move advantage).
const MARK_BASE: usize = THREAT_BASE + 2 * 3 * 3;
/// Boards won, mine minus theirs (-4..=4, clamped).
const LEAD_BASE: usize = MARK_BASE + 2;
/// Boards drawn (0..=9).
const DRAWN_BASE: usize = LEAD_BASE + 9;
/// Each open board in its context: its symmetry class, how many big-board lines
/// through it are still open for each side (0, 1, 2+), and a summary of its
/// cells (who could claim it now, how many cells would claim it for each side).
const CONTEXT_BASE: usize = DRAWN_BASE + 10;
/// Summaries of an open board's cells, see [`summary`].
const SUMMARIES: usize = 36;
/// Where the side to move's legal moves send the opponent, see [`exits`].
const EXITS_BASE: usize = CONTEXT_BASE + 3 * 9 * SUMMARIES;
/// Number of weights.
pub const WEIGHTS: usize = EXITS_BASE + 2 * 4 * 4 * 4 * 2;

/// The most features one position switches on: 9 patterns, 8 lines, sent-to,
/// its pattern, threats, mark, lead, drawn, 9 board contexts, exits.
pub const MAX_ACTIVE: usize = 9 + 8 + 1 + 1 + 1 + 1 + 1 + 1 + 9 + 1;

/// `POW3[set]`: the sum of 3^p over the places p of `set`.
static POW3: [u16; 512] = {
    let mut table = [0u16; 512];
    let mut set = 0;
    while set < 512 {
        let mut p = 0;
        let mut power = 1u16;
        while p < 9 {
            if set >> p & 1 == 1 {
                table[set] += power;
            }
            power *= 3;
            p += 1;
        }
        set += 1;
    }
    table
};

/// The symmetry class of each board: 0 corner, 1 edge, 2 centre.
const CLASS: [usize; 9] = [0, 1, 0, 1, 2, 1, 0, 1, 0];

/// The eight symmetries of a 3×3 grid as place permutations (`perm[p]` is where
/// place `p` goes; 0 is the identity). The network's training moves games by
/// them too ([`crate::net::train::symmetry`]).
pub(crate) const SYMMETRIES: [[usize; 9]; 8] = {
    let mut out = [[0usize; 9]; 8];
    let mut s = 0;
    while s < 8 {
        let mut p = 0;
        while p < 9 {
            let (r, c) = (p / 3, p % 3);
            let (r2, c2) = match s {
                0 => (r, c),
                1 => (c, 2 - r),
                2 => (2 - r, 2 - c),
                3 => (2 - c, r),
                4 => (r, 2 - c),
                5 => (2 - r, c),
                6 => (c, r),
                _ => (2 - c, 2 - r),
            };
            out[s][p] = r2 * 3 + c2;
            p += 1;
        }
        s += 1;
    }
    out
};

/// `REMAP[b][set]`: the places of `set` in board `b`, moved by the symmetry that
/// takes board `b` to its class's representative (0, 1 or 4).
static REMAP: [[u16; 512]; 9] = {
    let mut table = [[0u16; 512]; 9];
    let mut b = 0;
    while b < 9 {
        let target = [0, 1, 4][CLASS[b]];
        let mut s = 0;
        while SYMMETRIES[s][b] != target {
            s += 1;
        }
        let mut set = 0;
        while set < 512 {
            let mut p = 0;
            while p < 9 {
                if set >> p & 1 == 1 {
                    table[b][set] |= 1 << SYMMETRIES[s][p];
                }
                p += 1;
            }
            set += 1;
        }
        b += 1;
    }
    table
};

/// The pattern index of board `b` with `mine` and `theirs` marks, folded by symmetry.
#[inline]
fn pattern(b: usize, mine: u16, theirs: u16) -> usize {
    let remap = &REMAP[b];
    usize::from(POW3[usize::from(remap[usize::from(mine)])])
        + 2 * usize::from(POW3[usize::from(remap[usize::from(theirs)])])
}

/// A board's state as a big-board line sees it: 0 mine, 1 theirs, 2 drawn, and
/// for an open board 3 + (I can claim it with one mark) + 2·(they can).
#[inline]
fn coarse(b: usize, mine: u16, theirs: u16, won_mine: u16, won_theirs: u16, open: u16) -> usize {
    if won_mine >> b & 1 == 1 {
        0
    } else if won_theirs >> b & 1 == 1 {
        1
    } else if open >> b & 1 == 0 {
        2
    } else {
        let empty = !(mine | theirs) & ALL_PLACES;
        let me = usize::from(completing(mine) & empty != 0);
        let them = usize::from(completing(theirs) & empty != 0);
        3 + me + 2 * them
    }
}

/// An open board's cells for a side with `mine` against `theirs`: the number of
/// empty cells that would claim it for each side (0, 1, 2+, 3 states each), and
/// whether each side has two or more marks in it.
#[inline]
fn summary(mine: u16, theirs: u16) -> usize {
    let empty = !(mine | theirs) & ALL_PLACES;
    let claims = |set: u16| ((completing(set) & empty).count_ones() as usize).min(2);
    let present = |set: u16| usize::from(set.count_ones() >= 2);
    ((claims(mine) * 3 + claims(theirs)) * 2 + present(mine)) * 2 + present(theirs)
}

/// Where the legal moves of the side to move send the opponent, counted (0..3+)
/// by what the opponent gets there: a safe board, a free move (a closed board),
/// a board it can claim, and (0 or 1+) a claim that wins it the game.
#[inline]
fn exits(playable: u16, empties: &[u16; 9], closed: u16, claim: u16, lose: u16) -> usize {
    let (mut safe, mut free, mut claimable, mut losing) = (0, 0, 0, 0);
    for (b, &empty) in empties.iter().enumerate() {
        if playable >> b & 1 == 1 {
            free += (empty & closed).count_ones();
            losing += (empty & lose).count_ones();
            claimable += (empty & claim & !lose).count_ones();
            safe += (empty & !closed & !claim).count_ones();
        }
    }
    let c = |n: u32| (n as usize).min(3);
    ((c(safe) * 4 + c(free)) * 4 + c(claimable)) * 2 + usize::from(losing > 0)
}

/// How many big-board lines through each board are open for `own`: no board of
/// the line is in `blocking`.
#[inline]
fn open_lines(blocking: u16) -> [usize; 9] {
    let mut count = [0usize; 9];
    for line in Line::ALL {
        if line.mask() & blocking == 0 {
            for b in places(line.mask()) {
                count[b] += 1;
            }
        }
    }
    count
}

/// Writes the indices of the weights `pos` (not over, standard rules) switches on
/// into `out` and returns how many there are.
pub fn active(pos: &Position, out: &mut [u32; MAX_ACTIVE]) -> usize {
    let me = pos.side_to_move();
    let them = !me;
    let won = pos.boards_won();
    let (won_mine, won_theirs) = (*won.get(me), *won.get(them));
    let drawn = pos.boards_drawn();
    let open = claimable_boards(pos);
    let mut marks = [(0u16, 0u16); 9];
    let mut empties = [0u16; 9];
    let mut states = [0usize; 9];
    let mut n = 0;
    let mut push = |index: usize| {
        out[n] = index as u32;
        n += 1;
    };
    for b in 0..9 {
        let at = board(b);
        let (m, t) = (pos.board_marks(at, me), pos.board_marks(at, them));
        marks[b] = (m, t);
        empties[b] = !(m | t) & ALL_PLACES;
        states[b] = coarse(b, m, t, won_mine, won_theirs, open);
        if open >> b & 1 == 1 {
            push(PATTERN_BASE + CLASS[b] * PATTERNS + pattern(b, m, t));
        }
    }
    for (i, line) in Line::ALL.iter().enumerate() {
        let tuple = places(line.mask()).fold(0, |tuple, b| tuple * COARSE + states[b]);
        push(LINE_BASE + i * COARSE * COARSE * COARSE + tuple);
    }
    match pos.required_board() {
        Some(at) => {
            let b = at.index();
            push(SENT_BASE + b * COARSE + states[b]);
            push(SENT_PATTERN_BASE + CLASS[b] * PATTERNS + pattern(b, marks[b].0, marks[b].1));
        }
        None => push(SENT_BASE + 9 * COARSE),
    }
    let count = |set: u16| (set.count_ones() as usize).min(2);
    let (mine_gw, theirs_gw) = (game_winning_boards(pos, me), game_winning_boards(pos, them));
    // Boards the side to move may play in, can claim now (coarse states 4 and 6)
    // and whose claim wins it the game: `tactics::can_win_now` without
    // recomputing what is at hand (calling it cost about 3% more per value).
    let playable = playable_boards(pos);
    let can_win = usize::from(places(mine_gw & playable).any(|b| matches!(states[b], 4 | 6)));
    push(THREAT_BASE + (can_win * 3 + count(mine_gw)) * 3 + count(theirs_gw));
    push(MARK_BASE + usize::from(me == Mark::O));
    let lead = won_mine.count_ones() as i32 - won_theirs.count_ones() as i32;
    push(LEAD_BASE + (lead.clamp(-4, 4) + 4) as usize);
    push(DRAWN_BASE + (drawn.count_ones() as usize).min(9));
    let (mine_open, theirs_open) = (open_lines(won_theirs | drawn), open_lines(won_mine | drawn));
    for b in places(open) {
        let lines = mine_open[b].min(2) * 3 + theirs_open[b].min(2);
        push(CONTEXT_BASE + (CLASS[b] * 9 + lines) * SUMMARIES + summary(marks[b].0, marks[b].1));
    }
    // Coarse states 5 and 6: open boards the opponent can claim with one mark.
    let their_claims = (0..9)
        .filter(|&b| matches!(states[b], 5 | 6))
        .fold(0u16, |set, b| set | 1 << b);
    let closed = !open & ALL_PLACES;
    let sent = usize::from(pos.required_board().is_some());
    let kind = exits(
        playable,
        &empties,
        closed,
        their_claims,
        their_claims & theirs_gw,
    );
    push(EXITS_BASE + sent * 128 + kind);
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetry_takes_every_board_to_its_representative_and_keeps_lines() {
        for b in 0..9 {
            let moved = REMAP[b][1 << b];
            assert_eq!(moved, 1 << [0, 1, 4][CLASS[b]], "board {b}");
            // A permutation of the places keeps the number of marks and lines.
            for set in 0..512u16 {
                let m = REMAP[b][usize::from(set)];
                assert_eq!(m.count_ones(), set.count_ones());
                assert_eq!(uttt::rules::is_line(m), uttt::rules::is_line(set));
            }
        }
    }

    #[test]
    fn exits_count_where_each_move_sends_the_opponent() {
        let mut empties = [0u16; 9];
        // Board 0 has empty cells 0..=3: cell 0 sends to safe board 0, cell 1 to
        // closed board 1, cell 2 to board 2 (claimable by the opponent), cell 3 to
        // board 3 (whose claim wins the opponent the game).
        empties[0] = 0b1111;
        empties[5] = 0b1; // not playable: not counted
        let (closed, claim, lose) = (0b10, 0b1100, 0b1000);
        let index = |safe: usize, free: usize, claim: usize, lose: usize| {
            ((safe * 4 + free) * 4 + claim) * 2 + lose
        };
        assert_eq!(exits(0b1, &empties, closed, claim, lose), index(1, 1, 1, 1));
        let both = exits(0b10_0001, &empties, closed, claim, lose);
        assert_eq!(both, index(2, 1, 1, 1));
    }

    #[test]
    fn indices_stay_inside_the_weights() {
        use rand::SeedableRng;
        let mut rng = rand::rngs::SmallRng::seed_from_u64(3);
        let mut out = [0u32; MAX_ACTIVE];
        for _ in 0..300 {
            let mut pos = Position::new(uttt::rules::Rules::STANDARD);
            while !pos.is_over() {
                let n = active(&pos, &mut out);
                assert!(n <= MAX_ACTIVE);
                assert!(out[..n].iter().all(|&i| (i as usize) < WEIGHTS));
                pos.play_unchecked(crate::engine::random_legal(&pos, &mut rng));
            }
        }
    }
}
