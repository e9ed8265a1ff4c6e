//! One game's rows out of `moves.csv` without reading the whole file and without
//! an index of every game: the file is read backwards from its end, a piece at a
//! time, until the game's rows are behind the reader. Games are appended as they
//! finish, each in one write, so the games a live page shows (the newest) are in
//! the last kilobytes of a `moves.csv` of hundreds of megabytes, and an old game
//! costs one read of the file back to it, in pieces, when someone opens it.
//!
//! Where the last [`REMEMBERED`] games found are is remembered, so a page that
//! opens a game again reads only its rows. Memory stays the same however many
//! games the file holds. The rows are read by the store's parser
//! ([`parse_move_lines`]), the one reader of `moves.csv`; a row is one line (the
//! store writes no line break inside a cell: bot text comes from one protocol
//! line).

use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufRead as _, BufReader};
use std::ops::Range;
use std::os::unix::fs::{FileExt as _, MetadataExt as _};
use std::path::Path;

use super::nofollow::{Access, open};
use super::store::{MoveRow, parse_move_lines};

/// The piece read at a time, going backwards.
const PIECE: usize = 256 * 1024;

/// How many found games' places are remembered.
pub const REMEMBERED: usize = 64;

/// The places of the games of one `moves.csv` found most recently.
#[derive(Debug, Default)]
pub struct MovesIndex {
    /// The file they were found in (its inode), and its header line.
    file: Option<(u64, Vec<u8>)>,
    /// Newest last: a game's id and the byte range of its rows.
    found: VecDeque<(String, Range<u64>)>,
}

impl MovesIndex {
    /// The rows of game `id` in `path`, or `None` when the file has none (a
    /// missing file has none).
    ///
    /// # Errors
    /// The file cannot be read, or a row of the game is not valid.
    pub fn rows(&mut self, path: &Path, id: &str) -> anyhow::Result<Option<Vec<MoveRow>>> {
        let file = match open(path, Access::Read) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let meta = file.metadata()?;
        if self
            .file
            .as_ref()
            .is_none_or(|(inode, _)| *inode != meta.ino())
        {
            let mut header = Vec::new();
            BufReader::new(&file).read_until(b'\n', &mut header)?;
            if !header.ends_with(b"\n") {
                return Ok(None);
            }
            self.found.clear();
            self.file = Some((meta.ino(), header));
        }
        let Some((_, header)) = &self.file else {
            return Ok(None);
        };
        let remembered = self
            .found
            .iter()
            .find(|(game, range)| game == id && range.end <= meta.len())
            .map(|(_, range)| range.clone());
        let range = match remembered {
            Some(range) => range,
            None => match find_backwards(&file, header.len() as u64, meta.len(), id)? {
                Some(range) => {
                    if self.found.len() == REMEMBERED {
                        self.found.pop_front();
                    }
                    self.found.push_back((id.to_string(), range.clone()));
                    range
                }
                None => return Ok(None),
            },
        };
        let mut lines = vec![0; usize::try_from(range.end - range.start)?];
        file.read_exact_at(&mut lines, range.start)?;
        let rows = parse_move_lines(path, header, &lines)?;
        Ok(Some(rows.into_iter().filter(|r| r.game == id).collect()))
    }
}

/// The byte range of the consecutive lines of game `id` nearest the end of the
/// file, reading the complete lines between `start` (after the header) and `len`
/// backwards, a [`PIECE`] at a time.
fn find_backwards(
    file: &File,
    start: u64,
    len: u64,
    id: &str,
) -> std::io::Result<Option<Range<u64>>> {
    let prefix = format!("{id},");
    // Lines from `end` on have been looked at; `end` is always a line's start.
    let mut end = len;
    let mut size = PIECE;
    let mut at_the_end = true;
    let mut found: Option<Range<u64>> = None;
    while end > start {
        let from = end.saturating_sub(size as u64).max(start);
        let mut piece = vec![0; usize::try_from(end - from).unwrap_or(0)];
        file.read_exact_at(&mut piece, from)?;
        if at_the_end {
            // A last line still being written is not a row yet.
            match piece.iter().rposition(|&b| b == b'\n') {
                Some(i) => piece.truncate(i + 1),
                None if from > start => {
                    size = size.saturating_mul(2);
                    continue;
                }
                None => return Ok(None),
            }
            at_the_end = false;
        }
        // The lines that start in this piece: all of them when it starts the rows,
        // else those after its first newline.
        let first = if from == start {
            0
        } else {
            match piece.iter().position(|&b| b == b'\n') {
                Some(i) => i + 1,
                None => {
                    // One line longer than the piece: a larger piece.
                    size = size.saturating_mul(2);
                    continue;
                }
            }
        };
        let mut line_end = piece.len();
        for line_start in line_starts(&piece, first).into_iter().rev() {
            let range = from + line_start as u64..from + line_end as u64;
            if piece[line_start..line_end].starts_with(prefix.as_bytes()) {
                found = Some(found.map_or(range.clone(), |f| range.start..f.end));
            } else if found.is_some() {
                return Ok(found);
            }
            line_end = line_start;
        }
        end = from + first as u64;
        size = PIECE;
    }
    Ok(found)
}

/// The starts of the lines of `piece` from `first` on (a line starts at `first`
/// and after each newline but the last).
fn line_starts(piece: &[u8], first: usize) -> Vec<usize> {
    let mut starts = Vec::new();
    if first < piece.len() {
        starts.push(first);
    }
    for (i, &b) in piece.iter().enumerate().skip(first) {
        if b == b'\n' && i + 1 < piece.len() {
            starts.push(i + 1);
        }
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    const HEADER: &str = "game,ply,mark,bot,square,board,cell,free_move,think_ms,depth,score,nodes,info,claimed,drawn\n";

    fn row(game: &str, ply: u32, mark: &str, square: &str, info: &str) -> String {
        let sq = uttt::notation::parse_square_lenient(square).unwrap();
        let (board, cell) = (sq.board().number(), sq.cell().number());
        format!("{game},{ply},{mark},b,{square},{board},{cell},false,1.5,,,,{info},,\n")
    }

    #[test]
    fn games_are_found_from_the_end_and_a_torn_line_waits() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("moves.csv");
        let mut index = MovesIndex::default();
        assert!(index.rows(&path, "G0001").unwrap().is_none());
        let mut file = std::fs::File::create(&path).unwrap();
        write!(file, "{HEADER}").unwrap();
        write!(file, "{}", row("G0002", 1, "X", "a1", "")).unwrap();
        write!(
            file,
            "{}",
            row("G0002", 2, "O", "a2", "\"depth 2, \"\"quoted\"\"\"")
        )
        .unwrap();
        write!(file, "{}", row("G0001", 1, "X", "e5", "")).unwrap();
        // Half a row of the next game: not found until its line is complete.
        write!(file, "G0003,1,X,b,e5,5").unwrap();
        let g2 = index.rows(&path, "G0002").unwrap().expect("found");
        assert_eq!(g2.len(), 2);
        assert_eq!(g2[1].info, "depth 2, \"quoted\"");
        assert_eq!(index.rows(&path, "G0001").unwrap().expect("found").len(), 1);
        assert!(index.rows(&path, "G0003").unwrap().is_none());
        assert!(index.rows(&path, "G000").unwrap().is_none());
        writeln!(file, ",5,false,,,,,,,").unwrap();
        assert_eq!(index.rows(&path, "G0003").unwrap().expect("now").len(), 1);
        // Replaced by another file: found again in the new one.
        let other = dir.path().join("new.csv");
        std::fs::write(
            &other,
            format!("{HEADER}{}", row("G0009", 1, "X", "a1", "")),
        )
        .unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert!(index.rows(&path, "G0002").unwrap().is_none());
        assert!(index.rows(&path, "G0009").unwrap().is_some());
    }

    #[test]
    fn an_old_game_is_found_across_many_pieces_and_memory_stays_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("moves.csv");
        let mut text = String::from(HEADER);
        let games = 3000;
        for g in 0..games {
            for ply in 1..=40 {
                text.push_str(&row(
                    &format!("G{g:05}"),
                    ply,
                    "X",
                    "e5",
                    "a note of some length",
                ));
            }
        }
        std::fs::write(&path, &text).unwrap();
        assert!(text.len() > 20 * PIECE, "{} bytes", text.len());
        let mut index = MovesIndex::default();
        for g in [0, 1, 1499, games - 1] {
            let rows = index
                .rows(&path, &format!("G{g:05}"))
                .unwrap()
                .expect("found");
            assert_eq!(rows.len(), 40, "G{g:05}");
            assert_eq!(rows[39].ply, 40);
        }
        for g in 0..2 * REMEMBERED {
            index
                .rows(&path, &format!("G{:05}", games - 1 - g))
                .unwrap();
        }
        assert_eq!(index.found.len(), REMEMBERED);
    }
}
