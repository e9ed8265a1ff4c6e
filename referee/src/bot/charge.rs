//! Which time a move is charged: the clock modes and their one rule.
//!
//! A wall clock charges a bot for the machine's load: on two cores beside busy
//! neighbours a bot that thinks 80 ms can see 300 ms pass while it waits in the
//! run queue. The fair clock charges the wall time minus the time the bot's
//! tasks were runnable but not running, and never less than the CPU time of
//! **everything the bot ran**: every thread and process it started, those that
//! have exited and those that left its process tree included (its cgroup's
//! `cpu.stat`, see [`ClockSupport`]), during the move and since its previous
//! reply ([`Measured::ahead`]: work done on the opponent's time is charged to
//! the next move). That floor is what makes the rule safe:
//!
//! - a bot that hides its work in helpers (double-forked out of its tree,
//!   or children that live a few milliseconds) is charged their CPU time,
//!   whatever its own process does meanwhile (a `sched_yield` loop reads as
//!   "waiting for a CPU");
//! - a bot may use threads, and every thread's CPU time is charged: one
//!   thread busy for 80 ms costs 80 ms, two busy for 80 ms at once cost
//!   160 ms. A bot is promised one CPU's worth of time, not one CPU each for
//!   as many threads as it starts (they would take the CPUs of the other
//!   games);
//! - waiting is forgiven only where the machine caused it: while a bot's own
//!   tasks outnumber the CPUs they may use and wait for each other, those
//!   CPUs are busy with the bot, so that time is in its CPU time, which is
//!   charged in full. Forgiven wait can never take a charge below it.
//!
//! The referee's own lateness is measured, not estimated ([`Measured::late`]):
//! the time from the clock's start to the request's write, and the wait for a
//! CPU of the thread that reads the bot's output between the reply's arrival
//! and its reading (a thread that wakes for nothing else, so its run-queue
//! wait over that one wake-up is exactly how long the reply sat unread; see
//! `reader`). It is subtracted only from the time the bot was neither running
//! nor waiting for a CPU (when the reply can have been waiting to be read), so
//! it can never hide CPU time, and a bot that sleeps past its limit is charged
//! its sleep however loaded the machine is, less at most one overlap: a wait
//! of the bot for a CPU after it wrote its reply, while the reply waited to be
//! read, counts in both (at most the lateness, and only when the bot ran again
//! before the reply was read).
//!
//! The tree's counters are read when the reply is read (by the reading
//! thread, so they end where the wall time does), and a move starts only once
//! the bot is no longer runnable (bounded), so a wait that began before the
//! move is not counted in it. The CPU clock charges the same CPU time alone
//! (Botzone's rule): sleeping is free.
//!
//! Without a cgroup per bot the CPU time of exited and escaped tasks cannot be
//! counted, and a clock that charges by counters could be fooled: `auto` then
//! uses the wall clock ([`ClockSupport::auto`]), `fair` and `cpu` are refused
//! ([`ClockSupport::refusal`]), and a bot that could not be given a group is
//! charged by the wall clock whatever the run's clock ([`Usage::charge`]).
//!
//! Every clock keeps a wall-clock ceiling ([`ceiling`]), so a starved host or a
//! sleeping bot under the CPU clock cannot hold a game forever.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use super::schedstat;
pub use super::schedstat::Measured;

/// How a move's time is charged against the limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClockMode {
    /// Wall time minus the time the bot waited for a CPU and the referee's
    /// measured lateness, at least its CPU time (capped at the wall time).
    Fair,
    /// Wall time from the request to the reply's newline.
    Wall,
    /// CPU time of the bot's whole process tree (every thread counted).
    Cpu,
}

impl ClockMode {
    /// Every mode, in the order help text lists them.
    pub const ALL: [ClockMode; 3] = [ClockMode::Fair, ClockMode::Wall, ClockMode::Cpu];

    /// The word for files and flags.
    pub const fn name(self) -> &'static str {
        match self {
            ClockMode::Fair => "fair",
            ClockMode::Wall => "wall",
            ClockMode::Cpu => "cpu",
        }
    }

    /// What `auto` means on this host ([`ClockSupport::auto`]).
    pub fn auto() -> ClockMode {
        ClockSupport::detect().auto()
    }
}

/// What this host can measure for the clocks that charge by counters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClockSupport {
    /// Per-task schedstat: each task's CPU time and run-queue wait (the fair
    /// clock's forgiven wait).
    pub waits: bool,
    /// A cgroup v2 group per bot whose `cpu.stat` counts every task that was
    /// ever in it, or why there is none here (with the fix).
    pub whole_cpu: Result<(), String>,
}

impl ClockSupport {
    /// What this host gives (read once per process).
    pub fn detect() -> ClockSupport {
        ClockSupport {
            waits: schedstat::available(),
            whole_cpu: super::sandbox::cgroup::accounting()
                .map(|_| ())
                .map_err(str::to_string),
        }
    }

    /// The clock `auto` uses: the fair clock where every process a bot starts
    /// is counted and waits are measured, else the wall clock (which counts
    /// nothing a bot can hide).
    pub fn auto(&self) -> ClockMode {
        if self.waits && self.whole_cpu.is_ok() {
            ClockMode::Fair
        } else {
            ClockMode::Wall
        }
    }

    /// Why `mode` cannot time bots here without being fooled, if it cannot.
    pub fn refusal(&self, mode: ClockMode) -> Option<String> {
        match (mode, &self.whole_cpu) {
            (ClockMode::Wall, _) => None,
            (_, Err(why)) => Some(format!(
                "the {mode} clock charges a bot the CPU time of every process it starts, which needs a cgroup v2 group per bot (its cpu.stat counts processes that have exited or left the bot's tree), and none can be made here: {why}"
            )),
            (ClockMode::Fair, Ok(())) if !self.waits => Some(
                "the fair clock needs per-task schedstat (/proc/PID/task/TID/schedstat), which this machine does not give".into(),
            ),
            _ => None,
        }
    }

    /// What the clock `auto` uses guarantees here, in a few words for the
    /// run's banner and `arena doctor`: its name, then why.
    pub fn guarantee(&self) -> String {
        self.words(self.auto())
    }

    /// What `mode` guarantees here: its name, then what it charges (for
    /// the wall clock where `auto` fell back to it, why).
    pub fn words(&self, mode: ClockMode) -> String {
        match mode {
            ClockMode::Fair => "fair: a bot is charged the CPU time of every process it starts, those that exit or leave its tree included (a cgroup per bot), never its wait for a CPU".into(),
            ClockMode::Cpu => "cpu: a bot is charged the CPU time of every process it starts, those that exit or leave its tree included (a cgroup per bot), and nothing else".into(),
            ClockMode::Wall => match (self.auto(), &self.whole_cpu) {
                (ClockMode::Fair, _) => "wall: a move is charged its wall time, waits for a CPU included".into(),
                (_, Err(why)) => format!(
                    "wall: no cgroup per bot here ({why}), so processes a bot hides could not be counted: a move is charged its wall time, waits for a CPU included"
                ),
                (_, Ok(())) => "wall: no per-task schedstat here, so a bot's wait for a CPU cannot be told from its thinking: a move is charged its wall time".into(),
            },
        }
    }
}

impl fmt::Display for ClockMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How moves are charged, as a user writes it: `auto` (the fair clock where
/// this host can measure it, else the wall clock) or one clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockChoice {
    /// [`ClockMode::auto`].
    Auto,
    /// This clock, or a refusal to run where it cannot measure.
    Mode(ClockMode),
}

impl ClockChoice {
    /// Every choice with its word, in the order help and messages list them.
    pub const WORDS: [(&'static str, ClockChoice); 4] = [
        ("auto", ClockChoice::Auto),
        ("fair", ClockChoice::Mode(ClockMode::Fair)),
        ("wall", ClockChoice::Mode(ClockMode::Wall)),
        ("cpu", ClockChoice::Mode(ClockMode::Cpu)),
    ];
}

impl FromStr for ClockChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ClockChoice::WORDS
            .iter()
            .find(|(w, _)| *w == s)
            .map(|(_, c)| *c)
            .ok_or_else(|| format!("'{s}' is not a clock: use auto, fair, wall or cpu"))
    }
}

/// A word that names no clock mode.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a clock: use fair, wall or cpu")]
pub struct UnknownClock(pub String);

impl FromStr for ClockMode {
    type Err = UnknownClock;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ClockMode::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| UnknownClock(s.to_string()))
    }
}

/// How many times the limit (plus margin) a move may take by the wall clock
/// under the fair and CPU clocks before it is a timeout whatever it was charged.
pub const CEILING_FACTOR: u32 = 10;
/// The ceiling is at least this much above the limit plus margin: on two
/// cores shared with a dozen busy tasks a bot gets a few per cent of a core,
/// and 80 ms of thinking takes two or three seconds.
pub const CEILING_FLOOR: Duration = Duration::from_secs(5);

/// The wall time after which a move is a timeout under `mode`, for a limit
/// (allowed time plus margin) of `limit`: the limit itself for the wall clock,
/// else [`CEILING_FACTOR`] times it, and at least [`CEILING_FLOOR`] more.
pub fn ceiling(mode: ClockMode, limit: Duration) -> Duration {
    match mode {
        ClockMode::Wall => limit,
        ClockMode::Fair | ClockMode::Cpu => limit
            .saturating_mul(CEILING_FACTOR)
            .max(limit.saturating_add(CEILING_FLOOR)),
    }
}

/// How a move's time was spent and what it was charged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Usage {
    /// What the scheduler counted, when the host can measure it.
    pub measured: Option<Measured>,
    /// What the move cost against the limit under the run's clock.
    pub charged: Duration,
}

impl Usage {
    /// A move measured by the wall clock alone (a seat that is no process).
    pub fn wall_only(wall: Duration) -> Usage {
        Usage {
            measured: None,
            charged: wall,
        }
    }

    /// The move's time under `mode`, from `wall` and what was `measured`.
    /// Without counters, or without the bot's whole CPU time (no cgroup: what
    /// it hides in exited or escaped processes is missing), every mode
    /// charges the wall time.
    pub fn charge(mode: ClockMode, wall: Duration, measured: Option<Measured>) -> Usage {
        let charged = match (mode, measured) {
            (ClockMode::Wall, _) | (_, None) => wall,
            (_, Some(m)) if !m.whole => wall,
            (ClockMode::Fair, Some(m)) => fair(wall, m),
            (ClockMode::Cpu, Some(m)) => m.cpu_charged(),
        };
        Usage { measured, charged }
    }
}

/// The fair clock's charge: wall time less the bot's wait for a CPU and less
/// the referee's lateness (at most the time the bot was neither running nor
/// waiting), never below the CPU time of everything the bot ran during the
/// move and since its previous reply ([`Measured::cpu_charged`]), which may
/// exceed the wall time (threads and helpers running at once).
pub fn fair(wall: Duration, m: Measured) -> Duration {
    let idle = wall.saturating_sub(m.cpu).saturating_sub(m.wait);
    let charged = wall.saturating_sub(m.wait).saturating_sub(m.late.min(idle));
    charged.max(m.cpu_charged())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn measured(cpu: u64, wait: u64, late: u64) -> Option<Measured> {
        Some(Measured {
            cpu: ms(cpu),
            ahead: Duration::ZERO,
            wait: ms(wait),
            late: ms(late),
            whole: true,
        })
    }

    #[test]
    fn a_bot_that_waited_for_a_cpu_is_charged_its_thinking() {
        let u = Usage::charge(ClockMode::Fair, ms(360), measured(80, 275, 3));
        assert_eq!(u.charged, ms(82));
        // Lateness is taken only from the time the bot was idle.
        let u = Usage::charge(ClockMode::Fair, ms(360), measured(80, 275, 30));
        assert_eq!(u.charged, ms(80));
        assert_eq!(
            Usage::charge(ClockMode::Wall, ms(360), measured(80, 275, 3)).charged,
            ms(360)
        );
        assert_eq!(
            Usage::charge(ClockMode::Cpu, ms(360), measured(80, 275, 3)).charged,
            ms(80)
        );
    }

    #[test]
    fn a_sleeper_is_charged_its_sleep_except_by_the_cpu_clock() {
        let u = Usage::charge(ClockMode::Fair, ms(150), measured(1, 0, 10));
        assert_eq!(u.charged, ms(140), "the reply was read 10 ms late");
        // However late the reply was read, the sleep itself stays charged:
        // the wall time counts the lateness once, and it is taken once.
        let u = Usage::charge(ClockMode::Fair, ms(150 + 400), measured(1, 0, 400));
        assert_eq!(u.charged, ms(150));
        assert_eq!(
            Usage::charge(ClockMode::Cpu, ms(150), measured(1, 0, 0)).charged,
            ms(1)
        );
    }

    #[test]
    fn waiting_threads_cannot_hide_cpu_time() {
        // Eight busy threads on two cores: the waits sum to more than the wall.
        let u = Usage::charge(ClockMode::Fair, ms(200), measured(400, 1200, 0));
        assert_eq!(u.charged, ms(400), "every thread's CPU time is charged");
        let u = Usage::charge(ClockMode::Fair, ms(200), measured(150, 1200, 0));
        assert_eq!(u.charged, ms(150));
    }

    #[test]
    fn a_main_process_that_yields_beside_busy_helpers_is_charged_the_helpers() {
        // 1500 ms of wall time, its own process runnable all along (wait
        // 1490 ms), helpers busy on two cores: 3000 ms of the group's CPU.
        let u = Usage::charge(ClockMode::Fair, ms(1500), measured(3000, 1490, 0));
        assert_eq!(u.charged, ms(3000));
        assert_eq!(
            Usage::charge(ClockMode::Cpu, ms(1500), measured(3000, 1490, 0)).charged,
            ms(3000)
        );
    }

    #[test]
    fn work_done_since_the_previous_reply_is_charged_to_the_move() {
        let m = Measured {
            cpu: ms(5),
            ahead: ms(140),
            wait: Duration::ZERO,
            late: Duration::ZERO,
            whole: true,
        };
        assert_eq!(
            Usage::charge(ClockMode::Fair, ms(6), Some(m)).charged,
            ms(145)
        );
        assert_eq!(
            Usage::charge(ClockMode::Cpu, ms(6), Some(m)).charged,
            ms(145)
        );
        assert_eq!(
            Usage::charge(ClockMode::Wall, ms(6), Some(m)).charged,
            ms(6)
        );
    }

    #[test]
    fn without_the_whole_cpu_time_the_counters_are_not_trusted() {
        let mut m = measured(10, 290, 0).expect("some");
        m.whole = false;
        for mode in ClockMode::ALL {
            assert_eq!(Usage::charge(mode, ms(300), Some(m)).charged, ms(300));
        }
    }

    #[test]
    fn auto_is_fair_only_where_every_process_is_counted() {
        let support = |waits: bool, whole: bool| ClockSupport {
            waits,
            whole_cpu: if whole { Ok(()) } else { Err("no v2".into()) },
        };
        assert_eq!(support(true, true).auto(), ClockMode::Fair);
        assert_eq!(support(true, false).auto(), ClockMode::Wall);
        assert_eq!(support(false, true).auto(), ClockMode::Wall);
        assert!(
            support(true, false)
                .refusal(ClockMode::Cpu)
                .is_some_and(|w| w.contains("no v2"))
        );
        assert!(support(true, false).refusal(ClockMode::Fair).is_some());
        assert_eq!(support(false, true).refusal(ClockMode::Cpu), None);
        assert!(support(false, true).refusal(ClockMode::Fair).is_some());
        assert_eq!(support(false, false).refusal(ClockMode::Wall), None);
        assert!(
            support(true, false)
                .guarantee()
                .starts_with("wall: no cgroup per bot here")
        );
        assert!(support(true, true).guarantee().starts_with("fair: "));
    }

    #[test]
    fn without_counters_every_clock_is_the_wall() {
        for mode in ClockMode::ALL {
            assert_eq!(Usage::charge(mode, ms(123), None).charged, ms(123));
        }
    }

    #[test]
    fn the_ceiling_is_ten_times_and_five_seconds_more_at_least() {
        assert_eq!(ceiling(ClockMode::Wall, ms(150)), ms(150));
        assert_eq!(ceiling(ClockMode::Fair, ms(150)), ms(5150));
        assert_eq!(ceiling(ClockMode::Cpu, ms(20)), ms(5020));
        assert_eq!(ceiling(ClockMode::Fair, ms(1000)), ms(10_000));
        assert_eq!(ceiling(ClockMode::Fair, ms(5000)), ms(50_000));
    }

    #[test]
    fn modes_round_trip_their_words() {
        for mode in ClockMode::ALL {
            assert_eq!(mode.name().parse::<ClockMode>(), Ok(mode));
        }
        assert_eq!(
            "auto".parse::<ClockMode>().map_err(|e| e.to_string()),
            Err("'auto' is not a clock: use fair, wall or cpu".to_string())
        );
    }
}
