//! The live files: each running game published move by move under
//! `<results>/live/`, so that `arena serve` (in this process, another one, or on
//! another machine sharing the file system) can show games while they are played.
//!
//! A running game `G0007` has two files:
//! - `live/G0007.json`, written once when the game starts: who plays, the rules,
//!   and the process (`pid`, `host`) playing it;
//! - `live/G0007.csv`, the rows `moves.csv` will get, appended one write per mark
//!   (not synced: a live view may lose the last mark in a power cut, a result never).
//!
//! Both are removed once the game is recorded in `games.csv` (or abandoned on
//! Ctrl-C). Files left by a killed run stay: their process is gone, so readers show
//! them as unfinished, never as running, and the next run on the directory removes
//! them. The runner writes them best effort: a file that cannot be written turns the
//! live view of that game off and never touches the game. Every live file is
//! opened, read and removed without following links
//! ([`nofollow`](super::nofollow)): its moves carry the bots' own `info` text.

use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use referee::game::{MoveObserver, MoveRecord};
use serde::{Deserialize, Serialize};
use uttt::rules::{ByMark, Rules};

use super::nofollow::{self, Access};
use super::store::{self, GameMeta, MoveRow, move_row};

pub use super::store::LIVE_DIR;

/// What a running game's `.json` file says.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LiveHeader {
    /// Game id.
    pub game: String,
    /// 1-based round.
    pub round: u32,
    /// 1-based pair.
    pub pair: u32,
    /// The bot playing X.
    pub x: String,
    /// The bot playing O.
    pub o: String,
    /// The rules, as `games.csv` names them.
    pub rules: String,
    /// When the game started (RFC 3339).
    pub started: String,
    /// The process playing it.
    pub pid: u32,
    /// The machine that process runs on.
    pub host: String,
}

/// A running game's live files; removed when dropped (after the game is recorded).
#[derive(Debug)]
pub struct LiveGame {
    /// The results directory.
    root: PathBuf,
    /// The moves file and the header, relative to `root`.
    paths: [PathBuf; 2],
    moves: Option<csv::Writer<File>>,
    id: String,
    names: ByMark<String>,
}

impl LiveGame {
    /// Starts the live files of a game in `dir` (`<results>/live`). `None` when
    /// they cannot be written: the game is then simply not shown live.
    pub fn start(dir: &Path, meta: &GameMeta, names: ByMark<String>, rules: Rules) -> Option<Self> {
        let (root, folder) = (dir.parent()?, Path::new(dir.file_name()?));
        nofollow::create_dir_in(root, folder).ok()?;
        let header = LiveHeader {
            game: meta.id.clone(),
            round: meta.round,
            pair: meta.pair,
            x: names.x.clone(),
            o: names.o.clone(),
            rules: rules.to_string(),
            started: super::atomic::now(),
            pid: std::process::id(),
            host: host_name(),
        };
        let json = folder.join(format!("{}.json", meta.id));
        let csv_path = folder.join(format!("{}.csv", meta.id));
        // The moves file first: a reader that finds the header finds its moves.
        // `live` exists from here on, so a failure below removes what was written.
        let mut live = LiveGame {
            root: root.to_path_buf(),
            paths: [csv_path, json],
            moves: None,
            id: meta.id.clone(),
            names,
        };
        let file = nofollow::open_in(root, &live.paths[0], Access::Replace).ok()?;
        let mut moves = csv::WriterBuilder::new()
            .has_headers(false)
            .buffer_capacity(1024)
            .from_writer(file);
        moves.write_record(MOVE_COLUMNS).ok()?;
        moves.flush().ok()?;
        nofollow::open_in(root, &live.paths[1], Access::Replace)
            .ok()?
            .write_all(&serde_json::to_vec(&header).ok()?)
            .ok()?;
        live.moves = Some(moves);
        Some(live)
    }
}

/// The columns of `moves.csv`, in order (the header of a live moves file).
const MOVE_COLUMNS: [&str; 19] = [
    "game",
    "ply",
    "mark",
    "bot",
    "square",
    "board",
    "cell",
    "free_move",
    "think_ms",
    "depth",
    "score",
    "nodes",
    "info",
    "claimed",
    "drawn",
    "charged_ms",
    "cpu_ms",
    "wait_ms",
    "late_ms",
];

impl MoveObserver for LiveGame {
    fn marked(&mut self, record: &MoveRecord) {
        let Some(writer) = &mut self.moves else {
            return;
        };
        let row = move_row(&self.id, &self.names, record);
        // One write per mark; on any failure the live view of this game stops.
        let written = writer.serialize(&row).is_ok() && writer.flush().is_ok();
        if !written {
            self.moves = None;
        }
    }
}

impl Drop for LiveGame {
    fn drop(&mut self) {
        self.moves = None;
        for path in &self.paths {
            let _ = nofollow::remove_in(&self.root, path);
        }
    }
}

/// This machine's name, as the live files record it (read once: not a file read
/// per game).
fn host_name() -> String {
    static HOST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HOST.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim().to_string())
            .unwrap_or_default()
    })
    .clone()
}

/// Whether the process that wrote `header` is still running. Decided only for
/// processes of this machine (another machine's are taken as running: the reader
/// cannot look, and their files are removed when their games end).
pub fn writer_alive(header: &LiveHeader) -> bool {
    if header.host != host_name() {
        return true;
    }
    Path::new("/proc").join(header.pid.to_string()).exists()
}

/// A game of the live folder, as read.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveRead {
    /// Its header.
    pub header: LiveHeader,
    /// Its marks so far (a torn last line is left out).
    pub moves: Vec<MoveRow>,
    /// Whether its process still runs: `false` for the files of a killed run.
    pub running: bool,
}

/// The games in `<results>/live`, by id. Files that cannot be read (one being
/// removed as the game ends, a damaged header) are skipped.
pub fn read_live(results: &Path) -> Vec<LiveRead> {
    let folder = Path::new(LIVE_DIR);
    let Ok(names) = nofollow::list_in(results, folder) else {
        return Vec::new();
    };
    let read = |name: &str| -> Option<Vec<u8>> {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(
            &mut nofollow::open_in(results, &folder.join(name), Access::Read).ok()?,
            &mut bytes,
        )
        .ok()?;
        Some(bytes)
    };
    let mut games: Vec<LiveRead> = names
        .iter()
        .filter_map(|name| {
            let id = name.strip_suffix(".json")?.to_string();
            let header: LiveHeader = serde_json::from_slice(&read(name)?).ok()?;
            if header.game != id {
                return None;
            }
            let moves = store::read_moves_in(results, &folder.join(format!("{id}.csv")), |_| true)
                .map(|rows| rows.into_iter().map(|n| n.row).collect())
                .unwrap_or_default();
            let running = writer_alive(&header);
            Some(LiveRead {
                header,
                moves,
                running,
            })
        })
        .collect();
    games.sort_by(|a, b| {
        (a.header.game.len(), &a.header.game).cmp(&(b.header.game.len(), &b.header.game))
    });
    games
}

/// Removes the live files of games whose process on this machine is gone (a
/// killed run's), when a run starts on the directory.
pub fn remove_stale(results: &Path) {
    for game in read_live(results) {
        if !game.running {
            for ext in ["csv", "json"] {
                let name = format!("{}.{ext}", game.header.game);
                let _ = nofollow::remove_in(results, &Path::new(LIVE_DIR).join(name));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use referee::game::MoveRecord;
    use uttt::rules::{Position, Square};

    fn meta(id: &str) -> GameMeta {
        GameMeta {
            id: id.into(),
            round: 1,
            pair: 2,
            seed: 3,
        }
    }

    #[test]
    fn a_game_is_published_mark_by_mark_and_removed_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let live_dir = dir.path().join(LIVE_DIR);
        let names = ByMark {
            x: "<b>x</b>".to_string(),
            o: "o".to_string(),
        };
        let mut live = LiveGame::start(&live_dir, &meta("G0001"), names, Rules::STANDARD).unwrap();
        let read = read_live(dir.path());
        assert_eq!(read.len(), 1);
        assert!(read[0].running);
        assert_eq!(read[0].header.x, "<b>x</b>");
        assert!(read[0].moves.is_empty());

        let mut pos = Position::new(Rules::STANDARD);
        for text in ["e5", "e4"] {
            let sq: Square = text.parse().unwrap();
            let after = pos.play(sq).unwrap();
            let record = MoveRecord::new(
                &pos,
                &after,
                sq,
                Some(std::time::Duration::from_millis(3)),
                None,
            );
            live.marked(&record);
            pos = after;
        }
        let read = read_live(dir.path());
        let squares: Vec<String> = read[0].moves.iter().map(|m| m.square.to_string()).collect();
        assert_eq!(squares, ["e5", "e4"]);
        assert_eq!(read[0].moves[0].bot, "<b>x</b>");
        assert_eq!(read[0].moves[1].think_ms, Some(3.0));

        drop(live);
        assert!(read_live(dir.path()).is_empty());
        assert_eq!(std::fs::read_dir(&live_dir).unwrap().count(), 0);
    }

    #[test]
    fn files_of_a_dead_process_are_unfinished_and_removed_by_the_next_run() {
        let dir = tempfile::tempdir().unwrap();
        let live_dir = dir.path().join(LIVE_DIR);
        std::fs::create_dir_all(&live_dir).unwrap();
        // A process id above the kernel's maximum is never running.
        let header = LiveHeader {
            game: "G0002".into(),
            round: 1,
            pair: 1,
            x: "a".into(),
            o: "b".into(),
            rules: "standard".into(),
            started: "2026-12-01T00:00:00Z".into(),
            pid: 4_194_305,
            host: host_name(),
        };
        std::fs::write(
            live_dir.join("G0002.json"),
            serde_json::to_vec(&header).unwrap(),
        )
        .unwrap();
        std::fs::write(
            live_dir.join("G0002.csv"),
            format!(
                "{}\nG0002,1,X,a,e5,5,5,true,1.0,,,,,,\nG0002,2,O,b,e",
                MOVE_COLUMNS.join(",")
            ),
        )
        .unwrap();
        let read = read_live(dir.path());
        assert_eq!(read.len(), 1);
        assert!(!read[0].running);
        assert_eq!(read[0].moves.len(), 1, "the torn last line is left out");
        // Another machine's game cannot be looked at: taken as running.
        let other = LiveHeader {
            host: format!("{}-elsewhere", host_name()),
            ..header
        };
        assert!(writer_alive(&other));
        remove_stale(dir.path());
        assert!(read_live(dir.path()).is_empty());
        assert_eq!(std::fs::read_dir(&live_dir).unwrap().count(), 0);
    }
}
