//! Tournament configuration files (TOML): parsed with serde, then validated into a
//! [`Tournament`] before any process starts. Every error names the file, the line
//! and the fix.
//!
//! The format, with every key, is documented in configs/default.toml and the README.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use referee::bot::ResourceLimits;
use referee::bot::sandbox::SandboxMode;
use referee::dialect::Dialect;
use referee::game::{GameClock, TimeControl};
use serde::Deserialize;
use toml::Spanned;
use uttt::rules::Rules;

use super::bot_spec::{BotSpec, Resolver, mib_to_bytes, sanitize_name};
use super::build::{BuildStep, LeftOut, OnBuildFailure};
use super::entrant::{Entrant, opening_refused_message, unannounced_rules_message};
use super::format::{Drawn, Format};
use super::openings::{BookFileError, Openings, read_book_file};
use super::prepare::RunSpec;
use super::runner::RunOptions;
use super::submissions::{self, Found};
use crate::defaults;
use crate::millis::{ClockMs, HandshakeMs, IncrementMs, MarginMs, Millis, MoveMs};
use crate::results::live::LIVE_DIR;
use crate::results::manifest::{IsolationReport, ProcessPolicy};

/// The embedded default tournament: the built-in ladder.
pub const DEFAULT_CONFIG: &str = include_str!("../../../configs/default.toml");

/// The file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawConfig {
    name: Option<Spanned<String>>,
    seed: Option<u64>,
    rules: Option<Spanned<String>>,
    format: Option<Spanned<String>>,
    challenger: Option<Spanned<String>>,
    rounds: Option<Spanned<i64>>,
    tiebreak_pairs: Option<Spanned<i64>>,
    seeding: Option<Spanned<String>>,
    games: Option<Spanned<i64>>,
    concurrency: Option<Spanned<i64>>,
    out: Option<String>,
    processes: Option<Spanned<String>>,
    handshake_ms: Option<Spanned<i64>>,
    allow_unannounced_rules: Option<bool>,
    sandbox: Option<Spanned<String>>,
    on_build_failure: Option<Spanned<String>>,
    build_seconds: Option<Spanned<i64>>,
    #[serde(default)]
    time: RawTime,
    #[serde(default)]
    openings: RawOpenings,
    #[serde(default)]
    limits: RawLimits,
    #[serde(default, rename = "bot")]
    bots: Vec<RawBot>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawTime {
    move_ms: Option<Spanned<i64>>,
    first_move_ms: Option<Spanned<i64>>,
    margin_ms: Option<Spanned<i64>>,
    clock_ms: Option<Spanned<i64>>,
    increment_ms: Option<Spanned<i64>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawOpenings {
    random_plies: Option<Spanned<i64>>,
    file: Option<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawLimits {
    memory_mb: Option<Spanned<i64>>,
    cpu_seconds: Option<Spanned<i64>>,
    file_size_mb: Option<Spanned<i64>>,
    open_files: Option<Spanned<i64>>,
    processes: Option<Spanned<i64>>,
    nodes: Option<Spanned<i64>>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawBot {
    name: Option<Spanned<String>>,
    command: Option<Spanned<String>>,
    glob: Option<Spanned<String>>,
    build: Option<Spanned<String>>,
    #[serde(default)]
    args: Vec<String>,
    dir: Option<Spanned<String>>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    protocol: Option<Spanned<String>>,
    time_odds: Option<Spanned<f64>>,
    sandbox: Option<Spanned<String>>,
    memory_mb: Option<Spanned<i64>>,
    cpu_seconds: Option<Spanned<i64>>,
    read_only: Option<Spanned<Vec<String>>>,
}

/// A validated tournament.
#[derive(Clone, Debug)]
pub struct Tournament {
    /// Its name (used in the default output directory).
    pub name: String,
    /// The tournament seed, if fixed by the file.
    pub seed: Option<u64>,
    /// Rules of every game.
    pub rules: Rules,
    /// Who plays whom.
    pub format: Format,
    /// Games per pairing (even: colour-swapped pairs).
    pub games: u32,
    /// Games at once, if fixed by the file.
    pub concurrency: Option<usize>,
    /// Output directory, if fixed by the file.
    pub out: Option<PathBuf>,
    /// Process reuse.
    pub processes: ProcessPolicy,
    /// Handshake limit.
    pub handshake: Duration,
    /// Openings.
    pub openings: Openings,
    /// The bots with their time controls.
    pub entrants: Vec<Entrant>,
    /// The base time control (before time odds), for display.
    pub time: TimeControl,
    /// The build steps, by bot name: run before the first game
    /// ([`super::build`]).
    pub builds: BTreeMap<String, BuildStep>,
    /// Each bot's command as written (`protocol:` prefix and args included),
    /// by name: what its author types to run it (`arena check "…"` in its dir).
    pub written: BTreeMap<String, String>,
    /// Bots of a glob that cannot take part, with why (reported, not played).
    pub left_out: Vec<LeftOut>,
    /// What a failed build does to the run.
    pub on_build_failure: OnBuildFailure,
    /// How long one build step may run.
    pub build_limit: Duration,
}

impl Tournament {
    /// Caps every bot's memory at `mib` MiB when given (`--memory-mb` overrides the
    /// file).
    pub fn limit_memory(&mut self, mib: Option<u64>) {
        if let Some(mib) = mib {
            for entrant in &mut self.entrants {
                let limits = &mut entrant.spec.command.limits;
                *limits = limits.with_memory(mib_to_bytes(mib));
            }
        }
    }

    /// How the tournament is identified for `tournament.json` and resuming, run
    /// `concurrency` games at once with the bots isolated as `isolation` says:
    /// with the file's seed, no results directory, no shard and no `--force` (the
    /// command line may set them).
    pub fn run_spec<'a>(
        &'a self,
        concurrency: usize,
        isolation: &'a IsolationReport,
    ) -> RunSpec<'a> {
        RunSpec {
            name: &self.name,
            entrants: &self.entrants,
            rules: self.rules,
            format: self.format.clone(),
            games_per_pairing: self.games,
            openings: &self.openings,
            seed: self.seed,
            out: None,
            shard: None,
            batch: None,
            concurrency,
            processes: self.processes,
            force: false,
            isolation,
        }
    }

    /// How the games are played: `concurrency` at once, the bots' stderr kept in
    /// `out/logs`.
    pub fn run_options(&self, concurrency: usize, out: &Path, preflight: bool) -> RunOptions {
        RunOptions {
            concurrency,
            processes: self.processes,
            handshake_limit: self.handshake,
            rules: self.rules,
            log_dir: Some(out.join("logs")),
            live_dir: Some(out.join(LIVE_DIR)),
            preflight,
        }
    }

    /// The names of the bots, in the file's order.
    pub fn names(&self) -> Vec<&str> {
        self.entrants.iter().map(|e| e.spec.name.as_str()).collect()
    }

    /// How many games the run plays (at least, for a knockout's tie-breaks),
    /// and how, in words.
    ///
    /// # Errors
    /// The schedule cannot be made (too large).
    pub fn event_games(&self, seed: u64) -> Result<(u64, String), String> {
        let n = self.entrants.len();
        let g = self.games;
        match self.format {
            Format::Drawn(drawn) => {
                let games = drawn.games_at_least(n, g);
                Ok((
                    games,
                    match drawn {
                        Drawn::Swiss { rounds } => {
                            format!("swiss, {rounds} rounds of {} pairings x {g} games", n / 2)
                        }
                        Drawn::Knockout { tiebreak_pairs } => format!(
                            "knockout, {} matches of {g} games (and up to {tiebreak_pairs} tie-break pairs each)",
                            n.saturating_sub(1)
                        ),
                    },
                ))
            }
            _ => {
                let plan = super::schedule::Plan {
                    bots: n,
                    format: self.format.clone(),
                    games_per_pairing: g,
                    openings: super::openings::Openings::None,
                    rules: self.rules,
                    seed,
                };
                let schedule =
                    super::schedule::Schedule::new(plan, None).map_err(|e| e.to_string())?;
                let games = schedule.total();
                let pairings = games / u64::from(g.max(1));
                let what = match self.format {
                    Format::Gauntlet { .. } => "gauntlet",
                    _ => "round robin",
                };
                Ok((games, format!("{what}, {pairings} pairings x {g} games")))
            }
        }
    }

    /// Leaves the bot `name` out of the run, for `why` (a failed build): the
    /// format's bot indices follow.
    ///
    /// # Errors
    /// The bot is the gauntlet's challenger: without it there is no gauntlet.
    pub fn leave_out(&mut self, name: &str, why: String) -> Result<(), String> {
        let Some(index) = self.entrants.iter().position(|e| e.spec.name == name) else {
            return Ok(());
        };
        if let Format::Gauntlet { challenger } = &mut self.format {
            match index.cmp(challenger) {
                std::cmp::Ordering::Equal => {
                    return Err(format!(
                        "the challenger '{name}' cannot take part ({why}): there is no gauntlet without it"
                    ));
                }
                std::cmp::Ordering::Less => *challenger -= 1,
                std::cmp::Ordering::Greater => {}
            }
        }
        self.entrants.remove(index);
        self.builds.remove(name);
        self.left_out.push(LeftOut {
            name: name.to_string(),
            why,
        });
        Ok(())
    }
}

/// A configuration error: where and what.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}: {message}", line.map_or_else(String::new, |l| format!(":{l}")))]
pub struct ConfigError {
    /// The file.
    pub file: String,
    /// 1-based line, when the error is about one (not about the whole file).
    pub line: Option<usize>,
    /// What is wrong and how to fix it.
    pub message: String,
}

struct Source<'a> {
    file: &'a str,
    text: &'a str,
}

impl Source<'_> {
    fn line_of(&self, offset: usize) -> usize {
        self.text[..offset.min(self.text.len())]
            .matches('\n')
            .count()
            + 1
    }

    /// An error at `span`; an empty span at 0 is a value from the command line
    /// ([`Overrides`]), which has no line in the file.
    fn err(&self, span: Option<Range<usize>>, message: impl Into<String>) -> ConfigError {
        let span = span.filter(|s| *s != (0..0));
        let message = message.into();
        ConfigError {
            file: self.file.to_string(),
            line: span.as_ref().map(|s| self.line_of(s.start)),
            message,
        }
    }

    /// A time in milliseconds, checked by its type (the command line's bounds).
    fn millis<const MIN: u64, const MAX: u64>(
        &self,
        value: &Option<Spanned<i64>>,
        key: &str,
    ) -> Result<Option<Millis<MIN, MAX>>, ConfigError> {
        let Some(v) = value else { return Ok(None) };
        Millis::try_from(*v.get_ref())
            .map(Some)
            .map_err(|e| self.err(Some(v.span()), format!("{key} = {e}")))
    }

    /// A `memory-mb` value, in the range `--memory-mb` takes.
    fn memory_mb(&self, value: &Option<Spanned<i64>>) -> Result<Option<u64>, ConfigError> {
        let range = &defaults::MEMORY_MB;
        let bound = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        self.count(
            value,
            "memory-mb",
            bound(*range.start()),
            bound(*range.end()),
        )
    }

    fn count<T: TryFrom<i64>>(
        &self,
        value: &Option<Spanned<i64>>,
        key: &str,
        min: i64,
        max: i64,
    ) -> Result<Option<T>, ConfigError> {
        let Some(v) = value else { return Ok(None) };
        let n = *v.get_ref();
        if n < min || n > max {
            return Err(self.err(
                Some(v.span()),
                format!("{key} = {n} is out of range: use a whole number from {min} to {max}"),
            ));
        }
        Ok(T::try_from(n).ok())
    }
}

/// Values of the command line that replace the file's (`arena tournament
/// --games 4 --time 200 --rounds 5 --bot mine="python3 bot.py"`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    /// `games`.
    pub games: Option<u32>,
    /// `[time] move-ms`.
    pub move_ms: Option<u64>,
    /// `rounds`.
    pub rounds: Option<u32>,
    /// More bots: `NAME=CMD`, as typed.
    pub bots: Vec<String>,
    /// `[limits] nodes`.
    pub nodes: Option<u64>,
}

impl Overrides {
    /// Puts the values into the file as read; an error names the flag.
    fn apply(&self, raw: &mut RawConfig) -> Result<(), String> {
        // Spans of values from the command line point nowhere in the file.
        let flag = |v: i64| Some(Spanned::new(0..0, v));
        if let Some(games) = self.games {
            if games == 0 || games % 2 == 1 {
                return Err(format!(
                    "--games {games}: games are played in colour-swapped pairs: use an even number from 2"
                ));
            }
            raw.games = flag(i64::from(games));
        }
        if let Some(ms) = self.move_ms {
            raw.time.move_ms = flag(i64::try_from(ms).unwrap_or(i64::MAX));
        }
        if let Some(rounds) = self.rounds {
            raw.rounds = flag(i64::from(rounds));
        }
        if let Some(nodes) = self.nodes {
            raw.limits.nodes = flag(i64::try_from(nodes).unwrap_or(i64::MAX));
        }
        for bot in &self.bots {
            let Some((name, command)) = bot
                .split_once('=')
                .filter(|(n, c)| !n.is_empty() && !c.is_empty())
            else {
                return Err(format!(
                    "--bot '{bot}': write NAME=COMMAND, e.g. --bot mine=\"python3 my_bot.py\""
                ));
            };
            raw.bots.push(RawBot {
                name: Some(Spanned::new(0..0, name.to_string())),
                command: Some(Spanned::new(0..0, command.to_string())),
                ..RawBot::default()
            });
        }
        Ok(())
    }
}

/// Reads and validates a configuration file. Bot commands are resolved relative to
/// the file's directory (or each bot's `dir`).
///
/// # Errors
/// [`ConfigError`] naming the file and line.
pub fn load(path: &Path, arena_exe: &Path) -> Result<Tournament, ConfigError> {
    load_with(path, arena_exe, &Overrides::default())
}

/// [`load`], with values of the command line in place of the file's.
///
/// # Errors
/// [`ConfigError`] naming the file and line (or the flag).
pub fn load_with(
    path: &Path,
    arena_exe: &Path,
    overrides: &Overrides,
) -> Result<Tournament, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
        file: path.display().to_string(),
        line: None,
        message: format!("cannot read the file: {e}"),
    })?;
    // Editors on Windows may start the file with a byte-order mark; TOML has no use
    // for it.
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let base = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let base = std::fs::canonicalize(&base).unwrap_or(base);
    parse_with(
        &path.display().to_string(),
        text,
        &base,
        arena_exe,
        overrides,
    )
}

/// Parses and validates configuration text. `base_dir` is where relative paths
/// start.
///
/// # Errors
/// [`ConfigError`] naming `file` and the line.
pub fn parse(
    file: &str,
    text: &str,
    base_dir: &Path,
    arena_exe: &Path,
) -> Result<Tournament, ConfigError> {
    parse_with(file, text, base_dir, arena_exe, &Overrides::default())
}

/// [`parse`], with values of the command line in place of the file's.
///
/// # Errors
/// [`ConfigError`] naming `file` and the line (or the flag).
pub fn parse_with(
    file: &str,
    text: &str,
    base_dir: &Path,
    arena_exe: &Path,
    overrides: &Overrides,
) -> Result<Tournament, ConfigError> {
    let src = Source { file, text };
    let mut raw: RawConfig = toml::from_str(text).map_err(|e| {
        let message = e.message().trim().replace('\n', " ");
        let message = if message.starts_with("unknown field") {
            format!(
                "{} (check the spelling; every key is listed in configs/default.toml)",
                crate::suggest::unknown_field(&message)
            )
        } else {
            message
        };
        src.err(e.span(), message)
    })?;
    overrides.apply(&mut raw).map_err(|m| src.err(None, m))?;

    let rules = match &raw.rules {
        Some(r) => r
            .get_ref()
            .parse::<Rules>()
            .map_err(|e| src.err(Some(r.span()), crate::suggest::rules_error(&e)))?,
        None => Rules::STANDARD,
    };
    let games = src
        .count::<u32>(&raw.games, "games", 1, 1_000_000)?
        .unwrap_or(defaults::GAMES_PER_PAIRING);
    if games % 2 == 1 {
        let span = raw.games.as_ref().map(Spanned::span);
        return Err(src.err(span, format!(
            "games = {games} is odd, but games are played in colour-swapped pairs: use {} or {}",
            games - 1,
            games + 1
        ).replace("use 0 or", "use")));
    }
    let max_concurrency = i64::try_from(defaults::MAX_CONCURRENCY).unwrap_or(i64::MAX);
    let concurrency = src.count::<usize>(&raw.concurrency, "concurrency", 1, max_concurrency)?;
    let handshake = src
        .millis::<1, 600_000>(&raw.handshake_ms, "handshake-ms")?
        .map_or(defaults::HANDSHAKE.duration(), HandshakeMs::duration);
    let processes = match raw
        .processes
        .as_ref()
        .map(|p| (p.get_ref().as_str(), p.span()))
    {
        None | Some(("reuse", _)) => ProcessPolicy::Reuse,
        Some(("per-game", _)) => ProcessPolicy::PerGame,
        Some((other, span)) => {
            return Err(src.err(
                Some(span),
                format!("processes = \"{other}\": use \"reuse\" or \"per-game\""),
            ));
        }
    };

    let t = &raw.time;
    let move_ms: Option<MoveMs> = src.millis(&t.move_ms, "move-ms")?;
    let clock_ms: Option<ClockMs> = src.millis(&t.clock_ms, "clock-ms")?;
    let first_move_ms: Option<MoveMs> = src.millis(&t.first_move_ms, "first-move-ms")?;
    let margin_ms: Option<MarginMs> = src.millis(&t.margin_ms, "margin-ms")?;
    let time = TimeControl {
        move_time: match (move_ms, clock_ms) {
            (None, None) => Some(defaults::MOVE_TIME.duration()),
            (m, _) => m.map(MoveMs::duration),
        },
        first_move_time: first_move_ms.map(MoveMs::duration),
        margin: margin_ms.map_or(defaults::MARGIN.duration(), MarginMs::duration),
        clock: clock_ms.map(|c| GameClock {
            initial: c.duration(),
            increment: Duration::ZERO,
        }),
        nodes: src.count::<u64>(
            &raw.limits.nodes,
            "nodes",
            1,
            i64::try_from(defaults::MAX_NODES).unwrap_or(i64::MAX),
        )?,
    };
    let increment: Option<IncrementMs> = src.millis(&t.increment_ms, "increment-ms")?;
    let time = match (time.clock, increment) {
        (Some(clock), Some(inc)) => TimeControl {
            clock: Some(GameClock {
                increment: inc.duration(),
                ..clock
            }),
            ..time
        },
        (None, Some(_)) => {
            return Err(src.err(
                t.increment_ms.as_ref().map(Spanned::span),
                "increment-ms needs a game clock: add clock-ms",
            ));
        }
        _ => time,
    };

    let openings = match (&raw.openings.random_plies, &raw.openings.file) {
        (Some(_), Some(f)) => {
            return Err(src.err(
                Some(f.span()),
                "choose one kind of opening: random-plies or file, not both",
            ));
        }
        (Some(_), None) => Openings::RandomPlies(
            src.count::<u32>(
                &raw.openings.random_plies,
                "random-plies",
                0,
                i64::from(defaults::MAX_RANDOM_PLIES),
            )?
            .unwrap_or(0),
        ),
        (None, Some(f)) => Openings::Book(book(&src, f, base_dir, rules)?),
        (None, None) => Openings::None,
    };

    let l = &raw.limits;
    let mib = |v: Option<u64>| v.map(mib_to_bytes);
    let defaults = ResourceLimits::default();
    let memory = mib(src.memory_mb(&l.memory_mb)?);
    let limits = ResourceLimits {
        memory: memory.or(defaults.memory),
        address_space: memory,
        cpu_seconds: src.count::<u64>(&l.cpu_seconds, "cpu-seconds", 1, 1 << 30)?,
        file_size: mib(src.count::<u64>(&l.file_size_mb, "file-size-mb", 1, 1 << 20)?)
            .or(defaults.file_size),
        open_files: src
            .count::<u64>(&l.open_files, "open-files", 16, 1 << 20)?
            .or(defaults.open_files),
        processes: src
            .count::<u64>(&l.processes, "processes", 1, 1 << 20)?
            .or(defaults.processes),
    };
    let sandbox = sandbox_mode(&src, raw.sandbox.as_ref())?.unwrap_or_default();

    let on_build_failure = match raw
        .on_build_failure
        .as_ref()
        .map(|p| (p.get_ref().as_str(), p.span()))
    {
        None | Some(("leave-out", _)) => OnBuildFailure::LeaveOut,
        Some(("stop", _)) => OnBuildFailure::Stop,
        Some((other, span)) => {
            return Err(src.err(
                Some(span),
                format!("on-build-failure = \"{other}\": use \"leave-out\" or \"stop\""),
            ));
        }
    };
    let build_limit = src
        .count::<u64>(&raw.build_seconds, "build-seconds", 1, 86_400)?
        .map_or(defaults::BUILD_LIMIT, Duration::from_secs);

    let (expanded, mut left_out) = expand_globs(&src, &raw.bots, base_dir)?;
    let mut entrants: Vec<Entrant> = Vec::new();
    let mut spans: Vec<Option<Range<usize>>> = Vec::new();
    let mut builds = BTreeMap::new();
    let mut written = BTreeMap::new();
    for (raw_bot, submitted) in &expanded {
        let made = bot(&src, raw_bot, base_dir, arena_exe, (limits, sandbox), time);
        let (entrant, line) = match made {
            Ok(made) => made,
            // A student's bot.toml naming a missing interpreter is the student's
            // to fix: the others still play.
            Err(e) if *submitted => {
                left_out.push(LeftOut {
                    name: raw_bot
                        .name
                        .as_ref()
                        .map_or_else(String::new, |n| n.get_ref().clone()),
                    why: e.message,
                });
                continue;
            }
            Err(e) => return Err(e),
        };
        if *submitted && entrants.iter().any(|e| e.spec.name == entrant.spec.name) {
            left_out.push(LeftOut {
                name: entrant.spec.name.clone(),
                why: format!(
                    "another bot is already named '{}': rename the directory",
                    entrant.spec.name
                ),
            });
            continue;
        }
        if let Some(other) = entrants.iter().find(|e| e.spec.name == entrant.spec.name) {
            let span = raw_bot
                .name
                .as_ref()
                .or(raw_bot.command.as_ref())
                .map(Spanned::span);
            return Err(src.err(
                span,
                format!(
                    "two bots are named '{}': give each a distinct name = \"…\"",
                    other.spec.name
                ),
            ));
        }
        written.insert(entrant.spec.name.clone(), line);
        if let Some(build) = &raw_bot.build {
            let source = entrant
                .spec
                .command
                .working_dir
                .clone()
                .unwrap_or_else(|| base_dir.to_path_buf());
            builds.insert(
                entrant.spec.name.clone(),
                BuildStep {
                    command: build.get_ref().clone(),
                    source,
                },
            );
        }
        spans.push(
            raw_bot
                .protocol
                .as_ref()
                .or(raw_bot.command.as_ref())
                .map(Spanned::span),
        );
        entrants.push(entrant);
    }
    if entrants.len() < 2 {
        let also = if left_out.is_empty() {
            String::new()
        } else {
            format!(
                " ({} left out: {})",
                left_out.len(),
                left_out
                    .iter()
                    .map(|l| format!("{}: {}", l.name, l.why))
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        };
        return Err(src.err(None, format!(
            "a tournament needs at least 2 bots, found {}{also}: add [[bot]] tables with a command (e.g. command = \"mcts\"), or a glob of submission directories",
            entrants.len()
        )));
    }

    if !raw.allow_unannounced_rules.unwrap_or(false)
        && let Some((i, e)) = entrants
            .iter()
            .enumerate()
            .find(|(_, e)| !e.spec.dialect.can_express(rules))
    {
        return Err(src.err(
            spans[i].clone(),
            unannounced_rules_message(
                &e.spec.name,
                e.spec.dialect,
                rules,
                "allow-unannounced-rules = true",
            ),
        ));
    }

    if openings.has_moves()
        && let Some((i, e)) = entrants
            .iter()
            .enumerate()
            .find(|(_, e)| !e.spec.dialect.can_start_from_opening())
    {
        // `spans` follows the entrants (globs expanded, bots left out dropped);
        // `raw.bots` does not.
        let span = spans[i].clone();
        let what = if raw.openings.file.is_some() {
            "[openings] file"
        } else {
            "[openings] random-plies"
        };
        return Err(src.err(
            span,
            opening_refused_message(&e.spec.name, e.spec.dialect, what),
        ));
    }

    let format = match raw
        .format
        .as_ref()
        .map(|f| (f.get_ref().as_str(), f.span()))
    {
        None | Some(("round-robin", _)) => {
            if let Some(c) = &raw.challenger {
                return Err(src.err(
                    Some(c.span()),
                    "challenger only applies to format = \"gauntlet\"",
                ));
            }
            Format::RoundRobin
        }
        Some(("gauntlet", span)) => {
            let Some(c) = &raw.challenger else {
                return Err(src.err(
                    Some(span),
                    "format = \"gauntlet\" needs challenger = \"<bot name>\"",
                ));
            };
            let index = entrants
                .iter()
                .position(|e| e.spec.name == *c.get_ref())
                .ok_or_else(|| {
                    let names: Vec<&str> = entrants.iter().map(|e| e.spec.name.as_str()).collect();
                    src.err(
                        Some(c.span()),
                        format!(
                            "challenger '{}' is not a bot here: choose one of {}",
                            c.get_ref(),
                            names.join(", ")
                        ),
                    )
                })?;
            Format::Gauntlet { challenger: index }
        }
        Some(("swiss", _)) => {
            let bots = u32::try_from(entrants.len()).unwrap_or(u32::MAX);
            let rounds = src
                .count::<u32>(&raw.rounds, "rounds", 1, 10_000)?
                .unwrap_or_else(|| default_swiss_rounds(bots));
            Format::Drawn(Drawn::Swiss { rounds })
        }
        Some(("knockout", _)) => {
            let tiebreak_pairs = src
                .count::<u32>(&raw.tiebreak_pairs, "tiebreak-pairs", 0, 100)?
                .unwrap_or(defaults::TIEBREAK_PAIRS);
            Format::Drawn(Drawn::Knockout { tiebreak_pairs })
        }
        Some((other, span)) => {
            return Err(src.err(
                Some(span),
                format!("format = \"{other}\": use \"round-robin\", \"gauntlet\", \"swiss\" or \"knockout\""),
            ));
        }
    };
    let only_for = |key: &Option<Spanned<i64>>, name: &str, format: &str, fits: bool| match key {
        Some(k) if !fits => Err(src.err(
            Some(k.span()),
            format!("{name} only applies to format = \"{format}\""),
        )),
        _ => Ok(()),
    };
    only_for(
        &raw.rounds,
        "rounds",
        "swiss",
        matches!(format, Format::Drawn(Drawn::Swiss { .. })),
    )?;
    only_for(
        &raw.tiebreak_pairs,
        "tiebreak-pairs",
        "knockout",
        matches!(format, Format::Drawn(Drawn::Knockout { .. })),
    )?;
    if let Some(seeding) = &raw.seeding {
        if !matches!(format, Format::Drawn(_)) {
            return Err(src.err(
                Some(seeding.span()),
                "seeding only applies to format = \"swiss\" or \"knockout\"",
            ));
        }
        let dir = base_dir.join(seeding.get_ref());
        let elo = crate::results::store::read_games(&dir.join(crate::results::store::GAMES_FILE))
            .and_then(|rows| crate::results::standings::elo_by_name(&rows))
            .map_err(|e| {
                src.err(
                    Some(seeding.span()),
                    format!(
                        "seeding = \"{}\": cannot rate the bots of {}: {e} (name a results directory of an earlier run)",
                        seeding.get_ref(),
                        dir.display()
                    ),
                )
            })?;
        seed_by_rating(&mut entrants, &elo);
    }
    if let (Format::Drawn(_), Some(c)) = (&format, &raw.challenger) {
        return Err(src.err(
            Some(c.span()),
            "challenger only applies to format = \"gauntlet\"",
        ));
    }

    Ok(Tournament {
        name: raw
            .name
            .as_ref()
            .map_or_else(|| "tournament".to_string(), |n| sanitize_name(n.get_ref())),
        seed: raw.seed,
        rules,
        format,
        games,
        concurrency,
        out: raw.out.map(|o| base_dir.join(o)),
        processes,
        handshake,
        openings,
        entrants,
        time,
        builds,
        written,
        left_out,
        on_build_failure,
        build_limit,
    })
}

/// A `[[bot]]` as written or made from a submission directory (`true`).
type Listed = (RawBot, bool);

/// Every `[[bot]]`, a glob expanded into one per directory (`true`: a
/// submission, whose problems leave it out instead of stopping the event), and
/// the directories that hold no bot.
///
/// # Errors
/// A glob with keys a directory decides, a bad pattern, or one matching nothing.
fn expand_globs(
    src: &Source<'_>,
    raw_bots: &[RawBot],
    base_dir: &Path,
) -> Result<(Vec<Listed>, Vec<LeftOut>), ConfigError> {
    let mut expanded: Vec<Listed> = Vec::new();
    let mut left_out = Vec::new();
    for raw_bot in raw_bots {
        match &raw_bot.glob {
            None => expanded.push((raw_bot.clone(), false)),
            Some(glob) => {
                let own = [
                    &raw_bot.name,
                    &raw_bot.command,
                    &raw_bot.dir,
                    &raw_bot.build,
                ];
                if let Some(f) = own.into_iter().flatten().next() {
                    return Err(src.err(
                        Some(f.span()),
                        "a [[bot]] with a glob takes its name, command, dir and build from each directory (its bot.toml or the conventions): remove this key",
                    ));
                }
                if !raw_bot.args.is_empty() || raw_bot.protocol.is_some() {
                    return Err(src.err(
                        Some(glob.span()),
                        "a [[bot]] with a glob takes args and protocol from each directory's bot.toml: remove them here",
                    ));
                }
                let found = submissions::expand(glob.get_ref(), base_dir)
                    .map_err(|e| src.err(Some(glob.span()), e.to_string()))?;
                for submission in found {
                    match submission.found {
                        Found::Nothing(why) => left_out.push(LeftOut {
                            name: submission.name,
                            why: format!("{}: {why}", submission.dir.display()),
                        }),
                        Found::Bot(bot) => {
                            let at = |v: String| Some(Spanned::new(glob.span(), v));
                            expanded.push((
                                RawBot {
                                    name: at(submission.name),
                                    command: at(bot.command),
                                    dir: at(submission.dir.display().to_string()),
                                    build: bot.build.and_then(at),
                                    protocol: bot.protocol.and_then(at),
                                    args: bot.args,
                                    glob: None,
                                    ..raw_bot.clone()
                                },
                                true,
                            ));
                        }
                    }
                }
            }
        }
    }
    Ok((expanded, left_out))
}

fn bot(
    src: &Source<'_>,
    raw: &RawBot,
    base_dir: &Path,
    arena_exe: &Path,
    (limits, sandbox): (ResourceLimits, SandboxMode),
    time: TimeControl,
) -> Result<(Entrant, String), ConfigError> {
    let Some(command) = &raw.command else {
        let span = raw.name.as_ref().map(Spanned::span);
        return Err(src.err(
            span,
            "this [[bot]] has no command: add command = \"<built-in name or command line>\"",
        ));
    };
    if let (Some(build), None) = (&raw.build, &raw.dir) {
        return Err(src.err(
            Some(build.span()),
            "a build needs the bot's own directory: add dir = \"…\" (the build runs in a copy of it)",
        ));
    }
    let dir = raw.dir.as_ref().map(|d| base_dir.join(d.get_ref()));
    if let (Some(d), Some(raw_dir)) = (&dir, &raw.dir)
        && !d.is_dir()
    {
        return Err(src.err(
            Some(raw_dir.span()),
            format!("dir \"{}\" is not a directory", raw_dir.get_ref()),
        ));
    }
    let resolver = Resolver {
        base_dir: dir.clone().unwrap_or_else(|| base_dir.to_path_buf()),
        arena_exe: arena_exe.to_path_buf(),
        limits,
    };
    let mut line = command.get_ref().clone();
    for arg in &raw.args {
        line.push(' ');
        line.push_str(&shlex::try_quote(arg).map_or_else(|_| arg.clone(), |q| q.into_owned()));
    }
    if let Some(protocol) = &raw.protocol {
        let p = protocol.get_ref().as_str();
        if Dialect::from_name(p).is_none() {
            let names = Dialect::ALL.map(|d| format!("\"{}\"", d.name()));
            let (last, rest) = names
                .split_last()
                .map_or(("", &[][..]), |(l, r)| (l.as_str(), r));
            return Err(src.err(
                Some(protocol.span()),
                format!("protocol = \"{p}\": use {} or {last}", rest.join(", ")),
            ));
        }
        line = format!("{p}:{line}");
    }
    let resolved = if raw.build.is_some() {
        resolver.resolve_before_build(&line)
    } else {
        resolver.resolve(&line)
    };
    let mut spec: BotSpec = resolved.map_err(|e| src.err(Some(command.span()), e.problem))?;
    if let Some(name) = &raw.name {
        let clean = sanitize_name(name.get_ref());
        if clean != *name.get_ref() {
            return Err(src.err(Some(name.span()), format!(
                "name \"{}\" has characters that are not allowed: use letters, digits, '_', '.', '-' (e.g. \"{clean}\")",
                name.get_ref()
            )));
        }
        spec.name = clean;
    }
    spec.command.working_dir = dir;
    spec.command.env = raw.env.iter().map(|(k, v)| (k.into(), v.into())).collect();
    apply_bot_sandbox(src, raw, base_dir, sandbox, &mut spec)?;
    if spec.dialect != Dialect::Uttt && spec.builtin {
        return Err(src.err(
            Some(command.span()),
            "built-in bots speak the uttt protocol: remove protocol",
        ));
    }
    let time = match &raw.time_odds {
        None => time,
        Some(odds) => {
            let f = *odds.get_ref();
            if !(0.01..=100.0).contains(&f) {
                return Err(src.err(
                    Some(odds.span()),
                    format!(
                        "time-odds = {f}: use a factor between 0.01 and 100 (0.5 = half the time)"
                    ),
                ));
            }
            scale(time, f)
        }
    };
    Ok((Entrant { spec, time }, line))
}

/// Orders `entrants` by their rating in `elo`, best first; bots without one
/// follow in the file's order (a stable sort).
fn seed_by_rating(entrants: &mut [Entrant], elo: &[(String, f64)]) {
    let rating = |e: &Entrant| {
        elo.iter()
            .find(|(name, _)| *name == e.spec.name)
            .map_or(f64::NEG_INFINITY, |(_, r)| *r)
    };
    entrants.sort_by(|a, b| rating(b).total_cmp(&rating(a)));
}

/// Rounds of a Swiss that does not say: ⌈log2 N⌉ + 2, enough to separate the
/// leaders, and never more than N - 1 (beyond it, bots meet again).
pub fn default_swiss_rounds(bots: u32) -> u32 {
    let log2 = bots.max(1).next_power_of_two().trailing_zeros();
    (log2 + 2).min(bots.saturating_sub(1)).max(1)
}

fn sandbox_mode(
    src: &Source<'_>,
    raw: Option<&Spanned<String>>,
) -> Result<Option<SandboxMode>, ConfigError> {
    raw.map(|m| {
        m.get_ref().parse::<SandboxMode>().map_err(|e| {
            src.err(
                Some(m.span()),
                format!("sandbox = \"{}\": {e}", m.get_ref()),
            )
        })
    })
    .transpose()
}

/// A bot's own sandbox mode, limits and read-only paths.
fn apply_bot_sandbox(
    src: &Source<'_>,
    raw: &RawBot,
    base_dir: &Path,
    default: SandboxMode,
    spec: &mut BotSpec,
) -> Result<(), ConfigError> {
    let command = &mut spec.command;
    command.sandbox.mode = sandbox_mode(src, raw.sandbox.as_ref())?.unwrap_or(default);
    if let Some(memory) = src.memory_mb(&raw.memory_mb)?.map(mib_to_bytes) {
        command.limits = command.limits.with_memory(memory);
    }
    if let Some(cpu) = src.count::<u64>(&raw.cpu_seconds, "cpu-seconds", 1, 1 << 30)? {
        command.limits.cpu_seconds = Some(cpu);
    }
    if let Some(paths) = &raw.read_only {
        for path in paths.get_ref() {
            let full = base_dir.join(path);
            if !full.exists() {
                return Err(src.err(
                    Some(paths.span()),
                    format!(
                        "read-only path \"{path}\" does not exist (looked for {})",
                        full.display()
                    ),
                ));
            }
            command.sandbox.read_only.push(full);
        }
    }
    Ok(())
}

fn scale(time: TimeControl, factor: f64) -> TimeControl {
    let s = |d: Duration| Duration::from_secs_f64((d.as_secs_f64() * factor).max(0.001));
    TimeControl {
        move_time: time.move_time.map(s),
        first_move_time: time.first_move_time.map(s),
        margin: time.margin,
        clock: time.clock.map(|c| GameClock {
            initial: s(c.initial),
            increment: s(c.increment),
        }),
        nodes: time.nodes,
    }
}

/// Reads the opening book named by `file` (relative to the tournament file), with
/// [`read_book_file`]'s rules; errors name the book's file and line.
fn book(
    src: &Source<'_>,
    file: &Spanned<String>,
    base_dir: &Path,
    rules: Rules,
) -> Result<Vec<Vec<uttt::rules::Square>>, ConfigError> {
    let path = base_dir.join(file.get_ref());
    read_book_file(&path, rules).map_err(|e| match e {
        BookFileError::Unreadable(e) => src.err(
            Some(file.span()),
            format!("cannot read opening file {}: {e}", path.display()),
        ),
        BookFileError::Bad(e) => ConfigError {
            file: path.display().to_string(),
            line: Some(e.line),
            message: e.message,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str) -> Result<Tournament, ConfigError> {
        parse(
            "t.toml",
            text,
            Path::new(env!("CARGO_MANIFEST_DIR")),
            Path::new("/opt/arena"),
        )
    }

    const TWO: &str = "[[bot]]\ncommand = \"random\"\n[[bot]]\ncommand = \"greedy\"\n";

    #[test]
    fn the_default_config_is_valid() {
        let t = check(DEFAULT_CONFIG).unwrap();
        assert!(t.entrants.len() >= 4);
    }

    #[test]
    fn every_shipped_config_is_valid() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                load(&path, Path::new("/opt/arena")).unwrap_or_else(|e| panic!("{e}"));
                seen += 1;
            }
        }
        assert!(seen >= 4, "default, ladder, classroom, ci-regression");
    }

    #[test]
    fn minimal_config_gets_defaults() {
        let t = check(TWO).unwrap();
        assert_eq!(t.games, 2);
        assert_eq!(t.format, Format::RoundRobin);
        assert_eq!(t.time.move_time, Some(Duration::from_millis(100)));
        assert_eq!(t.entrants[1].spec.name, "greedy");
    }

    #[test]
    fn errors_name_the_line_and_the_fix() {
        let e = check(&format!("gamez = 4\n{TWO}")).unwrap_err();
        assert_eq!((e.file.as_str(), e.line), ("t.toml", Some(1)));
        assert!(e.message.contains("unknown field `gamez`"), "{}", e.message);
        assert!(e.to_string().starts_with("t.toml:1: "));

        // A top-level key written after [[bot]] belongs to that bot: TOML's rule.
        let e = check(&format!("{TWO}games = 3\n")).unwrap_err();
        assert!(
            e.message
                .contains("unknown field `games`, expected one of `name`"),
            "{e}"
        );
        let e = check(&format!("games = 3\n{TWO}")).unwrap_err();
        assert_eq!(e.line, Some(1));
        assert!(e.message.contains("games = 3 is odd"), "{e}");
        assert!(e.message.contains("use 2 or 4"), "{e}");

        let e = check("[[bot]]\ncommand = \"random\"\n[[bot]]\nname = \"x\"\n").unwrap_err();
        assert_eq!(e.line, Some(4));
        assert!(e.message.contains("has no command"), "{e}");

        let e =
            check("[[bot]]\ncommand = \"random\"\n[[bot]]\ncommand = \"./nope.sh\"\n").unwrap_err();
        assert_eq!(e.line, Some(4));
        assert!(e.message.contains("does not exist"), "{e}");

        let e = check(&format!(
            "format = \"gauntlet\"\nchallenger = \"mcts\"\n{TWO}"
        ))
        .unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("choose one of random, greedy"), "{e}");

        let e = check(&format!("{TWO}[time]\nmove-ms = 0\n")).unwrap_err();
        assert!(e.message.contains("move-ms = 0 is out of range"), "{e}");

        let e = check("[[bot]]\ncommand = \"random\"\n").unwrap_err();
        assert!(e.message.contains("at least 2 bots"), "{e}");
        // About the whole file: no line to name, and no "line 0".
        assert_eq!(e.line, None);
        assert!(
            e.to_string().starts_with("t.toml: a tournament needs"),
            "{e}"
        );

        let e =
            check("[[bot]]\ncommand = \"random\"\n[[bot]]\ncommand = \"random\"\n").unwrap_err();
        assert!(e.message.contains("two bots are named 'random'"), "{e}");

        let e = check(&format!("rules = \"fast\"\n{TWO}")).unwrap_err();
        assert!(e.message.contains("unknown rules 'fast'"), "{e}");
    }

    #[test]
    fn sandbox_modes_and_per_bot_limits_are_read() {
        let t = check(&format!(
            "sandbox = \"strict\"\n[limits]\nprocesses = 32\n{TWO}sandbox = \"none\"\nmemory-mb = 64\ncpu-seconds = 3\nread-only = [\"src\"]\n"
        ))
        .unwrap();
        let [first, second] = [&t.entrants[0].spec.command, &t.entrants[1].spec.command];
        assert_eq!(first.sandbox.mode, SandboxMode::Strict);
        assert_eq!(first.limits.processes, Some(32));
        assert_eq!(first.limits.address_space, None);
        assert_eq!(second.sandbox.mode, SandboxMode::None);
        assert_eq!(second.limits.address_space, Some(64 * 1024 * 1024));
        assert_eq!(second.limits.cpu_seconds, Some(3));
        assert_eq!(
            second.sandbox.read_only,
            [Path::new(env!("CARGO_MANIFEST_DIR")).join("src")]
        );

        let e = check(&format!("sandbox = \"firejail\"\n{TWO}")).unwrap_err();
        assert_eq!(e.line, Some(1));
        assert!(
            e.message
                .starts_with("sandbox = \"firejail\": unknown sandbox layer 'firejail'"),
            "{e}"
        );
        let e = check(&format!("{TWO}read-only = [\"nope\"]\n")).unwrap_err();
        assert_eq!(e.line, Some(5));
        assert!(
            e.message.contains("read-only path \"nope\" does not exist"),
            "{e}"
        );
    }

    #[test]
    fn swiss_and_knockout_are_read_with_their_keys() {
        let t = check(&format!("format = \"swiss\"\nrounds = 5\n{TWO}")).unwrap();
        assert_eq!(t.format, Format::Drawn(Drawn::Swiss { rounds: 5 }));
        let t = check(&format!("format = \"swiss\"\n{TWO}")).unwrap();
        assert_eq!(
            t.format,
            Format::Drawn(Drawn::Swiss { rounds: 1 }),
            "2 bots: 1 round"
        );
        assert_eq!(default_swiss_rounds(30), 7);
        assert_eq!(default_swiss_rounds(32), 7);
        assert_eq!(default_swiss_rounds(5), 4);
        let t = check(&format!("format = \"knockout\"\n{TWO}")).unwrap();
        assert_eq!(
            t.format,
            Format::Drawn(Drawn::Knockout {
                tiebreak_pairs: defaults::TIEBREAK_PAIRS
            })
        );
        let e = check(&format!("rounds = 3\n{TWO}")).unwrap_err();
        assert_eq!(e.line, Some(1));
        assert!(
            e.message
                .contains("rounds only applies to format = \"swiss\""),
            "{e}"
        );
        let e = check(&format!("format = \"knockout\"\nrounds = 3\n{TWO}")).unwrap_err();
        assert_eq!(e.line, Some(2));
        let e = check(&format!("format = \"swis\"\n{TWO}")).unwrap_err();
        assert!(e.message.contains("\"swiss\" or \"knockout\""), "{e}");
    }

    #[test]
    fn a_glob_entry_takes_nothing_a_directory_says() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("s/ann")).unwrap();
        std::fs::write(dir.path().join("s/ann/bot.py"), "").unwrap();
        std::fs::create_dir_all(dir.path().join("s/ben")).unwrap();
        let parse_here = |text: &str| parse("t.toml", text, dir.path(), Path::new("/opt/arena"));
        let t =
            parse_here("[[bot]]\ncommand = \"random\"\n[[bot]]\nglob = \"s/*\"\nmemory-mb = 64\n")
                .unwrap();
        assert_eq!(t.names(), ["random", "ann"]);
        assert_eq!(
            t.entrants[1].spec.command.working_dir,
            Some(dir.path().join("s/ann"))
        );
        assert_eq!(
            t.entrants[1].spec.command.limits.address_space,
            Some(64 << 20)
        );
        assert_eq!(t.left_out.len(), 1);
        assert_eq!(t.left_out[0].name, "ben");
        // A directory named like a bot of the file is left out, not the event.
        let t = parse_here("[[bot]]\nname = \"ann\"\ncommand = \"random\"\n[[bot]]\ncommand = \"greedy\"\n[[bot]]\nglob = \"s/*\"\n")
            .unwrap();
        assert_eq!(t.names(), ["ann", "greedy"]);
        assert!(
            t.left_out[1]
                .why
                .contains("another bot is already named 'ann'"),
            "{:?}",
            t.left_out
        );
        let e =
            parse_here("[[bot]]\ncommand = \"random\"\n[[bot]]\nglob = \"s/*\"\ncommand = \"x\"\n")
                .unwrap_err();
        assert_eq!(e.line, Some(5));
        assert!(e.message.contains("remove this key"), "{e}");
    }

    #[test]
    fn leaving_a_bot_out_keeps_the_gauntlet_challenger() {
        let mut t = check(&format!(
            "format = \"gauntlet\"\nchallenger = \"greedy\"\n{TWO}[[bot]]\ncommand = \"mcts\"\n"
        ))
        .unwrap();
        t.leave_out("random", "build failed".into()).unwrap();
        assert_eq!(t.format, Format::Gauntlet { challenger: 0 });
        assert_eq!(t.names(), ["greedy", "mcts"]);
        assert_eq!(t.left_out[0].why, "build failed");
        let e = t.leave_out("greedy", "build failed".into()).unwrap_err();
        assert!(e.contains("there is no gauntlet without it"), "{e}");
    }

    #[test]
    fn time_odds_scale_the_time() {
        let t = check(
            "[[bot]]\ncommand = \"random\"\ntime-odds = 0.5\n[[bot]]\ncommand = \"greedy\"\n",
        )
        .unwrap();
        assert_eq!(
            t.entrants[0].time.move_time,
            Some(Duration::from_millis(50))
        );
        assert_eq!(
            t.entrants[1].time.move_time,
            Some(Duration::from_millis(100))
        );
    }
}
