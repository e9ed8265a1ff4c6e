//! A bot process that speaks protocol.md: the handshake, and one timed request and
//! reply at a time. Everything a bot can do wrong becomes a typed [`Fault`]; nothing
//! a bot does can make this module panic, block past a deadline, or hold unbounded
//! memory.

use std::fmt;
use std::time::Duration;

use tokio::time::Instant;

use super::charge::{self, ClockMode, Usage};
use super::command::BotCommand;
use super::process::{BotProcess, ExitInfo, Next, WriteError};
use super::reader::StdoutEvent;
use super::schedstat::{Meter, TreeTimes};
use crate::dialect::Dialect;
use uttt::protocol::{
    self, FromBot, GameOver, Go, IdField, Info, MAX_INFO_LINES, NewGame, PROTOCOL_VERSION, ToBot,
    escape_bytes,
};
use uttt::result::EndReason;
use uttt::rules::{Rules, Square};

/// How long a bot may take to exit after `quit` before it is killed.
pub const QUIT_GRACE: Duration = Duration::from_millis(1000);
/// How long the referee waits, after a bot's stdout closes, to tell a crash (the
/// process exits) from a disconnect (it keeps running).
const EXIT_PROBE: Duration = Duration::from_millis(300);
/// How soon a deadline is checked again when the bot is in the run queue and
/// its charge cannot be read yet.
const RECHECK: Duration = Duration::from_millis(10);
/// How long a move's start waits for a bot still runnable after its previous
/// reply (see [`BotSession::start_meter`]).
const SETTLE: Duration = Duration::from_millis(50);
/// Lines of stderr quoted in crash and handshake messages.
const STDERR_QUOTE_LINES: usize = 5;
/// Lines of protocol transcript kept per game (both directions).
const TRANSCRIPT_LINES: usize = 4000;

/// What a bot said about itself in the handshake.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BotIdentity {
    /// `id name`.
    pub name: Option<String>,
    /// `id author`.
    pub author: Option<String>,
    /// `id version`.
    pub version: Option<String>,
}

/// Something a bot did wrong that ends its game. Each carries what a person needs
/// to understand it; [`Fault::reason_name`] is the word used in CSV files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// No complete move by the hard deadline, or a move that arrived after it.
    Timeout {
        /// The time charged by `clock` (the wall time under the wall clock).
        elapsed: Duration,
        /// Wall time, from just before the request to the reply's newline (or to
        /// the deadline when nothing came).
        wall: Duration,
        /// The clock that charged `elapsed`.
        clock: ClockMode,
        /// The time the bot was given.
        allowed: Duration,
        /// The forgiven overrun.
        margin: Duration,
        /// An unterminated line the bot had printed, escaped, if any.
        partial: Option<String>,
    },
    /// A line that is not a valid reply.
    Malformed {
        /// What was wrong, in words.
        problem: String,
    },
    /// The process ended.
    Crash {
        /// Exit code or signal.
        exit: ExitInfo,
        /// An unterminated last line, escaped, if any.
        partial: Option<String>,
        /// The last lines of its stderr, escaped (see `protocol::escape_lines`).
        stderr_tail: String,
    },
    /// The bot closed its stdout or stdin but kept running.
    Disconnect {
        /// Which pipe, in words.
        detail: String,
    },
    /// The handshake did not complete.
    HandshakeFailure {
        /// Why, in words.
        detail: String,
    },
}

impl std::error::Error for Fault {}

impl Fault {
    /// The reason of protocol.md §5.
    pub const fn reason(&self) -> EndReason {
        match self {
            Fault::Timeout { .. } => EndReason::Timeout,
            Fault::Malformed { .. } => EndReason::MalformedOutput,
            Fault::Crash { .. } => EndReason::Crash,
            Fault::Disconnect { .. } => EndReason::Disconnect,
            Fault::HandshakeFailure { .. } => EndReason::HandshakeFailure,
        }
    }
}

impl fmt::Display for Fault {
    /// The fault in words, without the bot's name: "ran out of time: 312 ms, allowed
    /// 100 ms + 50 ms margin".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::Timeout {
                elapsed,
                wall,
                clock,
                allowed,
                margin,
                partial,
            } => {
                let limit = allowed.saturating_add(*margin);
                match clock {
                    ClockMode::Wall => write!(f, "ran out of time: {} ms", elapsed.as_millis())?,
                    _ if elapsed <= &limit => write!(
                        f,
                        "ran out of time: no reply within the wall-clock ceiling of {} ms (charged {} ms by the {clock} clock: the machine gave it too little CPU)",
                        wall.as_millis(),
                        elapsed.as_millis()
                    )?,
                    _ => write!(
                        f,
                        "ran out of time: charged {} ms by the {clock} clock ({} ms passed)",
                        elapsed.as_millis(),
                        wall.as_millis()
                    )?,
                }
                write!(
                    f,
                    ", allowed {} ms + {} ms margin",
                    allowed.as_millis(),
                    margin.as_millis()
                )?;
                if let Some(p) = partial {
                    write!(f, " (it printed '{p}' without a newline)")?;
                }
                Ok(())
            }
            Fault::Malformed { problem } => write!(f, "sent malformed output: {problem}"),
            Fault::Crash {
                exit,
                partial,
                stderr_tail,
            } => {
                write!(f, "crashed ({exit})")?;
                if let Some(p) = partial {
                    write!(f, " after printing '{p}' without a newline")?;
                }
                if !stderr_tail.is_empty() {
                    write!(f, "; stderr ends: {}", one_line(stderr_tail))?;
                }
                Ok(())
            }
            Fault::Disconnect { detail } => write!(f, "disconnected: {detail}"),
            Fault::HandshakeFailure { detail } => write!(f, "failed the handshake: {detail}"),
        }
    }
}

/// `start + after`, or a year from `start` if that is past what the clock can hold:
/// the arena never asks for such a time, but the library must not panic if a caller
/// does.
fn deadline_after(start: Instant, after: Duration) -> Instant {
    const FAR: Duration = Duration::from_secs(365 * 24 * 3600);
    start.checked_add(after.min(FAR)).unwrap_or(start)
}

/// The fault of a bot that sent more `info` lines than one move allows.
fn too_many_info_lines() -> Fault {
    Fault::Malformed {
        problem: format!(
            "more than {MAX_INFO_LINES} info lines for one move (counting those sent since its previous move)"
        ),
    }
}

/// Lines of stderr kept with a failed start ([`FailedStart`]).
const FAILED_START_STDERR_LINES: usize = 20;

/// A bot that could not be started: the fault (its words quote the stderr on
/// one line), what happened in words without the quote, and the end of its
/// stderr as written, line by line.
#[derive(Debug)]
pub struct FailedStart {
    /// The fault, as games and the preflight report it.
    pub fault: Fault,
    /// What happened ("it exited (exit code 1) before 'ready'"), without the
    /// stderr quote.
    pub what: String,
    /// The last lines the bot wrote to stderr (escaped), as lines.
    pub stderr: String,
}

/// Why a start ended before `ready`: what happened, and the stderr quoted on
/// one line (empty when there is nothing to quote).
#[derive(Debug)]
struct EarlyEnd {
    what: String,
    stderr: String,
}

impl EarlyEnd {
    /// An end the words say whole.
    fn said(what: String) -> EarlyEnd {
        EarlyEnd {
            what,
            stderr: String::new(),
        }
    }

    /// The fault's words: what happened, then what stderr ends with.
    fn detail(&self) -> String {
        if self.stderr.is_empty() {
            self.what.clone()
        } else {
            format!("{}; stderr ends: {}", self.what, self.stderr)
        }
    }
}

fn one_line(text: &str) -> String {
    let joined = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" | ");
    if joined.len() > 300 {
        let cut = (0..=300)
            .rev()
            .find(|&i| joined.is_char_boundary(i))
            .unwrap_or(0);
        format!("{}…", &joined[..cut])
    } else {
        joined
    }
}

/// A bot's reply to `go`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    /// It chose this square (legality is checked by the game, not here).
    Move(Square),
    /// It resigned.
    Resign,
}

/// A timely, well-formed reply with its measured time and the last `info` line.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// The reply.
    pub reply: Reply,
    /// Wall time, from just before the request was written to the reply's newline.
    pub elapsed: Duration,
    /// What the scheduler counted and what the move was charged.
    pub usage: Usage,
    /// The last `info` line before the reply, if any.
    pub info: Option<Info>,
}

/// What a closed session leaves: how the process ended and its stderr.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Closed {
    /// The process id it had.
    pub pid: Option<u32>,
    /// How it ended.
    pub exit: Option<ExitInfo>,
    /// The last 64 KiB of its stderr, escaped (see `protocol::escape_lines`).
    pub stderr_tail: String,
    /// Everything it wrote to stderr, in bytes.
    pub stderr_bytes: u64,
}

/// What a bot's process left during one game, for the bundle of a game that
/// ended abnormally: its stderr, how much memory it held, and how many games the
/// process had played (a failure in a reused process may depend on them).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameEvidence {
    /// The process id.
    pub pid: Option<u32>,
    /// What it wrote to stderr during this game (as far as the 64 KiB tail
    /// reaches), escaped.
    pub stderr: String,
    /// The most memory its process tree had held by the end of this game, in
    /// bytes, when measured (see [`BotProcess::peak_memory`]).
    pub peak_memory: Option<u64>,
    /// This game's number in the life of its process, from 1.
    pub game_in_process: u32,
    /// How the process ended, if it had by the end of the game.
    pub exit: Option<ExitInfo>,
}

/// A running bot that completed the handshake.
#[derive(Debug)]
pub struct BotSession {
    process: BotProcess,
    identity: BotIdentity,
    transcript: Vec<String>,
    /// The stderr total when the current game started.
    game_stderr_mark: u64,
    /// Games announced to this process.
    games: u32,
    dialect: Dialect,
    /// The current game's rules and this bot's seed (dialects need them to phrase
    /// requests).
    rules: Rules,
    seed: u64,
    /// How moves are charged (see [`charge`]).
    clock: ClockMode,
    /// The bot's cgroup's CPU time when its last reply was read (or its game
    /// announced): what it uses from then to the next request is charged to
    /// that move ([`super::Measured::ahead`]).
    since_reply: Option<Duration>,
}

impl BotSession {
    /// Starts `command` and performs the handshake within `handshake_limit`.
    ///
    /// # Errors
    /// [`Fault::HandshakeFailure`] saying what happened (could not start, exited,
    /// said something else, said nothing). The process is killed.
    pub async fn start(
        command: &BotCommand,
        handshake_limit: Duration,
    ) -> Result<BotSession, Fault> {
        BotSession::start_dialect(command, Dialect::Uttt, handshake_limit).await
    }

    /// Starts `command` speaking `dialect`. Dialects without a handshake only start
    /// the process here; a bot that cannot start then fails its first request.
    ///
    /// # Errors
    /// As [`BotSession::start`].
    pub async fn start_dialect(
        command: &BotCommand,
        dialect: Dialect,
        handshake_limit: Duration,
    ) -> Result<BotSession, Fault> {
        BotSession::start_keeping_stderr(command, dialect, handshake_limit)
            .await
            .map_err(|failed| failed.fault)
    }

    /// [`BotSession::start_dialect`], keeping what a bot that fails to start
    /// wrote to stderr line by line (the fault's words quote it on one line):
    /// for feedback that shows a traceback as the bot wrote it.
    ///
    /// # Errors
    /// As [`BotSession::start`], with the stderr.
    pub async fn start_keeping_stderr(
        command: &BotCommand,
        dialect: Dialect,
        handshake_limit: Duration,
    ) -> Result<BotSession, FailedStart> {
        let process = BotProcess::spawn(command).map_err(|e| FailedStart {
            fault: Fault::HandshakeFailure {
                detail: e.to_string(),
            },
            what: e.to_string(),
            stderr: String::new(),
        })?;
        let mut session = BotSession {
            process,
            identity: BotIdentity::default(),
            transcript: Vec::new(),
            game_stderr_mark: 0,
            games: 0,
            dialect,
            rules: Rules::STANDARD,
            seed: 0,
            clock: ClockMode::auto(),
            since_reply: None,
        };
        if !dialect.has_handshake() {
            return Ok(session);
        }
        match session.handshake(handshake_limit).await {
            Ok(()) => Ok(session),
            Err(failure) => {
                let stderr = session.process.stderr_tail(FAILED_START_STDERR_LINES);
                session.process.kill().await;
                Err(FailedStart {
                    fault: Fault::HandshakeFailure {
                        detail: failure.detail(),
                    },
                    what: failure.what,
                    stderr,
                })
            }
        }
    }

    async fn handshake(&mut self, limit: Duration) -> Result<(), EarlyEnd> {
        let deadline = deadline_after(Instant::now(), limit);
        let hello = ToBot::Hello {
            version: PROTOCOL_VERSION,
        }
        .to_string();
        self.log_out(&hello);
        if self.process.write_line(&hello, deadline).await.is_err() {
            return Err(self.exited_early("before reading the hello line").await);
        }
        loop {
            match self.process.next(deadline).await {
                Next::Event(StdoutEvent::Line { bytes, .. }) => {
                    self.log_in(&bytes);
                    match protocol::parse_from_bot(&bytes) {
                        Ok(FromBot::Ready) => return Ok(()),
                        Ok(FromBot::Id(field, value)) => {
                            let slot = match field {
                                IdField::Name => &mut self.identity.name,
                                IdField::Author => &mut self.identity.author,
                                IdField::Version => &mut self.identity.version,
                            };
                            *slot = Some(value);
                        }
                        Ok(FromBot::Info(_)) => {}
                        _ => {
                            return Err(EarlyEnd::said(format!(
                                "it sent '{}' before 'ready' (expected 'id …' lines, then 'ready')",
                                escape_bytes(&bytes)
                            )));
                        }
                    }
                }
                Next::Event(StdoutEvent::TooLong { prefix }) => {
                    return Err(EarlyEnd::said(format!(
                        "it sent a line longer than {} bytes starting '{}'",
                        protocol::MAX_LINE_BYTES,
                        escape_bytes(&prefix)
                    )));
                }
                Next::Event(StdoutEvent::Closed { .. }) | Next::Exited(_) => {
                    return Err(self.exited_early("before 'ready'").await);
                }
                Next::Deadline => {
                    let silent = !self.transcript.iter().any(|l| l.starts_with("< "))
                        && self.process.partial_line().is_empty();
                    return Err(EarlyEnd::said(if silent {
                        format!(
                            "no 'ready' within {} ms: it printed nothing at all (did you flush standard output after each line?)",
                            limit.as_millis()
                        )
                    } else {
                        format!("no 'ready' within {} ms", limit.as_millis())
                    }));
                }
            }
        }
    }

    async fn exited_early(&mut self, when: &str) -> EarlyEnd {
        let exit = self.process.wait_exit(EXIT_PROBE).await;
        if exit.is_some() {
            // Its last words may still be in the pipe: stdout is read on a thread
            // of its own and can report the end before stderr's drain has read them.
            self.process.settle_stderr().await;
        }
        let stderr = one_line(&self.process.stderr_tail(STDERR_QUOTE_LINES));
        let what = match exit {
            Some(ExitInfo::Code(127)) if stderr.contains("cannot start") => {
                return EarlyEnd::said(format!("it could not be started: {stderr}"));
            }
            Some(exit) => format!("it exited ({exit}) {when}"),
            None => format!("it closed its standard output {when}"),
        };
        EarlyEnd { what, stderr }
    }

    /// Whether the process is still running `grace` after it started: how a bot of a
    /// dialect without a handshake shows it can play (the preflight check).
    ///
    /// # Errors
    /// [`Fault::HandshakeFailure`] saying how it ended and what its stderr says.
    pub async fn still_running_after(&mut self, grace: Duration) -> Result<(), Fault> {
        if self.process.wait_exit(grace).await.is_none() {
            return Ok(());
        }
        let detail = self
            .exited_early(&format!("within {} ms of starting", grace.as_millis()))
            .await
            .detail();
        Err(Fault::HandshakeFailure { detail })
    }

    /// Charges this bot's moves by `clock` from now on (the default is
    /// [`ClockMode::auto`]). Without the scheduler's counters every clock is the
    /// wall clock.
    pub fn set_clock(&mut self, clock: ClockMode) {
        self.clock = clock;
    }

    /// The clock that charges this bot's moves.
    pub fn clock(&self) -> ClockMode {
        self.clock
    }

    /// The dialect this bot speaks.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// What the bot said about itself.
    pub fn identity(&self) -> &BotIdentity {
        &self.identity
    }

    /// The process id of the bot (and its process group), while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.process.pid()
    }

    /// Announces a new game and clears the transcript.
    ///
    /// # Errors
    /// The bot is gone or not reading.
    pub async fn new_game(&mut self, game: &NewGame) -> Result<(), Fault> {
        self.process.playing(true);
        self.transcript.clear();
        self.game_stderr_mark = self.process.stderr_total();
        self.games += 1;
        self.rules = game.rules;
        self.seed = game.seed;
        // What the bot does between games is its own; from here on, what it
        // does before its first request is charged to that move.
        self.since_reply = self
            .process
            .tree_counters(false)
            .and_then(|reading| reading.times.group());
        let lines = self.dialect.new_game_lines(game);
        if lines.is_empty() {
            return Ok(());
        }
        for line in &lines {
            self.log_out(line);
        }
        let line = lines.join("\n");
        let deadline = Instant::now() + Duration::from_millis(1000);
        match self.process.write_line(&line, deadline).await {
            Ok(_) => Ok(()),
            Err(e) => Err(self
                .write_fault(e, Duration::from_millis(1000), Duration::ZERO)
                .await),
        }
    }

    /// Sends `go` and waits for the reply, timing it: the clock starts just before
    /// the line is written and stops at the reply's newline. A reply charged more
    /// than `allowed + margin` by the session's clock is a timeout even though it
    /// arrived, and so is one later than the clock's wall-clock
    /// [`ceiling`](charge::ceiling).
    ///
    /// The scheduler's counters are read before the request and after the reply;
    /// under the fair and CPU clocks also when the wall time passes the limit,
    /// and then the deadline moves on by what the move may still be charged.
    /// A bot over its limit by the counters is still waited for while its
    /// output waits unread (the referee's reading thread had no CPU) or it
    /// waits in the run queue: the reply is then charged with the lateness
    /// measured, up to the ceiling.
    ///
    /// # Errors
    /// The [`Fault`] that ends the bot's game.
    pub async fn ask(
        &mut self,
        go: &Go,
        allowed: Duration,
        margin: Duration,
    ) -> Result<Answer, Fault> {
        // Info lines sent since the previous reply count toward this move (protocol.md
        // §4), wherever they wait: in the channel now, or still in the pipe.
        let mut info_lines = self.check_quiet().await?;
        let lines = self.dialect.request_lines(go, self.rules, self.seed);
        let line = lines.join("\n");
        let limit = allowed.saturating_add(margin);
        let mut meter = self.start_meter(self.clock != ClockMode::Wall).await;
        // A clock that charges by counters needs the bot's whole CPU time
        // (its cgroup's): without it, a bot could hide work in processes
        // that exit or leave its tree, so its moves go by the wall clock.
        let clock = match &meter {
            Some(m) if m.whole() => self.clock,
            _ => ClockMode::Wall,
        };
        let ceiling = charge::ceiling(clock, limit);
        let start = Instant::now();
        let mut deadline = deadline_after(start, limit);
        let mut looked_again = false;
        let timeout = |usage: Usage, wall: Duration, partial: Option<String>| Fault::Timeout {
            elapsed: usage.charged,
            wall,
            clock,
            allowed,
            margin,
            partial,
        };
        let written = self.process.write_line(&line, deadline).await;
        if let (Some(m), Ok(writing)) = (meter.as_mut(), &written) {
            m.sent(writing.saturating_duration_since(start));
        }
        for line in &lines {
            self.log_out(line);
        }
        if let Err(e) = written {
            return Err(self.write_fault(e, allowed, margin).await);
        }
        let mut info = None;
        loop {
            match self.process.next(deadline).await {
                Next::Event(StdoutEvent::Line {
                    bytes,
                    at,
                    late,
                    counters,
                }) => {
                    self.log_in(&bytes);
                    let messages =
                        self.dialect
                            .parse_reply(&bytes)
                            .map_err(|e| Fault::Malformed {
                                problem: e.to_string(),
                            })?;
                    for message in messages {
                        let reply = match message {
                            FromBot::Info(i) => {
                                info_lines += 1;
                                if info_lines > MAX_INFO_LINES {
                                    return Err(too_many_info_lines());
                                }
                                info = Some(i);
                                continue;
                            }
                            FromBot::Move(sq) => Reply::Move(sq),
                            FromBot::Resign => Reply::Resign,
                            other => {
                                return Err(Fault::Malformed {
                                    problem: format!(
                                        "'{}' is not a move (expected a square such as e5)",
                                        escape_bytes(other.to_string().as_bytes())
                                    ),
                                });
                            }
                        };
                        let elapsed = at.saturating_duration_since(start);
                        // The counters read with the reply, else now.
                        let fresh = match (&meter, &counters) {
                            (Some(_), None) => self.process.tree_counters(false),
                            _ => None,
                        };
                        let now = counters.as_deref().or(fresh.as_ref().map(|r| &r.times));
                        let measured = meter
                            .as_ref()
                            .zip(now)
                            .map(|(m, now)| m.measured(late, now));
                        let usage = Usage::charge(clock, elapsed, measured);
                        self.since_reply = now.and_then(TreeTimes::group);
                        if usage.charged > limit || elapsed > ceiling {
                            return Err(timeout(usage, elapsed, None));
                        }
                        return Ok(Answer {
                            reply,
                            elapsed,
                            usage,
                            info,
                        });
                    }
                }
                Next::Event(StdoutEvent::TooLong { prefix }) => {
                    return Err(Fault::Malformed {
                        problem: format!(
                            "a line longer than {} bytes, starting '{}'",
                            protocol::MAX_LINE_BYTES,
                            escape_bytes(&prefix)
                        ),
                    });
                }
                Next::Event(StdoutEvent::Closed { partial }) => {
                    return Err(self.closed_fault(partial).await);
                }
                Next::Exited(exit) => {
                    let partial = self.process.partial_line();
                    return Err(self.crash(exit, partial).await);
                }
                Next::Deadline => {
                    let wall = start.elapsed();
                    let now = meter
                        .as_ref()
                        .and_then(|_| self.process.tree_counters(true));
                    let measured = meter
                        .as_ref()
                        .zip(now.as_ref())
                        .map(|(m, now)| m.measured(Duration::ZERO, &now.times));
                    let usage = Usage::charge(clock, wall, measured);
                    if clock != ClockMode::Wall && wall < ceiling {
                        if usage.charged <= limit {
                            // Not charged its limit yet: wait as long as it may
                            // still be charged, up to the ceiling.
                            let left = (limit - usage.charged).max(Duration::from_millis(1));
                            deadline =
                                deadline_after(start, wall.saturating_add(left).min(ceiling));
                            continue;
                        }
                        // A bot in the run queue now has its current wait
                        // missing from its counters: only its CPU time is
                        // certain then.
                        let unsure = measured.is_some_and(|m| m.cpu <= limit)
                            && now.as_ref().is_some_and(|now| now.runnable);
                        // A reply written while the reading thread waited for
                        // a CPU is not read yet; when it is, its lateness is
                        // measured and not charged, so wait for it (a bot that
                        // slept is still charged its sleep).
                        let unread =
                            measured.is_none_or(|m| m.cpu <= limit) && self.process.output_unread();
                        if unsure || unread {
                            deadline =
                                deadline_after(start, wall.saturating_add(RECHECK).min(ceiling));
                            continue;
                        }
                        // Nothing unread: take what reached the channel since it
                        // was last looked at (the deadline has passed, so the
                        // look does not wait), then judge.
                        if !looked_again {
                            looked_again = true;
                            continue;
                        }
                    }
                    let partial = self.process.partial_line();
                    let partial = (!partial.is_empty()).then(|| escape_bytes(&partial));
                    return Err(timeout(usage, wall, partial));
                }
            }
        }
    }

    /// The tree's counters for a move's start. With `settle` (a clock that
    /// charges by them), first waits (at most [`SETTLE`]) until no task of
    /// the bot's tree is runnable: a bot still in the run queue after its
    /// previous reply has a wait that began before this move but enters its
    /// counters only when it runs, and would be forgiven in this one. A bot
    /// that blocks reading its input between moves settles at once (the
    /// states come with the one reading); one that computes between moves
    /// costs the bound. `None` where the host or the bot gives no counters.
    ///
    /// A bot that has just replied is usually runnable for a few microseconds
    /// more (it returns to reading its input): the referee first gives up its
    /// CPU a few times (`sched_yield`, so that bot may run on it), and only then
    /// sleeps a millisecond at a time — a timer's millisecond at every move
    /// would cost instant bots most of their games.
    async fn start_meter(&self, settle: bool) -> Option<Meter> {
        const YIELDS: u32 = 32;
        let until = Instant::now() + SETTLE;
        let mut yields = 0;
        loop {
            let reading = self.process.tree_counters(settle)?;
            if !settle || !reading.runnable || Instant::now() >= until {
                return Some(Meter::new(reading.times, self.since_reply));
            }
            if yields < YIELDS {
                yields += 1;
                std::thread::yield_now();
            } else {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        }
    }

    /// Before a request: anything but `info` printed since the last reply is output
    /// before the request (protocol.md §8); a closed pipe or an exit is reported now.
    /// Returns how many `info` lines were waiting: they count toward the move about
    /// to be asked for.
    async fn check_quiet(&mut self) -> Result<usize, Fault> {
        let mut info_lines = 0usize;
        while let Ok(event) = self.process.stdout.events.try_recv() {
            match event {
                StdoutEvent::Line { bytes, .. } => {
                    self.log_in(&bytes);
                    let only_info = match self.dialect.parse_reply(&bytes) {
                        Ok(messages) => {
                            info_lines += messages.len();
                            messages.iter().all(|m| matches!(m, FromBot::Info(_)))
                        }
                        Err(_) => false,
                    };
                    if only_info && info_lines > MAX_INFO_LINES {
                        return Err(too_many_info_lines());
                    }
                    if !only_info {
                        return Err(Fault::Malformed {
                            problem: format!(
                                "output before the request: '{}'",
                                escape_bytes(&bytes)
                            ),
                        });
                    }
                }
                StdoutEvent::TooLong { prefix } => {
                    return Err(Fault::Malformed {
                        problem: format!(
                            "output before the request: a line longer than {} bytes, starting '{}'",
                            protocol::MAX_LINE_BYTES,
                            escape_bytes(&prefix)
                        ),
                    });
                }
                StdoutEvent::Closed { partial } => return Err(self.closed_fault(partial).await),
            }
        }
        if let Some(exit) = self.process.exit_info() {
            return Err(self.crash(exit, Vec::new()).await);
        }
        Ok(info_lines)
    }

    async fn closed_fault(&mut self, partial: Vec<u8>) -> Fault {
        match self.process.wait_exit(EXIT_PROBE).await {
            Some(exit) => self.crash(exit, partial).await,
            None => Fault::Disconnect {
                detail: "it closed its standard output but kept running".into(),
            },
        }
    }

    async fn write_fault(
        &mut self,
        error: WriteError,
        allowed: Duration,
        margin: Duration,
    ) -> Fault {
        match error {
            WriteError::Blocked => Fault::Timeout {
                elapsed: allowed.saturating_add(margin),
                wall: allowed.saturating_add(margin),
                clock: ClockMode::Wall,
                allowed,
                margin,
                partial: None,
            },
            WriteError::Closed => match self.process.wait_exit(EXIT_PROBE).await {
                Some(exit) => {
                    let partial = self.process.partial_line();
                    self.crash(exit, partial).await
                }
                None => Fault::Disconnect {
                    detail: "it closed its standard input but kept running".into(),
                },
            },
        }
    }

    async fn crash(&mut self, exit: ExitInfo, partial: Vec<u8>) -> Fault {
        self.process.settle_stderr().await;
        Fault::Crash {
            exit,
            partial: (!partial.is_empty()).then(|| escape_bytes(&partial)),
            stderr_tail: self.process.stderr_tail(STDERR_QUOTE_LINES),
        }
    }

    /// Tells the bot how the game ended. Best effort: a bot that is gone or not
    /// reading does not delay anything. Until its next game, the bot's memory is
    /// watched at the slower pace of a bot between games.
    pub async fn game_over(&mut self, over: &GameOver) {
        self.process.playing(false);
        let Some(line) = self.dialect.game_over_line(over) else {
            return;
        };
        self.log_out(&line);
        let _ = self
            .process
            .write_line(&line, Instant::now() + Duration::from_millis(100))
            .await;
    }

    /// Sends `quit`, gives the bot [`QUIT_GRACE`] to exit, then kills its whole
    /// process group and reaps it. Returns how it ended, if it had.
    pub async fn quit(mut self) -> Option<ExitInfo> {
        if !self.dialect.has_handshake() {
            // Foreign bots have no quit message and often never exit on their own.
            self.process.kill().await;
            return self.process.exit_info();
        }
        let _ = self
            .process
            .write_line("quit", Instant::now() + Duration::from_millis(100))
            .await;
        let exit = self.process.wait_exit(QUIT_GRACE).await;
        self.process.kill().await;
        exit
    }

    /// Ends the session — `quit` with a grace period if `graceful`, else an immediate
    /// kill of the whole group — and returns what the bot left behind.
    pub async fn close(self, graceful: bool) -> Closed {
        let mut this = self;
        if graceful {
            let dialect = this.dialect;
            if dialect.has_handshake() {
                let _ = this
                    .process
                    .write_line("quit", Instant::now() + Duration::from_millis(100))
                    .await;
                this.process.wait_exit(QUIT_GRACE).await;
            }
        }
        this.process.kill().await;
        let (stderr_tail, stderr_bytes) = this.process.stderr_log();
        Closed {
            pid: this.process.pid(),
            exit: this.process.exit_info(),
            stderr_tail,
            stderr_bytes,
        }
    }

    /// Kills the bot's whole process group at once and reaps it (after a fault, the
    /// bot is in an unknown state and is not asked to quit).
    pub async fn kill(mut self) {
        self.process.kill().await;
    }

    /// The protocol transcript of the current game (`> ` referee, `< ` bot).
    pub fn transcript(&self) -> &[String] {
        &self.transcript
    }

    /// What the process left during the current game (read at its end): its stderr
    /// since `newgame`, its peak memory, its exit.
    pub fn evidence(&self) -> GameEvidence {
        GameEvidence {
            pid: self.process.pid(),
            stderr: self.process.stderr_since(self.game_stderr_mark),
            peak_memory: self.process.peak_memory(),
            game_in_process: self.games,
            exit: self.process.exit_info(),
        }
    }

    /// The kept stderr tail (last 64 KiB), escaped, and the total bytes the bot wrote
    /// there.
    pub fn stderr_log(&self) -> (String, u64) {
        self.process.stderr_log()
    }

    fn log_out(&mut self, line: &str) {
        if self.transcript.len() < TRANSCRIPT_LINES {
            self.transcript.push(format!("> {line}"));
        }
    }

    fn log_in(&mut self, bytes: &[u8]) {
        if self.transcript.len() < TRANSCRIPT_LINES {
            self.transcript.push(format!("< {}", escape_bytes(bytes)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Busy loops, killed when dropped.
    struct Spinners(Vec<std::process::Child>);

    impl Drop for Spinners {
        fn drop(&mut self) {
            for child in &mut self.0 {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }

    #[tokio::test]
    async fn the_reading_thread_ends_with_the_kill_though_an_escaped_process_holds_stdout() {
        // `setsid` leaves the bot's process group, and with it the kill; its
        // `sleep` keeps the bot's end of stdout open.
        let mut command = BotCommand::new("sh");
        command.args = vec![
            "-c".into(),
            "setsid sleep 20 & echo \"id name $!\"; read hello; echo ready; while read line; do :; done"
                .into(),
        ];
        let mut bot = BotSession::start(&command, Duration::from_secs(30))
            .await
            .expect("the shell bot starts");
        let escaped = bot
            .identity()
            .name
            .as_deref()
            .and_then(|pid| pid.parse::<i32>().ok())
            .expect("the bot names its escaped child");
        bot.process.kill().await;
        let started = Instant::now();
        while !bot.process.reader_finished() && started.elapsed() < Duration::from_secs(5) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let finished = bot.process.reader_finished();
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(escaped),
            nix::sys::signal::Signal::SIGKILL,
        );
        assert!(finished, "the reading thread outlived the kill");
    }

    /// `python3`'s path, if it runs.
    fn which_python() -> Result<&'static str, ()> {
        std::process::Command::new("python3")
            .arg("-c")
            .arg("pass")
            .status()
            .ok()
            .filter(std::process::ExitStatus::success)
            .map(|_| "python3")
            .ok_or(())
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[cfg_attr(
        not(has_schedstat),
        ignore = "needs the kernel's per-task schedstat (/proc/PID/task/TID/schedstat)"
    )]
    async fn a_sleeper_past_its_limit_is_timed_out_and_forgiven_at_most_the_lateness_under_load() {
        assert!(
            super::super::schedstat::available(),
            "no per-task schedstat here, although build.rs found it"
        );
        // Four busy loops a core: the referee's threads and the bot's wait in
        // the run queue at every wake-up, so replies are read late.
        let cores = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
        let _spinners = Spinners(
            (0..4 * cores)
                .filter_map(|_| {
                    std::process::Command::new("sh")
                        .args(["-c", "while :; do :; done"])
                        .spawn()
                        .ok()
                })
                .collect(),
        );
        // One process, one thread: the charge of a bot whose other tasks wait
        // for a CPU while one sleeps is another matter (see `charge`).
        let python = which_python()
            .expect("python3 runs the one-thread sleeping bot (apt-get install python3)");
        let mut command = BotCommand::new(python);
        command.args = vec![
            "-c".into(),
            "import sys, time\nsys.stdin.readline()\nprint('ready', flush=True)\nwhile True:\n    line = sys.stdin.readline()\n    if not line:\n        break\n    if line.startswith('go'):\n        time.sleep(0.15)\n        print('e5', flush=True)\n".into(),
        ];
        let mut bot = BotSession::start(&command, Duration::from_secs(30))
            .await
            .expect("the python bot starts");
        bot.set_clock(ClockMode::Fair);
        let go = Go::new(
            Duration::from_millis(100),
            &[],
            uttt::rules::Position::new(Rules::STANDARD).legal_moves(),
        );
        let slept = Duration::from_millis(150);
        let limit = Duration::from_millis(120);
        for _ in 0..20 {
            // A limit far away, so every reply comes and is charged.
            let answer = bot
                .ask(&go, Duration::from_secs(30), Duration::ZERO)
                .await
                .expect("a reply");
            let measured = answer.usage.measured.expect("measured");
            // Exact but for one overlap: the bot's own wait for a CPU after it
            // wrote the reply, while the reply waited to be read, is in both
            // its wait and the lateness; it is at most the lateness.
            assert!(
                answer.usage.charged + measured.late >= slept,
                "a bot that slept {slept:?} was forgiven more than the referee's lateness: {answer:?}"
            );
            assert!(
                answer.usage.charged > limit,
                "a bot that slept {slept:?} was not timed out at {limit:?}: {answer:?}"
            );
        }
        bot.kill().await;
    }

    #[test]
    fn fault_words() {
        let timeout = Fault::Timeout {
            elapsed: Duration::from_millis(312),
            wall: Duration::from_millis(312),
            clock: ClockMode::Wall,
            allowed: Duration::from_millis(100),
            margin: Duration::from_millis(50),
            partial: Some("e5".into()),
        };
        assert_eq!(
            timeout.to_string(),
            "ran out of time: 312 ms, allowed 100 ms + 50 ms margin (it printed 'e5' without a newline)"
        );
        let crash = Fault::Crash {
            exit: ExitInfo::Signal(11),
            partial: None,
            stderr_tail: "Traceback:\n  boom\n".into(),
        };
        assert_eq!(
            crash.to_string(),
            "crashed (signal 11 (SIGSEGV)); stderr ends: Traceback: | boom"
        );
        assert_eq!(crash.reason(), EndReason::Crash);
        assert_eq!(
            Fault::Crash {
                exit: ExitInfo::Code(0),
                partial: Some("e4".into()),
                stderr_tail: String::new()
            }
            .to_string(),
            "crashed (exit code 0) after printing 'e4' without a newline"
        );
    }
}
