//! One game between two seats, turn by turn, from a [`GameSpec`] to a
//! [`GameRecord`]. A seat is anything that answers move requests: a bot process
//! ([`BotSession`]), code in this process ([`LocalSeat`]: self-play, the opponent of
//! `arena check`) or, for `arena play`, a person at a terminal.
//!
//! Each turn runs the same checks in the same order (see [`play_game`]); the rules
//! engine alone decides legality and the result.

mod local;
mod record;
mod time;

use std::future::Future;
use std::time::Duration;

pub use local::{LocalPlayer, LocalSeat};
pub use record::{
    GameRecord, MoveRecord, Termination, claim_line, drawn_line, move_line, result_sentence,
};
pub use time::{GameClock, TimeControl, TimeControlError};

use crate::bot::{Answer, BotSession, ClockMode, Fault, GameEvidence, Reply};
use uttt::protocol::{GameOver, Go, NewGame, Timing};
use uttt::rules::{ByMark, Mark, Position, Rules, Square, Status};

/// Everything needed to play one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSpec {
    /// A unique id, used in files and logs.
    pub id: String,
    /// The rules.
    pub rules: Rules,
    /// Moves played before the bots take over (legal under `rules`).
    pub opening: Vec<Square>,
    /// Each side's time control (they differ only with time odds).
    pub time: ByMark<TimeControl>,
    /// The seed sent to each bot in `newgame`.
    pub seeds: ByMark<u64>,
    /// The bots' names.
    pub names: ByMark<String>,
}

/// Anything that can sit at the board: it hears about the game, answers move
/// requests in time, and hears the result.
pub trait Seat {
    /// A game starts.
    fn new_game(&mut self, game: &NewGame) -> impl Future<Output = Result<(), Fault>> + Send;
    /// Choose a move within `allowed` (+ `margin`).
    fn ask(
        &mut self,
        go: &Go,
        allowed: Duration,
        margin: Duration,
    ) -> impl Future<Output = Result<Answer, Fault>> + Send;
    /// The game ended.
    fn game_over(&mut self, over: &GameOver) -> impl Future<Output = ()> + Send;
    /// Charge this seat's moves by `clock` (a seat that is no process times
    /// itself by the wall clock and ignores it). Required, so that a seat that
    /// wraps a bot cannot forget to pass it on.
    fn set_clock(&mut self, clock: ClockMode);
    /// The protocol transcript of this game so far, if the seat keeps one.
    fn transcript(&self) -> Vec<String> {
        Vec::new()
    }
    /// What the seat's process left during this game (stderr, peak memory), if it
    /// is a process.
    fn evidence(&self) -> Option<GameEvidence> {
        None
    }
}

impl Seat for BotSession {
    fn new_game(&mut self, game: &NewGame) -> impl Future<Output = Result<(), Fault>> + Send {
        BotSession::new_game(self, game)
    }
    fn ask(
        &mut self,
        go: &Go,
        allowed: Duration,
        margin: Duration,
    ) -> impl Future<Output = Result<Answer, Fault>> + Send {
        BotSession::ask(self, go, allowed, margin)
    }
    fn game_over(&mut self, over: &GameOver) -> impl Future<Output = ()> + Send {
        BotSession::game_over(self, over)
    }
    fn set_clock(&mut self, clock: ClockMode) {
        BotSession::set_clock(self, clock);
    }
    fn transcript(&self) -> Vec<String> {
        BotSession::transcript(self).to_vec()
    }
    fn evidence(&self) -> Option<GameEvidence> {
        Some(BotSession::evidence(self))
    }
}

/// A seat that could not even be started counts as faulty from the first message:
/// the game is still played (and lost by that seat) so no result goes missing.
#[derive(Debug)]
pub struct FailedSeat(pub Fault);

impl Seat for FailedSeat {
    async fn new_game(&mut self, _: &NewGame) -> Result<(), Fault> {
        Err(self.0.clone())
    }
    async fn ask(&mut self, _: &Go, _: Duration, _: Duration) -> Result<Answer, Fault> {
        Err(self.0.clone())
    }
    async fn game_over(&mut self, _: &GameOver) {}
    fn set_clock(&mut self, _: ClockMode) {}
}

/// Why a game could not be set up: its opening (a configuration error, not a
/// bot's fault).
#[derive(Debug, thiserror::Error)]
pub enum OpeningError {
    /// An opening move is illegal.
    #[error("opening move {number} ({square}) is illegal: {reason}")]
    BadOpening {
        /// 1-based.
        number: usize,
        /// The square.
        square: Square,
        /// Why.
        reason: String,
    },
    /// The opening already ends the game.
    #[error("the opening already ends the game")]
    OpeningEndsGame,
}

/// Checks that the opening can be played and returns the position after it.
///
/// # Errors
/// [`OpeningError`] naming the bad move.
pub fn opening_position(rules: Rules, opening: &[Square]) -> Result<Position, OpeningError> {
    let pos = Position::from_moves(rules, opening.iter().copied()).map_err(|(i, error)| {
        OpeningError::BadOpening {
            number: i + 1,
            square: opening[i],
            reason: uttt::notation::illegal_words(&error),
        }
    })?;
    if pos.is_over() {
        return Err(OpeningError::OpeningEndsGame);
    }
    Ok(pos)
}

/// Hears each mark of a game the moment the rules engine has accepted it, before
/// the next seat is asked: how a running game is shown while it is played (the
/// arena's live files). It is called on the game's own task, between two turns, so
/// it must be quick and must not fail: whatever it does cannot change the game.
pub trait MoveObserver: Send {
    /// `record` was just played (it carries the board it claimed or drew).
    fn marked(&mut self, record: &MoveRecord);
}

/// Hears nothing: [`play_game`] without an observer.
impl MoveObserver for () {
    fn marked(&mut self, _: &MoveRecord) {}
}

/// An optional observer: heard when present (e.g. live files only when there is a
/// results directory).
impl<T: MoveObserver> MoveObserver for Option<T> {
    fn marked(&mut self, record: &MoveRecord) {
        if let Some(observer) = self {
            observer.marked(record);
        }
    }
}

/// Plays one game; [`play_game_observed`] without an observer.
///
/// # Errors
/// [`OpeningError`] if the opening is illegal; nothing is sent to the seats then.
pub async fn play_game<X: Seat + Send, O: Seat + Send>(
    spec: &GameSpec,
    x: &mut X,
    o: &mut O,
) -> Result<GameRecord, OpeningError> {
    play_game_observed(spec, x, o, &mut ()).await
}

/// Plays one game, telling `observer` about every mark (the opening's first, before
/// the seats hear of the game).
///
/// Every turn, in this order: (1) is the game over on the board? (2) ask the seat
/// to move, with the clock running from just before the request is written to the
/// newline of the reply; the seat reports a fault if it died, broke the protocol or
/// missed the deadline; (3) a resignation ends the game; (4) is the square legal? —
/// the rules engine decides, and a legal mark is told to the observer; (5) charge
/// the time to the game clock (the time the seat's clock mode charged: see
/// [`crate::bot::charge`]). A fault, an illegal move or a resignation loses the
/// game for that seat only. The observer is heard after the deadline check, so its
/// cost is never charged to a bot's clock.
///
/// # Errors
/// [`OpeningError`] if the opening is illegal; nothing is sent to the seats then.
pub async fn play_game_observed<X: Seat + Send, O: Seat + Send>(
    spec: &GameSpec,
    x: &mut X,
    o: &mut O,
    observer: &mut impl MoveObserver,
) -> Result<GameRecord, OpeningError> {
    let started = tokio::time::Instant::now();
    let mut pos = opening_position(spec.rules, &spec.opening)?;
    let mut moves: Vec<Square> = spec.opening.clone();
    let mut records = Vec::with_capacity(81);
    let mut replay = Position::new(spec.rules);
    for &sq in &spec.opening {
        let after = replay.play(sq).unwrap_or(replay);
        let record = MoveRecord::new(&replay, &after, sq, None, None);
        observer.marked(&record);
        records.push(record);
        replay = after;
    }

    x.set_clock(spec.time.x.clock_mode);
    o.set_clock(spec.time.o.clock_mode);
    // Both seats hear about the game; a seat that fails here loses (both failing:
    // a draw, with the first fault as the reason).
    let mut fault: Option<(Mark, Fault)> = None;
    let mut both_failed = false;
    for mark in Mark::ALL {
        let message = NewGame {
            mark,
            rules: spec.rules,
            opponent: spec.names.get(!mark).clone(),
            seed: *spec.seeds.get(mark),
            timing: spec.time.get(mark).timing(),
        };
        let result = match mark {
            Mark::X => x.new_game(&message).await,
            Mark::O => o.new_game(&message).await,
        };
        if let Err(f) = result {
            if fault.is_some() {
                both_failed = true;
            } else {
                fault = Some((mark, f));
            }
        }
    }

    let mut clocks = ByMark::new_with(|m| spec.time.get(m).clock.map(|c| c.initial));
    let mut moved = ByMark { x: false, o: false };
    let termination = loop {
        if let Some((by, f)) = fault.take() {
            break Termination::Fault { by, fault: f };
        }
        // (1) Over on the board?
        if let Status::Over(outcome) = pos.status() {
            break Termination::Board(outcome);
        }
        let mark = pos.side_to_move();
        let tc = spec.time.get(mark);
        let allowed = tc.allowed(!*moved.get(mark), *clocks.get(mark));
        let mut go = Go::new(allowed, &moves, pos.legal_moves());
        go.nodes = tc.nodes;
        if let (Some(mine), Some(theirs)) = (*clocks.get(mark), *clocks.get(!mark)) {
            go.clocks = Some((mine, theirs));
        }
        // (2) Ask, timed.
        let answer = match mark {
            Mark::X => x.ask(&go, allowed, tc.margin).await,
            Mark::O => o.ask(&go, allowed, tc.margin).await,
        };
        let answer = match answer {
            Ok(answer) => answer,
            Err(f) => break Termination::Fault { by: mark, fault: f },
        };
        // (3) Resignation.
        let square = match answer.reply {
            Reply::Resign => break Termination::Resign { by: mark },
            Reply::Move(square) => square,
        };
        // (4) Legal?
        let after = match pos.play(square) {
            Ok(after) => after,
            Err(error) => break Termination::IllegalMove { by: mark, error },
        };
        let mut record = MoveRecord::new(&pos, &after, square, Some(answer.elapsed), answer.info);
        record.usage = Some(answer.usage);
        observer.marked(&record);
        records.push(record);
        moves.push(square);
        pos = after;
        *moved.get_mut(mark) = true;
        // (5) Clock.
        if let (Some(remaining), Some(clock)) = (clocks.get_mut(mark).as_mut(), tc.clock) {
            *remaining = remaining
                .saturating_sub(answer.usage.charged)
                .saturating_add(clock.increment);
        }
    };

    let winner = match &termination {
        Termination::Board(outcome) => outcome.winner(),
        _ if both_failed => None,
        other => other.culprit().map(|m| !m),
    };
    let over = GameOver {
        winner,
        reason: termination.reason().to_string(),
        moves: moves.clone(),
    };
    x.game_over(&over).await;
    o.game_over(&over).await;
    let abnormal = termination.culprit().is_some();
    let (transcripts, evidence) = if abnormal {
        (
            ByMark {
                x: x.transcript(),
                o: o.transcript(),
            },
            ByMark {
                x: x.evidence(),
                o: o.evidence(),
            },
        )
    } else {
        (ByMark::default(), ByMark::default())
    };
    Ok(GameRecord {
        id: spec.id.clone(),
        names: spec.names.clone(),
        rules: spec.rules,
        opening_plies: spec.opening.len(),
        moves: records,
        winner,
        termination,
        position: pos,
        duration: started.elapsed(),
        seeds: spec.seeds,
        transcripts,
        evidence,
    })
}

impl TimeControl {
    /// The `newgame` view of this time control.
    pub fn timing(&self) -> Timing {
        Timing {
            move_time: self.move_time,
            first_move_time: self.first_move_time,
            margin: self.margin,
            clock: self.clock.map(|c| (c.initial, c.increment)),
            nodes: self.nodes,
        }
    }
}
