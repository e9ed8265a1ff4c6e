//! Exhaustive proofs over the rules engine: which moves force a big-board win
//! within N of the mover's own moves, and which moves lose by force. Every answer
//! of a suite is one of these sets, computed by visiting every line of play to the
//! stated depth (an AND-OR search: some move of ours, every reply of theirs), not
//! guessed by an evaluation.
//!
//! A "win" is any game won by the side: three boards in a line, or under
//! `most-boards` the count of boards when no move is left. A draw is not a win.

use uttt::rules::{Mark, Position, Square, Variant};

/// Whether `pos` is over and won by `mark`.
fn won_by(pos: &Position, mark: Mark) -> bool {
    pos.status().outcome().and_then(|o| o.winner()) == Some(mark)
}

/// Whether the side to move forces a win within `moves` of its own moves (a win
/// in 1 is a move that wins at once).
pub fn wins_within(pos: &Position, moves: u32) -> bool {
    if moves == 0 || pos.is_over() {
        return false;
    }
    let me = pos.side_to_move();
    let legal = pos.legal_moves();
    // A move that wins at once proves it at every depth: look for one first.
    if legal.iter().any(|sq| won_by(&pos.after_unchecked(sq), me)) {
        return true;
    }
    moves > 1
        && legal
            .iter()
            .any(|sq| forces_win(&pos.after_unchecked(sq), me, moves - 1))
}

/// After our move (`after`, the opponent to move and the game not yet won by
/// us): whether every reply leaves us a win within `moves` of ours.
fn forces_win(after: &Position, me: Mark, moves: u32) -> bool {
    if after.is_over() {
        return won_by(after, me);
    }
    after.legal_moves().iter().all(|reply| {
        let next = after.after_unchecked(reply);
        if next.is_over() {
            // Under draws-count-both a reply that draws a board can complete our line.
            won_by(&next, me)
        } else {
            wins_within(&next, moves)
        }
    })
}

/// The moves of the side to move that force a win within `moves` of its own
/// moves, in square order.
pub fn winning_moves(pos: &Position, moves: u32) -> Vec<Square> {
    if moves == 0 || pos.is_over() {
        return Vec::new();
    }
    let me = pos.side_to_move();
    pos.legal_moves()
        .iter()
        .filter(|&sq| {
            let after = pos.after_unchecked(sq);
            won_by(&after, me) || (moves > 1 && forces_win(&after, me, moves - 1))
        })
        .collect()
}

/// The moves of the side to move after which the opponent forces a win within
/// `moves` of its own moves (or that lose at once), in square order.
pub fn losing_moves(pos: &Position, moves: u32) -> Vec<Square> {
    if pos.is_over() {
        return Vec::new();
    }
    let me = pos.side_to_move();
    pos.legal_moves()
        .iter()
        .filter(|&sq| {
            let after = pos.after_unchecked(sq);
            won_by(&after, !me) || wins_within(&after, moves)
        })
        .collect()
}

/// Whether a move hands the opponent a free move (sends it to a closed board).
pub fn gives_free_move(pos: &Position, sq: Square) -> bool {
    let after = pos.after_unchecked(sq);
    !after.is_over() && after.required_board().is_none()
}

/// Whether a move claims a small board.
pub fn claims_board(pos: &Position, sq: Square) -> bool {
    let me = pos.side_to_move();
    let before = *pos.boards_won().get(me);
    let after = *pos.after_unchecked(sq).boards_won().get(me);
    after != before
}

/// Whether `rules` has any house rule (for the house-rules category).
pub fn is_house(pos: &Position) -> bool {
    Variant::ALL.iter().any(|v| pos.rules().has(*v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use uttt::notation::parse_position;
    use uttt::rules::Rules;

    fn pos(text: &str) -> Position {
        parse_position(text, Rules::STANDARD).unwrap()
    }

    fn squares(list: &[Square]) -> Vec<String> {
        list.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_third_board_in_a_row_is_a_win_in_one_and_nothing_else_is() {
        // X owns the top-left and top-middle boards; top-right has x x . on its top
        // row, and X is sent there: g1..i1 is x x _, so i1 claims it and wins.
        let p = pos("xxxxxxxx1/oo1oo1oo1/o2o5/9/9/9/9/9/9 3 x");
        assert!(wins_within(&p, 1));
        assert_eq!(squares(&winning_moves(&p, 1)), ["i1"]);
        // Every other move lets O move; O has no win in 1 after them here, so
        // nothing loses in 1.
        assert!(losing_moves(&p, 1).is_empty());
    }

    #[test]
    fn the_empty_board_has_no_win_in_two() {
        let p = Position::new(Rules::STANDARD);
        assert!(!wins_within(&p, 2));
        assert!(winning_moves(&p, 2).is_empty());
    }
}
