//! Tournament files (TOML), the second front end of the settings: the file's
//! keys read with serde, each value checked for its type and range where it is
//! written, into the same [`Input`] the command line makes; a glob of
//! submissions is expanded into one bot per directory. [`load_with`] merges the
//! command line's values over the file's and validates the whole once
//! ([`settings::validate`]). Every error names the file, the line and the fix.
//!
//! The format, with every key, is documented in configs/default.toml and docs/guide/tournament.md.

use crate::tournament::governor::GovernorMode;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use referee::bot::sandbox::SandboxMode;
use serde::Deserialize;
use toml::Spanned;
use uttt::rules::Rules;

use super::bot_spec::sanitize_name;
use super::settings::bot::{BotInput, Protocol};
use super::settings::builds::{LeftOut, OnBuildFailure, OnPreflightFailure, SubmissionCap};
use super::settings::input::{
    BotEntry, ClockChoice, DisplayInput, EventInput, FormatKind, Given, Input, LeagueInput,
    LeagueMode, LimitsInput, OpeningsInput, Source, TimeInput,
};
use super::settings::words::Word;
use super::settings::{self, SettingsError};
use super::submissions::{self, Found};
use crate::audience::Audience;
use crate::defaults;
use crate::millis::Millis;
use crate::results::manifest::ProcessPolicy;

pub use super::settings::RunSettings as Tournament;

/// The embedded default tournament: the built-in ladder.
pub const DEFAULT_CONFIG: &str = include_str!("../../../configs/default.toml");

/// The file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawConfig {
    name: Option<Spanned<String>>,
    seed: Option<u64>,
    rules: Option<Spanned<String>>,
    format: Option<Spanned<Word<FormatKind>>>,
    challenger: Option<Spanned<String>>,
    rounds: Option<Spanned<i64>>,
    tiebreak_pairs: Option<Spanned<i64>>,
    seeding: Option<Spanned<String>>,
    games: Option<Spanned<i64>>,
    min_score: Option<Spanned<f64>>,
    concurrency: Option<Spanned<i64>>,
    governor: Option<Spanned<Word<GovernorMode>>>,
    governor_wait_s: Option<Spanned<i64>>,
    out: Option<String>,
    processes: Option<Spanned<Word<ProcessPolicy>>>,
    handshake_ms: Option<Spanned<i64>>,
    allow_unannounced_rules: Option<Spanned<bool>>,
    allow_builtin: Option<bool>,
    sandbox: Option<Spanned<String>>,
    on_build_failure: Option<Spanned<Word<OnBuildFailure>>>,
    build_seconds: Option<Spanned<i64>>,
    on_preflight_failure: Option<Spanned<Word<OnPreflightFailure>>>,
    submission_max_mb: Option<Spanned<i64>>,
    submission_max_files: Option<Spanned<i64>>,
    #[serde(default)]
    display: RawDisplay,
    #[serde(default)]
    time: RawTime,
    #[serde(default)]
    openings: RawOpenings,
    #[serde(default)]
    limits: RawLimits,
    #[serde(default, rename = "bot")]
    bots: Vec<RawBot>,
    league: Option<Spanned<RawLeague>>,
}

/// A `[league]` table (`arena league`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawLeague {
    mode: Option<Spanned<Word<LeagueMode>>>,
    levels: Option<Spanned<Vec<String>>>,
    pass: Option<Spanned<String>>,
    pass_score: Option<Spanned<f64>>,
    similarity_threshold: Option<Spanned<f64>>,
    max_games: Option<Spanned<i64>>,
    starter: Option<Spanned<String>>,
    level_grades: Option<Spanned<Vec<f64>>>,
    no_level_grade: Option<Spanned<f64>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawTime {
    move_ms: Option<Spanned<i64>>,
    first_move_ms: Option<Spanned<i64>>,
    margin_ms: Option<Spanned<i64>>,
    clock_ms: Option<Spanned<i64>>,
    increment_ms: Option<Spanned<i64>>,
    clock: Option<Spanned<Word<ClockChoice>>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawDisplay {
    pace_ms: Option<Spanned<i64>>,
    audience: Option<Spanned<Word<Audience>>>,
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

/// The file's name and text, to turn spans into lines and errors into messages.
struct Text<'a> {
    file: &'a str,
    text: &'a str,
}

impl Text<'_> {
    fn line_of(&self, offset: usize) -> usize {
        self.text[..offset.min(self.text.len())]
            .matches('\n')
            .count()
            + 1
    }

    /// Where a value spanning `span` was written.
    fn at(&self, span: Range<usize>) -> Source {
        Source::Line(self.line_of(span.start))
    }

    /// `value` with the line it was written on.
    fn given<T, U>(&self, value: &Spanned<T>, f: impl FnOnce(&T) -> U) -> Given<U> {
        Given::new(f(value.get_ref()), self.at(value.span()))
    }

    /// An error at `span`, or about the whole file.
    fn err(&self, span: Option<Range<usize>>, message: impl Into<String>) -> SettingsError {
        SettingsError {
            file: Some(self.file.to_string()),
            line: span.map(|s| self.line_of(s.start)),
            message: message.into(),
        }
    }

    /// A time in milliseconds, checked by its type (the command line's bounds).
    fn millis<const MIN: u64, const MAX: u64>(
        &self,
        value: &Option<Spanned<i64>>,
        key: &str,
    ) -> Result<Option<Given<Millis<MIN, MAX>>>, SettingsError> {
        let Some(v) = value else { return Ok(None) };
        Millis::try_from(*v.get_ref())
            .map(|ms| Some(Given::new(ms, self.at(v.span()))))
            .map_err(|e| self.err(Some(v.span()), format!("{key} = {e}")))
    }

    /// A `memory-mb` value, in the range `--memory-mb` takes.
    fn memory_mb(&self, value: &Option<Spanned<i64>>) -> Result<Option<Given<u64>>, SettingsError> {
        let range = &defaults::MEMORY_MB;
        let bound = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        self.counted(
            value,
            "memory-mb",
            bound(*range.start()),
            bound(*range.end()),
        )
    }

    /// A limit in its range of [`defaults`] (the one `arena repro` checks a
    /// recorded limit against too).
    fn within(
        &self,
        value: &Option<Spanned<i64>>,
        key: &str,
        range: &std::ops::RangeInclusive<u64>,
    ) -> Result<Option<u64>, SettingsError> {
        let bound = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        self.count(value, key, bound(*range.start()), bound(*range.end()))
    }

    /// A whole number from `min` to `max`.
    fn count<T: TryFrom<i64>>(
        &self,
        value: &Option<Spanned<i64>>,
        key: &str,
        min: i64,
        max: i64,
    ) -> Result<Option<T>, SettingsError> {
        Ok(self.counted(value, key, min, max)?.map(|g| g.value))
    }

    /// [`Text::count`], with the line it was written on.
    fn counted<T: TryFrom<i64>>(
        &self,
        value: &Option<Spanned<i64>>,
        key: &str,
        min: i64,
        max: i64,
    ) -> Result<Option<Given<T>>, SettingsError> {
        let Some(v) = value else { return Ok(None) };
        let n = *v.get_ref();
        if n < min || n > max {
            return Err(self.err(
                Some(v.span()),
                format!("{key} = {n} is out of range: use a whole number from {min} to {max}"),
            ));
        }
        Ok(T::try_from(n)
            .ok()
            .map(|n| Given::new(n, self.at(v.span()))))
    }

    /// A sandbox mode.
    fn sandbox(&self, raw: Option<&Spanned<String>>) -> Result<Option<SandboxMode>, SettingsError> {
        raw.map(|m| {
            m.get_ref().parse::<SandboxMode>().map_err(|e| {
                self.err(
                    Some(m.span()),
                    format!("sandbox = \"{}\": {e}", m.get_ref()),
                )
            })
        })
        .transpose()
    }
}

/// Reads and validates a configuration file. Bot commands are resolved relative to
/// the file's directory (or each bot's `dir`).
///
/// # Errors
/// [`SettingsError`] naming the file and line.
pub fn load(path: &Path, arena_exe: &Path) -> Result<Tournament, SettingsError> {
    load_with(path, arena_exe, Input::default())
}

/// [`load`], with the command line's values (`over`) in place of the file's.
///
/// # Errors
/// [`SettingsError`] naming the file and line (or the flag).
pub fn load_with(path: &Path, arena_exe: &Path, over: Input) -> Result<Tournament, SettingsError> {
    let text = std::fs::read_to_string(path).map_err(|e| SettingsError {
        file: Some(path.display().to_string()),
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
    parse_with(&path.display().to_string(), text, &base, arena_exe, over)
}

/// Parses and validates configuration text. `base_dir` is where relative paths
/// start.
///
/// # Errors
/// [`SettingsError`] naming `file` and the line.
pub fn parse(
    file: &str,
    text: &str,
    base_dir: &Path,
    arena_exe: &Path,
) -> Result<Tournament, SettingsError> {
    parse_with(file, text, base_dir, arena_exe, Input::default())
}

/// [`parse`], with the command line's values (`over`) in place of the file's.
///
/// # Errors
/// [`SettingsError`] naming `file` and the line (or the flag).
pub fn parse_with(
    file: &str,
    text: &str,
    base_dir: &Path,
    arena_exe: &Path,
    over: Input,
) -> Result<Tournament, SettingsError> {
    let input = read(file, text, base_dir)?.merged(over);
    settings::validate(input, arena_exe)
}

/// The settings input of a tournament file: every key of its type and in its
/// range, relative paths made absolute from `base_dir`, globs expanded.
///
/// # Errors
/// [`SettingsError`] naming `file` and the line.
pub fn read(file: &str, text: &str, base_dir: &Path) -> Result<Input, SettingsError> {
    let src = Text { file, text };
    let raw: RawConfig = toml::from_str(text).map_err(|e| {
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
    let rules = match &raw.rules {
        Some(r) => Some(Given::new(
            r.get_ref()
                .parse::<Rules>()
                .map_err(|e| src.err(Some(r.span()), crate::suggest::rules_error(&e)))?,
            src.at(r.span()),
        )),
        None => None,
    };
    let max_concurrency = i64::try_from(defaults::MAX_CONCURRENCY).unwrap_or(i64::MAX);
    let event = EventInput {
        format: raw.format.as_ref().map(|f| src.given(f, |w| w.0)),
        challenger: raw.challenger.as_ref().map(|c| src.given(c, String::clone)),
        rounds: src.counted(&raw.rounds, "rounds", 1, 10_000)?,
        tiebreak_pairs: src.counted(&raw.tiebreak_pairs, "tiebreak-pairs", 0, 100)?,
        seeding: raw
            .seeding
            .as_ref()
            .map(|s| src.given(s, |s| PathBuf::from(s))),
        games: src.counted(&raw.games, "games", 1, 1_000_000)?,
        min_score: raw.min_score.as_ref().map(|m| src.given(m, |m| *m)),
    };
    let limits = LimitsInput {
        memory_mb: src.memory_mb(&raw.limits.memory_mb)?,
        cpu_seconds: src.within(
            &raw.limits.cpu_seconds,
            "cpu-seconds",
            &defaults::CPU_SECONDS,
        )?,
        file_size_mb: src.within(
            &raw.limits.file_size_mb,
            "file-size-mb",
            &defaults::FILE_SIZE_MB,
        )?,
        open_files: src.within(&raw.limits.open_files, "open-files", &defaults::OPEN_FILES)?,
        processes: src.within(&raw.limits.processes, "processes", &defaults::PROCESSES)?,
    };
    let cap = SubmissionCap::of(
        src.count(&raw.submission_max_mb, "submission-max-mb", 1, 1 << 20)?,
        src.count(
            &raw.submission_max_files,
            "submission-max-files",
            1,
            1 << 30,
        )?,
    );
    let (bots, left_out, hidden) = bots(&src, &raw.bots, base_dir, cap)?;
    Ok(Input {
        file: Some(file.to_string()),
        base_dir: base_dir.to_path_buf(),
        name: raw.name.as_ref().map(|n| n.get_ref().clone()),
        seed: raw.seed,
        rules,
        event,
        time: time(&src, &raw)?,
        openings: OpeningsInput {
            random_plies: src.counted(
                &raw.openings.random_plies,
                "random-plies",
                0,
                i64::from(defaults::MAX_RANDOM_PLIES),
            )?,
            book: raw
                .openings
                .file
                .as_ref()
                .map(|f| src.given(f, |f| base_dir.join(f))),
        },
        limits,
        sandbox: src
            .sandbox(raw.sandbox.as_ref())?
            .zip(raw.sandbox.as_ref())
            .map(|(mode, s)| Given::new(mode, src.at(s.span()))),
        sandbox_override: None,
        handshake: src
            .millis::<1, 600_000>(&raw.handshake_ms, "handshake-ms")?
            .map(|h| h.value),
        processes: raw.processes.as_ref().map(|p| p.get_ref().0),
        concurrency: src.count(&raw.concurrency, "concurrency", 1, max_concurrency)?,
        governor: raw.governor.as_ref().map(|g| src.given(g, |w| w.0)),
        governor_wait_s: src.count(&raw.governor_wait_s, "governor-wait-s", 0, 3600)?,
        out: raw.out.as_ref().map(|o| base_dir.join(o)),
        allow_unannounced_rules: raw
            .allow_unannounced_rules
            .as_ref()
            .map(|a| src.given(a, |a| *a)),
        on_build_failure: raw.on_build_failure.as_ref().map(|o| o.get_ref().0),
        build_limit: src
            .count::<u64>(&raw.build_seconds, "build-seconds", 1, 86_400)?
            .map(Duration::from_secs),
        allow_builtin: raw.allow_builtin,
        on_preflight_failure: raw.on_preflight_failure.as_ref().map(|o| o.get_ref().0),
        submission_cap: Some(cap),
        exclude: Vec::new(),
        display: DisplayInput {
            pace_ms: src.millis(&raw.display.pace_ms, "pace-ms")?,
            audience: raw.display.audience.as_ref().map(|a| src.given(a, |w| w.0)),
        },
        bots,
        left_out,
        hidden,
        league: raw
            .league
            .as_ref()
            .map(|l| league(&src, l, base_dir))
            .transpose()?,
    })
}

/// The `[league]` table, each value with its line (`starter` made absolute
/// from `base_dir`).
fn league(
    src: &Text<'_>,
    table: &Spanned<RawLeague>,
    base_dir: &Path,
) -> Result<LeagueInput, SettingsError> {
    let raw = table.get_ref();
    Ok(LeagueInput {
        source: src.at(table.span()),
        mode: raw.mode.as_ref().map(|m| src.given(m, |w| w.0)),
        levels: raw.levels.as_ref().map(|l| src.given(l, Vec::clone)),
        pass: raw.pass.as_ref().map(|p| src.given(p, String::clone)),
        pass_score: raw.pass_score.as_ref().map(|p| src.given(p, |p| *p)),
        similarity_threshold: raw
            .similarity_threshold
            .as_ref()
            .map(|t| src.given(t, |t| *t)),
        max_games: src.counted(&raw.max_games, "max-games", 2, 10_000)?,
        starter: raw
            .starter
            .as_ref()
            .map(|p| src.given(p, |p| base_dir.join(p))),
        level_grades: raw.level_grades.as_ref().map(|g| src.given(g, Vec::clone)),
        no_level_grade: raw.no_level_grade.as_ref().map(|g| src.given(g, |g| *g)),
    })
}

/// The `[time]` table and `[limits] nodes`.
fn time(src: &Text<'_>, raw: &RawConfig) -> Result<TimeInput, SettingsError> {
    let t = &raw.time;
    Ok(TimeInput {
        move_ms: src.millis(&t.move_ms, "move-ms")?,
        first_move_ms: src.millis(&t.first_move_ms, "first-move-ms")?,
        margin_ms: src.millis(&t.margin_ms, "margin-ms")?,
        clock_ms: src.millis(&t.clock_ms, "clock-ms")?,
        increment_ms: src.millis(&t.increment_ms, "increment-ms")?,
        clock_mode: t.clock.as_ref().map(|c| src.given(c, |w| w.0)),
        nodes: src.counted(
            &raw.limits.nodes,
            "nodes",
            1,
            i64::try_from(defaults::MAX_NODES).unwrap_or(i64::MAX),
        )?,
    })
}

/// A `[[bot]]` as written or made from a submission directory (`true`).
type Listed = (RawBot, bool);

/// Every `[[bot]]` as a bot of the input, a glob expanded into one per
/// directory; and the directories that hold no bot.
///
/// # Errors
/// A key that cannot be used; a glob with keys a directory decides, a bad
/// pattern, or one matching nothing.
fn bots(
    src: &Text<'_>,
    raw_bots: &[RawBot],
    base_dir: &Path,
    cap: SubmissionCap,
) -> Result<Expanded<BotEntry>, SettingsError> {
    let (listed, mut left_out, hidden) = expand_globs(src, raw_bots, base_dir, cap)?;
    let mut entries = Vec::new();
    for (raw_bot, submitted) in &listed {
        match bot(src, raw_bot, base_dir, *submitted) {
            Ok(entry) => entries.push(entry),
            // A submission's bot.toml the file cannot use is the student's to
            // fix: the others still play.
            Err(e) if *submitted => left_out.push(LeftOut {
                name: raw_bot
                    .name
                    .as_ref()
                    .map_or_else(String::new, |n| n.get_ref().clone()),
                why: e.message,
            }),
            Err(e) => return Err(e),
        }
    }
    Ok((entries, left_out, hidden))
}

/// The bots listed, the submissions left out, and the hidden directories
/// passed over.
type Expanded<T> = (Vec<T>, Vec<LeftOut>, Vec<PathBuf>);

/// Every `[[bot]]`, a glob expanded into one per directory (`true`: a
/// submission, whose problems leave it out instead of stopping the event), the
/// directories that hold no usable bot (or more than `cap`), and the hidden
/// ones passed over.
///
/// # Errors
/// A glob with keys a directory decides, a bad pattern, or one matching nothing.
fn expand_globs(
    src: &Text<'_>,
    raw_bots: &[RawBot],
    base_dir: &Path,
    cap: SubmissionCap,
) -> Result<Expanded<Listed>, SettingsError> {
    let mut expanded: Vec<Listed> = Vec::new();
    let mut left_out = Vec::new();
    let mut hidden = Vec::new();
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
                let found = submissions::expand(glob.get_ref(), base_dir, cap)
                    .map_err(|e| src.err(Some(glob.span()), e.to_string()))?;
                hidden.extend(found.hidden);
                for submission in found.submissions {
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
    Ok((expanded, left_out, hidden))
}

/// One `[[bot]]`, its keys checked and made into a bot description: the
/// command split into words and followed by `args`, never joined into a line.
fn bot(
    src: &Text<'_>,
    raw: &RawBot,
    base_dir: &Path,
    submitted: bool,
) -> Result<BotEntry, SettingsError> {
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
    let protocol = match &raw.protocol {
        None => None,
        Some(protocol) => {
            let word = protocol.get_ref().as_str();
            match Protocol::from_word(word) {
                Some(Protocol::Speaks(dialect)) => Some(Protocol::Speaks(dialect)),
                _ => {
                    let names = referee::dialect::Dialect::ALL.map(|d| format!("\"{}\"", d.name()));
                    let (last, rest) = names
                        .split_last()
                        .map_or(("", &[][..]), |(l, r)| (l.as_str(), r));
                    return Err(src.err(
                        Some(protocol.span()),
                        format!("protocol = \"{word}\": use {} or {last}", rest.join(", ")),
                    ));
                }
            }
        }
    };
    let mut words = shlex::split(command.get_ref()).ok_or_else(|| {
        src.err(
            Some(command.span()),
            "unbalanced quotes: quote the whole command line once, e.g. \"python3 'my bot.py'\"",
        )
    })?;
    words.extend(raw.args.iter().cloned());
    let name = match &raw.name {
        None => None,
        Some(name) => {
            let clean = sanitize_name(name.get_ref());
            if clean != *name.get_ref() {
                return Err(src.err(Some(name.span()), format!(
                    "name \"{}\" has characters that are not allowed: use letters, digits, '_', '.', '-' (e.g. \"{clean}\")",
                    name.get_ref()
                )));
            }
            Some(clean)
        }
    };
    let time_odds = match &raw.time_odds {
        None => None,
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
            Some(src.given(odds, |f| *f))
        }
    };
    let mut read_only = Vec::new();
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
            read_only.push(full);
        }
    }
    let command_source = src.at(command.span());
    Ok(BotEntry {
        bot: BotInput {
            name,
            protocol,
            words,
            dir: raw.dir.as_ref().map(|d| base_dir.join(d.get_ref())),
            env: raw
                .env
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        },
        source: raw
            .name
            .as_ref()
            .map_or_else(|| command_source.clone(), |n| src.at(n.span())),
        command_source,
        protocol_source: raw.protocol.as_ref().map(|p| src.at(p.span())),
        dir_source: raw.dir.as_ref().map(|d| src.at(d.span())),
        submitted,
        build: raw.build.as_ref().map(|b| src.given(b, String::clone)),
        time_odds,
        time: None,
        sandbox: src.sandbox(raw.sandbox.as_ref())?,
        memory_mb: src.memory_mb(&raw.memory_mb)?.map(|m| m.value),
        cpu_seconds: src.within(&raw.cpu_seconds, "cpu-seconds", &defaults::CPU_SECONDS)?,
        read_only,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::tournament::format::{Drawn, Format};
    use crate::tournament::settings::event::default_swiss_rounds;

    fn check(text: &str) -> Result<Tournament, SettingsError> {
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
        assert_eq!((e.file.as_deref(), e.line), (Some("t.toml"), Some(1)));
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
                .ends_with("s/ann: the tournament file names another bot 'ann': rename the folder"),
            "{:?}",
            t.left_out
        );
        // Whichever comes first in the file.
        let t = parse_here("[[bot]]\nglob = \"s/*\"\n[[bot]]\ncommand = \"greedy\"\n[[bot]]\nname = \"ann\"\ncommand = \"random\"\n")
            .unwrap();
        assert_eq!(t.names(), ["greedy", "ann"]);
        assert_eq!(t.entrants[1].spec.command.args[1], "random");
        assert!(!t.builds.contains_key("ann"), "{:?}", t.builds);
        // Two globs with a folder of one name: both are left out, each naming the other.
        std::fs::create_dir_all(dir.path().join("t/ann")).unwrap();
        std::fs::write(dir.path().join("t/ann/bot.py"), "").unwrap();
        std::fs::create_dir_all(dir.path().join("u/ann")).unwrap();
        std::fs::write(dir.path().join("u/ann/bot.py"), "").unwrap();
        let t = parse_here("[[bot]]\ncommand = \"random\"\n[[bot]]\ncommand = \"greedy\"\n[[bot]]\nglob = \"s/*\"\n[[bot]]\nglob = \"t/*\"\n[[bot]]\nglob = \"u/*\"\n")
            .unwrap();
        assert_eq!(t.names(), ["random", "greedy"]);
        let whys: Vec<&str> = t.left_out.iter().skip(1).map(|l| l.why.as_str()).collect();
        assert_eq!(whys.len(), 3, "{whys:?}");
        assert!(
            whys[0].contains("s/ann: its bot name 'ann' is also that of ")
                && whys[0].contains("t/ann"),
            "{whys:?}"
        );
        assert!(
            whys[1].contains("t/ann: its bot name 'ann' is also that of ")
                && whys[1].contains("s/ann"),
            "{whys:?}"
        );
        assert!(
            whys[2].contains("u/ann: its bot name 'ann' is also that of other folders"),
            "{whys:?}"
        );
        assert!(t.builds.is_empty(), "{:?}", t.builds);
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

    #[test]
    fn a_files_command_is_its_words_never_a_name_or_a_protocol() {
        let input = read(
            "t.toml",
            "[[bot]]\ncommand = \"v2=mcts --fast\"\n[[bot]]\ncommand = \"riddles:bot\"\nargs = [\"a b\"]\n\
             [[bot]]\nname = \"cg\"\nprotocol = \"codingame\"\ncommand = \"python3 'my bot.py'\"\n",
            Path::new("/base"),
        )
        .unwrap();
        let bots: Vec<_> = input.bots.iter().map(|b| &b.bot).collect();
        assert_eq!(bots[0].name, None);
        assert_eq!(bots[0].words, ["v2=mcts", "--fast"]);
        assert_eq!(
            (bots[1].protocol, bots[1].words.as_slice()),
            (None, &["riddles:bot".to_string(), "a b".to_string()][..])
        );
        assert_eq!(bots[2].name.as_deref(), Some("cg"));
        assert_eq!(
            bots[2].protocol,
            Some(Protocol::Speaks(referee::dialect::Dialect::Codingame))
        );
        assert_eq!(bots[2].words, ["python3", "my bot.py"]);
        // What its author types to run it again, written from the fields.
        assert_eq!(bots[2].command_line(), "codingame:python3 'my bot.py'");
        // A program named `v2=mcts` is looked for, not the built-in engine.
        let e =
            check("[[bot]]\ncommand = \"v2=mcts\"\n[[bot]]\ncommand = \"random\"\n").unwrap_err();
        assert!(e.message.contains("'v2=mcts' not found on PATH"), "{e}");
    }

    #[test]
    fn the_command_line_replaces_a_files_values_by_merging_inputs() {
        let over = Input {
            event: EventInput {
                games: Some(Given::flag(6, "--games")),
                ..EventInput::default()
            },
            time: TimeInput {
                move_ms: Some(Given::flag(crate::millis::MoveMs::constant(300), "--time")),
                ..TimeInput::default()
            },
            ..Input::default()
        };
        let t = parse_with(
            "t.toml",
            &format!("games = 4\n[time]\nmove-ms = 40\nfirst-move-ms = 400\n{TWO}"),
            Path::new(env!("CARGO_MANIFEST_DIR")),
            Path::new("/opt/arena"),
            over,
        )
        .unwrap();
        assert_eq!(t.games, 6);
        assert_eq!(t.time.move_time, Some(Duration::from_millis(300)));
        assert_eq!(
            t.time.first_move_time,
            Some(Duration::from_millis(400)),
            "the file's own first move stays"
        );
        // A flag's mistake names the flag, not a line of the file.
        let over = Input {
            event: EventInput {
                games: Some(Given::flag(3, "--games")),
                ..EventInput::default()
            },
            ..Input::default()
        };
        let e =
            parse_with("t.toml", TWO, Path::new("."), Path::new("/opt/arena"), over).unwrap_err();
        assert_eq!((e.file.as_deref(), e.line), (None, None));
        assert!(
            e.message
                .starts_with("--games 3: games are played in colour-swapped pairs"),
            "{e}"
        );
    }
}
