//! The front door of every run: a run's settings, decided once.
//!
//! Both ways of starting a run produce one [`Input`]: the command line's flags
//! (`match`, `gauntlet`, `sprt`, `rate`, and the values `tournament` takes over a
//! file's) and a tournament file's keys ([`super::config`]). Every value in it is
//! already of its type and in its range, with where it was written. [`validate`]
//! turns it into [`RunSettings`] once, by one set of rules: one time control
//! ([`time`]), one bot description and resolver ([`bot`],
//! [`super::bot_spec`]), the refusals of rules a bot cannot be told and of
//! openings it cannot be started from, the format and its parameters
//! ([`event`]). Everything after — builds, isolation, the results directory, the
//! games — reads [`RunSettings`], never flags or keys.
//!
//! Nothing here starts a process or writes a file; it reads the bots' programs,
//! an opening book and, for seeding, an earlier run's games.

pub mod bot;
pub mod builds;
pub mod display;
pub mod event;
pub mod input;
pub mod league;
pub mod rules;
pub mod time;
pub mod words;

use crate::tournament::governor::GovernorMode;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use referee::bot::ResourceLimits;
use referee::bot::sandbox::SandboxMode;
use referee::dialect::Dialect;
use referee::game::TimeControl;
use uttt::rules::Rules;

use self::builds::{BuildStep, LeftOut, OnBuildFailure, OnPreflightFailure};
use self::display::Display;
use self::input::{BotEntry, Input, Source};
use super::bot_spec::{BotSpec, Program, Resolver, dedupe_names, mib_to_bytes};
use super::entrant::Entrant;
use super::format::{Drawn, Format};
use super::openings::{BookFileError, Openings, read_book_file};
use super::schedule::{Plan, Schedule};
use crate::defaults;
use crate::results::manifest::ProcessPolicy;

pub use self::input::Given;

/// A run's settings: who plays, how, how often, under which conditions.
#[derive(Clone, Debug)]
pub struct RunSettings {
    /// Its name (the default results directory's, tournament.json's).
    pub name: String,
    /// The seed, if one was written.
    pub seed: Option<u64>,
    /// Rules of every game.
    pub rules: Rules,
    /// Why the rules are these when nobody wrote them (foreign bots' own rules),
    /// said before the games.
    pub rules_note: Option<String>,
    /// Who plays whom.
    pub format: Format,
    /// A gauntlet's pass mark: the least share of the points its challenger
    /// must score, else the run fails (exit 1).
    pub min_score: Option<f64>,
    /// Games per pairing.
    pub games: u32,
    /// Games at once, if written.
    pub concurrency: Option<usize>,
    /// The results directory, if written.
    pub out: Option<PathBuf>,
    /// Process reuse.
    pub processes: ProcessPolicy,
    /// Time to start and answer the handshake.
    pub handshake: Duration,
    /// Openings.
    pub openings: Openings,
    /// The bots, each with its time control.
    pub entrants: Vec<Entrant>,
    /// The time control before time odds (for the banner and the dry run).
    pub time: TimeControl,
    /// The build steps, by bot name (run before the first game, see
    /// [`super::build`]).
    pub builds: BTreeMap<String, BuildStep>,
    /// Each bot's command as written (protocol prefix and arguments included),
    /// by name: what its author types to run it (`arena check "…"` in its dir).
    pub written: BTreeMap<String, String>,
    /// Bots that cannot take part, with why (reported, not played).
    pub left_out: Vec<LeftOut>,
    /// Hidden directories a glob passed over (reported, not played).
    pub hidden: Vec<PathBuf>,
    /// What a failed build does to the run.
    pub on_build_failure: OnBuildFailure,
    /// How long one build step may run.
    pub build_limit: Duration,
    /// What a submission that cannot start does to the run (a bot the file
    /// or the command line names always stops it).
    pub on_preflight_failure: OnPreflightFailure,
    /// How the run is shown (never how it is played).
    pub display: Display,
    /// The command line's sandbox mode, replacing every bot's own when the bots
    /// are isolated (after their builds, which run under their own).
    pub sandbox: Option<SandboxMode>,
    /// A league's settings (`[league]`), whose levels are among the entrants.
    pub league: Option<league::League>,
    /// Whether the governor keeps timed bots served (`--governor`, a file's
    /// `governor`; see `tournament::governor`).
    pub governor: GovernorMode,
    /// The longest it makes a game wait for the machine (`--governor-wait`,
    /// `governor-wait-s`).
    pub governor_wait: std::time::Duration,
}

/// Settings that cannot be used: where (the file and line, when a file says
/// it) and what, with the fix.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", place(file.as_deref(), *line))]
pub struct SettingsError {
    /// The file, when the problem is in one.
    pub file: Option<String>,
    /// 1-based line, when the problem is on one.
    pub line: Option<usize>,
    /// What is wrong and how to fix it.
    pub message: String,
}

/// `file:line: `, `file: ` or nothing.
fn place(file: Option<&str>, line: Option<usize>) -> String {
    match (file, line) {
        (Some(file), Some(line)) => format!("{file}:{line}: "),
        (Some(file), None) => format!("{file}: "),
        (None, _) => String::new(),
    }
}

/// Where the messages of one input point.
#[derive(Clone, Copy, Debug)]
pub struct Where<'a> {
    /// The tournament file, if the input has one.
    pub file: Option<&'a str>,
}

impl Where<'_> {
    /// An error about the value written at `source`.
    pub fn error(&self, source: &Source, message: impl Into<String>) -> SettingsError {
        match source {
            Source::Line(line) => SettingsError {
                file: self.file.map(str::to_string),
                line: Some(*line),
                message: message.into(),
            },
            Source::Flag(_) | Source::Command => SettingsError {
                file: None,
                line: None,
                message: message.into(),
            },
        }
    }

    /// An error about the whole input.
    pub fn whole(&self, message: impl Into<String>) -> SettingsError {
        SettingsError {
            file: self.file.map(str::to_string),
            line: None,
            message: message.into(),
        }
    }
}

/// The settings of `input`, every rule checked; `arena_exe` serves the built-in
/// bots.
///
/// # Errors
/// The first value that cannot be used, naming the flag or the file and line,
/// and the fix.
pub fn validate(mut input: Input, arena_exe: &Path) -> Result<RunSettings, SettingsError> {
    let file = input.file.clone();
    let at = Where {
        file: file.as_deref(),
    };
    let games = games(&input, &at)?;
    let league = match &input.league {
        Some(table) => {
            let decided = league::decide(table, games, &at)?;
            input.bots.extend(league_levels(&decided, &table.source));
            Some(decided)
        }
        None => None,
    };
    let time = time::time_control(&input.time).map_err(|e| at.error(&e.source, e.message))?;
    let league = league.map(|l| league::League {
        timed: time.nodes.is_none(),
        ..l
    });
    let limits = limits(&input);
    let file_sandbox = input
        .sandbox
        .as_ref()
        .map_or(SandboxMode::default(), |s| s.value);
    let resolver = Resolver {
        base_dir: input.base_dir.clone(),
        arena_exe: arena_exe.to_path_buf(),
        limits,
    };
    let mut bots = Bots::resolve(&input, &resolver, (time, file_sandbox), &at)?;
    bots.exclude(&input.exclude, &at)?;
    let mut entrants = bots.entrants;
    // A file must list two bots; the command line's commands take theirs as
    // required arguments (`arena check` one, to check it alone).
    if input.file.is_some() && entrants.len() < 2 {
        let left_out = &bots.left_out;
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
        return Err(at.whole(format!(
            "a tournament needs at least 2 bots, found {}{also}: add [[bot]] tables with a command (e.g. command = \"mcts\"), or a glob of submission directories",
            entrants.len()
        )));
    }
    let run_rules = rules::decide(&input, &entrants, &bots.sources)
        .map_err(|e| at.error(&e.source, e.message))?;
    let rules = run_rules.rules;
    let openings = openings(&input, rules, &at)?;
    refuse_openings_bots_cannot_be_told(&input, &entrants, &bots.sources, &openings, &at)?;
    let format = event::format(&input.event, &mut entrants, &input.base_dir, &at)?;
    let min_score = event::pass_mark(&input.event, &format, &at)?;
    Ok(RunSettings {
        name: input
            .name
            .as_deref()
            .map_or_else(|| "tournament".to_string(), run_name),
        seed: input.seed,
        rules,
        rules_note: run_rules.note,
        format,
        min_score,
        games,
        concurrency: input.concurrency,
        governor: input.governor.as_ref().map(|g| g.value).unwrap_or_default(),
        governor_wait: input.governor_wait_s.map_or(
            crate::tournament::governor::MAX_WAIT,
            std::time::Duration::from_secs,
        ),
        out: input.out.clone(),
        // A league plays every game in fresh processes: a bot that keeps
        // state across games then plays each game the same whatever the
        // order its games come in, so copies get the same games.
        processes: if league.is_some() {
            ProcessPolicy::PerGame
        } else {
            input.processes.unwrap_or(ProcessPolicy::Reuse)
        },
        handshake: input.handshake.unwrap_or(defaults::HANDSHAKE).duration(),
        openings,
        entrants,
        time,
        builds: bots.builds,
        written: bots.written,
        left_out: bots.left_out,
        hidden: input.hidden.clone(),
        on_build_failure: input.on_build_failure.unwrap_or_default(),
        build_limit: input.build_limit.unwrap_or(defaults::BUILD_LIMIT),
        on_preflight_failure: input.on_preflight_failure.unwrap_or_default(),
        display: Display {
            pace: input
                .display
                .pace_ms
                .as_ref()
                .map_or(Duration::ZERO, |p| p.value.duration()),
            audience: input
                .display
                .audience
                .as_ref()
                .map(|a| a.value)
                .unwrap_or_default(),
        },
        sandbox: input.sandbox_override,
        league,
    })
}

/// A league's levels as bots of the run: each at its fixed work, the safety
/// net its only deadline, as `arena rate` plays them.
fn league_levels(league: &league::League, source: &Source) -> Vec<BotEntry> {
    let net = input::TimeInput::fixed(
        defaults::SAFETY_NET_MOVE_TIME,
        defaults::SAFETY_NET_FIRST_MOVE_TIME,
        defaults::SAFETY_NET_MARGIN,
    );
    league
        .levels
        .iter()
        .map(|level| BotEntry {
            source: source.clone(),
            command_source: source.clone(),
            time: Some(net.clone()),
            ..BotEntry::from_flag(
                bot::BotInput {
                    words: vec![level.name.clone()],
                    ..bot::BotInput::default()
                },
                "[league] levels",
            )
        })
        .collect()
}

/// A run's name made safe for a directory name.
fn run_name(name: &str) -> String {
    super::bot_spec::sanitize_name(name)
}

/// Games per pairing: a tournament file's (or the flag that replaces it) must be
/// even, colour-swapped pairs; a command's own are checked by the command.
fn games(input: &Input, at: &Where<'_>) -> Result<u32, SettingsError> {
    let Some(games) = &input.event.games else {
        return Ok(defaults::GAMES_PER_PAIRING);
    };
    let n = games.value;
    if input.file.is_some() && (n == 0 || n % 2 == 1) {
        return Err(at.error(
            &games.source,
            match games.source {
                Source::Line(_) => format!(
                    "games = {n} is odd, but games are played in colour-swapped pairs: use {} or {}",
                    n - 1,
                    n + 1
                )
                .replace("use 0 or", "use"),
                _ => format!(
                    "--games {n}: games are played in colour-swapped pairs: use an even number from 2"
                ),
            },
        ));
    }
    Ok(n)
}

/// The openings: random plies, or a book read now.
fn openings(input: &Input, rules: Rules, at: &Where<'_>) -> Result<Openings, SettingsError> {
    let o = &input.openings;
    match (&o.random_plies, &o.book) {
        (Some(_), Some(book)) => Err(at.error(
            &book.source,
            "choose one kind of opening: random-plies or file, not both",
        )),
        (Some(k), None) => Ok(Openings::RandomPlies(k.value)),
        (None, Some(book)) => {
            let path = &book.value;
            read_book_file(path, rules)
                .map(Openings::Book)
                .map_err(|e| match (e, &book.source) {
                    (BookFileError::Unreadable(e), Source::Line(_)) => at.error(
                        &book.source,
                        format!("cannot read opening file {}: {e}", path.display()),
                    ),
                    (BookFileError::Unreadable(e), _) => SettingsError {
                        file: None,
                        line: None,
                        message: format!("--openings {}: {e}", path.display()),
                    },
                    (BookFileError::Bad(e), _) => SettingsError {
                        file: Some(path.display().to_string()),
                        line: Some(e.line),
                        message: e.message,
                    },
                })
        }
        (None, None) => Ok(Openings::None),
    }
}

/// Every bot's limits (each bot may set its own memory and CPU).
fn limits(input: &Input) -> ResourceLimits {
    let l = &input.limits;
    let defaults = ResourceLimits::default();
    let mib = |v: Option<u64>| v.map(mib_to_bytes);
    let memory = mib(l.memory_mb.as_ref().map(|m| m.value));
    ResourceLimits {
        memory: memory.or(defaults.memory),
        address_space: memory,
        cpu_seconds: l.cpu_seconds,
        file_size: mib(l.file_size_mb).or(defaults.file_size),
        open_files: l.open_files.or(defaults.open_files),
        processes: l.processes.or(defaults.processes),
    }
}

/// The bots of a run, resolved.
#[derive(Debug)]
struct Bots {
    entrants: Vec<Entrant>,
    /// Where each entrant's protocol (else its command) was written, in the
    /// entrants' order.
    sources: Vec<Source>,
    builds: BTreeMap<String, BuildStep>,
    written: BTreeMap<String, String>,
    left_out: Vec<LeftOut>,
}

impl Bots {
    /// Resolves every bot of `input`: a submission that cannot run is left out
    /// with why, any other bot stops the run. On the command line, repeated
    /// names get `-2`, `-3`…; in a file they are refused.
    fn resolve(
        input: &Input,
        resolver: &Resolver,
        (time, sandbox): (TimeControl, SandboxMode),
        at: &Where<'_>,
    ) -> Result<Bots, SettingsError> {
        let mut bots = Bots {
            entrants: Vec::new(),
            sources: Vec::new(),
            builds: BTreeMap::new(),
            written: BTreeMap::new(),
            left_out: input.left_out.clone(),
        };
        // Names that two submissions wanted: every later one is left out too.
        let mut contested = std::collections::BTreeSet::new();
        for entry in &input.bots {
            let entrant = match entrant(entry, input, resolver, (time, sandbox), at) {
                Ok(entrant) => entrant,
                // A student's bot.toml naming a missing interpreter is the
                // student's to fix: the others still play.
                Err(e) if entry.submitted => {
                    bots.left_out.push(LeftOut {
                        name: entry.bot.name.clone().unwrap_or_default(),
                        why: e.message,
                    });
                    continue;
                }
                Err(e) => return Err(e),
            };
            let name = entrant.spec.name.clone();
            if entry.submitted
                && let Err(why) = super::submissions::confine(
                    &entrant.spec,
                    &resolver.arena_exe,
                    input.allow_builtin.unwrap_or(false),
                )
            {
                let why = format!("{}: {why}", folder_of(&entrant));
                bots.left_out.push(LeftOut { name, why });
                continue;
            }
            if input.file.is_some() && bots.clashes(&entrant, entry.submitted, &mut contested) {
                continue;
            }
            if input.file.is_some() && bots.entrants.iter().any(|e| e.spec.name == name) {
                return Err(at.error(
                    &entry.source,
                    format!("two bots are named '{name}': give each a distinct name = \"…\""),
                ));
            }
            // A submission always runs from a copy, built or not.
            if entry.build.is_some() || entry.submitted {
                let source = entrant
                    .spec
                    .command
                    .working_dir
                    .clone()
                    .unwrap_or_else(|| input.base_dir.clone());
                bots.builds.insert(
                    name.clone(),
                    BuildStep {
                        command: entry.build.as_ref().map(|b| b.value.clone()),
                        source,
                        submitted: entry.submitted,
                        cap: entry
                            .submitted
                            .then(|| input.submission_cap.unwrap_or_default()),
                    },
                );
            }
            bots.written.insert(name, entry.bot.command_line());
            bots.sources.push(
                entry
                    .protocol_source
                    .clone()
                    .unwrap_or_else(|| entry.command_source.clone()),
            );
            bots.entrants.push(entrant);
        }
        if input.file.is_none() {
            let mut names: Vec<String> =
                bots.entrants.iter().map(|e| e.spec.name.clone()).collect();
            dedupe_names(&mut names);
            for (entrant, name) in bots.entrants.iter_mut().zip(names) {
                if entrant.spec.name != name {
                    if let Some(written) = bots.written.remove(&entrant.spec.name) {
                        bots.written.insert(name.clone(), written);
                    }
                    entrant.spec.name = name;
                }
            }
        }
        Ok(bots)
    }

    /// Leaves out the bots `names` names, by hand (`--exclude`): any bot of
    /// the run, a submission or one the file names. A name already left out
    /// (its build or its folder) is fine; a name of no bot is refused with the
    /// closest one.
    fn exclude(&mut self, names: &[Given<String>], at: &Where<'_>) -> Result<(), SettingsError> {
        for name in names {
            let wanted = &name.value;
            let Some(i) = self.entrants.iter().position(|e| &e.spec.name == wanted) else {
                if self.left_out.iter().any(|l| &l.name == wanted) {
                    continue;
                }
                let known = self.entrants.iter().map(|e| e.spec.name.as_str());
                return Err(at.error(
                    &name.source,
                    format!(
                        "--exclude {wanted}: no bot of this run is named '{wanted}'{}",
                        crate::suggest::did_you_mean(wanted, known)
                    ),
                ));
            };
            self.entrants.remove(i);
            self.sources.remove(i);
            self.builds.remove(wanted);
            self.written.remove(wanted);
            self.left_out.push(LeftOut {
                name: wanted.clone(),
                why: "left out by hand (--exclude)".into(),
            });
        }
        Ok(())
    }

    /// Whether `entrant` may not take its name, because another bot has it:
    /// a submission never takes a name from another bot, so every folder whose
    /// name clashes is left out (naming the others), and the file's own bots
    /// keep theirs whatever their order. Leaves out whom it must.
    fn clashes(
        &mut self,
        entrant: &Entrant,
        submitted: bool,
        contested: &mut std::collections::BTreeSet<String>,
    ) -> bool {
        let name = entrant.spec.name.clone();
        let clash = self.entrants.iter().position(|e| e.spec.name == name);
        let here = folder_of(entrant);
        let also = |there: &str| {
            format!("its bot name '{name}' is also that of {there}: rename one of the folders")
        };
        if let Some(i) = clash.filter(|_| self.builds.get(&name).is_some_and(|b| b.submitted)) {
            // The earlier bot of this name is a submission: it yields to a bot
            // of the file, and to no other submission.
            let there = folder_of(&self.entrants.remove(i));
            self.sources.remove(i);
            self.written.remove(&name);
            self.builds.remove(&name);
            let why = if submitted {
                format!("{there}: {}", also(&here))
            } else {
                format!(
                    "{there}: the tournament file names another bot '{name}': rename the folder"
                )
            };
            self.left_out.push(LeftOut {
                name: name.clone(),
                why,
            });
            if submitted {
                let why = format!("{here}: {}", also(&there));
                contested.insert(name.clone());
                self.left_out.push(LeftOut { name, why });
                return true;
            }
            false
        } else if submitted && (clash.is_some() || contested.contains(&name)) {
            let why = if clash.is_some() {
                format!("{here}: the tournament file names another bot '{name}': rename the folder")
            } else {
                format!("{here}: {}", also("other folders"))
            };
            contested.insert(name.clone());
            self.left_out.push(LeftOut { name, why });
            true
        } else {
            false
        }
    }
}

/// The folder a bot runs in, as shown in messages (empty without one).
fn folder_of(entrant: &Entrant) -> String {
    entrant
        .spec
        .command
        .working_dir
        .as_ref()
        .map_or_else(String::new, |d| d.display().to_string())
}

/// One bot, resolved, under its sandbox mode, limits and time.
fn entrant(
    entry: &BotEntry,
    input: &Input,
    resolver: &Resolver,
    (time, sandbox): (TimeControl, SandboxMode),
    at: &Where<'_>,
) -> Result<Entrant, SettingsError> {
    if let (Some(dir), Some(source)) = (&entry.bot.dir, &entry.dir_source)
        && !dir.is_dir()
    {
        let shown = dir.strip_prefix(&input.base_dir).unwrap_or(dir);
        return Err(at.error(
            source,
            format!("dir \"{}\" is not a directory", shown.display()),
        ));
    }
    let program = if entry.build.is_some() {
        Program::MadeByBuild
    } else {
        Program::Exists
    };
    let mut spec: BotSpec = resolver
        .resolve_input(&entry.bot, program)
        .map_err(|e| match entry.command_source {
            Source::Line(_) => at.error(&entry.command_source, e.problem),
            _ => at.error(&entry.command_source, e.to_string()),
        })?;
    let command = &mut spec.command;
    command.sandbox.mode = entry.sandbox.unwrap_or(sandbox);
    let flag_memory = input
        .limits
        .memory_mb
        .as_ref()
        .filter(|m| matches!(m.source, Source::Flag(_)));
    if let Some(mib) = flag_memory.map(|m| m.value).or(entry.memory_mb) {
        command.limits = command.limits.with_memory(mib_to_bytes(mib));
    }
    if let Some(cpu) = entry.cpu_seconds {
        command.limits.cpu_seconds = Some(cpu);
    }
    command.sandbox.read_only.clone_from(&entry.read_only);
    if spec.dialect != Dialect::Uttt && spec.builtin {
        return Err(at.error(
            &entry.command_source,
            "built-in bots speak the uttt protocol: remove protocol",
        ));
    }
    let time = match &entry.time {
        // One clock for the whole run: a bot's own times keep the run's.
        Some(own) => TimeControl {
            clock_mode: time.clock_mode,
            ..time::time_control(own).map_err(|e| at.error(&e.source, e.message))?
        },
        None => time,
    };
    let time = match &entry.time_odds {
        Some(odds) => time::scaled(time, odds.value),
        None => time,
    };
    Ok(Entrant { spec, time })
}

/// Refuses openings a dialect that is told only the last move cannot start from.
fn refuse_openings_bots_cannot_be_told(
    input: &Input,
    entrants: &[Entrant],
    sources: &[Source],
    openings: &Openings,
    at: &Where<'_>,
) -> Result<(), SettingsError> {
    let in_file = input.file.is_some();
    if openings.has_moves()
        && let Some((i, e)) = entrants
            .iter()
            .enumerate()
            .find(|(_, e)| !e.spec.dialect.can_start_from_opening())
    {
        let o = &input.openings;
        let what = match (o.book.as_ref().map(|b| &b.source), in_file) {
            (Some(_), true) => "[openings] file",
            (None, true) => "[openings] random-plies",
            (Some(_), false) => "--openings",
            (None, false) => "--random-plies",
        };
        return Err(at.error(
            &sources[i],
            opening_refused_message(&e.spec.name, e.spec.dialect, what),
        ));
    }
    Ok(())
}

/// Why a bot of `dialect` cannot be started from an opening (`what`: the flag or
/// key that asked for one), and what to do.
pub fn opening_refused_message(name: &str, dialect: Dialect, what: &str) -> String {
    format!(
        "bot '{name}' speaks {}, which tells a bot only its opponent's last move, never the \
         opening moves: started from an opening ({what}) it would play on a board it does not \
         know, so its crashes and illegal moves would not be its own. Play it without \
         openings (remove {what}), or let it speak riddles or uttt, which send the whole position",
        dialect.name()
    )
}

impl RunSettings {
    /// Caps every bot's memory at `mib` MiB when given (`--memory-mb` over a
    /// file's).
    pub fn limit_memory(&mut self, mib: Option<u64>) {
        if let Some(mib) = mib {
            for entrant in &mut self.entrants {
                let limits = &mut entrant.spec.command.limits;
                *limits = limits.with_memory(mib_to_bytes(mib));
            }
        }
    }

    /// The names of the bots, in order.
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
                let plan = Plan {
                    bots: n,
                    format: self.format.clone(),
                    games_per_pairing: g,
                    openings: Openings::None,
                    rules: self.rules,
                    seed,
                };
                let schedule = Schedule::new(plan, None).map_err(|e| e.to_string())?;
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
        self.written.remove(name);
        self.left_out.push(LeftOut {
            name: name.to_string(),
            why,
        });
        Ok(())
    }
}
