//! Drawing a position for a person at a terminal: the 3×3 grid of small boards
//! with coordinates a–i / 1–9 around it, the boards the player to move may use
//! highlighted, claimed boards showing their owner, drawn boards shaded, the last
//! move marked and (in `arena play`) a cursor.
//!
//! Every cue has a text form, so the board reads the same with colour off (a
//! pipe, a log, `NO_COLOR`, a screen reader): boards the player may use have
//! double borders, a claimed board says "X won" under it and a drawn one
//! "drawn", empty squares of closed boards are blank, and the last move is in
//! brackets. Colour only adds to that. The rules engine decides everything shown
//! here; this module only looks at a [`Position`].

use std::fmt::Write as _;
use std::io::IsTerminal as _;

use crossterm::style::{Attribute, Color, ContentStyle};
use referee::game::Termination;
use uttt::notation::board_name;
use uttt::rules::{BoardIndex, BoardState, ByMark, Mark, Position, Square, Status};

/// How much styling the output may carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    /// Text only: no escape sequence at all (pipes, files, tests). No cursor.
    Plain,
    /// A terminal with `NO_COLOR`: bold and reverse video, no colour.
    Mono,
    /// A terminal: colours and attributes.
    Colour,
}

impl Theme {
    /// The theme for standard output: colour on a terminal, unless `NO_COLOR` is
    /// set to a non-empty value (<https://no-color.org>).
    pub fn for_stdout() -> Theme {
        Theme::detect(
            std::io::stdout().is_terminal(),
            std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
        )
    }

    /// The decision of [`Theme::for_stdout`], from its two inputs.
    pub fn detect(is_terminal: bool, no_color: bool) -> Theme {
        match (is_terminal, no_color) {
            (false, _) => Theme::Plain,
            (true, true) => Theme::Mono,
            (true, false) => Theme::Colour,
        }
    }
}

/// What to draw: a position and the squares to point out in it.
#[derive(Clone, Copy, Debug)]
pub struct BoardView<'a> {
    /// The position.
    pub position: &'a Position,
    /// The mark played last, shown in brackets.
    pub last: Option<Square>,
    /// The square under the cursor (`arena play`); not shown by [`Theme::Plain`].
    pub cursor: Option<Square>,
}

/// What a character on the board is, which decides its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ink {
    Plain,
    Coordinate,
    Border,
    /// Border of a board the player to move may use.
    Allowed,
    Mark(Mark),
    /// An empty square of an open board.
    Empty,
    /// An empty square the player to move may take.
    Playable,
    /// The brackets around the last move.
    LastMove,
    /// "drawn" under a drawn board.
    DrawnLabel,
}

/// What lies behind a character.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Paper {
    Plain,
    Won(Mark),
    Drawn,
    Cursor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Glyph {
    ch: char,
    ink: Ink,
    paper: Paper,
}

impl Glyph {
    const fn new(ch: char, ink: Ink) -> Glyph {
        Glyph {
            ch,
            ink,
            paper: Paper::Plain,
        }
    }
}

/// Inner width of a small board: " X X X ".
const INNER: usize = 7;
/// Left margin holding the row number: " 1 ".
const MARGIN: &str = " ";

/// The boards the player to move may mark, from the legal moves (so house rules
/// such as open won boards are shown as the engine plays them). None once the
/// game is over.
pub fn allowed_boards(position: &Position) -> u16 {
    position
        .legal_moves()
        .iter()
        .fold(0u16, |set, sq| set | 1 << sq.board().index())
}

/// Draws the board as lines of text (with escape sequences unless `theme` is
/// [`Theme::Plain`]). 17 lines, 33 columns.
pub fn render(view: &BoardView<'_>, theme: Theme) -> Vec<String> {
    glyph_lines(view)
        .iter()
        .map(|line| paint(line, theme))
        .collect()
}

fn glyph_lines(view: &BoardView<'_>) -> Vec<Vec<Glyph>> {
    let allowed = allowed_boards(view.position);
    let mut lines = vec![coordinate_line()];
    for band in 0..3u8 {
        let boxes: Vec<[Vec<Glyph>; 5]> = (0..3u8)
            .filter_map(|col| BoardIndex::try_new(band * 3 + col))
            .map(|board| board_box(view, board, allowed & (1 << board.index()) != 0))
            .collect();
        for (i, _) in boxes[0].iter().enumerate() {
            let row_label = (1..=3).contains(&i).then(|| band * 3 + i as u8);
            let mut line = Vec::new();
            push_str(&mut line, MARGIN, Ink::Plain);
            match row_label {
                Some(r) => push_str(&mut line, &format!("{r} "), Ink::Coordinate),
                None => push_str(&mut line, "  ", Ink::Plain),
            }
            for (k, b) in boxes.iter().enumerate() {
                if k > 0 {
                    push_str(&mut line, " ", Ink::Plain);
                }
                line.extend_from_slice(&b[i]);
            }
            if let Some(r) = row_label {
                push_str(&mut line, &format!(" {r}"), Ink::Coordinate);
            }
            lines.push(line);
        }
    }
    lines.push(coordinate_line());
    lines
}

fn coordinate_line() -> Vec<Glyph> {
    let mut line = Vec::new();
    push_str(&mut line, MARGIN, Ink::Plain);
    push_str(&mut line, "    a b c     d e f     g h i", Ink::Coordinate);
    line
}

fn push_str(line: &mut Vec<Glyph>, s: &str, ink: Ink) {
    line.extend(s.chars().map(|ch| Glyph::new(ch, ink)));
}

/// One small board with its border: top, three rows of squares, bottom.
fn board_box(view: &BoardView<'_>, board: BoardIndex, allowed: bool) -> [Vec<Glyph>; 5] {
    let pos = view.position;
    let state = pos.board_state(board);
    let open = !pos.is_board_closed(board);
    let (h, v, corners, border) = if allowed {
        ('═', '║', ['╔', '╗', '╚', '╝'], Ink::Allowed)
    } else {
        ('─', '│', ['┌', '┐', '└', '┘'], Ink::Border)
    };
    let paper = match state {
        BoardState::Open => Paper::Plain,
        BoardState::Won(owner) => Paper::Won(owner),
        BoardState::Drawn => Paper::Drawn,
    };
    let mut top = vec![Glyph::new(corners[0], border)];
    top.extend(std::iter::repeat_n(Glyph::new(h, border), INNER));
    top.push(Glyph::new(corners[1], border));

    let (label, label_ink) = match state {
        BoardState::Open => (String::new(), border),
        BoardState::Won(owner) => (format!("{owner} won"), Ink::Mark(owner)),
        BoardState::Drawn => ("drawn".to_string(), Ink::DrawnLabel),
    };
    let pad = INNER - label.chars().count();
    let mut bottom = vec![Glyph::new(corners[2], border)];
    bottom.extend(std::iter::repeat_n(Glyph::new(h, border), pad / 2));
    bottom.extend(label.chars().map(|ch| Glyph::new(ch, label_ink)));
    bottom.extend(std::iter::repeat_n(Glyph::new(h, border), pad - pad / 2));
    bottom.push(Glyph::new(corners[3], border));

    let rows: [Vec<Glyph>; 3] = std::array::from_fn(|r| {
        let mut inner = [Glyph::new(' ', Ink::Plain); INNER];
        for c in 0..3 {
            let Some(sq) = square_at(board, r, c) else {
                continue;
            };
            inner[1 + 2 * c] = match pos.mark_at(sq) {
                Some(mark) => Glyph::new(mark.as_char(), Ink::Mark(mark)),
                None if !open => Glyph::new(' ', Ink::Plain),
                None if allowed && pos.is_legal(sq) => Glyph::new('·', Ink::Playable),
                None => Glyph::new('·', Ink::Empty),
            };
            if view.last == Some(sq) {
                inner[2 * c] = Glyph::new('[', Ink::LastMove);
                inner[2 * c + 2] = Glyph::new(']', Ink::LastMove);
            }
        }
        for g in &mut inner {
            g.paper = paper;
        }
        if let Some(c) =
            (0..3).find(|&c| square_at(board, r, c) == view.cursor && view.cursor.is_some())
        {
            // The cursor covers the square and the spaces beside it, but not
            // the last move's brackets, which stay readable next to it.
            for g in &mut inner[2 * c..=2 * c + 2] {
                if g.ink != Ink::LastMove {
                    g.paper = Paper::Cursor;
                }
            }
        }
        let mut line = vec![Glyph::new(v, border)];
        line.extend_from_slice(&inner);
        line.push(Glyph::new(v, border));
        line
    });
    let [r0, r1, r2] = rows;
    [top, r0, r1, r2, bottom]
}

/// The square in row `r`, column `c` (0–2) of `board`.
fn square_at(board: BoardIndex, r: usize, c: usize) -> Option<Square> {
    let column = (board.index() % 3) * 3 + c;
    let row = (board.index() / 3) * 3 + r;
    Square::from_column_row(u8::try_from(column).ok()?, u8::try_from(row).ok()?)
}

/// Turns glyphs into text, grouping runs of one style into one escape sequence.
fn paint(line: &[Glyph], theme: Theme) -> String {
    let mut out = String::new();
    let mut run = String::new();
    let mut current: Option<ContentStyle> = None;
    for g in line {
        let style = style_of(*g, theme);
        if current != Some(style) {
            flush(&mut out, &mut run, current);
            current = Some(style);
        }
        run.push(g.ch);
    }
    flush(&mut out, &mut run, current);
    out
}

fn flush(out: &mut String, run: &mut String, style: Option<ContentStyle>) {
    if run.is_empty() {
        return;
    }
    match style {
        Some(style) if style != ContentStyle::new() => {
            let _ = write!(out, "{}", style.apply(run.as_str()));
        }
        _ => out.push_str(run),
    }
    run.clear();
}

/// The colour scheme: X red, O cyan; a claimed board takes a dark shade of its
/// owner's colour behind readable marks; drawn boards are grey; boards the player
/// may use have bold yellow borders.
fn style_of(g: Glyph, theme: Theme) -> ContentStyle {
    let mut style = ContentStyle::new();
    match theme {
        Theme::Plain => {}
        Theme::Mono => {
            match g.ink {
                Ink::Allowed | Ink::Mark(_) | Ink::LastMove => {
                    style.attributes.set(Attribute::Bold);
                }
                Ink::Coordinate | Ink::Empty => style.attributes.set(Attribute::Dim),
                _ => {}
            }
            if g.paper == Paper::Cursor {
                style.attributes.set(Attribute::Reverse);
            }
        }
        Theme::Colour => {
            let (fg, bold) = match g.ink {
                Ink::Plain | Ink::Border => (None, false),
                Ink::Coordinate | Ink::Empty => (Some(Color::DarkGrey), false),
                Ink::Allowed => (Some(Color::Yellow), true),
                Ink::Mark(Mark::X) => (Some(Color::Red), true),
                Ink::Mark(Mark::O) => (Some(Color::Cyan), true),
                Ink::Playable => (Some(Color::Yellow), false),
                Ink::LastMove => (Some(Color::Yellow), true),
                Ink::DrawnLabel => (Some(Color::Grey), false),
            };
            style.foreground_color = fg;
            if bold {
                style.attributes.set(Attribute::Bold);
            }
            style.background_color = match g.paper {
                Paper::Plain | Paper::Cursor => None,
                Paper::Won(Mark::X) => Some(Color::AnsiValue(52)),
                Paper::Won(Mark::O) => Some(Color::AnsiValue(23)),
                Paper::Drawn => Some(Color::AnsiValue(238)),
            };
            if g.paper == Paper::Cursor {
                style.attributes.set(Attribute::Reverse);
            }
        }
    }
    style
}

/// Whose turn it is and where they may play, in words: "O to move in the center
/// board", "X to move: free move, any open board"; or how the board ended the game.
pub fn turn_words(position: &Position) -> String {
    let side = position.side_to_move();
    match position.status() {
        Status::Over(outcome) => {
            // The referee's words for a board ending; names only matter for faults.
            let why = Termination::Board(outcome).describe(
                &ByMark::default(),
                position.boards_won().map(u16::count_ones),
            );
            match outcome.winner() {
                Some(winner) => format!("Game over: {winner} wins, {why}"),
                None => format!("Game over: drawn, {why}"),
            }
        }
        Status::Ongoing => match position.required_board() {
            Some(board) => format!("{side} to move in the {}", board_name(board)),
            None => format!("{side} to move: free move, any open board"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uttt::notation::parse_position;
    use uttt::rules::Rules;

    /// X has won the top-left board, the bottom-right board is drawn, O's last
    /// mark e2 sends X to the center board.
    const KNOWN: &str = "xxx6/oo2o4/9/3o5/9/9/6xox/6xoo/6oxx 5 x";

    fn known() -> Position {
        parse_position(KNOWN, Rules::STANDARD).unwrap()
    }

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    #[test]
    fn plain_board_shows_every_cue_in_text() {
        let pos = known();
        let view = BoardView {
            position: &pos,
            last: Some(sq("e2")),
            cursor: Some(sq("a1")),
        };
        let expected = [
            "     a b c     d e f     g h i",
            "   ┌───────┐ ┌───────┐ ┌───────┐",
            " 1 │ X X X │ │ · · · │ │ · · · │ 1",
            " 2 │ O O   │ │ ·[O]· │ │ · · · │ 2",
            " 3 │       │ │ · · · │ │ · · · │ 3",
            "   └─X won─┘ └───────┘ └───────┘",
            "   ┌───────┐ ╔═══════╗ ┌───────┐",
            " 4 │ · · · │ ║ O · · ║ │ · · · │ 4",
            " 5 │ · · · │ ║ · · · ║ │ · · · │ 5",
            " 6 │ · · · │ ║ · · · ║ │ · · · │ 6",
            "   └───────┘ ╚═══════╝ └───────┘",
            "   ┌───────┐ ┌───────┐ ┌───────┐",
            " 7 │ · · · │ │ · · · │ │ X O X │ 7",
            " 8 │ · · · │ │ · · · │ │ X O O │ 8",
            " 9 │ · · · │ │ · · · │ │ O X X │ 9",
            "   └───────┘ └───────┘ └─drawn─┘",
            "     a b c     d e f     g h i",
        ];
        assert_eq!(render(&view, Theme::Plain), expected);
        assert_eq!(turn_words(&pos), "X to move in the center board");
    }

    #[test]
    fn a_free_move_highlights_every_open_board_and_an_ended_game_none() {
        let pos =
            parse_position("xxx6/oo2o4/9/3o5/9/9/6xox/6xoo/6oxx * x", Rules::STANDARD).unwrap();
        let view = BoardView {
            position: &pos,
            last: None,
            cursor: None,
        };
        let lines = render(&view, Theme::Plain);
        assert_eq!(lines[1], "   ┌───────┐ ╔═══════╗ ╔═══════╗");
        assert_eq!(lines[6], "   ╔═══════╗ ╔═══════╗ ╔═══════╗");
        assert_eq!(lines[11], "   ╔═══════╗ ╔═══════╗ ┌───────┐");
        assert_eq!(turn_words(&pos), "X to move: free move, any open board");

        // X owns the whole top row of boards: the game is over.
        let over =
            parse_position("xxxxxxxxx/oo1oo1oo1/9/oo7/9/9/9/9/9 * o", Rules::STANDARD).unwrap();
        assert!(over.is_over());
        let view = BoardView {
            position: &over,
            last: Some(sq("i1")),
            cursor: None,
        };
        let lines = render(&view, Theme::Plain);
        assert!(lines.iter().all(|l| !l.contains('═')), "{lines:#?}");
        assert_eq!(lines[2], " 1 │ X X X │ │ X X X │ │ X X[X]│ 1");
        assert_eq!(lines[5], "   └─X won─┘ └─X won─┘ └─X won─┘");
        assert_eq!(
            turn_words(&over),
            "Game over: X wins, three boards in a row"
        );
    }

    #[test]
    fn colour_adds_escapes_only_on_a_terminal() {
        let pos = known();
        let view = BoardView {
            position: &pos,
            last: Some(sq("e2")),
            cursor: Some(sq("e5")),
        };
        let plain = render(&view, Theme::Plain).join("\n");
        assert!(!plain.contains('\x1b'));
        let colour = render(&view, Theme::Colour).join("\n");
        assert!(colour.contains("\x1b["), "colour output has escapes");
        // 256-colour backgrounds for the claimed (52) and drawn (238) boards.
        assert!(colour.contains("48;5;52"), "{colour:?}");
        assert!(colour.contains("48;5;238"), "{colour:?}");
        let mono = render(&view, Theme::Mono).join("\n");
        assert!(
            mono.contains("\x1b[7m"),
            "the cursor is reverse video: {mono:?}"
        );
        assert!(
            !mono.contains("38;5") && !mono.contains("48;5"),
            "no colour under NO_COLOR: {mono:?}"
        );
        // Same text under every theme once escapes are stripped.
        assert_eq!(strip_escapes(&colour), plain);
        assert_eq!(strip_escapes(&mono), plain);
    }

    #[test]
    fn theme_follows_the_terminal_and_no_color() {
        assert_eq!(Theme::detect(false, false), Theme::Plain);
        assert_eq!(Theme::detect(false, true), Theme::Plain);
        assert_eq!(Theme::detect(true, true), Theme::Mono);
        assert_eq!(Theme::detect(true, false), Theme::Colour);
    }

    fn strip_escapes(s: &str) -> String {
        let mut out = String::new();
        let mut chars = s.chars();
        while let Some(c) = chars.next() {
            if c == '\x1b' {
                for d in chars.by_ref() {
                    if d.is_ascii_alphabetic() {
                        break;
                    }
                }
            } else {
                out.push(c);
            }
        }
        out
    }
}
