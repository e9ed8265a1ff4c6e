//! What the live page shows of one results directory, read from its files: the
//! run's name and progress, the standings and the crosstable (refit after every
//! finished game), the newest finished games, and the games in progress from
//! `live/`, each replayed through the rules engine into the report's steps.
//!
//! [`watch`] polls the directory and publishes a new snapshot (as JSON text) only
//! when a file changed; every client of the page shares it, so fifty browsers cost
//! one read of the directory, and the run writing it is never waited for.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant, SystemTime};

use ratings::FitOptions;
use ratings::table::{crosstable_rows, standings_rows};
use serde::Serialize;
use tokio::sync::watch;
use uttt::result::Decision;
use uttt::rules::Rules;

use crate::report::chart::score_colour;
use crate::report::compact::Play;
use crate::report::page::{about, result_line};
use crate::report::replayed::Replayed;
use crate::results::live::{LiveRead, read_live};
use crate::results::manifest::Manifest;
use crate::results::moves_index::MovesIndex;
use crate::results::replay::replay;
use crate::results::store::{GAMES_FILE, GameRow, MOVES_FILE, read_games};

/// How often the directory is looked at.
pub const POLL: Duration = Duration::from_millis(100);

/// How many finished games the feed shows.
const FEED: usize = 30;

/// One run's page state, as sent to the page.
#[derive(Debug, Serialize)]
pub struct Snapshot {
    /// The run's name (`tournament.json`), else the directory's name.
    pub name: String,
    /// `running`, `finished` or `stopped` (not finished, nothing running).
    pub status: &'static str,
    /// Games finished.
    pub done: u64,
    /// Games in the run, when known.
    pub total: Option<u64>,
    /// Seconds left, estimated from the mean game length and the concurrency.
    pub eta_s: Option<u64>,
    /// The standings, best first.
    pub standings: Vec<Standing>,
    /// Why there are no standings, when they could not be computed.
    pub standings_problem: Option<String>,
    /// The crosstable: `names` in standings order, `cells[row][col]`.
    pub crosstable: Crosstable,
    /// The newest finished games, newest first.
    pub feed: Vec<FeedItem>,
    /// The games in `live/`.
    pub live: Vec<LiveView>,
}

/// A row of the standings.
#[derive(Clone, Debug, Serialize)]
pub struct Standing {
    rank: usize,
    bot: String,
    games: u64,
    w: u64,
    d: u64,
    l: u64,
    score: f64,
    /// The score's colour, as the report paints it.
    colour: String,
    elo: f64,
    err: f64,
}

/// The crosstable.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Crosstable {
    names: Vec<String>,
    cells: Vec<Vec<Option<Cross>>>,
}

/// A crosstable cell: the row bot's score against the column bot.
#[derive(Clone, Debug, Serialize)]
struct Cross {
    score: f64,
    colour: String,
    w: u64,
    d: u64,
    l: u64,
}

/// A finished game in the feed.
#[derive(Debug, Serialize)]
pub struct FeedItem {
    id: String,
    x: String,
    o: String,
    /// `X`, `O` or `draw`.
    winner: String,
    /// "X (mcts) wins: three boards in a row." — the end reason in words.
    result: String,
    plies: u32,
}

/// A game of `live/`.
#[derive(Debug, Serialize)]
pub struct LiveView {
    id: String,
    x: String,
    o: String,
    about: String,
    /// `false` for the files of a run that was killed: unfinished, not running.
    running: bool,
    /// Its marks so far, compact, as the report sends a game.
    play: Play,
}

/// The finished games of a directory, kept between snapshots (read again only
/// when `games.csv` changes).
#[derive(Debug, Default)]
pub struct Games {
    /// Every finished game, in file order (the order they finished).
    pub rows: Vec<GameRow>,
    /// Why the file could not be read or rated, if so.
    pub problem: Option<String>,
    /// The standings of `rows`.
    standings: Vec<Standing>,
    /// The crosstable of `rows`.
    crosstable: Crosstable,
}

/// What identifies a version of the directory's files.
#[derive(Clone, Debug, Default, PartialEq)]
struct Fingerprint {
    games: Option<(u64, SystemTime)>,
    manifest: Option<SystemTime>,
    live: Vec<(String, u64)>,
}

/// The link itself, never its target: a results directory may come from anyone, and
/// its files are read without following links (`results::nofollow`).
fn stamp(path: &Path) -> Option<(u64, SystemTime)> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()?))
}

fn fingerprint(dir: &Path) -> Fingerprint {
    let mut live: Vec<(String, u64)> = std::fs::read_dir(dir.join(crate::results::live::LIVE_DIR))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| {
                    let len = e.metadata().map_or(0, |m| m.len());
                    (e.file_name().to_string_lossy().into_owned(), len)
                })
                .collect()
        })
        .unwrap_or_default();
    live.sort();
    Fingerprint {
        games: stamp(&dir.join(GAMES_FILE)),
        manifest: stamp(&dir.join(crate::results::manifest::MANIFEST_FILE)).map(|s| s.1),
        live,
    }
}

/// Reads `games.csv` (none yet is no games, not a problem) and rates its games.
fn read_finished(dir: &Path) -> Games {
    let path = dir.join(GAMES_FILE);
    if !path.exists() {
        return Games::default();
    }
    let rows = match read_games(&path) {
        Ok(rows) => rows,
        Err(e) => {
            return Games {
                problem: Some(format!("{e:#}")),
                ..Games::default()
            };
        }
    };
    let mut games = Games {
        rows,
        ..Games::default()
    };
    if games.rows.is_empty() {
        return games;
    }
    match crate::results::standings::build(&games.rows, &FitOptions::default()) {
        Ok(analysis) => {
            let rows = standings_rows(&analysis.standings);
            games.standings = rows
                .iter()
                .map(|r| Standing {
                    rank: r.rank,
                    bot: r.bot.clone(),
                    games: r.games,
                    w: r.wins,
                    d: r.draws,
                    l: r.losses,
                    score: r.score,
                    colour: score_colour(r.score),
                    elo: r.elo,
                    err: r.elo_error,
                })
                .collect();
            let names: Vec<String> = rows.iter().map(|r| r.bot.clone()).collect();
            let cross: std::collections::HashMap<(String, String), Cross> =
                crosstable_rows(&analysis)
                    .into_iter()
                    .map(|c| {
                        let cell = Cross {
                            score: c.score,
                            colour: score_colour(c.score),
                            w: c.wins,
                            d: c.draws,
                            l: c.losses,
                        };
                        ((c.bot, c.opponent), cell)
                    })
                    .collect();
            let cells = names
                .iter()
                .map(|row| {
                    names
                        .iter()
                        .map(|col| cross.get(&(row.clone(), col.clone())).cloned())
                        .collect()
                })
                .collect();
            games.crosstable = Crosstable { names, cells };
        }
        Err(e) => games.problem = Some(format!("{e:#}")),
    }
    games
}

/// The snapshot of `dir` from its finished games and the rest of its files.
/// `recently_running`: whether a game was seen running a moment ago (between two
/// games of one slot nothing is in `live/`, and the run has not stopped).
pub fn build(dir: &Path, games: &Games, recently_running: bool) -> Snapshot {
    let manifest = Manifest::load(dir).ok().flatten();
    let live = read_live(dir);
    let finished: std::collections::HashSet<&str> =
        games.rows.iter().map(|g| g.id.as_str()).collect();
    let live: Vec<LiveRead> = live
        .into_iter()
        .filter(|g| !finished.contains(g.header.game.as_str()))
        .collect();
    let running = live.iter().any(|g| g.running);
    let done = games.rows.len() as u64;
    let status = match &manifest {
        Some(m) if m.finished_at.is_some() => "finished",
        _ if running || recently_running => "running",
        _ => "stopped",
    };
    let total = manifest.as_ref().map(|m| m.games_total.max(done));
    let eta_s = match (&manifest, total) {
        (Some(m), Some(total)) if status == "running" && done > 0 => {
            let mean_ms =
                games.rows.iter().map(|g| g.duration_ms).sum::<u64>() as f64 / done as f64;
            let slots = m.concurrency.max(1) as f64;
            Some(((total - done) as f64 * mean_ms / slots / 1000.0).round() as u64)
        }
        _ => None,
    };

    Snapshot {
        name: manifest.as_ref().map_or_else(
            || {
                dir.file_name().map_or_else(
                    || dir.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                )
            },
            |m| m.name.clone(),
        ),
        status,
        done,
        total,
        eta_s,
        standings: games.standings.clone(),
        standings_problem: games.problem.clone(),
        crosstable: games.crosstable.clone(),
        feed: games
            .rows
            .iter()
            .rev()
            .take(FEED)
            .map(|g| FeedItem {
                id: g.id.clone(),
                x: g.x.clone(),
                o: g.o.clone(),
                winner: match g.winner {
                    Decision::Win(mark) => mark.to_string(),
                    Decision::Draw => "draw".into(),
                },
                result: result_line(g),
                plies: g.plies,
            })
            .collect(),
        live: live.iter().map(live_view).collect(),
    }
}

fn live_view(game: &LiveRead) -> LiveView {
    let h = &game.header;
    let rules: Rules = h.rules.parse().unwrap_or(Rules::STANDARD);
    let replayed = replay(rules, &game.moves);
    LiveView {
        id: h.game.clone(),
        x: h.x.clone(),
        o: h.o.clone(),
        about: format!("Round {} · pair {} · {} rules", h.round, h.pair, h.rules),
        running: game.running,
        play: Play::new(&replayed, true),
    }
}

/// A finished game for the page's viewer: the report's compact form of it.
#[derive(Debug, Serialize)]
pub struct GameView {
    id: String,
    x: String,
    o: String,
    about: String,
    /// The result line.
    result: String,
    play: Play,
    /// Why its rows do not replay cleanly, if they do not.
    problem: Option<String>,
}

/// The game of `row`, its moves read through `index` (brought up to date first:
/// the game may have finished since the last poll).
///
/// # Errors
/// moves.csv cannot be read, or a row of the game is not valid.
pub fn game_view(dir: &Path, row: &GameRow, index: &Mutex<MovesIndex>) -> anyhow::Result<GameView> {
    let path = dir.join(MOVES_FILE);
    let rows = {
        let mut index = index
            .lock()
            .map_err(|_| anyhow::anyhow!("the index of moves.csv is unusable"))?;
        index.update(&path)?;
        index.rows(&path, &row.id)?.unwrap_or_default()
    };
    let replayed = Replayed::new(row, &rows, true);
    Ok(GameView {
        id: row.id.clone(),
        x: row.x.clone(),
        o: row.o.clone(),
        about: about(row),
        result: result_line(row),
        play: replayed.play,
        problem: replayed.problem,
    })
}

/// A bot's page: its games (newest first, at most `limit`) and its faults in words.
#[derive(Debug, Serialize)]
pub struct BotPage {
    bot: String,
    games: u64,
    shown: Vec<BotGame>,
    /// Each fault reason with its count, and the newest such game's words.
    faults: Vec<Fault>,
}

#[derive(Debug, Serialize)]
struct BotGame {
    id: String,
    colour: String,
    opponent: String,
    /// `win`, `draw` or `loss`, from the bot's side.
    outcome: &'static str,
    result: String,
    about: String,
}

#[derive(Debug, Serialize)]
struct Fault {
    reason: String,
    count: u64,
    example: String,
}

/// The page of `bot` among `rows`; `None` if it played no game.
pub fn bot_page(rows: &[GameRow], bot: &str, limit: usize) -> Option<BotPage> {
    let mine: Vec<&GameRow> = rows.iter().filter(|g| g.x == bot || g.o == bot).collect();
    if mine.is_empty() {
        return None;
    }
    let mut faults: Vec<Fault> = Vec::new();
    for g in &mine {
        let Some(loser) = g.loser() else { continue };
        if g.bot(loser) != bot || g.reason.on_the_board() {
            continue;
        }
        let reason = g.reason.to_string();
        match faults.iter_mut().find(|f| f.reason == reason) {
            Some(f) => {
                f.count += 1;
                f.example = result_line(g);
            }
            None => faults.push(Fault {
                reason,
                count: 1,
                example: result_line(g),
            }),
        }
    }
    let shown = mine
        .iter()
        .rev()
        .take(limit)
        .map(|g| {
            let mark = g.seat_of(bot);
            let outcome = match (g.winner, mark) {
                (Decision::Draw, _) => "draw",
                (Decision::Win(w), Some(m)) if w == m => "win",
                _ => "loss",
            };
            let colour = mark.map_or_else(String::new, |m| m.to_string());
            let opponent = match mark {
                Some(m) => g.bot(!m).to_string(),
                None => String::new(),
            };
            BotGame {
                id: g.id.clone(),
                colour,
                opponent,
                outcome,
                result: result_line(g),
                about: about(g),
            }
        })
        .collect();
    Some(BotPage {
        bot: bot.to_string(),
        games: mine.len() as u64,
        shown,
        faults,
    })
}

/// One results directory being watched.
#[derive(Debug)]
pub struct Watched {
    /// The directory.
    pub dir: PathBuf,
    /// The newest snapshot, as JSON text.
    pub snapshot: watch::Receiver<Arc<String>>,
    /// The finished games, for the bot pages.
    pub games: Arc<RwLock<Games>>,
    /// Where each finished game's rows are in moves.csv.
    pub moves: Arc<Mutex<MovesIndex>>,
}

/// Starts watching `dir` on the current runtime: a task polls it every [`POLL`]
/// and publishes a snapshot when something changed.
pub fn watch(dir: PathBuf) -> Watched {
    let games = Arc::new(RwLock::new(Games::default()));
    let moves = Arc::new(Mutex::new(MovesIndex::default()));
    let (tx, rx) = watch::channel(Arc::new(String::new()));
    let task_dir = dir.clone();
    let task_games = games.clone();
    let task_moves = moves.clone();
    tokio::spawn(async move {
        let mut seen = None;
        let mut last_running: Option<Instant> = None;
        loop {
            let dir = task_dir.clone();
            let shared = task_games.clone();
            let index = task_moves.clone();
            let previous = seen.clone();
            let recently = last_running.is_some_and(|t| t.elapsed() < Duration::from_secs(3));
            let started = Instant::now();
            let work = tokio::task::spawn_blocking(move || {
                let now = fingerprint(&dir);
                if previous.as_ref() == Some(&now) && !recently {
                    return (now, None);
                }
                let games_changed = previous.as_ref().map(|p| &p.games) != Some(&now.games);
                if games_changed {
                    // Rows reach moves.csv before their game reaches games.csv.
                    if let Ok(mut index) = index.lock() {
                        // Unreadable now: the game endpoint says so if asked.
                        let _ = index.update(&dir.join(MOVES_FILE));
                    }
                    let fresh = read_finished(&dir);
                    if let Ok(mut g) = shared.write() {
                        *g = fresh;
                    }
                }
                let snapshot = match shared.read() {
                    Ok(g) => build(&dir, &g, recently),
                    Err(_) => return (now, None),
                };
                (now, Some(snapshot))
            })
            .await;
            if let Ok((now, Some(snapshot))) = work {
                seen = Some(now);
                if snapshot.live.iter().any(|g| g.running) {
                    last_running = Some(Instant::now());
                }
                if let Ok(json) = serde_json::to_string(&snapshot)
                    && **tx.borrow() != json
                {
                    let _ = tx.send(Arc::new(json));
                }
            } else if let Ok((now, None)) = work {
                seen = Some(now);
            }
            if tx.is_closed() {
                return;
            }
            // A directory slow to read (100,000 games) is read less often.
            tokio::time::sleep(POLL.max(started.elapsed() * 2)).await;
        }
    });
    Watched {
        dir,
        snapshot: rx,
        games,
        moves,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::live::{LIVE_DIR, LiveHeader};

    const HEADER: &str = "id,round,pair,x,o,opening,winner,winner_name,reason,detail,plies,boards_x,boards_o,rules,duration_ms,seed";

    /// Two finished games (the second lost by `a` on time) and a game of a killed
    /// run in `live/`.
    fn directory() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(GAMES_FILE),
            format!(
                "{HEADER}\n\
                 G0001,1,1,a,b,,X,a,three-in-a-row,three boards in a row,30,3,1,standard,5,7\n\
                 G0002,1,1,b,a,,X,b,timeout,a took 300 ms of 100,12,0,0,standard,5,8\n"
            ),
        )
        .unwrap();
        let live = dir.path().join(LIVE_DIR);
        std::fs::create_dir_all(&live).unwrap();
        let header = LiveHeader {
            game: "G0003".into(),
            round: 2,
            pair: 2,
            x: "a".into(),
            o: "b".into(),
            rules: "standard".into(),
            started: "2026-12-01T00:00:00Z".into(),
            pid: 4_194_305, // above the kernel's maximum: never running
            host: std::fs::read_to_string("/proc/sys/kernel/hostname")
                .unwrap_or_default()
                .trim()
                .to_string(),
        };
        std::fs::write(
            live.join("G0003.json"),
            serde_json::to_vec(&header).unwrap(),
        )
        .unwrap();
        std::fs::write(
            live.join("G0003.csv"),
            "game,ply,mark,bot,square,board,cell,free_move,think_ms,depth,score,nodes,info,claimed,drawn\n\
             G0003,1,X,a,e5,5,5,true,1.0,,,,<b>hi</b>,,\n",
        )
        .unwrap();
        dir
    }

    #[test]
    fn a_killed_runs_directory_reads_as_stopped_with_its_game_unfinished() {
        let dir = directory();
        let games = read_finished(dir.path());
        let snapshot = build(dir.path(), &games, false);
        assert_eq!(snapshot.status, "stopped");
        assert_eq!(snapshot.done, 2);
        assert_eq!(snapshot.eta_s, None);
        // Newest first, the end in words.
        let feed: Vec<&str> = snapshot.feed.iter().map(|g| g.id.as_str()).collect();
        assert_eq!(feed, ["G0002", "G0001"]);
        assert_eq!(snapshot.feed[0].result, "X (b) wins: a took 300 ms of 100.");
        // Standings and crosstable from the same fit.
        assert_eq!(snapshot.standings.len(), 2);
        assert_eq!(snapshot.crosstable.names.len(), 2);
        assert!(snapshot.crosstable.cells[0][0].is_none());
        assert!(snapshot.crosstable.cells[0][1].is_some());
        // The game of the killed run: replayed by the engine, not running.
        assert_eq!(snapshot.live.len(), 1);
        assert!(!snapshot.live[0].running);
        assert_eq!(snapshot.live[0].play.moves.len(), 1);
        // Seen running a moment ago: still "running" (between two games of a slot).
        assert_eq!(build(dir.path(), &games, true).status, "running");
        // Once recorded, a game is no longer shown as live.
        let mut recorded = read_finished(dir.path());
        recorded.rows[1].id = "G0003".into();
        assert!(build(dir.path(), &recorded, false).live.is_empty());
    }

    #[test]
    fn a_bots_page_names_its_faults_in_words() {
        let dir = directory();
        let games = read_finished(dir.path());
        let page = bot_page(&games.rows, "a", 10).unwrap();
        assert_eq!(page.games, 2);
        assert_eq!(page.faults.len(), 1);
        assert_eq!(page.faults[0].reason, "timeout");
        assert_eq!(page.faults[0].example, "X (b) wins: a took 300 ms of 100.");
        let outcomes: Vec<&str> = page.shown.iter().map(|g| g.outcome).collect();
        assert_eq!(outcomes, ["loss", "win"]);
        assert!(bot_page(&games.rows, "b", 10).unwrap().faults.is_empty());
        assert!(bot_page(&games.rows, "../../etc/passwd", 10).is_none());
    }
}
