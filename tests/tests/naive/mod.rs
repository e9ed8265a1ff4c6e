//! A second, deliberately naive implementation of the rules, written from the rules
//! text in DEVELOPERS.md and the variant descriptions, not from the engine.
//!
//! It keeps the grid as plain arrays, recomputes everything it needs by looking at
//! every cell, and has no caches, so that a bug in the engine's bitboards cannot be
//! copied here. It shares only the vocabulary types (`Mark`, `Rules`, `Status`) with
//! the engine, so the two can be compared value for value. Speed is not a goal.
//!
//! Boards and cells are plain indices 0..9 in reading order from the top left.
#![allow(dead_code)] // Each test crate uses a different part of it.

use uttt::rules::{DrawReason, Mark, Outcome, Rules, Status, Variant, WinReason};

/// The eight lines of a 3×3 grid, as places in reading order.
pub const LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

/// How one small board stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Small {
    /// Nobody has claimed it and it is not full.
    Open,
    /// Claimed by the first mark to make three in a row in it.
    Won(Mark),
    /// Full with no line.
    Drawn,
}

/// Why a mark may not be placed, checked in the order the engine documents:
/// game over, wrong board, closed board, occupied square.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The game has ended.
    GameOver,
    /// The player was sent to board `required` and chose another one.
    WrongBoard { required: usize },
    /// The board takes no more marks; this is how it stands.
    BoardClosed(Small),
    /// The square already holds this mark.
    Occupied(Mark),
}

/// A game under some rules, from the empty board.
#[derive(Clone, Debug)]
pub struct NaiveGame {
    rules: Rules,
    /// `cells[board][cell]`.
    cells: [[Option<Mark>; 9]; 9],
    boards: [Small; 9],
    to_move: Mark,
    /// The cell of the last mark, which names the board the side to move is sent to.
    last_cell: Option<usize>,
    outcome: Option<Outcome>,
    plies: usize,
}

impl NaiveGame {
    /// The empty board, X to move anywhere.
    pub fn new(rules: Rules) -> NaiveGame {
        NaiveGame {
            rules,
            cells: [[None; 9]; 9],
            boards: [Small::Open; 9],
            to_move: Mark::X,
            last_cell: None,
            outcome: None,
            plies: 0,
        }
    }

    pub fn rules(&self) -> Rules {
        self.rules
    }

    pub fn to_move(&self) -> Mark {
        self.to_move
    }

    pub fn plies(&self) -> usize {
        self.plies
    }

    pub fn mark(&self, board: usize, cell: usize) -> Option<Mark> {
        self.cells[board][cell]
    }

    pub fn small(&self, board: usize) -> Small {
        self.boards[board]
    }

    pub fn status(&self) -> Status {
        match self.outcome {
            None => Status::Ongoing,
            Some(outcome) => Status::Over(outcome),
        }
    }

    fn full(&self, board: usize) -> bool {
        self.cells[board].iter().all(Option::is_some)
    }

    /// Whether `mark` has three in a row inside small board `board`.
    pub fn has_small_line(&self, board: usize, mark: Mark) -> bool {
        LINES
            .iter()
            .any(|line| line.iter().all(|&c| self.cells[board][c] == Some(mark)))
    }

    /// Whether another mark may go into `board`. A full board never takes one. A
    /// claimed board is closed, except under open-won-boards; a drawn board is full.
    pub fn takes_marks(&self, board: usize) -> bool {
        if self.full(board) {
            return false;
        }
        match self.boards[board] {
            Small::Open => true,
            Small::Won(_) => self.rules.has(Variant::OpenWonBoards),
            Small::Drawn => false,
        }
    }

    /// The board the side to move must play in, or `None` for a free move: the
    /// board named by the last mark's cell, unless that board takes no marks.
    pub fn sent_to(&self) -> Option<usize> {
        self.last_cell.filter(|&b| self.takes_marks(b))
    }

    /// Why the side to move may not mark `cell` of `board`, or `None` if it may.
    pub fn refusal(&self, board: usize, cell: usize) -> Option<Refusal> {
        if self.outcome.is_some() {
            return Some(Refusal::GameOver);
        }
        if let Some(required) = self.sent_to()
            && required != board
        {
            return Some(Refusal::WrongBoard { required });
        }
        if !self.takes_marks(board) {
            return Some(Refusal::BoardClosed(self.boards[board]));
        }
        if let Some(mark) = self.cells[board][cell] {
            return Some(Refusal::Occupied(mark));
        }
        None
    }

    /// Every `(board, cell)` the side to move may mark, in board-then-cell order.
    pub fn legal_moves(&self) -> Vec<(usize, usize)> {
        let mut moves = Vec::new();
        for board in 0..9 {
            for cell in 0..9 {
                if self.refusal(board, cell).is_none() {
                    moves.push((board, cell));
                }
            }
        }
        moves
    }

    /// Whether small board `board` counts for `mark` in big-board lines.
    pub fn counts_for(&self, board: usize, mark: Mark) -> bool {
        match self.boards[board] {
            Small::Won(owner) => owner == mark,
            Small::Drawn => self.rules.has(Variant::DrawsCountBoth),
            Small::Open => false,
        }
    }

    /// Whether `mark` has three boards in a line on the big board.
    pub fn has_big_line(&self, mark: Mark) -> bool {
        LINES
            .iter()
            .any(|line| line.iter().all(|&b| self.counts_for(b, mark)))
    }

    /// Small boards claimed by `mark`.
    pub fn boards_won(&self, mark: Mark) -> usize {
        self.boards
            .iter()
            .filter(|&&s| s == Small::Won(mark))
            .count()
    }

    /// The side to move marks `cell` of `board`.
    pub fn play(&mut self, board: usize, cell: usize) -> Result<(), Refusal> {
        if let Some(refusal) = self.refusal(board, cell) {
            return Err(refusal);
        }
        let mover = self.to_move;
        self.cells[board][cell] = Some(mover);
        self.plies += 1;
        // Three in a row claims an unclaimed board at once; a full board with no
        // line is drawn. A claimed board keeps its first winner.
        if self.boards[board] == Small::Open {
            if self.has_small_line(board, mover) {
                self.boards[board] = Small::Won(mover);
            } else if self.full(board) {
                self.boards[board] = Small::Drawn;
            }
        }
        self.to_move = !mover;
        self.last_cell = Some(cell);
        self.outcome = if self.has_big_line(mover) {
            Some(Outcome::Win {
                winner: mover,
                reason: WinReason::ThreeInARow,
            })
        } else if self.has_big_line(!mover) {
            // Only possible under draws-count-both: the mark drew a board that
            // completes a line for the opponent.
            Some(Outcome::Win {
                winner: !mover,
                reason: WinReason::ThreeInARow,
            })
        } else if self.legal_moves().is_empty() {
            Some(self.finish_without_line())
        } else {
            None
        };
        Ok(())
    }

    fn finish_without_line(&self) -> Outcome {
        if !self.rules.has(Variant::MostBoards) {
            return Outcome::Draw {
                reason: DrawReason::NoMoves,
            };
        }
        let (x, o) = (self.boards_won(Mark::X), self.boards_won(Mark::O));
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

    /// The one-line position text as DEVELOPERS.md and the notation docs describe
    /// it: rows top to bottom, runs of empty squares as digits, the required board
    /// (1–9) or `*`, the side to move. Where both marks have a line in one board,
    /// the first winner's marks are upper case.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for row in 0..9 {
            if row > 0 {
                out.push('/');
            }
            let mut empty = 0;
            for column in 0..9 {
                let board = row / 3 * 3 + column / 3;
                let cell = row % 3 * 3 + column % 3;
                let Some(mark) = self.cells[board][cell] else {
                    empty += 1;
                    continue;
                };
                if empty > 0 {
                    out.push_str(&empty.to_string());
                    empty = 0;
                }
                let both_lines =
                    self.has_small_line(board, Mark::X) && self.has_small_line(board, Mark::O);
                let upper = both_lines && self.boards[board] == Small::Won(mark);
                out.push(match (mark, upper) {
                    (Mark::X, false) => 'x',
                    (Mark::O, false) => 'o',
                    (Mark::X, true) => 'X',
                    (Mark::O, true) => 'O',
                });
            }
            if empty > 0 {
                out.push_str(&empty.to_string());
            }
        }
        match self.sent_to() {
            Some(board) => out.push_str(&format!(" {}", board + 1)),
            None => out.push_str(" *"),
        }
        out.push_str(match self.to_move {
            Mark::X => " x",
            Mark::O => " o",
        });
        out
    }

    /// The number of move sequences of `depth` plies; a finished game is not
    /// expanded.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        self.legal_moves()
            .into_iter()
            .map(|(board, cell)| {
                let mut next = self.clone();
                next.play(board, cell)
                    .expect("a listed legal move is legal");
                next.perft(depth - 1)
            })
            .sum()
    }
}

/// The square name `a1`..`i9` of `cell` in `board`: column a–i left to right, row
/// 1–9 top to bottom across the whole grid.
pub fn square_name(board: usize, cell: usize) -> String {
    let column = board % 3 * 3 + cell % 3;
    let row = board / 3 * 3 + cell / 3;
    format!("{}{}", (b'a' + column as u8) as char, row + 1)
}

/// Every combination of the variants, standard first.
pub fn all_rules() -> Vec<Rules> {
    (0..8u8)
        .map(|bits| {
            uttt::rules::Variant::ALL
                .into_iter()
                .enumerate()
                .filter(|(i, _)| bits >> i & 1 == 1)
                .fold(Rules::STANDARD, |rules, (_, v)| rules.with(v))
        })
        .collect()
}
