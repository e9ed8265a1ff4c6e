//! Board arithmetic the engines share: which cells complete a line, which boards
//! can still be claimed, which moves claim a board or win the game at once.
//!
//! Everything here is a heuristic *view* of a position computed from its public
//! accessors; legality and results always come from [`uttt::rules`]. Functions
//! that return moves only return legal ones.

use uttt::rules::{BoardIndex, Cell, Mark, Position, Square, Variant};

/// All nine places of a 3×3 grid.
pub const ALL_PLACES: u16 = 0x1FF;
/// The centre place (of a small board or of the big board).
pub const CENTRE: usize = 4;

/// `COMPLETING[set]`: the places that are not in `set` and would give `set` a line.
static COMPLETING: [u16; 512] = {
    let mut table = [0u16; 512];
    let mut set = 0;
    while set < 512 {
        let mut place = 0;
        while place < 9 {
            let with = set | 1 << place;
            if with != set && has_line(with as u16) {
                table[set] |= 1 << place;
            }
            place += 1;
        }
        set += 1;
    }
    table
};

const LINE_MASKS: [u16; 8] = [0o007, 0o070, 0o700, 0o111, 0o222, 0o444, 0o421, 0o124];

const fn has_line(set: u16) -> bool {
    let mut i = 0;
    while i < 8 {
        if set & LINE_MASKS[i] == LINE_MASKS[i] {
            return true;
        }
        i += 1;
    }
    false
}

/// The places outside `set` that would complete a line of `set` (ignores whether
/// they are free: mask with the empty places).
#[inline]
pub fn completing(set: u16) -> u16 {
    COMPLETING[usize::from(set & ALL_PLACES)]
}

/// The board with index `b` (0..9). Callers iterate bit positions of 9-bit sets.
#[inline]
pub fn board(b: usize) -> BoardIndex {
    BoardIndex::ALL[b % 9]
}

/// The square at cell `c` of board `b`, both 0..9.
#[inline]
pub fn square(b: usize, c: usize) -> Square {
    Square::new(BoardIndex::ALL[b % 9], Cell::ALL[c % 9])
}

/// Iterates the set bits of a 9-bit set, lowest first.
#[inline]
pub fn places(mut set: u16) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if set == 0 {
            return None;
        }
        let place = set.trailing_zeros() as usize;
        set &= set - 1;
        Some(place)
    })
}

/// The empty cells of board `b`.
#[inline]
pub fn empty_cells(pos: &Position, b: usize) -> u16 {
    let board = board(b);
    !(pos.board_marks(board, Mark::X) | pos.board_marks(board, Mark::O)) & ALL_PLACES
}

/// Boards nobody owns and that are not drawn: the boards a mark can still claim.
/// (Under every variant a full board is won or drawn, so these are open.)
#[inline]
pub fn claimable_boards(pos: &Position) -> u16 {
    let won = pos.boards_won();
    !(won.x | won.o | pos.boards_drawn()) & ALL_PLACES
}

/// The boards that count for `mark` in big-board lines.
#[inline]
pub fn line_boards(pos: &Position, mark: Mark) -> u16 {
    let own = *pos.boards_won().get(mark);
    if pos.rules().has(Variant::DrawsCountBoth) {
        own | pos.boards_drawn()
    } else {
        own
    }
}

/// The cells where `mark` would claim board `b` with one mark (empty if the board
/// cannot be claimed any more).
#[inline]
pub fn board_winning_cells(pos: &Position, b: usize, mark: Mark) -> u16 {
    if claimable_boards(pos) >> b & 1 == 0 {
        return 0;
    }
    completing(pos.board_marks(board(b), mark)) & empty_cells(pos, b)
}

/// The boards whose claim by `mark` would give `mark` three boards in a line.
#[inline]
pub fn game_winning_boards(pos: &Position, mark: Mark) -> u16 {
    completing(line_boards(pos, mark)) & claimable_boards(pos)
}

/// The boards the side to move may play in now.
#[inline]
pub fn playable_boards(pos: &Position) -> u16 {
    match pos.required_board() {
        Some(b) => 1 << b.index(),
        None => {
            let mut open = 0;
            for b in BoardIndex::ALL {
                if !pos.is_board_closed(b) {
                    open |= 1 << b.index();
                }
            }
            open
        }
    }
}

/// A legal move that wins the game at once for the side to move, if there is one.
pub fn game_winning_move(pos: &Position) -> Option<Square> {
    if pos.is_over() {
        return None;
    }
    let me = pos.side_to_move();
    let boards = game_winning_boards(pos, me) & playable_boards(pos);
    places(boards).find_map(|b| {
        let cells = board_winning_cells(pos, b, me);
        (cells != 0)
            .then(|| square(b, cells.trailing_zeros() as usize))
            .filter(|&sq| pos.is_legal(sq))
    })
}

/// Whether the side to move could win the game at once.
#[inline]
pub fn can_win_now(pos: &Position) -> bool {
    game_winning_move(pos).is_some()
}

/// Whether the mark the side to move places on `sq` claims its board.
#[inline]
pub fn claims_board(pos: &Position, sq: Square) -> bool {
    let b = sq.board().index();
    board_winning_cells(pos, b, pos.side_to_move()) >> sq.cell().index() & 1 != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::X_WINS_WITH_I7;
    use uttt::notation::{parse_position, position_from_move_list};
    use uttt::rules::Rules;
    use uttt::rules::is_line;

    #[test]
    fn completing_table_matches_is_line() {
        for set in 0..512u16 {
            for place in 0..9 {
                let expected = set >> place & 1 == 0 && is_line(set | 1 << place);
                assert_eq!(
                    completing(set) >> place & 1 != 0,
                    expected,
                    "{set:#o} {place}"
                );
            }
        }
        // Two corners of the top row: the top-middle completes it.
        assert_eq!(completing(0b101), 0b010);
    }

    #[test]
    fn finds_the_small_board_win_and_the_game_win() {
        let pos = parse_position(X_WINS_WITH_I7, Rules::STANDARD).unwrap();
        assert_eq!(board_winning_cells(&pos, 8, Mark::X), 1 << 2);
        assert_eq!(board_winning_cells(&pos, 1, Mark::O), 1 << 1);
        assert_eq!(board_winning_cells(&pos, 0, Mark::O), 0, "board 1 is won");
        assert_eq!(
            game_winning_boards(&pos, Mark::X),
            1 << 8,
            "only the diagonal"
        );
        let sq = game_winning_move(&pos).unwrap();
        assert_eq!(sq.to_string(), "i7");
        assert!(claims_board(&pos, sq));
        let after = pos.play(sq).unwrap();
        assert_eq!(
            after.status().outcome().and_then(|o| o.winner()),
            Some(Mark::X)
        );
    }

    #[test]
    fn no_winning_move_when_the_board_sent_to_has_none() {
        let pos = position_from_move_list(Rules::STANDARD, "e5 e4 e2").unwrap();
        assert_eq!(game_winning_move(&pos), None);
        // e2 is the centre cell of the top-middle board: O is sent to the centre board.
        assert_eq!(playable_boards(&pos), 1 << 4);
    }
}
