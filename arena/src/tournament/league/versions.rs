//! Versions: what identifies an entrant across a season. A submission's version is
//! the hash of its folder as this run copied it and of its build command
//! ([`super::super::build::BuildReport::version`], the hash the builds
//! themselves decide by), so editing a file, renaming one or changing the build
//! makes a new version, and touching nothing keeps the old one. The folder is
//! read once, by that copy: the version is always that of the code that plays,
//! whatever the folder holds a moment later.
//! A bot that is not a submission (a level, a teacher's command) is versioned by
//! its command as written (a level, with its definition). `versions.csv` keeps every version ever seen: when it
//! was first and last seen, and its [`Status`] (the words `grades.csv` and
//! `grades-history.csv` use): current, retired, or, for a submission this run
//! copied but could not play, build-failed or left-out.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context as _;
use bots::levels::LevelTable;
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use super::super::build::source_stamp;
use super::super::settings::RunSettings;
use crate::results::atomic::write_atomic;
pub use crate::results::league::Status;
use crate::results::nofollow;

/// The registry of versions in a league's directory.
pub const VERSIONS_FILE: &str = "versions.csv";

/// How many hex digits of the hash a version shows: enough that two versions of
/// one student never collide in a season (2^48).
const SHOWN: usize = 12;

/// Each entrant's current version, by name: a bot that runs from a copy (every
/// submission) has its copy's version from this run's builds (`copied`, by
/// name: [`super::super::build::Ready::versions`]); any other is its command
/// and definition.
///
/// # Errors
/// A bot that runs from a copy has none in `copied`.
pub fn current(
    settings: &RunSettings,
    copied: &BTreeMap<String, String>,
) -> anyhow::Result<BTreeMap<String, String>> {
    let mut versions = BTreeMap::new();
    for entrant in &settings.entrants {
        let name = &entrant.spec.name;
        let hash = if settings.builds.contains_key(name) {
            copied
                .get(name)
                .cloned()
                .with_context(|| format!("{name} runs from a copy this run did not make"))?
        } else {
            defined(settings, name)
        };
        versions.insert(name.clone(), shown(&hash));
    }
    Ok(versions)
}

/// A stamp of each entrant as its folder is now ([`source_stamp`]; a bot
/// without a folder: its version), for `--watch` to notice a change. Never
/// recorded: what plays is versioned by its copy ([`current`]).
///
/// # Errors
/// A submission's folder cannot be read (naming it).
pub fn stamps(settings: &RunSettings) -> anyhow::Result<BTreeMap<String, String>> {
    let mut stamps = BTreeMap::new();
    for entrant in &settings.entrants {
        let name = &entrant.spec.name;
        let stamp = match settings.builds.get(name) {
            Some(step) => {
                source_stamp(step).with_context(|| format!("reading {}", step.source.display()))?
            }
            None => defined(settings, name),
        };
        stamps.insert(name.clone(), stamp);
    }
    Ok(stamps)
}

/// The version of a bot without a folder: its command as written and, for a
/// level, its definition (engine, work, random share), so an arena that
/// redefines a level makes a new version of it.
fn defined(settings: &RunSettings, name: &str) -> String {
    let written = settings.written.get(name).cloned().unwrap_or_default();
    let definition = LevelTable::shipped()
        .levels()
        .iter()
        .find(|l| l.name() == name)
        .map(bots::levels::Level::definition)
        .unwrap_or_default();
    Sha256::digest(format!("{written}\0{definition}").as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// One row of `versions.csv`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VersionRow {
    /// The entrant (a student's folder name, a level).
    #[serde(with = "ratings::spreadsheet")]
    pub name: String,
    /// Its version.
    #[serde(with = "ratings::spreadsheet")]
    pub version: String,
    /// When the league first saw it (UTC, RFC 3339).
    #[serde(with = "ratings::spreadsheet")]
    pub first_seen: String,
    /// When a run last found it in its student's folder.
    #[serde(with = "ratings::spreadsheet")]
    pub last_seen: String,
    /// Current, retired, build-failed or left-out.
    pub status: Status,
}

/// `versions.csv` of `dir` (empty before the first run).
///
/// # Errors
/// The file exists but cannot be read, or a row is not a version row (naming
/// the line).
pub fn read(dir: &Path) -> anyhow::Result<Vec<VersionRow>> {
    let path = dir.join(VERSIONS_FILE);
    let bytes = match nofollow::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let mut rows = Vec::new();
    let mut reader = csv::Reader::from_reader(bytes.as_slice());
    for (i, row) in reader.deserialize().enumerate() {
        rows.push(row.with_context(|| {
            format!(
                "{}:{}: not a version row: correct the line or delete it",
                path.display(),
                i + 2
            )
        })?);
    }
    Ok(rows)
}

/// The registry after a run found `current` at `now` (the versions that
/// play), and `unplayed` (by name: what kept a submission from playing, and
/// the version of its copy when one was made): new versions added, the
/// versions seen again touched, every other version of the league that played
/// retired (one that never played keeps the status that says why).
pub fn update(
    mut rows: Vec<VersionRow>,
    current: &BTreeMap<String, String>,
    unplayed: &BTreeMap<String, (Status, Option<String>)>,
    now: &str,
) -> Vec<VersionRow> {
    let seen = |name: &str, version: &str| -> Option<Status> {
        if current.get(name).is_some_and(|v| v == version) {
            return Some(Status::Current);
        }
        match unplayed.get(name) {
            Some((status, Some(v))) if v == version => Some(*status),
            _ => None,
        }
    };
    for row in &mut rows {
        match seen(&row.name, &row.version) {
            Some(status) => {
                row.status = status;
                row.last_seen = now.to_string();
            }
            // A version that never played stays what kept it from playing.
            None if matches!(row.status, Status::BuildFailed | Status::LeftOut) => {}
            None => row.status = Status::Retired,
        }
    }
    let found = current
        .iter()
        .map(|(name, version)| (name, version, Status::Current))
        .chain(
            unplayed
                .iter()
                .filter_map(|(name, (status, v))| v.as_ref().map(|v| (name, v, *status))),
        );
    for (name, version, status) in found {
        if !rows
            .iter()
            .any(|r| &r.name == name && &r.version == version)
        {
            rows.push(VersionRow {
                name: name.clone(),
                version: version.clone(),
                first_seen: now.to_string(),
                last_seen: now.to_string(),
                status,
            });
        }
    }
    rows
}

/// The version of a copy, as the registry shows it (its first hex digits).
pub fn shown(hash: &str) -> String {
    hash.chars().take(SHOWN).collect()
}

/// Writes `versions.csv` whole.
///
/// # Errors
/// Writing failed.
pub fn write(dir: &Path, rows: &[VersionRow]) -> anyhow::Result<()> {
    let mut out = csv::Writer::from_writer(Vec::new());
    for row in rows {
        out.serialize(row)?;
    }
    write_atomic(&dir.join(VERSIONS_FILE), &out.into_inner()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none() -> BTreeMap<String, (Status, Option<String>)> {
        BTreeMap::new()
    }

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn a_changed_folder_retires_the_old_version_and_keeps_its_first_sighting() {
        let first = update(
            Vec::new(),
            &map(&[("ada", "a1"), ("bo", "b1")]),
            &none(),
            "t1",
        );
        assert_eq!(first.len(), 2);
        let second = update(first, &map(&[("ada", "a2"), ("bo", "b1")]), &none(), "t2");
        let status = |name: &str, v: &str| {
            second
                .iter()
                .find(|r| r.name == name && r.version == v)
                .map(|r| (r.status, r.first_seen.as_str(), r.last_seen.as_str()))
        };
        assert_eq!(status("ada", "a1"), Some((Status::Retired, "t1", "t1")));
        assert_eq!(status("ada", "a2"), Some((Status::Current, "t2", "t2")));
        assert_eq!(status("bo", "b1"), Some((Status::Current, "t1", "t2")));
    }

    #[test]
    fn a_version_that_comes_back_is_current_again() {
        let rows = update(Vec::new(), &map(&[("ada", "a1")]), &none(), "t1");
        let rows = update(rows, &map(&[("ada", "a2")]), &none(), "t2");
        let rows = update(rows, &map(&[("ada", "a1")]), &none(), "t3");
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].status, Status::Current);
        assert_eq!(rows[1].status, Status::Retired);
    }

    #[test]
    fn a_build_that_fails_is_a_version_of_its_own_and_retires_the_one_before() {
        let rows = update(Vec::new(), &map(&[("ada", "a1")]), &none(), "t1");
        let failed = BTreeMap::from([(
            "ada".to_string(),
            (Status::BuildFailed, Some("a2".to_string())),
        )]);
        let rows = update(rows, &BTreeMap::new(), &failed, "t2");
        let status = |v: &str| rows.iter().find(|r| r.version == v).map(|r| r.status);
        assert_eq!(status("a1"), Some(Status::Retired));
        assert_eq!(status("a2"), Some(Status::BuildFailed));
        // Left out before its folder was read: no version, the old one retired.
        let left = BTreeMap::from([("bo".to_string(), (Status::LeftOut, None))]);
        let rows = update(rows, &map(&[("ada", "a3")]), &left, "t3");
        assert_eq!(rows.len(), 3);
        assert_eq!(
            rows.iter().find(|r| r.version == "a2").map(|r| r.status),
            Some(Status::BuildFailed),
            "a version that never played keeps why"
        );
        assert!(rows.iter().all(|r| r.name == "ada"));
    }
}
