//! Results on disk: `games.csv` (one row per finished game) and `moves.csv` (one
//! row per mark). Both are append-only; each finished game is written with one
//! write per file and synced before it is reported, so killing the arena at any
//! moment loses nothing that finished. `games.csv` is the commit record: a game is
//! done exactly when its row is there.
//!
//! Columns are documented on [`GameRow`] and [`MoveRow`] (and in docs/guide/files.md).
//! Rows are typed ([`Decision`], [`EndReason`], [`Rules`], [`Mark`], [`Square`]);
//! free-text cells go through [`ratings::spreadsheet`]. Each file has one reader
//! ([`read_games_numbered`], [`read_moves`]), with the checks every command relies
//! on: what one of them refuses, none of them uses.
//!
//! This module must not know how games are scheduled or played: it writes what it
//! is given and reads back what it wrote.

use std::fs::File;
use std::io::{Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use referee::game::{GameRecord, MoveRecord};
use serde::{Deserialize, Serialize};
use uttt::notation::{format_move_list, parse_move_list};
use uttt::result::{Decision, EndReason};
use uttt::rules::{ByMark, Mark, Rules, Square};

use super::nofollow::{self, Access};

/// File name of the per-game results.
pub const GAMES_FILE: &str = "games.csv";
/// File name of the per-move log.
pub const MOVES_FILE: &str = "moves.csv";
/// The file a run locks for as long as it writes the directory.
pub const LOCK_FILE: &str = ".arena.lock";
/// The folder of the protocol transcripts of abnormal games.
pub const TRANSCRIPTS_DIR: &str = "transcripts";
/// The folder of the live files of running games (written by `live`). Named here, with
/// the other folders a run owns, because opening the store refuses links in all of them.
pub const LIVE_DIR: &str = "live";
/// The folder of failure bundles (written by `bundle`), named here for the same reason.
pub const FAILURES_DIR: &str = "failures";

/// The results directory is being written by another arena run that is still
/// going. Two runs appending to one directory would both play the games neither
/// has finished, and the repair of torn rows at start-up would cut the other run's
/// rows in half.
#[derive(Debug)]
pub struct DirInUse(pub PathBuf);

impl std::fmt::Display for DirInUse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} is being written by another arena run that is still going: wait for it to finish \
             (the same command then resumes, if anything is left) or choose another --out",
            self.0.display()
        )
    }
}

impl std::error::Error for DirInUse {}

/// Where a game sits in its run: the columns of its `games.csv` row that the
/// schedule decides. Defined here, beside the row it fills, because the results
/// never depend on the code that schedules games; the schedule (or `arena play`)
/// makes one per game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameMeta {
    /// Unique id within the tournament, e.g. `G0007`.
    pub id: String,
    /// 1-based round.
    pub round: u32,
    /// 1-based pair number; both games of a colour-swapped pair share it.
    pub pair: u32,
    /// The game's seed (bots' seeds derive from it).
    pub seed: u64,
}

impl GameMeta {
    /// The id of game `number` (from 1): `G0007`.
    pub fn id_of(number: u64) -> String {
        format!("G{number:04}")
    }

    /// The number in a game id (`G0007` → 7), if it is one.
    pub fn number_of(id: &str) -> Option<u64> {
        id.strip_prefix('G')?.parse().ok()
    }
}

/// One row of `games.csv`: a finished game. Every value is typed; the file holds
/// their words (`X`, `draw`, `timeout`, `standard`, `e5 e4`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameRow {
    /// Game id, unique within the tournament (`G0001`…), in schedule order.
    #[serde(serialize_with = "ratings::spreadsheet::serialize")]
    pub id: String,
    /// Round number (1-based). Every pairing plays one pair per round.
    pub round: u32,
    /// Pair number (1-based); the two games of a colour-swapped pair share it.
    pub pair: u32,
    /// Name of the bot playing X (moves first).
    #[serde(serialize_with = "ratings::spreadsheet::serialize")]
    pub x: String,
    /// Name of the bot playing O.
    #[serde(serialize_with = "ratings::spreadsheet::serialize")]
    pub o: String,
    /// The opening moves, written space-separated (a1–i9), empty when none.
    #[serde(serialize_with = "move_list")]
    pub opening: Vec<Square>,
    /// `X`, `O` or `draw`.
    pub winner: Decision,
    /// The winning bot's name, empty for a draw.
    #[serde(serialize_with = "ratings::spreadsheet::serialize")]
    pub winner_name: String,
    /// Why the game ended: three-in-a-row, no-moves, most-boards, resign, timeout,
    /// illegal-move, malformed-output, crash, disconnect, handshake-failure.
    pub reason: EndReason,
    /// The reason in words, naming the bot at fault and the evidence (measured and
    /// allowed ms, the offending text, exit code or signal…).
    #[serde(serialize_with = "ratings::spreadsheet::serialize")]
    pub detail: String,
    /// Number of marks on the board at the end (opening included).
    pub plies: u32,
    /// Small boards won by X.
    pub boards_x: u32,
    /// Small boards won by O.
    pub boards_o: u32,
    /// Rules (`standard` or variants joined by `+`).
    pub rules: Rules,
    /// Wall time of the game in milliseconds (a timing column: varies run to run).
    pub duration_ms: u64,
    /// The game's seed; the bots' seeds derive from it.
    pub seed: u64,
    /// The version of the bot playing X in a league (`arena league`: a short hash
    /// of its submission folder and build command), empty outside a league.
    #[serde(serialize_with = "ratings::spreadsheet::serialize")]
    pub x_version: String,
    /// The version of the bot playing O, as [`GameRow::x_version`].
    #[serde(serialize_with = "ratings::spreadsheet::serialize")]
    pub o_version: String,
    /// The share of the CPU time X's bot asked for that it got, over its moves
    /// of the game: its CPU time over its CPU time and its wait for a CPU
    /// (1.000: it never waited), three decimals; empty where not measured, or
    /// where the bot used less than 5 ms of CPU a move (an instant bot plays
    /// the same on any machine). A bot that thinks by the clock plays weaker
    /// the lower it is (see [`SHARE_COLUMNS`]). A timing column.
    #[serde(serialize_with = "share")]
    pub x_cpu_share: Option<f64>,
    /// As [`GameRow::x_cpu_share`], for O's bot.
    #[serde(serialize_with = "share")]
    pub o_cpu_share: Option<f64>,
}

/// A CPU share with three decimals, empty when there is none.
fn share<S: serde::Serializer>(value: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match value {
        Some(v) => s.serialize_str(&format!("{v:.3}")),
        None => s.serialize_str(""),
    }
}

/// A `games.csv` row as its cells read, before [`GameRow::try_from`] checks and
/// types them (so a bad cell is reported in the words of the check, with the game's
/// id, rather than as a parse error of one column).
#[derive(Debug, Deserialize)]
struct GameCells {
    #[serde(deserialize_with = "ratings::spreadsheet::deserialize")]
    id: String,
    round: u32,
    pair: u32,
    #[serde(deserialize_with = "ratings::spreadsheet::deserialize")]
    x: String,
    #[serde(deserialize_with = "ratings::spreadsheet::deserialize")]
    o: String,
    #[serde(deserialize_with = "ratings::spreadsheet::deserialize")]
    opening: String,
    #[serde(deserialize_with = "ratings::spreadsheet::deserialize")]
    winner: String,
    #[serde(deserialize_with = "ratings::spreadsheet::deserialize")]
    winner_name: String,
    #[serde(deserialize_with = "ratings::spreadsheet::deserialize")]
    reason: String,
    #[serde(deserialize_with = "ratings::spreadsheet::deserialize")]
    detail: String,
    plies: u32,
    boards_x: u32,
    boards_o: u32,
    #[serde(deserialize_with = "ratings::spreadsheet::deserialize")]
    rules: String,
    duration_ms: u64,
    seed: u64,
    // Files written before leagues existed have no version columns.
    #[serde(default, deserialize_with = "ratings::spreadsheet::deserialize")]
    x_version: String,
    #[serde(default, deserialize_with = "ratings::spreadsheet::deserialize")]
    o_version: String,
    // Files written before the CPU shares were measured have no share columns.
    #[serde(default)]
    x_cpu_share: Option<f64>,
    #[serde(default)]
    o_cpu_share: Option<f64>,
}

/// One row of `moves.csv`: a mark.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveRow {
    /// Game id (see [`GameRow::id`]).
    #[serde(with = "ratings::spreadsheet")]
    pub game: String,
    /// Ply, 1-based; opening moves included.
    pub ply: u32,
    /// `X` or `O`.
    pub mark: Mark,
    /// Name of the bot that moved ([`OPENING_BOT`] for opening moves).
    #[serde(with = "ratings::spreadsheet")]
    pub bot: String,
    /// The square, a1–i9.
    pub square: Square,
    /// Small board 1–9 (reading order from the top left).
    pub board: u8,
    /// Cell 1–9 inside the board.
    pub cell: u8,
    /// Whether the mover could choose any open board.
    pub free_move: bool,
    /// Measured think time in milliseconds, with three decimals (empty for
    /// opening moves). A timing column.
    pub think_ms: Option<f64>,
    /// Search depth from the bot's last `info` line.
    pub depth: Option<u32>,
    /// Score from the bot's last `info` line.
    pub score: Option<f64>,
    /// Nodes from the bot's last `info` line.
    pub nodes: Option<u64>,
    /// Principal variation and free text from the bot's last `info` line.
    #[serde(with = "ratings::spreadsheet")]
    pub info: String,
    /// The board (1–9) this mark claimed, empty if none.
    pub claimed: Option<u8>,
    /// The board (1–9) this mark filled without a line (drawn), empty if none.
    pub drawn: Option<u8>,
    /// The time the run's clock charged against the limit, in milliseconds
    /// (empty for opening moves and files written before it existed). A timing
    /// column.
    #[serde(default)]
    pub charged_ms: Option<f64>,
    /// CPU time the move was charged at least, in milliseconds: of every
    /// thread and process the bot ran (those that exited or left its process
    /// tree included, where a cgroup per bot counts them), during the move and
    /// since its previous reply (empty where the host cannot measure). A
    /// timing column.
    #[serde(default)]
    pub cpu_ms: Option<f64>,
    /// Time the bot's tasks were runnable but waiting for a CPU, summed, in
    /// milliseconds (empty where the host cannot measure). A timing column.
    #[serde(default)]
    pub wait_ms: Option<f64>,
    /// The referee's measured lateness, in milliseconds: the time from the
    /// clock's start to the request's write, plus its reading thread's wait
    /// for a CPU between the reply's arrival and its reading (empty where the
    /// host cannot measure). A timing column.
    #[serde(default)]
    pub late_ms: Option<f64>,
}

/// The `bot` of a move of the opening in `moves.csv`.
pub const OPENING_BOT: &str = "opening";

impl MoveRow {
    /// Whether the row is a move of the opening (nobody's move).
    pub fn is_opening(&self) -> bool {
        self.bot == OPENING_BOT
    }
}

/// `serialize_with` for a move list: the squares space-separated, as a text cell.
fn move_list<S: serde::Serializer>(moves: &[Square], serializer: S) -> Result<S::Ok, S::Error> {
    ratings::spreadsheet::serialize(&format_move_list(moves), serializer)
}

impl GameRow {
    /// A game of `x` against `o` decided on the board as `winner`, every other
    /// field a plain default: the row unit tests start from.
    #[cfg(test)]
    pub(crate) fn sample(x: &str, o: &str, winner: uttt::result::Decision) -> GameRow {
        GameRow {
            id: format!("G{x}{o}"),
            round: 1,
            pair: 1,
            x: x.into(),
            o: o.into(),
            opening: Vec::new(),
            winner,
            winner_name: String::new(),
            reason: uttt::result::EndReason::ThreeInARow,
            detail: String::new(),
            plies: 20,
            boards_x: 0,
            boards_o: 0,
            rules: uttt::rules::Rules::STANDARD,
            duration_ms: 1,
            seed: 1,
            x_version: String::new(),
            o_version: String::new(),
            x_cpu_share: None,
            o_cpu_share: None,
        }
    }

    /// The row for a finished game.
    pub fn new(meta: &GameMeta, record: &GameRecord) -> GameRow {
        let boards = record.boards_won();
        GameRow {
            id: meta.id.clone(),
            round: meta.round,
            pair: meta.pair,
            x: record.names.x.clone(),
            o: record.names.o.clone(),
            opening: record.moves[..record.opening_plies]
                .iter()
                .map(|m| m.square)
                .collect(),
            winner: Decision::from_winner(record.winner),
            winner_name: record
                .winner
                .map_or(String::new(), |m| record.names.get(m).clone()),
            reason: record.termination.reason(),
            detail: record.termination.describe(&record.names, boards),
            plies: record.position.ply(),
            boards_x: boards.x,
            boards_o: boards.o,
            rules: record.rules,
            duration_ms: u64::try_from(record.duration.as_millis()).unwrap_or(u64::MAX),
            seed: meta.seed,
            x_version: String::new(),
            o_version: String::new(),
            x_cpu_share: cpu_share(record, Mark::X),
            o_cpu_share: cpu_share(record, Mark::O),
        }
    }

    /// The name of the bot that played `mark`.
    pub fn bot(&self, mark: Mark) -> &str {
        match mark {
            Mark::X => &self.x,
            Mark::O => &self.o,
        }
    }

    /// The seat `bot` played, if it played this game.
    pub fn seat_of(&self, bot: &str) -> Option<Mark> {
        Mark::ALL.into_iter().find(|&m| self.bot(m) == bot)
    }

    /// The side that lost, `None` for a draw.
    pub fn loser(&self) -> Option<Mark> {
        self.winner.winner().map(|w| !w)
    }
}

impl TryFrom<GameCells> for GameRow {
    type Error = String;

    /// Checks what the statistics and a resumed run rely on: two distinct bot names
    /// without control characters, a winner that is X, O or draw and agrees with
    /// `winner_name` and the reason, a reason of protocol.md §5, rules and an
    /// opening that read, and counts a game can have. The error is the problem in
    /// words.
    fn try_from(c: GameCells) -> Result<GameRow, String> {
        if c.id.is_empty() {
            return Err("the id is empty".into());
        }
        // Names are printed on the terminal by `arena ratings`: no control characters
        // (the arena itself only writes letters, digits, `_`, `.` and `-`).
        for (column, name) in [("x", &c.x), ("o", &c.o)] {
            if name.trim().is_empty() {
                return Err(format!("the bot name in column {column} is empty"));
            }
            if name.chars().any(char::is_control) {
                return Err(format!(
                    "the bot name '{}' in column {column} has a control character",
                    name.escape_debug()
                ));
            }
        }
        if c.x == c.o {
            return Err(format!("both seats name the bot '{}'", c.x));
        }
        // A mark as `Mark` reads it (`x` too), or `draw`.
        let winner = match c.winner.as_str() {
            "draw" => Decision::Draw,
            w => w
                .parse::<Mark>()
                .map(Decision::Win)
                .map_err(|_| format!("winner '{w}' should be X, O or draw"))?,
        };
        let winner_name = match winner.winner() {
            Some(Mark::X) => c.x.as_str(),
            Some(Mark::O) => c.o.as_str(),
            None => "",
        };
        if c.winner_name != winner_name {
            return Err(format!(
                "winner_name '{}' should be '{winner_name}' (winner {})",
                c.winner_name, c.winner
            ));
        }
        let reason: EndReason = c
            .reason
            .parse()
            .map_err(|e: uttt::result::ParseResultError| e.to_string())?;
        match (reason, winner) {
            (EndReason::ThreeInARow, Decision::Draw) => {
                return Err("reason three-in-a-row needs a winner, not a draw".into());
            }
            (EndReason::NoMoves, Decision::Win(w)) => {
                return Err(format!("reason no-moves is a draw, but the winner is {w}"));
            }
            _ => {}
        }
        if c.plies > 81 {
            return Err(format!("plies = {}: a game has at most 81", c.plies));
        }
        if c.boards_x + c.boards_o > 9 {
            return Err(format!(
                "boards_x = {} and boards_o = {}: there are 9 small boards",
                c.boards_x, c.boards_o
            ));
        }
        let rules = c
            .rules
            .parse::<Rules>()
            .map_err(|e| format!("rules: {e}"))?;
        let opening = parse_move_list(&c.opening).map_err(|e| format!("opening: {e}"))?;
        Ok(GameRow {
            id: c.id,
            round: c.round,
            pair: c.pair,
            x: c.x,
            o: c.o,
            opening,
            winner,
            winner_name: c.winner_name,
            reason,
            detail: c.detail,
            plies: c.plies,
            boards_x: c.boards_x,
            boards_o: c.boards_o,
            rules,
            duration_ms: c.duration_ms,
            seed: c.seed,
            x_version: c.x_version,
            o_version: c.o_version,
            x_cpu_share: c.x_cpu_share,
            o_cpu_share: c.o_cpu_share,
        })
    }
}

/// The rows of `moves.csv` for a finished game.
pub fn move_rows(meta: &GameMeta, record: &GameRecord) -> Vec<MoveRow> {
    record
        .moves
        .iter()
        .map(|m| move_row(&meta.id, &record.names, m))
        .collect()
}

/// The row of one mark of game `id` between `names` (also written, move by move,
/// to the live files of a running game).
pub fn move_row(id: &str, names: &ByMark<String>, m: &MoveRecord) -> MoveRow {
    let info = m.info.as_ref();
    let pv = info.map(|i| format_move_list(&i.pv)).unwrap_or_default();
    let text = info.map(|i| i.text.clone()).unwrap_or_default();
    let measured = m.usage.and_then(|u| u.measured);
    MoveRow {
        game: id.to_string(),
        ply: m.ply,
        mark: m.mark,
        bot: if m.think.is_some() {
            names.get(m.mark).clone()
        } else {
            OPENING_BOT.to_string()
        },
        square: m.square,
        board: m.square.board().number(),
        cell: m.square.cell().number(),
        free_move: m.free_move,
        think_ms: m.think.map(millis),
        depth: info.and_then(|i| i.depth),
        score: info.and_then(|i| i.score),
        nodes: info.and_then(|i| i.nodes),
        info: match (pv.is_empty(), text.is_empty()) {
            (true, _) => text,
            (false, true) => format!("pv {pv}"),
            (false, false) => format!("pv {pv}; {text}"),
        },
        claimed: m.claimed.map(|b| b.number()),
        drawn: m.drawn.map(|b| b.number()),
        charged_ms: m.usage.map(|u| millis(u.charged)),
        cpu_ms: measured.map(|u| millis(u.cpu_charged())),
        wait_ms: measured.map(|u| millis(u.wait)),
        late_ms: measured.map(|u| millis(u.late)),
    }
}

/// Milliseconds with three decimals, as the timing columns hold them.
fn millis(d: std::time::Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

/// Takes the exclusive lock of the results directory `dir`. On a file system
/// without locks (some network and FUSE mounts) the run goes on unlocked, with a
/// warning: refusing to run there would be worse than the risk it names.
fn lock_dir(dir: &Path) -> anyhow::Result<Option<File>> {
    let path = dir.join(LOCK_FILE);
    let file = nofollow::open(&path, Access::Append)
        .with_context(|| format!("creating {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Err(DirInUse(dir.to_path_buf()).into()),
        Err(std::fs::TryLockError::Error(e)) if referee::bot::locks_unsupported(&e) => {
            eprintln!(
                "warning: cannot lock {} ({e}): make sure no other arena run writes to {}",
                path.display(),
                dir.display()
            );
            Ok(None)
        }
        Err(std::fs::TryLockError::Error(e)) => {
            Err(e).with_context(|| format!("locking {}", path.display()))
        }
    }
}

/// Appends finished games to `games.csv` and `moves.csv` in a directory.
#[derive(Debug)]
pub struct ResultStore {
    dir: PathBuf,
    games: File,
    moves: File,
    /// Holds the directory's lock (released by the kernel however the run ends).
    _lock: Option<File>,
}

impl ResultStore {
    /// Opens (creating if needed) the result files in `dir`, locking the directory
    /// against other runs first. Existing files are then repaired: a torn last line
    /// (no newline: the arena was killed mid-write) is cut off, so appending
    /// continues on a clean line.
    ///
    /// # Errors
    /// [`DirInUse`] if another run holds the directory; otherwise the directory or
    /// files cannot be created, read or written.
    pub fn open(dir: &Path) -> anyhow::Result<ResultStore> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let lock = lock_dir(dir)?;
        nofollow::refuse_links(
            dir,
            &[
                super::logs::LOGS_DIR,
                LIVE_DIR,
                TRANSCRIPTS_DIR,
                FAILURES_DIR,
            ],
        )?;
        add_missing_columns(&dir.join(GAMES_FILE), &SHARE_COLUMNS)?;
        let games = open_append(&dir.join(GAMES_FILE))?;
        drop_orphan_moves(dir)?;
        let moves = open_append(&dir.join(MOVES_FILE))?;
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(ResultStore {
            dir: dir.to_path_buf(),
            games,
            moves,
            _lock: lock,
        })
    }

    /// The directory holding the files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Every finished game so far.
    ///
    /// # Errors
    /// `games.csv` cannot be read or has a bad row (named with its line).
    pub fn games(&self) -> anyhow::Result<Vec<GameRow>> {
        read_games(&self.dir.join(GAMES_FILE))
    }

    /// Every finished game so far, with its line in `games.csv`.
    ///
    /// # Errors
    /// As [`ResultStore::games`].
    pub fn games_numbered(&self) -> anyhow::Result<Vec<Numbered<GameRow>>> {
        read_games_numbered(&self.dir.join(GAMES_FILE))
    }

    /// Keeps the protocol transcripts of a game that ended abnormally, in
    /// `transcripts/<id>.txt`, for the bot author to see exactly what was said.
    ///
    /// # Errors
    /// Writing failed.
    pub fn save_transcripts(&self, meta: &GameMeta, record: &GameRecord) -> anyhow::Result<()> {
        if !record.is_abnormal() {
            return Ok(());
        }
        let folder = Path::new(TRANSCRIPTS_DIR);
        nofollow::create_dir_in(&self.dir, folder)?;
        let mut text = format!("game {}: {}\n", meta.id, record.result_line());
        for mark in [Mark::X, Mark::O] {
            text.push_str(&format!("\n== {mark} ({}) ==\n", record.names.get(mark)));
            for line in record.transcripts.get(mark) {
                text.push_str(line);
                text.push('\n');
            }
        }
        nofollow::open_in(
            &self.dir,
            &folder.join(format!("{}.txt", meta.id)),
            Access::Replace,
        )
        .and_then(|mut file| file.write_all(text.as_bytes()))
        .with_context(|| format!("writing the transcript of {}", meta.id))
    }

    /// Appends one finished game: its moves, then its row in `games.csv`, each with
    /// one write and synced to disk before returning.
    ///
    /// # Errors
    /// Writing or syncing failed.
    pub fn append(&mut self, game: &GameRow, moves: &[MoveRow]) -> anyhow::Result<()> {
        write_rows(&mut self.moves, moves).with_context(|| format!("writing {MOVES_FILE}"))?;
        write_rows(&mut self.games, std::slice::from_ref(game))
            .with_context(|| format!("writing {GAMES_FILE}"))?;
        Ok(())
    }

    /// Appends finished games that have no moves to keep (rows made elsewhere, such
    /// as `arena bench ratings`'s generated games), with one write and one sync.
    ///
    /// # Errors
    /// Writing or syncing failed.
    pub fn append_games(&mut self, games: &[GameRow]) -> anyhow::Result<()> {
        write_rows(&mut self.games, games).with_context(|| format!("writing {GAMES_FILE}"))
    }
}

/// The CPU a bot must use a move, on average over a game, for its share to
/// be told (seconds): an instant bot (a fraction of a millisecond) plays the
/// same on any machine, and its share would only measure wake-up latency.
const MEANINGFUL_CPU: f64 = 0.005;

/// The share of the CPU time `mark`'s bot asked for over its moves of `record`
/// that it got (see [`GameRow::x_cpu_share`]): its CPU time over the time it
/// was running or waiting to run, where that time is capped at each move's
/// wall time. The cap is what a bot is promised, one CPU's worth: a bot whose
/// own threads outnumber the CPUs waits for itself, not for the machine, and
/// its CPU time then reaches the wall time (a share of 1).
pub fn cpu_share(record: &GameRecord, mark: Mark) -> Option<f64> {
    let (mut cpu, mut asked, mut moves) = (0.0_f64, 0.0_f64, 0u32);
    for m in record.moves.iter().skip(record.opening_plies) {
        if m.mark != mark {
            continue;
        }
        let measured = m.usage.and_then(|u| u.measured)?;
        let runnable = measured.cpu.saturating_add(measured.wait);
        let promised = m.think.map_or(runnable, |wall| runnable.min(wall));
        cpu += measured.cpu.as_secs_f64();
        asked += promised.as_secs_f64();
        moves += 1;
    }
    (moves > 0 && cpu >= MEANINGFUL_CPU * f64::from(moves) && asked > 0.0)
        .then(|| (cpu / asked).clamp(0.0, 1.0))
}

/// The columns `games.csv` gained with the CPU shares, last in every row: a
/// file written before them gets them, empty, before a resumed run appends.
pub const SHARE_COLUMNS: [&str; 2] = ["x_cpu_share", "o_cpu_share"];

/// The columns `moves.csv` gained with the fair clock, last in every row: a file
/// written before them gets them, empty, before a resumed run appends to it.
const CLOCK_COLUMNS: [&str; 4] = ["charged_ms", "cpu_ms", "wait_ms", "late_ms"];

/// After a kill between writing a game's moves and its row, `moves.csv` holds rows
/// of a game that is not finished (it will be played again): drop them. The kept
/// rows are copied as they were read, cell for cell; a file from before the
/// clock's columns gets them, empty, so that the rows appended now match its
/// header. The file is read one row at a time (a first pass to see whether
/// anything must change, usually not) and rewritten, if at all, from a second:
/// a resumed run of millions of games never holds it.
fn drop_orphan_moves(dir: &Path) -> anyhow::Result<()> {
    let moves_path = dir.join(MOVES_FILE);
    if std::fs::symlink_metadata(&moves_path).is_err() {
        return Ok(());
    }
    repair_torn_tail(&moves_path)?;
    let done: std::collections::HashSet<String> = read_games(&dir.join(GAMES_FILE))?
        .into_iter()
        .map(|g| g.id)
        .collect();
    let finished = |record: &csv::StringRecord| record.get(0).is_some_and(|id| done.contains(id));
    let mut orphans = false;
    let mut headers = stream_records(&moves_path, |_, _, record| {
        orphans |= !finished(record);
        Ok(())
    })?;
    let missing = missing_columns(&headers, &CLOCK_COLUMNS);
    if !orphans && (missing.is_empty() || headers.is_empty()) {
        return Ok(());
    }
    for column in &missing {
        headers.push_field(column);
    }
    rewrite_rows(&moves_path, &headers, missing.len(), finished)
}

/// Those of `columns` that `headers` lacks, in their order.
fn missing_columns<'a>(headers: &csv::StringRecord, columns: &[&'a str]) -> Vec<&'a str> {
    columns
        .iter()
        .copied()
        .filter(|c| !headers.iter().any(|h| h == *c))
        .collect()
}

/// Rewrites the results file `path` in place (atomically, one row in memory)
/// under `headers`, keeping the rows `keep` accepts as they were read, cell for
/// cell, each followed by `pad` empty cells: the columns `headers` gained.
fn rewrite_rows(
    path: &Path,
    headers: &csv::StringRecord,
    pad: usize,
    keep: impl Fn(&csv::StringRecord) -> bool,
) -> anyhow::Result<()> {
    super::atomic::write_atomic_with(path, |file| {
        let mut writer = csv::Writer::from_writer(std::io::BufWriter::new(file));
        writer.write_record(headers)?;
        let mut padded = csv::StringRecord::new();
        stream_records(path, |_, _, record| {
            if keep(record) {
                padded.clone_from(record);
                for _ in 0..pad {
                    padded.push_field("");
                }
                writer.write_record(&padded)?;
            }
            Ok(())
        })?;
        writer.flush()?;
        Ok(())
    })
}

/// Gives a results file written before `columns` existed (they are last in
/// every row) those columns, empty, so that the rows a resumed run appends
/// match its header. Streamed, as [`drop_orphan_moves`] does; a file that has
/// them, or is empty or missing, is left alone.
fn add_missing_columns(path: &Path, columns: &[&str]) -> anyhow::Result<()> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(());
    }
    repair_torn_tail(path)?;
    let mut headers = stream_records(path, |_, _, _| Ok(()))?;
    let missing = missing_columns(&headers, columns);
    if missing.is_empty() || headers.is_empty() {
        return Ok(());
    }
    for column in &missing {
        headers.push_field(column);
    }
    rewrite_rows(path, &headers, missing.len(), |_| true)
}

/// Serializes `rows` (with a header if the file is empty) into one buffer, writes it
/// with one call, and syncs the file.
fn write_rows<T: Serialize>(file: &mut File, rows: &[T]) -> anyhow::Result<()> {
    let empty = file.seek(SeekFrom::End(0))? == 0;
    let mut writer = csv::WriterBuilder::new()
        .has_headers(empty)
        .from_writer(Vec::new());
    for row in rows {
        writer.serialize(row)?;
    }
    let buffer = writer.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
    if buffer.is_empty() {
        return Ok(());
    }
    file.write_all(&buffer)?;
    file.sync_data()?;
    Ok(())
}

fn open_append(path: &Path) -> anyhow::Result<File> {
    repair_torn_tail(path)?;
    nofollow::open(path, Access::Append).with_context(|| format!("opening {}", path.display()))
}

/// Cuts a file back to its last newline. Returns whether anything was cut.
fn repair_torn_tail(path: &Path) -> anyhow::Result<bool> {
    let reading = || format!("reading {}", path.display());
    let file = match nofollow::open(path, Access::Read) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e).with_context(reading),
    };
    let len = file.metadata().with_context(reading)?.len();
    let keep = complete_len(&file).with_context(reading)?;
    if len == 0 || keep == len {
        return Ok(false);
    }
    drop(file);
    let file = nofollow::open(path, Access::Update)
        .with_context(|| format!("repairing {}", path.display()))?;
    file.set_len(keep)?;
    file.sync_all()?;
    Ok(true)
}

/// A row of a results file with the line it starts on (1-based; the header is
/// line 1), for messages that send the reader to it.
#[derive(Clone, Debug, PartialEq)]
pub struct Numbered<T> {
    /// The line the row starts on.
    pub line: u64,
    /// The row.
    pub row: T,
}

/// A row of a results file that cannot be used, with the line to look at and the
/// fix. Commands that would resume from the file report it as a usage error.
#[derive(Debug, thiserror::Error)]
#[error("{}:{line}: {message}", path.display())]
pub struct BadRow {
    /// The file.
    pub path: PathBuf,
    /// The line (1-based).
    pub line: u64,
    /// What is wrong and how to fix it.
    pub message: String,
}

/// The UTF-8 byte-order mark some editors and spreadsheets put at the start of a file.
const BOM: &[u8] = b"\xef\xbb\xbf";

/// The complete records of a CSV file the store wrote, with its header row.
struct Records {
    headers: csv::StringRecord,
    records: Vec<Numbered<csv::StringRecord>>,
}

/// The one CSV parsing of the results files: the complete records of `path` whose
/// first cell (the game id) `keep` accepts, each with its line. A torn last line (no
/// newline: the arena was killed mid-write) is ignored, and so is a byte-order mark.
///
/// # Errors
/// The file cannot be read ([`anyhow`] context naming it), or a complete line is not
/// a CSV record ([`BadRow`]).
fn read_records(path: &Path, keep: impl FnMut(&str) -> bool) -> anyhow::Result<Records> {
    records_in(path, &complete_lines(path)?, keep)
}

/// The bytes of `path` up to the end of its last complete line.
fn complete_lines(path: &Path) -> anyhow::Result<Vec<u8>> {
    let bytes = nofollow::read(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(complete(bytes))
}

/// `bytes` up to the end of their last complete line.
fn complete(mut bytes: Vec<u8>) -> Vec<u8> {
    if !bytes.is_empty() && !bytes.ends_with(b"\n") {
        let end = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        bytes.truncate(end);
    }
    bytes
}

/// [`read_records`] of `bytes`, complete lines of `path` starting with its header.
fn records_in(
    path: &Path,
    bytes: &[u8],
    keep: impl FnMut(&str) -> bool,
) -> anyhow::Result<Records> {
    let mut records = Vec::new();
    let headers = each_record(path, bytes, keep, |_, line, record| {
        records.push(Numbered {
            line,
            row: record.clone(),
        });
        Ok(())
    })?;
    Ok(Records { headers, records })
}

/// The parsing itself: `f` gets each record of `bytes` (complete lines of `path`
/// from its header on) whose first cell `keep` accepts, with the header row and its
/// line, one at a time; returns the header row.
fn each_record(
    path: &Path,
    bytes: &[u8],
    mut keep: impl FnMut(&str) -> bool,
    mut f: impl FnMut(&csv::StringRecord, u64, &csv::StringRecord) -> anyhow::Result<()>,
) -> anyhow::Result<csv::StringRecord> {
    let text = bytes.strip_prefix(BOM).unwrap_or(bytes);
    parse_records(path, text, |headers, line, record| {
        if keep(record.get(0).unwrap_or("")) {
            f(headers, line, record)?;
        }
        Ok(())
    })
}

/// The one CSV loop of the results files: every record of `text` (after any
/// byte-order mark, complete lines only) to `f` with its line, named as a person
/// counts lines (a quoted line break counts, `\r\n` is one end); returns the
/// header row. A whole file's bytes or a buffered stream alike.
fn parse_records(
    path: &Path,
    text: impl std::io::Read,
    mut f: impl FnMut(&csv::StringRecord, u64, &csv::StringRecord) -> anyhow::Result<()>,
) -> anyhow::Result<csv::StringRecord> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(LineEnds::new(text));
    let headers = reader
        .headers()
        .map_err(|e| not_a_row(path, 1, &e.to_string()))?
        .clone();
    let mut record = csv::StringRecord::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(true) => {}
            Ok(false) => return Ok(headers),
            Err(e) => {
                let byte = e.position().map_or(0, csv::Position::byte);
                let line = reader.get_mut().line_at(byte);
                return Err(not_a_row(path, line, &e.to_string()).into());
            }
        }
        let byte = record.position().map_or(0, csv::Position::byte);
        let line = reader.get_mut().line_at(byte);
        f(&headers, line, &record)?;
    }
}

/// A line of `path` that is not one of its rows, with the fix.
fn not_a_row(path: &Path, line: u64, problem: &str) -> BadRow {
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    BadRow {
        path: path.to_path_buf(),
        line,
        message: format!("not a {name} row: {problem}; correct the line or delete it"),
    }
}

/// [`read_records`], each record deserialised into a `T`.
///
/// # Errors
/// As [`read_records`], or a kept record is not a `T` ([`BadRow`] naming the column).
fn read_rows<T: serde::de::DeserializeOwned>(
    path: &Path,
    keep: impl FnMut(&str) -> bool,
) -> anyhow::Result<Vec<Numbered<T>>> {
    typed_rows(path, read_records(path, keep)?)
}

/// The typed rows of `records`, read from `path`.
fn typed_rows<T: serde::de::DeserializeOwned>(
    path: &Path,
    Records { headers, records }: Records,
) -> anyhow::Result<Vec<Numbered<T>>> {
    let mut rows = Vec::with_capacity(records.len());
    for Numbered { line, row: record } in records {
        let row = typed(path, &headers, line, &record)?;
        rows.push(Numbered { line, row });
    }
    Ok(rows)
}

/// `record` (at `line` of `path`) as a `T`, or which column is wrong.
fn typed<T: serde::de::DeserializeOwned>(
    path: &Path,
    headers: &csv::StringRecord,
    line: u64,
    record: &csv::StringRecord,
) -> Result<T, BadRow> {
    record.deserialize::<T>(Some(headers)).map_err(|e| {
        let problem = match e.kind() {
            csv::ErrorKind::Deserialize { err, .. } => match err
                .field()
                .and_then(|i| headers.get(usize::try_from(i).ok()?))
            {
                Some(column) => format!("column '{column}': {}", err.kind()),
                None => err.kind().to_string(),
            },
            other => format!("{other:?}"),
        };
        not_a_row(path, line, &problem)
    })
}

/// [`read_moves`] one row at a time, for a reader of a whole `moves.csv` that keeps
/// only what it makes of the rows (`arena report`, a resumed run's machine load:
/// a million games are sixty million rows, gigabytes of text). The file is read
/// through a buffer, never whole: memory is one row. The first bad line stops
/// it, named as [`read_moves`] names it.
///
/// # Errors
/// The file cannot be read, a complete line is not a valid row, or `f` fails.
pub fn for_each_move(
    path: &Path,
    mut f: impl FnMut(Numbered<MoveRow>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    stream_records(path, |headers, line, record| {
        let row = typed(path, headers, line, record)?;
        f(Numbered { line, row })
    })?;
    Ok(())
}

/// [`each_record`] of the complete lines of the file `path`, read through a
/// buffer (never whole), every record given to `f`; returns the header row.
fn stream_records(
    path: &Path,
    f: impl FnMut(&csv::StringRecord, u64, &csv::StringRecord) -> anyhow::Result<()>,
) -> anyhow::Result<csv::StringRecord> {
    use std::io::{BufRead as _, Read as _};
    let reading = || format!("reading {}", path.display());
    let file = nofollow::open(path, Access::Read).with_context(reading)?;
    let complete = complete_len(&file).with_context(reading)?;
    let mut buffered = std::io::BufReader::with_capacity(64 * 1024, file.take(complete));
    if buffered.fill_buf().with_context(reading)?.starts_with(BOM) {
        buffered.consume(BOM.len());
    }
    parse_records(path, buffered, f)
}

/// The line numbers of a stream read once: the line ends seen and not yet
/// passed by a record are kept (the csv reader's read-ahead, a few kilobytes),
/// those before it counted.
struct LineEnds<R> {
    inner: R,
    /// Bytes read so far.
    offset: u64,
    /// Offsets of the `\r` and `\n` read and not yet passed, with the byte.
    ends: std::collections::VecDeque<(u64, u8)>,
    /// `\n`s passed.
    passed: u64,
}

impl<R> LineEnds<R> {
    fn new(inner: R) -> LineEnds<R> {
        LineEnds {
            inner,
            offset: 0,
            ends: std::collections::VecDeque::new(),
            passed: 0,
        }
    }

    /// The line of the record that csv says starts at `byte` (never before a
    /// byte asked for earlier).
    fn line_at(&mut self, byte: u64) -> u64 {
        // A record never starts with a line end: skip the rest of the previous one.
        let mut start = byte;
        while self.ends.iter().any(|&(at, _)| at == start) {
            start += 1;
        }
        while let Some(&(at, end)) = self.ends.front() {
            if at >= start {
                break;
            }
            self.passed += u64::from(end == b'\n');
            self.ends.pop_front();
        }
        1 + self.passed
    }
}

impl<R: std::io::Read> std::io::Read for LineEnds<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        for (i, &b) in buf.iter().take(n).enumerate() {
            if b == b'\r' || b == b'\n' {
                self.ends.push_back((self.offset + i as u64, b));
            }
        }
        self.offset += n as u64;
        Ok(n)
    }
}

/// How many bytes of `file` come up to the end of its last complete line: a
/// torn last line (the arena killed mid-write) is left out. Found from the end.
fn complete_len(file: &File) -> std::io::Result<u64> {
    use std::os::unix::fs::FileExt as _;
    let mut end = file.metadata()?.len();
    let mut chunk = [0u8; 8 * 1024];
    while end > 0 {
        let start = end.saturating_sub(chunk.len() as u64);
        let part = &mut chunk[..usize::try_from(end - start).unwrap_or(0)];
        file.read_exact_at(part, start)?;
        if let Some(i) = part.iter().rposition(|&b| b == b'\n') {
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

/// Reads every complete row of a `games.csv`, each checked and typed
/// ([`GameRow::try_from`]) and with its line; a game (id and seed) may appear once.
/// This is the one reader of games.csv: resuming, `arena ratings`, `arena report`
/// and `arena replay` all read through it, so a file one of them refuses, none of
/// them uses.
///
/// # Errors
/// The file cannot be read, or a line is not a valid row ([`BadRow`], with the fix).
pub fn read_games_numbered(path: &Path) -> anyhow::Result<Vec<Numbered<GameRow>>> {
    let cells: Vec<Numbered<GameCells>> = read_rows(path, |_| true)?;
    let mut rows: Vec<Numbered<GameRow>> = Vec::with_capacity(cells.len());
    let mut first_line: std::collections::HashMap<(String, u64), u64> =
        std::collections::HashMap::with_capacity(cells.len());
    for Numbered { line, row } in cells {
        let bad = |message: String| BadRow {
            path: path.to_path_buf(),
            line,
            message,
        };
        let id = row.id.clone();
        let row = GameRow::try_from(row).map_err(|problem| {
            bad(format!(
                "game {id}: {problem}; correct the line or delete it (a resumed run plays a deleted game again)"
            ))
        })?;
        if let Some(first) = first_line.insert((row.id.clone(), row.seed), line) {
            return Err(bad(format!(
                "game {} appears twice (also at line {first}): delete one of the two lines",
                row.id
            ))
            .into());
        }
        rows.push(Numbered { line, row });
    }
    Ok(rows)
}

/// [`read_games_numbered`] without the line numbers.
///
/// # Errors
/// As [`read_games_numbered`].
pub fn read_games(path: &Path) -> anyhow::Result<Vec<GameRow>> {
    Ok(read_games_numbered(path)?
        .into_iter()
        .map(|n| n.row)
        .collect())
}

/// Reads the complete rows of a `moves.csv` whose game `keep` accepts, each with its
/// line (a torn last line is ignored, as [`read_games_numbered`] does).
///
/// # Errors
/// The file cannot be read, or a line of a kept game is not a valid row.
pub fn read_moves(
    path: &Path,
    keep: impl FnMut(&str) -> bool,
) -> anyhow::Result<Vec<Numbered<MoveRow>>> {
    read_rows(path, keep)
}

/// [`read_moves`] of the file `rel` inside the results directory `root`, no link
/// below `root` followed (the files of `live/`).
///
/// # Errors
/// As [`read_moves`].
pub fn read_moves_in(
    root: &Path,
    rel: &Path,
    keep: impl FnMut(&str) -> bool,
) -> anyhow::Result<Vec<Numbered<MoveRow>>> {
    let path = root.join(rel);
    let mut bytes = Vec::new();
    nofollow::open_in(root, rel, Access::Read)
        .and_then(|mut file| std::io::Read::read_to_end(&mut file, &mut bytes))
        .with_context(|| format!("reading {}", path.display()))?;
    typed_rows(&path, records_in(&path, &complete(bytes), keep)?)
}

/// The rows in `lines`, complete lines cut out of the `moves.csv` at `path` (one
/// game's, as `arena serve` indexes them), read under the file's `header` line by
/// the same parser as [`read_moves`]. Line numbers in an error count from the
/// header, not from the top of the file.
///
/// # Errors
/// A line is not a valid row.
pub fn parse_move_lines(path: &Path, header: &[u8], lines: &[u8]) -> anyhow::Result<Vec<MoveRow>> {
    let mut text = Vec::with_capacity(header.len() + lines.len());
    text.extend_from_slice(header);
    text.extend_from_slice(lines);
    let rows: Vec<Numbered<MoveRow>> = typed_rows(path, records_in(path, &text, |_| true)?)?;
    Ok(rows.into_iter().map(|n| n.row).collect())
}

/// The rows in `lines`, complete lines cut out of the `games.csv` at `path` (those
/// appended since a reader last looked, as `arena serve` follows a run), read under
/// the file's `header` line and checked as [`read_games`] checks them. `first_line`
/// is the line of the first of them in the file, for errors.
///
/// # Errors
/// A line is not a valid row ([`BadRow`], with the fix).
pub fn parse_game_lines(
    path: &Path,
    header: &[u8],
    lines: &[u8],
    first_line: u64,
) -> anyhow::Result<Vec<GameRow>> {
    let mut text = Vec::with_capacity(header.len() + lines.len());
    text.extend_from_slice(header);
    text.extend_from_slice(lines);
    // Lines count from the header here: line 2 is the file's `first_line`.
    let in_file = |line: u64| line + first_line.saturating_sub(2);
    let shift = |e: anyhow::Error| match e.downcast::<BadRow>() {
        Ok(bad) => BadRow {
            line: in_file(bad.line),
            ..bad
        }
        .into(),
        Err(e) => e,
    };
    let records = records_in(path, &text, |_| true).map_err(shift)?;
    let cells: Vec<Numbered<GameCells>> = typed_rows(path, records).map_err(shift)?;
    cells
        .into_iter()
        .map(|Numbered { line, row }| {
            let id = row.id.clone();
            GameRow::try_from(row).map_err(|problem| {
                BadRow {
                    path: path.to_path_buf(),
                    line: in_file(line),
                    message: format!("game {id}: {problem}; correct the line or delete it"),
                }
                .into()
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const HEADER: &str = "id,round,pair,x,o,opening,winner,winner_name,reason,detail,plies,boards_x,boards_o,rules,duration_ms,seed";

    fn row(id: &str, winner: &str, winner_name: &str, reason: &str) -> String {
        format!("{id},1,1,a,b,e5 e4,{winner},{winner_name},{reason},words,30,3,1,standard,5,7")
    }

    fn write(dir: &tempfile::TempDir, lines: &[String], end: &str) -> PathBuf {
        let path = dir.path().join(GAMES_FILE);
        let mut text = String::new();
        for line in std::iter::once(HEADER).chain(lines.iter().map(String::as_str)) {
            text.push_str(line);
            text.push_str(end);
        }
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn rows_are_checked_and_errors_name_the_line_and_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let good = row("G0001", "X", "a", "three-in-a-row");
        let cases = [
            (
                row("G0002", "Q", "a", "timeout"),
                "winner 'Q' should be X, O or draw",
            ),
            (
                row("G0002", "O", "a", "timeout"),
                "winner_name 'a' should be 'b'",
            ),
            (
                row("G0002", "draw", "", "three-in-a-row"),
                "three-in-a-row needs a winner",
            ),
            (row("G0002", "X", "a", "no-moves"), "no-moves is a draw"),
            (row("G0002", "X", "a", "won"), "'won' is not an end reason"),
            (
                row("G0002", "X", "a", "timeout").replace(",a,b,", ",\u{1b}[2J,b,"),
                "the bot name '\\u{1b}[2J' in column x has a control character",
            ),
            (
                row("G0002", "X", "a", "timeout").replace(",a,b,", ",a,a,"),
                "both seats name the bot 'a'",
            ),
            (
                row("G0002", "X", "a", "timeout").replace(",30,", ",82,"),
                "plies = 82",
            ),
            (
                row("G0002", "X", "a", "timeout").replace(",standard,", ",fast,"),
                "rules: unknown rules 'fast'",
            ),
            (
                row("G0002", "X", "a", "timeout").replace(",e5 e4,", ",e5 z9,"),
                "opening: move 2 ('z9')",
            ),
            (
                row("G0002", "X", "a", "timeout").replace(",30,", ",many,"),
                "not a games.csv row: column 'plies'",
            ),
        ];
        for (bad, message) in cases {
            for end in ["\n", "\r\n"] {
                let path = write(&dir, &[good.clone(), bad.clone()], end);
                let err = read_games(&path).unwrap_err();
                let bad_row = err.downcast_ref::<BadRow>().expect("a BadRow");
                assert_eq!(bad_row.line, 3, "{end:?}: {err}");
                assert!(err.to_string().contains(message), "{err}");
                assert!(err.to_string().contains("delete"), "the fix: {err}");
            }
        }
        let path = write(
            &dir,
            &[
                good.clone(),
                row("G0002", "draw", "", "crash"),
                good.clone(),
            ],
            "\r\n",
        );
        let err = read_games(&path).unwrap_err().to_string();
        assert!(
            err.ends_with(
                ":4: game G0001 appears twice (also at line 2): delete one of the two lines"
            ),
            "{err}"
        );
    }

    #[test]
    fn a_byte_order_mark_and_a_torn_last_line_are_ignored_and_formulas_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(GAMES_FILE);
        let text = format!(
            "\u{feff}{HEADER}\n{}\n{}",
            row("G0001", "O", "b", "crash").replace(",words,", ",'=1+1,"),
            row("G0002", "X", "a", "three-in-a-row").split_at(20).0
        );
        std::fs::write(&path, text).unwrap();
        let rows = read_games_numbered(&path).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].line, rows[0].row.detail.as_str()), (2, "=1+1"));
    }

    proptest! {
        #[test]
        fn the_games_reader_never_panics_and_names_a_line(
            bytes in proptest::collection::vec(any::<u8>(), 0..300),
            edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(GAMES_FILE);
            std::fs::write(&path, &bytes).unwrap();
            if let Err(e) = read_games(&path) {
                prop_assert!(e.downcast_ref::<BadRow>().is_some_and(|b| b.line >= 1), "{}", e);
            }
            // A valid file with a few bytes changed.
            let mut text = format!("{HEADER}\n{}\n{}\n", row("G0001", "X", "a", "three-in-a-row"), row("G0002", "draw", "", "no-moves")).into_bytes();
            for (i, b) in &edits {
                let i = i.index(text.len());
                text[i] = *b;
            }
            std::fs::write(&path, &text).unwrap();
            if let Err(e) = read_games(&path) {
                prop_assert!(e.downcast_ref::<BadRow>().is_some_and(|b| (1..=4).contains(&b.line)), "{}", e);
            }
        }
    }

    /// A `moves.csv` of `n` rows as the store writes it (an `info` with a line
    /// break inside its quotes in the second), with `end` as the line end.
    fn moves_text(n: usize, end: &str) -> String {
        let mut writer = csv::Writer::from_writer(Vec::new());
        for i in 0..n {
            let square: Square = "e5".parse().unwrap();
            writer
                .serialize(MoveRow {
                    game: format!("G{:04}", i / 3 + 1),
                    ply: u32::try_from(i % 3 + 1).unwrap(),
                    mark: if i % 2 == 0 { Mark::X } else { Mark::O },
                    bot: if i % 2 == 0 { "a".into() } else { "b".into() },
                    square,
                    board: 5,
                    cell: 5,
                    free_move: false,
                    think_ms: Some(1.5),
                    depth: Some(3),
                    score: None,
                    nodes: None,
                    info: if i == 1 {
                        "pv e5\nnext".into()
                    } else {
                        String::new()
                    },
                    claimed: None,
                    drawn: None,
                    charged_ms: Some(1.0),
                    cpu_ms: Some(1.0),
                    wait_ms: Some(0.5),
                    late_ms: Some(0.0),
                })
                .unwrap();
        }
        let text = String::from_utf8(writer.into_inner().unwrap()).unwrap();
        text.replace('\n', end)
            .replace(&format!("pv e5{end}next"), "pv e5\nnext")
    }

    /// [`for_each_move`]'s rows and lines, or the line and words of its error.
    fn streamed(path: &Path) -> Result<Vec<(u64, MoveRow)>, (u64, String)> {
        let mut rows = Vec::new();
        for_each_move(path, |n| {
            rows.push((n.line, n.row));
            Ok(())
        })
        .map(|()| rows)
        .map_err(|e| {
            (
                e.downcast_ref::<BadRow>().map_or(0, |b| b.line),
                e.to_string(),
            )
        })
    }

    /// [`read_moves`]'s, the same way.
    fn whole(path: &Path) -> Result<Vec<(u64, MoveRow)>, (u64, String)> {
        read_moves(path, |_| true)
            .map(|rows| rows.into_iter().map(|n| (n.line, n.row)).collect())
            .map_err(|e| {
                (
                    e.downcast_ref::<BadRow>().map_or(0, |b| b.line),
                    e.to_string(),
                )
            })
    }

    #[test]
    fn the_streaming_move_reader_reads_what_the_whole_file_reader_reads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(MOVES_FILE);
        for end in ["\n", "\r\n"] {
            // A byte-order mark, a quoted line break, a blank line, a torn last line.
            let text = moves_text(7, end);
            let (head, rest) = text.split_at(text.find("G0002").unwrap());
            let text = format!("\u{feff}{head}{end}{end}{rest}{end}G0009,1,X");
            std::fs::write(&path, &text).unwrap();
            let rows = streamed(&path).expect("a valid file");
            assert_eq!(rows.len(), 7, "the torn line is left out");
            assert_eq!(rows[1].1.info, "pv e5\nnext");
            assert_eq!(rows[2].0, 5, "after the line break inside quotes");
            assert_eq!(rows[3].0, 8, "after two blank lines");
            assert_eq!(Ok(rows), whole(&path));
        }
        std::fs::write(&path, "").unwrap();
        assert_eq!(streamed(&path), whole(&path));
        std::fs::write(&path, "game,ply").unwrap();
        assert_eq!(streamed(&path), Ok(Vec::new()), "a torn header is no rows");
    }

    proptest! {
        #[test]
        fn the_streaming_move_reader_agrees_with_the_whole_file_reader_on_damaged_files(
            edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
            crlf in any::<bool>(),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(MOVES_FILE);
            let mut text = moves_text(5, if crlf { "\r\n" } else { "\n" }).into_bytes();
            for (i, b) in &edits {
                let i = i.index(text.len());
                text[i] = *b;
            }
            std::fs::write(&path, &text).unwrap();
            match (streamed(&path), whole(&path)) {
                (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
                // The whole-file reader parses every line before it types any,
                // so it may name a later bad line; streaming names the first.
                (Err((line_a, _)), Err((line_b, _))) => {
                    prop_assert!((1..=line_b).contains(&line_a), "{} vs {}", line_a, line_b);
                }
                (a, b) => prop_assert!(false, "streamed {:?}, whole {:?}", a, b),
            }
        }
    }

    #[test]
    fn opening_a_directory_drops_orphan_moves_and_gives_an_old_file_the_clock_columns() {
        let dir = tempfile::tempdir().unwrap();
        write(&dir, &[row("G0001", "X", "a", "three-in-a-row")], "\n");
        let old = "game,ply,mark,bot,square,board,cell,free_move,think_ms,depth,score,nodes,info,claimed,drawn";
        let moves = dir.path().join(MOVES_FILE);
        std::fs::write(
            &moves,
            format!(
                "{old}\nG0001,1,X,a,e5,5,5,true,1.5,,,,\"pv e5, then d4\",,\n\
                 G0002,1,X,b,e5,5,5,true,1.5,,,,,,\n\
                 G0001,2,O,b,e4,5,4,false,2.0,3,,,,,\n\
                 G0002,2,O,a,e4,5,4,false,2.0,3,,,,,\n"
            ),
        )
        .unwrap();
        drop(ResultStore::open(dir.path()).unwrap());
        let expected = format!(
            "{old},charged_ms,cpu_ms,wait_ms,late_ms\n\
             G0001,1,X,a,e5,5,5,true,1.5,,,,\"pv e5, then d4\",,,,,,\n\
             G0001,2,O,b,e4,5,4,false,2.0,3,,,,,,,,,\n"
        );
        assert_eq!(std::fs::read_to_string(&moves).unwrap(), expected);
        assert!(
            !dir.path().join("moves.tmp").exists(),
            "no temporary file left"
        );
        // Nothing to change: the file is left as it is.
        let before = std::fs::metadata(&moves).unwrap().modified().unwrap();
        drop(ResultStore::open(dir.path()).unwrap());
        assert_eq!(std::fs::read_to_string(&moves).unwrap(), expected);
        assert_eq!(
            std::fs::metadata(&moves).unwrap().modified().unwrap(),
            before
        );
    }

    #[test]
    fn torn_tail_is_cut_back_to_the_last_newline() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.csv");
        std::fs::write(&path, "a,b\n1,2\n3,").unwrap();
        assert!(repair_torn_tail(&path).unwrap());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a,b\n1,2\n");
        assert!(!repair_torn_tail(&path).unwrap());
        std::fs::write(&path, "partial").unwrap();
        assert!(repair_torn_tail(&path).unwrap());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "");
    }
}
