//! The one input both front ends produce: the command line's flags (in
//! `commands`) and a tournament file's keys (in [`super::super::config`]). Every
//! value is already of its type and range-checked, with where it was written
//! ([`Source`]) so that [`super::validate`] can name the flag, or the file and
//! line, in a message. The command line replaces a file's values by
//! [`Input::merged`], never by writing into the file's structures.

use crate::tournament::governor::GovernorMode;
use std::path::PathBuf;
use std::time::Duration;

use referee::bot::sandbox::SandboxMode;
use uttt::rules::Rules;

use super::bot::BotInput;
use super::builds::{OnBuildFailure, OnPreflightFailure, SubmissionCap};
use crate::audience::Audience;
use crate::millis::{ClockMs, HandshakeMs, IncrementMs, MarginMs, MoveMs, PaceMs};
use crate::results::manifest::ProcessPolicy;

/// Where a value was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// On the command line, as this flag (or argument).
    Flag(&'static str),
    /// In the tournament file, on this line (1-based).
    Line(usize),
    /// Chosen by the command itself, not by the user.
    Command,
}

/// A value and where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Given<T> {
    /// The value, of its type and in its range.
    pub value: T,
    /// Where it was written.
    pub source: Source,
}

impl<T> Given<T> {
    /// `value`, written at `source`.
    pub const fn new(value: T, source: Source) -> Given<T> {
        Given { value, source }
    }

    /// `value`, as the flag `flag` gave it.
    pub const fn flag(value: T, flag: &'static str) -> Given<T> {
        Given::new(value, Source::Flag(flag))
    }
}

/// The time a run is played under, as written: each part with where it was
/// written, absent where nothing was.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimeInput {
    /// Time per move (`--time`, `move-ms`).
    pub move_ms: Option<Given<MoveMs>>,
    /// Time for a bot's first move of a game (`--first-time`, `first-move-ms`).
    pub first_move_ms: Option<Given<MoveMs>>,
    /// Forgiven overrun (`--margin`, `margin-ms`).
    pub margin_ms: Option<Given<MarginMs>>,
    /// A game clock per bot (`--clock`, `clock-ms`).
    pub clock_ms: Option<Given<ClockMs>>,
    /// Added to the clock after each move (`--increment`, `increment-ms`).
    pub increment_ms: Option<Given<IncrementMs>>,
    /// Fixed work per move (`--nodes`, `[limits] nodes`).
    pub nodes: Option<Given<u64>>,
    /// How moves are charged (`--clock fair|wall|cpu|auto`, `[time] clock`).
    pub clock_mode: Option<Given<ClockChoice>>,
}

pub use referee::bot::charge::ClockChoice;

impl TimeInput {
    /// Exactly these times, as a command fixes them for itself (`arena check`'s
    /// steps, `arena rate`'s levels, the benchmarks).
    pub fn fixed(move_ms: MoveMs, first_ms: MoveMs, margin: MarginMs) -> TimeInput {
        TimeInput {
            move_ms: Some(Given::new(move_ms, Source::Command)),
            first_move_ms: Some(Given::new(first_ms, Source::Command)),
            margin_ms: Some(Given::new(margin, Source::Command)),
            ..TimeInput::default()
        }
    }

    /// These values, with `over`'s in place where it has them: the command line
    /// over a file.
    #[must_use]
    pub fn merged(self, over: TimeInput) -> TimeInput {
        TimeInput {
            move_ms: over.move_ms.or(self.move_ms),
            first_move_ms: over.first_move_ms.or(self.first_move_ms),
            margin_ms: over.margin_ms.or(self.margin_ms),
            clock_ms: over.clock_ms.or(self.clock_ms),
            increment_ms: over.increment_ms.or(self.increment_ms),
            nodes: over.nodes.or(self.nodes),
            clock_mode: over.clock_mode.or(self.clock_mode),
        }
    }
}

/// The formats a file's `format` names (their parameters are keys of their own).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatKind {
    /// `round-robin`.
    RoundRobin,
    /// `gauntlet`, with `challenger` (on the command line: the first bot).
    Gauntlet,
    /// `swiss`, with `rounds`.
    Swiss,
    /// `knockout`, with `tiebreak-pairs`.
    Knockout,
}

/// Who plays whom, and how often, as written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EventInput {
    /// The format [default: round robin].
    pub format: Option<Given<FormatKind>>,
    /// A gauntlet's challenger by name (a file's; the command line's is its
    /// first bot).
    pub challenger: Option<Given<String>>,
    /// A Swiss's rounds.
    pub rounds: Option<Given<u32>>,
    /// A knockout's tie-break pairs.
    pub tiebreak_pairs: Option<Given<u32>>,
    /// A results directory whose ratings seed a Swiss or knockout.
    pub seeding: Option<Given<PathBuf>>,
    /// Games per pairing.
    pub games: Option<Given<u32>>,
    /// A gauntlet's pass mark: the least share of the points (0 to 1) the
    /// challenger must score, else the run fails (exit 1).
    pub min_score: Option<Given<f64>>,
}

/// Where openings come from, as written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpeningsInput {
    /// Random plies before each pair.
    pub random_plies: Option<Given<u32>>,
    /// An opening book's path (relative to the current directory, or to the
    /// tournament file's).
    pub book: Option<Given<PathBuf>>,
}

/// Every bot's limits, as written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LimitsInput {
    /// Memory in MiB; from the command line it also replaces every bot's own.
    pub memory_mb: Option<Given<u64>>,
    /// CPU seconds.
    pub cpu_seconds: Option<u64>,
    /// Largest file written, in MiB.
    pub file_size_mb: Option<u64>,
    /// Open files.
    pub open_files: Option<u64>,
    /// Processes and threads.
    pub processes: Option<u64>,
}

/// How the run is shown, as written (`[display]`, `--pace`, `--audience`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DisplayInput {
    /// The least time a move stays on screen.
    pub pace_ms: Option<Given<PaceMs>>,
    /// Who the words at the end are for.
    pub audience: Option<Given<Audience>>,
}

/// One bot as written, with what a tournament file may add to it.
#[derive(Clone, Debug, PartialEq)]
pub struct BotEntry {
    /// The bot.
    pub bot: BotInput,
    /// Where it was written: its name's place, else its command's.
    pub source: Source,
    /// Where its command was written, for messages about it.
    pub command_source: Source,
    /// Where its protocol was written, if it was.
    pub protocol_source: Option<Source>,
    /// Where its `dir` was written, if it has one.
    pub dir_source: Option<Source>,
    /// From a glob of submissions: a problem leaves it out instead of stopping
    /// the run.
    pub submitted: bool,
    /// Its build step (`build`).
    pub build: Option<Given<String>>,
    /// Its share of the time (`time-odds`: 0.5 is half).
    pub time_odds: Option<Given<f64>>,
    /// Its own time control, instead of the run's (`arena rate`'s levels).
    pub time: Option<TimeInput>,
    /// Its own sandbox mode.
    pub sandbox: Option<SandboxMode>,
    /// Its own memory in MiB.
    pub memory_mb: Option<u64>,
    /// Its own CPU seconds.
    pub cpu_seconds: Option<u64>,
    /// Files it may also read in the sandbox (existing paths).
    pub read_only: Vec<PathBuf>,
}

impl BotEntry {
    /// `bot`, as the command line gives it (`flag`: its argument's name).
    pub fn from_flag(bot: BotInput, flag: &'static str) -> BotEntry {
        BotEntry {
            bot,
            source: Source::Flag(flag),
            command_source: Source::Flag(flag),
            protocol_source: None,
            dir_source: None,
            submitted: false,
            build: None,
            time_odds: None,
            time: None,
            sandbox: None,
            memory_mb: None,
            cpu_seconds: None,
            read_only: Vec::new(),
        }
    }
}

/// Everything a run's settings are made from, as written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Input {
    /// The tournament file the values were read from (as named to the user),
    /// for messages about the whole file.
    pub file: Option<String>,
    /// Where relative paths start: the file's directory, else the current one.
    pub base_dir: PathBuf,
    /// The run's name (a file's `name`; a command's own).
    pub name: Option<String>,
    /// The seed.
    pub seed: Option<u64>,
    /// The rules [default: standard].
    pub rules: Option<Given<Rules>>,
    /// Who plays whom.
    pub event: EventInput,
    /// The time control.
    pub time: TimeInput,
    /// Openings.
    pub openings: OpeningsInput,
    /// Every bot's limits.
    pub limits: LimitsInput,
    /// The sandbox mode of every bot without one of its own (a file's `sandbox`).
    pub sandbox: Option<Given<SandboxMode>>,
    /// The sandbox mode of every bot, its own replaced when the bots are
    /// isolated (`--sandbox`).
    pub sandbox_override: Option<SandboxMode>,
    /// Time to start and answer the handshake.
    pub handshake: Option<HandshakeMs>,
    /// Process reuse.
    pub processes: Option<ProcessPolicy>,
    /// Games at once.
    pub concurrency: Option<usize>,
    /// Whether the governor keeps timed bots served.
    pub governor: Option<Given<GovernorMode>>,
    /// The longest the governor makes a game wait for the machine, in seconds.
    pub governor_wait_s: Option<u64>,
    /// The results directory.
    pub out: Option<PathBuf>,
    /// Let foreign dialects play rules they cannot be told.
    pub allow_unannounced_rules: Option<Given<bool>>,
    /// Let a submission (a bot from a glob) run a built-in engine or `arena`
    /// itself (`allow-builtin`; refused by default: a student's bot.toml
    /// could otherwise submit the reference engine as its own).
    pub allow_builtin: Option<bool>,
    /// What a failed build does.
    pub on_build_failure: Option<OnBuildFailure>,
    /// How long one build may run.
    pub build_limit: Option<Duration>,
    /// What a submission that cannot start does.
    pub on_preflight_failure: Option<OnPreflightFailure>,
    /// The most a submission's folder may hold (`submission-max-mb`,
    /// `submission-max-files`; the defaults where unwritten).
    pub submission_cap: Option<SubmissionCap>,
    /// Bots left out by hand, by name (`--exclude`).
    pub exclude: Vec<Given<String>>,
    /// How the run is shown.
    pub display: DisplayInput,
    /// The bots, in order; bots the file left out with why (a glob's empty
    /// directories).
    pub bots: Vec<BotEntry>,
    /// Submissions of a glob that hold no bot, with why.
    pub left_out: Vec<super::builds::LeftOut>,
    /// Hidden directories a glob passed over (reported, not played).
    pub hidden: Vec<PathBuf>,
    /// A league's `[league]` table (`arena league`), if the file has one.
    pub league: Option<LeagueInput>,
}

impl Input {
    /// These values, with `over`'s in place where it has them, and its bots
    /// after these: the command line (`over`) over a tournament file.
    #[must_use]
    pub fn merged(self, over: Input) -> Input {
        let e = (self.event, over.event);
        let o = (self.openings, over.openings);
        let l = (self.limits, over.limits);
        let mut bots = self.bots;
        bots.extend(over.bots);
        let mut left_out = self.left_out;
        left_out.extend(over.left_out);
        let mut hidden = self.hidden;
        hidden.extend(over.hidden);
        let mut exclude = self.exclude;
        exclude.extend(over.exclude);
        Input {
            file: self.file.or(over.file),
            base_dir: self.base_dir,
            name: over.name.or(self.name),
            seed: over.seed.or(self.seed),
            rules: over.rules.or(self.rules),
            event: EventInput {
                format: e.1.format.or(e.0.format),
                challenger: e.1.challenger.or(e.0.challenger),
                rounds: e.1.rounds.or(e.0.rounds),
                tiebreak_pairs: e.1.tiebreak_pairs.or(e.0.tiebreak_pairs),
                seeding: e.1.seeding.or(e.0.seeding),
                games: e.1.games.or(e.0.games),
                min_score: e.1.min_score.or(e.0.min_score),
            },
            time: self.time.merged(over.time),
            openings: OpeningsInput {
                random_plies: o.1.random_plies.or(o.0.random_plies),
                book: o.1.book.or(o.0.book),
            },
            limits: LimitsInput {
                memory_mb: l.1.memory_mb.or(l.0.memory_mb),
                cpu_seconds: l.1.cpu_seconds.or(l.0.cpu_seconds),
                file_size_mb: l.1.file_size_mb.or(l.0.file_size_mb),
                open_files: l.1.open_files.or(l.0.open_files),
                processes: l.1.processes.or(l.0.processes),
            },
            sandbox: over.sandbox.or(self.sandbox),
            sandbox_override: over.sandbox_override.or(self.sandbox_override),
            handshake: over.handshake.or(self.handshake),
            processes: over.processes.or(self.processes),
            concurrency: over.concurrency.or(self.concurrency),
            governor: over.governor.or(self.governor),
            governor_wait_s: over.governor_wait_s.or(self.governor_wait_s),
            out: over.out.or(self.out),
            allow_unannounced_rules: over
                .allow_unannounced_rules
                .or(self.allow_unannounced_rules),
            allow_builtin: over.allow_builtin.or(self.allow_builtin),
            on_build_failure: over.on_build_failure.or(self.on_build_failure),
            build_limit: over.build_limit.or(self.build_limit),
            on_preflight_failure: over.on_preflight_failure.or(self.on_preflight_failure),
            submission_cap: over.submission_cap.or(self.submission_cap),
            exclude,
            display: DisplayInput {
                pace_ms: over.display.pace_ms.or(self.display.pace_ms),
                audience: over.display.audience.or(self.display.audience),
            },
            bots,
            left_out,
            hidden,
            league: over.league.or(self.league),
        }
    }
}

/// Who a student's version plays (`mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LeagueMode {
    /// Only the reference levels: a grade independent of the classmates.
    #[default]
    Levels,
    /// Only the classmates: a ladder, no grade against the levels.
    Peers,
    /// Both; the grade still uses only the levels' games.
    Mixed,
}

impl LeagueMode {
    /// Whether the students play the levels.
    pub fn plays_levels(self) -> bool {
        matches!(self, LeagueMode::Levels | LeagueMode::Mixed)
    }

    /// Whether the students play each other.
    pub fn plays_peers(self) -> bool {
        matches!(self, LeagueMode::Peers | LeagueMode::Mixed)
    }

    /// Its word.
    pub fn word(self) -> &'static str {
        match self {
            LeagueMode::Levels => "levels",
            LeagueMode::Peers => "peers",
            LeagueMode::Mixed => "mixed",
        }
    }
}

/// The `[league]` table as written, each value with its line.
#[derive(Clone, Debug, PartialEq)]
pub struct LeagueInput {
    /// Where the table starts.
    pub source: Source,
    /// `mode`.
    pub mode: Option<Given<LeagueMode>>,
    /// `levels = ["level2", "level4"]`.
    pub levels: Option<Given<Vec<String>>>,
    /// `pass = "level4"`.
    pub pass: Option<Given<String>>,
    /// `pass-score = 0.5`.
    pub pass_score: Option<Given<f64>>,
    /// `similarity-threshold = 0.6`.
    pub similarity_threshold: Option<Given<f64>>,
    /// `max-games = 20`: the most games against one level.
    pub max_games: Option<Given<u32>>,
    /// `starter = "starter/"`: the code the class was given (absolute).
    pub starter: Option<Given<std::path::PathBuf>>,
    /// `level-grades = [20, 40, 60, 80, 100]`: the grade for each level.
    pub level_grades: Option<Given<Vec<f64>>>,
    /// `no-level-grade = 0`: the grade without a level.
    pub no_level_grade: Option<Given<f64>>,
}
