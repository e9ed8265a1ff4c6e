//! Playing scheduled games: several at once, bot processes reused across games
//! when allowed, every result handed to the caller as soon as its game ends, and
//! a clean stop on interruption (running games are abandoned, not recorded, and
//! every bot process is killed).
//!
//! Policy for bots that will not start: each game tries to start the bot afresh
//! (its handshake failure loses that game); after [`MAX_START_FAILURES`]
//! consecutive failures the bot is not started again and its remaining games are
//! lost with the last failure as the reason, so a broken bot costs seconds, not a
//! hung tournament.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use referee::bot::{Answer, BotSession, Closed, FailedStart, Fault};
use referee::game::{FailedSeat, GameRecord, GameSpec, OpeningError, Seat, play_game_observed};
use tokio::task::JoinSet;
use uttt::protocol::{GameOver, Go, NewGame};
use uttt::rules::{ByMark, Mark, Rules};

use super::entrant::Entrant;
use super::governor::{self, Governor, GovernorSettings, Judgement};
use super::pace::{Paced, Pacer};
use super::schedule::{ScheduledGame, mix};
use crate::results::governor_file::GovernorStatus;
use crate::results::live::LiveGame;
use crate::results::manifest::ProcessPolicy;

/// Consecutive start failures after which a bot is given up on.
pub const MAX_START_FAILURES: u32 = 3;

/// How games are run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Games played at once.
    pub concurrency: usize,
    /// Reuse a bot process for its next game, or start one per game.
    pub processes: ProcessPolicy,
    /// Time a bot has to complete the handshake.
    pub handshake_limit: Duration,
    /// The rules of every game.
    pub rules: Rules,
    /// Where each bot's stderr is kept (`<name>.stderr.log`, capped), if anywhere.
    pub log_dir: Option<std::path::PathBuf>,
    /// Where each running game is published move by move (`<results>/live`), if
    /// anywhere.
    pub live_dir: Option<std::path::PathBuf>,
    /// Start every bot once before the first game (see `super::preflight`).
    pub preflight: bool,
    /// The least time between two marks of a game (see `super::pace`): zero
    /// plays as fast as the bots answer.
    pub pace: Duration,
    /// Whether the governor keeps timed bots served (see `super::governor`).
    pub governor: GovernorSettings,
}

/// The most a bot's stderr log file grows to.
pub const STDERR_LOG_CAP: u64 = 1024 * 1024;

/// A finished game with its place in the schedule.
#[derive(Debug)]
pub struct Finished {
    /// The scheduled game.
    pub game: ScheduledGame,
    /// What happened.
    pub record: GameRecord,
    /// The game's live files, removed when this is dropped: after the caller has
    /// recorded the game, so a reader always finds it in one place or the other.
    pub live: Option<LiveGame>,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// Every game was played.
    Complete,
    /// The caller asked to stop (e.g. an SPRT decided); running games were abandoned.
    Stopped,
    /// Interrupted; unfinished games were abandoned.
    Interrupted(Interruption),
}

/// What interrupted a run. Each is handled the same way (every bot killed, every
/// finished game kept, the resume command printed); only the exit code differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interruption {
    /// Ctrl-C (SIGINT): exit 130.
    Interrupt,
    /// SIGTERM, what CI runners, Slurm, Kubernetes and systemd send: exit 143.
    Terminate,
    /// SIGHUP, the terminal went away: exit 129.
    HangUp,
    /// Standard output was closed (`| head -1`): exit 141.
    ClosedOutput,
}

impl Interruption {
    /// The interruption in words, for messages.
    pub const fn describe(self) -> &'static str {
        match self {
            Interruption::Interrupt => "Interrupted (Ctrl-C)",
            Interruption::Terminate => "Stopped by SIGTERM",
            Interruption::HangUp => "Stopped by SIGHUP",
            Interruption::ClosedOutput => "Stopped: standard output was closed",
        }
    }
}

/// What the caller wants after a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Keep playing.
    Continue,
    /// Stop now: abandon running games, start no more.
    Stop,
}

/// A seat for the runner: a live bot, or a bot that could not be started.
#[derive(Debug)]
enum RunnerSeat {
    Bot(Box<BotSession>),
    Failed(FailedSeat),
}

impl Seat for RunnerSeat {
    async fn new_game(&mut self, game: &NewGame) -> Result<(), Fault> {
        match self {
            RunnerSeat::Bot(b) => b.new_game(game).await,
            RunnerSeat::Failed(f) => f.new_game(game).await,
        }
    }
    async fn ask(&mut self, go: &Go, allowed: Duration, margin: Duration) -> Result<Answer, Fault> {
        match self {
            RunnerSeat::Bot(b) => b.ask(go, allowed, margin).await,
            RunnerSeat::Failed(f) => f.ask(go, allowed, margin).await,
        }
    }
    async fn game_over(&mut self, over: &GameOver) {
        if let RunnerSeat::Bot(b) = self {
            b.game_over(over).await;
        }
    }
    fn set_clock(&mut self, clock: referee::bot::ClockMode) {
        if let RunnerSeat::Bot(b) = self {
            b.set_clock(clock);
        }
    }
    fn transcript(&self) -> Vec<String> {
        match self {
            RunnerSeat::Bot(b) => b.transcript().to_vec(),
            RunnerSeat::Failed(_) => Vec::new(),
        }
    }
    fn evidence(&self) -> Option<referee::bot::GameEvidence> {
        match self {
            RunnerSeat::Bot(b) => Some(b.evidence()),
            RunnerSeat::Failed(_) => None,
        }
    }
}

/// What the runner knows about one bot's processes.
#[derive(Debug, Default)]
struct BotState {
    idle: Vec<BotSession>,
    start_failures: u32,
    last_failure: Option<Fault>,
}

/// Shared by all game tasks.
#[derive(Debug)]
struct Shared {
    entrants: Vec<Entrant>,
    options: RunOptions,
    bots: Mutex<HashMap<usize, BotState>>,
    /// The scheduling priority every bot's processes start with (the
    /// governor's, where it may raise them).
    priority: Option<i32>,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<usize, BotState>> {
        self.bots
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    async fn acquire(&self, bot: usize) -> RunnerSeat {
        {
            let mut bots = self.lock();
            let state = bots.entry(bot).or_default();
            if let Some(session) = state.idle.pop() {
                return RunnerSeat::Bot(Box::new(session));
            }
            if state.start_failures >= MAX_START_FAILURES {
                let detail = match &state.last_failure {
                    Some(Fault::HandshakeFailure { detail }) => detail.clone(),
                    Some(other) => other.to_string(),
                    None => "it could not be started".to_string(),
                };
                return RunnerSeat::Failed(FailedSeat(Fault::HandshakeFailure {
                    detail: format!(
                        "gave up after {MAX_START_FAILURES} failed starts; last: {detail}"
                    ),
                }));
            }
        }
        let spec = &self.entrants[bot].spec;
        let mut command = spec.command.clone();
        command.priority = self.priority;
        match BotSession::start_keeping_stderr(&command, spec.dialect, self.options.handshake_limit)
            .await
        {
            Ok(session) => {
                self.lock().entry(bot).or_default().start_failures = 0;
                RunnerSeat::Bot(Box::new(session))
            }
            Err(failed) => {
                self.save_start_failure(bot, &failed);
                let fault = failed.fault;
                let mut bots = self.lock();
                let state = bots.entry(bot).or_default();
                state.start_failures += 1;
                state.last_failure = Some(fault.clone());
                RunnerSeat::Failed(FailedSeat(fault))
            }
        }
    }

    /// After a game: a bot that misbehaved is killed (its state is unknown); a good
    /// one goes back to the pool or is asked to quit.
    async fn release(&self, bot: usize, seat: RunnerSeat, misbehaved: bool) {
        let RunnerSeat::Bot(session) = seat else {
            return;
        };
        if !misbehaved
            && self.options.processes == ProcessPolicy::Reuse
            && session.dialect().reuses_process()
        {
            self.lock().entry(bot).or_default().idle.push(*session);
        } else {
            let closed = (*session).close(!misbehaved).await;
            self.save_stderr(bot, &closed);
        }
    }

    /// Appends what a process wrote to stderr (its kept tail, the last 64 KiB) to
    /// the bot's log file, which stops growing at [`STDERR_LOG_CAP`]. Best effort:
    /// logging never fails a game.
    fn save_stderr(&self, bot: usize, closed: &Closed) {
        let Some(dir) = &self.options.log_dir else {
            return;
        };
        if closed.stderr_bytes == 0 {
            return;
        }
        let tail = &closed.stderr_tail;
        let exit = closed
            .exit
            .map_or_else(|| "killed".to_string(), |e| e.to_string());
        let mut text = format!(
            "--- process {} ({exit}): {} bytes on stderr",
            closed.pid.unwrap_or(0),
            closed.stderr_bytes
        );
        if closed.stderr_bytes > tail.len() as u64 {
            text.push_str(&format!(", the last {} kept", tail.len()));
        }
        text.push_str(" ---\n");
        text.push_str(tail);
        if !text.ends_with('\n') {
            text.push('\n');
        }
        let name = &self.entrants[bot].spec.name;
        crate::results::logs::append(dir, name, &text, STDERR_LOG_CAP);
    }

    /// Appends a failed start to the bot's log, with what it wrote to stderr
    /// line by line: the games and the live feed quote it on one line, and the
    /// log is what a bot's page shows with `--show-logs`.
    fn save_start_failure(&self, bot: usize, failed: &FailedStart) {
        let Some(dir) = &self.options.log_dir else {
            return;
        };
        let mut text = format!("--- could not be started: {} ---\n", failed.what);
        text.push_str(&failed.stderr);
        if !text.ends_with('\n') {
            text.push('\n');
        }
        let name = &self.entrants[bot].spec.name;
        crate::results::logs::append(dir, name, &text, STDERR_LOG_CAP);
    }

    async fn shutdown(&self) {
        let sessions: Vec<(usize, BotSession)> = self
            .lock()
            .iter_mut()
            .flat_map(|(bot, s)| {
                s.idle
                    .drain(..)
                    .map(|session| (*bot, session))
                    .collect::<Vec<_>>()
            })
            .collect();
        let mut set = JoinSet::new();
        for (bot, session) in sessions {
            set.spawn(async move { (bot, session.close(true).await) });
        }
        while let Some(Ok((bot, closed))) = set.join_next().await {
            self.save_stderr(bot, &closed);
        }
    }
}

/// A game played, with its live files (still in place).
type Played = (
    ScheduledGame,
    Result<GameRecord, OpeningError>,
    Option<LiveGame>,
);

async fn play_one(shared: Arc<Shared>, game: ScheduledGame) -> Played {
    let mut x = shared.acquire(game.x).await;
    let mut o = shared.acquire(game.o).await;
    let spec = GameSpec {
        id: game.meta.id.clone(),
        rules: shared.options.rules,
        opening: game.opening.clone(),
        time: ByMark {
            x: shared.entrants[game.x].time,
            o: shared.entrants[game.o].time,
        },
        seeds: ByMark {
            x: mix(game.meta.seed ^ 0x58),
            o: mix(game.meta.seed ^ 0x4F),
        },
        names: ByMark {
            x: shared.entrants[game.x].spec.name.clone(),
            o: shared.entrants[game.o].spec.name.clone(),
        },
    };
    let mut live = shared
        .options
        .live_dir
        .as_ref()
        .and_then(|dir| LiveGame::start(dir, &game.meta, spec.names.clone(), spec.rules));
    let pacer = Pacer::new(shared.options.pace);
    let result = play_game_observed(
        &spec,
        &mut Paced::new(&mut x, &pacer),
        &mut Paced::new(&mut o, &pacer),
        &mut live,
    )
    .await;
    let culprit = result.as_ref().ok().and_then(|r| match r.termination {
        referee::game::Termination::Resign { .. } => None,
        ref t => t.culprit(),
    });
    shared.release(game.x, x, culprit == Some(Mark::X)).await;
    shared.release(game.o, o, culprit == Some(Mark::O)).await;
    (game, result, live)
}

/// The async runtime for `concurrency` games at once: one thread for one game (no
/// cross-thread wake-ups on the per-move path: measured about 30% less referee
/// overhead per move), otherwise one worker per game up to the number of cores.
///
/// # Errors
/// The runtime could not be created.
pub fn runtime(concurrency: usize) -> std::io::Result<tokio::runtime::Runtime> {
    if concurrency <= 1 {
        return tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build();
    }
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(concurrency.min(crate::defaults::concurrency()).max(1))
        .enable_all()
        .build()
}

/// The warning for `concurrency` games at once on `cores`, when that is more than
/// [`crate::defaults::GAMES_PER_CORE_WARNING`] games per usable core.
pub fn oversubscribed(concurrency: usize, cores: &crate::cores::Cores) -> Option<String> {
    let usable = cores.usable();
    (concurrency > crate::defaults::GAMES_PER_CORE_WARNING * usable).then(|| {
        format!(
            "{concurrency} games at once on {usable} usable core(s): games beyond the cores wait \
             for one another, so instant bots finish no sooner ({OVERSUBSCRIBED_MEASURED}) and \
             bots that think lose clock time waiting for a core. The default is one game per \
             usable core (`arena doctor` shows the reckoning)."
        )
    })
}

/// What BENCHMARKS.md measured of 16 games at once against 2 on 2 cores.
const OVERSUBSCRIBED_MEASURED: &str = "measured on 2 cores: 16 at once finished as many games \
     a second as 2 and spent 2.5x the arena's CPU per game, see BENCHMARKS.md";

/// Plays `games`, up to `options.concurrency` at once (fewer while the
/// governor says so), calling `on_finish` for each finished game in
/// completion order, and `on_governor` for what the governor does. Games are
/// taken from `games` only as slots free up, so a schedule that computes them
/// one by one is never held whole; a game the governor plays again goes
/// before them. Stops early when `interrupt` completes or `on_finish` says
/// [`Flow::Stop`]. Returns how the run ended and what the governor did.
///
/// # Errors
/// An error from `on_finish` (e.g. the results file cannot be written) stops the
/// run: running games are abandoned and every bot is killed.
pub async fn run(
    entrants: Vec<Entrant>,
    options: RunOptions,
    games: impl IntoIterator<Item = ScheduledGame>,
    mut on_finish: impl FnMut(Finished) -> anyhow::Result<Flow>,
    mut on_governor: impl FnMut(&governor::Event, GovernorStatus),
    interrupt: impl Future<Output = Interruption>,
) -> anyhow::Result<(RunEnd, governor::GovernorReport)> {
    // Also when nothing is left to play: the directories of a run killed after
    // its last game are removed by the resumed run that finds it complete.
    referee::bot::sweep_abandoned();
    if let Some(dir) = options.live_dir.as_ref().and_then(|d| d.parent()) {
        crate::results::live::remove_stale(dir);
    }
    let mut governor = Governor::new(options.governor.clone(), options.concurrency);
    let priority = governor.priority();
    let shared = Arc::new(Shared {
        entrants,
        options,
        bots: Mutex::new(HashMap::new()),
        priority,
    });
    let mut pending = games.into_iter();
    let mut again: std::collections::VecDeque<ScheduledGame> = std::collections::VecDeque::new();
    let mut running = JoinSet::new();
    let mut interrupt = std::pin::pin!(interrupt);
    let mut end = RunEnd::Complete;
    let mut failure = None;
    'run: loop {
        while running.len() < governor.allowed() {
            let Some(game) = again.pop_front().or_else(|| pending.next()) else {
                break;
            };
            if governor.should_wait(running.len()) {
                tokio::select! {
                    biased;
                    why = &mut interrupt => {
                        end = RunEnd::Interrupted(why);
                        break 'run;
                    }
                    () = governor.wait_for_machine(&mut on_governor) => {}
                }
            }
            running.spawn(play_one(shared.clone(), game));
        }
        if running.is_empty() {
            break;
        }
        tokio::select! {
            biased;
            why = &mut interrupt => {
                end = RunEnd::Interrupted(why);
                break;
            }
            joined = running.join_next() => {
                let Some(joined) = joined else { break };
                let (game, result, live) = match joined {
                    Ok(done) => done,
                    Err(e) if e.is_panic() => {
                        failure = Some(anyhow::anyhow!("a game task panicked: {e}"));
                        break;
                    }
                    Err(_) => continue,
                };
                match result {
                    Ok(record) => {
                        let seats = (game.x, game.o);
                        let judged = governor.judge(&game.meta.id, seats, &record, &mut on_governor);
                        if judged == Judgement::Replay {
                            // Not recorded: its live files go with `live`.
                            again.push_back(game);
                            continue;
                        }
                        match on_finish(Finished { game, record, live }) {
                            Ok(Flow::Continue) => {}
                            Ok(Flow::Stop) => {
                                end = RunEnd::Stopped;
                                break;
                            }
                            Err(e) => {
                                failure = Some(e);
                                break;
                            }
                        }
                    }
                    Err(e) => {
                        failure = Some(anyhow::anyhow!("game {}: {e}", game.meta.id));
                        break;
                    }
                }
            }
        }
    }
    // Abandon what is still running: dropping a task drops its bot sessions, which
    // kills their process groups.
    running.abort_all();
    while running.join_next().await.is_some() {}
    shared.shutdown().await;
    match failure {
        Some(e) => Err(e),
        None => Ok((end, governor.report().clone())),
    }
}
