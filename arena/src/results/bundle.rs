//! The bundle of a game that failed: `failures/<id>/` in the results directory,
//! everything a bot author needs to understand one crash, timeout, illegal or
//! malformed move, disconnect or handshake failure — or to send it to someone who
//! can — without digging through a tournament's files:
//!
//! - `README.txt`: what happened in words, the seeds, the opening, the position
//!   when it failed, each bot's exit, peak memory and the number of this game in
//!   the life of its process, and the one command that reproduces it
//!   (`arena repro DIR --game ID`);
//! - `transcript.txt`: both bots' protocol transcripts of the game;
//! - `<mark>-<bot>.stderr.txt`: what each bot wrote to stderr during this game
//!   only (escaped; at most the last 64 KiB);
//! - `game.json`: the same facts for a program ([`BundleInfo`]).
//!
//! A resignation is a bot's own decision, not a failure, and gets no bundle. The
//! bundle is written with the game's row (by the recorder), so a run killed later
//! loses none; [`failures`] lists them for the summary and the report.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use referee::bot::Fault;
use referee::game::{GameRecord, Termination};
use serde::{Deserialize, Serialize};
use uttt::notation::format_move_list;
use uttt::result::EndReason;
use uttt::rules::{Mark, Square};

use super::manifest::{Conditions, Manifest};
use super::nofollow::{self, Access};
use super::store::{GameMeta, GameRow};

pub use super::store::FAILURES_DIR;
/// The machine-readable part of a bundle.
pub const BUNDLE_JSON: &str = "game.json";

/// Whether a game that ended for `reason` gets a bundle: every fault and illegal
/// move, but not a resignation or an end on the board.
pub const fn is_failure(reason: EndReason) -> bool {
    !reason.on_the_board() && !matches!(reason, EndReason::Resign)
}

/// The command that reproduces game `id` of the results directory `dir`.
pub fn repro_command(dir: &Path, id: &str) -> String {
    let dir = dir.display().to_string();
    let dir = shlex::try_quote(&dir).map_or(dir.clone(), |q| q.into_owned());
    format!("arena repro {dir} --game {id}")
}

/// One bot in a bundle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatInfo {
    /// `X` or `O`.
    pub mark: String,
    /// The bot's name.
    pub name: String,
    /// The seed it was sent in `newgame`.
    pub seed: u64,
    /// Its process id in that game, if it ran.
    pub pid: Option<u32>,
    /// How its process had ended by the end of the game ("exit code 3", "signal 11
    /// (SIGSEGV)"), or `None` if it was still running (then it was stopped).
    pub exit: Option<String>,
    /// The most memory its process tree had held by the end of the game (its
    /// process may have played earlier games), in bytes, when measured (sampled
    /// every 20 ms or so; `None` without a memory limit).
    pub peak_memory_bytes: Option<u64>,
    /// This game's number in the life of its process (1: a fresh process).
    pub game_in_process: Option<u32>,
    /// The file holding its stderr of this game, if it wrote any.
    pub stderr_file: Option<String>,
    /// What it played under: limits, sandbox mode, clock (absent from bundles
    /// written before they were recorded, and where the run recorded none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<Conditions>,
}

/// What `game.json` holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BundleInfo {
    /// The game's id.
    pub id: String,
    /// Its round and pair in the schedule.
    pub round: u32,
    /// Its pair.
    pub pair: u32,
    /// The game's seed (the bots' seeds derive from it).
    pub game_seed: u64,
    /// The rules.
    pub rules: String,
    /// The opening moves, space-separated.
    pub opening: String,
    /// Every move played, opening included, space-separated.
    pub moves: String,
    /// The reason word (protocol.md §5).
    pub reason: String,
    /// The reason in words, as in `games.csv`.
    pub detail: String,
    /// The bot at fault, `X` or `O`.
    pub culprit: String,
    /// The position when the game ended (the failing move is not on it).
    pub position: String,
    /// Marks on the board then.
    pub ply: u32,
    /// X, then O.
    pub bots: Vec<SeatInfo>,
    /// The one command that reproduces the failure.
    pub reproduce: String,
    /// What the bot at fault did, as data (absent from bundles written
    /// before it was recorded): a student's feedback words it from these.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<FaultFacts>,
}

/// What the bot at fault did, as data rather than words: the time it was
/// charged against the time it had, the square it played, how it ended. The
/// words are the reader's to choose (`arena check`'s and the league's
/// feedback say them to the bot's author).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum FaultFacts {
    /// No move in time.
    Timeout {
        /// The time charged by `clock`, ms.
        charged_ms: u64,
        /// The wall time that passed, ms.
        wall_ms: u64,
        /// The time the bot had for this move, ms.
        allowed_ms: u64,
        /// The forgiven overrun, ms.
        margin_ms: u64,
        /// The clock that charged it (`fair`, `wall`, `cpu`).
        clock: String,
        /// A line the bot printed without its newline, escaped.
        partial: Option<String>,
    },
    /// A square the rules do not allow (the position is the bundle's).
    Illegal {
        /// The square, `a1`–`i9`.
        square: String,
    },
    /// A line that is not a move.
    Malformed {
        /// What was wrong, in words.
        problem: String,
    },
    /// The process ended.
    Crash {
        /// Its exit code or signal, in words.
        exit: String,
        /// A line it printed without its newline, escaped.
        partial: Option<String>,
    },
    /// It closed a pipe but kept running.
    Disconnect {
        /// Which, in words.
        detail: String,
    },
    /// It never said `ready`.
    HandshakeFailure {
        /// Why, in words.
        detail: String,
    },
}

impl FaultFacts {
    /// The facts of `fault`.
    pub fn of_fault(fault: &Fault) -> FaultFacts {
        let ms = |d: &std::time::Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        match fault {
            Fault::Timeout {
                elapsed,
                wall,
                clock,
                allowed,
                margin,
                partial,
            } => FaultFacts::Timeout {
                charged_ms: ms(elapsed),
                wall_ms: ms(wall),
                allowed_ms: ms(allowed),
                margin_ms: ms(margin),
                clock: clock.to_string(),
                partial: partial.clone(),
            },
            Fault::Malformed { problem } => FaultFacts::Malformed {
                problem: problem.clone(),
            },
            Fault::Crash { exit, partial, .. } => FaultFacts::Crash {
                exit: exit.to_string(),
                partial: partial.clone(),
            },
            Fault::Disconnect { detail } => FaultFacts::Disconnect {
                detail: detail.clone(),
            },
            Fault::HandshakeFailure { detail } => FaultFacts::HandshakeFailure {
                detail: detail.clone(),
            },
        }
    }

    /// The facts of a game that ended by `termination`, when a bot's fault
    /// (or illegal move) ended it.
    pub fn of(termination: &Termination) -> Option<FaultFacts> {
        match termination {
            Termination::Fault { fault, .. } => Some(FaultFacts::of_fault(fault)),
            Termination::IllegalMove { error, .. } => Some(FaultFacts::Illegal {
                square: error.square.to_string(),
            }),
            Termination::Board(_) | Termination::Resign { .. } => None,
        }
    }
}

/// A failed game of a results directory, for listing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Failure {
    /// The game's id.
    pub game: String,
    /// The bot at fault.
    pub bot: String,
    /// The reason word.
    pub reason: String,
    /// The reason in words.
    pub detail: String,
    /// Its bundle, when one was written (runs before bundles existed have none).
    pub bundle: Option<String>,
    /// The command that reproduces it.
    pub reproduce: String,
}

/// Writes the bundle of a finished game into `dir/failures/<id>/`, if the game
/// failed ([`is_failure`]), with what each bot played under as `manifest`
/// records it.
///
/// # Errors
/// Writing failed.
pub fn save(
    dir: &Path,
    (meta, row, record): (&GameMeta, &GameRow, &GameRecord),
    manifest: &Manifest,
) -> anyhow::Result<()> {
    let Some(culprit) = record.termination.culprit() else {
        return Ok(());
    };
    if !is_failure(row.reason) {
        return Ok(());
    }
    // Inside the results directory, which may have come from anyone: no link on
    // the way is followed, so a planted `failures/G0001/x-bot.stderr.txt` link
    // cannot carry the bot's text out of the directory.
    let rel = Path::new(FAILURES_DIR).join(&meta.id);
    let folder = dir.join(&rel);
    nofollow::create_dir_in(dir, &rel).with_context(|| format!("creating {}", folder.display()))?;
    let write = |name: &str, text: &str| -> anyhow::Result<()> {
        let path = folder.join(name);
        nofollow::open_in(dir, &rel.join(name), Access::Replace)
            .and_then(|mut file| file.write_all(text.as_bytes()))
            .with_context(|| format!("writing {}", path.display()))
    };
    let mut bots = Vec::new();
    for mark in Mark::ALL {
        let name = record.names.get(mark).clone();
        let evidence = record.evidence.get(mark).as_ref();
        let stderr_file = match evidence.map(|e| e.stderr.as_str()) {
            Some(text) if !text.is_empty() => {
                let file = format!("{}-{name}.stderr.txt", mark.as_char().to_ascii_lowercase());
                write(&file, text)?;
                Some(file)
            }
            _ => None,
        };
        bots.push(SeatInfo {
            mark: mark.to_string(),
            name: name.clone(),
            seed: *record.seeds.get(mark),
            pid: evidence.and_then(|e| e.pid),
            exit: evidence.and_then(|e| e.exit).map(|e| e.to_string()),
            peak_memory_bytes: evidence.and_then(|e| e.peak_memory),
            game_in_process: evidence.map(|e| e.game_in_process),
            stderr_file,
            started: manifest.conditions(&name),
        });
    }
    let moves: Vec<Square> = record.moves.iter().map(|m| m.square).collect();
    let info = BundleInfo {
        id: meta.id.clone(),
        round: meta.round,
        pair: meta.pair,
        game_seed: meta.seed,
        rules: record.rules.to_string(),
        opening: format_move_list(&moves[..record.opening_plies.min(moves.len())]),
        moves: format_move_list(&moves),
        reason: row.reason.to_string(),
        detail: row.detail.clone(),
        culprit: culprit.to_string(),
        position: record.position.to_string(),
        ply: record.position.ply(),
        bots,
        reproduce: repro_command(dir, &meta.id),
        fault: FaultFacts::of(&record.termination),
    };
    write("transcript.txt", &transcript_text(meta, record))?;
    write("README.txt", &readme(&info, &record.result_line()))?;
    write(BUNDLE_JSON, &serde_json::to_string_pretty(&info)?)?;
    Ok(())
}

/// Both bots' transcripts, as `transcripts/<id>.txt` holds them.
pub fn transcript_text(meta: &GameMeta, record: &GameRecord) -> String {
    let mut text = format!("game {}: {}\n", meta.id, record.result_line());
    for mark in Mark::ALL {
        let _ = write!(text, "\n== {mark} ({}) ==\n", record.names.get(mark));
        let lines = record.transcripts.get(mark);
        if lines.is_empty() {
            text.push_str("(nothing: the bot never started, or it was not asked anything)\n");
        }
        for line in lines {
            text.push_str(line);
            text.push('\n');
        }
    }
    text
}

/// `README.txt`: the bundle in words.
fn readme(info: &BundleInfo, result: &str) -> String {
    let mib = |b: u64| format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0));
    let mut t = String::new();
    let _ = writeln!(t, "Game {} ended abnormally: {}", info.id, info.reason);
    let _ = writeln!(t, "{result}");
    let _ = writeln!(t);
    let _ = writeln!(t, "Reproduce it:  {}", info.reproduce);
    let _ = writeln!(
        t,
        "(add --command \"...\" to try a fixed version, --ply N to stop earlier)"
    );
    let _ = writeln!(t);
    let _ = writeln!(
        t,
        "Rules: {}   round {} pair {}   game seed {}",
        info.rules, info.round, info.pair, info.game_seed
    );
    let opening = if info.opening.is_empty() {
        "none"
    } else {
        &info.opening
    };
    let _ = writeln!(t, "Opening: {opening}");
    let _ = writeln!(t, "Moves: {}", info.moves);
    let _ = writeln!(
        t,
        "Position when it ended (ply {}): {}",
        info.ply, info.position
    );
    let _ = writeln!(t);
    for bot in &info.bots {
        let fault = if bot.mark == info.culprit {
            "  <- at fault"
        } else {
            ""
        };
        let _ = writeln!(t, "{} {}{fault}", bot.mark, bot.name);
        let _ = writeln!(t, "  seed: {}", bot.seed);
        let process = match (bot.pid, bot.game_in_process) {
            (Some(pid), Some(n)) => format!("pid {pid}, game {n} of that process"),
            (None, Some(n)) => format!("game {n} of its process"),
            _ => "never started".to_string(),
        };
        let _ = writeln!(t, "  process: {process}");
        let exit = bot.exit.clone().unwrap_or_else(|| {
            if bot.game_in_process.is_some() {
                "still running when the game ended (then stopped)".into()
            } else {
                "-".into()
            }
        });
        let _ = writeln!(t, "  exit: {exit}");
        let peak = bot
            .peak_memory_bytes
            .map_or("not measured".to_string(), mib);
        let _ = writeln!(
            t,
            "  peak memory of its process, up to the end of the game: {peak}"
        );
        let stderr = bot
            .stderr_file
            .clone()
            .unwrap_or_else(|| "nothing written during this game".into());
        let _ = writeln!(t, "  stderr: {stderr}");
        match &bot.started {
            Some(c) => {
                let _ = writeln!(t, "  limits: {}", c.limits);
                let sandbox = c.sandbox.as_deref().unwrap_or("not recorded");
                let _ = writeln!(t, "  sandbox: {sandbox}   clock: {}", c.clock);
            }
            None => {
                let _ = writeln!(t, "  limits: not recorded");
            }
        }
    }
    let _ = writeln!(t);
    let _ = writeln!(
        t,
        "Files: transcript.txt (what the referee and each bot said), the .stderr.txt \
         files (each bot's stderr during this game only; control characters escaped), \
         game.json (all of the above for a program)."
    );
    t
}

/// The failed games of a results directory, in the order of `rows`, with their
/// bundles where they were written.
pub fn failures(dir: &Path, rows: &[GameRow]) -> Vec<Failure> {
    rows.iter()
        .filter(|r| is_failure(r.reason))
        .filter_map(|r| {
            let culprit = r.loser()?;
            let folder: PathBuf = dir.join(FAILURES_DIR).join(&r.id);
            Some(Failure {
                game: r.id.clone(),
                bot: r.bot(culprit).to_string(),
                reason: r.reason.to_string(),
                detail: r.detail.clone(),
                bundle: folder.is_dir().then(|| folder.display().to_string()),
                reproduce: repro_command(dir, &r.id),
            })
        })
        .collect()
}

/// Reads `game.json` of a bundle.
///
/// # Errors
/// The file cannot be read or is not a bundle.
pub fn load(folder: &Path) -> anyhow::Result<BundleInfo> {
    let path = folder.join(BUNDLE_JSON);
    let bytes = nofollow::read(&path).with_context(|| format!("reading {}", path.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    serde_json::from_str(&text).with_context(|| format!("{}: not a failure bundle", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_and_illegal_moves_get_bundles_resignations_do_not() {
        let with: Vec<EndReason> = EndReason::ALL
            .into_iter()
            .filter(|r| is_failure(*r))
            .collect();
        assert_eq!(
            with,
            [
                EndReason::Timeout,
                EndReason::IllegalMove,
                EndReason::MalformedOutput,
                EndReason::Crash,
                EndReason::Disconnect,
                EndReason::HandshakeFailure
            ]
        );
    }

    #[test]
    fn the_command_quotes_a_directory_with_spaces() {
        assert_eq!(
            repro_command(Path::new("results/club"), "G0003"),
            "arena repro results/club --game G0003"
        );
        assert_eq!(
            repro_command(Path::new("my results/club"), "G0003"),
            "arena repro 'my results/club' --game G0003"
        );
    }
}
