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
use super::entrant::{Entrant, unannounced_rules_message};
use super::openings::{BookFileError, Openings, read_book_file};
use super::prepare::RunSpec;
use super::runner::RunOptions;
use super::schedule::Format;
use crate::defaults;
use crate::millis::{ClockMs, HandshakeMs, IncrementMs, MarginMs, Millis, MoveMs};
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
    games: Option<Spanned<i64>>,
    concurrency: Option<Spanned<i64>>,
    out: Option<String>,
    processes: Option<Spanned<String>>,
    handshake_ms: Option<Spanned<i64>>,
    allow_unannounced_rules: Option<bool>,
    sandbox: Option<Spanned<String>>,
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
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawBot {
    name: Option<Spanned<String>>,
    command: Option<Spanned<String>>,
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
            concurrency,
            processes: self.processes,
            force: false,
            isolation,
        }
    }

    /// How the games are played: `concurrency` at once, the bots' stderr kept in
    /// `out/logs`.
    pub fn run_options(&self, concurrency: usize, out: &Path) -> RunOptions {
        RunOptions {
            concurrency,
            processes: self.processes,
            handshake_limit: self.handshake,
            rules: self.rules,
            log_dir: Some(out.join("logs")),
        }
    }

    /// The names of the bots, in the file's order.
    pub fn names(&self) -> Vec<&str> {
        self.entrants.iter().map(|e| e.spec.name.as_str()).collect()
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

    fn err(&self, span: Option<Range<usize>>, message: impl Into<String>) -> ConfigError {
        ConfigError {
            file: self.file.to_string(),
            line: span.map(|s| self.line_of(s.start)),
            message: message.into(),
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

/// Reads and validates a configuration file. Bot commands are resolved relative to
/// the file's directory (or each bot's `dir`).
///
/// # Errors
/// [`ConfigError`] naming the file and line.
pub fn load(path: &Path, arena_exe: &Path) -> Result<Tournament, ConfigError> {
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
    parse(&path.display().to_string(), text, &base, arena_exe)
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
    let src = Source { file, text };
    let raw: RawConfig = toml::from_str(text).map_err(|e| {
        let message = e.message().trim().replace('\n', " ");
        let hint = if message.starts_with("unknown field") {
            " (check the spelling; every key is listed in configs/default.toml)"
        } else {
            ""
        };
        src.err(e.span(), format!("{message}{hint}"))
    })?;

    let rules = match &raw.rules {
        Some(r) => r
            .get_ref()
            .parse::<Rules>()
            .map_err(|e| src.err(Some(r.span()), e.to_string()))?,
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

    if raw.bots.len() < 2 {
        return Err(src.err(None, format!(
            "a tournament needs at least 2 bots, found {}: add [[bot]] tables with a command (e.g. command = \"mcts\")",
            raw.bots.len()
        )));
    }
    let mut entrants: Vec<Entrant> = Vec::new();
    for raw_bot in &raw.bots {
        let entrant = bot(&src, raw_bot, base_dir, arena_exe, (limits, sandbox), time)?;
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
        entrants.push(entrant);
    }

    if !raw.allow_unannounced_rules.unwrap_or(false)
        && let Some((i, e)) = entrants
            .iter()
            .enumerate()
            .find(|(_, e)| !e.spec.dialect.can_express(rules))
    {
        let span = raw.bots[i]
            .protocol
            .as_ref()
            .or(raw.bots[i].command.as_ref())
            .map(Spanned::span);
        return Err(src.err(
            span,
            unannounced_rules_message(
                &e.spec.name,
                e.spec.dialect,
                rules,
                "allow-unannounced-rules = true",
            ),
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
        Some((other, span)) => {
            return Err(src.err(
                Some(span),
                format!("format = \"{other}\": use \"round-robin\" or \"gauntlet\""),
            ));
        }
    };

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
    })
}

fn bot(
    src: &Source<'_>,
    raw: &RawBot,
    base_dir: &Path,
    arena_exe: &Path,
    (limits, sandbox): (ResourceLimits, SandboxMode),
    time: TimeControl,
) -> Result<Entrant, ConfigError> {
    let Some(command) = &raw.command else {
        let span = raw.name.as_ref().map(Spanned::span);
        return Err(src.err(
            span,
            "this [[bot]] has no command: add command = \"<built-in name or command line>\"",
        ));
    };
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
        if !matches!(p, "uttt" | "codingame" | "riddles") {
            return Err(src.err(
                Some(protocol.span()),
                format!("protocol = \"{p}\": use \"uttt\", \"codingame\" or \"riddles\""),
            ));
        }
        line = format!("{p}:{line}");
    }
    let mut spec: BotSpec = resolver
        .resolve(&line)
        .map_err(|e| src.err(Some(command.span()), e.problem))?;
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
    Ok(Entrant { spec, time })
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
