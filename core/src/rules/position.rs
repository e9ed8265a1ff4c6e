//! A game position: whose marks are where, which small boards are claimed or
//! drawn, where the next mark must go, and whether the game is over.
//!
//! The position is 64 bytes and `Copy`; search code copies it rather than undoing
//! moves. Squares are bits `board * 9 + cell` of 81-bit words.

use std::fmt;

use super::lines::{Line, is_line};
use super::moves::MoveSet;
use super::outcome::{DrawReason, Outcome, Status, WinReason};
use super::square::{BoardIndex, Square};
use super::variant::{Rules, Variant};
use super::{ByMark, Mark};

/// Bits of all 81 squares.
const ALL_SQUARES: u128 = (1 << 81) - 1;
/// Bits of all nine boards in a 9-bit board set.
const ALL_BOARDS: u16 = 0x1FF;
/// A full small board.
const FULL: u16 = 0x1FF;
/// `next` value meaning "any open board".
const ANY_BOARD: u8 = 9;

/// The squares of each board, and (at index 9) of the whole grid: the moves a
/// player may choose from when sent to that board, before removing taken squares.
const TARGET_MASKS: [u128; 10] = {
    let mut masks = [0u128; 10];
    let mut b = 0;
    while b < 9 {
        masks[b] = 0x1FF << (9 * b);
        b += 1;
    }
    masks[9] = ALL_SQUARES;
    masks
};

/// What a small board looks like right now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoardState {
    /// Nobody has a line and there are empty cells.
    Open,
    /// Claimed by this mark. Closed, except under `open-won-boards` until full.
    Won(Mark),
    /// Full with no line. Belongs to nobody and blocks big-board lines (unless
    /// `draws-count-both`).
    Drawn,
}

/// Why a mark may not go on a square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IllegalReason {
    /// The game has already ended.
    GameOver,
    /// The player was sent to `required` and chose another board.
    WrongBoard {
        /// The board the player had to play in.
        required: BoardIndex,
    },
    /// A free move, but into a board that takes no more marks.
    BoardClosed {
        /// How that board stands.
        state: BoardState,
    },
    /// The square already holds a mark.
    Occupied {
        /// The mark already there.
        by: Mark,
    },
}

/// A mark that the rules do not allow, and why. Its `Display` says it in words
/// addressed to the player: "e5 is in the center board, but you must play in the
/// top-left board".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IllegalMove {
    /// The square that was chosen.
    pub square: Square,
    /// Why it is not allowed.
    pub reason: IllegalReason,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (sq, board) = (self.square, self.square.board().place());
        match self.reason {
            IllegalReason::GameOver => f.write_str("the game is already over"),
            IllegalReason::WrongBoard { required } => write!(
                f,
                "{sq} is in the {board} board, but you must play in the {} board",
                required.place()
            ),
            IllegalReason::BoardClosed { state } => match state {
                BoardState::Won(owner) => {
                    write!(f, "the {board} board is already won by {owner}")
                }
                BoardState::Drawn => write!(f, "the {board} board is full (drawn)"),
                BoardState::Open => write!(f, "the {board} board is full"),
            },
            IllegalReason::Occupied { by } => write!(f, "{sq} is already taken by {by}"),
        }
    }
}

impl std::error::Error for IllegalMove {}

/// A position of Ultimate Tic-Tac-Toe under some [`Rules`].
///
/// Every field is kept consistent by [`Position::play`]; there is no way to build
/// a position that the rules could not reach except by parsing position text,
/// which checks what can be checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// Squares that cannot take a mark: occupied, or in a closed board. Legal moves
    /// are its complement within the target board(s).
    blocked: u128,
    /// Marks of X (index 0) and O (index 1), one 9-bit set per small board: the
    /// board a mark lands on is read and tested without shifting a 128-bit word.
    cells: [[u16; 9]; 2],
    /// Boards claimed by X (index 0) and O (index 1).
    won: [u16; 2],
    /// Boards that take no more marks. Closed and unclaimed means drawn.
    closed: u16,
    /// The board the side to move must play in, or `ANY_BOARD`.
    next: u8,
    side: Mark,
    rules: Rules,
    status: Status,
}

impl Position {
    /// The empty board, X to move anywhere.
    pub const fn new(rules: Rules) -> Position {
        Position {
            blocked: 0,
            cells: [[0; 9]; 2],
            won: [0, 0],
            closed: 0,
            next: ANY_BOARD,
            side: Mark::X,
            rules,
            status: Status::Ongoing,
        }
    }

    /// The rules this position is played under.
    pub const fn rules(&self) -> Rules {
        self.rules
    }

    /// The player to move (after the game ends: the player who would have moved).
    pub const fn side_to_move(&self) -> Mark {
        self.side
    }

    /// Whether the game goes on, and if not, how it ended.
    #[inline]
    pub const fn status(&self) -> Status {
        self.status
    }

    /// Whether the game has ended.
    #[inline]
    pub const fn is_over(&self) -> bool {
        !matches!(self.status, Status::Ongoing)
    }

    /// Number of marks on the board.
    pub const fn ply(&self) -> u32 {
        let mut ply = 0;
        let mut b = 0;
        while b < 9 {
            ply += self.cells[0][b].count_ones() + self.cells[1][b].count_ones();
            b += 1;
        }
        ply
    }

    /// The board the side to move was sent to, or `None` for a free move (any open
    /// board). A board named here is always open.
    pub const fn required_board(&self) -> Option<BoardIndex> {
        BoardIndex::try_new(self.next)
    }

    /// The mark on `sq`, if any.
    pub const fn mark_at(&self, sq: Square) -> Option<Mark> {
        let (b, c) = (sq.board().index(), sq.cell().index());
        if self.cells[0][b] >> c & 1 != 0 {
            Some(Mark::X)
        } else if self.cells[1][b] >> c & 1 != 0 {
            Some(Mark::O)
        } else {
            None
        }
    }

    /// How small board `board` stands.
    pub const fn board_state(&self, board: BoardIndex) -> BoardState {
        let bit = 1 << board.index();
        if self.won[0] & bit != 0 {
            BoardState::Won(Mark::X)
        } else if self.won[1] & bit != 0 {
            BoardState::Won(Mark::O)
        } else if self.boards_drawn() & bit != 0 {
            BoardState::Drawn
        } else {
            BoardState::Open
        }
    }

    /// Whether `board` takes no more marks (won, drawn, or under `open-won-boards`
    /// full).
    pub const fn is_board_closed(&self, board: BoardIndex) -> bool {
        self.closed >> board.index() & 1 != 0
    }

    /// The boards claimed by each mark, as 9-bit sets (bit `b` = board `b`).
    pub const fn boards_won(&self) -> ByMark<u16> {
        ByMark {
            x: self.won[0],
            o: self.won[1],
        }
    }

    /// The drawn boards as a 9-bit set.
    pub const fn boards_drawn(&self) -> u16 {
        self.closed & !(self.won[0] | self.won[1])
    }

    /// The cells of `board` holding `mark`, as a 9-bit set (bit `c` = cell `c`).
    #[inline]
    pub const fn board_marks(&self, board: BoardIndex, mark: Mark) -> u16 {
        self.cells[mark.index()][board.index()]
    }

    /// The big-board line that won the game, if it was won by three in a row.
    pub fn winning_line(&self) -> Option<Line> {
        match self.status {
            Status::Over(Outcome::Win {
                winner,
                reason: WinReason::ThreeInARow,
            }) => Line::find(self.line_set(winner)),
            _ => None,
        }
    }

    /// Boards that count for `mark` in big-board lines.
    #[inline]
    const fn line_set(&self, mark: Mark) -> u16 {
        if self.rules.has(Variant::DrawsCountBoth) {
            self.won[mark.index()] | self.boards_drawn()
        } else {
            self.won[mark.index()]
        }
    }

    /// The squares the side to move may mark. Empty once the game is over.
    ///
    /// ```
    /// use uttt::rules::{Position, Rules, Square};
    /// let start = Position::new(Rules::STANDARD);
    /// assert_eq!(start.legal_moves().len(), 81);
    /// // After e5, O must play in the centre board: its nine squares but e5.
    /// let after = start.play("e5".parse().unwrap()).unwrap();
    /// let legal: Vec<String> = after.legal_moves().iter().map(|sq| sq.to_string()).collect();
    /// assert_eq!(legal, ["d4", "e4", "f4", "d5", "f5", "d6", "e6", "f6"]);
    /// assert!(after.legal_moves().iter().all(|sq: Square| after.play(sq).is_ok()));
    /// ```
    #[inline]
    pub const fn legal_moves(&self) -> MoveSet {
        if self.is_over() {
            return MoveSet::EMPTY;
        }
        MoveSet(!self.blocked & TARGET_MASKS[self.next as usize])
    }

    /// Whether the side to move may mark `sq`.
    #[inline]
    pub const fn is_legal(&self, sq: Square) -> bool {
        self.legal_moves().contains(sq)
    }

    /// Why the side to move may not mark `sq`, or `None` if it may. Checked in this
    /// order: game over, wrong board, closed board, occupied square, so a player sent
    /// to one board hears about that board first.
    pub const fn why_illegal(&self, sq: Square) -> Option<IllegalReason> {
        if self.is_over() {
            return Some(IllegalReason::GameOver);
        }
        if let Some(required) = self.required_board() {
            if sq.board().index() != required.index() {
                return Some(IllegalReason::WrongBoard { required });
            }
        } else if self.is_board_closed(sq.board()) {
            return Some(IllegalReason::BoardClosed {
                state: self.board_state(sq.board()),
            });
        }
        if let Some(by) = self.mark_at(sq) {
            return Some(IllegalReason::Occupied { by });
        }
        if self.is_board_closed(sq.board()) {
            // Unreachable for positions built by `play`: a required board is open.
            return Some(IllegalReason::BoardClosed {
                state: self.board_state(sq.board()),
            });
        }
        None
    }

    /// The position after the side to move marks `sq`.
    ///
    /// After the mark, in this order: (1) the mover owns three boards in a line →
    /// the mover wins, even if the mark closed the last open board; (2) under
    /// `draws-count-both`, a board drawn by this mark may complete a line for the
    /// opponent → the opponent wins; (3) the next player has no legal mark → a draw
    /// (or, under `most-boards`, a win for whoever owns more boards); (4) play on.
    ///
    /// # Errors
    /// [`IllegalMove`] with the reason when `sq` is not a legal move; `self` is
    /// unchanged (it is `Copy`).
    ///
    /// ```
    /// use uttt::rules::{IllegalReason, Mark, Position, Rules, Square};
    /// let sq = |text: &str| text.parse::<Square>().unwrap();
    /// let start = Position::new(Rules::STANDARD);
    /// // X plays the centre of the centre board: O is sent to the centre board.
    /// let after = start.play(sq("e5")).unwrap();
    /// assert_eq!(after.side_to_move(), Mark::O);
    /// assert_eq!(after.required_board(), Some(sq("e5").board()));
    /// // A square outside it is refused with the reason, in words too.
    /// let err = after.play(sq("a1")).unwrap_err();
    /// assert!(matches!(err.reason, IllegalReason::WrongBoard { .. }));
    /// assert_eq!(
    ///     err.to_string(),
    ///     "a1 is in the top-left board, but you must play in the center board"
    /// );
    /// let err = after.play(sq("e5")).unwrap_err();
    /// assert_eq!(err.to_string(), "e5 is already taken by X");
    /// ```
    pub fn play(self, sq: Square) -> Result<Position, IllegalMove> {
        match self.why_illegal(sq) {
            Some(reason) => Err(IllegalMove { square: sq, reason }),
            None => Ok(self.after_unchecked(sq)),
        }
    }

    /// Marks `sq` for the side to move without checking that it is legal: the hot
    /// path of search and perft.
    ///
    /// The caller must pass a member of [`Position::legal_moves`]. Any other square
    /// leaves the position in a state the rules cannot reach (it never causes
    /// undefined behaviour); debug builds assert legality.
    #[inline]
    pub fn play_unchecked(&mut self, sq: Square) {
        debug_assert!(self.is_legal(sq), "play_unchecked with an illegal move");
        let mover = self.side;
        let me = mover.index();
        let b = sq.board().index();
        let board_bit = 1u16 << b;
        let cell_bit = 1u16 << sq.cell().index();

        // Locals, stored back whole: updating single bits in memory and reading the
        // words back defeats store forwarding on x86 (measured: perft 30% slower).
        let blocked = self.blocked | 1u128 << sq.index();
        let mine = self.cells[me][b] | cell_bit;
        let full = mine | self.cells[1 - me][b] == FULL;
        let mut won = self.won;
        let owned = (won[0] | won[1]) & board_bit != 0;
        let mut closed = self.closed;
        let mut blocked = blocked;

        if !owned && is_line(mine) {
            won[me] |= board_bit;
            if full || !self.rules.has(Variant::OpenWonBoards) {
                closed |= board_bit;
                blocked |= TARGET_MASKS[b];
            }
        } else if full {
            closed |= board_bit;
        }
        self.cells[me][b] = mine;
        self.blocked = blocked;
        self.won = won;
        self.closed = closed;

        let cell = sq.cell().index();
        self.next = if closed >> cell & 1 != 0 {
            ANY_BOARD
        } else {
            cell as u8
        };
        self.side = !mover;

        if is_line(self.line_set(mover)) {
            self.status = Status::Over(Outcome::Win {
                winner: mover,
                reason: WinReason::ThreeInARow,
            });
        } else if self.rules.has(Variant::DrawsCountBoth) && is_line(self.line_set(!mover)) {
            self.status = Status::Over(Outcome::Win {
                winner: !mover,
                reason: WinReason::ThreeInARow,
            });
        } else if closed == ALL_BOARDS {
            self.status = Status::Over(self.no_moves_outcome());
        }
    }

    /// How many legal moves the opponent has after the side to move marks `sq`
    /// (0 if that mark ends the game), without building the child position: the
    /// bulk count at the last ply of perft, where building children is most of the
    /// cost. Same contract as [`Position::play_unchecked`]; equal to
    /// `self.after_unchecked(sq).legal_moves().len()` (tested).
    #[inline]
    pub fn legal_count_after(&self, sq: Square) -> u32 {
        let me = self.side.index();
        let b = sq.board().index();
        let cell = sq.cell().index();
        let board_bit = 1u16 << b;
        let mine = self.cells[me][b] | 1 << cell;
        let full = mine | self.cells[1 - me][b] == FULL;
        let owned = (self.won[0] | self.won[1]) & board_bit != 0;
        let newly_won = !owned && is_line(mine);
        let closes = if newly_won {
            full || !self.rules.has(Variant::OpenWonBoards)
        } else {
            full
        };
        let closed = if closes {
            self.closed | board_bit
        } else {
            self.closed
        };
        if newly_won || (closes && self.rules.has(Variant::DrawsCountBoth)) {
            // A line can only appear when a board is claimed (or, counting drawn
            // boards for both, when one is drawn): check with the full rules.
            let child = self.after_unchecked(sq);
            return child.legal_moves().len() as u32;
        }
        if closed == ALL_BOARDS {
            return 0;
        }
        let mut blocked = self.blocked | 1u128 << sq.index();
        if closes {
            blocked |= TARGET_MASKS[b];
        }
        let target = if closed >> cell & 1 != 0 {
            ANY_BOARD as usize
        } else {
            cell
        };
        (!blocked & TARGET_MASKS[target]).count_ones()
    }

    /// The position after the side to move marks `sq`, without checking legality;
    /// the same contract as [`Position::play_unchecked`].
    #[inline]
    #[must_use]
    pub fn after_unchecked(&self, sq: Square) -> Position {
        let mut next = *self;
        next.play_unchecked(sq);
        next
    }

    fn close(&mut self, board: usize) {
        self.closed |= 1 << board;
        self.blocked |= TARGET_MASKS[board];
    }

    /// The outcome when nobody has a line and no mark can be placed.
    fn no_moves_outcome(&self) -> Outcome {
        if !self.rules.has(Variant::MostBoards) {
            return Outcome::Draw {
                reason: DrawReason::NoMoves,
            };
        }
        let (x, o) = (self.won[0].count_ones(), self.won[1].count_ones());
        match x.cmp(&o) {
            std::cmp::Ordering::Greater => Outcome::Win {
                winner: Mark::X,
                reason: WinReason::MostBoards,
            },
            std::cmp::Ordering::Less => Outcome::Win {
                winner: Mark::O,
                reason: WinReason::MostBoards,
            },
            std::cmp::Ordering::Equal => Outcome::Draw {
                reason: DrawReason::EqualBoards,
            },
        }
    }

    /// Plays `moves` in order from the empty board.
    ///
    /// # Errors
    /// The index (0-based) of the first illegal move and why it is illegal.
    pub fn from_moves(
        rules: Rules,
        moves: impl IntoIterator<Item = Square>,
    ) -> Result<Position, (usize, IllegalMove)> {
        moves
            .into_iter()
            .enumerate()
            .try_fold(Position::new(rules), |pos, (i, sq)| {
                pos.play(sq).map_err(|e| (i, e))
            })
    }

    /// Builds a position from raw parts, re-deriving everything else. Used by the
    /// position-text parser, which has validated the parts it can.
    ///
    /// `owners` names the first winner of boards where both marks have a line
    /// (reachable only under `open-won-boards`); it is ignored elsewhere.
    pub(crate) fn from_parts(
        rules: Rules,
        marks: ByMark<u128>,
        owners: [Option<Mark>; 9],
        side: Mark,
        next: Option<BoardIndex>,
    ) -> Result<Position, PartsError> {
        let marks = [marks.x & ALL_SQUARES, marks.o & ALL_SQUARES];
        if marks[0] & marks[1] != 0 {
            return Err(PartsError::BothMarksOnOneSquare);
        }
        let mut pos = Position::new(rules);
        for sq in Square::all() {
            for (m, set) in marks.iter().enumerate() {
                if set >> sq.index() & 1 != 0 {
                    pos.cells[m][sq.board().index()] |= 1 << sq.cell().index();
                }
            }
        }
        pos.blocked = marks[0] | marks[1];
        pos.side = side;
        for board in BoardIndex::ALL {
            let b = board.index();
            let x = pos.board_marks(board, Mark::X);
            let o = pos.board_marks(board, Mark::O);
            let owner = match (is_line(x), is_line(o)) {
                (true, false) => Some(Mark::X),
                (false, true) => Some(Mark::O),
                (false, false) => None,
                (true, true) if rules.has(Variant::OpenWonBoards) => {
                    Some(owners[b].ok_or(PartsError::AmbiguousOwner(board))?)
                }
                (true, true) => return Err(PartsError::TwoLinesInBoard(board)),
            };
            let full = x | o == FULL;
            if let Some(owner) = owner {
                pos.won[owner.index()] |= 1 << b;
                if full || !rules.has(Variant::OpenWonBoards) {
                    pos.close(b);
                }
            } else if full {
                pos.close(b);
            }
        }
        let (nx, no) = (marks[0].count_ones(), marks[1].count_ones());
        let expected_side = if nx == no { Mark::X } else { Mark::O };
        if !(nx == no || nx == no + 1) || side != expected_side {
            return Err(PartsError::MarkCounts { x: nx, o: no, side });
        }
        pos.next = match next {
            Some(board) if pos.is_board_closed(board) => {
                return Err(PartsError::RequiredBoardClosed(board));
            }
            Some(board) => board.index() as u8,
            None => ANY_BOARD,
        };
        let mover = !side;
        if !rules.has(Variant::DrawsCountBoth)
            && is_line(pos.line_set(mover))
            && is_line(pos.line_set(side))
        {
            // Only a drawn board counting for both can complete two lines at once.
            return Err(PartsError::BothHaveLines);
        }
        pos.status = if is_line(pos.line_set(mover)) {
            Status::Over(Outcome::Win {
                winner: mover,
                reason: WinReason::ThreeInARow,
            })
        } else if is_line(pos.line_set(side)) {
            if !rules.has(Variant::DrawsCountBoth) {
                return Err(PartsError::LineForSideToMove(side));
            }
            Status::Over(Outcome::Win {
                winner: side,
                reason: WinReason::ThreeInARow,
            })
        } else if pos.closed == ALL_BOARDS {
            Status::Over(pos.no_moves_outcome())
        } else {
            Status::Ongoing
        };
        Ok(pos)
    }
}

/// Why raw parts do not make a position; the notation module turns these into
/// messages about the position text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PartsError {
    BothMarksOnOneSquare,
    TwoLinesInBoard(BoardIndex),
    AmbiguousOwner(BoardIndex),
    MarkCounts { x: u32, o: u32, side: Mark },
    RequiredBoardClosed(BoardIndex),
    LineForSideToMove(Mark),
    BothHaveLines,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Cell;

    fn sq(board: usize, cell: usize) -> Square {
        Square::new(BoardIndex::ALL[board], Cell::ALL[cell])
    }

    fn play_all(rules: Rules, moves: &[(usize, usize)]) -> Position {
        Position::from_moves(rules, moves.iter().map(|&(b, c)| sq(b, c)))
            .unwrap_or_else(|(i, e)| panic!("move {i} illegal: {e:?}"))
    }

    #[test]
    fn x_moves_first_anywhere() {
        let pos = Position::new(Rules::STANDARD);
        assert_eq!(pos.side_to_move(), Mark::X);
        assert_eq!(pos.legal_moves().len(), 81);
        assert_eq!(pos.required_board(), None);
    }

    #[test]
    fn top_right_cell_of_top_left_board_sends_to_top_right_board() {
        let pos = play_all(Rules::STANDARD, &[(0, 2)]);
        assert_eq!(pos.required_board(), Some(BoardIndex::ALL[2]));
        assert!(
            pos.legal_moves()
                .iter()
                .all(|s| s.board() == BoardIndex::ALL[2])
        );
        assert_eq!(pos.legal_moves().len(), 9);
        let err = pos.play(sq(4, 4)).unwrap_err();
        assert_eq!(
            err.reason,
            IllegalReason::WrongBoard {
                required: BoardIndex::ALL[2]
            }
        );
    }

    #[test]
    fn center_of_center_sends_back_to_center() {
        let pos = play_all(Rules::STANDARD, &[(4, 4)]);
        assert_eq!(pos.required_board(), Some(BoardIndex::ALL[4]));
        assert_eq!(pos.legal_moves().len(), 8);
        let err = pos.play(sq(4, 4)).unwrap_err();
        assert_eq!(err.reason, IllegalReason::Occupied { by: Mark::X });
    }

    /// X takes cells 0, 4, 8 of board 4 (the diagonal); O answers in boards 0, 4's
    /// sends. The winning mark is the center board's cell 8 → sends to board 8.
    /// Returns the position just after X claims board 4 with a mark at cell 4
    /// (which sends O back to board 4: now closed, so a free move).
    #[test]
    fn winning_a_board_and_being_sent_to_it_is_a_free_move() {
        // X: 4.0, O: 0.4, X: 4.8, O: 8.4, X: 4.4 (claims board 4 and sends O to board 4).
        let pos = play_all(Rules::STANDARD, &[(4, 0), (0, 4), (4, 8), (8, 4), (4, 4)]);
        assert_eq!(
            pos.board_state(BoardIndex::ALL[4]),
            BoardState::Won(Mark::X)
        );
        assert!(pos.is_board_closed(BoardIndex::ALL[4]));
        assert_eq!(pos.required_board(), None);
        let moves = pos.legal_moves();
        assert!(moves.iter().all(|s| s.board() != BoardIndex::ALL[4]));
        // 81 squares - 9 in the closed board - 2 O marks elsewhere.
        assert_eq!(moves.len(), 81 - 9 - 2);
        // A free move never allows a closed board, and says why.
        let err = pos.play(sq(4, 1)).unwrap_err();
        assert_eq!(
            err.reason,
            IllegalReason::BoardClosed {
                state: BoardState::Won(Mark::X)
            }
        );
    }

    #[test]
    fn won_board_stays_open_under_open_won_boards() {
        let rules = Rules::STANDARD.with(Variant::OpenWonBoards);
        let pos = play_all(rules, &[(4, 0), (0, 4), (4, 8), (8, 4), (4, 4)]);
        assert_eq!(
            pos.board_state(BoardIndex::ALL[4]),
            BoardState::Won(Mark::X)
        );
        assert!(!pos.is_board_closed(BoardIndex::ALL[4]));
        assert_eq!(pos.required_board(), Some(BoardIndex::ALL[4]));
        assert_eq!(pos.legal_moves().len(), 6);
    }

    #[test]
    fn game_over_rejects_every_move() {
        let pos = Position::new(Rules::STANDARD);
        let mut over = pos;
        over.status = Status::Over(Outcome::Draw {
            reason: DrawReason::NoMoves,
        });
        assert!(over.legal_moves().is_empty());
        assert_eq!(
            over.play(sq(0, 0)).unwrap_err().reason,
            IllegalReason::GameOver
        );
    }

    #[test]
    fn position_is_small() {
        assert!(std::mem::size_of::<Position>() <= 64);
    }
}
