//! `tournament.json`: what was played and how — the resolved configuration, the
//! seed, the arena version, start and end times, and each bot's failure counts.
//! Written atomically (temporary file, sync, rename, sync the directory) at the
//! start and the end of a run. Its `schedule` part decides whether an existing
//! results directory may be resumed: it must be identical.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::time::SystemTime;

use anyhow::Context as _;
use referee::game::TimeControl;
use serde::{Deserialize, Serialize};

use uttt::rules::Rules;

use crate::config::{ProcessPolicy, Tournament};
use crate::runner::Entrant;
use crate::schedule::{Format, Openings};

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
    pub processes: String,
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
    pub failures: BTreeMap<String, BTreeMap<String, u32>>,
    /// Bot isolation in the latest run: the machine's layers and each bot's.
    #[serde(default)]
    pub sandbox: Option<crate::sandbox::SandboxReport>,
}

fn ms(d: Option<std::time::Duration>) -> Option<u64> {
    d.map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn time_fields(t: &TimeControl) -> (Option<u64>, Option<u64>, u64, Option<u64>, Option<u64>) {
    (
        ms(t.move_time),
        ms(t.first_move_time),
        ms(Some(t.margin)).unwrap_or(0),
        ms(t.clock.map(|c| c.initial)),
        ms(t.clock.map(|c| c.increment)),
    )
}

impl ScheduleKey {
    /// The key of a validated tournament with its seed.
    pub fn new(t: &Tournament, seed: u64) -> ScheduleKey {
        ScheduleKey::from_parts(&t.entrants, t.rules, &t.format, t.games, &t.openings, seed)
    }

    /// The key of any run: bots, rules, format, games per pairing, openings, seed.
    pub fn from_parts(
        entrants: &[Entrant],
        rules: Rules,
        format: &Format,
        games_per_pairing: u32,
        openings: &Openings,
        seed: u64,
    ) -> ScheduleKey {
        ScheduleKey {
            seed,
            rules: rules.to_string(),
            format: match format {
                Format::RoundRobin => "round-robin".into(),
                Format::Gauntlet { challenger } => {
                    format!(
                        "gauntlet:{}",
                        entrants
                            .get(*challenger)
                            .map_or("?", |e| e.spec.name.as_str())
                    )
                }
            },
            games_per_pairing,
            openings: match openings {
                Openings::None => "none".into(),
                Openings::RandomPlies(k) => format!("random-plies {k}"),
                Openings::Book(lines) => format!(
                    "book {}",
                    lines
                        .iter()
                        .map(|l| uttt::notation::format_move_list(l))
                        .collect::<Vec<_>>()
                        .join(" | ")
                ),
            },
            bots: entrants
                .iter()
                .map(|e| {
                    let (move_ms, first_move_ms, margin_ms, clock_ms, increment_ms) =
                        time_fields(&e.time);
                    BotEntry {
                        name: e.spec.name.clone(),
                        command: e.spec.command.display(),
                        protocol: e.spec.dialect.name().into(),
                        move_ms,
                        first_move_ms,
                        margin_ms,
                        clock_ms,
                        increment_ms,
                    }
                })
                .collect(),
        }
    }

    /// What differs between two keys, in words (for the refusal to resume).
    pub fn difference(&self, new: &ScheduleKey) -> String {
        if self.seed != new.seed {
            return format!("seed {} there, {} here", self.seed, new.seed);
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
        processes: &ProcessPolicy,
        concurrency: usize,
        shard: Option<String>,
        games_total: u64,
    ) -> Manifest {
        Manifest {
            arena_version: env!("CARGO_PKG_VERSION").into(),
            name: name.to_string(),
            schedule,
            concurrency,
            processes: match processes {
                ProcessPolicy::Reuse => "reuse".into(),
                ProcessPolicy::PerGame => "per-game".into(),
            },
            shard,
            games_total,
            games_done: 0,
            started_at: now(),
            finished_at: None,
            failures: BTreeMap::new(),
            sandbox: None,
        }
    }

    /// Reads the manifest in `dir`, if there is one.
    ///
    /// # Errors
    /// The file exists but cannot be read or parsed.
    pub fn load(dir: &Path) -> anyhow::Result<Option<Manifest>> {
        let path = dir.join(MANIFEST_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
        let manifest = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a tournament manifest", path.display()))?;
        Ok(Some(manifest))
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

/// Writes `bytes` to `path` so that a crash leaves either the old or the new file:
/// a temporary file in the same directory, synced, renamed over, directory synced.
///
/// # Errors
/// Any I/O failure, naming the file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = path.with_extension("tmp");
    let mut file =
        std::fs::File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
    file.write_all(bytes)?;
    file.sync_all()?;
    std::fs::rename(&tmp, path).with_context(|| format!("replacing {}", path.display()))?;
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// The current time, RFC 3339 UTC to the second.
pub fn now() -> String {
    humantime::format_rfc3339_seconds(SystemTime::now()).to_string()
}
