//! Recording a run: each finished game goes to disk (its moves, its row, the
//! transcripts of an abnormal game, the failure counts of `tournament.json`)
//! before anything reports it, and is counted into the run's [`Scoreboard`]
//! (resumed games included), where the scores a command prints come from. The
//! rows themselves are not kept: a run of a million games holds its standings in
//! memory that grows with its bots, not its games; [`Recorder::recorded_games`]
//! reads them back from disk for the few uses that need them all.
//!
//! A run without a results directory records in memory only. This module does not
//! decide which games a run plays or whether a directory may be resumed (that is
//! the tournament's business); it is handed the store, the manifest and the rows.

use std::collections::BTreeMap;
use std::path::Path;

use referee::game::GameRecord;

use super::atomic::now;
use super::governor_file::GovernorReport;
use super::machine_load::{LoadTally, MachineLoad};
use super::manifest::Manifest;
use super::standings::Scoreboard;
use super::store::{GAMES_FILE, GameMeta, GameRow, ResultStore, move_rows, read_games};

/// A run bound to its results directory (or to none).
#[derive(Debug)]
pub struct Recorder {
    /// The files, with the directory's manifest; `None` without a directory.
    disk: Option<(ResultStore, Manifest)>,
    /// The standings of every finished game in the directory, resumed ones
    /// included.
    scoreboard: Scoreboard,
    /// Games in the run (with a shard: the ones of this shard).
    total: u64,
    /// Games of the run finished, resumed ones included.
    done: u64,
    /// The seed in force.
    seed: u64,
    /// Each bot's version by name, written into its games' rows (a league's;
    /// empty otherwise).
    versions: BTreeMap<String, String>,
    /// How loaded the machine was, from the moves written (with a directory).
    load: LoadTally,
    /// What the governor did, once the games are over.
    governor: Option<GovernorReport>,
}

impl Recorder {
    /// A recorder writing to `disk` (an open store and its manifest, already saved),
    /// that starts from `rows` of which `done` are games of this run's `total`.
    ///
    /// # Errors
    /// A row names the same bot twice (the reader refuses such rows).
    pub fn new(
        disk: Option<(ResultStore, Manifest)>,
        rows: Vec<GameRow>,
        total: u64,
        done: u64,
        seed: u64,
    ) -> anyhow::Result<Recorder> {
        let mut load = match &disk {
            Some((store, manifest)) if !rows.is_empty() => {
                LoadTally::of_dir(store.dir(), manifest)?
            }
            Some((_, manifest)) => LoadTally::new(manifest),
            None => LoadTally::default(),
        };
        for row in &rows {
            load.add_shares(row);
        }
        Ok(Recorder {
            disk,
            load,
            scoreboard: Scoreboard::of(&rows)?,
            total,
            done,
            seed,
            versions: BTreeMap::new(),
            governor: None,
        })
    }

    /// This recorder, writing each bot's version (by name) into the rows of its
    /// games: `x_version`, `o_version` of `games.csv`.
    #[must_use]
    pub fn with_versions(mut self, versions: BTreeMap<String, String>) -> Recorder {
        self.versions = versions;
        self
    }

    /// Saves a finished game (moves, row, transcripts of an abnormal game) before
    /// anything reports it, and returns its row. The game is one of the run's
    /// unfinished games (the runner plays only those).
    ///
    /// # Errors
    /// Writing failed.
    pub fn record(&mut self, meta: &GameMeta, record: &GameRecord) -> anyhow::Result<GameRow> {
        let mut row = GameRow::new(meta, record);
        let version = |name: &str| self.versions.get(name).cloned().unwrap_or_default();
        row.x_version = version(&row.x);
        row.o_version = version(&row.o);
        if let Some((store, manifest)) = &mut self.disk {
            let moves = move_rows(meta, record);
            store.append(&row, &moves)?;
            self.load.add_game(&moves);
            self.load.add_shares(&row);
            store.save_transcripts(meta, record)?;
            super::bundle::save(store.dir(), (meta, &row, record), manifest)?;
            manifest.games_done += 1;
            if let Some(culprit) = record.termination.culprit() {
                let name = record.names.get(culprit).clone();
                *manifest
                    .failures
                    .entry(name)
                    .or_default()
                    .entry(row.reason)
                    .or_default() += 1;
            }
        }
        self.scoreboard.add(&row)?;
        self.done += 1;
        Ok(row)
    }

    /// The standings of every finished game, resumed ones included.
    pub fn scoreboard(&self) -> &Scoreboard {
        &self.scoreboard
    }

    /// Every finished game, resumed ones included, read back from `games.csv`
    /// (none without a results directory): for what needs the games themselves
    /// once, not after every game.
    ///
    /// # Errors
    /// `games.csv` cannot be read or has a bad row.
    pub fn recorded_games(&self) -> anyhow::Result<Vec<GameRow>> {
        match self.out() {
            Some(dir) if dir.join(GAMES_FILE).exists() => read_games(&dir.join(GAMES_FILE)),
            _ => Ok(Vec::new()),
        }
    }

    /// Games in the run (with a shard: the ones of this shard).
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Games of the run finished, resumed ones included.
    pub fn done(&self) -> u64 {
        self.done
    }

    /// The seed in force.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// How loaded the machine was over the run's games, resumed ones
    /// included; `None` without a results directory or a measured move.
    pub fn machine_load(&self) -> Option<MachineLoad> {
        self.disk
            .as_ref()
            .and_then(|(_, manifest)| self.load.load(manifest))
    }

    /// Keeps what the governor did over the run, for the summary.
    pub fn governed(&mut self, report: GovernorReport) {
        self.governor = Some(report);
    }

    /// What the governor did, once the games are over.
    pub fn governor(&self) -> Option<&GovernorReport> {
        self.governor.as_ref()
    }

    /// Games a verdict must not rest on: a bot that plays by the clock got
    /// less than its share of the CPU ([`super::machine_load::MIN_SHARE`]) —
    /// those of the results directory, resumed ones included, else the ones
    /// the governor kept so.
    pub fn under_served(&self) -> u64 {
        match &self.disk {
            Some(_) => self.load.under_served(),
            None => self
                .governor
                .as_ref()
                .map_or(0, |g| u64::from(g.kept_under_served)),
        }
    }

    /// The results directory, if any.
    pub fn out(&self) -> Option<&Path> {
        self.disk.as_ref().map(|(store, _)| store.dir())
    }

    /// Adds `more` games to the run's total (a league playing more games
    /// where a grade is not settled yet), in `tournament.json` too.
    ///
    /// # Errors
    /// Writing the manifest failed.
    pub fn extend_total(&mut self, more: u64) -> anyhow::Result<()> {
        self.total += more;
        if let Some((store, manifest)) = &mut self.disk {
            manifest.games_total += more;
            manifest.finished_at = None;
            manifest.save(store.dir())?;
        }
        Ok(())
    }

    /// Updates the manifest at the end of a run (`complete`: every game played).
    ///
    /// # Errors
    /// Writing failed.
    pub fn finish(&mut self, complete: bool) -> anyhow::Result<()> {
        if let Some((store, manifest)) = &mut self.disk {
            if complete {
                manifest.finished_at = Some(now());
            }
            manifest.save(store.dir())?;
        }
        Ok(())
    }
}
