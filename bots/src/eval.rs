//! The static evaluation shared by the negamax engines (at the search horizon)
//! and MCTS (to score leaves when asked): what a position is worth to the
//! side to move, in hundredths of a small board (a won corner board with its lines
//! open is worth about 100).
//!
//! It counts what a human counts, for both sides: boards won, valued by the
//! big-board lines through them that the opponent has not blocked; won boards lined
//! up on the big board (one or two of a line, the rest still claimable), more when
//! the missing board is itself one mark from being claimed; two-in-a-rows inside
//! small boards, valued by the board's open lines; centre cells; and for the side
//! to move, the tempo: a board it can claim right now, and a free choice of board.

use uttt::rules::{Mark, Position, Variant};

use crate::tactics::{
    CENTRE, board, board_winning_cells, claimable_boards, completing, empty_cells, line_boards,
    places, playable_boards,
};

/// A won board, before counting its lines.
const WON_BASE: i32 = 40;
/// A won board, per big-board line through it still open for its owner.
const WON_PER_LINE: i32 = 20;
/// A cell that would claim a claimable board, per open line through the board (+1).
const SMALL_TWO: i32 = 5;
/// A mark on the centre cell of a claimable board.
const CENTRE_CELL: i32 = 3;
/// One board of an open big line owned, the other two claimable.
const BIG_ONE: i32 = 10;
/// Two boards of an open big line owned, the third claimable.
const BIG_TWO: i32 = 80;
/// ... and the side has a cell that claims that third board.
const BIG_TWO_READY: i32 = 80;
/// The side to move can claim a board now: most of a board, since it will.
const TEMPO_CLAIM: i32 = 50;
/// The side to move may choose its board.
const FREE_MOVE: i32 = 20;
/// The side to move can win the game with its next mark.
const WINS_NEXT: i32 = 20_000;

/// The eight lines of a 3×3 grid as 9-bit masks.
const LINES: [u16; 8] = [0o007, 0o070, 0o700, 0o111, 0o222, 0o444, 0o421, 0o124];

/// The score of one side's assets, without the other side's.
fn assets(pos: &Position, mark: Mark, claimable: u16) -> i32 {
    let own = line_boards(pos, mark);
    let theirs = line_boards(pos, !mark);
    // Boards that stop a line for `mark`: the opponent's, and drawn boards unless
    // they count for both.
    let blocking = if pos.rules().has(Variant::DrawsCountBoth) {
        *pos.boards_won().get(!mark) & !own
    } else {
        theirs | pos.boards_drawn()
    } & !own;
    let mut open_lines = [0i32; 9];
    let mut total = 0;
    for line in LINES {
        if line & blocking != 0 {
            continue;
        }
        for b in places(line) {
            open_lines[b] += 1;
        }
        let missing = line & !own;
        match (line & own).count_ones() {
            1 if missing & claimable == missing => total += BIG_ONE,
            2 if missing & claimable != 0 => {
                total += BIG_TWO;
                let b = missing.trailing_zeros() as usize;
                if board_winning_cells(pos, b, mark) != 0 {
                    total += BIG_TWO_READY;
                }
            }
            _ => {}
        }
    }
    for b in places(*pos.boards_won().get(mark)) {
        total += WON_BASE + WON_PER_LINE * open_lines[b];
    }
    for b in places(claimable) {
        let marks = pos.board_marks(board(b), mark);
        let claims = completing(marks) & empty_cells(pos, b);
        total += SMALL_TWO * (1 + open_lines[b]) * claims.count_ones() as i32;
        if marks >> CENTRE & 1 != 0 {
            total += CENTRE_CELL;
        }
    }
    total
}

/// What the move about to be made is worth to the side to move: a free choice,
/// a board it can claim at once, or the game.
fn tempo(pos: &Position, claimable: u16) -> i32 {
    let me = pos.side_to_move();
    let playable = playable_boards(pos);
    let mut bonus = if pos.required_board().is_none() {
        FREE_MOVE
    } else {
        0
    };
    let winning_boards = completing(line_boards(pos, me)) & claimable;
    let mut can_claim = false;
    for b in places(playable & claimable) {
        if board_winning_cells(pos, b, me) != 0 {
            if winning_boards >> b & 1 != 0 {
                return WINS_NEXT;
            }
            can_claim = true;
        }
    }
    if can_claim {
        bonus += TEMPO_CLAIM;
    }
    bonus
}

/// The value of `pos` for the side to move; the position must not be over.
pub fn evaluate(pos: &Position) -> i32 {
    let me = pos.side_to_move();
    let claimable = claimable_boards(pos);
    let tempo = tempo(pos, claimable);
    if tempo >= WINS_NEXT {
        return WINS_NEXT;
    }
    assets(pos, me, claimable) - assets(pos, !me, claimable) + tempo
}

#[cfg(test)]
mod tests {
    use super::*;
    use uttt::notation::parse_position;
    use uttt::rules::Rules;

    #[test]
    fn the_empty_board_is_even_but_for_the_free_move() {
        assert_eq!(evaluate(&Position::new(Rules::STANDARD)), FREE_MOVE);
    }

    #[test]
    fn a_game_winning_move_dominates() {
        assert_eq!(eval(crate::fixtures::X_WINS_WITH_I7), WINS_NEXT);
    }

    #[test]
    fn a_won_board_with_a_blocked_line_is_worth_less() {
        // X owns the top-left board in both; O owns one board worth the same to O
        // in both. The bottom-right board blocks X's diagonal, the middle-right
        // board blocks nothing of X's.
        let blocked = eval("xxx6/9/9/9/9/9/6ooo/9/9 * x");
        let open = eval("xxx6/9/9/6ooo/9/9/9/9/9 * x");
        assert_eq!(
            open - blocked,
            WON_PER_LINE + BIG_ONE,
            "{open} vs {blocked}"
        );
    }

    #[test]
    fn being_able_to_claim_now_is_worth_most_of_a_board() {
        // X to move in the centre board holding d4 e4 (f4 claims it) versus the
        // same marks with X sent elsewhere.
        let can = eval("o1o3o1o/9/9/3xx4/9/9/x1x6/9/9 5 x");
        let cannot = eval("o1o3o1o/9/9/3xx4/9/9/x1x6/9/9 2 x");
        assert_eq!(can - cannot, TEMPO_CLAIM);
    }

    fn eval(text: &str) -> i32 {
        evaluate(&parse_position(text, Rules::STANDARD).unwrap())
    }

    #[test]
    fn a_won_board_outweighs_a_two_in_a_row() {
        // X owns the centre board; O has two in a row in the top-left board.
        let x_view = eval("o1o3o2/9/9/3xxx3/9/9/9/9/9 * x");
        assert!(x_view > 100, "{x_view}");
    }

    #[test]
    fn two_boards_lined_up_beat_two_boards_apart() {
        // Same boards won by weight (a corner and an edge), same O marks.
        let lined_up = eval("xxxxxx3/9/9/o1o6/9/9/o1oo1o3/9/9 * x");
        let apart = eval("xxx6/9/9/o1o3xxx/9/9/o1oo1o3/9/9 * x");
        assert!(lined_up > apart + BIG_TWO / 2, "{lined_up} vs {apart}");
    }

    #[test]
    fn the_side_to_move_sees_the_mirror_value() {
        // O to move, with a free move, while X owns the centre: bad for O.
        let o_view = eval("o5o2/9/9/3xxx3/9/9/x8/9/8o * o");
        assert!(o_view < -100, "{o_view}");
    }
}
