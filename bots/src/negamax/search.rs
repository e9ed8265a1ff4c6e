//! Alpha-beta negamax with iterative deepening, principal-variation search, move
//! ordering (table move, claims, blocks, killers, history) and an optional
//! transposition table.
//!
//! The root is searched with a window that keeps every move scoring within
//! `root_margin` of the best exact, so the engine can choose at random among
//! near-equal moves (the beginner levels) without the randomness ever picking a
//! move the search knows to be worse by more than the margin.

use rand::Rng;
use rand::seq::SliceRandom;
use uttt::rules::{Position, Square};

use super::tt::{Bound, Entry, Table, key_after, key_of};
use crate::engine::Stopwatch;
use crate::eval::evaluate;
use crate::tactics::{board_winning_cells, can_win_now, claims_board, completing, empty_cells};

/// The score of a won game, less the plies it takes: faster wins score higher.
pub const WIN: i32 = 1_000_000;
/// Scores beyond this are wins or losses.
const WIN_THRESHOLD: i32 = WIN - 1000;
/// Larger than any score.
const INFINITY: i32 = WIN + 1;
/// Deepest ply the search can reach (81 marks).
const MAX_PLY: usize = 82;

/// How a level searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchParams {
    /// The deepest iteration, in plies.
    pub max_depth: u32,
    /// Root moves scoring within this of the best are all candidates; 0 keeps only
    /// the first best.
    pub root_margin: i32,
    /// Amplitude of the per-position evaluation noise (0: none). The noise is a
    /// function of the position and the game's seed, so the search stays
    /// consistent within a game.
    pub noise: i32,
    /// At the horizon, score a position whose side to move can win at once as won.
    pub leaf_win_check: bool,
}

/// What one search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The chosen move.
    pub best: Square,
    /// Its score for the side to move, in evaluation units.
    pub score: i32,
    /// The last depth completed (or partly searched, if its first move finished).
    pub depth: u32,
    /// Nodes visited.
    pub nodes: u64,
    /// The expected line, starting with `best`.
    pub pv: Vec<Square>,
}

/// The state of one search.
struct Searcher<'a> {
    params: SearchParams,
    table: Option<&'a mut Table>,
    watch: Stopwatch,
    /// The most nodes this search may visit (`u64::MAX`: only the clock stops it).
    node_limit: u64,
    nodes: u64,
    aborted: bool,
    /// Per-game salt of the evaluation noise.
    salt: u64,
    /// Per-game salt of the position keys, so table entries of other games never
    /// match.
    key_salt: u64,
    killers: [[u8; 2]; MAX_PLY],
    history: [[u32; 81]; 2],
}

/// The score of a finished game for its side to move, `ply` plies from the root.
fn terminal_score(pos: &Position, ply: usize) -> i32 {
    match pos.status().outcome().and_then(|o| o.winner()) {
        Some(winner) if winner == pos.side_to_move() => WIN - ply as i32,
        Some(_) => -(WIN - ply as i32),
        None => 0,
    }
}

/// Win scores are stored relative to the node so they stay right when the same
/// position is reached at another ply.
fn to_table(score: i32, ply: usize) -> i32 {
    if score > WIN_THRESHOLD {
        score + ply as i32
    } else if score < -WIN_THRESHOLD {
        score - ply as i32
    } else {
        score
    }
}

fn from_table(score: i32, ply: usize) -> i32 {
    if score > WIN_THRESHOLD {
        score - ply as i32
    } else if score < -WIN_THRESHOLD {
        score + ply as i32
    } else {
        score
    }
}

/// A cheap guess of how good `sq` is, for trying good moves first.
fn order_key(pos: &Position, sq: Square) -> i32 {
    let me = pos.side_to_move();
    let b = sq.board().index();
    let c = sq.cell().index();
    let claims = claims_board(pos, sq);
    let mut key = 0;
    if claims {
        key += 1000;
    }
    if completing(pos.board_marks(sq.board(), !me)) & empty_cells(pos, b) >> c & 1 != 0 {
        key += 500;
    }
    let target = crate::tactics::board(c);
    if pos.is_board_closed(target) || (c == b && claims) {
        key -= 400;
    } else if board_winning_cells(pos, c, !me) != 0 {
        key -= 300;
    }
    key
}

impl Searcher<'_> {
    fn static_eval(&self, pos: &Position, key: u64, ply: usize) -> i32 {
        if self.params.leaf_win_check && can_win_now(pos) {
            return WIN - ply as i32 - 1;
        }
        let mut score = evaluate(pos);
        if self.params.noise > 0 {
            let h = (key ^ self.salt).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 33;
            let span = 2 * self.params.noise as u64 + 1;
            score += (h % span) as i32 - self.params.noise;
        }
        score
    }

    /// Legal moves of `pos`, best guesses first.
    fn ordered(&self, pos: &Position, first: Option<Square>, ply: usize) -> ([Square; 81], usize) {
        let mut keyed = [(0i32, unreachable_square()); 81];
        let mut n = 0;
        let side = pos.side_to_move().index();
        for sq in pos.legal_moves() {
            let mut key = order_key(pos, sq) * 64;
            if Some(sq) == first {
                key = i32::MAX;
            } else if self.killers[ply].contains(&(sq.index() as u8)) {
                key += 200 * 64;
            }
            key = key.saturating_add(self.history[side][sq.index()].min(1 << 20) as i32 / 16);
            keyed[n] = (key, sq);
            n += 1;
        }
        keyed[..n].sort_by_key(|k| std::cmp::Reverse(k.0));
        let mut moves = [keyed[0].1; 81];
        for (slot, (_, sq)) in moves.iter_mut().zip(&keyed[..n]) {
            *slot = *sq;
        }
        (moves, n)
    }

    fn negamax(
        &mut self,
        pos: &Position,
        key: u64,
        depth: u32,
        ply: usize,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        // The limit first: with a node limit, exactly that many nodes are counted.
        if self.nodes >= self.node_limit || self.watch.expired() {
            self.aborted = true;
            return 0;
        }
        self.nodes += 1;
        if pos.is_over() {
            return terminal_score(pos, ply);
        }
        if depth == 0 || ply + 1 >= MAX_PLY {
            return self.static_eval(pos, key, ply);
        }
        let original_alpha = alpha;
        let mut first = None;
        if let Some(entry) = self.table.as_ref().and_then(|t| t.probe(key)) {
            first = entry.best_move().filter(|&sq| pos.is_legal(sq));
            if u32::from(entry.depth) >= depth {
                let score = from_table(entry.score, ply);
                match entry.bound {
                    Bound::Exact => return score,
                    Bound::Lower if score >= beta => return score,
                    Bound::Upper if score <= alpha => return score,
                    _ => {}
                }
            }
        }
        let (moves, n) = self.ordered(pos, first, ply);
        let mut best = -INFINITY;
        let mut best_move = moves[0];
        for (i, &sq) in moves[..n].iter().enumerate() {
            let after = pos.after_unchecked(sq);
            let child_key = key_after(key, pos, sq, &after);
            let mut score;
            if i == 0 {
                score = -self.negamax(&after, child_key, depth - 1, ply + 1, -beta, -alpha);
            } else {
                score = -self.negamax(&after, child_key, depth - 1, ply + 1, -alpha - 1, -alpha);
                if score > alpha && score < beta && !self.aborted {
                    score = -self.negamax(&after, child_key, depth - 1, ply + 1, -beta, -alpha);
                }
            }
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                best_move = sq;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        self.reward(pos, sq, depth, ply);
                        break;
                    }
                }
            }
        }
        if let Some(table) = self.table.as_deref_mut() {
            let bound = if best <= original_alpha {
                Bound::Upper
            } else if best >= beta {
                Bound::Lower
            } else {
                Bound::Exact
            };
            table.store(Entry {
                key,
                score: to_table(best, ply),
                best: best_move.index() as u8,
                depth: depth.min(255) as u8,
                bound,
            });
        }
        best
    }

    /// A quiet move refuted the opponent: remember it as a killer and in history.
    fn reward(&mut self, pos: &Position, sq: Square, depth: u32, ply: usize) {
        let index = sq.index() as u8;
        let killers = &mut self.killers[ply];
        if killers[0] != index {
            killers[1] = killers[0];
            killers[0] = index;
        }
        let slot = &mut self.history[pos.side_to_move().index()][sq.index()];
        *slot = slot.saturating_add(depth * depth);
    }

    /// The line the table expects after `pos`, at most `limit` moves.
    fn table_line(&self, mut pos: Position, limit: usize) -> Vec<Square> {
        let mut line = Vec::new();
        let Some(table) = self.table.as_deref() else {
            return line;
        };
        while line.len() < limit && !pos.is_over() {
            let Some(sq) = table
                .probe(key_of(&pos) ^ self.key_salt)
                .and_then(|e| e.best_move())
                .filter(|&sq| pos.is_legal(sq))
            else {
                break;
            };
            line.push(sq);
            pos = pos.after_unchecked(sq);
        }
        line
    }
}

/// A square to fill arrays with before they are written; never returned.
fn unreachable_square() -> Square {
    crate::tactics::square(4, 4)
}

/// One iteration at the root: the exact scores of every move within the margin.
struct Iteration {
    /// `(move, exact score)` for moves that beat the window, in search order.
    scored: Vec<(Square, i32)>,
    /// Whether the first (previously best) move finished.
    first_done: bool,
}

/// Searches `pos` (which must not be over) until `params.max_depth`, the
/// deadline of `watch` or `node_limit` nodes, whichever comes first, and chooses
/// a move with `rng` among the best. `salt` varies per game: it shapes the
/// evaluation noise and the table keys.
///
/// A node limit stops the search at the same node whatever the clock says, so
/// with the same table contents and seed it returns the same move on any machine.
pub fn search(
    pos: &Position,
    params: SearchParams,
    table: Option<&mut Table>,
    watch: Stopwatch,
    node_limit: Option<u64>,
    salt: u64,
    rng: &mut impl Rng,
) -> Report {
    let mut searcher = Searcher {
        params,
        table,
        watch,
        node_limit: node_limit.unwrap_or(u64::MAX),
        nodes: 0,
        aborted: false,
        salt,
        key_salt: salt.rotate_left(32),
        killers: [[u8::MAX; 2]; MAX_PLY],
        history: [[0; 81]; 2],
    };
    let key = key_of(pos) ^ searcher.key_salt;
    let mut root: Vec<Square> = pos.legal_moves().iter().collect();
    root.shuffle(rng);
    root.sort_by_key(|&sq| -order_key(pos, sq));
    let fallback = root.first().copied().unwrap_or_else(unreachable_square);
    let mut report = Report {
        best: fallback,
        score: 0,
        depth: 0,
        nodes: 0,
        pv: vec![fallback],
    };
    for depth in 1..=params.max_depth.max(1) {
        let iteration = searcher.root_iteration(pos, key, &root, depth);
        if searcher.aborted && !iteration.first_done {
            break;
        }
        let Some(&(_, best_score)) = iteration.scored.iter().max_by_key(|(_, s)| *s) else {
            break;
        };
        let margin = if best_score.abs() > WIN_THRESHOLD {
            0
        } else {
            params.root_margin
        };
        let candidates: Vec<(Square, i32)> = iteration
            .scored
            .iter()
            .copied()
            .filter(|&(_, s)| s >= best_score - margin)
            .collect();
        let strongest = iteration
            .scored
            .iter()
            .find(|&&(_, s)| s == best_score)
            .map_or(fallback, |&(sq, _)| sq);
        let (chosen, score) = candidates[rng.random_range(0..candidates.len())];
        // Search the best move first next time.
        if let Some(at) = root.iter().position(|&sq| sq == strongest) {
            root[..=at].rotate_right(1);
        }
        let mut pv = vec![chosen];
        pv.extend(searcher.table_line(pos.after_unchecked(chosen), depth as usize - 1));
        report = Report {
            best: chosen,
            score,
            depth,
            nodes: 0,
            pv,
        };
        if searcher.aborted || best_score.abs() > WIN_THRESHOLD {
            break;
        }
    }
    report.nodes = searcher.nodes;
    report
}

impl Searcher<'_> {
    fn root_iteration(
        &mut self,
        pos: &Position,
        key: u64,
        root: &[Square],
        depth: u32,
    ) -> Iteration {
        let mut scored = Vec::with_capacity(root.len());
        let mut best = -INFINITY;
        let mut first_done = false;
        for (i, &sq) in root.iter().enumerate() {
            let alpha = if i == 0 {
                -INFINITY
            } else if self.params.root_margin > 0 && best.abs() <= WIN_THRESHOLD {
                best - self.params.root_margin - 1
            } else {
                best
            };
            let after = pos.after_unchecked(sq);
            let child_key = key_after(key, pos, sq, &after);
            let mut score = if i == 0 {
                -self.negamax(&after, child_key, depth - 1, 1, -INFINITY, INFINITY)
            } else {
                -self.negamax(&after, child_key, depth - 1, 1, -alpha - 1, -alpha)
            };
            if i > 0 && score > alpha && !self.aborted {
                score = -self.negamax(&after, child_key, depth - 1, 1, -INFINITY, -alpha);
            }
            if self.aborted {
                break;
            }
            if i == 0 {
                first_done = true;
            }
            if score > alpha {
                scored.push((sq, score));
                best = best.max(score);
            }
        }
        Iteration { scored, first_done }
    }
}
