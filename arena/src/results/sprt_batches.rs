//! The directories of an SPRT played in batches (`arena sprt --batch K --pairs M`),
//! read back as one test for `arena sprt --decide`.
//!
//! A batch is trusted only as far as its files agree with the others: every
//! directory must hold a batch (its `tournament.json` says which), all of the same
//! test (same bots, commands, times, rules, openings, seed, maximum, pairs per batch
//! and SPRT bounds), each batch number once, and only games of its own pair range.
//! A batch played twice would count its games twice, so it is refused, not merged.
//! That each row is the very game the schedule has under its id (its seed and
//! opening) is checked above this layer, where schedules are made
//! (`tournament::prepare::check_batch_games`), before any game is counted.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ratings::{GameResult, Pentanomial, head_to_head};
use uttt::result::EndReason;

use super::manifest::{Manifest, ScheduleKey, SprtBatchEntry};
use super::standings::to_result;
use super::store::{GameMeta, GameRow, Numbered, ResultStore};

/// One batch directory, read and checked.
#[derive(Debug)]
pub struct BatchDir {
    /// Its number, from 1.
    pub index: u32,
    /// Where it is.
    pub dir: PathBuf,
    /// Its games, each with its line in `games.csv`.
    pub rows: Vec<Numbered<GameRow>>,
    /// Its pair counts, seen by the new version.
    pub pairs: Pentanomial,
}

impl BatchDir {
    /// Games lost because a bot could not start or failed its handshake: such a
    /// batch says nothing about strength.
    pub fn handshake_failures(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| r.row.reason == EndReason::HandshakeFailure)
            .count()
    }
}

/// The batches of one test, in batch order.
#[derive(Debug)]
pub struct BatchedTest {
    /// What every batch played (bots, seed, rules, openings, maximum).
    pub key: ScheduleKey,
    /// The test's settings (the `index` is the first batch's).
    pub test: SprtBatchEntry,
    /// The complete batches, in batch order.
    pub complete: Vec<BatchDir>,
    /// Batches with games still to play: not counted, with games played and due.
    pub unfinished: Vec<(BatchDir, u64)>,
}

impl BatchedTest {
    /// The new version's name (the first bot).
    pub fn new_name(&self) -> &str {
        self.key.bots.first().map_or("", |b| b.name.as_str())
    }

    /// The baseline's name (the second bot).
    pub fn base_name(&self) -> &str {
        self.key.bots.get(1).map_or("", |b| b.name.as_str())
    }
}

/// Reads and checks the batch directories `dirs` as one test.
///
/// # Errors
/// A message for the user: naming the directory (or both directories) and what to do.
pub fn load(dirs: &[PathBuf]) -> Result<BatchedTest, String> {
    let mut first: Option<(PathBuf, Manifest, SprtBatchEntry)> = None;
    let mut seen: BTreeMap<u32, PathBuf> = BTreeMap::new();
    let mut batches = Vec::new();
    for dir in dirs {
        let (manifest, entry) = batch_manifest(dir)?;
        if let Some(other) = seen.insert(entry.index, dir.clone()) {
            return Err(format!(
                "batch {} appears twice, in {} and {}: a batch played twice would count its \
                 games twice; give each batch once",
                entry.index,
                other.display(),
                dir.display()
            ));
        }
        match &first {
            None => first = Some((dir.clone(), manifest.clone(), entry.clone())),
            Some((first_dir, first_manifest, first_entry)) => {
                same_test(
                    first_dir,
                    first_manifest,
                    first_entry,
                    dir,
                    &manifest,
                    &entry,
                )?;
            }
        }
        let rows = read_rows(dir, &entry)?;
        batches.push((entry, dir.clone(), rows, manifest));
    }
    let Some((_, manifest, test)) = first else {
        return Err("--decide needs at least one batch directory".into());
    };
    let key = manifest.schedule;
    let (new, base) = match key.bots.as_slice() {
        [new, base] => (new.name.clone(), base.name.clone()),
        _ => return Err("an SPRT batch has exactly two bots".into()),
    };
    batches.sort_by_key(|(entry, ..)| entry.index);
    let mut complete = Vec::new();
    let mut unfinished = Vec::new();
    for (entry, dir, rows, _) in batches {
        let results = rows
            .iter()
            .map(|numbered| to_result(&numbered.row, 0))
            .collect::<anyhow::Result<Vec<GameResult>>>()
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        let pairs = head_to_head(&results, &new, &base).pentanomial;
        let due = 2 * u64::from(entry.pairs);
        let played = rows.len() as u64;
        let batch = BatchDir {
            index: entry.index,
            dir,
            rows,
            pairs,
        };
        if played == due {
            complete.push(batch);
        } else {
            unfinished.push((batch, due));
        }
    }
    Ok(BatchedTest {
        key,
        test,
        complete,
        unfinished,
    })
}

/// The manifest of a batch directory and its batch.
fn batch_manifest(dir: &Path) -> Result<(Manifest, SprtBatchEntry), String> {
    let manifest = Manifest::load(dir)
        .map_err(|e| format!("{}: {e:#}", dir.display()))?
        .ok_or_else(|| {
            format!(
                "{} has no tournament.json: it is not a results directory of \
                 `arena sprt NEW BASE --batch K --pairs M --seed S --out DIR`",
                dir.display()
            )
        })?;
    let entry = manifest.sprt_batch.clone().ok_or_else(|| {
        format!(
            "{} holds a run of `arena {}`, not an SPRT batch (made with \
             `arena sprt NEW BASE --batch K --pairs M --seed S --out DIR`)",
            dir.display(),
            manifest.name
        )
    })?;
    Ok((manifest, entry))
}

/// Refuses two batches of different tests, saying what differs.
fn same_test(
    a_dir: &Path,
    a: &Manifest,
    a_entry: &SprtBatchEntry,
    b_dir: &Path,
    b: &Manifest,
    b_entry: &SprtBatchEntry,
) -> Result<(), String> {
    let differs = |what: String| {
        Err(format!(
            "{} and {} are batches of different tests ({what}): decide each test from its own batches",
            a_dir.display(),
            b_dir.display()
        ))
    };
    if a.schedule != b.schedule {
        return differs(a.schedule.difference(&b.schedule));
    }
    if a_entry.pairs != b_entry.pairs {
        return differs(format!(
            "{} pairs per batch there, {} here",
            a_entry.pairs, b_entry.pairs
        ));
    }
    let bounds = |e: &SprtBatchEntry| (e.elo0, e.elo1, e.alpha, e.beta, e.model.clone());
    if bounds(a_entry) != bounds(b_entry) {
        return differs(format!(
            "elo0 {} elo1 {} alpha {} beta {} {} there, elo0 {} elo1 {} alpha {} beta {} {} here",
            a_entry.elo0,
            a_entry.elo1,
            a_entry.alpha,
            a_entry.beta,
            a_entry.model,
            b_entry.elo0,
            b_entry.elo1,
            b_entry.alpha,
            b_entry.beta,
            b_entry.model
        ));
    }
    Ok(())
}

/// The games of a batch, each checked to be one of its pair range's: a row of
/// another batch (a copied games.csv) is refused, never counted here.
fn read_rows(dir: &Path, entry: &SprtBatchEntry) -> Result<Vec<Numbered<GameRow>>, String> {
    let rows = ResultStore::open(dir)
        .and_then(|store| store.games_numbered())
        .map_err(|e| format!("{e:#}"))?;
    let per_batch = 2 * u64::from(entry.pairs);
    let first = u64::from(entry.index.saturating_sub(1)) * per_batch + 1;
    let range = first..first + per_batch;
    for Numbered { row, .. } in &rows {
        let number = GameMeta::number_of(&row.id);
        if !number.is_some_and(|n| range.contains(&n)) {
            return Err(format!(
                "{}: game {} is not one of batch {}'s games (G{} to G{}): the directory holds \
                 games of another batch; play the batch again into an empty directory",
                dir.join("games.csv").display(),
                row.id,
                entry.index,
                range.start,
                range.end - 1
            ));
        }
    }
    Ok(rows)
}
