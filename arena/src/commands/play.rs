//! `arena play BOT`: a person plays a bot (or, with `--two-players`, another
//! person) at this terminal, and the game is recorded like any other.
//!
//! The game runs through the referee's own loop ([`play_game`]): the person is a
//! [`HumanSeat`], the bot a [`BotSession`], and the referee validates every move
//! and decides the result.
//!
//! Undo and the record: taking moves back abandons the running game and starts
//! it again from the shorter line (the bot hears a fresh `newgame`, and its first
//! request lists the moves so far). The game written to `games.csv`/`moves.csv` is
//! the line as finally played: moves taken back leave no trace, the `--from` moves
//! are its opening, and every later move keeps the think time measured when it was
//! played. A game left unfinished (`q`, Ctrl-C) is not written; the command prints
//! the line so it can be resumed with `--from`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context as _;
use referee::bot::{BotSession, Fault};
use referee::game::{GameRecord, GameSpec, TimeControl, play_game};
use tokio::sync::mpsc;
use uttt::notation::{format_move_list, parse_move_list, parse_position, position_from_move_list};
use uttt::rules::{ByMark, Mark, Position, Rules, Square};

use crate::cli::PlayArgs;
use crate::defaults;
use crate::exit_codes::{self, Code, UsageError};
use crate::results::store::{GameMeta, GameRow, ResultStore, move_rows};
use crate::terminal::board::{self, BoardView, Theme};
use crate::terminal::human_seat::{
    Console, ConsoleSetup, Control, HumanSeat, TerminalGuard, spawn_input_thread,
};
use crate::terminal::ledger::{Ledger, Logged, Sitter};
use crate::terminal::move_order::{DEFAULT_BUDGET, moves_reaching};
use crate::tournament::bot_spec::{BotSpec, Resolver, dedupe_names, sanitize_name};
use crate::tournament::settings::Given;
use crate::tournament::settings::input::TimeInput;
use crate::tournament::settings::time::time_control;

/// A game with a person at this terminal: `arena play` after its arguments were
/// checked.
#[derive(Debug)]
struct HumanGame {
    /// The opponent, or `None` with two players.
    bot: Option<BotSpec>,
    /// Which marks people play.
    humans: ByMark<bool>,
    names: ByMark<String>,
    rules: Rules,
    /// The moves `--from` starts after.
    opening: Vec<Square>,
    time: TimeControl,
    out: PathBuf,
    /// `arena play` with the arguments that pick the same game, for resuming.
    command: String,
}

fn validate(args: &PlayArgs) -> Result<HumanGame, String> {
    let (rules, side) = (args.rules, args.side);
    if args.name.len() > 2 || (args.name.len() == 2 && !args.two_players) {
        return Err("--name: give one name, or two (X's, then O's) with --two-players".into());
    }
    for name in &args.name {
        if sanitize_name(name) != *name {
            return Err(format!(
                "--name '{name}': use letters, digits, '_', '.' and '-' only"
            ));
        }
    }
    let (bot, humans) = match (&args.bot, args.two_players) {
        (_, true) => (None, ByMark { x: true, o: true }),
        (Some(raw), false) => {
            let resolver = Resolver::from_env()
                .map_err(|e| format!("cannot find the arena executable: {e}"))?
                .with_memory_mb(args.memory_mb);
            // A person is not rushed; the bot's first move gets the floor.
            let spec = resolver.resolve(raw).map_err(|e| e.to_string())?;
            if !spec.dialect.can_express(rules) {
                return Err(format!(
                    "bot '{}' speaks {}, which cannot be told the rules '{rules}': play it \
                     with --rules standard",
                    spec.name,
                    spec.dialect.name()
                ));
            }
            (Some(spec), ByMark::new_with(|m| m == side))
        }
        (None, false) => return Err("give a bot to play, or --two-players".into()),
    };
    let first = args.name.first().cloned().unwrap_or_else(|| "human".into());
    let mut names: Vec<String> = match &bot {
        None => vec![
            first,
            args.name.get(1).cloned().unwrap_or_else(|| "human".into()),
        ],
        Some(spec) if side == Mark::X => vec![first, spec.name.clone()],
        Some(spec) => vec![spec.name.clone(), first],
    };
    dedupe_names(&mut names);
    let names = ByMark {
        x: names[0].clone(),
        o: names[1].clone(),
    };
    let opening = match args.from.as_deref().map(str::trim) {
        None | Some("") => Vec::new(),
        Some(text) => starting_line(text, rules)?,
    };
    let time = time_control(&TimeInput {
        move_ms: Some(Given::flag(args.time, "--time")),
        ..TimeInput::default()
    })
    .map_err(|e| e.message)?;
    let mut command = String::from("arena play");
    let mut arg = |a: &str| {
        command.push(' ');
        command.push_str(&shlex::try_quote(a).map_or_else(|_| a.to_string(), |q| q.into_owned()));
    };
    match &args.bot {
        Some(raw) => {
            arg(raw);
            arg("--as");
            arg(&side.to_string());
        }
        None => arg("--two-players"),
    }
    if !rules.is_standard() {
        arg("--rules");
        arg(&rules.to_string());
    }
    Ok(HumanGame {
        command,
        bot,
        humans,
        names,
        rules,
        opening,
        time,
        out: args
            .out
            .clone()
            .unwrap_or_else(|| crate::results::atomic::stamped_dir("play")),
    })
}

/// The moves `--from` names: a move list, or any move order reaching a position
/// text (bots and the CSV files know a game only as moves from the empty board).
fn starting_line(text: &str, rules: Rules) -> Result<Vec<Square>, String> {
    if text.contains('/') {
        let target = parse_position(text, rules).map_err(|e| format!("--from: {e}"))?;
        return moves_reaching(&target, DEFAULT_BUDGET).map_err(|e| format!("--from: {e}"));
    }
    let position = position_from_move_list(rules, text).map_err(|e| format!("--from: {e}"))?;
    if position.is_over() {
        return Err("--from: the game is already over after these moves".into());
    }
    parse_move_list(text).map_err(|e| format!("--from: {e}"))
}

/// Runs `arena play`.
///
/// # Errors
/// The terminal cannot be used, the async runtime cannot start, or the result
/// cannot be written.
pub fn run(args: &PlayArgs) -> anyhow::Result<Code> {
    let setup = match validate(args) {
        Ok(setup) => setup,
        Err(message) => {
            return Err(UsageError::of(message));
        }
    };
    use std::io::IsTerminal as _;
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        eprintln!(
            "error: arena play needs a terminal to draw the board and read keys \
             (standard input and output are not both a terminal); \
             to play bots against each other use `arena match`"
        );
        return Ok(exit_codes::USAGE);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(session(setup))
}

/// What ended one run of the game loop.
#[derive(Debug)]
enum Ending {
    Finished(Box<GameRecord>),
    Undo(Vec<Square>),
    Quit,
}

async fn session(setup: HumanGame) -> anyhow::Result<Code> {
    // The bot starts before the screen is taken over, so a bot that will not
    // start is reported plainly and nothing is recorded.
    let mut bot = match &setup.bot {
        Some(spec) => match start_bot(spec).await {
            Ok(session) => Some(session),
            Err(fault) => {
                eprintln!("error: bot '{}' could not be started: {fault}", spec.name);
                return Ok(exit_codes::INFRASTRUCTURE);
            }
        },
        None => None,
    };
    let (keys_tx, keys) = mpsc::unbounded_channel();
    let (control_tx, mut control) = mpsc::unbounded_channel();
    let guard = TerminalGuard::enter().context("taking over the terminal")?;
    spawn_input_thread(keys_tx, control_tx.clone()).context("starting the key reader")?;
    let console = Arc::new(tokio::sync::Mutex::new(Console::new(ConsoleSetup {
        theme: Theme::for_stdout(),
        keys,
        control: control_tx,
        names: setup.names.clone(),
        humans: setup.humans,
        start_plies: setup.opening.len(),
        rules: setup.rules,
    })));
    let ledger = Ledger::default();
    let started = Instant::now();
    let mut spec = GameSpec {
        id: String::new(),
        rules: setup.rules,
        opening: setup.opening.clone(),
        time: ByMark::new_with(|_| setup.time),
        seeds: ByMark::new_with(|_| rand::random()),
        names: setup.names.clone(),
    };
    let mut stop = Signals::new()?;
    let ending = loop {
        let position = Position::from_moves(setup.rules, spec.opening.iter().copied())
            .map_err(|(i, _)| anyhow::anyhow!("move {} of the line is illegal", i + 1))?;
        console
            .lock()
            .await
            .show_waiting(&position, spec.opening.last().copied())?;
        let ending = {
            let (x, o) = seats(&setup, &console, bot.as_mut());
            let mut x = Logged::new(x, &ledger);
            let mut o = Logged::new(o, &ledger);
            tokio::select! {
                record = play_game(&spec, &mut x, &mut o) => {
                    Ending::Finished(Box::new(record.context("starting the game")?))
                }
                wish = control.recv() => match wish {
                    Some(Control::Undo(line)) => Ending::Undo(line),
                    Some(Control::Quit) | None => Ending::Quit,
                },
                () = stop.any() => Ending::Quit,
            }
        };
        match ending {
            Ending::Undo(line) => {
                ledger.forget_after(line.len());
                spec.opening = line;
                if let Some(session) = bot.take() {
                    bot = Some(fresh_if_needed(session, setup.bot.as_ref()).await?);
                }
            }
            other => break other,
        }
    };
    drop(guard);
    match ending {
        Ending::Finished(record) => {
            let record = ledger.complete(*record, setup.opening.len(), started.elapsed());
            if let Some(session) = bot {
                let bot_mark = if setup.humans.x { Mark::O } else { Mark::X };
                if record.termination.culprit() == Some(bot_mark) {
                    session.kill().await;
                } else {
                    session.quit().await;
                }
            }
            finish(&setup, &record)
        }
        Ending::Undo(_) | Ending::Quit => {
            if let Some(session) = bot {
                session.kill().await;
            }
            let line = spec.opening;
            crate::say!(
                "You left the game after {} move{}; it was not recorded.",
                line.len(),
                if line.len() == 1 { "" } else { "s" }
            );
            if !line.is_empty() {
                crate::say!(
                    "To play on from there: {} --from \"{}\"",
                    setup.command,
                    format_move_list(&line)
                );
            }
            Ok(exit_codes::INTERRUPTED)
        }
    }
}

async fn start_bot(spec: &BotSpec) -> Result<BotSession, Fault> {
    BotSession::start_dialect(&spec.command, spec.dialect, defaults::HANDSHAKE.duration()).await
}

/// After an undo, a bot whose protocol cannot start a second game in the same
/// process (foreign dialects) is started afresh.
async fn fresh_if_needed(
    session: BotSession,
    spec: Option<&BotSpec>,
) -> anyhow::Result<BotSession> {
    match spec {
        Some(spec) if !session.dialect().reuses_process() => {
            session.quit().await;
            start_bot(spec)
                .await
                .map_err(|fault| anyhow::anyhow!("restarting bot '{}': {fault}", spec.name))
        }
        _ => Ok(session),
    }
}

/// Writes the finished game and shows how it ended.
fn finish(setup: &HumanGame, record: &GameRecord) -> anyhow::Result<Code> {
    let theme = Theme::for_stdout();
    let last = record.moves.last().map(|m| m.square);
    for line in board::render(
        &BoardView {
            position: &record.position,
            last,
            cursor: None,
        },
        theme,
    ) {
        crate::say!("{line}");
    }
    crate::say!("{}", record.result_line());
    let saved = save(setup, record);
    match saved {
        Ok(id) => {
            crate::say!(
                "Saved as game {id} in {}; to read it again: arena replay {} --game {id}",
                setup.out.display(),
                setup.out.display()
            );
            Ok(exit_codes::OK)
        }
        Err(e) => {
            let moves: Vec<Square> = record.moves.iter().map(|m| m.square).collect();
            eprintln!("The moves were: {}", format_move_list(&moves));
            Err(e)
        }
    }
}

/// Appends the game to the results directory under the next free id.
fn save(setup: &HumanGame, record: &GameRecord) -> anyhow::Result<String> {
    let mut store = ResultStore::open(&setup.out)?;
    let taken: Vec<String> = store.games()?.into_iter().map(|g| g.id).collect();
    let number = (1..)
        .find(|n| !taken.contains(&format!("G{n:04}")))
        .unwrap_or(1);
    let id = format!("G{number:04}");
    let mut record = record.clone();
    record.id.clone_from(&id);
    let meta = GameMeta {
        id: id.clone(),
        round: 1,
        pair: number,
        seed: rand::random(),
    };
    store.append(&GameRow::new(&meta, &record), &move_rows(&meta, &record))?;
    store.save_transcripts(&meta, &record)?;
    Ok(id)
}

/// Both seats: the bot (if any) where no person sits, people elsewhere.
fn seats<'a>(
    setup: &HumanGame,
    console: &Arc<tokio::sync::Mutex<Console>>,
    bot: Option<&'a mut BotSession>,
) -> (Sitter<'a>, Sitter<'a>) {
    let human = || {
        Sitter::Human(HumanSeat {
            console: Arc::clone(console),
        })
    };
    match bot {
        Some(bot) if !setup.humans.x => (Sitter::Bot(bot), human()),
        Some(bot) if !setup.humans.o => (human(), Sitter::Bot(bot)),
        _ => (human(), human()),
    }
}

/// Ctrl-C from outside (raw mode turns the key into a key press), termination
/// and hang-up: each ends the game unrecorded, with the terminal restored.
#[derive(Debug)]
struct Signals {
    terminate: tokio::signal::unix::Signal,
    hangup: tokio::signal::unix::Signal,
}

impl Signals {
    fn new() -> anyhow::Result<Signals> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Signals {
            terminate: signal(SignalKind::terminate()).context("listening for SIGTERM")?,
            hangup: signal(SignalKind::hangup()).context("listening for SIGHUP")?,
        })
    }

    async fn any(&mut self) {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = self.terminate.recv() => {}
            _ = self.hangup.recv() => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_accepts_move_lists_and_position_texts() {
        let line = starting_line("e5 d4", Rules::STANDARD).unwrap();
        assert_eq!(format_move_list(&line), "e5 d4");
        let line = starting_line("9/9/9/9/4x4/9/9/9/9 5 o", Rules::STANDARD).unwrap();
        assert_eq!(format_move_list(&line), "e5");
        let err = starting_line("e5 a1", Rules::STANDARD).unwrap_err();
        assert!(err.starts_with("--from: move 2 (a1) is illegal"), "{err}");
        let err = starting_line("9/9/9 5 o", Rules::STANDARD).unwrap_err();
        assert!(err.contains("expected 9 rows"), "{err}");
    }
}
