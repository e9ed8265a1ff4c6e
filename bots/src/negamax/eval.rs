//! The static evaluation of the negamax engines: what a position is worth to the
//! side to move, in hundredths of a small board (a won corner board is worth 100).
//!
//! It counts what a human counts — boards won (the centre most, then corners),
//! two-in-a-rows inside small boards, two won boards lined up on the big board with
//! the third still claimable (more if the third board is itself one mark from being
//! claimed), single won boards with an open line, centre cells, and having a free
//! choice of board — for both sides, and returns the difference.

use referee::rules::{Mark, Position};

use crate::tactics::{
    ALL_PLACES, CENTRE, board, claimable_boards, completing, empty_cells, line_boards, places,
};

/// How many big-board lines go through each board: centre 4, corners 3, edges 2.
const LINES_THROUGH: [i32; 9] = [3, 2, 3, 2, 4, 2, 3, 2, 3];
/// A won board, per line through it (so a corner is worth 100).
const WON_BOARD: i32 = 33;
/// A cell that would claim a claimable board, per big line through the board.
const SMALL_TWO: i32 = 4;
/// A mark on the centre cell of a claimable board.
const CENTRE_CELL: i32 = 3;
/// Two boards of a big line owned and the third claimable.
const BIG_TWO: i32 = 90;
/// ... and the side also has a cell that claims that third board.
const BIG_TWO_READY: i32 = 70;
/// One board of a big line owned and the other two claimable.
const BIG_ONE: i32 = 12;
/// The side to move may choose its board.
const FREE_MOVE: i32 = 25;

/// The eight lines of a 3×3 grid as 9-bit masks.
const LINES: [u16; 8] = [0o007, 0o070, 0o700, 0o111, 0o222, 0o444, 0o421, 0o124];

/// The score of a side's assets in `pos`, without the other side's.
fn assets(pos: &Position, mark: Mark, claimable: u16) -> i32 {
    let own = line_boards(pos, mark);
    let mut total = 0;
    for b in places(*pos.boards_won().get(mark)) {
        total += WON_BOARD * LINES_THROUGH[b];
    }
    let big_needs = completing(own) & claimable;
    total += BIG_TWO * big_needs.count_ones() as i32;
    for b in places(claimable) {
        let marks = pos.board_marks(board(b), mark);
        let claims = completing(marks) & empty_cells(pos, b);
        total += SMALL_TWO * LINES_THROUGH[b] * claims.count_ones() as i32;
        if marks >> CENTRE & 1 != 0 {
            total += CENTRE_CELL;
        }
        if claims != 0 && big_needs >> b & 1 != 0 {
            total += BIG_TWO_READY;
        }
    }
    for line in LINES {
        let have = own & line;
        if have.count_ones() == 1 && (line & !have) & claimable == line & !have {
            total += BIG_ONE;
        }
    }
    total
}

/// The value of `pos` for the side to move; the position must not be over.
pub fn evaluate(pos: &Position) -> i32 {
    let me = pos.side_to_move();
    let claimable = claimable_boards(pos) & ALL_PLACES;
    let free = if pos.required_board().is_none() {
        FREE_MOVE
    } else {
        0
    };
    assets(pos, me, claimable) - assets(pos, !me, claimable) + free
}

#[cfg(test)]
mod tests {
    use super::*;
    use referee::notation::parse_position;
    use referee::rules::Rules;

    #[test]
    fn the_empty_board_is_even() {
        assert_eq!(evaluate(&Position::new(Rules::STANDARD)), FREE_MOVE);
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
        // O to move in the position where X owns the centre: bad for O.
        let o_view = eval("o1o3o2/9/9/3xxx3/9/9/x8/9/9 * o");
        assert!(o_view < -100, "{o_view}");
    }
}
