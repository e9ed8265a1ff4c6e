//! Random text never panics the notation parsers, and whatever they accept means
//! what it says: it writes back to the same value. Whatever bytes a bot sends, the
//! escaped form that reaches people holds no control character.
//!
//! Besides arbitrary Unicode, each parser gets text built from its own alphabet
//! (and position text gets real positions with a few characters changed), so that
//! the fuzzing reaches past the first check.

mod naive;

use naive::all_rules;
use proptest::prelude::*;
use uttt::notation::{
    board_cell, format_move_list, parse_move_list, parse_position, parse_square_lenient,
};
use uttt::protocol::{MAX_LINE_BYTES, check_line, escape_bytes, escape_lines};
use uttt::rules::{Position, Rules, Square};

/// Whatever `parse_square_lenient` accepted must be that square in one of the
/// forms it documents.
fn check_squares(text: &str) -> Result<(), TestCaseError> {
    if let Ok(sq) = text.parse::<Square>() {
        prop_assert_eq!(sq.to_string(), text);
    }
    if let Ok(sq) = parse_square_lenient(text) {
        let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let lower = text.trim().to_lowercase();
        prop_assert!(
            lower == sq.to_string() || squeezed == board_cell(sq),
            "{:?} read as {}",
            text,
            sq
        );
    }
    Ok(())
}

fn check_move_list(text: &str) -> Result<(), TestCaseError> {
    if let Ok(moves) = parse_move_list(text) {
        let tokens = text
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|t| !t.is_empty())
            .count();
        prop_assert_eq!(moves.len(), tokens, "{:?}", text);
        prop_assert_eq!(parse_move_list(&format_move_list(&moves)), Ok(moves));
    }
    Ok(())
}

/// A position the parser accepted is consistent with itself and writes back to
/// the same position.
fn check_position(text: &str, rules: Rules) -> Result<(), TestCaseError> {
    let Ok(pos) = parse_position(text, rules) else {
        return Ok(());
    };
    let written = pos.to_string();
    prop_assert_eq!(
        parse_position(&written, rules),
        Ok(pos),
        "{:?} -> {}",
        text,
        written
    );
    let legal = pos.legal_moves();
    prop_assert_eq!(pos.is_over(), legal.is_empty(), "{}", written);
    for sq in Square::all() {
        prop_assert_eq!(
            legal.contains(sq),
            pos.why_illegal(sq).is_none(),
            "{} in {}",
            sq,
            written
        );
    }
    if let Some(board) = pos.required_board() {
        prop_assert!(!pos.is_board_closed(board), "{}", written);
        prop_assert!(legal.iter().all(|sq| sq.board() == board), "{}", written);
    }
    Ok(())
}

/// A random position from a random game under `rules`, as its 81 cells in
/// reading order across the whole grid (`.` for empty) and the `<next> <side>` tail.
fn position_cells(rules: Rules, choices: &[u32]) -> (Vec<char>, String) {
    let mut pos = Position::new(rules);
    for &choice in choices {
        let legal = pos.legal_moves();
        let Some(sq) = legal.nth(choice as usize % legal.len().max(1)) else {
            break;
        };
        pos = pos.play(sq).expect("a member of legal_moves is legal");
    }
    let text = pos.to_string();
    let (rows, tail) = text.split_once(' ').expect("position text has fields");
    let cells = rows
        .chars()
        .filter(|&c| c != '/')
        .flat_map(|c| match c.to_digit(10) {
            Some(n) => vec!['.'; n as usize],
            None => vec![c],
        })
        .collect();
    (cells, tail.to_string())
}

fn cells_text(cells: &[char], tail: &str) -> String {
    let rows: Vec<String> = cells.chunks(9).map(|row| row.iter().collect()).collect();
    format!("{} {tail}", rows.join("/"))
}

/// One edit of position text: replace, insert or delete at a place.
#[derive(Clone, Debug)]
enum Edit {
    Replace(prop::sample::Index, char),
    Insert(prop::sample::Index, char),
    Delete(prop::sample::Index),
}

fn edit() -> impl Strategy<Value = Edit> {
    let c = prop::sample::select("xoXO.0123456789/*- \u{e9}".chars().collect::<Vec<_>>());
    prop_oneof![
        (any::<prop::sample::Index>(), c.clone()).prop_map(|(i, c)| Edit::Replace(i, c)),
        (any::<prop::sample::Index>(), c).prop_map(|(i, c)| Edit::Insert(i, c)),
        any::<prop::sample::Index>().prop_map(Edit::Delete),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for e in edits {
        match *e {
            Edit::Replace(ref i, c) if !chars.is_empty() => {
                let i = i.index(chars.len());
                chars[i] = c;
            }
            Edit::Insert(ref i, c) => chars.insert(i.index(chars.len() + 1), c),
            Edit::Delete(ref i) if !chars.is_empty() => {
                chars.remove(i.index(chars.len()));
            }
            _ => {}
        }
    }
    chars.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn square_parsers_never_panic_on_any_text(text in "\\PC{0,12}") {
        check_squares(&text)?;
    }

    #[test]
    fn square_parsers_never_panic_on_square_like_text(text in "[a-jA-J0-9. \t]{0,6}") {
        check_squares(&text)?;
    }

    #[test]
    fn move_list_parser_never_panics_on_any_text(text in "\\PC{0,60}") {
        check_move_list(&text)?;
    }

    #[test]
    fn move_list_parser_never_panics_on_move_like_text(text in "[a-jA-J0-9., \t\n]{0,40}") {
        check_move_list(&text)?;
    }

    #[test]
    fn position_parser_never_panics_on_any_text(text in "\\PC{0,120}", r in 0..8usize) {
        check_position(&text, all_rules()[r])?;
    }

    #[test]
    fn position_parser_never_panics_on_position_like_text(
        text in "([xoXO.1-9]{0,10}/){0,10}[xoXO.1-9]{0,10} [0-9*-] [xoXOy]",
        r in 0..8usize,
    ) {
        check_position(&text, all_rules()[r])?;
    }

    /// Swapping cells keeps the mark counts right, so many of these parse: they
    /// are positions the rules may never reach, which the parser must either
    /// reject or make consistent.
    #[test]
    fn position_parser_never_panics_on_edited_positions(
        choices in prop::collection::vec(any::<u32>(), 0..81),
        swaps in prop::collection::vec(any::<(prop::sample::Index, prop::sample::Index)>(), 0..4),
        next in prop::option::of("[1-9*]"),
        edits in prop::collection::vec(edit(), 0..2),
        write_rules in 0..8usize,
        read_rules in 0..8usize,
    ) {
        let (mut cells, tail) = position_cells(all_rules()[write_rules], &choices);
        let text = cells_text(&cells, &tail);
        check_position(&text, all_rules()[write_rules])?;
        for (i, j) in &swaps {
            cells.swap(i.index(81), j.index(81));
        }
        let tail = match next {
            Some(next) => format!("{next} {}", &tail[tail.len() - 1..]),
            None => tail,
        };
        let edited = apply(&cells_text(&cells, &tail), &edits);
        check_position(&edited, all_rules()[read_rules])?;
    }

    /// Bot bytes as people see them: printable ASCII only (plus the newlines that
    /// separate stderr lines), one output line per input line.
    #[test]
    fn escaped_bot_text_holds_no_control_character(
        bytes in prop::collection::vec(any::<u8>(), 0..400),
        escapes in prop::collection::vec(prop::sample::select(vec![0x1bu8, 0x07, b'\r', b'\n', 0x9b, 0x08]), 0..20),
    ) {
        let mut bytes = bytes;
        bytes.extend_from_slice(&escapes);
        let quoted = escape_bytes(&bytes);
        prop_assert!(quoted.chars().all(|c| c.is_ascii_graphic() || c == ' ' || c == '…'), "{:?}", quoted);
        let lines = escape_lines(&bytes);
        prop_assert!(lines.chars().all(|c| c.is_ascii_graphic() || c == ' ' || c == '\n'), "{:?}", lines);
        let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
        prop_assert_eq!(lines.matches('\n').count(), newlines);
    }

    /// The line rules: never a panic, the length limit without the line end, and
    /// no control character in what is accepted.
    #[test]
    fn the_line_checker_never_panics_and_accepts_no_control_character(
        bytes in prop::collection::vec(any::<u8>(), 0..64),
        long in 0usize..3,
    ) {
        let mut line = bytes;
        if long > 0 {
            line.resize(MAX_LINE_BYTES - 1 + long, b'x');
        }
        if let Ok(text) = check_line(&line) {
            prop_assert!(text.chars().all(|c| !c.is_control() || c == '\t'), "{:?}", text);
            prop_assert!(line.strip_suffix(b"\r").unwrap_or(&line).len() <= MAX_LINE_BYTES);
        }
    }

    /// The length limit itself, on lines of printable text (random bytes above are
    /// nearly always refused for a control byte first): a line is accepted exactly
    /// when it holds at most MAX_LINE_BYTES bytes, a final `\r` not counted.
    #[test]
    fn printable_lines_are_accepted_exactly_up_to_the_limit(
        body in "[ -~]{0,64}",
        extra in 0usize..3,
        cr in any::<bool>(),
    ) {
        let mut line = body.into_bytes();
        line.resize(MAX_LINE_BYTES - 1 + extra, b'x');
        let len = line.len();
        if cr {
            line.push(b'\r');
        }
        prop_assert_eq!(check_line(&line).is_ok(), len <= MAX_LINE_BYTES);
    }
}
