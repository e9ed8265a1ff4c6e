//! `tournament.json`: what was played and how — the resolved configuration, the
//! seed, the arena version, start and end times, each bot's failure counts and how
//! each bot was isolated. Written atomically ([`write_atomic`]) at the start and
//! the end of a run. Its `schedule` part decides whether an existing results
//! directory may be resumed: it must be identical.
//!
//! This module holds what the file says, as data: the tournament code fills it in
//! ([`ScheduleKey`] from a schedule, [`IsolationReport`] from the isolation plan),
//! and the report reads it. It must not depend on either.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use anyhow::Context as _;
use referee::bot::{BotCommand, ResourceLimits};
use serde::{Deserialize, Serialize};
use uttt::result::EndReason;

use super::atomic::{now, write_atomic};

/// File name in the results directory.
pub const MANIFEST_FILE: &str = "tournament.json";

/// Everything the schedule and the games depend on. Two runs with equal
/// `ScheduleKey`s play the same games, so one may resume the other.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScheduleKey {
    /// Tournament seed.
    pub seed: u64,
    /// Rules.
    pub rules: String,
    /// `round-robin` or `gauntlet:<challenger>`.
    pub format: String,
    /// Games per pairing.
    pub games_per_pairing: u32,
    /// Openings, described.
    pub openings: String,
    /// The bots in order.
    pub bots: Vec<BotEntry>,
    /// How moves were charged: `fair`, `wall` or `cpu` (the clock `auto`
    /// chose, never `auto`). Manifests written before the fair clock existed
    /// were played on the wall clock and read as `wall`.
    #[serde(default = "wall_clock")]
    pub clock: String,
}

fn wall_clock() -> String {
    "wall".into()
}

/// One bot as run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BotEntry {
    /// Name in results.
    pub name: String,
    /// Command line.
    pub command: String,
    /// Protocol dialect.
    pub protocol: String,
    /// Per-move ms.
    pub move_ms: Option<u64>,
    /// First-move ms.
    pub first_move_ms: Option<u64>,
    /// Margin ms.
    pub margin_ms: u64,
    /// Game clock ms.
    pub clock_ms: Option<u64>,
    /// Clock increment ms.
    pub increment_ms: Option<u64>,
    /// Nodes per move (fixed work), if set. Absent from manifests written before
    /// it existed, which then read as no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
}

/// One batch of a distributed SPRT (`arena sprt --batch K --pairs M`) and the test
/// it belongs to: every batch of a test must agree on everything but `index`, which
/// `arena sprt --decide` checks before it counts a game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtBatchEntry {
    /// Which batch, from 1.
    pub index: u32,
    /// Colour-swapped pairs in every batch of the test.
    pub pairs: u32,
    /// Elo difference under H0.
    pub elo0: f64,
    /// Elo difference under H1.
    pub elo1: f64,
    /// Type I error rate.
    pub alpha: f64,
    /// Type II error rate.
    pub beta: f64,
    /// `normalized` or `logistic`.
    pub model: String,
}

/// The whole manifest.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Manifest {
    /// `arena` version that wrote it.
    pub arena_version: String,
    /// Tournament name.
    pub name: String,
    /// What decides the games.
    pub schedule: ScheduleKey,
    /// Games at once.
    pub concurrency: usize,
    /// Process policy.
    pub processes: ProcessPolicy,
    /// `K/N` when sharded.
    pub shard: Option<String>,
    /// Games in this run (shard).
    pub games_total: u64,
    /// Games finished so far.
    pub games_done: u64,
    /// RFC 3339 UTC start of the first run on this directory.
    pub started_at: String,
    /// RFC 3339 UTC end of the last run, when it completed.
    pub finished_at: Option<String>,
    /// Per bot: how many games it lost by each kind of fault (timeout, crash…).
    pub failures: BTreeMap<String, BTreeMap<EndReason, u32>>,
    /// Bot isolation in the latest run: the machine's layers and each bot's.
    #[serde(default)]
    pub sandbox: Option<IsolationReport>,
    /// The SPRT batch this directory holds, if it holds one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt_batch: Option<SprtBatchEntry>,
    /// How the latest run on this directory was shown. Not part of what
    /// decides the games: a run resumed at another pace plays the same games.
    #[serde(default)]
    pub display: DisplayRecord,
    /// Per bot: how it was started, as data. `schedule`'s `command` is text for
    /// people; whoever starts a bot again (`arena repro`) builds it from these
    /// fields, so nothing the arena wrote is parsed back as a bot description.
    /// Absent from manifests written before it existed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub launch: BTreeMap<String, Launch>,
    /// The bots the latest run left out (a submission that did not build or
    /// could not start, `--exclude`), each with why as the run said it: the
    /// live page and the report name them. Not part of what decides the games.
    /// Absent when none, and from manifests written before it existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<LeftOutRecord>,
}

/// A bot a run left out, and why (the run's words: `build failed (exit code
/// 1): main.cpp:1:5: …`, `it could not be started: …`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftOutRecord {
    /// Its name.
    pub name: String,
    /// Why, with the fix when there is one.
    pub why: String,
}

/// How a run was shown (`--pace`, `--audience`, `[display]`), for the pages
/// that show it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DisplayRecord {
    /// The least time between two marks of a game, in ms (0: none).
    pub pace_ms: u64,
    /// Who the words at the end were for.
    pub audience: crate::audience::Audience,
}

/// How one bot was started, as the fields a bot description has (not its text).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Launch {
    /// A built-in engine: `words` are its name and options.
    pub builtin: bool,
    /// The program (absolute, as resolved) and its arguments, one word each.
    pub words: Vec<String>,
    /// The directory it ran in, when it had one of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<std::path::PathBuf>,
    /// The limits it was started with. Absent from manifests written before
    /// they were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<LimitsRecord>,
}

impl Launch {
    /// How `command` starts a bot (`builtin`: an engine of `arena bot`).
    pub fn of(builtin: bool, command: &BotCommand) -> Launch {
        let text = |s: &std::ffi::OsStr| s.to_string_lossy().into_owned();
        let words = if builtin {
            // `arena bot NAME OPTIONS…`: the engine's own words follow `bot`.
            command.args.iter().skip(1).map(|a| text(a)).collect()
        } else {
            std::iter::once(text(command.program.as_os_str()))
                .chain(command.args.iter().map(|a| text(a)))
                .collect()
        };
        Launch {
            builtin,
            words,
            dir: command.working_dir.clone(),
            limits: Some(LimitsRecord::from(command.limits)),
        }
    }

    /// Whether it is a built-in engine of fixed work (a reference level, or
    /// `mcts --playouts N`): it plays the same moves whatever CPU it gets, so
    /// its share of the CPU decides nothing about a result. Anything else may
    /// think by the clock.
    pub fn fixed_work(&self) -> bool {
        self.builtin
            && self.words.split_first().is_some_and(|(name, args)| {
                bots::registry::work(name, args) == Some(bots::engine::Work::Fixed)
            })
    }
}

/// The limits a bot was started with, as [`ResourceLimits`] holds them; `null`
/// is no limit. Whoever reads them back (`arena repro`, from a directory that
/// may come from anyone) checks each against the range a tournament file
/// accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LimitsRecord {
    /// Memory of the whole process tree, in bytes.
    pub memory_bytes: Option<u64>,
    /// Address space of each process, in bytes.
    pub address_space_bytes: Option<u64>,
    /// CPU seconds.
    pub cpu_seconds: Option<u64>,
    /// The largest file it may write, in bytes.
    pub file_size_bytes: Option<u64>,
    /// Open descriptors per process.
    pub open_files: Option<u64>,
    /// Processes and threads (applied with a uid of its own).
    pub processes: Option<u64>,
}

impl From<ResourceLimits> for LimitsRecord {
    fn from(l: ResourceLimits) -> LimitsRecord {
        LimitsRecord {
            memory_bytes: l.memory,
            address_space_bytes: l.address_space,
            cpu_seconds: l.cpu_seconds,
            file_size_bytes: l.file_size,
            open_files: l.open_files,
            processes: l.processes,
        }
    }
}

impl fmt::Display for LimitsRecord {
    /// "memory 64 MiB (each process 64 MiB), files up to 256 MiB, open files
    /// 1024, processes 256, CPU unlimited".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const MIB: u64 = 1024 * 1024;
        let bytes = |b: Option<u64>| match b {
            None => "unlimited".to_string(),
            Some(b) if b % MIB == 0 => format!("{} MiB", b / MIB),
            Some(b) => format!("{b} bytes"),
        };
        let count = |n: Option<u64>| n.map_or("unlimited".to_string(), |n| n.to_string());
        write!(f, "memory {}", bytes(self.memory_bytes))?;
        if self.address_space_bytes.is_some() {
            write!(f, " (each process {})", bytes(self.address_space_bytes))?;
        }
        write!(
            f,
            ", files up to {}, open files {}, processes {}, CPU {}",
            bytes(self.file_size_bytes),
            count(self.open_files),
            count(self.processes),
            self.cpu_seconds
                .map_or("unlimited".to_string(), |s| format!("{s} s"))
        )
    }
}

/// What one bot's games were played under besides its command and times: its
/// limits, the sandbox mode asked for, and the clock. A failure bundle keeps a
/// copy for each seat, since a run resumed with other limits rewrites the
/// manifest but not the games already played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conditions {
    /// Its limits.
    pub limits: LimitsRecord,
    /// The sandbox mode asked for (`auto`, `none`, `strict` or a layer list),
    /// when the run recorded one.
    pub sandbox: Option<String>,
    /// How its moves were charged: `fair`, `wall` or `cpu`.
    pub clock: String,
}

impl ScheduleKey {
    /// What differs between two keys, in words (for the refusal to resume).
    pub fn difference(&self, new: &ScheduleKey) -> String {
        if self.seed != new.seed {
            return format!("seed {} there, {} here", self.seed, new.seed);
        }
        if self.clock != new.clock {
            return format!(
                "the {} clock there, the {} clock here: resume with --clock {} (or `clock = \"{}\"` under [time])",
                self.clock, new.clock, self.clock, self.clock
            );
        }
        if self.bots != new.bots {
            let names = |k: &ScheduleKey| {
                k.bots
                    .iter()
                    .map(|b| b.name.clone())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return format!(
                "bots, their commands or times differ: {} there, {} here",
                names(self),
                names(new)
            );
        }
        if self.rules != new.rules {
            return format!("rules {} there, {} here", self.rules, new.rules);
        }
        if self.format != new.format || self.games_per_pairing != new.games_per_pairing {
            return "format or games per pairing differ".into();
        }
        "openings differ".into()
    }
}

impl Manifest {
    /// A manifest for a run starting now.
    pub fn new(
        name: &str,
        schedule: ScheduleKey,
        processes: ProcessPolicy,
        concurrency: usize,
        shard: Option<String>,
        games_total: u64,
    ) -> Manifest {
        Manifest {
            arena_version: env!("CARGO_PKG_VERSION").into(),
            name: name.to_string(),
            schedule,
            concurrency,
            processes,
            shard,
            games_total,
            games_done: 0,
            started_at: now(),
            display: DisplayRecord::default(),
            finished_at: None,
            failures: BTreeMap::new(),
            sandbox: None,
            sprt_batch: None,
            launch: BTreeMap::new(),
            left_out: Vec::new(),
        }
    }

    /// Reads the manifest in `dir`, if there is one.
    ///
    /// # Errors
    /// The file exists but cannot be read or parsed.
    pub fn load(dir: &Path) -> anyhow::Result<Option<Manifest>> {
        let path = dir.join(MANIFEST_FILE);
        let text = match super::nofollow::read(&path)
            .and_then(|bytes| String::from_utf8(bytes).map_err(std::io::Error::other))
        {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
        let manifest = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a tournament manifest", path.display()))?;
        Ok(Some(manifest))
    }

    /// What `name`'s games were played under in the latest run, when this
    /// manifest recorded its limits.
    pub fn conditions(&self, name: &str) -> Option<Conditions> {
        let limits = self.launch.get(name)?.limits?;
        Some(Conditions {
            limits,
            sandbox: self
                .sandbox
                .as_ref()
                .and_then(|s| s.bots.get(name))
                .map(|b| b.mode.clone()),
            clock: self.schedule.clock.clone(),
        })
    }

    /// Writes the manifest atomically into `dir`.
    ///
    /// # Errors
    /// Writing, syncing or renaming failed.
    pub fn save(&self, dir: &Path) -> anyhow::Result<()> {
        let json = serde_json::to_string_pretty(self)?;
        write_atomic(&dir.join(MANIFEST_FILE), json.as_bytes())
    }
}

/// How bot processes are used across games.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProcessPolicy {
    /// One process per bot kept across its games (faster; a bot must handle
    /// several `newgame`s).
    Reuse,
    /// A fresh process for every game.
    PerGame,
}

impl ProcessPolicy {
    /// The word in files: `reuse` or `per-game`.
    pub const fn name(self) -> &'static str {
        match self {
            ProcessPolicy::Reuse => "reuse",
            ProcessPolicy::PerGame => "per-game",
        }
    }
}

impl fmt::Display for ProcessPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One isolation layer on this machine, as written to `tournament.json` and
/// `arena doctor --json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayerReport {
    /// `rlimits`, `user`, `landlock`, `seccomp`, `bwrap` or `cgroup`.
    pub layer: String,
    /// Whether it works here.
    pub available: bool,
    /// What it does here, or why it is missing and how to get it.
    pub detail: String,
}

/// How one bot runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotIsolation {
    /// The mode asked for (`auto`, `none`, `strict` or a layer list).
    pub mode: String,
    /// The layers in force, weakest first.
    pub layers: Vec<String>,
    /// The program actually run, when a version-manager shim was resolved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    /// Paths it may read besides the system directories.
    pub read_only: Vec<String>,
    /// Why an available layer is not used for it.
    pub notes: Vec<String>,
    /// Whether it runs under a uid of its own (the `user` layer).
    #[serde(default)]
    pub own_uid: bool,
    /// Set when it runs as root (the referee is root and it has no uid of its
    /// own): why, and how to fix it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs_as_root: Option<String>,
}

impl BotIsolation {
    /// The warning for a bot that runs as root, if it does.
    pub fn root_warning(&self, name: &str) -> Option<String> {
        self.runs_as_root.as_ref().map(|why| {
            format!(
                "WARNING: bot '{name}' runs as root, without a uid of its own: {why}. Its capabilities are dropped, but whatever root owns that the other layers leave in view is its own; `--sandbox strict` refuses it"
            )
        })
    }
}

/// The isolation part of a run's manifest (its `sandbox` key).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IsolationReport {
    /// Every layer on this machine.
    pub host: Vec<LayerReport>,
    /// Per bot name.
    pub bots: BTreeMap<String, BotIsolation>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_built_in_of_fixed_work_is_of_fixed_work() {
        let launch = |builtin: bool, words: &[&str]| Launch {
            builtin,
            words: words.iter().map(|w| w.to_string()).collect(),
            dir: None,
            limits: None,
        };
        assert!(launch(true, &["level10"]).fixed_work());
        assert!(launch(true, &["level", "--n", "3"]).fixed_work());
        assert!(launch(true, &["mcts", "--playouts", "500"]).fixed_work());
        assert!(launch(true, &["random"]).fixed_work());
        assert!(!launch(true, &["mcts"]).fixed_work(), "by the clock");
        assert!(!launch(true, &["nosuchbot"]).fixed_work());
        assert!(!launch(true, &[]).fixed_work());
        // A program of the user's: whatever its words say, the arena cannot know.
        assert!(!launch(false, &["/usr/bin/arena", "bot", "level10"]).fixed_work());
    }

    #[test]
    fn process_policies_are_written_as_their_words() {
        for policy in [ProcessPolicy::Reuse, ProcessPolicy::PerGame] {
            let json = serde_json::to_string(&policy).unwrap();
            assert_eq!(json, format!("\"{policy}\""));
        }
    }

    #[test]
    fn failures_are_keyed_by_their_reason_words() {
        let mut failures: BTreeMap<String, BTreeMap<EndReason, u32>> = BTreeMap::new();
        failures
            .entry("bot".into())
            .or_default()
            .insert(EndReason::Timeout, 2);
        let json = serde_json::to_string(&failures).unwrap();
        assert_eq!(json, r#"{"bot":{"timeout":2}}"#);
        let back: BTreeMap<String, BTreeMap<EndReason, u32>> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, failures);
    }

    #[test]
    fn limits_read_as_people_write_them() {
        let record = LimitsRecord::from(ResourceLimits::default().with_memory(64 << 20));
        assert_eq!(
            record.to_string(),
            "memory 64 MiB (each process 64 MiB), files up to 256 MiB, open files 1024, \
             processes 256, CPU unlimited"
        );
    }
}
