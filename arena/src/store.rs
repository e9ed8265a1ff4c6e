//! Results on disk: `games.csv` (one row per finished game) and `moves.csv` (one
//! row per mark). Both are append-only; each finished game is written with one
//! write per file and synced before it is reported, so killing the arena at any
//! moment loses nothing that finished. `games.csv` is the commit record: a game is
//! done exactly when its row is there.
//!
//! Columns are documented on [`GameRow`] and [`MoveRow`] (and in the README).

use std::fs::{File, OpenOptions};
use std::io::{Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use referee::game::GameRecord;
use referee::notation::format_move_list;
use referee::rules::Mark;
use serde::{Deserialize, Serialize};

/// File name of the per-game results.
pub const GAMES_FILE: &str = "games.csv";
/// File name of the per-move log.
pub const MOVES_FILE: &str = "moves.csv";
/// The file a run locks for as long as it writes the directory.
pub const LOCK_FILE: &str = ".arena.lock";

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

/// Where a game sits in its tournament (from the schedule).
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

/// One row of `games.csv`: a finished game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRow {
    /// Game id, unique within the tournament (`G0001`…), in schedule order.
    #[serde(with = "crate::spreadsheet")]
    pub id: String,
    /// Round number (1-based). Every pairing plays one pair per round.
    pub round: u32,
    /// Pair number (1-based); the two games of a colour-swapped pair share it.
    pub pair: u32,
    /// Name of the bot playing X (moves first).
    #[serde(with = "crate::spreadsheet")]
    pub x: String,
    /// Name of the bot playing O.
    #[serde(with = "crate::spreadsheet")]
    pub o: String,
    /// The opening moves, space-separated (a1–i9), empty when none.
    #[serde(with = "crate::spreadsheet")]
    pub opening: String,
    /// `X`, `O` or `draw`.
    #[serde(with = "crate::spreadsheet")]
    pub winner: String,
    /// The winning bot's name, empty for a draw.
    #[serde(with = "crate::spreadsheet")]
    pub winner_name: String,
    /// Why the game ended: three-in-a-row, no-moves, most-boards, resign, timeout,
    /// illegal-move, malformed-output, crash, disconnect, handshake-failure.
    #[serde(with = "crate::spreadsheet")]
    pub reason: String,
    /// The reason in words, naming the bot at fault and the evidence (measured and
    /// allowed ms, the offending text, exit code or signal…).
    #[serde(with = "crate::spreadsheet")]
    pub detail: String,
    /// Number of marks on the board at the end (opening included).
    pub plies: u32,
    /// Small boards won by X.
    pub boards_x: u32,
    /// Small boards won by O.
    pub boards_o: u32,
    /// Rules (`standard` or variants joined by `+`).
    #[serde(with = "crate::spreadsheet")]
    pub rules: String,
    /// Wall time of the game in milliseconds (a timing column: varies run to run).
    pub duration_ms: u64,
    /// The game's seed; the bots' seeds derive from it.
    pub seed: u64,
}

/// One row of `moves.csv`: a mark.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveRow {
    /// Game id (see [`GameRow::id`]).
    #[serde(with = "crate::spreadsheet")]
    pub game: String,
    /// Ply, 1-based; opening moves included.
    pub ply: u32,
    /// `X` or `O`.
    #[serde(with = "crate::spreadsheet")]
    pub mark: String,
    /// Name of the bot that moved (`opening` for opening moves).
    #[serde(with = "crate::spreadsheet")]
    pub bot: String,
    /// The square, a1–i9.
    #[serde(with = "crate::spreadsheet")]
    pub square: String,
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
    #[serde(with = "crate::spreadsheet")]
    pub info: String,
    /// The board (1–9) this mark claimed, empty if none.
    pub claimed: Option<u8>,
    /// The board (1–9) this mark filled without a line (drawn), empty if none.
    pub drawn: Option<u8>,
}

impl GameRow {
    /// The row for a finished game.
    pub fn new(meta: &GameMeta, record: &GameRecord) -> GameRow {
        let boards = record.boards_won();
        GameRow {
            id: meta.id.clone(),
            round: meta.round,
            pair: meta.pair,
            x: record.names.x.clone(),
            o: record.names.o.clone(),
            opening: format_move_list(
                &record.moves[..record.opening_plies]
                    .iter()
                    .map(|m| m.square)
                    .collect::<Vec<_>>(),
            ),
            winner: record.winner.map_or("draw".to_string(), |m| m.to_string()),
            winner_name: record
                .winner
                .map_or(String::new(), |m| record.names.get(m).clone()),
            reason: record.termination.reason_name().to_string(),
            detail: record.termination.describe(&record.names, boards),
            plies: record.position.ply(),
            boards_x: boards.x,
            boards_o: boards.o,
            rules: record.rules.to_string(),
            duration_ms: u64::try_from(record.duration.as_millis()).unwrap_or(u64::MAX),
            seed: meta.seed,
        }
    }

    /// The winner as a mark, `None` for a draw.
    ///
    /// # Errors
    /// The `winner` column holds something else.
    pub fn winner_mark(&self) -> Result<Option<Mark>, String> {
        match self.winner.as_str() {
            "draw" => Ok(None),
            w => w
                .parse::<Mark>()
                .map(Some)
                .map_err(|_| format!("winner '{w}' should be X, O or draw")),
        }
    }
}

/// The rows of `moves.csv` for a finished game.
pub fn move_rows(meta: &GameMeta, record: &GameRecord) -> Vec<MoveRow> {
    record
        .moves
        .iter()
        .map(|m| {
            let info = m.info.as_ref();
            let pv = info.map(|i| format_move_list(&i.pv)).unwrap_or_default();
            let text = info.map(|i| i.text.clone()).unwrap_or_default();
            MoveRow {
                game: meta.id.clone(),
                ply: m.ply,
                mark: m.mark.to_string(),
                bot: if m.think.is_some() {
                    record.names.get(m.mark).clone()
                } else {
                    "opening".to_string()
                },
                square: m.square.to_string(),
                board: m.square.board().number(),
                cell: m.square.cell().number(),
                free_move: m.free_move,
                think_ms: m.think.map(|d| (d.as_secs_f64() * 1e6).round() / 1e3),
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
            }
        })
        .collect()
}

/// Takes the exclusive lock of the results directory `dir`. On a file system
/// without locks (some network and FUSE mounts) the run goes on unlocked, with a
/// warning: refusing to run there would be worse than the risk it names.
fn lock_dir(dir: &Path) -> anyhow::Result<Option<File>> {
    let path = dir.join(LOCK_FILE);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
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

    /// Keeps the protocol transcripts of a game that ended abnormally, in
    /// `transcripts/<id>.txt`, for the bot author to see exactly what was said.
    ///
    /// # Errors
    /// Writing failed.
    pub fn save_transcripts(&self, meta: &GameMeta, record: &GameRecord) -> anyhow::Result<()> {
        if !record.is_abnormal() {
            return Ok(());
        }
        let dir = self.dir.join("transcripts");
        std::fs::create_dir_all(&dir)?;
        let mut text = format!("game {}: {}\n", meta.id, record.result_line());
        for mark in [Mark::X, Mark::O] {
            text.push_str(&format!("\n== {mark} ({}) ==\n", record.names.get(mark)));
            for line in record.transcripts.get(mark) {
                text.push_str(line);
                text.push('\n');
            }
        }
        std::fs::write(dir.join(format!("{}.txt", meta.id)), text)
            .with_context(|| format!("writing the transcript of {}", meta.id))
    }

    /// Appends one finished game: its moves, then its row in `games.csv`, each with
    /// one write and synced to disk before returning.
    ///
    /// # Errors
    /// Writing or syncing failed.
    pub fn append(&mut self, meta: &GameMeta, record: &GameRecord) -> anyhow::Result<()> {
        let moves = move_rows(meta, record);
        write_rows(&mut self.moves, &moves).with_context(|| format!("writing {MOVES_FILE}"))?;
        write_rows(&mut self.games, &[GameRow::new(meta, record)])
            .with_context(|| format!("writing {GAMES_FILE}"))?;
        Ok(())
    }
}

/// After a kill between writing a game's moves and its row, `moves.csv` holds rows
/// of a game that is not finished (it will be replayed): drop them.
fn drop_orphan_moves(dir: &Path) -> anyhow::Result<()> {
    let moves_path = dir.join(MOVES_FILE);
    if !moves_path.exists() {
        return Ok(());
    }
    repair_torn_tail(&moves_path)?;
    let done: std::collections::HashSet<String> = read_games(&dir.join(GAMES_FILE))?
        .into_iter()
        .map(|g| g.id)
        .collect();
    let mut reader = csv::Reader::from_path(&moves_path)
        .with_context(|| format!("reading {}", moves_path.display()))?;
    let headers = reader.headers()?.clone();
    let mut kept = Vec::new();
    let mut dropped = false;
    for record in reader.records() {
        let record = record.with_context(|| format!("reading {}", moves_path.display()))?;
        if record.get(0).is_some_and(|id| done.contains(id)) {
            kept.push(record);
        } else {
            dropped = true;
        }
    }
    if !dropped {
        return Ok(());
    }
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(&headers)?;
    for record in &kept {
        writer.write_record(record)?;
    }
    let bytes = writer.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
    crate::manifest::write_atomic(&moves_path, &bytes)
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
    OpenOptions::new()
        .create(true)
        .append(true)
        .read(true)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))
}

/// Cuts a file back to its last newline. Returns whether anything was cut.
fn repair_torn_tail(path: &Path) -> anyhow::Result<bool> {
    let Ok(bytes) = std::fs::read(path) else {
        return Ok(false);
    };
    if bytes.is_empty() || bytes.ends_with(b"\n") {
        return Ok(false);
    }
    let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let file = OpenOptions::new()
        .write(true)
        .open(path)
        .with_context(|| format!("repairing {}", path.display()))?;
    file.set_len(keep as u64)?;
    file.sync_all()?;
    Ok(true)
}

/// Reads every complete row of a `games.csv`. A torn last line (no newline) is
/// ignored. Errors name the file and line.
///
/// # Errors
/// The file cannot be read, or a complete line is not a valid row.
pub fn read_games(path: &Path) -> anyhow::Result<Vec<GameRow>> {
    let mut bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    if !bytes.is_empty() && !bytes.ends_with(b"\n") {
        let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        bytes.truncate(keep);
    }
    let mut reader = csv::Reader::from_reader(bytes.as_slice());
    let mut rows = Vec::new();
    for row in reader.deserialize::<GameRow>() {
        let row = row.map_err(|e| {
            let line = e.position().map_or(0, |p| p.line());
            anyhow::anyhow!("{}: line {line}: not a games.csv row: {e}", path.display())
        })?;
        rows.push(row);
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

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
