//! The conformance checker for bot authors: a scripted sequence against one bot —
//! handshake, games as X and as O, a free move after being sent to a closed board,
//! several games in one process, a short deadline, a position with one legal move,
//! the end-of-game message, quit — each step a PASS or a FAIL with the exact line
//! the bot sent and what was expected, in plain words, the board where it went
//! wrong and the tail of the bot's stderr. It prints each step as it ends only
//! when asked to (`arena check BOT`); `arena check --config` keeps them for its
//! table and feedback files.
//!
//! The checker plays the opponent itself (seeded random legal moves), so the steps
//! are the same on every run. It plays the rules the bot believes: standard for
//! our protocol and Riddles.io's, most-boards for CodinGame's. A bot that is told
//! only the last move (CodinGame's) cannot be started from a set position, so the
//! steps that need one are skipped, saying why. The games the bot lost by its own
//! fault can be kept ([`super::record`]) for `arena replay` and `arena repro`.

use std::time::Duration;

use rand::{Rng as _, SeedableRng as _, rngs::StdRng};
use referee::bot::{BotSession, Reply};
use referee::dialect::Dialect;
use referee::game::{GameRecord, GameSpec, LocalPlayer, LocalSeat, Termination, play_game};
use uttt::notation::parse_move_list;
use uttt::protocol::{GameOver, Go, Info, NewGame};
use uttt::rules::{ByMark, Mark, Rules, Square};

use super::record::FailedGames;
use super::words::{board_lines, explain, explain_illegal};
use crate::millis::{MarginMs, MoveMs};
use crate::tournament::bot_spec::BotSpec;
use crate::tournament::local_engine::LocalEngine;
use crate::tournament::settings::input::{Given, Source, TimeInput};
use crate::tournament::settings::time::time_control;

/// One step's verdict (what it found, or what went wrong).
pub type Step = Result<String, String>;

/// How one step of a check went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// It passed: what the bot did.
    Pass(String),
    /// It failed: what the bot did wrong, in words for its author.
    Fail(String),
    /// It was not run, and why (the bot could not be started; the arena
    /// had stopped it after an earlier failure).
    NotRun(String),
    /// It does not apply to this bot, and why (a step its protocol cannot
    /// take): neither passed nor failed, and not counted.
    Skipped(String),
}

impl Outcome {
    /// Whether the step failed.
    pub fn failed(&self) -> bool {
        matches!(self, Outcome::Fail(_))
    }

    /// Whether the step was run.
    pub fn ran(&self) -> bool {
        matches!(self, Outcome::Pass(_) | Outcome::Fail(_))
    }

    /// Whether the step leaves the bot's check passing (passed, or does not apply).
    pub fn ok(&self) -> bool {
        matches!(self, Outcome::Pass(_) | Outcome::Skipped(_))
    }
}

impl From<Step> for Outcome {
    fn from(step: Step) -> Outcome {
        match step {
            Ok(what) => Outcome::Pass(what),
            Err(why) => Outcome::Fail(why),
        }
    }
}

/// "8 of 8 steps passed" when every step ran, else "1 of 8 steps run, 0
/// passed": a check stopped early never reads as a short, complete one.
pub fn tally(steps: &[StepRecord]) -> String {
    let skipped = steps
        .iter()
        .filter(|s| matches!(s.outcome, Outcome::Skipped(_)))
        .count();
    let total = steps.len() - skipped;
    let ran = steps.iter().filter(|s| s.outcome.ran()).count();
    let passed = steps
        .iter()
        .filter(|s| matches!(s.outcome, Outcome::Pass(_)))
        .count();
    let skipped = if skipped > 0 {
        format!(" ({skipped} skipped)")
    } else {
        String::new()
    };
    if ran == total {
        format!("{passed} of {total} steps passed{skipped}")
    } else {
        format!("{ran} of {total} steps run, {passed} passed{skipped}")
    }
}

/// The clock of a check and the seed of the checker's own moves.
#[derive(Clone, Copy, Debug)]
pub struct CheckOptions {
    /// Time per move in the normal steps.
    pub move_time: MoveMs,
    /// Time for the first move of each game (a fresh process may be starting);
    /// `None`: the time module's rule (the larger of `move_time` and 1000 ms).
    pub first_move_time: Option<MoveMs>,
    /// Forgiven overrun.
    pub margin: MarginMs,
    /// Time to start and answer the handshake.
    pub handshake: Duration,
    /// Seed of the checker's (opponent) moves.
    pub seed: u64,
}

/// The checker: a bot command, how it is started, and the clock.
#[derive(Debug)]
pub struct Checker {
    pub name: String,
    pub command: referee::bot::BotCommand,
    /// An engine of `arena bot`, not a program of its own.
    pub builtin: bool,
    pub dialect: Dialect,
    /// The rules the bot believes, which the check plays.
    pub rules: Rules,
    pub move_time: MoveMs,
    pub first_move_time: Option<MoveMs>,
    pub margin: MarginMs,
    pub handshake: Duration,
    pub rng: StdRng,
    pub session: Option<BotSession>,
    /// Games played so far, for their ids.
    pub games: u32,
    /// Print each step as it ends (one bot checked), or only keep it (a class).
    pub live: bool,
    /// The position where the last failed game went wrong, drawn.
    pub fault_board: Option<Vec<String>>,
    /// The request the bot was answering when the last failed game went
    /// wrong.
    pub fault_request: Option<String>,
    /// What the bot wrote to stderr before it failed to start, line by line.
    pub start_stderr: Vec<String>,
    /// Where the games the bot lost by its own fault are kept, if anywhere.
    pub failed_games: Option<FailedGames>,
}

/// One step of a check as its bot's author reads it.
#[derive(Debug)]
pub struct StepRecord {
    /// What the step expects of the bot ("expects 'ready' after 'uttt 1'").
    pub name: String,
    /// What the bot did, what it did wrong, or why the step was not run.
    pub outcome: Outcome,
    /// The board where it went wrong (a failed game).
    pub board: Option<Vec<String>>,
    /// The request the bot was answering when it went wrong.
    pub request: Option<String>,
    /// The last lines of the bot's stderr (a failed step), as it wrote them.
    pub stderr: Vec<String>,
}

/// The checker's opponent: seeded random legal moves, resigning once the bot has
/// made the moves a step needs, so a step is as short as its purpose.
#[derive(Debug)]
struct ScriptedOpponent {
    engine: LocalEngine,
    /// The bot's mark.
    bot: Mark,
    /// Plies of the opening (nobody's moves).
    opening: usize,
    /// The bot moves after which the opponent resigns.
    bot_moves: usize,
}

impl LocalPlayer for ScriptedOpponent {
    fn new_game(&mut self, game: &NewGame) {
        self.engine.new_game(game);
    }

    fn choose(&mut self, go: &Go) -> (Reply, Option<Info>) {
        let bot_moves = (self.opening..go.moves.len())
            .filter(|&ply| Mark::ALL[ply % 2] == self.bot)
            .count();
        if bot_moves >= self.bot_moves {
            return (Reply::Resign, None);
        }
        self.engine.choose(go)
    }

    fn game_over(&mut self, over: &GameOver) {
        self.engine.game_over(over);
    }
}

/// What a game of the check says about the bot playing `mark`.
fn verdict(game: &GameRecord, mark: Mark, opening: usize) -> Result<String, String> {
    match &game.termination {
        Termination::Fault { by, fault } if *by == mark => return Err(explain(fault)),
        Termination::IllegalMove { by, error } if *by == mark => {
            return Err(explain_illegal(&game.position, error.square));
        }
        Termination::Resign { by } if *by == mark => {
            return Err(
                "your bot resigned (legal in a tournament, but this check needs a move)".into(),
            );
        }
        Termination::Fault { fault, .. } => {
            return Err(format!("the check's own player failed: {}", explain(fault)));
        }
        _ => {}
    }
    let played = game.moves[opening.min(game.moves.len())..]
        .iter()
        .filter(|m| m.mark == mark)
        .count();
    Ok(format!(
        "{played} legal move{} as {mark}",
        if played == 1 { "" } else { "s" }
    ))
}

impl Checker {
    /// A running session (started afresh when there is none).
    async fn session(&mut self) -> Result<&mut BotSession, String> {
        if self.session.is_none() {
            let started =
                BotSession::start_keeping_stderr(&self.command, self.dialect, self.handshake).await;
            let session = match started {
                Ok(session) => session,
                // Its stderr goes with the step as lines; the words say what
                // happened without quoting it.
                Err(failed) if !failed.stderr.trim().is_empty() => {
                    self.start_stderr = failed.stderr.lines().map(str::to_string).collect();
                    return Err(format!("the handshake failed: {}", failed.what));
                }
                Err(failed) => return Err(explain(&failed.fault)),
            };
            self.session = Some(session);
        }
        self.session
            .as_mut()
            .ok_or_else(|| "the bot is not running".to_string())
    }

    /// Plays one game from `opening` with the bot as `mark` through the referee's
    /// game loop, the checker's seeded random opponent resigning once the bot has
    /// made `bot_moves` moves (or playing on to the end). Returns a description of
    /// what was played, or what the bot did wrong in words for its author.
    async fn game(
        &mut self,
        mark: Mark,
        opening: &[Square],
        bot_moves: usize,
        time: Option<MoveMs>,
    ) -> Result<String, String> {
        self.games += 1;
        let seed = self.rng.random::<u64>();
        // The quick-reply limit applies after the first move, which may include a
        // fresh process starting up (CodinGame's first turn is long for that reason).
        let mut bot_time = self.time_control()?;
        if let Some(quick) = time {
            bot_time.move_time = Some(quick.duration());
        }
        let names = ByMark::new_with(|m| {
            if m == mark {
                self.name.clone()
            } else {
                "arena-check".to_string()
            }
        });
        let spec = GameSpec {
            id: format!("check-{}", self.games),
            rules: self.rules,
            opening: opening.to_vec(),
            time: ByMark::new_with(|_| bot_time),
            seeds: ByMark::new_with(|m| if m == mark { seed } else { !seed }),
            names,
        };
        let mut opponent = LocalSeat(ScriptedOpponent {
            engine: LocalEngine::from_spec("random")?,
            bot: mark,
            opening: opening.len(),
            bot_moves,
        });
        let session = self.session().await?;
        let played = match mark {
            Mark::X => play_game(&spec, session, &mut opponent).await,
            Mark::O => play_game(&spec, &mut opponent, session).await,
        }
        .map_err(|e| format!("the check's own opening is wrong: {e}"))?;
        // The last request before the game's end was announced: what the
        // bot was answering when it went wrong.
        let request = session
            .transcript()
            .iter()
            .rev()
            .filter_map(|line| line.strip_prefix("> "))
            .find(|line| !line.starts_with("gameover"))
            .map(str::to_string);
        if !self.dialect.reuses_process()
            && let Some(session) = self.session.take()
        {
            session.kill().await;
        }
        let verdict = verdict(&played, mark, opening.len());
        if verdict.is_err() {
            self.fault_board = Some(fault_board(&played));
            self.fault_request = request;
        }
        match (verdict, &self.failed_games) {
            (Err(why), Some(kept)) if played.termination.culprit() == Some(mark) => {
                Err(match kept.keep(&played, seed) {
                    Ok(id) => {
                        let dir = kept.dir().display();
                        format!(
                            "{why}\n      the game is kept: arena replay {dir} --game {id} \
                             (arena repro {dir} --game {id} asks your bot again)"
                        )
                    }
                    Err(e) => format!("{why}\n      (the game could not be kept: {e:#})"),
                })
            }
            (verdict, _) => verdict,
        }
    }

    /// The time control of the normal steps, by the one rule of
    /// [`time_control`]: `--time` per move, `--first-time` for the first move
    /// (else the larger of `--time` and 1000 ms: a fresh process, and
    /// CodinGame's own first turn is 1000 ms), `--margin`.
    pub fn time_control(&self) -> Result<referee::game::TimeControl, String> {
        let given = |ms| Some(Given::new(ms, Source::Command));
        time_control(&TimeInput {
            move_ms: given(self.move_time),
            first_move_ms: self.first_move_time.and_then(given),
            margin_ms: Some(Given::new(self.margin, Source::Command)),
            ..TimeInput::default()
        })
        .map_err(|e| format!("the check's own clock is wrong: {}", e.message))
    }

    /// Keeps the games the bot loses by its own fault in `dir` (made at the
    /// first), for `arena replay` and `arena repro`.
    ///
    /// # Errors
    /// The check's time control cannot be made.
    pub fn keep_failed_games(&mut self, dir: std::path::PathBuf, seed: u64) -> Result<(), String> {
        let time = self.time_control()?;
        self.failed_games = Some(FailedGames::new(
            dir,
            (&self.name, &self.command, self.dialect),
            self.builtin,
            &time,
            seed,
            self.rules,
        ));
        Ok(())
    }

    async fn stderr_tail(&mut self) -> String {
        match self.session.take() {
            Some(session) => session.close(false).await.stderr_tail,
            None => String::new(),
        }
    }
}

/// The position where `game` ended, drawn as text, with the moves that led
/// there and the move that broke the rules (if one did).
fn fault_board(game: &GameRecord) -> Vec<String> {
    let illegal = match &game.termination {
        Termination::IllegalMove { by, error } => Some((*by, error.square)),
        _ => None,
    };
    let moves: Vec<Square> = game.moves.iter().map(|m| m.square).collect();
    board_lines(&game.position, &moves, illegal)
}

/// Openings for the scripted situations, as move lists (checked by a unit test).
/// After this one X (to move) is sent to a board O has just won: a free move with a
/// closed target board.
const CLOSED_TARGET: &str = "c3 h9 f9 g9 c9 i9";
/// After this one, X (to move) has exactly one legal square.
const ONE_LEGAL: &str = "i5 i6 g7 c1 h1 f1 i2 h5 f5 g6 c8 g5 c6 i8 i4 i1 g2 c5 h6 f8 g4 c2";

impl Checker {
    /// A checker of `spec` with the times and seed of `options`; `live`: print
    /// each step as it ends.
    pub fn new(spec: &BotSpec, options: &CheckOptions, live: bool) -> Checker {
        Checker {
            name: spec.name.clone(),
            command: spec.command.clone(),
            builtin: spec.builtin,
            dialect: spec.dialect,
            rules: spec.dialect.own_rules().unwrap_or(Rules::STANDARD),
            move_time: options.move_time,
            first_move_time: options.first_move_time,
            margin: options.margin,
            handshake: options.handshake,
            rng: StdRng::seed_from_u64(options.seed),
            session: None,
            games: 0,
            live,
            fault_board: None,
            fault_request: None,
            start_stderr: Vec::new(),
            failed_games: None,
        }
    }
}

/// Every step of the check, in order.
pub async fn run_steps(c: &mut Checker) -> Vec<StepRecord> {
    let mut steps = Vec::new();
    let closed_target = parse_move_list(CLOSED_TARGET).unwrap_or_default();
    let one_legal = parse_move_list(ONE_LEGAL).unwrap_or_default();
    let quick = MoveMs::constant(100);

    if c.dialect.has_handshake() {
        let result = match c.session().await {
            Ok(s) => Ok(match &s.identity().name {
                Some(name) => format!(
                    "said 'ready' (name: {})",
                    uttt::protocol::escape_bytes(name.as_bytes())
                ),
                None => "said 'ready' (tip: send 'id name <your bot>' before it)".into(),
            }),
            Err(e) => Err(e),
        };
        report(c, &mut steps, HANDSHAKE_STEP, result).await;
        if steps.iter().any(|s: &StepRecord| s.outcome.failed()) {
            // Nothing else can be checked of a bot that does not start.
            let why = "not run: your bot could not be started (see the first step)";
            for name in script_names().into_iter().chain([QUIT_STEP]) {
                keep(c, &mut steps, not_run(name, why));
            }
            return steps;
        }
    }
    /// A scripted game: the bot's mark, opening, bot moves to play, time limit.
    type Scripted = (Mark, Vec<Square>, usize, Option<MoveMs>);
    let script: [Scripted; 6] = [
        (Mark::X, Vec::new(), 81, None),
        (Mark::O, Vec::new(), 81, None),
        (Mark::X, closed_target, 1, None),
        (Mark::X, Vec::new(), 5, None),
        (Mark::O, Vec::new(), 4, Some(quick)),
        (Mark::X, one_legal, 1, None),
    ];
    for (name, (mark, opening, bot_moves, time)) in script_names().into_iter().zip(script) {
        if !opening.is_empty() && !c.dialect.can_start_from_opening() {
            let why = format!(
                "{} tells a bot only its opponent's last move, so a game cannot start from \
                 a set position (tournaments refuse openings for such bots too)",
                c.dialect.name()
            );
            keep(
                c,
                &mut steps,
                StepRecord {
                    name: name.to_string(),
                    outcome: Outcome::Skipped(why),
                    board: None,
                    request: None,
                    stderr: Vec::new(),
                },
            );
            continue;
        }
        let result = c.game(mark, &opening, bot_moves, time).await;
        let failed = result.is_err();
        report(c, &mut steps, name, result).await;
        if failed {
            // A bot in an unknown state (it may still answer the failed request):
            // start it afresh for the next step.
            let _ = c.stderr_tail().await;
        }
    }
    if c.dialect.has_handshake() {
        match c.session.take() {
            Some(session) => {
                let result = match session.quit().await {
                    Some(_) => Ok("exited after 'quit'".into()),
                    None => Err("your bot did not exit within 1000 ms after 'quit' (exit when you read 'quit' or end of input)".into()),
                };
                report(c, &mut steps, QUIT_STEP, result).await;
            }
            None => keep(
                c,
                &mut steps,
                not_run(
                    QUIT_STEP,
                    "not run: the arena had stopped your bot after the step above failed",
                ),
            ),
        }
    }
    steps
}

/// The first step of a bot that speaks the uttt protocol.
pub const HANDSHAKE_STEP: &str = "expects 'ready' after 'uttt 1' (the handshake)";
/// The last.
const QUIT_STEP: &str = "expects your bot to exit after 'quit'";

/// The scripted games' steps, each an expectation, in order.
fn script_names() -> [&'static str; 6] {
    [
        "expects a legal move every turn of a whole game as X, moving first",
        "expects a legal move every turn of a whole game as O",
        "expects a free move in any open board when sent to a closed board",
        "expects a second game in the same process",
        "expects replies within 100 ms a move after the first",
        "expects the one legal move when only one is left",
    ]
}

/// A step that was not run, and why.
fn not_run(name: &str, why: &str) -> StepRecord {
    StepRecord {
        name: name.to_string(),
        outcome: Outcome::NotRun(why.to_string()),
        board: None,
        request: None,
        stderr: Vec::new(),
    }
}

async fn report(
    c: &mut Checker,
    steps: &mut Vec<StepRecord>,
    name: &str,
    result: Result<String, String>,
) {
    let mut record = StepRecord {
        name: name.to_string(),
        board: None,
        request: None,
        stderr: Vec::new(),
        outcome: result.into(),
    };
    if record.outcome.failed() {
        record.board = c.fault_board.take();
        record.request = c.fault_request.take();
        let tail = match c.session.as_ref() {
            Some(s) => s.stderr_log().0,
            None => std::mem::take(&mut c.start_stderr).join("\n"),
        };
        let lines: Vec<&str> = tail.lines().collect();
        record.stderr = lines[lines.len().saturating_sub(STDERR_LINES)..]
            .iter()
            .map(|l| (*l).to_string())
            .collect();
    }
    c.fault_board = None;
    c.fault_request = None;
    c.start_stderr.clear();
    keep(c, steps, record);
}

/// Keeps `record`, printing it as it ends when the check is live.
fn keep(c: &Checker, steps: &mut Vec<StepRecord>, record: StepRecord) {
    let name = &record.name;
    if c.live {
        match &record.outcome {
            Outcome::Pass(what) => crate::say!("PASS  {name}: {what}"),
            Outcome::NotRun(why) => crate::say!("----  {name}: {why}"),
            Outcome::Skipped(why) => crate::say!("SKIP  {name}: {why}"),
            Outcome::Fail(why) => {
                crate::say!("FAIL  {name}: {why}");
                if !record.stderr.is_empty() {
                    crate::say!("      your bot's stderr ends with:");
                    for line in &record.stderr {
                        crate::say!("      | {line}");
                    }
                }
            }
        }
    }
    steps.push(record);
}

/// The lines of a bot's stderr shown with a failed step (a Python traceback
/// of a syntax error is about five).
const STDERR_LINES: usize = 12;

#[cfg(test)]
mod tests {
    use super::*;
    use uttt::rules::{BoardIndex, BoardState, Position};

    fn moves_last(list: &str) -> Square {
        *parse_move_list(list).unwrap().last().unwrap()
    }

    #[test]
    fn the_closed_target_opening_sends_x_to_a_won_board() {
        let moves = parse_move_list(CLOSED_TARGET).unwrap();
        let pos = Position::from_moves(Rules::STANDARD, moves).unwrap();
        assert_eq!(pos.side_to_move(), Mark::X);
        let last = moves_last(CLOSED_TARGET);
        let target = BoardIndex::ALL[last.cell().index()];
        assert_eq!(pos.board_state(target), BoardState::Won(Mark::O));
        assert_eq!(pos.required_board(), None);
        assert!(pos.legal_moves().len() > 9);
    }

    #[test]
    fn the_one_legal_opening_leaves_one_move() {
        let moves = parse_move_list(ONE_LEGAL).unwrap();
        let pos = Position::from_moves(Rules::STANDARD, moves).unwrap();
        assert!(!pos.is_over());
        assert_eq!(pos.side_to_move(), Mark::X);
        assert_eq!(pos.legal_moves().len(), 1);
    }

    #[test]
    fn illegal_moves_are_explained_to_the_author_as_before() {
        let pos = Position::new(Rules::STANDARD)
            .play("a1".parse().unwrap())
            .unwrap();
        assert_eq!(
            explain_illegal(&pos, "e5".parse().unwrap()),
            "your bot played e5 but the board it had to play in is the top-left board (the `legal` list says which squares are allowed)"
        );
    }
}
