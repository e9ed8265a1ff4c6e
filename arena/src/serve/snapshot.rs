//! What the live page shows of one results directory, read from its files: the
//! run's name and progress, the standings and the crosstable (refit whenever games
//! were added), the newest finished games, and the games in progress from
//! `live/`, each replayed through the rules engine into the report's steps.
//!
//! [`watch`] follows the directory and publishes a new snapshot (as JSON text) only
//! when a file changed; every client of the page shares it, so fifty browsers cost
//! one read of the directory, and the run writing it is never waited for. It
//! costs nothing much when nobody watches:
//!
//! - it looks every [`POLL`] while a page is connected (an event stream is open,
//!   or a request came in the last [`WANTED_FOR`]), and every [`IDLE_POLL`]
//!   otherwise;
//! - each look reads only what `games.csv` appended since the last one
//!   ([`crate::results::tail`]) and counts it into a [`Scoreboard`]; `moves.csv` is
//!   read only when a game is opened ([`MovesIndex`]);
//! - it keeps what the page shows, not the games: the standings, the newest
//!   [`FEED`] games, each bot's newest [`BOT_GAMES`] games and its fault counts, so
//!   its memory is the same for a thousand games as for a million.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant, SystemTime};

use ratings::FitOptions;
use ratings::table::{crosstable_rows, standings_rows};
use serde::Serialize;
use tokio::sync::{Notify, watch};
use uttt::result::Decision;
use uttt::rules::Rules;

use crate::eta::{GameTimes, Left};
use crate::report::chart::score_colour;
use crate::report::compact::Play;
use crate::report::escape::Html;
use crate::report::event::{
    Beside, Winner, drawing, points_text, points_winner, winner as event_winner, with_scores,
};
use crate::report::league::{Context, Reader, levels_among};
use crate::report::left_out::{Said, said};
use crate::report::page::rounds_of;
use crate::report::page::{about, result_line};
use crate::report::replayed::Replayed;
use crate::results::league;
use crate::results::live::{LiveRead, read_live};
use crate::results::manifest::Manifest;
use crate::results::moves_index::MovesIndex;
use crate::results::replay::replay;
use crate::results::round::CurrentRound;
use crate::results::round_scores::RoundScores;
use crate::results::standings::Scoreboard;
use crate::results::store::{GAMES_FILE, GameRow, MOVES_FILE, parse_game_lines};
use crate::results::tail::{Appended, Tail};

/// How often the directory is looked at while a page is connected.
pub const POLL: Duration = Duration::from_millis(100);

/// How often it is looked at while nobody watches.
pub const IDLE_POLL: Duration = Duration::from_secs(5);

/// How long a request (`/state`, a bot, a game) counts as a page connected.
pub const WANTED_FOR: Duration = Duration::from_secs(10);

/// How many finished games the feed shows.
pub const FEED: usize = 30;

/// Games of a bot listed on its page.
pub const BOT_GAMES: usize = 200;

/// Ids of the newest finished games remembered, to tell a game of `live/` that
/// was just recorded (its files are removed right after) from a running one.
const RECENT_IDS: usize = 4096;

/// The most bytes of `games.csv` parsed at a time (a first look at a directory of
/// a million games reads it in pieces of this size).
const GAMES_PIECE: usize = 4 << 20;

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
    /// Seconds left, estimated by [`crate::eta`] from the newest games' wall
    /// times, the games each round has left, the games at once and how far the
    /// games on the boards have got ([`work_left`]).
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
    /// A league's table as its ranking: the students' current versions, the
    /// levels as lines among them, the left-out students with why, drawn as the
    /// report draws it (`report::league::ranking`): markup made by [`Html`],
    /// every name escaped. Its size follows the league's files, each read only
    /// up to `results::league::MAX_BYTES`. Never the similarity check's pairs:
    /// the page is the class's.
    pub league_html: Option<String>,
    /// A league's full table, each student's versions and rating history
    /// (`report::league::section` for the class), for the normal view.
    pub league_more_html: Option<String>,
    /// The bots the run left out, in words for the class (tournament.json).
    pub left_out: Vec<Said>,
    /// What the governor last did, while the run plays and it is holding the
    /// run back (fewer games at once, or a wait for a busy machine):
    /// `governor.json`'s last line.
    pub governor: Option<String>,
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
    /// Points (a win 1, a draw ½), as a person writes them: `3.5`.
    points: String,
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

/// The finished games of a directory as the page shows them, brought up to date
/// by [`Games::update`] from what `games.csv` appended (see the module docs).
#[derive(Debug, Default)]
pub struct Games {
    /// Where the reader of `games.csv` is.
    tail: Tail,
    /// Every finished game counted.
    board: Scoreboard,
    /// How they are rated: a league's on its grades' scale ([`fit_options`]).
    options: FitOptions,
    /// Why the file could not be read or rated, if so.
    pub problem: Option<String>,
    /// The standings of the games counted.
    standings: Vec<Standing>,
    /// The crosstable of the games counted.
    crosstable: Crosstable,
    /// Whether the fit connects every bot (one group).
    connected: bool,
    /// The feed's lines, newest last: the newest finished games, each bot's
    /// games lost by one fault standing as the newest of them ([`feed`]).
    feed: VecDeque<GameRow>,
    /// How many games were lost by each fault ("ada: crash"), for the feed's
    /// folded lines: as many entries as bots times fault reasons.
    fault_games: HashMap<String, u64>,
    /// Each pairing's points in the newest rounds (a Swiss round, a knockout
    /// match in play).
    scores: RoundScores,
    /// The newest games' wall times and lengths, for the time left.
    times: GameTimes,
    /// Each bot's newest games and its faults.
    bots: HashMap<String, BotLog>,
    /// The ids of the newest finished games, newest last, and as a set.
    recent: VecDeque<String>,
    recent_set: HashSet<String>,
}

/// What a bot's page shows of its games.
#[derive(Debug, Default)]
struct BotLog {
    /// Games played.
    games: u64,
    /// The newest, newest last, at most [`BOT_GAMES`].
    newest: VecDeque<GameRow>,
    /// Each fault reason with its count, and the newest such game's words.
    faults: Vec<Fault>,
}

impl Games {
    /// Reads what `games.csv` in `dir` appended since the last update and counts
    /// it; returns whether anything changed. A file that was replaced is read
    /// again from its top. A bad row stops the reading there and is the problem
    /// shown, until it is fixed.
    pub fn update(&mut self, dir: &Path) -> bool {
        let path = dir.join(GAMES_FILE);
        let mut changed = false;
        loop {
            match self.tail.next(&path, GAMES_PIECE) {
                Ok(Appended::Nothing) => break,
                Ok(Appended::Replaced) => {
                    *self = Games::default();
                    changed = true;
                }
                Ok(Appended::Lines { bytes, first_line }) => {
                    changed = true;
                    let header = self.tail.header().to_vec();
                    let counted = parse_game_lines(&path, &header, &bytes, first_line)
                        .and_then(|rows| rows.iter().try_for_each(|row| self.add(row)));
                    if let Err(e) = counted {
                        // No standings from a file with a bad row: it is read
                        // again from its top when it changes (fixed, or replaced).
                        *self = Games {
                            problem: Some(format!("{e:#}")),
                            ..Games::default()
                        };
                        return true;
                    }
                }
                Err(e) => {
                    self.problem = Some(format!("reading {}: {e}", path.display()));
                    return true;
                }
            }
        }
        if changed {
            self.options = fit_options(dir, &self.board);
            self.rate();
        }
        changed
    }

    /// Counts one finished game.
    fn add(&mut self, row: &GameRow) -> anyhow::Result<()> {
        self.board.add(row)?;
        self.scores.add(row);
        self.times
            .add(Duration::from_millis(row.duration_ms), row.plies);
        for bot in [&row.x, &row.o] {
            let log = match self.bots.get_mut(bot.as_str()) {
                Some(log) => log,
                None => self.bots.entry(bot.clone()).or_default(),
            };
            log.games += 1;
            if log.newest.len() == BOT_GAMES {
                log.newest.pop_front();
            }
            log.newest.push_back(row.clone());
            let Some(loser) = row.loser() else { continue };
            if row.bot(loser) != bot.as_str() || row.reason.on_the_board() {
                continue;
            }
            let reason = row.reason.to_string();
            match log.faults.iter_mut().find(|f| f.reason == reason) {
                Some(f) => {
                    f.count += 1;
                    f.example = result_line(row);
                }
                None => log.faults.push(Fault {
                    reason,
                    count: 1,
                    example: result_line(row),
                }),
            }
        }
        if let Some(fault) = fault_of(row) {
            // The newest game lost this way stands for the others.
            self.feed.retain(|g| fault_of(g).as_ref() != Some(&fault));
            *self.fault_games.entry(fault).or_default() += 1;
        }
        if self.feed.len() == FEED {
            self.feed.pop_front();
        }
        self.feed.push_back(row.clone());
        if self.recent.len() == RECENT_IDS
            && let Some(old) = self.recent.pop_front()
        {
            self.recent_set.remove(&old);
        }
        self.recent.push_back(row.id.clone());
        self.recent_set.insert(row.id.clone());
        Ok(())
    }

    /// Games counted.
    pub fn done(&self) -> u64 {
        self.board.games()
    }

    /// A finished game the page shows (in the feed or on a bot's page).
    pub fn find(&self, id: &str) -> Option<GameRow> {
        self.feed
            .iter()
            .chain(self.bots.values().flat_map(|log| log.newest.iter()))
            .find(|g| g.id == id)
            .cloned()
    }

    /// The standings and the crosstable of the games counted.
    fn rate(&mut self) {
        self.problem = None;
        self.standings.clear();
        self.crosstable = Crosstable::default();
        self.connected = false;
        if self.board.is_empty() {
            return;
        }
        let analysis = match self.board.analysis(&self.options) {
            Ok(analysis) => analysis,
            Err(e) => {
                self.problem = Some(format!("{e:#}"));
                return;
            }
        };
        let rows = standings_rows(&analysis.standings);
        self.connected = analysis.standings.components().len() <= 1;
        self.standings = rows
            .iter()
            .map(|r| Standing {
                rank: r.rank,
                bot: r.bot.clone(),
                points: points_text(r.points),
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
        let cross: HashMap<(String, String), Cross> = crosstable_rows(&analysis)
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
        self.crosstable = Crosstable { names, cells };
    }
}

/// How the games of `dir` are rated: a league's with its levels at their
/// published ratings, so that its Elo table and its grades share one scale;
/// any other run's by the plain fit.
fn fit_options(dir: &Path, board: &Scoreboard) -> FitOptions {
    match Manifest::load(dir).ok().flatten() {
        Some(m) if m.schedule.format.starts_with("league:") => {
            let levels = levels_among(m.schedule.bots.iter().map(|b| b.name.as_str()));
            crate::report::league::anchored(&levels, |name| board.score(name).games() > 0)
        }
        _ => FitOptions::default(),
    }
}

/// Reads `games.csv` (none yet is no games, not a problem) and rates its games.
#[cfg(test)]
fn read_finished(dir: &Path) -> Games {
    let mut games = Games::default();
    games.update(dir);
    games
}

/// What identifies a version of the directory's files.
#[derive(Clone, Debug, Default, PartialEq)]
struct Fingerprint {
    games: Option<(u64, SystemTime)>,
    manifest: Option<SystemTime>,
    /// swiss.csv or knockout.csv, and round.json.
    event: [Option<(u64, SystemTime)>; 3],
    /// A league's grades.csv, grades-history.csv and similarity.csv.
    league: [Option<(u64, SystemTime)>; 3],
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
        league: [
            stamp(&dir.join(league::GRADES_FILE)),
            stamp(&dir.join(league::HISTORY_FILE)),
            stamp(&dir.join(league::SIMILARITY_FILE)),
        ],
        live,
    }
}

/// A finished game the page does not hold, looked for in `games.csv` a piece at
/// a time (a page links only games it shows; this is for the others).
///
/// # Errors
/// The file cannot be read or has a bad row before the game.
pub fn find_game(dir: &Path, id: &str) -> anyhow::Result<Option<GameRow>> {
    let path = dir.join(GAMES_FILE);
    let mut tail = Tail::default();
    loop {
        match tail.next(&path, GAMES_PIECE)? {
            Appended::Nothing | Appended::Replaced => return Ok(None),
            Appended::Lines { bytes, first_line } => {
                let header = tail.header().to_vec();
                let rows = parse_game_lines(&path, &header, &bytes, first_line)?;
                if let Some(row) = rows.into_iter().find(|r| r.id == id) {
                    return Ok(Some(row));
                }
            }
        }
    }
}

/// The work `total - done` games are: the round being played (its pairings'
/// games not finished, at least those on a board) and the rounds after it, as
/// many as `round` says are left; a round robin's games are one round.
/// `under_way`: how far the games on the boards have got, added up.
pub fn work_left(
    total: u64,
    done: u64,
    round: Option<&RoundView>,
    games_per_pairing: u32,
    at_once: usize,
    on_boards: (usize, f64),
) -> Left {
    let left = total.saturating_sub(done);
    let (running, under_way) = on_boards;
    let (this_round, later_rounds) = match round {
        Some(r) => {
            let unplayed: u64 = r
                .pairs
                .iter()
                .map(|p| u64::from(games_per_pairing.saturating_sub(p.games)))
                .sum();
            (
                unplayed.max(running as u64).min(left),
                u64::from(r.of.saturating_sub(r.number)),
            )
        }
        None => (left, 0),
    };
    Left {
        this_round,
        under_way,
        later: (left - this_round, later_rounds),
        at_once: at_once as u64,
    }
}

/// The snapshot of `dir` from its finished games and the rest of its files.
/// `recently_running`: whether a game was seen running a moment ago (between two
/// games of one slot nothing is in `live/`, and the run has not stopped).
pub fn build(dir: &Path, games: &Games, recently_running: bool) -> Snapshot {
    let manifest = Manifest::load(dir).ok().flatten();
    let live = read_live(dir);
    let live: Vec<LiveRead> = live
        .into_iter()
        .filter(|g| !games.recent_set.contains(&g.header.game))
        .collect();
    let running = live.iter().any(|g| g.running);
    let done = games.done();
    let status = match &manifest {
        Some(m) if m.finished_at.is_some() => "finished",
        _ if running || recently_running => "running",
        _ => "stopped",
    };
    let total = manifest.as_ref().map(|m| m.games_total.max(done));
    let format = manifest
        .as_ref()
        .map_or("", |m| m.schedule.format.as_str())
        .to_string();
    let over = status == "finished";
    let left_out: Vec<Said> = manifest
        .as_ref()
        .map(|m| m.left_out.iter().map(|l| said(&l.name, &l.why)).collect())
        .unwrap_or_default();
    let governor = (status == "running")
        .then(|| crate::results::governor_file::GovernorStatus::read(dir))
        .flatten()
        .filter(|g| g.waiting || g.concurrency < g.asked)
        .map(|g| g.last);
    let event = crate::results::event::read(dir).ok().flatten();
    let round = crate::results::round::read(dir)
        .ok()
        .flatten()
        .map(|r| round_view(r, &games.scores, &live));
    let playing: Vec<(String, String)> = live
        .iter()
        .filter(|g| g.running)
        .map(|g| (g.header.x.clone(), g.header.o.clone()))
        .collect();
    let eta_s = match (&manifest, total) {
        (Some(m), Some(total)) if status == "running" => {
            let pace = Duration::from_millis(m.display.pace_ms);
            let plies = games.times.plies();
            let under_way: f64 = live
                .iter()
                .filter(|g| g.running)
                .map(|g| (g.moves.len() as f64 / plies).min(0.95))
                .sum();
            let left = work_left(
                total,
                done,
                round.as_ref(),
                m.schedule.games_per_pairing,
                m.concurrency,
                (playing.len(), under_way),
            );
            games.times.game(pace).map(|g| left.time(g).as_secs())
        }
        _ => None,
    };
    let (event_html, winner) = match &event {
        Some(event) => {
            let scored = with_scores(event, &games.scores);
            let rounds = round
                .as_ref()
                .map(|r| r.of)
                .or_else(|| rounds_of(&format, &scored));
            let beside = Beside {
                left_out: &left_out,
                playing: &playing,
            };
            (
                Some(drawing(&scored, rounds, beside).into_string()),
                event_winner(&scored, over),
            )
        }
        // A league's run has no winner: its table is the grades (and the most
        // points are a level's).
        None if over && !format.starts_with("league:") => {
            let points: Vec<(String, f64)> = games
                .standings
                .iter()
                .map(|s| (s.bot.clone(), s.points.parse().unwrap_or(0.0)))
                .collect();
            (None, points_winner(&points))
        }
        None => (None, None),
    };
    let levels = manifest.as_ref().map_or_else(Vec::new, |m| {
        levels_among(m.schedule.bots.iter().map(|b| b.name.as_str()))
    });
    let context = Context {
        levels: &levels,
        left_out: &left_out,
    };
    let (league_html, league_more_html) = match league::read(dir) {
        Ok(Some(league)) => (
            Some(crate::report::league::ranking(&league, context).into_string()),
            Some(crate::report::league::section(&league, context, Reader::Class).into_string()),
        ),
        Ok(None) => (None, None),
        Err(e) => {
            let mut html = Html::new();
            html.raw("<p class=\"problem\">")
                .text(&crate::report::left_out::without_paths(&format!("{e:#}")))
                .raw("</p>");
            (Some(html.into_string()), None)
        }
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
            && !matches!(kind.as_str(), "swiss" | "knockout" | "league")
            && games.connected,
        format: kind,
        round,
        event_html,
        winner,
        league_html,
        league_more_html,
        left_out,
        governor,
        standings: games.standings.clone(),
        // The reader's words, not where the teacher keeps the files.
        standings_problem: games
            .problem
            .as_deref()
            .map(crate::report::left_out::without_paths),
        crosstable: games.crosstable.clone(),
        feed: feed(games),
        live: live.iter().map(live_view).collect(),
    }
}

/// "Round robin", "Swiss, 5 rounds", "Knockout", "Gauntlet of mine".
fn format_words(format: &str) -> String {
    match format.split_once(':') {
        Some(("swiss", rounds)) => format!("Swiss, {rounds} rounds"),
        Some(("knockout", _)) => "Knockout".into(),
        Some(("gauntlet", who)) => format!("Gauntlet of {who}"),
        Some(("league", "levels")) => "League, graded against the levels".into(),
        Some(("league", "mixed")) => "League: the levels and the classmates".into(),
        Some(("league", "peers")) => "League among the classmates".into(),
        _ if format == "round-robin" => "Round robin".into(),
        _ => format.to_string(),
    }
}

/// The round being played: each pairing's points so far from its finished games,
/// and whether a game of it is on a board.
fn round_view(round: CurrentRound, scores: &RoundScores, live: &[LiveRead]) -> RoundView {
    let pairs = round
        .pairs
        .into_iter()
        .map(|(a, b)| {
            let (a_points, b_points, games) = scores.get(round.number, &a, &b);
            PairView {
                a_points,
                b_points,
                games,
                playing: live.iter().any(|g| {
                    g.running
                        && g.header.round == round.number
                        && [&g.header.x, &g.header.o].contains(&&a)
                        && [&g.header.x, &g.header.o].contains(&&b)
                }),
                a,
                b,
            }
        })
        .collect();
    RoundView {
        number: round.number,
        of: round.of,
        pairs,
        byes: round.byes,
    }
}

/// "ada: crash" for a game lost by a fault (not on the board), whose line in
/// the feed stands for every game its bot lost that way.
fn fault_of(g: &GameRow) -> Option<String> {
    g.loser()
        .filter(|_| !g.reason.on_the_board())
        .map(|loser| format!("{}: {}", g.bot(loser), g.reason))
}

/// The newest finished games, newest first, a bot's games lost by the same
/// fault folded into the newest of them (kept so as each game is counted:
/// [`Games::add`]).
fn feed(games: &Games) -> Vec<FeedItem> {
    games
        .feed
        .iter()
        .rev()
        .map(|g| {
            let fault = fault_of(g);
            let repeats = fault
                .as_ref()
                .and_then(|f| games.fault_games.get(f))
                .map_or(0, |n| n.saturating_sub(1));
            FeedItem {
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
                repeats,
            }
        })
        .collect()
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

/// The game of `row`, its moves found in moves.csv through `index`.
///
/// # Errors
/// moves.csv cannot be read, or a row of the game is not valid.
pub fn game_view(dir: &Path, row: &GameRow, index: &Mutex<MovesIndex>) -> anyhow::Result<GameView> {
    let path = dir.join(MOVES_FILE);
    let rows = {
        let mut index = index
            .lock()
            .map_err(|_| anyhow::anyhow!("the index of moves.csv is unusable"))?;
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

/// The page of `bot`, its newest games at most `limit`; `None` if it played no
/// game.
pub fn bot_page(games: &Games, bot: &str, limit: usize) -> Option<BotPage> {
    let log = games.bots.get(bot)?;
    let shown = log
        .newest
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
        games: log.games,
        shown,
        faults: log
            .faults
            .iter()
            .map(|f| Fault {
                reason: f.reason.clone(),
                count: f.count,
                example: f.example.clone(),
            })
            .collect(),
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
    /// Where the games opened lately are in moves.csv.
    pub moves: Arc<Mutex<MovesIndex>>,
    /// The run as the index lists it, from the newest snapshot.
    pub line: Arc<RwLock<RunLine>>,
    /// Tells the watcher a page wants the directory now.
    wake: Arc<Notify>,
    /// When a request last wanted it, in milliseconds since `started`.
    wanted_ms: Arc<AtomicU64>,
    /// Looks finished, counted: a request waits for the next.
    looks: watch::Receiver<u64>,
    started: Instant,
}

impl Watched {
    /// A request wants the directory as it is now: the watcher looks at once (and
    /// keeps looking every [`POLL`] for [`WANTED_FOR`]); returns once it has looked,
    /// or after a few seconds at most.
    pub async fn wanted(&self) {
        let now = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.wanted_ms.store(now.max(1), Ordering::Relaxed);
        let mut looks = self.looks.clone();
        let seen = *looks.borrow_and_update();
        self.wake.notify_one();
        let _ = tokio::time::timeout(Duration::from_secs(5), async {
            while *looks.borrow_and_update() <= seen {
                if looks.changed().await.is_err() {
                    return;
                }
            }
        })
        .await;
    }
}

/// Starts watching `dir` on the current runtime (see the module docs for when it
/// looks), publishing a snapshot when something changed.
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
    let (looked, looks) = watch::channel(0u64);
    let wake = Arc::new(Notify::new());
    let wanted_ms = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let task_dir = dir.clone();
    let task_games = games.clone();
    let task_wake = wake.clone();
    let task_wanted = wanted_ms.clone();
    tokio::spawn(async move {
        let mut seen = None;
        let mut last_running: Option<Instant> = None;
        let mut last_look: Option<Instant> = None;
        let mut pause = POLL;
        loop {
            let wanted_at = task_wanted.load(Ordering::Relaxed);
            let now_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
            let wanted =
                wanted_at > 0 && now_ms.saturating_sub(wanted_at) < WANTED_FOR.as_millis() as u64;
            // The watcher's own receiver is one; any other is a page's event stream.
            let watching = wanted || tx.receiver_count() > 1;
            let due = match last_look {
                None => true,
                Some(t) if watching => t.elapsed() >= pause,
                Some(t) => t.elapsed() >= IDLE_POLL,
            };
            if due {
                let dir = task_dir.clone();
                let shared = task_games.clone();
                let previous = seen.clone();
                let recently = last_running.is_some_and(|t| t.elapsed() < Duration::from_secs(3));
                let started = Instant::now();
                let work =
                    tokio::task::spawn_blocking(move || look(&dir, &shared, previous, recently))
                        .await;
                if let Ok((now, snapshot)) = work {
                    seen = Some(now);
                    if let Some(snapshot) = snapshot {
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
                    }
                }
                // A directory slow to read is read less often.
                pause = POLL.max(started.elapsed() * 2);
                last_look = Some(Instant::now());
                looked.send_modify(|n| *n += 1);
            }
            if tx.is_closed() {
                return;
            }
            tokio::select! {
                () = tokio::time::sleep(POLL) => {}
                () = task_wake.notified() => last_look = None,
            }
        }
    });
    Watched {
        dir,
        snapshot: rx,
        games,
        moves,
        line,
        wake,
        wanted_ms,
        looks,
        started,
    }
}

/// One look at `dir`: the new games counted, and a snapshot when anything changed
/// since the files looked like `previous` (or a game ran a moment ago).
fn look(
    dir: &Path,
    shared: &RwLock<Games>,
    previous: Option<Fingerprint>,
    recently: bool,
) -> (Fingerprint, Option<Snapshot>) {
    let now = fingerprint(dir);
    if previous.as_ref() == Some(&now) && !recently {
        return (now, None);
    }
    if previous.as_ref().map(|p| &p.games) != Some(&now.games)
        && let Ok(mut games) = shared.write()
    {
        games.update(dir);
    }
    let snapshot = match shared.read() {
        Ok(games) => build(dir, &games, recently),
        Err(_) => return (now, None),
    };
    (now, Some(snapshot))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::live::{LIVE_DIR, LiveHeader};
    use uttt::result::EndReason;
    use uttt::rules::Mark;

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
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join(GAMES_FILE))
            .unwrap();
        std::io::Write::write_all(
            &mut file,
            b"G0003,2,2,a,b,,O,b,three-in-a-row,three boards in a row,30,1,3,standard,5,9\n",
        )
        .unwrap();
        let mut recorded = read_finished(dir.path());
        assert!(build(dir.path(), &recorded, false).live.is_empty());
        // Read again, nothing new.
        assert!(!recorded.update(dir.path()));
        assert_eq!(recorded.done(), 3);
    }

    #[test]
    fn a_bots_page_names_its_faults_in_words() {
        let dir = directory();
        let games = read_finished(dir.path());
        let page = bot_page(&games, "a", 10).unwrap();
        assert_eq!(page.games, 2);
        assert_eq!(page.faults.len(), 1);
        assert_eq!(page.faults[0].reason, "timeout");
        assert_eq!(page.faults[0].example, "X (b) wins: a took 300 ms of 100.");
        let outcomes: Vec<&str> = page.shown.iter().map(|g| g.outcome).collect();
        assert_eq!(outcomes, ["loss", "win"]);
        assert!(bot_page(&games, "b", 10).unwrap().faults.is_empty());
        assert!(bot_page(&games, "../../etc/passwd", 10).is_none());
        assert_eq!(bot_page(&games, "a", 1).unwrap().shown.len(), 1);
        assert_eq!(games.find("G0001").map(|g| g.x), Some("a".to_string()));
        assert!(games.find("G0009").is_none());
        assert_eq!(
            find_game(dir.path(), "G0002").unwrap().map(|g| g.o),
            Some("a".into())
        );
        assert!(find_game(dir.path(), "G0009").unwrap().is_none());
    }

    /// A games.csv of `n` games between `bots` bots (each against the next).
    fn many_games(dir: &Path, n: usize, bots: usize) -> String {
        let mut text = format!("{HEADER}\n");
        for k in 0..n {
            let (x, o) = (k % bots, (k + 1) % bots);
            text.push_str(&format!(
                "G{k:05},1,{},b{x},b{o},,X,b{x},three-in-a-row,three boards in a row,30,3,1,standard,5,{k}\n",
                k / 2 + 1
            ));
        }
        std::fs::write(dir.join(GAMES_FILE), &text).unwrap();
        text
    }

    #[test]
    fn the_page_keeps_what_it_shows_and_reads_only_what_was_appended() {
        let dir = tempfile::tempdir().unwrap();
        let text = many_games(dir.path(), 3000, 3);
        let mut games = Games::default();
        assert!(games.update(dir.path()));
        assert_eq!(games.done(), 3000);
        assert_eq!(games.problem, None);
        // What it holds is bounded by what it shows, not by the games.
        assert_eq!(games.feed.len(), FEED);
        assert!(games.bots.values().all(|b| b.newest.len() == BOT_GAMES));
        assert_eq!(games.bots["b0"].games, 2000);
        assert_eq!(games.recent.len(), RECENT_IDS.min(3000));
        assert_eq!(games.standings.len(), 3);
        // Nothing appended: nothing read.
        assert!(!games.update(dir.path()));
        assert_eq!(games.tail.position(), text.len() as u64);
        // One row appended, half of the next being written: one row read.
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join(GAMES_FILE))
            .unwrap();
        let row = "G09999,9,9,b1,b2,,O,b2,timeout,b1 took 300 ms of 100,12,0,0,standard,5,1\n";
        std::io::Write::write_all(&mut file, format!("{row}G1").as_bytes()).unwrap();
        assert!(games.update(dir.path()));
        assert_eq!(games.done(), 3001);
        assert_eq!(games.tail.position(), (text.len() + row.len()) as u64);
        assert_eq!(
            games.find("G09999").map(|g| g.reason.to_string()),
            Some("timeout".into())
        );
        assert_eq!(
            bot_page(&games, "b1", BOT_GAMES).unwrap().faults[0].count,
            1
        );
        // A bad row is the problem shown, named by its line.
        std::io::Write::write_all(
            &mut file,
            b"0002,1,1,b1,b1,,X,b1,three-in-a-row,x,1,1,1,standard,1,1\n",
        )
        .unwrap();
        assert!(games.update(dir.path()));
        let problem = games.problem.clone().unwrap_or_default();
        assert!(
            problem.contains(&format!("games.csv:{}:", 3003)),
            "{problem}"
        );
        assert_eq!(games.done(), 0);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn nobody_watching_means_no_look_after_the_first_and_a_page_brings_them_back() {
        let dir = tempfile::tempdir().unwrap();
        many_games(dir.path(), 10, 2);
        let watched = watch(dir.path().to_path_buf());
        let looks = || *watched.looks.borrow();
        // The first look, then nothing for IDLE_POLL.
        let deadline = Instant::now() + Duration::from_secs(10);
        while looks() == 0 && Instant::now() < deadline {
            tokio::time::sleep(POLL).await;
        }
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert_eq!(looks(), 1);
        // A page's event stream: looks every POLL.
        let page = watched.snapshot.clone();
        let before = looks();
        tokio::time::sleep(Duration::from_millis(2000)).await;
        assert!(
            looks() >= before + 2,
            "{} looks with a page open",
            looks() - before
        );
        drop(page);
        // A request looks at once and returns after it.
        let before = looks();
        watched.wanted().await;
        assert!(looks() > before);
        assert!(watched.snapshot.borrow().contains("\"done\":10"));
    }

    #[test]
    fn the_time_left_is_the_rounds_left_with_the_games_on_the_boards_counted() {
        let pair = |games: u32| PairView {
            a: "a".into(),
            b: "b".into(),
            a_points: 0.0,
            b_points: 0.0,
            games,
            playing: false,
        };
        // A Swiss of 9 in round 2 of 3: 4 pairings of 2 games, one pairing
        // played, one game of another finished; 2 games on boards, half played.
        let round = RoundView {
            number: 2,
            of: 3,
            pairs: vec![pair(2), pair(1), pair(0), pair(0)],
            byes: vec!["c".into()],
        };
        let left = work_left(24, 11, Some(&round), 2, 2, (2, 1.0));
        assert_eq!(
            left,
            Left {
                this_round: 5,
                under_way: 1.0,
                later: (8, 1),
                at_once: 2,
            }
        );
        // (5 - 1) / 2 games now, then a round of 8 at 2 at once.
        assert_eq!(
            left.time(Duration::from_secs(18)),
            Duration::from_secs(18 * 6)
        );
        // A round robin: every game left is one round.
        let rr = work_left(100, 40, None, 2, 4, (4, 0.0));
        assert_eq!((rr.this_round, rr.later), (60, (0, 0)));
        // Without tournament.json the games in all are unknown: nothing said.
        let dir = directory();
        let games = read_finished(dir.path());
        assert_eq!(build(dir.path(), &games, true).eta_s, None);
    }

    #[test]
    fn a_bots_repeated_faults_are_one_line_of_the_feed() {
        let dir = directory();
        let mut games = read_finished(dir.path());
        let lost_on_time = games.feed[1].clone();
        for k in 0..5 {
            let mut g = lost_on_time.clone();
            g.id = format!("G01{k:02}");
            games.add(&g).unwrap();
        }
        let items = feed(&games);
        let ids: Vec<&str> = items.iter().map(|i| i.id.as_str()).collect();
        assert_eq!(ids, ["G0104", "G0001"]);
        assert_eq!(items[0].fault.as_deref(), Some("a: timeout"));
        assert_eq!(items[0].repeats, 5);
        assert_eq!(items[1].fault, None);
    }

    /// The feed as a scan of every row, newest first, gives it: the lines kept
    /// game by game must be the same.
    fn feed_scanned(rows: &[GameRow]) -> Vec<(String, Option<String>, u64)> {
        let mut items: Vec<(String, Option<String>, u64)> = Vec::new();
        for g in rows.iter().rev() {
            let fault = fault_of(g);
            if let Some(f) = &fault
                && let Some(item) = items.iter_mut().find(|i| i.1.as_ref() == Some(f))
            {
                item.2 += 1;
                continue;
            }
            if items.len() == FEED {
                continue;
            }
            items.push((g.id.clone(), fault, 0));
        }
        items
    }

    proptest::proptest! {
        #[test]
        fn the_feed_kept_game_by_game_is_the_feed_of_every_game(
            games in proptest::collection::vec((0usize..3, 0usize..3, 0u8..5), 0..120)
        ) {
            let names = ["ada", "bob", "cyd"];
            let dir = directory();
            let template = read_finished(dir.path()).feed[0].clone();
            let mut counted = Games::default();
            let mut rows = Vec::new();
            for (k, (x, o, how)) in games.into_iter().enumerate() {
                if x == o { continue; }
                let mut g = template.clone();
                g.id = format!("G{k:04}");
                g.x = names[x].into();
                g.o = names[o].into();
                (g.winner, g.reason) = match how {
                    0 => (Decision::Draw, EndReason::NoMoves),
                    1 => (Decision::Win(Mark::X), EndReason::ThreeInARow),
                    2 => (Decision::Win(Mark::X), EndReason::Timeout),
                    3 => (Decision::Win(Mark::O), EndReason::Crash),
                    _ => (Decision::Win(Mark::O), EndReason::IllegalMove),
                };
                counted.add(&g).unwrap();
                rows.push(g);
                let kept: Vec<_> = feed(&counted)
                    .into_iter()
                    .map(|i| (i.id, i.fault, i.repeats))
                    .collect();
                proptest::prop_assert_eq!(kept, feed_scanned(&rows));
            }
        }
    }

    #[test]
    fn a_round_robins_winner_has_the_most_points() {
        let dir = directory();
        let games = read_finished(dir.path());
        // a won one and lost one, as did b: they share first place.
        let points: Vec<(String, f64)> = games
            .standings
            .iter()
            .map(|s| (s.bot.clone(), s.points.parse().unwrap()))
            .collect();
        let w = points_winner(&points).unwrap();
        assert_eq!(w.how, "share first place with 1 point each");
        assert!(w.name == "a and b" || w.name == "b and a", "{}", w.name);
        assert_eq!(format_words("swiss:5"), "Swiss, 5 rounds");
        assert_eq!(format_words("round-robin"), "Round robin");
    }

    #[test]
    fn a_leagues_grades_are_seen_and_drawn_as_the_report_draws_them() {
        let dir = directory();
        let games = read_finished(dir.path());
        assert_eq!(build(dir.path(), &games, false).league_html, None);
        let before = fingerprint(dir.path());
        let rows = [
            crate::results::league::tests::grade("<b>a</b>", "v1", Some(10)),
            crate::results::league::tests::grade("<b>a</b>", "v2", Some(60)),
        ];
        for name in [league::HISTORY_FILE, league::GRADES_FILE] {
            let mut out = csv::Writer::from_path(dir.path().join(name)).unwrap();
            for row in &rows[..if name == league::GRADES_FILE { 1 } else { 2 }] {
                out.serialize(row).unwrap();
            }
            out.flush().unwrap();
        }
        assert_ne!(fingerprint(dir.path()), before, "a new grade is a change");
        let snapshot = build(dir.path(), &games, false);
        let html = snapshot.league_html.clone().unwrap();
        let league = league::read(dir.path()).unwrap().unwrap();
        let context = Context {
            levels: &[],
            left_out: &[],
        };
        assert_eq!(
            html,
            crate::report::league::ranking(&league, context).into_string()
        );
        assert_eq!(
            snapshot.league_more_html.clone().unwrap(),
            crate::report::league::section(&league, context, Reader::Class).into_string()
        );
        assert!(!html.contains("<b>a</b>"));
        let json = serde_json::to_value(&snapshot).unwrap();
        assert_eq!(json["league_html"], html.as_str());
        // A damaged file is said on the page, not a reason to show nothing.
        std::fs::write(
            dir.path().join(league::HISTORY_FILE),
            "student\n<i>x</i>,1\n",
        )
        .unwrap();
        let html = build(dir.path(), &games, false).league_html.unwrap();
        assert!(
            html.contains("class=\"problem\"") && html.contains("grades-history.csv:"),
            "{html}"
        );
        assert!(!html.contains("<i>"));
    }
}
