//! The engine against the naive implementation in `naive/`: random games under
//! every combination of variants, compared at every ply on everything the engine
//! shows — legal moves, why each other square is illegal, what `play` returns,
//! board states, the status, the winning line and the position text.

mod naive;

use naive::{NaiveGame, Refusal, Small, all_rules};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use uttt::notation::{format_move_list, parse_position, position_from_move_list};
use uttt::rules::{
    BoardIndex, BoardState, Cell, IllegalMove, IllegalReason, Mark, MoveSet, Outcome, Position,
    Rules, Square, Status, Variant, WinReason,
};

fn square(board: usize, cell: usize) -> Square {
    Square::new(BoardIndex::ALL[board], Cell::ALL[cell])
}

fn state(small: Small) -> BoardState {
    match small {
        Small::Open => BoardState::Open,
        Small::Won(mark) => BoardState::Won(mark),
        Small::Drawn => BoardState::Drawn,
    }
}

fn reason(refusal: Refusal) -> IllegalReason {
    match refusal {
        Refusal::GameOver => IllegalReason::GameOver,
        Refusal::WrongBoard { required } => IllegalReason::WrongBoard {
            required: BoardIndex::ALL[required],
        },
        Refusal::BoardClosed(small) => IllegalReason::BoardClosed {
            state: state(small),
        },
        Refusal::Occupied(by) => IllegalReason::Occupied { by },
    }
}

/// Everything the engine shows about `pos` must match the naive game.
fn assert_agree(game: &NaiveGame, pos: &Position) -> Result<(), TestCaseError> {
    let rules = game.rules();
    let text = game.text();
    prop_assert_eq!(pos.status(), game.status(), "status of {}", text);
    prop_assert_eq!(
        pos.side_to_move(),
        game.to_move(),
        "side to move of {}",
        text
    );
    prop_assert_eq!(pos.ply() as usize, game.plies());
    prop_assert_eq!(
        pos.required_board().map(BoardIndex::index),
        game.sent_to(),
        "required board of {}",
        text
    );

    let mut won = [0u16; 2];
    let mut drawn = 0u16;
    for b in 0..9 {
        let board = BoardIndex::ALL[b];
        prop_assert_eq!(
            pos.board_state(board),
            state(game.small(b)),
            "board {} of {}",
            b + 1,
            text
        );
        prop_assert_eq!(
            pos.is_board_closed(board),
            !game.takes_marks(b),
            "board {} of {}",
            b + 1,
            text
        );
        match game.small(b) {
            Small::Won(mark) => won[mark.index()] |= 1 << b,
            Small::Drawn => drawn |= 1 << b,
            Small::Open => {}
        }
        for c in 0..9 {
            prop_assert_eq!(pos.mark_at(square(b, c)), game.mark(b, c));
        }
    }
    let by_mark = pos.boards_won();
    prop_assert_eq!([by_mark.x, by_mark.o], won, "boards won in {}", text);
    prop_assert_eq!(pos.boards_drawn(), drawn, "boards drawn in {}", text);

    let legal: MoveSet = game
        .legal_moves()
        .into_iter()
        .map(|(b, c)| square(b, c))
        .collect();
    prop_assert_eq!(pos.legal_moves(), legal, "legal moves of {}", text);
    prop_assert_eq!(
        pos.is_over(),
        legal.is_empty(),
        "over iff no moves: {}",
        text
    );
    for b in 0..9 {
        for c in 0..9 {
            let sq = square(b, c);
            let expected = game.refusal(b, c).map(reason);
            prop_assert_eq!(pos.why_illegal(sq), expected, "{} in {}", sq, text);
            prop_assert_eq!(pos.is_legal(sq), expected.is_none());
            let played = pos.play(sq).map(|_| ()).map_err(|e| e.reason);
            prop_assert_eq!(
                played,
                expected.map_or(Ok(()), Err),
                "play {} in {}",
                sq,
                text
            );
        }
    }

    // The winning line is a line of boards that count for the winner.
    match pos.status() {
        Status::Over(Outcome::Win {
            winner,
            reason: WinReason::ThreeInARow,
        }) => {
            let line = pos.winning_line();
            prop_assert!(line.is_some(), "no winning line in {}", text);
            let mask = line.map_or(0, |l| l.mask());
            prop_assert_eq!(mask.count_ones(), 3);
            for b in (0..9).filter(|b| mask >> b & 1 == 1) {
                prop_assert!(game.counts_for(b, winner), "line {:?} in {}", line, text);
            }
        }
        _ => prop_assert_eq!(pos.winning_line(), None, "{}", text),
    }

    // Position text: the engine writes what the notation docs describe, and reads
    // it back to the same position.
    prop_assert_eq!(pos.to_string(), text.clone());
    prop_assert_eq!(
        parse_position(&text, rules),
        Ok(*pos),
        "reading back {}",
        text
    );
    if text.chars().any(|c| c.is_ascii_uppercase()) {
        // Without the upper case the first winner cannot be known.
        let lower = text.to_lowercase();
        prop_assert!(parse_position(&lower, rules).is_err(), "{} was read", lower);
    }
    Ok(())
}

/// Situations the random games are expected to reach, so that the agreement above
/// is known to have been checked on them.
#[derive(Debug, Default)]
struct Seen {
    three_in_a_row: usize,
    no_moves_draw: usize,
    most_boards_win: usize,
    equal_boards_draw: usize,
    opponent_line_win: usize,
    free_move_after_closed_board: usize,
    mark_in_won_board: usize,
    board_with_two_lines: usize,
    win_closing_the_last_open_board: usize,
}

/// Plays one game choosing the `choices[ply] mod n`-th legal move, checking the
/// engine against the naive game before and after every mark.
fn play_game(rules: Rules, choices: &[u32], seen: &mut Seen) -> Result<(), TestCaseError> {
    let mut game = NaiveGame::new(rules);
    let mut pos = Position::new(rules);
    let mut moves = Vec::new();
    assert_agree(&game, &pos)?;
    while game.status() == Status::Ongoing {
        prop_assert!(moves.len() < 81, "the game outlived 81 plies");
        let legal = game.legal_moves();
        let pick = choices.get(moves.len()).copied().unwrap_or(0) as usize;
        let (b, c) = legal[pick % legal.len()];
        let sq = square(b, c);
        if game.sent_to().is_none() && game.plies() > 0 {
            seen.free_move_after_closed_board += 1;
        }
        if matches!(game.small(b), Small::Won(_)) {
            seen.mark_in_won_board += 1;
        }
        let mover = game.to_move();
        prop_assert_eq!(game.play(b, c), Ok(()));
        pos = pos
            .play(sq)
            .map_err(|e: IllegalMove| TestCaseError::fail(format!("{sq}: {e}")))?;
        moves.push(sq);
        assert_agree(&game, &pos).map_err(|e| {
            TestCaseError::fail(format!(
                "{e}\n  after {rules} moves {}",
                format_move_list(&moves)
            ))
        })?;
        if game.has_small_line(b, Mark::X) && game.has_small_line(b, Mark::O) {
            seen.board_with_two_lines += 1;
        }
        if let Status::Over(outcome) = game.status() {
            if outcome.reason_name() == "three-in-a-row" && (0..9).all(|b| !game.takes_marks(b)) {
                seen.win_closing_the_last_open_board += 1;
            }
            if outcome
                == (Outcome::Win {
                    winner: !mover,
                    reason: WinReason::ThreeInARow,
                })
            {
                seen.opponent_line_win += 1;
            }
            match outcome.reason_name() {
                "three-in-a-row" => seen.three_in_a_row += 1,
                "no-moves" => seen.no_moves_draw += 1,
                "most-boards" => seen.most_boards_win += 1,
                _ => seen.equal_boards_draw += 1,
            }
        }
    }
    prop_assert!(moves.len() <= 81);
    // The move list read back reaches the same position.
    let list = format_move_list(&moves);
    prop_assert_eq!(position_from_move_list(rules, &list), Ok(pos), "{}", list);
    Ok(())
}

macro_rules! agree_under {
    ($($name:ident: $rules:expr;)*) => {
        proptest! {
            #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]
            $(
                #[test]
                fn $name(choices in prop::collection::vec(any::<u32>(), 81)) {
                    play_game($rules, &choices, &mut Seen::default())?;
                }
            )*
        }
    };
}

const OPEN: Variant = Variant::OpenWonBoards;
const DRAWS: Variant = Variant::DrawsCountBoth;
const MOST: Variant = Variant::MostBoards;

agree_under! {
    engine_agrees_under_standard: Rules::STANDARD;
    engine_agrees_under_open_won_boards: Rules::STANDARD.with(OPEN);
    engine_agrees_under_draws_count_both: Rules::STANDARD.with(DRAWS);
    engine_agrees_under_most_boards: Rules::STANDARD.with(MOST);
    engine_agrees_under_open_won_boards_and_draws_count_both: Rules::STANDARD.with(OPEN).with(DRAWS);
    engine_agrees_under_open_won_boards_and_most_boards: Rules::STANDARD.with(OPEN).with(MOST);
    engine_agrees_under_draws_count_both_and_most_boards: Rules::STANDARD.with(DRAWS).with(MOST);
    engine_agrees_under_all_variants: Rules::STANDARD.with(OPEN).with(DRAWS).with(MOST);
}

/// Seeded random games under every combination, counting the situations each
/// variant exists for: the agreement checks above are only worth something if
/// the games reach them.
#[test]
fn random_games_reach_every_situation_the_variants_change() {
    let mut rng = StdRng::seed_from_u64(20_261_129);
    for rules in all_rules() {
        let mut seen = Seen::default();
        for _ in 0..300 {
            let choices: Vec<u32> = (0..81).map(|_| rng.random()).collect();
            if let Err(e) = play_game(rules, &choices, &mut seen) {
                panic!("{rules}: {e}");
            }
        }
        eprintln!("{rules}: {seen:?}");
        assert!(seen.three_in_a_row > 0, "{rules}: {seen:?}");
        assert!(
            seen.win_closing_the_last_open_board > 0,
            "{rules}: {seen:?}"
        );
        assert!(seen.free_move_after_closed_board > 0, "{rules}: {seen:?}");
        let open = rules.has(OPEN);
        assert_eq!(seen.mark_in_won_board > 0, open, "{rules}: {seen:?}");
        assert_eq!(seen.board_with_two_lines > 0, open, "{rules}: {seen:?}");
        assert_eq!(
            seen.opponent_line_win > 0,
            rules.has(DRAWS),
            "{rules}: {seen:?}"
        );
        if rules.has(MOST) {
            assert!(seen.most_boards_win > 0, "{rules}: {seen:?}");
            assert!(seen.equal_boards_draw > 0, "{rules}: {seen:?}");
            assert_eq!(seen.no_moves_draw, 0, "{rules}: {seen:?}");
        } else {
            assert!(seen.no_moves_draw > 0, "{rules}: {seen:?}");
            assert_eq!(seen.most_boards_win + seen.equal_boards_draw, 0);
        }
    }
}
