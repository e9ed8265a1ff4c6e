//! Where each finished game's rows are in `moves.csv`, so that the live page can
//! open any game of a directory of 100,000 (a `moves.csv` of some 270 MB) by
//! reading a few kilobytes, not the whole file per click.
//!
//! The index grows with the file: each update reads only the bytes appended since
//! the last one, up to the end of the last complete line (a row being written is
//! left for the next update). A file that shrank was replaced, and is indexed
//! again from its start. The rows themselves are read by the store's parser
//! ([`parse_move_lines`]), the one reader of `moves.csv`.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead as _, BufReader, Read as _, Seek as _, SeekFrom};
use std::ops::Range;
use std::os::unix::fs::FileExt as _;
use std::path::Path;

use super::nofollow::{Access, open};
use super::store::{MoveRow, parse_move_lines};

/// How far back from the end of the file a complete line is looked for.
const TAIL: u64 = 64 * 1024;

/// The byte ranges of each game's rows in one `moves.csv`.
#[derive(Debug, Default)]
pub struct MovesIndex {
    /// The header line, as written.
    header: Vec<u8>,
    /// Bytes indexed so far, always the end of a complete line.
    scanned: u64,
    /// Per game, its rows' ranges (one, unless two writers interleaved).
    games: HashMap<String, Vec<Range<u64>>>,
}

impl MovesIndex {
    /// Indexes what was appended to `path` since the last update. A missing file
    /// is an empty index.
    ///
    /// # Errors
    /// The file exists but cannot be read.
    pub fn update(&mut self, path: &Path) -> std::io::Result<()> {
        let mut file = match open(path, Access::Read) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                *self = MovesIndex::default();
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        let len = file.metadata()?.len();
        if len < self.scanned {
            *self = MovesIndex::default();
        }
        if self.header.is_empty() {
            let mut reader = BufReader::new(&file);
            let mut header = Vec::new();
            reader.read_until(b'\n', &mut header)?;
            if !header.ends_with(b"\n") {
                return Ok(()); // not even the header is complete yet
            }
            self.scanned = header.len() as u64;
            self.header = header;
        }
        let end = complete_end(&file, self.scanned, len)?;
        if end <= self.scanned {
            return Ok(());
        }
        file.seek(SeekFrom::Start(self.scanned))?;
        let base = self.scanned;
        let mut csv = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(BufReader::new((&mut file).take(end - base)));
        let mut record = csv::ByteRecord::new();
        loop {
            let start = base + csv.position().byte();
            match csv.read_byte_record(&mut record) {
                Ok(true) => {}
                // A line the parser refuses stops the index there; the store's
                // reader says what is wrong with it when that game is opened.
                Ok(false) | Err(_) => break,
            }
            let stop = base + csv.position().byte();
            let id = String::from_utf8_lossy(record.get(0).unwrap_or_default()).into_owned();
            let ranges = self.games.entry(id).or_default();
            match ranges.last_mut() {
                Some(last) if last.end == start => last.end = stop,
                _ => ranges.push(start..stop),
            }
            self.scanned = stop;
        }
        Ok(())
    }

    /// The rows of game `id`, or `None` when the index has none.
    ///
    /// # Errors
    /// The file cannot be read, or a row is not valid.
    pub fn rows(&self, path: &Path, id: &str) -> anyhow::Result<Option<Vec<MoveRow>>> {
        let Some(ranges) = self.games.get(id) else {
            return Ok(None);
        };
        let file = open(path, Access::Read)?;
        let mut lines = Vec::new();
        for range in ranges {
            let mut part = vec![0; usize::try_from(range.end - range.start)?];
            file.read_exact_at(&mut part, range.start)?;
            lines.extend_from_slice(&part);
        }
        let rows = parse_move_lines(path, &self.header, &lines)?;
        Ok(Some(rows.into_iter().filter(|r| r.game == id).collect()))
    }

    /// How many games are indexed.
    pub fn len(&self) -> usize {
        self.games.len()
    }

    /// Whether no game is indexed.
    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }
}

/// The end of the last complete line of `file` between `from` and `len`, or `from`
/// when there is none in the last [`TAIL`] bytes.
fn complete_end(file: &File, from: u64, len: u64) -> std::io::Result<u64> {
    let start = from.max(len.saturating_sub(TAIL));
    let mut tail = vec![0; usize::try_from(len - start).unwrap_or(0)];
    file.read_exact_at(&mut tail, start)?;
    Ok(tail
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(from, |i| start + i as u64 + 1))
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
    fn games_are_found_as_the_file_grows_and_a_torn_line_waits() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("moves.csv");
        let mut index = MovesIndex::default();
        index.update(&path).unwrap();
        assert!(index.is_empty());
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
        // Half a row of the next game: not indexed until its line is complete.
        write!(file, "G0003,1,X,b,e5,5").unwrap();
        index.update(&path).unwrap();
        assert_eq!(index.len(), 2);
        let g2 = index.rows(&path, "G0002").unwrap().expect("indexed");
        assert_eq!(g2.len(), 2);
        assert_eq!(g2[1].info, "depth 2, \"quoted\"");
        assert_eq!(
            index.rows(&path, "G0001").unwrap().expect("indexed").len(),
            1
        );
        assert!(index.rows(&path, "G0003").unwrap().is_none());
        writeln!(file, ",5,false,,,,,,,").unwrap();
        index.update(&path).unwrap();
        assert_eq!(index.rows(&path, "G0003").unwrap().expect("now").len(), 1);
        // Replaced by a shorter file: indexed again from the start.
        std::fs::write(&path, format!("{HEADER}{}", row("G0009", 1, "X", "a1", ""))).unwrap();
        index.update(&path).unwrap();
        assert_eq!(index.len(), 1);
        assert!(index.rows(&path, "G0009").unwrap().is_some());
    }
}
