//! The governor: a bot that thinks by the clock plays only when it gets the
//! CPU it was promised, so that a timed result means on a shared machine what
//! it means on an idle one (issue 50).
//!
//! The fair clock keeps an honest bot from losing on time to a loaded
//! machine; it cannot give it the CPU it did not get, and a bot that stops
//! thinking when its time is up plays weaker the less of it it ran. The
//! governor acts on that, strongest first:
//!
//! 1. **Priority.** Where the arena may raise priorities (root), every bot of
//!    a timed game starts at the highest scheduling priority
//!    ([`referee::bot::priority`]): the machine's other programs get what the
//!    games leave. Its CPU time is charged by its clock as ever.
//! 2. **Concurrency.** When the bots' moves waited for a CPU more than
//!    [`WAIT_SHARE`] of their time over the last few seconds, one game fewer
//!    is started at once, down to one; one more again (up to what was asked)
//!    once they wait less than half of it.
//! 3. **Waiting for the machine.** Where priorities cannot be raised, at one
//!    game at once, after a game whose bots were still under-served, the next
//!    game waits — at most [`MAX_WAIT`] — until the machine's CPU pressure,
//!    read while no game of the run is playing (so it is other programs'),
//!    falls below [`WAIT_SHARE`].
//! 4. **Replay.** A game in which a timed bot got less than
//!    [`MIN_SHARE`](crate::results::machine_load::MIN_SHARE) of the CPU it
//!    asked for is not recorded but played again — same seeds, opening and
//!    colours — up to [`REPLAYS`] times; the last attempt is kept whatever it
//!    got, and the verdicts that rest on such a game say so instead of
//!    concluding (exit 5).
//!
//! Games where every bot plays fixed work (`--nodes`) need none of it: the
//! governor is off for them. `--governor off` turns it off for raw speed.
//! What it did is said as it happens (the terminal, `governor.json` for the
//! live page) and counted in summary.json ([`GovernorReport`]).

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

use referee::game::GameRecord;
use uttt::rules::Mark;

pub use crate::results::governor_file::{GovernorReport, GovernorStatus};
use crate::results::machine_load::MIN_SHARE;
use crate::results::store::cpu_share;

/// The share of their move time bots may wait for a CPU before the governor
/// plays fewer games at once (and the machine's pressure above which the next
/// game waits). Measured on two cores (BENCHMARKS.md, "The governor"): an
/// idle machine's bots wait 0–6% of their move time; a loaded one's 22–87%.
pub const WAIT_SHARE: f64 = 0.10;

/// The longest one wait for the machine before a game starts anyway, unless
/// the run says otherwise (`--governor-wait`).
pub const MAX_WAIT: Duration = Duration::from_secs(60);

/// How often a game whose timed bot was under-served is played again before
/// its last attempt is kept.
pub const REPLAYS: u32 = 3;

/// How far back the bots' waits are looked at.
const WINDOW: Duration = Duration::from_secs(10);

/// Moves in the window before the concurrency is changed.
const ENOUGH_MOVES: usize = 20;

/// How often the machine's pressure is read while a game waits for it.
const POLL: Duration = Duration::from_millis(500);

/// Whether the governor acts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GovernorMode {
    /// For timed games (the default).
    #[default]
    On,
    /// Never: raw speed, results that depend on the machine's load.
    Off,
}

impl GovernorMode {
    /// Every mode with its word.
    pub const WORDS: [(&'static str, GovernorMode); 2] =
        [("on", GovernorMode::On), ("off", GovernorMode::Off)];

    /// The word for files and flags.
    pub const fn name(self) -> &'static str {
        match self {
            GovernorMode::On => "on",
            GovernorMode::Off => "off",
        }
    }
}

impl fmt::Display for GovernorMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for GovernorMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        GovernorMode::WORDS
            .iter()
            .find(|(w, _)| *w == s)
            .map(|(_, m)| *m)
            .ok_or_else(|| format!("'{s}' is not a governor mode: use on or off"))
    }
}

/// What the governor of a run is told.
#[derive(Clone, Debug)]
pub struct GovernorSettings {
    /// On or off.
    pub mode: GovernorMode,
    /// Per entrant (by index): whether it plays by the clock (no fixed work).
    pub timed: Vec<bool>,
    /// The longest one wait for the machine.
    pub max_wait: Duration,
}

impl Default for GovernorSettings {
    fn default() -> GovernorSettings {
        GovernorSettings {
            mode: GovernorMode::On,
            timed: Vec::new(),
            max_wait: MAX_WAIT,
        }
    }
}

impl GovernorSettings {
    /// Whether it acts at all: on, with a timed bot in the run.
    pub fn active(&self) -> bool {
        self.mode == GovernorMode::On && self.timed.iter().any(|&t| t)
    }
}

/// Something the governor did, for the terminal and the live page.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// Fewer games at once: the bots waited this share of their move time.
    Lowered { to: usize, waited: f64 },
    /// More games at once again.
    Raised { to: usize },
    /// The next game waits for the machine, whose CPU pressure is this share,
    /// at most this long.
    Waiting { pressure: f64, bound: Duration },
    /// It waited this long; the pressure was then this share.
    Waited { waited: Duration, pressure: f64 },
    /// A game is played again: its bot got this share of the CPU it asked for.
    Replaying {
        game: String,
        bot: String,
        share: f64,
        attempt: u32,
    },
    /// A game is kept although its bot got only this share, after the replays.
    KeptUnderServed {
        game: String,
        bot: String,
        share: f64,
    },
}

impl fmt::Display for Event {
    /// One line for the terminal, after "governor: ".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pct = |s: f64| format!("{:.0}%", 100.0 * s);
        match self {
            Event::Lowered { to, waited } => write!(
                f,
                "bots waited for a CPU {} of their move time: {to} game{} at once from now on",
                pct(*waited),
                if *to == 1 { "" } else { "s" }
            ),
            Event::Raised { to } => write!(f, "the machine has room again: {to} games at once"),
            Event::Waiting { pressure, bound } => write!(
                f,
                "other programs keep the CPUs busy ({} of the time): the next game waits for them, at most {} s",
                pct(*pressure),
                bound.as_secs()
            ),
            Event::Waited { waited, pressure } => write!(
                f,
                "waited {:.1} s for the machine (CPU pressure now {}); playing on",
                waited.as_secs_f64(),
                pct(*pressure)
            ),
            Event::Replaying {
                game,
                bot,
                share,
                attempt,
            } => write!(
                f,
                "{game}: {bot} got {} of the CPU it asked for (under {}): playing the game again ({attempt} of {REPLAYS})",
                pct(*share),
                pct(MIN_SHARE)
            ),
            Event::KeptUnderServed { game, bot, share } => write!(
                f,
                "{game}: {bot} got {} of the CPU it asked for after {REPLAYS} replays: kept, and verdicts on it will say the machine was overloaded",
                pct(*share)
            ),
        }
    }
}

/// One bot move's CPU and wait, when it was seen.
#[derive(Clone, Copy, Debug)]
struct Sample {
    at: Instant,
    cpu: f64,
    wait: f64,
}

/// Whether a finished game is recorded or played again.
#[derive(Clone, Debug, PartialEq)]
pub enum Judgement {
    /// Record it.
    Keep,
    /// Play it again: a timed bot was under-served.
    Replay,
}

/// The governor of one run (owned by the runner's loop).
#[derive(Debug)]
pub struct Governor {
    settings: GovernorSettings,
    max: usize,
    allowed: usize,
    recent: VecDeque<Sample>,
    tries: HashMap<String, u32>,
    /// Whether the last finished game had an under-served timed bot.
    last_under_served: bool,
    report: GovernorReport,
}

impl Governor {
    /// The governor of a run of `concurrency` games at once.
    pub fn new(settings: GovernorSettings, concurrency: usize) -> Governor {
        let active = settings.active();
        let max = concurrency.max(1);
        Governor {
            report: GovernorReport {
                mode: settings.mode.to_string(),
                active,
                priority_raised: active && referee::bot::priority::can_raise(),
                concurrency_asked: max,
                concurrency_lowest: max,
                ..GovernorReport::default()
            },
            settings,
            max,
            allowed: max,
            recent: VecDeque::new(),
            tries: HashMap::new(),
            last_under_served: false,
        }
    }

    /// Games to run at once now.
    pub fn allowed(&self) -> usize {
        self.allowed
    }

    /// The scheduling priority every bot of the run starts with: raised where
    /// the arena may raise it and the run is governed. A bot of fixed work is
    /// not judged by its share, but raised too: on a busy machine its moves
    /// would otherwise take many times as long, and the run with them.
    pub fn priority(&self) -> Option<i32> {
        self.report
            .priority_raised
            .then_some(referee::bot::priority::RAISED)
    }

    /// What it did so far.
    pub fn report(&self) -> &GovernorReport {
        &self.report
    }

    /// Tells `on_event` what happened, with what it is doing now.
    fn tell(&self, on_event: &mut impl FnMut(&Event, GovernorStatus), event: Event) {
        let status = self.status(&event);
        on_event(&event, status);
    }

    /// What it is doing now, after `event`, for the live page.
    pub fn status(&self, event: &Event) -> GovernorStatus {
        GovernorStatus {
            concurrency: self.allowed,
            asked: self.max,
            waiting: matches!(event, Event::Waiting { .. }),
            last: event.to_string(),
        }
    }

    /// Whether the next game must wait for the machine: one game at once, none
    /// running, the last one still under-served, and the bots not raised above
    /// other programs (when they are, those programs' own contention is what
    /// the pressure shows, and waiting for it would gain nothing).
    pub fn should_wait(&self, running: usize) -> bool {
        self.report.active
            && !self.report.priority_raised
            && running == 0
            && self.allowed == 1
            && self.last_under_served
    }

    /// Waits (at most [`MAX_WAIT`]) until other programs' CPU pressure falls
    /// below [`WAIT_SHARE`], telling `on_event` when it starts and ends. Call
    /// only when [`Governor::should_wait`]; no game of the run is playing, so
    /// the pressure read is other programs'.
    pub async fn wait_for_machine(&mut self, mut on_event: impl FnMut(&Event, GovernorStatus)) {
        let Some(mut pressure) = Pressure::read() else {
            return;
        };
        tokio::time::sleep(POLL).await;
        let Some(first) = pressure.since_last() else {
            return;
        };
        if first < WAIT_SHARE || self.settings.max_wait.is_zero() {
            return;
        }
        let bound = self.settings.max_wait;
        self.tell(
            &mut on_event,
            Event::Waiting {
                pressure: first,
                bound,
            },
        );
        let started = Instant::now();
        let mut now = first;
        while now >= WAIT_SHARE && started.elapsed() < self.settings.max_wait {
            tokio::time::sleep(POLL).await;
            now = pressure.since_last().unwrap_or(0.0);
        }
        let waited = started.elapsed();
        self.report.waits += 1;
        self.report.waited_s += waited.as_secs_f64();
        self.tell(
            &mut on_event,
            Event::Waited {
                waited,
                pressure: now,
            },
        );
    }

    /// Judges a finished game: its timed bots' shares decide whether it is
    /// kept or played again, and its moves' waits whether fewer (or more)
    /// games are played at once. Entrants `x` and `o` played it.
    pub fn judge(
        &mut self,
        id: &str,
        (x, o): (usize, usize),
        record: &GameRecord,
        mut on_event: impl FnMut(&Event, GovernorStatus),
    ) -> Judgement {
        if !self.report.active {
            return Judgement::Keep;
        }
        let timed = |bot: usize| self.settings.timed.get(bot).copied().unwrap_or(false);
        let seats = [(Mark::X, timed(x)), (Mark::O, timed(o))];
        self.sample(record, |mark| seats.iter().any(|&(m, t)| m == mark && t));
        self.adjust(&mut on_event);
        let worst = [(Mark::X, x), (Mark::O, o)]
            .into_iter()
            .filter(|&(_, bot)| self.settings.timed.get(bot).copied().unwrap_or(false))
            .filter_map(|(mark, _)| cpu_share(record, mark).map(|s| (mark, s)))
            .filter(|&(_, share)| share < MIN_SHARE)
            .min_by(|a, b| a.1.total_cmp(&b.1));
        self.last_under_served = worst.is_some();
        let Some((mark, share)) = worst else {
            self.tries.remove(id);
            return Judgement::Keep;
        };
        let bot = record.names.get(mark).clone();
        let tries = self.tries.entry(id.to_string()).or_insert(0);
        if *tries < REPLAYS {
            *tries += 1;
            let attempt = *tries;
            self.report.replays += 1;
            self.tell(
                &mut on_event,
                Event::Replaying {
                    game: id.to_string(),
                    bot,
                    share,
                    attempt,
                },
            );
            Judgement::Replay
        } else {
            self.tries.remove(id);
            self.report.kept_under_served += 1;
            self.tell(
                &mut on_event,
                Event::KeptUnderServed {
                    game: id.to_string(),
                    bot,
                    share,
                },
            );
            Judgement::Keep
        }
    }

    /// Adds the measured moves of `record`'s timed seats (`timed`) to the
    /// window, forgetting the old ones: a bot of fixed work waiting for a CPU
    /// changes no result, so it lowers no concurrency.
    fn sample(&mut self, record: &GameRecord, timed: impl Fn(Mark) -> bool) {
        let now = Instant::now();
        for m in record
            .moves
            .iter()
            .skip(record.opening_plies)
            .filter(|m| timed(m.mark))
        {
            if let Some(measured) = m.usage.and_then(|u| u.measured) {
                self.recent.push_back(Sample {
                    at: now,
                    cpu: measured.cpu.as_secs_f64(),
                    wait: measured.wait.as_secs_f64(),
                });
            }
        }
        while self
            .recent
            .front()
            .is_some_and(|s| now.duration_since(s.at) > WINDOW)
        {
            self.recent.pop_front();
        }
    }

    /// One game fewer at once when the window's bots waited more than
    /// [`WAIT_SHARE`] of their time; one more when less than half of it.
    fn adjust(&mut self, on_event: &mut impl FnMut(&Event, GovernorStatus)) {
        if self.recent.len() < ENOUGH_MOVES {
            return;
        }
        let (cpu, wait) = self
            .recent
            .iter()
            .fold((0.0, 0.0), |(c, w), s| (c + s.cpu, w + s.wait));
        if cpu + wait <= 0.0 {
            return;
        }
        let waited = wait / (cpu + wait);
        if waited > WAIT_SHARE {
            // Judged: the next decision is on moves played after it.
            self.recent.clear();
        }
        if waited > WAIT_SHARE && self.allowed > 1 {
            self.allowed -= 1;
            self.report.concurrency_lowest = self.report.concurrency_lowest.min(self.allowed);
            self.recent.clear();
            self.tell(
                on_event,
                Event::Lowered {
                    to: self.allowed,
                    waited,
                },
            );
        } else if waited < WAIT_SHARE / 2.0 && self.allowed < self.max {
            self.allowed += 1;
            self.recent.clear();
            self.tell(on_event, Event::Raised { to: self.allowed });
        }
    }
}

/// The machine's CPU pressure (PSI, `/proc/pressure/cpu`'s "some" line: the
/// share of time at least one task waited for a CPU), read as the growth of
/// its total between two readings.
#[derive(Debug)]
struct Pressure {
    total_us: u64,
    at: Instant,
}

impl Pressure {
    /// The counter now; `None` where the kernel has no PSI.
    fn read() -> Option<Pressure> {
        Some(Pressure {
            total_us: some_total_us(&std::fs::read_to_string("/proc/pressure/cpu").ok()?)?,
            at: Instant::now(),
        })
    }

    /// The share of time since the last reading that a task waited for a CPU.
    fn since_last(&mut self) -> Option<f64> {
        let now = Pressure::read()?;
        let elapsed = now.at.duration_since(self.at).as_secs_f64();
        let grown = now.total_us.saturating_sub(self.total_us) as f64 / 1e6;
        *self = now;
        (elapsed > 0.0).then(|| (grown / elapsed).clamp(0.0, 1.0))
    }
}

/// The `total=` of the "some" line of `/proc/pressure/cpu` text, in µs.
fn some_total_us(text: &str) -> Option<u64> {
    text.lines()
        .find(|l| l.starts_with("some "))?
        .split_whitespace()
        .find_map(|field| field.strip_prefix("total="))?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pressure_total_is_read_from_psi_text() {
        let text = "some avg10=16.97 avg60=14.36 avg300=5.72 total=21584099\n\
                    full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
        assert_eq!(some_total_us(text), Some(21_584_099));
        assert_eq!(some_total_us("full avg10=0 total=5\n"), None);
        assert_eq!(some_total_us("some avg10=1 total=x\n"), None);
    }

    #[test]
    fn modes_round_trip_their_words() {
        for (word, mode) in GovernorMode::WORDS {
            assert_eq!(word.parse::<GovernorMode>(), Ok(mode));
            assert_eq!(mode.to_string(), word);
        }
        assert_eq!(
            "maybe".parse::<GovernorMode>(),
            Err("'maybe' is not a governor mode: use on or off".to_string())
        );
    }

    use referee::bot::{Measured, Usage};
    use referee::game::{MoveRecord, Termination};
    use uttt::rules::{ByMark, Position, Rules};

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// A game whose moves alternate X, O with these (cpu, wait, wall) ms.
    fn record(moves: &[(u64, u64, u64)]) -> GameRecord {
        let mut pos = Position::new(Rules::STANDARD);
        let mut played = Vec::new();
        for &(cpu, wait, wall) in moves {
            let square = pos.legal_moves().into_iter().next().expect("a legal move");
            let after = pos.play(square).expect("legal");
            let mut m = MoveRecord::new(&pos, &after, square, Some(ms(wall)), None);
            m.usage = Some(Usage {
                measured: Some(Measured {
                    cpu: ms(cpu),
                    ahead: Duration::ZERO,
                    wait: ms(wait),
                    late: Duration::ZERO,
                    whole: true,
                }),
                charged: ms(cpu),
            });
            played.push(m);
            pos = after;
        }
        GameRecord {
            id: "G0001".into(),
            names: ByMark {
                x: "timed".into(),
                o: "fixed".into(),
            },
            rules: Rules::STANDARD,
            opening_plies: 0,
            moves: played,
            winner: None,
            termination: Termination::Resign { by: Mark::X },
            position: pos,
            duration: ms(1),
            seeds: ByMark::default(),
            transcripts: ByMark::default(),
            evidence: ByMark::default(),
        }
    }

    fn governor(mode: GovernorMode, concurrency: usize) -> Governor {
        Governor::new(
            GovernorSettings {
                mode,
                // Entrant 0 plays by the clock, entrant 1 at fixed work.
                timed: vec![true, false],
                max_wait: MAX_WAIT,
            },
            concurrency,
        )
    }

    #[test]
    fn a_share_is_the_cpu_over_the_time_asked_for_capped_at_the_wall() {
        // X: 80 ms of CPU, 20 ms waited, each move: 0.8.
        let r = record(&[(80, 20, 100), (1, 0, 1), (80, 20, 100), (1, 0, 1)]);
        assert!(cpu_share(&r, Mark::X).is_some_and(|s| (s - 0.8).abs() < 1e-9));
        assert_eq!(cpu_share(&r, Mark::O), None, "an instant bot has none");
        // Four threads on two cores waiting for each other: 200 ms of CPU,
        // 200 ms waited, over 100 ms of wall time: it had its CPU and more.
        let r = record(&[(200, 200, 100), (1, 0, 1)]);
        assert_eq!(cpu_share(&r, Mark::X), Some(1.0));
    }

    #[test]
    fn an_under_served_game_is_played_again_then_kept_and_said() {
        let mut g = governor(GovernorMode::On, 1);
        let starved = record(&[(30, 70, 100), (1, 0, 1), (30, 70, 100), (1, 0, 1)]);
        let mut events = Vec::new();
        for attempt in 1..=REPLAYS {
            let judged = g.judge("G0001", (0, 1), &starved, |e, _| events.push(e.clone()));
            assert_eq!(judged, Judgement::Replay, "attempt {attempt}");
        }
        let judged = g.judge("G0001", (0, 1), &starved, |e, _| events.push(e.clone()));
        assert_eq!(judged, Judgement::Keep, "the last attempt is kept");
        assert_eq!(g.report().replays, REPLAYS);
        assert_eq!(g.report().kept_under_served, 1);
        assert!(matches!(
            events.last(),
            Some(Event::KeptUnderServed { bot, .. }) if bot == "timed"
        ));
        assert!(events.first().is_some_and(|e| e.to_string().starts_with(
            "G0001: timed got 30% of the CPU it asked for (under 80%): playing the game again (1 of 3)"
        )));
        // A served game is kept at once, and another game's tries are its own.
        let served = record(&[(90, 5, 100), (1, 0, 1)]);
        assert_eq!(
            g.judge("G0002", (0, 1), &served, |_, _| {}),
            Judgement::Keep
        );
        assert_eq!(
            g.judge("G0003", (0, 1), &starved, |_, _| {}),
            Judgement::Replay
        );
    }

    #[test]
    fn a_bot_at_fixed_work_is_never_the_reason_for_a_replay() {
        let mut g = governor(GovernorMode::On, 1);
        // The starved side is O, entrant 1: fixed work.
        let r = record(&[(1, 0, 1), (30, 70, 100), (1, 0, 1), (30, 70, 100)]);
        assert_eq!(g.judge("G0001", (0, 1), &r, |_, _| {}), Judgement::Keep);
        let mut off = governor(GovernorMode::Off, 1);
        let starved = record(&[(30, 70, 100), (1, 0, 1)]);
        assert_eq!(
            off.judge("G0001", (0, 1), &starved, |_, _| {}),
            Judgement::Keep
        );
        assert_eq!(off.report().replays, 0);
    }

    #[test]
    fn waiting_bots_lower_the_games_at_once_and_served_ones_raise_them_again() {
        let mut g = governor(GovernorMode::On, 3);
        let mut events = Vec::new();
        // 20 moves waiting 30% of their time: one game fewer at once.
        let waiting: Vec<(u64, u64, u64)> = (0..20).map(|_| (70, 30, 100)).collect();
        let _ = g.judge("G0001", (0, 0), &record(&waiting), |e, _| {
            events.push(e.clone())
        });
        assert_eq!(g.allowed(), 2);
        let _ = g.judge("G0002", (0, 0), &record(&waiting), |e, _| {
            events.push(e.clone())
        });
        let _ = g.judge("G0003", (0, 0), &record(&waiting), |e, _| {
            events.push(e.clone())
        });
        assert_eq!(g.allowed(), 1, "never below one");
        assert_eq!(g.report().concurrency_lowest, 1);
        assert!(matches!(events.first(), Some(Event::Lowered { to: 2, .. })));
        let served: Vec<(u64, u64, u64)> = (0..20).map(|_| (99, 1, 100)).collect();
        let _ = g.judge("G0004", (0, 0), &record(&served), |e, _| {
            events.push(e.clone())
        });
        assert_eq!(g.allowed(), 2);
        assert!(matches!(events.last(), Some(Event::Raised { to: 2 })));
        for id in ["G0005", "G0006"] {
            let _ = g.judge(id, (0, 0), &record(&served), |e, _| events.push(e.clone()));
        }
        assert_eq!(g.allowed(), 3, "never above what was asked");
    }

    #[test]
    fn a_bot_at_fixed_work_waiting_lowers_nothing() {
        let mut g = governor(GovernorMode::On, 2);
        // X (timed) served, O (fixed work) waiting half its time, 40 moves.
        let moves: Vec<(u64, u64, u64)> = (0..40)
            .map(|i| {
                if i % 2 == 0 {
                    (99, 1, 100)
                } else {
                    (50, 50, 100)
                }
            })
            .collect();
        let mut events = Vec::new();
        for id in ["G0001", "G0002"] {
            let judged = g.judge(id, (0, 1), &record(&moves), |e, _| events.push(e.clone()));
            assert_eq!(judged, Judgement::Keep);
        }
        assert_eq!(g.allowed(), 2, "{events:?}");
        assert!(events.is_empty(), "{events:?}");
        // The same waits on the timed side: one game fewer.
        let _ = g.judge("G0003", (1, 0), &record(&moves), |_, _| {});
        assert_eq!(g.allowed(), 1);
    }

    #[test]
    fn it_acts_only_on_with_a_timed_bot() {
        let settings = |mode, timed: Vec<bool>| GovernorSettings {
            mode,
            timed,
            max_wait: MAX_WAIT,
        };
        assert!(
            !governor(GovernorMode::On, 2).should_wait(0),
            "nothing under-served yet"
        );
        assert!(settings(GovernorMode::On, vec![true, false]).active());
        assert!(!settings(GovernorMode::On, vec![false, false]).active());
        assert!(!settings(GovernorMode::Off, vec![true, true]).active());
    }
}
