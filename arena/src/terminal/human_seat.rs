//! A person at the terminal, as a [`Seat`] of the referee's game loop.
//!
//! The person is asked for moves exactly like a bot: the referee sends the moves so
//! far and the legal squares, and checks the answer itself. This seat only helps
//! the person give a legal answer: it draws the board, reads keys (a typed square
//! such as `e5` or `5.1`, or a cursor moved with the arrow keys), and refuses an
//! illegal square with the engine's reason in words instead of losing the game.
//!
//! Undo and quit are not moves, so they leave the game loop through a [`Control`]
//! channel: the caller (`arena play`) abandons the running game and
//! starts it again from the shorter line. Quit keys are read on the input thread
//! and sent at once, so they work while a bot is thinking too.
//!
//! The terminal is put in raw mode on the alternate screen by [`TerminalGuard`],
//! which puts it back when dropped, on panic, and on every exit path.

use std::io::{self, IsTerminal as _, Write as _};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use crossterm::{cursor, execute, queue, terminal};
use referee::bot::{Answer, Fault, Reply};
use referee::game::Seat;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use uttt::notation::{illegal_words, move_words, parse_square_lenient, square_words};
use uttt::protocol::{GameOver, Go, NewGame};
use uttt::rules::{BoardIndex, ByMark, Cell, Mark, Position, Rules, Square};

use crate::terminal::board::{self, BoardView, Theme};

/// Longest text the move entry takes ("5.5" and "e5" need three and two).
const ENTRY_MAX: usize = 6;

/// What the person asked for that is not a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Control {
    /// Take moves back: play on from this line (opening included).
    Undo(Vec<Square>),
    /// Leave the game now; it is not recorded.
    Quit,
}

/// A key that means something at the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// A character of a square being typed.
    Char(char),
    /// Delete the last typed character.
    Backspace,
    /// Clear the typed text and the message.
    Clear,
    /// Play the typed square, or the cursor's square when nothing is typed.
    Enter,
    /// Move the cursor by columns and rows.
    Arrow {
        /// Columns to the right (negative: left).
        dx: i8,
        /// Rows down (negative: up).
        dy: i8,
    },
    /// Take back a move (see [`Console`]).
    Undo,
    /// The terminal changed size: draw again.
    Redraw,
}

/// A key press, sorted: for the board, or quit (which bypasses the board).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// For the board.
    Key(Key),
    /// `q`, Ctrl-C or Ctrl-D.
    Quit,
}

/// What a key press means. `u` and `q` are free for commands because no square
/// uses those letters.
pub fn classify(key: KeyEvent) -> Option<Input> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    Some(match key.code {
        KeyCode::Char('c' | 'd') if ctrl => Input::Quit,
        KeyCode::Char('q' | 'Q') => Input::Quit,
        KeyCode::Char('u' | 'U') => Input::Key(Key::Undo),
        KeyCode::Char(c) if !ctrl => Input::Key(Key::Char(c)),
        KeyCode::Enter => Input::Key(Key::Enter),
        KeyCode::Backspace | KeyCode::Delete => Input::Key(Key::Backspace),
        KeyCode::Esc => Input::Key(Key::Clear),
        KeyCode::Left => Input::Key(Key::Arrow { dx: -1, dy: 0 }),
        KeyCode::Right => Input::Key(Key::Arrow { dx: 1, dy: 0 }),
        KeyCode::Up => Input::Key(Key::Arrow { dx: 0, dy: -1 }),
        KeyCode::Down => Input::Key(Key::Arrow { dx: 0, dy: 1 }),
        _ => return None,
    })
}

/// Whether the terminal is in raw mode on the alternate screen (so the panic hook
/// and `Drop` restore it once).
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Owns the terminal while a game is played: raw mode (keys arrive one by one,
/// Ctrl-C arrives as a key), the alternate screen (the shell's screen comes back
/// untouched), hidden cursor. Dropping it restores the terminal, and so does a
/// panic, before the panic message is printed.
#[derive(Debug)]
pub struct TerminalGuard(());

impl TerminalGuard {
    /// Takes over the terminal.
    ///
    /// # Errors
    /// Standard input or output is not a terminal, or raw mode cannot be set.
    pub fn enter() -> io::Result<TerminalGuard> {
        if !io::stdin().is_terminal() || !io::stdout().is_terminal() {
            return Err(io::Error::other(
                "standard input and output must be a terminal",
            ));
        }
        install_panic_hook();
        terminal::enable_raw_mode()?;
        ACTIVE.store(true, Ordering::SeqCst);
        let guard = TerminalGuard(());
        execute!(io::stdout(), terminal::EnterAlternateScreen, cursor::Hide)?;
        Ok(guard)
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// Puts the terminal back as it was, once.
fn restore_terminal() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let _ = execute!(io::stdout(), cursor::Show, terminal::LeaveAlternateScreen);
        let _ = terminal::disable_raw_mode();
    }
}

fn install_panic_hook() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore_terminal();
            previous(info);
        }));
    });
}

/// Reads key presses on a thread of its own (crossterm's reader blocks) and sends
/// them on: board keys to `keys`, quit straight to `control`.
///
/// # Errors
/// The thread cannot be started.
pub fn spawn_input_thread(
    keys: UnboundedSender<Key>,
    control: UnboundedSender<Control>,
) -> io::Result<()> {
    std::thread::Builder::new()
        .name("arena-play-keys".into())
        .spawn(move || {
            loop {
                let event = match crossterm::event::read() {
                    Ok(event) => event,
                    Err(_) => {
                        let _ = control.send(Control::Quit);
                        return;
                    }
                };
                let input = match event {
                    Event::Key(key) => classify(key),
                    Event::Resize(..) => Some(Input::Key(Key::Redraw)),
                    _ => None,
                };
                let sent = match input {
                    Some(Input::Quit) => control.send(Control::Quit).is_ok(),
                    Some(Input::Key(key)) => keys.send(key).is_ok(),
                    None => true,
                };
                if !sent {
                    return;
                }
            }
        })
        .map(drop)
}

/// The console a person plays at: what every seat at this terminal needs to draw
/// and read.
#[derive(Debug)]
pub struct Console {
    theme: Theme,
    keys: UnboundedReceiver<Key>,
    control: UnboundedSender<Control>,
    names: ByMark<String>,
    /// Which marks people play (both with `--two-players`).
    humans: ByMark<bool>,
    /// Plies of the starting line, which undo never takes back.
    start_plies: usize,
    rules: Rules,
    title: String,
    cursor: Square,
    entry: String,
    message: Option<String>,
}

/// What a key did to the turn.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Turn {
    /// Keep reading keys.
    Continue,
    /// Play this legal square.
    Play(Square, Position),
    /// Go back to this line.
    Undo(Vec<Square>),
}

/// Everything a [`Console`] is built from.
#[derive(Debug)]
pub struct ConsoleSetup {
    /// The style of the drawing.
    pub theme: Theme,
    /// Board keys from the input thread.
    pub keys: UnboundedReceiver<Key>,
    /// Where undo is sent.
    pub control: UnboundedSender<Control>,
    /// Both players' names.
    pub names: ByMark<String>,
    /// Which marks people play.
    pub humans: ByMark<bool>,
    /// Plies of the starting line.
    pub start_plies: usize,
    /// The rules.
    pub rules: Rules,
}

impl Console {
    /// A console; nothing is drawn yet.
    pub fn new(setup: ConsoleSetup) -> Console {
        let describe = |m: Mark| {
            let who = setup.names.get(m);
            if *setup.humans.get(m) {
                format!("{who} ({m})")
            } else {
                format!("{who} ({m}, bot)")
            }
        };
        let title = format!(
            "arena play: {} vs {}, {} rules",
            describe(Mark::X),
            describe(Mark::O),
            setup.rules
        );
        Console {
            theme: setup.theme,
            keys: setup.keys,
            control: setup.control,
            names: setup.names,
            humans: setup.humans,
            start_plies: setup.start_plies,
            rules: setup.rules,
            title,
            cursor: Square::new(center(), center_cell()),
            entry: String::new(),
            message: None,
        }
    }

    /// Shows `position` while nobody at the terminal is to move (a bot thinks).
    ///
    /// # Errors
    /// Writing to the terminal failed.
    pub fn show_waiting(&mut self, position: &Position, last: Option<Square>) -> io::Result<()> {
        let lines = self.screen(position, last, false);
        self.paint(lines)
    }

    /// A new turn: keys pressed while the other side moved are dropped (they were
    /// typed without seeing the reply), and the cursor moves into a board the
    /// player may use unless it is in one already.
    fn begin_turn(&mut self, position: &Position) {
        while self.keys.try_recv().is_ok() {}
        self.entry.clear();
        let allowed = board::allowed_boards(position);
        if allowed & (1 << self.cursor.board().index()) == 0 {
            let board = position.required_board().unwrap_or(center());
            self.cursor = Square::new(board, center_cell());
        }
    }

    /// What `key` does during the turn of `mover` in `position` (pure: no I/O).
    fn handle(&mut self, key: Key, position: &Position, moves: &[Square]) -> Turn {
        match key {
            Key::Char(c) if c.is_ascii_alphanumeric() || c == '.' => {
                if self.entry.chars().count() < ENTRY_MAX {
                    self.entry.push(c);
                }
                self.message = None;
            }
            Key::Char(_) => {
                self.message = Some("Type a square: a1 to i9, or board.cell like 5.1".into());
            }
            Key::Backspace => {
                self.entry.pop();
            }
            Key::Clear => {
                self.entry.clear();
                self.message = None;
            }
            Key::Redraw => {}
            Key::Arrow { dx, dy } => {
                let column = (i16::from(self.cursor.column()) + i16::from(dx)).clamp(0, 8);
                let row = (i16::from(self.cursor.row()) + i16::from(dy)).clamp(0, 8);
                if let Some(sq) = u8::try_from(column)
                    .ok()
                    .zip(u8::try_from(row).ok())
                    .and_then(|(c, r)| Square::from_column_row(c, r))
                {
                    self.cursor = sq;
                }
                self.entry.clear();
                self.message = None;
            }
            Key::Enter => {
                let chosen = if self.entry.is_empty() {
                    Ok(self.cursor)
                } else {
                    parse_square_lenient(&self.entry)
                };
                self.entry.clear();
                match chosen {
                    Err(e) => self.message = Some(capitalise(&e.to_string())),
                    Ok(sq) => {
                        self.cursor = sq;
                        match position.play(sq) {
                            Ok(after) => {
                                self.message = None;
                                return Turn::Play(sq, after);
                            }
                            Err(e) => {
                                self.message = Some(format!("Not allowed: {}", illegal_words(&e)));
                            }
                        }
                    }
                }
            }
            Key::Undo => match self.undo_target(moves) {
                Some(line) => {
                    let taken: Vec<String> =
                        moves[line.len()..].iter().map(Square::to_string).collect();
                    self.message = Some(format!("Took back {}", taken.join(" and ")));
                    return Turn::Undo(line);
                }
                None => {
                    self.message = Some(if moves.len() > self.start_plies {
                        "Nothing to undo: you have not moved yet".into()
                    } else {
                        "Nothing to undo: this is where the game started".into()
                    });
                }
            },
        }
        Turn::Continue
    }

    /// The line after undo: back to before the last move made at this terminal,
    /// so against a bot that also takes back its reply, and with two players it is
    /// one move. Never into the starting line.
    fn undo_target(&self, moves: &[Square]) -> Option<Vec<Square>> {
        (self.start_plies..moves.len())
            .rev()
            .find(|&i| *self.humans.get(mover_of_ply_index(i)))
            .map(|i| moves[..i].to_vec())
    }

    /// The whole screen as lines of text, each tagged with what it is for, so a
    /// short terminal can leave out the least needed lines (see [`fit`]).
    fn screen(
        &self,
        position: &Position,
        last: Option<Square>,
        asking: bool,
    ) -> Vec<(Part, String)> {
        let mut lines = vec![
            (Part::Title, self.title.clone()),
            (Part::Spacing, String::new()),
        ];
        lines.extend(
            board::render(
                &BoardView {
                    position,
                    last,
                    cursor: asking.then_some(self.cursor),
                },
                self.theme,
            )
            .into_iter()
            .map(|l| (Part::Essential, l)),
        );
        lines.push((Part::Spacing, String::new()));
        let last_words = last.map_or_else(String::new, |sq| {
            let mark = !position.side_to_move();
            format!("{} ({}): {sq}", move_words(mark, sq), self.names.get(mark))
        });
        lines.push((Part::Essential, last_words));
        let name = self.names.get(position.side_to_move());
        let turn = board::turn_words(position);
        lines.push((
            Part::Essential,
            if asking {
                format!("{turn} - your move, {name}")
            } else if position.is_over() {
                turn
            } else {
                format!("{turn} - {name} is thinking...")
            },
        ));
        let entry = if asking {
            format!(
                "> {}_   (cursor: {}, {})",
                self.entry,
                self.cursor,
                square_words(self.cursor)
            )
        } else {
            String::new()
        };
        lines.push((Part::Essential, entry));
        let message = match (&self.message, self.theme) {
            (None, _) => String::new(),
            (Some(m), Theme::Plain) => m.clone(),
            (Some(m), _) => {
                let mut style = crossterm::style::ContentStyle::new();
                style.attributes.set(crossterm::style::Attribute::Bold);
                if self.theme == Theme::Colour {
                    style.foreground_color = Some(crossterm::style::Color::Yellow);
                }
                style.apply(m).to_string()
            }
        };
        lines.push((Part::Essential, message));
        lines.push((Part::Spacing, String::new()));
        lines.push((
            Part::Help,
            "Type a square (e5 or 5.5) + Enter, or use the arrow keys + Enter.".into(),
        ));
        lines.push((
            Part::Help,
            if self.humans.x && self.humans.o {
                "u takes back one move; q leaves without saving."
            } else {
                "u takes back your move and the reply; q leaves without saving."
            }
            .into(),
        ));
        lines
    }

    /// Draws the screen over the previous one, as much as fits the terminal.
    fn paint(&mut self, lines: Vec<(Part, String)>) -> io::Result<()> {
        let rows = terminal::size().map_or(24, |(_, rows)| usize::from(rows));
        let lines = fit(lines, rows);
        let mut out = io::stdout().lock();
        for (row, line) in lines.iter().take(rows).enumerate() {
            let row = u16::try_from(row).unwrap_or(u16::MAX);
            queue!(
                out,
                cursor::MoveTo(0, row),
                crossterm::style::Print(line),
                terminal::Clear(terminal::ClearType::UntilNewLine)
            )?;
        }
        queue!(out, terminal::Clear(terminal::ClearType::FromCursorDown))?;
        out.flush()
    }
}

/// What a line of the screen is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// The board and the turn: always shown.
    Essential,
    /// Blank lines between parts.
    Spacing,
    /// The key reminder.
    Help,
    /// The players and rules.
    Title,
}

/// The screen for a terminal `rows` high: the blank lines go first, then the
/// help, then the title, so the board, the turn and the message stay in view (an
/// 80×24 terminal shows everything but the blank lines).
fn fit(mut lines: Vec<(Part, String)>, rows: usize) -> Vec<String> {
    for part in [Part::Spacing, Part::Help, Part::Title] {
        if lines.len() <= rows {
            break;
        }
        lines.retain(|(p, _)| *p != part);
    }
    lines.into_iter().map(|(_, line)| line).collect()
}

/// Who made the move at index `i` (0-based) of a game: X moves first, then they
/// alternate, with no passing.
fn mover_of_ply_index(i: usize) -> Mark {
    if i.is_multiple_of(2) {
        Mark::X
    } else {
        Mark::O
    }
}

fn center() -> BoardIndex {
    BoardIndex::ALL[4]
}

fn center_cell() -> Cell {
    Cell::ALL[4]
}

fn capitalise(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// A person at the shared terminal playing one mark.
#[derive(Debug)]
pub struct HumanSeat {
    /// The terminal, shared with the other person in a two-player game.
    pub console: Arc<tokio::sync::Mutex<Console>>,
}

impl Seat for HumanSeat {
    async fn new_game(&mut self, _: &NewGame) -> Result<(), Fault> {
        Ok(())
    }

    /// Draws the board and reads keys until the person chooses a legal square.
    /// The time limit is not enforced on people; the measured time is recorded.
    async fn ask(&mut self, go: &Go, _: Duration, _: Duration) -> Result<Answer, Fault> {
        let started = Instant::now();
        let mut console = self.console.lock().await;
        let position =
            Position::from_moves(console.rules, go.moves.iter().copied()).map_err(|(i, e)| {
                Fault::Malformed {
                    problem: format!(
                        "move {} of the game is illegal: {}",
                        i + 1,
                        illegal_words(&e)
                    ),
                }
            })?;
        console.begin_turn(&position);
        loop {
            let screen = console.screen(&position, go.last, true);
            console.paint(screen).map_err(terminal_gone)?;
            let Some(key) = console.keys.recv().await else {
                return Err(Fault::Disconnect {
                    detail: "the terminal's input closed".into(),
                });
            };
            match console.handle(key, &position, &go.moves) {
                Turn::Continue => {}
                Turn::Play(square, after) => {
                    if !after.is_over() {
                        console
                            .show_waiting(&after, Some(square))
                            .map_err(terminal_gone)?;
                    }
                    let elapsed = started.elapsed();
                    return Ok(Answer {
                        reply: Reply::Move(square),
                        elapsed,
                        usage: referee::bot::Usage::wall_only(elapsed),
                        info: None,
                    });
                }
                Turn::Undo(line) => {
                    let _ = console.control.send(Control::Undo(line));
                    drop(console);
                    // The caller drops this game on receiving the undo.
                    return std::future::pending().await;
                }
            }
        }
    }

    async fn game_over(&mut self, _: &GameOver) {}
    /// A person is timed by the wall clock.
    fn set_clock(&mut self, _: referee::bot::ClockMode) {}
}

fn terminal_gone(e: io::Error) -> Fault {
    Fault::Disconnect {
        detail: format!("the terminal could not be written: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uttt::notation::position_from_move_list;

    fn console(humans: ByMark<bool>, start_plies: usize) -> Console {
        let (_keys_tx, keys) = tokio::sync::mpsc::unbounded_channel();
        let (control, _control_rx) = tokio::sync::mpsc::unbounded_channel();
        Console::new(ConsoleSetup {
            theme: Theme::Plain,
            keys,
            control,
            names: ByMark {
                x: "ada".into(),
                o: "mcts".into(),
            },
            humans,
            start_plies,
            rules: Rules::STANDARD,
        })
    }

    fn squares(s: &str) -> Vec<Square> {
        uttt::notation::parse_move_list(s).unwrap()
    }

    fn type_in(t: &mut Console, pos: &Position, moves: &[Square], text: &str) -> Turn {
        for c in text.chars() {
            assert_eq!(t.handle(Key::Char(c), pos, moves), Turn::Continue);
        }
        t.handle(Key::Enter, pos, moves)
    }

    #[test]
    fn illegal_squares_are_refused_in_words() {
        let mut t = console(ByMark { x: true, o: false }, 0);
        let moves = squares("e5 d4");
        let pos = position_from_move_list(Rules::STANDARD, "e5 d4").unwrap();
        assert_eq!(type_in(&mut t, &pos, &moves, "e4"), Turn::Continue);
        assert_eq!(
            t.message.as_deref(),
            Some("Not allowed: e4 is in the center board, but you must play in the top-left board")
        );
        assert_eq!(type_in(&mut t, &pos, &moves, "5.1"), Turn::Continue);
        assert_eq!(
            t.message.as_deref(),
            Some("Not allowed: d4 is in the center board, but you must play in the top-left board")
        );
        assert_eq!(type_in(&mut t, &pos, &moves, "j4"), Turn::Continue);
        assert_eq!(
            t.message.as_deref(),
            Some("'j4' is not a square: columns are a..i")
        );
        let Turn::Play(sq, after) = type_in(&mut t, &pos, &moves, "B2") else {
            panic!("b2 is legal");
        };
        assert_eq!(sq.to_string(), "b2");
        assert_eq!(after.ply(), 3);
    }

    #[test]
    fn arrows_move_the_cursor_and_enter_plays_it() {
        let mut t = console(ByMark { x: true, o: false }, 0);
        let pos = Position::new(Rules::STANDARD);
        t.begin_turn(&pos);
        assert_eq!(t.cursor.to_string(), "e5");
        for key in [
            Key::Arrow { dx: -1, dy: 0 },
            Key::Arrow { dx: 0, dy: -1 },
            Key::Arrow { dx: 0, dy: -1 },
        ] {
            assert_eq!(t.handle(key, &pos, &[]), Turn::Continue);
        }
        let Turn::Play(sq, _) = t.handle(Key::Enter, &pos, &[]) else {
            panic!("d3 is legal");
        };
        assert_eq!(sq.to_string(), "d3");
        // The cursor stops at the edge of the grid.
        for _ in 0..12 {
            t.handle(Key::Arrow { dx: 1, dy: 1 }, &pos, &[]);
        }
        assert_eq!(t.cursor.to_string(), "i9");
        // Sent to the top-left board, the cursor jumps to its center.
        let pos = position_from_move_list(Rules::STANDARD, "e5 d4").unwrap();
        t.begin_turn(&pos);
        assert_eq!(t.cursor.to_string(), "b2");
    }

    #[test]
    fn undo_goes_back_to_the_last_move_made_at_the_terminal() {
        // Against a bot (the person plays X): the reply and the person's move go.
        let t = console(ByMark { x: true, o: false }, 0);
        assert_eq!(
            t.undo_target(&squares("e5 d4 b2 e4")),
            Some(squares("e5 d4"))
        );
        assert_eq!(t.undo_target(&squares("e5 d4")), Some(vec![]));
        assert_eq!(t.undo_target(&[]), None);
        // The person plays O: the bot's first move stays.
        let t = console(ByMark { x: false, o: true }, 0);
        assert_eq!(t.undo_target(&squares("e5 d4 b2")), Some(squares("e5")));
        assert_eq!(t.undo_target(&squares("e5")), None);
        // Two players: one move at a time, never into the starting line.
        let t = console(ByMark { x: true, o: true }, 2);
        assert_eq!(
            t.undo_target(&squares("e5 d4 b2 e4")),
            Some(squares("e5 d4 b2"))
        );
        assert_eq!(t.undo_target(&squares("e5 d4 b2")), Some(squares("e5 d4")));
        assert_eq!(t.undo_target(&squares("e5 d4")), None);
    }

    #[test]
    fn keys_are_sorted_into_board_keys_and_quit() {
        let key = |code| KeyEvent::new(code, KeyModifiers::NONE);
        assert_eq!(
            classify(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(Input::Quit)
        );
        assert_eq!(classify(key(KeyCode::Char('q'))), Some(Input::Quit));
        assert_eq!(
            classify(key(KeyCode::Char('u'))),
            Some(Input::Key(Key::Undo))
        );
        assert_eq!(
            classify(key(KeyCode::Char('e'))),
            Some(Input::Key(Key::Char('e')))
        );
        assert_eq!(
            classify(key(KeyCode::Up)),
            Some(Input::Key(Key::Arrow { dx: 0, dy: -1 }))
        );
        assert_eq!(classify(key(KeyCode::F(1))), None);
    }

    #[test]
    fn the_screen_says_whose_turn_and_what_happened() {
        let mut t = console(ByMark { x: true, o: false }, 0);
        let pos = position_from_move_list(Rules::STANDARD, "e5 d4").unwrap();
        t.begin_turn(&pos);
        let lines = fit(t.screen(&pos, Some("d4".parse().unwrap()), true), 100);
        assert_eq!(lines.len(), 27);
        assert_eq!(
            lines[0],
            "arena play: ada (X) vs mcts (O, bot), standard rules"
        );
        let text = lines.join("\n");
        assert!(
            text.contains("O played top-left of center board (mcts): d4"),
            "{text}"
        );
        assert!(
            text.contains("X to move in the top-left board - your move, ada"),
            "{text}"
        );
        assert!(
            text.contains("> _   (cursor: b2, center of top-left board)"),
            "{text}"
        );
        let waiting = fit(t.screen(&pos, None, false), 100).join("\n");
        assert!(waiting.contains("ada is thinking..."), "{waiting}");
        // 80×24: no blank lines; 22 rows: no help either; the title stays.
        let short = fit(t.screen(&pos, None, true), 24);
        assert_eq!(short.len(), 24);
        assert_eq!(short[0], lines[0]);
        assert!(short.iter().any(|l| l.contains("q leaves")));
        let shorter = fit(t.screen(&pos, None, true), 22);
        assert_eq!(shorter.len(), 22);
        assert_eq!(shorter[0], lines[0]);
        assert!(shorter.iter().all(|l| !l.contains("q leaves")));
    }
}
