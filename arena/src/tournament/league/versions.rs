//! Versions: what identifies an entrant across a season. A submission's version is
//! the hash of its folder as this run copied it and of its build command
//! ([`super::super::build::BuildReport::version`], the hash the builds
//! themselves decide by), so editing a file, renaming one or changing the build
//! makes a new version, and touching nothing keeps the old one. The folder is
//! read once, by that copy: the version is always that of the code that plays,
//! whatever the folder holds a moment later.
//! A bot that is not a submission (a level, a teacher's command) is versioned by
//! its command as written (a level, with its definition). `versions.csv` keeps every version ever seen: when it
//! was first and last seen, and whether it is current or retired.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context as _;
use bots::levels::LevelTable;
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use super::super::build::source_stamp;
use super::super::settings::RunSettings;
use crate::results::atomic::write_atomic;
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
        versions.insert(name.clone(), hash.chars().take(SHOWN).collect());
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

/// Whether a version plays in the current table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Its entrant's folder holds it now.
    Current,
    /// A later version replaced it (or its entrant left): its games stay in the
    /// history, it leaves the current table.
    Retired,
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
    /// When a run last found it current.
    #[serde(with = "ratings::spreadsheet")]
    pub last_seen: String,
    /// Current or retired.
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

/// The registry after a run found `current` at `now`: new versions added, the
/// versions seen again touched, every other version of the league retired.
pub fn update(
    mut rows: Vec<VersionRow>,
    current: &BTreeMap<String, String>,
    now: &str,
) -> Vec<VersionRow> {
    for row in &mut rows {
        if current.get(&row.name) == Some(&row.version) {
            row.status = Status::Current;
            row.last_seen = now.to_string();
        } else {
            row.status = Status::Retired;
        }
    }
    for (name, version) in current {
        if !rows
            .iter()
            .any(|r| &r.name == name && &r.version == version)
        {
            rows.push(VersionRow {
                name: name.clone(),
                version: version.clone(),
                first_seen: now.to_string(),
                last_seen: now.to_string(),
                status: Status::Current,
            });
        }
    }
    rows
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

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn a_changed_folder_retires_the_old_version_and_keeps_its_first_sighting() {
        let first = update(Vec::new(), &map(&[("ada", "a1"), ("bo", "b1")]), "t1");
        assert_eq!(first.len(), 2);
        let second = update(first, &map(&[("ada", "a2"), ("bo", "b1")]), "t2");
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
        let rows = update(Vec::new(), &map(&[("ada", "a1")]), "t1");
        let rows = update(rows, &map(&[("ada", "a2")]), "t2");
        let rows = update(rows, &map(&[("ada", "a1")]), "t3");
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].status, Status::Current);
        assert_eq!(rows[1].status, Status::Retired);
    }
}
