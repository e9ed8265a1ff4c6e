//! Text forms of squares and move lists read back to what was written, in every
//! form people type them.
//!
//! Position text is checked at every ply of thousands of games in
//! engine_vs_naive.rs: the engine writes exactly what the naive implementation
//! writes from the notation docs (first winner's marks in upper case where a board
//! has lines for both marks), and reads it back to the same position.

mod naive;

use naive::{all_rules, square_name};
use proptest::prelude::*;
use uttt::notation::{
    MoveListError, board_cell, format_move_list, parse_move_list, parse_square_lenient,
    position_from_move_list,
};
use uttt::rules::{BoardIndex, Cell, IllegalMove, Position, Rules, Square};

#[test]
fn every_square_is_named_by_its_column_and_row_across_the_whole_grid() {
    for b in 0..9 {
        for c in 0..9 {
            let sq = Square::new(BoardIndex::ALL[b], Cell::ALL[c]);
            let name = square_name(b, c);
            assert_eq!(sq.to_string(), name);
            assert_eq!(name.parse::<Square>(), Ok(sq));
            assert_eq!(board_cell(sq), format!("{}.{}", b + 1, c + 1));
        }
    }
    let names: Vec<String> = Square::all().map(|sq| sq.to_string()).collect();
    assert_eq!(names[..4], ["a1", "b1", "c1", "a2"]);
    assert_eq!(names[80], "i9");
}

/// How one square is written in a hand-typed move list.
#[derive(Clone, Copy, Debug)]
enum Form {
    Lower,
    Upper,
    BoardCell,
    Padded,
}

fn write(sq: Square, form: Form) -> String {
    match form {
        Form::Lower => sq.to_string(),
        Form::Upper => sq.to_string().to_uppercase(),
        Form::BoardCell => board_cell(sq),
        Form::Padded => format!(" {} ", sq.to_string().to_uppercase()),
    }
}

fn form() -> impl Strategy<Value = Form> {
    prop_oneof![
        Just(Form::Lower),
        Just(Form::Upper),
        Just(Form::BoardCell),
        Just(Form::Padded)
    ]
}

fn separator() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just(" "),
        Just(","),
        Just(", "),
        Just("\t"),
        Just("  "),
        Just(" ,\n")
    ]
}

/// A random game under random rules, as (rules, moves, final position).
fn game() -> impl Strategy<Value = (Rules, Vec<Square>, Position)> {
    (0..8usize, prop::collection::vec(any::<u32>(), 81)).prop_map(|(r, choices)| {
        let rules = all_rules()[r];
        let mut pos = Position::new(rules);
        let mut moves = Vec::new();
        for choice in choices {
            let legal = pos.legal_moves();
            let Some(sq) = legal.nth(choice as usize % legal.len().max(1)) else {
                break;
            };
            pos = pos.play(sq).expect("a member of legal_moves is legal");
            moves.push(sq);
        }
        (rules, moves, pos)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    fn a_square_reads_back_in_every_form_people_type(index in 0..81u8, form in form()) {
        let sq = Square::try_from_index(index).expect("0..81 is a square");
        prop_assert_eq!(parse_square_lenient(&write(sq, form)), Ok(sq));
        prop_assert_eq!(sq.to_string().parse::<Square>(), Ok(sq));
        // The protocol form is exact: lower case, nothing around it.
        if !matches!(form, Form::Lower) {
            prop_assert!(write(sq, form).parse::<Square>().is_err());
        }
    }

    #[test]
    fn a_move_list_reads_back_with_any_separators_and_forms(
        (rules, moves, pos) in game(),
        forms in prop::collection::vec(form(), 81),
        separators in prop::collection::vec(separator(), 82),
    ) {
        let mut text = separators[81].to_string();
        for (i, &sq) in moves.iter().enumerate() {
            text.push_str(&write(sq, forms[i]));
            text.push_str(separators[i]);
        }
        prop_assert_eq!(parse_move_list(&text), Ok(moves.clone()), "{:?}", text);
        prop_assert_eq!(position_from_move_list(rules, &text), Ok(pos));
        prop_assert_eq!(parse_move_list(&format_move_list(&moves)), Ok(moves));
    }

    #[test]
    fn a_move_list_error_names_the_first_bad_move(
        (rules, moves, _) in game(),
        at in any::<prop::sample::Index>(),
        pick in any::<prop::sample::Index>(),
    ) {
        let k = at.index(moves.len());
        let before = Position::from_moves(rules, moves[..k].iter().copied())
            .expect("a prefix of a legal game is legal");
        let illegal: Vec<Square> = Square::all().filter(|&s| !before.is_legal(s)).collect();
        prop_assume!(!illegal.is_empty());
        let bad = illegal[pick.index(illegal.len())];
        let reason = before.why_illegal(bad).expect("an illegal square has a reason");

        let mut list = moves[..k].to_vec();
        list.push(bad);
        list.extend_from_slice(&moves[k..]);
        let expected = MoveListError::Illegal {
            number: k + 1,
            square: bad,
            error: IllegalMove { square: bad, reason },
        };
        prop_assert_eq!(position_from_move_list(rules, &format_move_list(&list)), Err(expected));

        let mut text: Vec<String> = moves.iter().map(Square::to_string).collect();
        text.insert(k, "j0".to_string());
        let err = parse_move_list(&text.join(" "));
        prop_assert!(
            matches!(&err, Err(MoveListError::Parse { number, token, .. }) if *number == k + 1 && token == "j0"),
            "{:?}", err
        );
    }
}
