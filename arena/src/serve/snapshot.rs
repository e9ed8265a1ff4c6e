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
use crate::report::event::{Winner, drawing, winner as event_winner, with_scores};
use crate::report::page::rounds_of;
use crate::report::page::{about, result_line};
use crate::report::replayed::Replayed;
use crate::results::live::{LiveRead, read_live};
use crate::results::manifest::Manifest;
use crate::results::moves_index::MovesIndex;
use crate::results::replay::replay;
use crate::results::round::CurrentRound;
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
    /// Seconds left, from the run's real pace as this page has seen it ([`Pace`]).
    pub eta_s: Option<u64>,
    /// `round-robin`, `gauntlet`, `swiss`, `knockout` (or the manifest's word).
    pub format: String,
    /// The format in words: "Swiss, 5 rounds".
    pub format_words: String,
    /// The round of a Swiss or knockout being played (`round.json`).
    pub round: Option<RoundView>,
    /// The event's ranking, drawn as the report draws it (a Swiss's table, a
    /// knockout's bracket): markup made by [`Html`], every name escaped.
    pub event_html: Option<String>,
    /// Who won, once the run is finished.
    pub winner: Option<Winner>,
    /// Whether the Elo standings are the event's ranking (a round robin or a
    /// gauntlet whose bots are all connected by games); if not, the page lists
    /// them by name, unnumbered, and says why.
    pub elo_ranked: bool,
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

/// A finished game in the feed, or the newest of a bot's games lost by the same
/// fault (a broken bot's crashes are one line, not a wall of tracebacks).
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
    /// A fault (not a result on the board): "ada: crash".
    fault: Option<String>,
    /// Older games lost the same way by the same bot, folded into this line.
    repeats: u64,
}

/// The round being played, with each pairing's score so far.
#[derive(Clone, Debug, Serialize)]
pub struct RoundView {
    number: u32,
    of: u32,
    pairs: Vec<PairView>,
    byes: Vec<String>,
}

/// A pairing of the round.
#[derive(Clone, Debug, Serialize)]
struct PairView {
    a: String,
    b: String,
    a_points: f64,
    b_points: f64,
    /// Games of it finished.
    games: u32,
    /// A game of it in progress.
    playing: bool,
}

/// One run as the index of `arena serve DIR…` lists it.
#[derive(Clone, Debug, Default)]
pub struct RunLine {
    /// Its name.
    pub name: String,
    /// Its format in words.
    pub format: String,
    /// `running`, `finished`, `stopped`.
    pub status: &'static str,
    /// Games finished.
    pub done: u64,
    /// Games in the run, when known.
    pub total: Option<u64>,
    /// Who won, once finished.
    pub winner: Option<String>,
}

/// The run's real pace as this page has seen it: the games finished since it
/// first looked, over the time since. Honest from the second minute of a Swiss
/// as of a long run: the mean length of a game says nothing of the pauses
/// between rounds, the games at once or the games a slot waits for.
#[derive(Clone, Copy, Debug, Default)]
pub struct Pace {
    first: Option<(Instant, u64)>,
}

impl Pace {
    /// The least time watched before an estimate is given.
    const WATCHED: Duration = Duration::from_secs(3);

    /// Notes that `done` games were finished at `now`.
    pub fn observe(&mut self, done: u64, now: Instant) {
        match self.first {
            // Fewer than before: another run in the directory; start again.
            Some((_, seen)) if seen <= done => {}
            _ => self.first = Some((now, done)),
        }
    }

    /// Seconds left for `total - done` games at the pace seen until `now`;
    /// `None` until a game has finished under this page's eyes.
    pub fn eta(&self, done: u64, total: u64, now: Instant) -> Option<u64> {
        let (since, seen) = self.first?;
        let watched = now.saturating_duration_since(since);
        let finished = done.checked_sub(seen).filter(|&f| f > 0)?;
        if watched < Self::WATCHED {
            return None;
        }
        let left = total.saturating_sub(done) as f64;
        Some((left * watched.as_secs_f64() / finished as f64).round() as u64)
    }
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
    /// The bots with the most points (a round robin's winners).
    leaders: Vec<String>,
    /// Whether the fit connects every bot (one group).
    connected: bool,
}

/// What identifies a version of the directory's files.
#[derive(Clone, Debug, Default, PartialEq)]
struct Fingerprint {
    games: Option<(u64, SystemTime)>,
    manifest: Option<SystemTime>,
    /// swiss.csv or knockout.csv, and round.json.
    event: [Option<(u64, SystemTime)>; 3],
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
        event: [
            stamp(&dir.join(crate::results::event::SWISS_FILE)),
            stamp(&dir.join(crate::results::event::KNOCKOUT_FILE)),
            stamp(&dir.join(crate::results::round::ROUND_FILE)),
        ],
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
            games.connected = analysis.standings.components().len() <= 1;
            let best = rows.iter().map(|r| r.points).fold(f64::MIN, f64::max);
            games.leaders = rows
                .iter()
                .filter(|r| r.points == best)
                .map(|r| r.bot.clone())
                .collect();
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
/// `eta`: seconds left for a number of games to play, from the run's pace.
pub fn build(
    dir: &Path,
    games: &Games,
    recently_running: bool,
    eta: &dyn Fn(u64) -> Option<u64>,
) -> Snapshot {
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
    let eta_s = match total {
        Some(total) if status == "running" => eta(total - done),
        _ => None,
    };
    let format = manifest
        .as_ref()
        .map_or("", |m| m.schedule.format.as_str())
        .to_string();
    let over = status == "finished";
    let event = crate::results::event::read(dir).ok().flatten();
    let round = crate::results::round::read(dir)
        .ok()
        .flatten()
        .map(|r| round_view(r, &games.rows, &live));
    let (event_html, winner) = match &event {
        Some(event) => {
            let scored = with_scores(event, &games.rows);
            let rounds = round
                .as_ref()
                .map(|r| r.of)
                .or_else(|| rounds_of(&format, &scored));
            (
                Some(drawing(&scored, rounds).into_string()),
                event_winner(&scored, over),
            )
        }
        None if over && !games.leaders.is_empty() => (None, Some(points_winner(games))),
        None => (None, None),
    };
    let kind = format.split(':').next().unwrap_or("").to_string();
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
        format_words: format_words(&format),
        elo_ranked: event.is_none()
            && !matches!(kind.as_str(), "swiss" | "knockout")
            && games.connected,
        format: kind,
        round,
        event_html,
        winner,
        standings: games.standings.clone(),
        standings_problem: games.problem.clone(),
        crosstable: games.crosstable.clone(),
        feed: feed(&games.rows),
        live: live.iter().map(live_view).collect(),
    }
}

/// A round robin's (or gauntlet's) winner: the most points; several when tied.
fn points_winner(games: &Games) -> Winner {
    let points = games
        .standings
        .iter()
        .find(|s| games.leaders.first() == Some(&s.bot))
        .map_or(0.0, |s| s.score * s.games as f64);
    let unit = if points == 1.0 { "point" } else { "points" };
    let how = if games.leaders.len() > 1 {
        format!("share first place with {points} {unit} each")
    } else {
        format!("{points} {unit}")
    };
    Winner {
        name: games.leaders.join(" and "),
        how,
    }
}

/// "Round robin", "Swiss, 5 rounds", "Knockout", "Gauntlet of mine".
fn format_words(format: &str) -> String {
    match format.split_once(':') {
        Some(("swiss", rounds)) => format!("Swiss, {rounds} rounds"),
        Some(("knockout", _)) => "Knockout".into(),
        Some(("gauntlet", who)) => format!("Gauntlet of {who}"),
        _ if format == "round-robin" => "Round robin".into(),
        _ => format.to_string(),
    }
}

/// The round being played: each pairing's points so far from its finished games,
/// and whether a game of it is on a board.
fn round_view(round: CurrentRound, rows: &[GameRow], live: &[LiveRead]) -> RoundView {
    let pairs = round
        .pairs
        .into_iter()
        .map(|(a, b)| {
            let mut view = PairView {
                a_points: 0.0,
                b_points: 0.0,
                games: 0,
                playing: live.iter().any(|g| {
                    g.running
                        && g.header.round == round.number
                        && [&g.header.x, &g.header.o].contains(&&a)
                        && [&g.header.x, &g.header.o].contains(&&b)
                }),
                a,
                b,
            };
            for g in rows.iter().filter(|g| g.round == round.number) {
                let (Some(sa), Some(_)) = (g.seat_of(&view.a), g.seat_of(&view.b)) else {
                    continue;
                };
                view.games += 1;
                match g.winner {
                    Decision::Draw => {
                        view.a_points += 0.5;
                        view.b_points += 0.5;
                    }
                    Decision::Win(w) if w == sa => view.a_points += 1.0,
                    Decision::Win(_) => view.b_points += 1.0,
                }
            }
            view
        })
        .collect();
    RoundView {
        number: round.number,
        of: round.of,
        pairs,
        byes: round.byes,
    }
}

/// The newest finished games, newest first, a bot's games lost by the same
/// fault folded into the newest of them.
fn feed(rows: &[GameRow]) -> Vec<FeedItem> {
    let mut items: Vec<FeedItem> = Vec::new();
    for g in rows.iter().rev() {
        let fault = g
            .loser()
            .filter(|_| !g.reason.on_the_board())
            .map(|loser| format!("{}: {}", g.bot(loser), g.reason));
        if let Some(fault) = &fault
            && let Some(item) = items.iter_mut().find(|i| i.fault.as_ref() == Some(fault))
        {
            item.repeats += 1;
            continue;
        }
        if items.len() == FEED {
            // Only the lines shown can still fold older games in.
            if fault.is_none() {
                break;
            }
            continue;
        }
        items.push(FeedItem {
            id: g.id.clone(),
            x: g.x.clone(),
            o: g.o.clone(),
            winner: match g.winner {
                Decision::Win(mark) => mark.to_string(),
                Decision::Draw => "draw".into(),
            },
            result: result_line(g),
            plies: g.plies,
            fault,
            repeats: 0,
        });
    }
    items
}

impl Snapshot {
    /// The run as the index lists it.
    pub fn line(&self) -> RunLine {
        RunLine {
            name: self.name.clone(),
            format: self.format_words.clone(),
            status: self.status,
            done: self.done,
            total: self.total,
            winner: self.winner.as_ref().map(|w| w.name.clone()),
        }
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
    /// The run as the index lists it, from the newest snapshot.
    pub line: Arc<RwLock<RunLine>>,
}

/// Starts watching `dir` on the current runtime: a task polls it every [`POLL`]
/// and publishes a snapshot when something changed.
pub fn watch(dir: PathBuf) -> Watched {
    let games = Arc::new(RwLock::new(Games::default()));
    let moves = Arc::new(Mutex::new(MovesIndex::default()));
    let (tx, rx) = watch::channel(Arc::new(String::new()));
    let line = Arc::new(RwLock::new(RunLine {
        name: dir.file_name().map_or_else(
            || dir.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        ),
        ..RunLine::default()
    }));
    let task_line = line.clone();
    let task_dir = dir.clone();
    let task_games = games.clone();
    let task_moves = moves.clone();
    tokio::spawn(async move {
        let mut seen = None;
        let mut last_running: Option<Instant> = None;
        let pace = Arc::new(Mutex::new(Pace::default()));
        loop {
            let pace = pace.clone();
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
                    Ok(g) => {
                        let at = Instant::now();
                        let done = g.rows.len() as u64;
                        let pace = pace.lock().map(|mut p| {
                            p.observe(done, at);
                            *p
                        });
                        let eta = |left: u64| {
                            pace.as_ref()
                                .ok()
                                .and_then(|p| p.eta(done, done + left, at))
                        };
                        build(&dir, &g, recently, &eta)
                    }
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
                if let Ok(mut line) = task_line.write() {
                    *line = snapshot.line();
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
        line,
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
        let snapshot = build(dir.path(), &games, false, &|_| None);
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
        assert_eq!(build(dir.path(), &games, true, &|_| None).status, "running");
        // Once recorded, a game is no longer shown as live.
        let mut recorded = read_finished(dir.path());
        recorded.rows[1].id = "G0003".into();
        assert!(
            build(dir.path(), &recorded, false, &|_| None)
                .live
                .is_empty()
        );
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

    #[test]
    fn the_time_left_comes_from_the_pace_seen_not_from_the_mean_game() {
        let start = Instant::now();
        let mut pace = Pace::default();
        pace.observe(4, start);
        // Nothing finished under the page's eyes yet: no estimate.
        assert_eq!(pace.eta(4, 100, start + Duration::from_secs(60)), None);
        pace.observe(6, start + Duration::from_secs(1));
        // Too soon to say.
        assert_eq!(pace.eta(6, 100, start + Duration::from_secs(1)), None);
        // 10 games in 20 s: 2 s a game, 86 left.
        let at = start + Duration::from_secs(20);
        pace.observe(14, at);
        assert_eq!(pace.eta(14, 100, at), Some(172));
        // A long pause (between rounds, a slow game) slows the estimate down.
        assert_eq!(
            pace.eta(14, 100, start + Duration::from_secs(40)),
            Some(344)
        );
        // Fewer games than before: another run; start again.
        pace.observe(1, at);
        assert_eq!(pace.eta(1, 100, at + Duration::from_secs(10)), None);
    }

    #[test]
    fn a_bots_repeated_faults_are_one_line_of_the_feed() {
        let dir = directory();
        let mut rows = read_finished(dir.path()).rows;
        let lost_on_time = rows[1].clone();
        for k in 0..5 {
            let mut g = lost_on_time.clone();
            g.id = format!("G01{k:02}");
            rows.push(g);
        }
        let items = feed(&rows);
        let ids: Vec<&str> = items.iter().map(|i| i.id.as_str()).collect();
        assert_eq!(ids, ["G0104", "G0001"]);
        assert_eq!(items[0].fault.as_deref(), Some("a: timeout"));
        assert_eq!(items[0].repeats, 5);
        assert_eq!(items[1].fault, None);
    }

    #[test]
    fn a_round_robins_winner_has_the_most_points() {
        let dir = directory();
        let games = read_finished(dir.path());
        // a won one and lost one, as did b: they share first place.
        let w = points_winner(&games);
        assert_eq!(w.how, "share first place with 1 point each");
        assert!(w.name == "a and b" || w.name == "b and a", "{}", w.name);
        assert_eq!(format_words("swiss:5"), "Swiss, 5 rounds");
        assert_eq!(format_words("round-robin"), "Round robin");
    }
}
