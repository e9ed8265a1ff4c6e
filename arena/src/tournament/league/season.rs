//! One run of a season (`arena league`), from the builds' result to the
//! files: the versions recorded ([`Season::open`]), the games played in
//! batches ([`Season::next_batch`]: every version's first games against each
//! level, then a pair more against each level whose pass is not settled yet,
//! until every grade is settled or at `max-games`), then every version graded
//! and the files written ([`Season::conclude`]): `grades.csv`, the history,
//! the gradebook exports, and each student's feedback as facts for
//! `conformance::feedback` to word.
//!
//! Every student the file's globs found has a row and a feedback file: one
//! whose build failed (their compiler's lines), one left out for another
//! reason, one whose folder never played. Nothing here prints: the command
//! says what [`Batch`], [`Concluded`] and [`Season::banner`] hold.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::super::build::{BuildReport, Built, Ready};
use super::super::prepare::{launch, run_options, schedule_key};
use super::super::run::{Watcher, run_games};
use super::super::runner::RunEnd;
use super::super::schedule::{Plan, ScheduledGame};
use super::super::settings::RunSettings;
use super::super::settings::league::League;
use super::super::submissions::looks_builtin;
use super::faults::{self, relative_to};
use super::files::{self, Entry, GradeRow, GradebookRow, Status};
use super::gradebook;
use super::grades::{Grade, games_wanted, grade};
use super::pairings::{LeaguePlan, Side, missing};
pub use super::student::{Concluded, NotPlayed, Student};
use super::student::{Graded, Terms};
use super::versions::{self, VersionRow};
use crate::results::atomic::now;
use crate::results::manifest::Manifest;
use crate::results::recorder::Recorder;
use crate::results::store::{GameRow, ResultStore};

/// The last lines of a failed build's output a student's row and feedback
/// quote (a compiler's first error and its context).
pub const BUILD_LINES: usize = 12;

/// The games of one batch of a run.
#[derive(Debug)]
pub struct Batch {
    /// The games.
    pub games: Vec<ScheduledGame>,
    /// Versions playing their first games.
    pub new_versions: usize,
    /// Levels (of a version) played again because their pass is not settled.
    pub settling: usize,
    /// The most games later batches could still add (each open level up to
    /// `max-games`).
    pub at_most_later: u64,
}

impl Batch {
    /// What the batch plays, in words.
    pub fn words(&self) -> String {
        let games = self.games.len();
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        let mut words = format!("Playing {games} game{}", plural(games));
        let mut why = Vec::new();
        if self.new_versions > 0 {
            why.push(format!(
                "the first games of {} new version{}",
                self.new_versions,
                plural(self.new_versions)
            ));
        }
        if self.settling > 0 {
            why.push(format!(
                "a pair more against {} level{} not settled yet",
                self.settling,
                plural(self.settling)
            ));
        }
        if !why.is_empty() {
            words.push_str(&format!(": {}", why.join(", and ")));
        }
        words
    }
}

/// What the file said of each submission before the builds: a submission
/// whose build fails leaves the run's settings, and its words (its command,
/// its folder) are still its feedback's.
#[derive(Clone, Debug, Default)]
pub struct Known {
    /// Each bot's command as written (`python3 bot.py`).
    written: BTreeMap<String, String>,
    /// Each submission's own folder.
    sources: BTreeMap<String, PathBuf>,
}

impl Known {
    /// What `settings` say, before the builds.
    pub fn of(settings: &RunSettings) -> Known {
        Known {
            written: settings.written.clone(),
            sources: settings
                .builds
                .iter()
                .map(|(name, step)| (name.clone(), step.source.clone()))
                .collect(),
        }
    }
}

/// A submission this run could not play.
#[derive(Clone, Debug)]
struct Unplayed {
    status: Status,
    /// Its copy's version (a failed build's), as the registry shows it.
    version: Option<String>,
    /// Why, in one line per reason (a build: its lines).
    why: String,
    not_played: NotPlayed,
}

/// One run of a season, bound to its directory.
#[derive(Debug)]
pub struct Season {
    settings: RunSettings,
    league: League,
    out: PathBuf,
    seed: u64,
    registry: Vec<VersionRow>,
    unplayed: BTreeMap<String, Unplayed>,
    sides: Vec<Side>,
    round: u32,
    concurrency: usize,
    recorder: Recorder,
    /// Games of earlier runs.
    kept: u64,
    known: Known,
}

impl Season {
    /// The run of `settings` (its builds done: `ready`) in `out`: every
    /// entrant versioned, `versions.csv` updated, the run bound to the
    /// directory's games.
    ///
    /// # Errors
    /// The directory's files cannot be read or written.
    pub fn open(
        (settings, known): (RunSettings, Known),
        league: League,
        out: &Path,
        ready: &Ready,
        concurrency: usize,
    ) -> anyhow::Result<Season> {
        let current = versions::current(&settings, &ready.versions)?;
        let unplayed = unplayed(&settings, &known, &ready.failed);
        let existing = Manifest::load(out)?;
        let seed = settings
            .seed
            .or(existing.as_ref().map(|m| m.schedule.seed))
            .unwrap_or_else(rand::random);
        let store = ResultStore::open(out)?;
        let rows = store.games()?;
        let marks: BTreeMap<String, (Status, Option<String>)> = unplayed
            .iter()
            .map(|(name, u)| (name.clone(), (u.status, u.version.clone())))
            .collect();
        let registry = versions::update(versions::read(out)?, &current, &marks, &now());
        versions::write(out, &registry)?;
        let is_level = |name: &str| league.levels.iter().any(|l| l.name == name);
        let sides: Vec<Side> = settings
            .entrants
            .iter()
            .enumerate()
            .map(|(index, e)| Side {
                index,
                name: e.spec.name.clone(),
                version: current.get(&e.spec.name).cloned().unwrap_or_default(),
                level: is_level(&e.spec.name),
            })
            .collect();
        let round = rows.iter().map(|r| r.round).max().unwrap_or(0) + 1;
        let done = rows.len() as u64;
        let mut key = schedule_key(
            &Plan {
                bots: settings.entrants.len(),
                format: settings.format.clone(),
                games_per_pairing: settings.games,
                openings: settings.openings.clone(),
                rules: settings.rules,
                seed,
            },
            &settings.entrants,
        );
        key.format = format!("league:{}", league.mode.word());
        let mut manifest = existing.unwrap_or_else(|| {
            Manifest::new(
                &settings.name,
                key.clone(),
                settings.processes,
                concurrency,
                None,
                done,
            )
        });
        manifest.schedule = key;
        manifest.games_total = done;
        manifest.games_done = done;
        manifest.finished_at = None;
        manifest.sandbox = Some(ready.isolation.clone());
        // The pace is how the run is shown, never how it is played: recorded
        // for the pages, not part of what identifies the season.
        manifest.display = crate::results::manifest::DisplayRecord {
            pace_ms: u64::try_from(settings.display.pace.as_millis()).unwrap_or(u64::MAX),
            audience: settings.display.audience,
        };
        manifest.launch = settings.entrants.iter().map(launch).collect();
        // The left-out students, named on the page and in the report.
        manifest.left_out = settings
            .left_out
            .iter()
            .map(|l| crate::results::manifest::LeftOutRecord {
                name: l.name.clone(),
                why: l.why.clone(),
            })
            .collect();
        manifest.save(out)?;
        let recorder =
            Recorder::new(Some((store, manifest)), rows, done, done, seed)?.with_versions(current);
        Ok(Season {
            settings,
            league,
            out: out.to_path_buf(),
            seed,
            registry,
            unplayed,
            sides,
            round,
            concurrency,
            recorder,
            kept: done,
            known,
        })
    }

    /// The first words of the run.
    pub fn banner(&self) -> String {
        let students = self.sides.iter().filter(|s| !s.level).count();
        let levels = self.league.levels.len();
        let rows = self.recorder.done();
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        let unplayed = self.unplayed.len();
        format!(
            "League {}: {students} student{} playing{}, {levels} level{} (mode {}; {} to {} games \
             against a level); seed {}; {rows} game{} kept; results in {}",
            self.settings.name,
            plural(students),
            if unplayed == 0 {
                String::new()
            } else {
                format!(" and {unplayed} not playing this run")
            },
            plural(levels),
            self.league.mode.word(),
            self.league.min_games,
            self.league.max_games,
            self.seed,
            if rows == 1 { "" } else { "s" },
            self.out.display()
        )
    }

    /// The games to play next: each pairing up to the games it wants now
    /// ([`games_wanted`] against a level, the file's `games` between
    /// classmates), none when every grade is settled or at `max-games`. Adds
    /// them to the run's total.
    ///
    /// # Errors
    /// `games.csv` cannot be read, or `tournament.json` written.
    pub fn next_batch(&mut self) -> anyhow::Result<Option<Batch>> {
        let rows = self.recorder.recorded_games()?;
        let mut wants: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
        let mut new_versions = 0;
        let mut settling = 0;
        let mut at_most_later = 0;
        for side in self.sides.iter().filter(|s| !s.level) {
            let g = grade(&self.league, &side.name, &side.version, &rows);
            let wanted = games_wanted(&self.league, &g);
            if g.levels.iter().all(|l| l.games == 0) && !g.levels.is_empty() {
                new_versions += 1;
            }
            for (level, want) in g.levels.iter().zip(&wanted) {
                if level.games >= self.league.min_games && *want > level.games {
                    settling += 1;
                }
                if g.undecided.contains(&level.level) {
                    at_most_later += u64::from(self.league.max_games.saturating_sub(*want));
                }
            }
            wants.insert(&side.name, wanted);
        }
        let levels: Vec<&str> = self.league.levels.iter().map(|l| l.name.as_str()).collect();
        let plan = LeaguePlan {
            mode: self.league.mode,
            games: self.settings.games,
            seed: self.seed,
            openings: self.settings.openings.clone(),
            rules: self.settings.rules,
            round: self.round,
        };
        let games = missing(&self.sides, &plan, &rows, |a, b| {
            match levels.iter().position(|l| *l == b.name) {
                Some(i) if b.level => wants
                    .get(a.name.as_str())
                    .and_then(|w| w.get(i).copied())
                    .unwrap_or(self.league.min_games),
                _ => self.settings.games,
            }
        });
        if games.is_empty() {
            return Ok(None);
        }
        self.recorder.extend_total(games.len() as u64)?;
        Ok(Some(Batch {
            games,
            new_versions,
            settling,
            at_most_later,
        }))
    }

    /// Plays `batch`, telling `watcher` about every game.
    ///
    /// # Errors
    /// The runtime failed, or a result could not be written.
    pub fn play(&mut self, batch: Batch, watcher: &mut impl Watcher) -> anyhow::Result<RunEnd> {
        // No preflight: a student's bot that cannot start loses its games (a
        // fault in its grade, with its words in the feedback) and the class
        // plays on.
        let options = run_options(&self.settings, self.concurrency, Some(&self.out), false);
        run_games(
            &self.settings.entrants,
            options,
            batch.games,
            &mut self.recorder,
            watcher,
        )
    }

    /// Ends the run: `tournament.json` updated (`complete`: every game it
    /// set out to play was played).
    ///
    /// # Errors
    /// Writing failed.
    pub fn finish(&mut self, complete: bool) -> anyhow::Result<()> {
        self.recorder.finish(complete)
    }

    /// Games played by this run.
    pub fn played(&self) -> u64 {
        self.recorder.done().saturating_sub(self.kept)
    }

    /// Games of the season, this run's and the earlier ones'.
    pub fn games(&self) -> u64 {
        self.recorder.done()
    }

    /// The settings the run plays.
    pub fn settings(&self) -> &RunSettings {
        &self.settings
    }

    /// The league's settings.
    pub fn league(&self) -> &League {
        &self.league
    }

    /// The results directory.
    pub fn out(&self) -> &Path {
        &self.out
    }

    /// The run's round.
    pub fn round(&self) -> u32 {
        self.round
    }

    /// The folders a student's paths are shown relative to: the copy it ran
    /// from and its own folder.
    fn folders(&self, name: &str) -> Vec<PathBuf> {
        let mut folders = vec![self.out.join("builds").join(name)];
        if let Ok(copy) = std::fs::canonicalize(self.out.join("builds").join(name)) {
            folders.push(copy);
        }
        folders.extend(
            self.settings
                .entrants
                .iter()
                .filter(|e| e.spec.name == name)
                .filter_map(|e| e.spec.command.working_dir.clone()),
        );
        folders.extend(self.known.sources.get(name).cloned());
        folders
    }

    /// Grades every version and writes `grades.csv`, `grades-history.csv`
    /// and the gradebook exports; the students' feedback as facts, and the
    /// faults of this run's games.
    ///
    /// # Errors
    /// `games.csv` cannot be read, or a file written.
    pub fn conclude(&self) -> anyhow::Result<Concluded> {
        let rows = self.recorder.recorded_games()?;
        let league = &self.league;
        let is_level = |name: &str| league.levels.iter().any(|l| l.name == name);
        let entrants: BTreeSet<&str> = self
            .settings
            .entrants
            .iter()
            .map(|e| e.spec.name.as_str())
            .collect();
        // Every version's grade, for the history; the played ones graded.
        let mut grades: BTreeMap<(&str, &str), Grade> = BTreeMap::new();
        let mut history = Vec::new();
        // Why an earlier run's version did not play, as that run wrote it.
        let earlier: BTreeMap<(String, String), String> = crate::results::league::read(&self.out)
            .ok()
            .flatten()
            .map(|l| l.history)
            .unwrap_or_default()
            .into_iter()
            .filter(|r| {
                r.status == Status::BuildFailed.word() || r.status == Status::LeftOut.word()
            })
            .map(|r| ((r.student, r.version), r.detail))
            .collect();
        for version in self.registry.iter().filter(|r| !is_level(&r.name)) {
            let count = self
                .registry
                .iter()
                .filter(|r| r.name == version.name)
                .count();
            let count = u32::try_from(count).unwrap_or(u32::MAX);
            let unplayed = matches!(version.status, Status::BuildFailed | Status::LeftOut);
            if unplayed {
                let now = self
                    .unplayed
                    .get(&version.name)
                    .filter(|u| u.version.as_deref() == Some(version.version.as_str()))
                    .map(|u| u.why.clone());
                let why = now
                    .or_else(|| {
                        earlier
                            .get(&(version.name.clone(), version.version.clone()))
                            .cloned()
                    })
                    .unwrap_or_else(|| format!("it did not play ({})", version.status));
                history.push(GradeRow::new(version, count, None, Some(&why)));
                continue;
            }
            let g = grade(league, &version.name, &version.version, &rows);
            history.push(GradeRow::new(version, count, Some(&g), None));
            grades.insert((&version.name, &version.version), g);
        }
        let graded_of = |name: &str, upto: Option<&str>| -> Vec<Graded> {
            // The student's versions that played, in the order first seen,
            // up to `upto` (excluded).
            let mut out = Vec::new();
            for r in self.registry.iter().filter(|r| r.name == name) {
                if Some(r.version.as_str()) == upto {
                    break;
                }
                if let Some(g) = grades.get(&(name, r.version.as_str()))
                    && g.games > 0
                {
                    out.push(Graded {
                        version: r.version.clone(),
                        since: r.first_seen.clone(),
                        grade: g.clone(),
                    });
                }
            }
            out
        };
        let terms = self.terms();
        let mut students = Vec::new();
        // The students who played.
        for side in self.sides.iter().filter(|s| !s.level) {
            let mut before = graded_of(&side.name, Some(&side.version));
            let g = grades
                .get(&(side.name.as_str(), side.version.as_str()))
                .cloned()
                .unwrap_or_else(|| grade(league, &side.name, &side.version, &rows));
            let graded = Graded {
                version: side.version.clone(),
                since: self.first_seen(&side.name, &side.version),
                grade: g,
            };
            let versions = self.versions_of(&side.name);
            let entry = Entry {
                name: &side.name,
                status: Status::Current,
                version: Some(&side.version),
                graded: Some((&side.version, &graded.grade)),
                why: None,
                versions,
                feedback: files::feedback_path(&side.name, false),
            };
            let row = GradebookRow::of(&entry, league);
            let faults = faults::of_version(
                &self.out,
                &side.name,
                &side.version,
                &rows,
                &self.folders(&side.name),
            );
            students.push(Student {
                row,
                status: Status::Current,
                previous: before.pop(),
                graded: Some(graded),
                not_played: None,
                faults,
                command: self.command_of(&side.name),
                terms: terms.clone(),
            });
        }
        // The students who did not.
        for (name, unplayed) in &self.unplayed {
            // A name that is a level's, a built-in bot's or another entrant's
            // of this run: the versions under it are the other bot's.
            let own = !entrants.contains(name.as_str())
                && !is_level(name)
                && looks_builtin(name).is_none();
            let taken = entrants.contains(name.as_str()) && !is_level(name);
            let mut played = if own {
                graded_of(name, unplayed.version.as_deref())
            } else {
                Vec::new()
            };
            let last = played.pop();
            let entry = Entry {
                name,
                status: unplayed.status,
                version: unplayed.version.as_deref().filter(|_| own),
                graded: last.as_ref().map(|l| (l.version.as_str(), &l.grade)),
                why: Some(&unplayed.why),
                versions: if own { self.versions_of(name) } else { 0 },
                feedback: files::feedback_path(name, taken),
            };
            let row = GradebookRow::of(&entry, league);
            let faults = match &last {
                Some(l) => {
                    faults::of_version(&self.out, name, &l.version, &rows, &self.folders(name))
                }
                None => Vec::new(),
            };
            students.push(Student {
                row,
                status: unplayed.status,
                previous: played.pop(),
                graded: last,
                not_played: Some(unplayed.not_played.clone()),
                faults,
                command: if own { self.command_of(name) } else { None },
                terms: terms.clone(),
            });
        }
        students.sort_by(|a, b| {
            a.row
                .student
                .cmp(&b.row.student)
                .then_with(|| (a.status != Status::Current).cmp(&(b.status != Status::Current)))
        });
        let mut rows_only: Vec<GradebookRow> = students.iter().map(|s| s.row.clone()).collect();
        files::write_gradebook(&self.out, &mut rows_only)?;
        files::write_history(&self.out, &history)?;
        gradebook::write_exports(&self.out, &self.settings.name, league, &rows_only)?;
        Ok(Concluded {
            faults: self.run_faults(&rows),
            students,
        })
    }

    /// The league's terms, for the students' words.
    fn terms(&self) -> Terms {
        let ms = |d: Option<std::time::Duration>| {
            d.map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        };
        let time = &self.settings.time;
        Terms {
            league: self.settings.name.clone(),
            levels: self
                .league
                .levels
                .iter()
                .map(|l| (l.name.clone(), l.elo))
                .collect(),
            pass: self.league.pass.clone(),
            pass_score: self.league.pass_score,
            min_games: self.league.min_games,
            max_games: self.league.max_games,
            move_ms: ms(time.move_time),
            first_move_ms: ms(time.first_move_time.or(time.move_time)),
            seed: self.seed,
        }
    }

    /// When the league first saw `name`'s `version`.
    fn first_seen(&self, name: &str, version: &str) -> String {
        self.registry
            .iter()
            .find(|r| r.name == name && r.version == version)
            .map(|r| r.first_seen.clone())
            .unwrap_or_default()
    }

    /// How many versions of `name` the league has seen.
    fn versions_of(&self, name: &str) -> u32 {
        u32::try_from(self.registry.iter().filter(|r| r.name == name).count()).unwrap_or(u32::MAX)
    }

    /// How `name`'s bot runs, as written (`python3 bot.py`).
    fn command_of(&self, name: &str) -> Option<String> {
        self.known.written.get(name).cloned()
    }

    /// The faults of this run's games, one line per student and reason, said
    /// once with the count: `cy: 12 games lost by crash: …`.
    fn run_faults(&self, rows: &[GameRow]) -> Vec<String> {
        let is_level = |name: &str| self.league.levels.iter().any(|l| l.name == name);
        let mut groups: BTreeMap<(String, String), (u32, String)> = BTreeMap::new();
        for row in faults::by_number(rows)
            .into_iter()
            .filter(|r| r.round == self.round)
        {
            let Some(loser) = row.loser() else { continue };
            if row.reason.on_the_board() {
                continue;
            }
            let name = row.bot(loser);
            if is_level(name) {
                continue;
            }
            groups
                .entry((name.to_string(), row.reason.name().to_string()))
                .and_modify(|(n, _)| *n += 1)
                .or_insert((1, relative_to(&row.detail, &self.folders(name))));
        }
        groups
            .into_iter()
            .map(|((name, reason), (n, detail))| {
                format!(
                    "{name}: {n} game{} lost by {reason}{}: {detail}",
                    if n == 1 { "" } else { "s" },
                    if n == 1 { "" } else { ", the first" }
                )
            })
            .collect()
    }
}

/// The submissions `settings` left out, by name (a name's reasons together),
/// and why; those whose build failed (`failed`) with their build's words.
fn unplayed(
    settings: &RunSettings,
    known: &Known,
    failed: &[BuildReport],
) -> BTreeMap<String, Unplayed> {
    let mut out: BTreeMap<String, Unplayed> = BTreeMap::new();
    for left in &settings.left_out {
        let build = failed.iter().find(|r| r.name == left.name);
        let folders: Vec<PathBuf> = known.sources.get(&left.name).cloned().into_iter().collect();
        let entry = match build {
            Some(report) => {
                let (ended, output) = match &report.built {
                    Built::Failed { why, output } => (why.clone(), output.clone()),
                    _ => (String::new(), String::new()),
                };
                let lines: Vec<String> = output.lines().map(|l| relative_to(l, &folders)).collect();
                let output = lines[lines.len().saturating_sub(BUILD_LINES)..].to_vec();
                let mut why = format!("build failed ({ended})");
                if !output.is_empty() {
                    why.push_str(":\n");
                    why.push_str(&output.join("\n"));
                }
                Unplayed {
                    status: Status::BuildFailed,
                    version: report.version.as_deref().map(versions::shown),
                    why,
                    not_played: NotPlayed::Build {
                        command: report.command.clone(),
                        ended,
                        output,
                    },
                }
            }
            None => {
                // "…/students/bo: it holds more than 50 MiB…": the folder is
                // the student's own, said as "your folder" by the feedback.
                let own = folders
                    .first()
                    .map(|f| format!("{}: ", f.display()))
                    .unwrap_or_default();
                let why = left.why.strip_prefix(&own).unwrap_or(&left.why);
                let why = relative_to(why, &folders);
                Unplayed {
                    status: Status::LeftOut,
                    version: None,
                    why: why.clone(),
                    not_played: NotPlayed::LeftOut { why },
                }
            }
        };
        match out.get_mut(&left.name) {
            // A second reason for one name: both said.
            Some(existing) if existing.status == Status::LeftOut => {
                let why = format!("{}; {}", existing.why, entry.why);
                existing.why.clone_from(&why);
                existing.not_played = NotPlayed::LeftOut { why };
            }
            Some(_) => {}
            None => {
                out.insert(left.name.clone(), entry);
            }
        }
    }
    out
}
