//! The protocol loop: plays one [`Engine`] over the line protocol of protocol.md,
//! reading referee messages from any [`BufRead`] and answering on any [`Write`], so
//! tests drive it in memory and `arena bot` drives it on stdin/stdout.
//!
//! The loop trusts nothing it reads. A malformed or unexpected line is reported
//! on the diagnostics stream and skipped; the loop never panics. It rebuilds the
//! position from `moves` itself, hands the engine only positions the rules
//! engine accepts, and never answers with a square outside `legal`.

use std::io::{self, BufRead, ErrorKind, Write};
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use uttt::notation::illegal_words;
use uttt::protocol::{FromBot, Go, IdField, NewGame, PROTOCOL_VERSION, ToBot, parse_to_bot};
use uttt::rules::{Mark, MoveSet, Position, Square};

use crate::engine::{Budget, Choice, Engine, GameSetup};

/// Time kept back from every move for what happens outside the engine: the
/// referee starts its clock before writing `go` and stops it when it reads our
/// newline, so the pipe hops, our parsing and printing, and any moment the
/// process waits for a CPU all count. Pipes and parsing take well under a
/// millisecond; the margin is for scheduling on a busy machine, where a process
/// can wait a few milliseconds (one scheduler slice) before it runs again.
pub const SAFETY_MARGIN: Duration = Duration::from_millis(5);

/// The longest referee line we read. Real lines are under 1 KiB (81 moves and 81
/// legal squares); longer ones are reported and skipped, so a broken referee cannot
/// make the bot allocate without bound.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// What the bot says about itself in the handshake.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// `id name`.
    pub name: String,
    /// `id author`.
    pub author: String,
    /// `id version`.
    pub version: String,
}

impl Identity {
    /// The identity of a reference engine: its name, this project, this version.
    pub fn reference(engine: &dyn Engine) -> Identity {
        Identity {
            name: engine.name(),
            author: "uttt-arena reference bots".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

/// The time an engine may think when the referee grants `time`: `time` less
/// [`SAFETY_MARGIN`], but never less than half of `time`, so even `time 1` leaves
/// half a millisecond to find a legal move.
pub fn think_time(time: Duration) -> Duration {
    time - SAFETY_MARGIN.min(time / 2)
}

/// One line read from the referee.
enum Line {
    /// A complete line (without its newline), or the last unterminated line.
    Text(Vec<u8>),
    /// A line longer than [`MAX_LINE_BYTES`], skipped.
    TooLong(usize),
    /// The input is closed.
    End,
}

/// Reads one line of at most [`MAX_LINE_BYTES`], skipping the rest of longer ones.
fn read_line(input: &mut impl BufRead) -> io::Result<Line> {
    let mut line = Vec::new();
    let mut length = 0usize;
    let mut seen_any = false;
    loop {
        let available = match input.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(match (seen_any, length > MAX_LINE_BYTES) {
                (false, _) => Line::End,
                (true, true) => Line::TooLong(length),
                (true, false) => Line::Text(line),
            });
        }
        seen_any = true;
        let (chunk, found_newline) = match available.iter().position(|&b| b == b'\n') {
            Some(at) => (&available[..at], true),
            None => (available, false),
        };
        let room = MAX_LINE_BYTES.saturating_sub(line.len());
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        length += chunk.len();
        let used = chunk.len() + usize::from(found_newline);
        input.consume(used);
        if found_newline {
            return Ok(if length > MAX_LINE_BYTES {
                Line::TooLong(length)
            } else {
                Line::Text(line)
            });
        }
    }
}

/// The state of the game being played, between `newgame` and `gameover`.
#[derive(Debug)]
struct Game {
    setup: GameSetup,
    /// Picks a move from `legal` when the engine's answer cannot be used.
    fallback: SmallRng,
}

impl Game {
    fn new(setup: GameSetup) -> Game {
        Game {
            setup,
            fallback: SmallRng::seed_from_u64(setup.seed ^ 0xFA11_BAC4),
        }
    }
}

/// Plays `engine` over the protocol until `quit` or the end of `input`.
///
/// Replies go to `output`, flushed after the handshake and after every move;
/// reports about bad input go to `diagnostics` (stderr in a real bot), and a
/// failure to write them is ignored.
///
/// # Errors
/// Only I/O errors of `input` or `output`: the referee is gone and there is
/// nobody left to play for.
pub fn serve(
    engine: &mut dyn Engine,
    identity: &Identity,
    mut input: impl BufRead,
    mut output: impl Write,
    mut diagnostics: impl Write,
) -> io::Result<()> {
    let mut player = EnginePlayer::new(engine);
    let mut report = |message: std::fmt::Arguments<'_>| {
        let _ = writeln!(diagnostics, "{}: {message}", identity.name);
        let _ = diagnostics.flush();
    };
    loop {
        let line = read_line(&mut input)?;
        let read_at = Instant::now();
        let bytes = match line {
            Line::End => return Ok(()),
            Line::TooLong(length) => {
                report(format_args!(
                    "skipped a referee line of {length} bytes (longer than {MAX_LINE_BYTES})"
                ));
                continue;
            }
            Line::Text(bytes) => bytes,
        };
        let Ok(text) = std::str::from_utf8(&bytes) else {
            report(format_args!(
                "skipped a referee line that is not UTF-8: {}",
                uttt::protocol::escape_bytes(&bytes)
            ));
            continue;
        };
        if text.trim().is_empty() {
            continue;
        }
        let message = match parse_to_bot(text) {
            Ok(message) => message,
            Err(e) => {
                report(format_args!("{e}; skipped"));
                continue;
            }
        };
        match message {
            ToBot::Hello { version } => {
                if version != PROTOCOL_VERSION {
                    report(format_args!(
                        "the referee speaks uttt {version}; answering as uttt {PROTOCOL_VERSION}"
                    ));
                }
                for (field, value) in [
                    (IdField::Name, &identity.name),
                    (IdField::Author, &identity.author),
                    (IdField::Version, &identity.version),
                ] {
                    writeln!(output, "{}", FromBot::Id(field, value.clone()))?;
                }
                writeln!(output, "{}", FromBot::Ready)?;
                output.flush()?;
            }
            ToBot::NewGame(new) => player.new_game(&new),
            ToBot::Go(go) => {
                let reply = player.go(&go, read_at, &mut report);
                if let FromBot::Move(_) = reply.answer
                    && let Some(info) = reply.info
                {
                    writeln!(output, "{}", FromBot::Info(info))?;
                }
                writeln!(output, "{}", reply.answer)?;
                output.flush()?;
            }
            ToBot::GameOver(_) => player.game_over(&mut report),
            ToBot::Quit => return Ok(()),
        }
    }
}

/// An engine's side of the protocol, one message at a time: [`serve`] drives it
/// from lines on a pipe, and an in-process seat of the referee (self-play, the
/// opponent of `arena check`) drives it directly, so both answer exactly alike.
#[derive(Debug)]
pub struct EnginePlayer<E> {
    engine: E,
    game: Option<Game>,
}

impl<E: Engine> EnginePlayer<E> {
    /// A player between games.
    pub fn new(engine: E) -> EnginePlayer<E> {
        EnginePlayer { engine, game: None }
    }

    /// The engine.
    pub fn engine(&self) -> &E {
        &self.engine
    }

    /// `newgame`: the engine forgets the last game and is reseeded.
    pub fn new_game(&mut self, new: &NewGame) {
        let setup = GameSetup {
            mark: new.mark,
            rules: new.rules,
            seed: new.seed,
        };
        self.engine.new_game(&setup);
        self.game = Some(Game::new(setup));
    }

    /// `go`, read at `read_at`: the engine's move (or `resign` when `legal` is
    /// empty) and its last `info`. Problems with the request go to `report`.
    pub fn go(
        &mut self,
        go: &Go,
        read_at: Instant,
        report: &mut impl FnMut(std::fmt::Arguments<'_>),
    ) -> Reply {
        let engine = &mut self.engine;
        let game = self.game.get_or_insert_with(|| {
            report(format_args!(
                "'go' before 'newgame': playing standard rules with seed 0"
            ));
            let mark = if go.moves.len().is_multiple_of(2) {
                Mark::X
            } else {
                Mark::O
            };
            let setup = GameSetup::standard(mark, 0);
            engine.new_game(&setup);
            Game::new(setup)
        });
        let budget = Budget::new(read_at, read_at + think_time(go.time)).with_nodes(go.nodes);
        decide(engine, game, go, budget, report)
    }

    /// `gameover`: the engine may free what it kept for the game.
    pub fn game_over(&mut self, report: &mut impl FnMut(std::fmt::Arguments<'_>)) {
        if self.game.take().is_some() {
            self.engine.end_game();
        } else {
            report(format_args!("'gameover' outside a game; ignored"));
        }
    }
}

/// What a player answers to one `go`.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// A move, or `resign` when there was nothing to choose from.
    pub answer: FromBot,
    /// The engine's last `info`, if it gave one.
    pub info: Option<uttt::protocol::Info>,
}

/// Rebuilds the position, asks the engine, and checks its answer against `legal`.
fn decide(
    engine: &mut impl Engine,
    game: &mut Game,
    go: &Go,
    budget: Budget,
    report: &mut impl FnMut(std::fmt::Arguments<'_>),
) -> Reply {
    let legal: MoveSet = go.legal.iter().copied().collect();
    let rules = game.setup.rules;
    let pos = match Position::from_moves(rules, go.moves.iter().copied()) {
        Err((index, error)) => {
            report(format_args!(
                "move {} of 'moves' is illegal under {rules} rules ({}); choosing from 'legal'",
                index + 1,
                illegal_words(&error)
            ));
            return from_legal(game, legal, MoveSet::EMPTY, report);
        }
        Ok(pos) if pos.is_over() => {
            report(format_args!(
                "the game is already over after 'moves' ({rules} rules); choosing from 'legal'"
            ));
            return from_legal(game, legal, MoveSet::EMPTY, report);
        }
        Ok(pos) => pos,
    };
    let ours = pos.legal_moves();
    if ours != legal {
        report(format_args!(
            "'legal' disagrees with the {rules} rules after 'moves' (referee: {}; rules: {})",
            list(legal),
            list(ours)
        ));
    }
    if pos.side_to_move() != game.setup.mark {
        report(format_args!(
            "asked to move for {} but this game's mark is {}; playing on",
            pos.side_to_move(),
            game.setup.mark
        ));
    }
    let Choice { square, info } = engine.choose(&pos, &go.moves, budget);
    if legal.contains(square) || (legal.is_empty() && ours.contains(square)) {
        if legal.is_empty() {
            report(format_args!("'legal' is empty; playing the engine's move"));
        }
        return Reply {
            answer: FromBot::Move(square),
            info,
        };
    }
    report(format_args!(
        "the engine chose {square}, which is not in 'legal'; choosing from 'legal'"
    ));
    from_legal(game, legal, ours, report)
}

/// A random square of `legal`, preferring those the rules also allow; `resign` if
/// `legal` is empty (the protocol promises it never is).
fn from_legal(
    game: &mut Game,
    legal: MoveSet,
    ours: MoveSet,
    report: &mut impl FnMut(std::fmt::Arguments<'_>),
) -> Reply {
    let agreed: Vec<Square> = legal.iter().filter(|&sq| ours.contains(sq)).collect();
    let pool: Vec<Square> = if agreed.is_empty() {
        legal.iter().collect()
    } else {
        agreed
    };
    let answer = match pool.choose(&mut game.fallback) {
        Some(&sq) => FromBot::Move(sq),
        None => {
            report(format_args!("no legal move to choose from; resigning"));
            FromBot::Resign
        }
    };
    Reply { answer, info: None }
}

/// A move set as text for reports.
fn list(moves: MoveSet) -> String {
    if moves.is_empty() {
        return "none".into();
    }
    moves
        .iter()
        .map(|sq| sq.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::RandomEngine;
    use uttt::protocol::Go;
    use uttt::rules::Rules;

    /// Runs a session and returns (stdout, stderr).
    fn session(engine: &mut dyn Engine, input: &[u8]) -> (String, String) {
        let identity = Identity::reference(engine);
        let (mut out, mut err) = (Vec::new(), Vec::new());
        serve(engine, &identity, input, &mut out, &mut err).unwrap();
        (
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

    fn go_line(moves: &str, time_ms: u64) -> String {
        let moves = uttt::notation::parse_move_list(moves).unwrap();
        let pos = Position::from_moves(Rules::STANDARD, moves.iter().copied()).unwrap();
        ToBot::Go(Go::new(
            Duration::from_millis(time_ms),
            &moves,
            pos.legal_moves(),
        ))
        .to_string()
    }

    fn legal_after(moves: &str) -> MoveSet {
        uttt::notation::position_from_move_list(Rules::STANDARD, moves)
            .unwrap()
            .legal_moves()
    }

    const NEWGAME_X: &str =
        "newgame mark X rules standard opponent t seed 7 movetime 100 margin 50";
    const NEWGAME_O: &str =
        "newgame mark O rules standard opponent t seed 8 movetime 100 margin 50";

    #[test]
    fn handshake_sends_id_lines_then_ready() {
        let (out, err) = session(&mut RandomEngine::new(), b"uttt 1\nquit\n");
        let version = env!("CARGO_PKG_VERSION");
        assert_eq!(
            out,
            format!(
                "id name random\nid author uttt-arena reference bots\nid version {version}\nready\n"
            )
        );
        assert_eq!(err, "");
    }

    #[test]
    fn two_games_in_one_session_each_get_a_legal_move() {
        let input = format!(
            "uttt 1\n{NEWGAME_X}\n{}\ngameover result O reason resign moves none\n{NEWGAME_O}\n{}\nquit\n",
            go_line("", 50),
            go_line("e5", 50)
        );
        let (out, err) = session(&mut RandomEngine::new(), input.as_bytes());
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 6, "{out}");
        let first: Square = lines[4].parse().unwrap();
        let second: Square = lines[5].parse().unwrap();
        assert!(legal_after("").contains(first));
        assert!(legal_after("e5").contains(second));
        assert_eq!(err, "");
        // The same session replays exactly: the moves come from the seeds.
        let (again, _) = session(&mut RandomEngine::new(), input.as_bytes());
        assert_eq!(out, again);
    }

    #[test]
    fn garbage_lines_are_reported_and_skipped() {
        let mut input =
            b"hello there\n\n   \n\xff\xfe\ngo time soon last none moves none legal a1\n".to_vec();
        input.extend_from_slice(b"newgame mark Q rules standard seed 1\n");
        input.extend_from_slice(&vec![b'x'; MAX_LINE_BYTES + 10]);
        input.extend_from_slice(b"\ngameover result X reason resign\nuttt 1\n");
        let (out, err) = session(&mut RandomEngine::new(), &input);
        assert!(out.ends_with("ready\n"), "{out}");
        let reports: Vec<&str> = err.lines().collect();
        assert_eq!(reports.len(), 6, "{err}");
        assert!(reports[0].contains("unknown command 'hello'"), "{err}");
        assert!(reports[1].contains("not UTF-8"), "{err}");
        assert!(reports[2].contains("'time' is not a whole number"), "{err}");
        assert!(reports[3].contains("'Q' is not a mark"), "{err}");
        assert!(reports[4].contains("skipped a referee line of"), "{err}");
        assert!(reports[5].contains("'gameover' outside a game"), "{err}");
    }

    #[test]
    fn quit_ends_the_session_and_the_rest_is_not_read() {
        let (out, _) = session(&mut RandomEngine::new(), b"uttt 1\nquit\nuttt 1\n");
        assert_eq!(out.matches("ready").count(), 1);
    }

    #[test]
    fn end_of_input_ends_the_session_cleanly() {
        let (out, err) = session(&mut RandomEngine::new(), b"uttt 1");
        assert!(out.ends_with("ready\n"));
        assert_eq!(err, "");
        let (out, _) = session(&mut RandomEngine::new(), b"");
        assert_eq!(out, "");
    }

    #[test]
    fn go_before_newgame_still_gets_a_legal_move() {
        let input = format!("{}\n", go_line("e5", 20));
        let (out, err) = session(&mut RandomEngine::new(), input.as_bytes());
        let sq: Square = out.trim().parse().unwrap();
        assert!(legal_after("e5").contains(sq));
        assert!(err.contains("before 'newgame'"), "{err}");
    }

    #[test]
    fn an_illegal_move_list_is_reported_and_the_move_comes_from_legal() {
        let input = format!("{NEWGAME_O}\ngo time 20 last e5 moves e5,e5 legal c3\n");
        let (out, err) = session(&mut RandomEngine::new(), input.as_bytes());
        assert_eq!(out, "c3\n");
        assert!(err.contains("move 2 of 'moves' is illegal"), "{err}");
    }

    #[test]
    fn a_legal_list_that_disagrees_with_the_rules_is_reported_and_obeyed() {
        // After e5 the rules allow the eight free cells of the centre board; the
        // referee lists one of them and one square the rules forbid.
        let input = format!("{NEWGAME_O}\ngo time 20 last e5 moves e5 legal a1,d4\n");
        for _ in 0..10 {
            let (out, err) = session(&mut RandomEngine::new(), input.as_bytes());
            assert!(out == "d4\n" || out == "a1\n", "{out}");
            assert!(err.contains("disagrees"), "{err}");
        }
    }

    /// An engine that always answers a1, legal or not.
    #[derive(Debug)]
    struct Stubborn;

    impl Engine for Stubborn {
        fn name(&self) -> String {
            "stubborn".into()
        }
        fn new_game(&mut self, _setup: &GameSetup) {}
        fn choose(&mut self, _pos: &Position, _history: &[Square], _budget: Budget) -> Choice {
            Choice::plain("a1".parse().unwrap())
        }
    }

    #[test]
    fn an_engine_answer_outside_legal_is_replaced() {
        let input = format!("{NEWGAME_O}\n{}\n", go_line("e5", 20));
        let (out, err) = session(&mut Stubborn, input.as_bytes());
        let sq: Square = out.trim().parse().unwrap();
        assert!(legal_after("e5").contains(sq));
        assert!(err.contains("chose a1, which is not in 'legal'"), "{err}");
    }

    #[test]
    fn info_lines_come_before_the_move() {
        let mut engine = crate::negamax::NegamaxEngine::new(crate::negamax::Level::Medium);
        let input = format!("{NEWGAME_O}\n{}\n", go_line("e5", 50));
        let (out, _) = session(&mut engine, input.as_bytes());
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{out}");
        assert!(lines[0].starts_with("info depth "), "{out}");
        let sq: Square = lines[1].parse().unwrap();
        assert!(legal_after("e5").contains(sq));
    }

    /// A writer whose reader has gone away.
    struct Closed;

    impl Write for Closed {
        fn write(&mut self, _buf: &[u8]) -> io::Result<usize> {
            Err(io::Error::new(ErrorKind::BrokenPipe, "closed"))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_closed_output_ends_the_session_with_an_error() {
        let mut engine = RandomEngine::new();
        let identity = Identity::reference(&engine);
        let result = serve(&mut engine, &identity, &b"uttt 1\n"[..], Closed, io::sink());
        assert_eq!(result.unwrap_err().kind(), ErrorKind::BrokenPipe);
    }

    #[test]
    fn think_time_keeps_a_margin_but_never_more_than_half() {
        assert_eq!(
            think_time(Duration::from_millis(100)),
            Duration::from_millis(95)
        );
        assert_eq!(
            think_time(Duration::from_millis(1)),
            Duration::from_micros(500)
        );
        assert_eq!(think_time(Duration::ZERO), Duration::ZERO);
    }
}
