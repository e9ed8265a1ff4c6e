//! `arena suite BOT [FILE]`: a bot asked once per position of a suite of proven
//! positions (docs/suite.md; the shipped suite without FILE), scored per category,
//! the missed ones drawn, every answer in a CSV, `--min-score` for CI. And the
//! hidden `arena __suite-prove [FILE]` (re-proves every answer of a suite by
//! exhaustive search) and `arena __suite-generate` (prints the shipped suite).

use crate::tournament::settings::input::{Given, Source, TimeInput};
use crate::tournament::settings::time::time_control;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use std::time::Duration;

use bots::suite::{self, Category, Entry};
use referee::bot::{BotSession, Fault, Reply};
use serde::Serialize;
use uttt::notation::format_move_list;
use uttt::protocol::{Go, NewGame, Timing};
use uttt::rules::{Position, Square};

use crate::cli::{SuiteArgs, SuiteGenerateArgs, SuiteProveArgs};
use crate::exit_codes::{self, Code};
use crate::results::atomic::stamped_dir;
use crate::terminal::board::{self, BoardView, Theme};
use crate::tournament::bot_spec::Resolver;
use crate::tournament::entrant::Entrant;
use crate::tournament::isolation;

/// How many missed positions are drawn on the terminal (the CSV has them all).
const MISSED_DRAWN: usize = 10;

/// One row of the CSV: a position and what the bot answered. Its text cells
/// follow the spreadsheet rule of every CSV the arena writes.
#[derive(Debug, Serialize)]
struct Row {
    /// The position's id, escaped ([`Entry::shown_id`]): a suite file may come
    /// from anyone.
    #[serde(serialize_with = "ratings::spreadsheet::serialize")]
    id: String,
    /// Its category.
    category: String,
    /// The rules.
    rules: String,
    /// The bot's move, empty if it gave none.
    answer: String,
    /// Whether the answer is one of the correct moves.
    solved: bool,
    /// The correct moves, space-separated.
    best: String,
    /// Milliseconds it took.
    think_ms: String,
    /// What went wrong instead of a move (a timeout, a crash, an illegal move).
    #[serde(serialize_with = "ratings::spreadsheet::serialize")]
    problem: String,
}

/// Runs `arena suite`.
///
/// # Errors
/// The CSV cannot be written or the runtime cannot start.
pub fn run(args: &SuiteArgs) -> anyhow::Result<Code> {
    let (name, entries) = match load(args.file.as_deref()) {
        Ok(loaded) => loaded,
        Err(message) => return Ok(super::usage(&message)),
    };
    if let Some(min) = args.min_score
        && !(0.0..=1.0).contains(&min)
    {
        return Ok(super::usage(&format!(
            "--min-score {min}: give a fraction from 0 to 1, e.g. 0.8"
        )));
    }
    let entrant = match entrant(args) {
        Ok(e) => e,
        Err(message) => return Ok(super::usage(&message)),
    };
    crate::say!(
        "Suite {name}: {} positions; {} asked once each, {} ms a move{}",
        entries.len(),
        entrant.spec.name,
        args.time.get(),
        args.nodes.map_or(String::new(), |n| format!(", {n} nodes"))
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let rows = runtime.block_on(ask_all(&entrant, args, &entries));
    let csv_path = answers_file(args, &entrant.spec.name);
    write_csv(&csv_path, &rows)?;
    let solved = rows.iter().filter(|r| r.solved).count();
    for line in score_lines(&entries, &rows) {
        crate::say!("{line}");
    }
    let missed: Vec<(&Entry, &Row)> = entries
        .iter()
        .zip(&rows)
        .filter(|(_, r)| !r.solved)
        .collect();
    if !missed.is_empty() {
        crate::say!();
        crate::say!(
            "Missed ({} drawn here; all {} answers in {}):",
            missed.len().min(MISSED_DRAWN),
            rows.len(),
            csv_path.display()
        );
        for (entry, row) in missed.iter().take(MISSED_DRAWN) {
            for line in missed_lines(entry, row) {
                crate::say!("{line}");
            }
        }
    }
    if rows
        .iter()
        .all(|r| r.problem.starts_with("could not start"))
        && !rows.is_empty()
    {
        eprintln!(
            "error: {} could not be started: {}",
            entrant.spec.name, rows[0].problem
        );
        return Ok(exit_codes::INFRASTRUCTURE);
    }
    crate::say!("Answers in {}", csv_path.display());
    let score = solved as f64 / entries.len().max(1) as f64;
    match args.min_score {
        Some(min) if score < min => {
            crate::say!(
                "FAIL: {:.1}% solved, below --min-score {min} (exit 1)",
                score * 100.0
            );
            Ok(exit_codes::FAILURE)
        }
        Some(min) => {
            crate::say!(
                "PASS: {:.1}% solved, at least --min-score {min}",
                score * 100.0
            );
            Ok(exit_codes::OK)
        }
        None => Ok(exit_codes::OK),
    }
}

/// The suite's name and positions: FILE, or the shipped suite.
pub(super) fn load(file: Option<&Path>) -> Result<(String, Vec<Entry>), String> {
    let (name, text) = match file {
        Some(path) => (
            path.display().to_string(),
            std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?,
        ),
        None => ("tactics (shipped)".to_string(), suite::SHIPPED.to_string()),
    };
    let entries = suite::parse(&text).map_err(|e| format!("{name}:{e}"))?;
    if entries.is_empty() {
        return Err(format!("{name} holds no position"));
    }
    Ok((name, entries))
}

fn entrant(args: &SuiteArgs) -> Result<Entrant, String> {
    let resolver = Resolver::from_env()
        .map_err(|e| format!("cannot find the arena executable: {e}"))?
        .with_memory_mb(args.memory_mb);
    let spec = resolver.resolve(&args.bot).map_err(|e| e.to_string())?;
    if !spec.dialect.can_start_from_opening() {
        return Err(format!(
            "bot '{}' speaks {}, which cannot be sent a position (only the last move): \
             a suite needs a bot that reads the whole game (uttt or riddles)",
            spec.name,
            spec.dialect.name()
        ));
    }
    // The position's move is every move: the first-move allowance does not apply.
    let mut input = TimeInput::fixed(args.time, args.time, args.margin);
    input.nodes = args.nodes.map(|n| Given::new(n, Source::Command));
    let time = time_control(&input).map_err(|e| e.message)?;
    let mut entrants = [Entrant { spec, time }];
    let host = isolation::detect(&resolver.arena_exe);
    isolation::apply(&mut entrants, &host, Some(args.sandbox))?;
    let [entrant] = entrants;
    Ok(entrant)
}

/// Asks the bot every position in order, one process for all of them; a bot that
/// faults is started afresh for the next position.
async fn ask_all(entrant: &Entrant, args: &SuiteArgs, entries: &[Entry]) -> Vec<Row> {
    let spec = &entrant.spec;
    let handshake = crate::defaults::HANDSHAKE.duration();
    let time = Duration::from_millis(args.time.get());
    let margin = Duration::from_millis(args.margin.get());
    let mut session: Option<BotSession> = None;
    let mut rows = Vec::with_capacity(entries.len());
    for entry in entries {
        if session.is_none() {
            match BotSession::start_dialect(&spec.command, spec.dialect, handshake).await {
                Ok(s) => session = Some(s),
                Err(fault) => {
                    rows.push(row(entry, None, None, format!("could not start: {fault}")));
                    continue;
                }
            }
        }
        let Some(bot) = session.as_mut() else {
            continue;
        };
        let (answer, problem) = ask(bot, entry, time, margin, args.nodes).await;
        // A bot that faulted is in an unknown state: a fresh one answers the next.
        if problem.is_some()
            && let Some(s) = session.take()
        {
            s.kill().await;
        }
        let (square, elapsed) = answer.unzip();
        rows.push(row(entry, square, elapsed, problem.unwrap_or_default()));
    }
    if let Some(s) = session {
        s.close(true).await;
    }
    rows
}

/// One position: `newgame` as the side to move, then one `go`.
pub(super) async fn ask(
    bot: &mut BotSession,
    entry: &Entry,
    time: Duration,
    margin: Duration,
    nodes: Option<u64>,
) -> (Option<(Square, Duration)>, Option<String>) {
    let pos = &entry.position;
    let game = NewGame {
        mark: pos.side_to_move(),
        rules: entry.rules,
        opponent: "suite".into(),
        seed: seed_of(&entry.id),
        timing: Timing {
            move_time: Some(time),
            first_move_time: Some(time),
            margin,
            clock: None,
            nodes,
        },
    };
    let fault = |f: Fault| (None, Some(f.to_string()));
    if let Err(f) = bot.new_game(&game).await {
        return fault(f);
    }
    let moves = entry.moves.clone().unwrap_or_default();
    let mut go = Go::new(time, &moves, pos.legal_moves());
    go.nodes = nodes;
    match bot.ask(&go, time, margin).await {
        Err(f) => fault(f),
        Ok(answer) => match answer.reply {
            Reply::Resign => (None, Some("resigned".into())),
            Reply::Move(sq) => match pos.play(sq) {
                Ok(_) => (Some((sq, answer.elapsed)), None),
                Err(e) => (
                    Some((sq, answer.elapsed)),
                    Some(format!("illegal: {}", uttt::notation::illegal_words(&e))),
                ),
            },
        },
    }
}

/// A seed for the position's `newgame`, from its id (FNV-1a): a seeded bot gives
/// the same answers on every run.
fn seed_of(id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn row(entry: &Entry, answer: Option<Square>, elapsed: Option<Duration>, problem: String) -> Row {
    Row {
        id: entry.shown_id(),
        category: entry.category.to_string(),
        rules: entry.rules.to_string(),
        answer: answer.map(|s| s.to_string()).unwrap_or_default(),
        solved: problem.is_empty() && answer.is_some_and(|a| entry.best.contains(&a)),
        best: format_move_list(&entry.best),
        think_ms: elapsed.map_or(String::new(), |d| {
            format!("{:.3}", d.as_secs_f64() * 1000.0)
        }),
        problem,
    }
}

/// Where the answers go: `--csv FILE`, else `suite.csv` in `--out DIR`, else in
/// a new directory under `results/` named after the bot and the time, like
/// every other run's results.
fn answers_file(args: &SuiteArgs, bot: &str) -> PathBuf {
    args.csv.clone().unwrap_or_else(|| {
        args.out
            .clone()
            .unwrap_or_else(|| stamped_dir(&format!("suite-{bot}")))
            .join("suite.csv")
    })
}

/// Writes the answers, making the directory they go in.
///
/// # Errors
/// The directory or the file cannot be written.
fn write_csv(path: &Path, rows: &[Row]) -> anyhow::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut writer = csv::Writer::from_writer(Vec::new());
    for row in rows {
        writer.serialize(row)?;
    }
    let bytes = writer.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
    crate::results::atomic::write_atomic(path, &bytes)
}

/// Solved/total per category, then the total.
fn score_lines(entries: &[Entry], rows: &[Row]) -> Vec<String> {
    let mut by: BTreeMap<Category, (usize, usize)> = BTreeMap::new();
    for (entry, row) in entries.iter().zip(rows) {
        let slot = by.entry(entry.category).or_default();
        slot.1 += 1;
        slot.0 += usize::from(row.solved);
    }
    let line = |name: &str, (solved, total): (usize, usize)| {
        format!(
            "  {name:<16} {solved:>4}/{total:<4} {:>5.1}%",
            100.0 * solved as f64 / total.max(1) as f64
        )
    };
    let mut lines: Vec<String> = by.iter().map(|(c, n)| line(c.name(), *n)).collect();
    let solved = rows.iter().filter(|r| r.solved).count();
    lines.push(line("total", (solved, rows.len())));
    lines
}

fn missed_lines(entry: &Entry, row: &Row) -> Vec<String> {
    let pos: &Position = &entry.position;
    let answered = if row.problem.is_empty() {
        format!("played {}", row.answer)
    } else if row.answer.is_empty() {
        row.problem.clone()
    } else {
        format!("played {}: {}", row.answer, row.problem)
    };
    let mut lines = vec![
        String::new(),
        format!(
            "{} ({}, {} rules, {} to move): {answered}; correct: {}",
            entry.shown_id(),
            entry.category,
            entry.rules,
            pos.side_to_move(),
            row.best.replace(' ', ", ")
        ),
    ];
    lines.extend(board::render(
        &BoardView {
            position: pos,
            last: entry.moves.as_ref().and_then(|m| m.last().copied()),
            cursor: None,
        },
        Theme::for_stdout(),
    ));
    lines.push(format!("Position: {pos}"));
    lines
}

/// Runs `arena __suite-prove`: every answer of the suite proven again by search.
///
/// # Errors
/// Never beyond printing; a wrong answer is exit 1.
pub fn prove(args: &SuiteProveArgs) -> anyhow::Result<Code> {
    let (name, entries) = match load(args.file.as_deref()) {
        Ok(loaded) => loaded,
        Err(message) => return Ok(super::usage(&message)),
    };
    let mut wrong = 0;
    for entry in &entries {
        match suite::check(entry) {
            None => {
                if args.verbose {
                    crate::say!(
                        "{}: proven ({}: {})",
                        entry.shown_id(),
                        entry.category,
                        format_move_list(&entry.best)
                    );
                }
            }
            Some(why) => {
                wrong += 1;
                crate::say!("{}: NOT PROVEN: {why}", entry.shown_id());
            }
        }
    }
    crate::say!(
        "{name}: {} of {} positions proven by exhaustive search",
        entries.len() - wrong,
        entries.len()
    );
    Ok(if wrong == 0 {
        exit_codes::OK
    } else {
        exit_codes::FAILURE
    })
}

/// Runs `arena __suite-generate`: the shipped suite, printed.
///
/// # Errors
/// Never.
pub fn generate(args: &SuiteGenerateArgs) -> anyhow::Result<Code> {
    crate::say!("# The arena's tactics suite (docs/suite.md): every 'best' is proven by");
    crate::say!("# exhaustive search: `arena __suite-prove` checks them all again.");
    crate::say!("# Made by `arena __suite-generate --seed {}`.", args.seed);
    for entry in suite::generate::suite(args.seed, &suite::generate::QUOTAS) {
        crate::say!("{entry}");
    }
    Ok(exit_codes::OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_differ_by_id_and_never_change() {
        assert_eq!(seed_of("win1-001"), seed_of("win1-001"));
        assert_ne!(seed_of("win1-001"), seed_of("win1-002"));
        assert_eq!(seed_of(""), 0xcbf2_9ce4_8422_2325);
    }
}
