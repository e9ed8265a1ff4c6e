//! One test per situation the rules in DEVELOPERS.md spell out, and one per house
//! variant showing what it changes, driven through the engine's public API.
//!
//! The worked send-rule example, centre-of-centre, "winning a board and being sent
//! to it is a free move" and "a won board stays open under open-won-boards" are unit
//! tests in referee/src/rules/position.rs and are not repeated here.
//!
//! Positions are drawn as nine rows of the whole grid, three cells per board
//! separated by spaces, `.` for an empty cell: the rows of position text.

use uttt::notation::parse_position;
use uttt::rules::{
    BoardIndex, BoardState, DrawReason, IllegalReason, Line, Mark, Outcome, Position, Rules,
    Square, Status, Variant, WinReason,
};

const STANDARD: Rules = Rules::STANDARD;
const OPEN_WON_BOARDS: Rules = Rules::STANDARD.with(Variant::OpenWonBoards);
const DRAWS_COUNT_BOTH: Rules = Rules::STANDARD.with(Variant::DrawsCountBoth);
const MOST_BOARDS: Rules = Rules::STANDARD.with(Variant::MostBoards);

/// The position drawn by `rows`, with `next` (`1`-`9` or `*`) and `side` (`x`/`o`).
fn position(rows: [&str; 9], next: &str, side: &str, rules: Rules) -> Position {
    let rows: Vec<String> = rows.iter().map(|r| r.replace(' ', "")).collect();
    let text = format!("{} {next} {side}", rows.join("/"));
    parse_position(&text, rules).unwrap_or_else(|e| panic!("{e}"))
}

fn sq(name: &str) -> Square {
    name.parse().unwrap_or_else(|e| panic!("{e}"))
}

fn play(pos: Position, square: &str) -> Position {
    pos.play(sq(square))
        .unwrap_or_else(|e| panic!("{square} in {pos}: {e}"))
}

fn board(number: usize) -> BoardIndex {
    BoardIndex::ALL[number - 1]
}

fn win(winner: Mark) -> Status {
    Status::Over(Outcome::Win {
        winner,
        reason: WinReason::ThreeInARow,
    })
}

fn draw(reason: DrawReason) -> Status {
    Status::Over(Outcome::Draw { reason })
}

// Boards 1 (X), 2 (O), 4 (O) and 5 (X) are claimed, 3, 6 and 7 are drawn, 8 (O)
// is claimed; board 9 is the last open board and X, with marks on two of its
// diagonal, is sent there. X also owns boards 1 and 5: the big diagonal.
const LAST_BOARD_DECIDES: [&str; 9] = [
    "xxx ooo xox",
    "... ... xoo",
    "... ... oxx",
    "ooo xxx xox",
    "... ... xoo",
    "... ... oxx",
    "oxo ooo x..",
    "oxx ... .x.",
    "xoo ... ...",
];

#[test]
fn a_mark_that_wins_the_match_while_closing_the_last_open_board_is_a_win() {
    let pos = position(LAST_BOARD_DECIDES, "9", "x", STANDARD);
    assert_eq!(pos.status(), Status::Ongoing);
    let after = play(pos, "i9");
    assert_eq!(after.board_state(board(9)), BoardState::Won(Mark::X));
    assert!(BoardIndex::ALL.iter().all(|&b| after.is_board_closed(b)));
    assert_eq!(after.status(), win(Mark::X));
    assert_eq!(after.winning_line(), Some(Line::Diagonal));
    assert!(after.legal_moves().is_empty());
    // The same mark under most-boards: the line decides, not the board count.
    let after = play(position(LAST_BOARD_DECIDES, "9", "x", MOST_BOARDS), "i9");
    assert_eq!(after.status(), win(Mark::X));
}

// X owns boards 1 and 2; board 3 has one empty cell (its bottom-right, i3), and X
// is sent there. Filling it draws board 3 and sends O to board 9.
const DRAW_ON_THE_TOP_ROW: [&str; 9] = [
    "xxx xxx xox",
    "... ... xoo",
    "... ... ox.",
    "ooo ... ...",
    "... ... ...",
    "... ... ...",
    "ooo ... ...",
    "... ... ...",
    "... ... ...",
];

#[test]
fn a_drawn_board_blocks_every_line_through_it() {
    let after = play(position(DRAW_ON_THE_TOP_ROW, "3", "x", STANDARD), "i3");
    assert_eq!(after.board_state(board(3)), BoardState::Drawn);
    assert_eq!(after.boards_drawn(), 0b100);
    assert_eq!(after.boards_won().x, 0b011);
    assert_eq!(after.status(), Status::Ongoing);
    assert_eq!(after.winning_line(), None);
    assert_eq!(after.required_board(), Some(board(9)));
}

// Boards 1 and 6 are X's, 2 and 4 are O's, 3, 5 and 7 are drawn: every big line
// runs through a drawn board or through boards of both players, so nobody can
// win, yet boards 8 and 9 are empty. O is to move, sent to board 8.
const NO_LINE_POSSIBLE: [&str; 9] = [
    "xxx ooo xox",
    "... ... xoo",
    "... ... oxx",
    "ooo oxo xxx",
    "... oxx ...",
    "... xoo ...",
    "xox ... ...",
    "xoo ... ...",
    "oxx ... ...",
];

#[test]
fn play_continues_when_no_line_is_possible_but_moves_remain() {
    let mut pos = position(NO_LINE_POSSIBLE, "8", "o", STANDARD);
    assert_eq!(pos.status(), Status::Ongoing);
    assert_eq!(pos.legal_moves().len(), 9);
    // Play the lowest legal square until the end. Board 8 fills in reading order
    // until O's diagonal claims it at the 7th mark; board 9 follows until X's
    // diagonal claims it at the 14th. No line was ever possible, and the game
    // ends only when no board is open.
    let mut plies = 0;
    while let Some(next) = pos.legal_moves().iter().next() {
        pos = pos.play(next).unwrap_or_else(|e| panic!("{e}"));
        plies += 1;
    }
    assert_eq!(plies, 14, "{pos}");
    assert_eq!(pos.board_state(board(8)), BoardState::Won(Mark::O));
    assert_eq!(pos.board_state(board(9)), BoardState::Won(Mark::X));
    assert!(BoardIndex::ALL.iter().all(|&b| pos.is_board_closed(b)));
    assert_eq!(pos.status(), draw(DrawReason::NoMoves), "{pos}");
}

#[test]
fn a_free_move_never_allows_a_closed_board() {
    // O's mark in the top-left cell of board 8 sends X to board 1, which X has
    // claimed: X may play anywhere in boards 8 and 9, and nowhere else.
    let pos = play(position(NO_LINE_POSSIBLE, "8", "o", STANDARD), "d7");
    assert_eq!(pos.required_board(), None);
    assert_eq!(pos.legal_moves().len(), 8 + 9);
    for square in Square::all() {
        let expected = match square.board().number() {
            1 | 6 => Some(IllegalReason::BoardClosed {
                state: BoardState::Won(Mark::X),
            }),
            2 | 4 => Some(IllegalReason::BoardClosed {
                state: BoardState::Won(Mark::O),
            }),
            3 | 5 | 7 => Some(IllegalReason::BoardClosed {
                state: BoardState::Drawn,
            }),
            _ if square == sq("d7") => Some(IllegalReason::Occupied { by: Mark::O }),
            _ => None,
        };
        assert_eq!(pos.why_illegal(square), expected, "{square}");
        assert_eq!(pos.play(square).is_ok(), expected.is_none(), "{square}");
    }
}

// NO_LINE_POSSIBLE played on: board 8 now belongs to O and board 9 has one empty
// cell, i9, where X is sent. X's mark there fills the last open board.
const X_WINS_THE_LAST_BOARD: [&str; 9] = [
    "xxx ooo xox",
    "... ... xoo",
    "... ... oxx",
    "ooo oxo xxx",
    "... oxx ...",
    "... xoo ...",
    "xox ooo xox",
    "xoo xx. oxo",
    "oxx ... ox.",
];
const X_DRAWS_THE_LAST_BOARD: [&str; 9] = [
    "xxx ooo xox",
    "... ... xoo",
    "... ... oxx",
    "ooo oxo xxx",
    "... oxx ...",
    "... xoo ...",
    "xox ooo xox",
    "xoo xx. xoo",
    "oxx ... ox.",
];

#[test]
fn the_game_is_drawn_when_the_next_player_has_no_legal_mark() {
    for rows in [X_WINS_THE_LAST_BOARD, X_DRAWS_THE_LAST_BOARD] {
        let pos = position(rows, "9", "x", STANDARD);
        assert_eq!(pos.status(), Status::Ongoing);
        let after = play(pos, "i9");
        assert!(after.is_board_closed(board(9)));
        assert!(after.legal_moves().is_empty());
        assert_eq!(after.status(), draw(DrawReason::NoMoves), "{after}");
        assert_eq!(after.winning_line(), None);
    }
}

#[test]
fn most_boards_gives_a_finish_with_no_line_to_whoever_owns_more_boards() {
    // X draws board 9: O owns boards 2, 4 and 8, X only 1 and 6.
    let after = play(
        position(X_DRAWS_THE_LAST_BOARD, "9", "x", MOST_BOARDS),
        "i9",
    );
    assert_eq!(after.board_state(board(9)), BoardState::Drawn);
    assert_eq!(
        after.status(),
        Status::Over(Outcome::Win {
            winner: Mark::O,
            reason: WinReason::MostBoards,
        })
    );
    assert_eq!(after.winning_line(), None);
}

#[test]
fn most_boards_is_a_draw_when_both_own_as_many_boards() {
    // X claims board 9: three boards each, and no line.
    let after = play(position(X_WINS_THE_LAST_BOARD, "9", "x", MOST_BOARDS), "i9");
    assert_eq!(after.board_state(board(9)), BoardState::Won(Mark::X));
    assert_eq!(after.boards_won().x.count_ones(), 3);
    assert_eq!(after.boards_won().o.count_ones(), 3);
    assert_eq!(after.status(), draw(DrawReason::EqualBoards));
}

#[test]
fn draws_count_both_lets_a_drawn_board_complete_the_movers_line() {
    let after = play(
        position(DRAW_ON_THE_TOP_ROW, "3", "x", DRAWS_COUNT_BOTH),
        "i3",
    );
    assert_eq!(after.board_state(board(3)), BoardState::Drawn);
    assert_eq!(after.status(), win(Mark::X));
    assert_eq!(after.winning_line(), Some(Line::Top));
}

// O owns boards 6 and 9; X is sent to board 3, whose last cell draws it.
const DRAW_COMPLETES_OPPONENTS_LINE: [&str; 9] = [
    "xxx ... xox",
    "... ... xoo",
    "... ... ox.",
    "xxx ... ooo",
    "... ... ...",
    "... ... ...",
    "... ... ooo",
    "... ... ...",
    "... ... ...",
];

#[test]
fn draws_count_both_a_mover_who_draws_a_board_completing_the_opponents_line_loses() {
    let before = position(DRAW_COMPLETES_OPPONENTS_LINE, "3", "x", DRAWS_COUNT_BOTH);
    assert_eq!(before.status(), Status::Ongoing);
    let after = play(before, "i3");
    assert_eq!(after.board_state(board(3)), BoardState::Drawn);
    assert_eq!(after.status(), win(Mark::O));
    assert_eq!(after.winning_line(), Some(Line::Right));
    assert_eq!(
        after.play(sq("g7")).map_err(|e| e.reason),
        Err(IllegalReason::GameOver)
    );
    // Under the standard rules the drawn board is nobody's and play goes on.
    let standard = play(
        position(DRAW_COMPLETES_OPPONENTS_LINE, "3", "x", STANDARD),
        "i3",
    );
    assert_eq!(standard.status(), Status::Ongoing);
}

#[test]
fn draws_count_both_when_a_drawn_board_completes_lines_for_both_the_mover_wins() {
    // X owns boards 1 and 9, O owns 2 and 8; X's mark at f6 draws the center board,
    // which completes X's diagonal and O's middle column at once.
    let rows = [
        "xxx ooo ...",
        "... ... ...",
        "... ... ...",
        "... xox ...",
        "... xoo ...",
        "... ox. ...",
        "... ooo xxx",
        "... ... ...",
        "... ... ...",
    ];
    let after = play(position(rows, "5", "x", DRAWS_COUNT_BOTH), "f6");
    assert_eq!(after.board_state(board(5)), BoardState::Drawn);
    assert_eq!(after.status(), win(Mark::X));
    assert_eq!(after.winning_line(), Some(Line::Diagonal));
}

#[test]
fn open_won_boards_the_first_winner_keeps_a_board_the_other_mark_also_lines() {
    // X has the top row of board 1; O, sent there, completes its bottom row.
    let rows = [
        "xxx ... ...",
        "... ... ...",
        "oo. ... ...",
        "... ... ...",
        "... ... ...",
        "... ... ...",
        "... ... ...",
        "... ... ...",
        "... ... ...",
    ];
    let after = play(position(rows, "1", "o", OPEN_WON_BOARDS), "c3");
    assert_eq!(after.board_state(board(1)), BoardState::Won(Mark::X));
    assert_eq!(after.boards_won().o, 0);
    assert_eq!(after.board_marks(board(1), Mark::O), 0o700);
    // The first winner's marks are written in upper case, and read back.
    let text = "XXX6/9/ooo6/9/9/9/9/9/9 9 x";
    assert_eq!(after.to_string(), text);
    assert_eq!(parse_position(text, OPEN_WON_BOARDS), Ok(after));
}

#[test]
fn open_won_boards_a_won_board_closes_when_full_and_then_sends_a_free_move() {
    // Board 1 is X's (middle row) with only a1 empty; O is sent there.
    let rows = [
        ".ox ... ...",
        "xxx ... ...",
        "oox ... ...",
        "... ... ...",
        "... o.. ...",
        "... ... ...",
        "... ... ...",
        "... ... ...",
        "... ... ...",
    ];
    let pos = position(rows, "1", "o", OPEN_WON_BOARDS);
    assert_eq!(pos.required_board(), Some(board(1)));
    assert_eq!(pos.legal_moves().iter().collect::<Vec<_>>(), [sq("a1")]);
    // a1 fills board 1 and sends X back to it: it is closed now, so X moves freely.
    let after = play(pos, "a1");
    assert_eq!(after.board_state(board(1)), BoardState::Won(Mark::X));
    assert!(after.is_board_closed(board(1)));
    assert_eq!(after.required_board(), None);
    assert_eq!(after.legal_moves().len(), 81 - 9 - 1);
    assert_eq!(
        after.why_illegal(sq("a1")),
        Some(IllegalReason::BoardClosed {
            state: BoardState::Won(Mark::X)
        })
    );
}
