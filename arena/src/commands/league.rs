//! `arena league FILE`: one run of a season (or, with `--watch`, every run as
//! the submissions change). The file is a tournament file with a `[league]`
//! table; its results directory lives for the season. Each run: build what
//! changed, version every entrant, play only the games the current versions have
//! not played (`tournament::league::pairings`), then grade every version against
//! the levels, write grades.csv, the history and the feedback files, and look
//! for copied submissions (`similarity`).
//!
//! A command rather than a `format`: a format says who plays whom in one run,
//! and a results directory holding another run is refused; a league's directory
//! holds many runs whose entrants change, on purpose, and leaves files no other
//! format writes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::flags;
use super::skeleton;
use crate::cli::LeagueArgs;
use crate::defaults;
use crate::exit_codes::{self, Code, UsageError};
use crate::results::atomic::now;
use crate::results::manifest::Manifest;
use crate::results::recorder::Recorder;
use crate::results::store::{GameRow, ResultStore};
use crate::similarity;
use crate::tournament::build;
use crate::tournament::config;
use crate::tournament::isolation;
use crate::tournament::league::files::{self, GradeRow};
use crate::tournament::league::grades::{Grade, grade};
use crate::tournament::league::pairings::{LeaguePlan, Side, missing};
use crate::tournament::league::versions::{self, Status, VersionRow};
use crate::tournament::prepare::{launch, run_options, schedule_key};
use crate::tournament::run::{Watcher, run_games};
use crate::tournament::runner::{Finished, Flow, Interruption, RunEnd};
use crate::tournament::schedule::Plan;
use crate::tournament::settings::RunSettings;
use crate::tournament::settings::input::Input;
use crate::tournament::settings::league::League;

/// Runs `arena league`.
///
/// With `--watch`, only the first run's errors end the command: a later run that
/// cannot start (the file saved half-edited, a folder unreadable for a moment)
/// says what is wrong and the watch goes on, waiting for a fix.
///
/// # Errors
/// A [`UsageError`], results could not be written, or the runtime failed.
pub fn run(args: &LeagueArgs) -> anyhow::Result<Code> {
    let mut serving = false;
    // Looked at before the run, so that a change made while it copies the
    // folders is seen afterwards and played.
    let looked = args.watch.then(|| Looked::now(args));
    let code = season_run(args, &mut serving)?;
    let Some(looked) = looked.filter(|_| code == exit_codes::OK) else {
        // The page stays with the finished season until Ctrl-C, as a
        // tournament's does.
        if serving {
            super::serve_cmd::stay_after_run(code);
        }
        return Ok(code);
    };
    // What the last run that played saw, and what a failed run since left.
    let mut played = looked;
    let mut failed = None;
    loop {
        crate::say!(
            "Watching the submissions (every {} s; Ctrl-C stops)…",
            args.poll_seconds
        );
        if let Some(why) = wait_for_change(args, &played, failed.as_ref()) {
            eprintln!("{}: the season's results are kept.", why.describe());
            return Ok(skeleton::interrupted(why));
        }
        let looked = Looked::now(args);
        match season_run(args, &mut serving) {
            Ok(code) if code == exit_codes::OK => {
                played = looked;
                failed = None;
            }
            Ok(code) => return Ok(code),
            Err(e) => {
                eprintln!("error: {e:#}");
                eprintln!(
                    "The watch goes on: the season's results are kept; the league plays again \
                     once {} loads and something changes.",
                    args.config.display()
                );
                failed = Some(Looked::now(args));
            }
        }
    }
}

/// The file's settings with the flags over them; refused without a `[league]`.
fn load(args: &LeagueArgs) -> anyhow::Result<(RunSettings, League)> {
    let exe = flags::arena_exe()?;
    let over = Input {
        concurrency: args.concurrency,
        governor: flags::governor(args.governor),
        governor_wait_s: args.governor_wait,
        out: args.out.clone(),
        sandbox_override: args.sandbox,
        ..Input::default()
    };
    let settings =
        config::load_with(&args.config, &exe, over).map_err(|e| UsageError::of(e.to_string()))?;
    let league = settings.league.clone().ok_or_else(|| {
        UsageError::of(format!(
            "{}: a league's file needs a [league] table (e.g. [league] with mode = \"levels\", \
             pass = \"level4\"); to play it once, use arena tournament",
            args.config.display()
        ))
    })?;
    Ok((settings, league))
}

/// The season's directory: the flag's, the file's `out`, else results/<name>.
fn season_dir(settings: &RunSettings) -> PathBuf {
    settings
        .out
        .clone()
        .unwrap_or_else(|| Path::new("results").join(&settings.name))
}

/// One run of the season; its exit code.
fn season_run(args: &LeagueArgs, serving: &mut bool) -> anyhow::Result<Code> {
    let (mut settings, league) = load(args)?;
    let out = season_dir(&settings);
    std::fs::create_dir_all(&out)
        .map_err(|e| UsageError::of(format!("cannot make {}: {e}", out.display())))?;
    let concurrency = settings.concurrency.unwrap_or_else(defaults::concurrency);
    let exe = flags::arena_exe()?;
    let host = isolation::detect(&exe);
    let sandbox = settings.sandbox;
    let ready = match skeleton::builds_done(build::prepare_bots(
        &mut settings,
        &host,
        &out.join("builds"),
        concurrency,
        sandbox,
    ))? {
        Ok(ready) => ready,
        Err(code) => return Ok(code),
    };
    // Each folder was read once, by its copy: the version is the copy's.
    let current = versions::current(&settings, &ready.versions)?;
    let existing = Manifest::load(&out)?;
    let seed = settings
        .seed
        .or(existing.as_ref().map(|m| m.schedule.seed))
        .unwrap_or_else(rand::random);
    let store = ResultStore::open(&out)?;
    let rows = store.games()?;
    let registry = versions::update(versions::read(&out)?, &current, &now());
    versions::write(&out, &registry)?;
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
    let plan = LeaguePlan {
        mode: league.mode,
        games: settings.games,
        seed,
        openings: settings.openings.clone(),
        rules: settings.rules,
    };
    let games = missing(&sides, &plan, &rows);
    let done = rows.len() as u64;
    let total = done + games.len() as u64;
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
            total,
        )
    });
    manifest.schedule = key;
    manifest.games_total = total;
    manifest.games_done = done;
    manifest.finished_at = None;
    manifest.sandbox = Some(ready.isolation);
    manifest.launch = settings.entrants.iter().map(launch).collect();
    manifest.left_out = settings
        .left_out
        .iter()
        .map(|l| crate::results::manifest::LeftOutRecord {
            name: l.name.clone(),
            why: l.why.clone(),
        })
        .collect();
    manifest.save(&out)?;
    let students = sides.iter().filter(|s| !s.level).count();
    let new_versions = registry
        .iter()
        .filter(|r| r.status == Status::Current && !is_level(&r.name))
        .filter(|r| !rows.iter().any(|g| plays(g, &r.name, &r.version)))
        .count();
    let mut recorder = Recorder::new(Some((store, manifest)), rows, total, done, seed)?
        .with_versions(current.clone());
    if let Some(addr) = args.serve.filter(|_| !*serving) {
        super::serve_cmd::beside_run(Some(addr), false, Some(&out))
            .map_err(|e| UsageError::of(format!("{e:#}")))?;
        *serving = true;
    }
    crate::say!(
        "League {}: {students} student{}, {} level{} (mode {}); {new_versions} version{} without \
         games yet; {} game{} to play, {done} kept; seed {seed}; results in {}",
        settings.name,
        if students == 1 { "" } else { "s" },
        league.levels.len(),
        if league.levels.len() == 1 { "" } else { "s" },
        league.mode.word(),
        if new_versions == 1 { "" } else { "s" },
        games.len(),
        if games.len() == 1 { "" } else { "s" },
        out.display()
    );
    let started = Instant::now();
    let played = games.len();
    let end = if games.is_empty() {
        RunEnd::Complete
    } else {
        // No preflight: a student's bot that cannot start loses its games (a
        // fault in its grade) and the class plays on.
        let options = run_options(&settings, concurrency, Some(&out), false);
        let mut watch = LeagueWatch { quiet: args.quiet };
        run_games(
            &settings.entrants,
            options,
            games,
            &mut recorder,
            &mut watch,
        )?
    };
    recorder.finish(end == RunEnd::Complete)?;
    crate::say!(
        "Played {played} game{} in {:.1} s.",
        if played == 1 { "" } else { "s" },
        started.elapsed().as_secs_f64()
    );
    // A league's games are a class's: read back whole for the grades.
    conclude_run(
        &settings,
        &league,
        &registry,
        &recorder.recorded_games()?,
        &out,
    )?;
    // An interrupted run stops here: no bot is started again to be compared.
    if !args.no_similarity && !matches!(end, RunEnd::Interrupted(_)) {
        // The copies that played, never the folders: a folder may hold other
        // code by now.
        let students: Vec<(String, PathBuf)> = settings
            .entrants
            .iter()
            .filter(|e| !is_level(&e.spec.name))
            .filter(|e| {
                settings
                    .builds
                    .get(&e.spec.name)
                    .is_some_and(|step| step.submitted)
            })
            .filter_map(|e| {
                let copy = e.spec.command.working_dir.clone()?;
                Some((e.spec.name.clone(), copy))
            })
            .collect();
        for line in similar(&students, &settings, league.similarity_threshold, &out)? {
            crate::say!("{line}");
        }
    }
    super::report_cmd::after_tournament(&out, total);
    let code = match end {
        RunEnd::Interrupted(why) => skeleton::interrupted(why),
        RunEnd::Complete | RunEnd::Stopped => exit_codes::OK,
    };
    Ok(code)
}

/// How many of the shipped suite's positions each student is asked, spread
/// evenly over it: enough for a share to mean something, few enough that a class
/// of 30 is asked in seconds.
const BEHAVIOUR_POSITIONS: usize = 30;

/// The longest a student is given per position when the league's own first-move
/// time is longer (the answers are compared, not timed: a loaded machine must
/// not turn them into timeouts).
const BEHAVIOUR_MOVE_TIME: Duration = Duration::from_secs(2);

/// Failures (no start, a fault) after which a bot is asked no more positions.
const GIVE_UP_AFTER: usize = 3;

/// Similarity of the students' current copies (`students`: name and copy, the
/// code that played): the sources compared, each bot
/// asked the same positions, `similarity.csv` written; the lines that name
/// each flagged pair.
fn similar(
    students: &[(String, PathBuf)],
    settings: &RunSettings,
    threshold: f64,
    out: &Path,
) -> anyhow::Result<Vec<String>> {
    let started = Instant::now();
    let subs: Vec<similarity::Submission> = students
        .iter()
        .filter_map(|(name, dir)| similarity::read_submission(name, dir))
        .collect();
    let answers = behaviour(students, settings)?;
    let rows = similarity::compare(&subs, &answers, threshold);
    similarity::write(out, &rows)?;
    let flagged: Vec<&similarity::PairRow> = rows
        .iter()
        .filter(|r| r.flagged == similarity::Flag::Yes)
        .collect();
    let mut lines = vec![format!(
        "Similarity: {} submission{} compared in {:.1} s, {} pair{} at or above {threshold} \
         (similarity.csv; a flag is for a person to look at, it changes no grade)",
        subs.len(),
        if subs.len() == 1 { "" } else { "s" },
        started.elapsed().as_secs_f64(),
        flagged.len(),
        if flagged.len() == 1 { "" } else { "s" },
    )];
    for r in flagged {
        lines.push(format!(
            "  {} ~ {}: source {:.2}{}; {}",
            r.a,
            r.b,
            r.score,
            r.behaviour.map_or_else(String::new, |b| format!(
                ", same move in {:.0}% of {} positions",
                b * 100.0,
                r.positions
            )),
            terminal_words(&r.evidence)
        ));
    }
    Ok(lines)
}

/// The evidence as the terminal shows it: a fragment names a student's file,
/// and a file's name is the student's to choose, control characters included;
/// each fragment is escaped as bot text is (`\xNN`), so none can retitle or
/// rewrite the teacher's terminal.
fn terminal_words(evidence: &str) -> String {
    evidence
        .split("; ")
        .map(|f| uttt::protocol::escape_bytes(f.as_bytes()))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Each student's answers to the same positions of the shipped suite (`None`
/// where it gave no legal move in time).
fn behaviour(
    students: &[(String, PathBuf)],
    settings: &RunSettings,
) -> anyhow::Result<BTreeMap<String, Vec<Option<String>>>> {
    let (_, entries) = super::suite::load(None).map_err(|e| anyhow::anyhow!(e))?;
    let step = (entries.len() / BEHAVIOUR_POSITIONS).max(1);
    let positions: Vec<_> = entries
        .into_iter()
        .step_by(step)
        .take(BEHAVIOUR_POSITIONS)
        .collect();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut answers = BTreeMap::new();
    for (name, _) in students {
        let Some(entrant) = settings.entrants.iter().find(|e| &e.spec.name == name) else {
            continue;
        };
        if !entrant.spec.dialect.can_start_from_opening() {
            continue;
        }
        let time = entrant
            .time
            .first_move_time
            .or(entrant.time.move_time)
            .map_or(BEHAVIOUR_MOVE_TIME, |t| t.min(BEHAVIOUR_MOVE_TIME));
        let margin = entrant.time.margin;
        let said = runtime.block_on(async {
            let spec = &entrant.spec;
            let handshake = defaults::HANDSHAKE.duration();
            let mut said = Vec::with_capacity(positions.len());
            let mut session = None;
            let mut problems = 0;
            for entry in &positions {
                // A bot that keeps failing is not asked the rest: its answers
                // would all be missing anyway, each after a deadline.
                if problems >= GIVE_UP_AFTER {
                    said.push(None);
                    continue;
                }
                if session.is_none() {
                    session = referee::bot::BotSession::start_dialect(
                        &spec.command,
                        spec.dialect,
                        handshake,
                    )
                    .await
                    .ok();
                }
                let Some(bot) = session.as_mut() else {
                    said.push(None);
                    problems += 1;
                    continue;
                };
                let (answer, problem) = super::suite::ask(bot, entry, time, margin, None).await;
                if problem.is_some() {
                    problems += 1;
                    if let Some(s) = session.take() {
                        s.kill().await;
                    }
                    said.push(None);
                } else {
                    said.push(answer.map(|(sq, _)| sq.to_string()));
                }
            }
            if let Some(s) = session {
                s.close(true).await;
            }
            said
        });
        answers.insert(name.clone(), said);
    }
    Ok(answers)
}

/// Whether `row` is a game of `name`'s `version`.
fn plays(row: &GameRow, name: &str, version: &str) -> bool {
    (row.x == name && row.x_version == version) || (row.o == name && row.o_version == version)
}

/// The grades of every version, the files, and the table on the terminal.
fn conclude_run(
    settings: &RunSettings,
    league: &League,
    registry: &[VersionRow],
    rows: &[GameRow],
    out: &Path,
) -> anyhow::Result<()> {
    let is_level = |name: &str| league.levels.iter().any(|l| l.name == name);
    let count = |name: &str| {
        u32::try_from(registry.iter().filter(|r| r.name == name).count()).unwrap_or(u32::MAX)
    };
    let mut current: Vec<(GradeRow, Grade)> = Vec::new();
    let mut history = Vec::new();
    for version in registry.iter().filter(|r| !is_level(&r.name)) {
        let g = grade(league, &version.name, &version.version, rows);
        let row = GradeRow::new(version, count(&version.name), &g);
        history.push(row.clone());
        if version.status == Status::Current {
            current.push((row, g));
        }
    }
    // Every submission this run could not play: a row of its own, with why.
    current.extend(files::left_out_rows(settings, league, registry, rows));
    let by_rating = |r: &GradeRow| std::cmp::Reverse(r.rating.unwrap_or(i64::MIN));
    current.sort_by_key(|(r, _)| (by_rating(r), r.student.clone()));
    for (row, g) in &current {
        let text = files::feedback_text(row, g, league.pass.as_deref(), league.pass_score);
        files::write_feedback(out, row, &text)?;
    }
    let rows_only: Vec<GradeRow> = current.iter().map(|(r, _)| r.clone()).collect();
    files::write_rows(out, files::GRADES_FILE, &rows_only)?;
    files::write_rows(out, files::HISTORY_FILE, &history)?;
    crate::say!("{}", table(&current, league));
    Ok(())
}

/// The league table: each student's current version by rating.
fn table(rows: &[(GradeRow, Grade)], league: &League) -> String {
    let mut text = String::from(
        "Rank Student              Versions  Rating (95%)            Highest level  Result  Games Faults\n",
    );
    for (i, (row, g)) in rows.iter().enumerate() {
        let rating = g
            .placement
            .map_or_else(|| "-".to_string(), |p| crate::tournament::placing::line(&p));
        let result = if row.status == files::LEFT_OUT {
            "left out".to_string()
        } else {
            row.result.clone()
        };
        text.push_str(&format!(
            "{:>4} {:<20} {:>8}  {:<23} {:<14} {:<7} {:>5} {:>6}\n",
            i + 1,
            row.student,
            row.versions,
            rating,
            if row.highest_level.is_empty() {
                "-"
            } else {
                &row.highest_level
            },
            if result.is_empty() { "-" } else { &result },
            row.games,
            row.faults
        ));
    }
    if let Some(pass) = &league.pass {
        text.push_str(&format!(
            "Pass: at least {:.0}% of the points against {pass}. grades.csv, grades-history.csv and feedback/ are written.",
            league.pass_score * 100.0
        ));
    }
    text
}

/// The league file's contents, hashed (`None` when it cannot be read): a file
/// saved with new settings is a reason to play again.
fn file_stamp(path: &Path) -> Option<u64> {
    use std::hash::{Hash as _, Hasher as _};
    let bytes = std::fs::read(path).ok()?;
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut hasher);
    Some(hasher.finish())
}

/// What `--watch` compares from one look to the next: the league file and the
/// entrants' folders ([`versions::stamps`]).
#[derive(Debug, PartialEq)]
struct Looked {
    /// The file's contents ([`file_stamp`]).
    file: Option<u64>,
    /// Each entrant's stamp; `None` when the file does not load.
    versions: Option<BTreeMap<String, String>>,
}

impl Looked {
    /// The file and the versions as they are now.
    fn now(args: &LeagueArgs) -> Looked {
        Looked {
            file: file_stamp(&args.config),
            versions: load(args)
                .and_then(|(settings, _)| versions::stamps(&settings))
                .ok(),
        }
    }
}

/// Waits, looking every `--poll-seconds`, until there is something to play: a
/// submission's folder differs from what was looked at before the last run
/// (`played`: one appears, goes or changes) or the league file was saved with
/// other contents. After a run that
/// could not start (`failed`: what it left), only a change since then, or the
/// file loading again, is worth another try, so a lasting problem is not tried
/// and said again at every look. `Some` if interrupted first.
///
/// A file that does not load (a half-saved edit, a typo) is said once, with what
/// is wrong, and looked at again: the watch waits for the fix rather than ending.
fn wait_for_change(
    args: &LeagueArgs,
    played: &Looked,
    failed: Option<&Looked>,
) -> Option<Interruption> {
    let (_, why) = crate::tournament::interrupt::watching(|watch| {
        let mut next = Instant::now();
        let mut said: Option<String> = None;
        loop {
            if watch.caught().is_some() {
                return;
            }
            if Instant::now() >= next {
                next = Instant::now() + Duration::from_secs(args.poll_seconds);
                let file = file_stamp(&args.config);
                match load(args).and_then(|(settings, _)| versions::stamps(&settings)) {
                    Err(e) => {
                        let words = format!("{e:#}");
                        if said.as_ref() != Some(&words) {
                            eprintln!("error: {words}");
                            eprintln!(
                                "Still watching: correct {} and save it; the league plays again \
                                 once it loads.",
                                args.config.display()
                            );
                            said = Some(words);
                        }
                    }
                    Ok(versions) => {
                        if said.take().is_some() {
                            crate::say!("{} loads again.", args.config.display());
                        }
                        let now = Looked {
                            file,
                            versions: Some(versions),
                        };
                        if &now != played && failed.is_none_or(|f| &now != f) {
                            return;
                        }
                    }
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    why
}

/// The run's words per game.
#[derive(Debug)]
struct LeagueWatch {
    quiet: bool,
}

impl Watcher for LeagueWatch {
    fn game(
        &mut self,
        finished: &Finished,
        row: &GameRow,
        _bar: &indicatif::ProgressBar,
        recorder: &Recorder,
    ) -> anyhow::Result<Flow> {
        if !self.quiet {
            crate::say!(
                "{}",
                super::match_cmd::game_line(recorder, row, &finished.record)
            );
        }
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_name_in_the_evidence_reaches_the_terminal_without_its_control_characters() {
        let evidence = "\x1b]0;pwned\x07.py:1-9 ~ bot.py:2-10; a.py:3-4 ~ b.py:5-6";
        let shown = terminal_words(evidence);
        assert_eq!(
            shown,
            "\\x1b]0;pwned\\x07.py:1-9 ~ bot.py:2-10; a.py:3-4 ~ b.py:5-6"
        );
        assert!(!shown.chars().any(char::is_control));
    }
}
