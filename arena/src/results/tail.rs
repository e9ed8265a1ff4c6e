//! A results file read as it grows: each look reads only the bytes appended since
//! the last one, up to the end of the last complete line (a row being written is
//! left for the next look), a bounded piece at a time. A file that shrank or is
//! another file now (a new inode) was replaced: the reader says so and starts
//! again from its top.
//!
//! `arena serve` follows `games.csv` this way, so a page on a run of a million
//! games costs per look what the run appended since, not what it holds.

use std::io::{BufRead as _, BufReader};
use std::os::unix::fs::{FileExt as _, MetadataExt as _};
use std::path::Path;

use super::nofollow::{Access, open};

/// What a look at the file found.
#[derive(Debug, PartialEq, Eq)]
pub enum Appended {
    /// Nothing new (or not even the header is complete yet).
    Nothing,
    /// Complete lines appended since the last look; `first_line` is the line (from
    /// 1, the header) of the first of them.
    Lines {
        /// The lines, each ending with a newline.
        bytes: Vec<u8>,
        /// The line number of the first.
        first_line: u64,
    },
    /// The file was replaced: what was read from it no longer holds; the next
    /// look reads the new one from its top.
    Replaced,
}

/// Where a reader of one growing file is.
#[derive(Debug, Default)]
pub struct Tail {
    /// The header line, as written (empty until it is complete).
    header: Vec<u8>,
    /// Bytes read so far, always the end of a complete line.
    read: u64,
    /// The line number of the next line.
    next_line: u64,
    /// The inode read, to tell a replaced file.
    inode: Option<u64>,
}

impl Tail {
    /// The header line, once read.
    pub fn header(&self) -> &[u8] {
        &self.header
    }

    /// Bytes read so far.
    pub fn position(&self) -> u64 {
        self.read
    }

    /// At most about `limit` bytes of complete lines appended to `path` since the
    /// last look (a single longer line is read whole). A missing file is nothing
    /// yet, or, if one was being read, a replaced one.
    ///
    /// # Errors
    /// The file exists but cannot be read.
    pub fn next(&mut self, path: &Path, limit: usize) -> std::io::Result<Appended> {
        let file = match open(path, Access::Read) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(self.restart_if(self.inode.is_some()));
            }
            Err(e) => return Err(e),
        };
        let meta = file.metadata()?;
        if self.inode.is_some_and(|i| i != meta.ino()) || meta.len() < self.read {
            return Ok(self.restart_if(true));
        }
        self.inode = Some(meta.ino());
        if self.header.is_empty() {
            let mut header = Vec::new();
            BufReader::new(&file).read_until(b'\n', &mut header)?;
            if !header.ends_with(b"\n") {
                return Ok(Appended::Nothing);
            }
            self.read = header.len() as u64;
            self.next_line = 2;
            self.header = header;
        }
        let mut want = limit.max(1);
        loop {
            let left = meta.len() - self.read;
            let size = usize::try_from(left).unwrap_or(usize::MAX).min(want);
            if size == 0 {
                return Ok(Appended::Nothing);
            }
            let mut bytes = vec![0; size];
            file.read_exact_at(&mut bytes, self.read)?;
            match bytes.iter().rposition(|&b| b == b'\n') {
                Some(end) => {
                    bytes.truncate(end + 1);
                    let first_line = self.next_line;
                    self.read += bytes.len() as u64;
                    self.next_line += bytes.iter().filter(|&&b| b == b'\n').count() as u64;
                    return Ok(Appended::Lines { bytes, first_line });
                }
                // A line longer than the piece: read a larger one.
                None if (size as u64) < left => want = want.saturating_mul(2),
                // Only a line being written: for the next look.
                None => return Ok(Appended::Nothing),
            }
        }
    }

    fn restart_if(&mut self, replaced: bool) -> Appended {
        *self = Tail::default();
        if replaced {
            Appended::Replaced
        } else {
            Appended::Nothing
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    fn lines(appended: Appended) -> (String, u64) {
        match appended {
            Appended::Lines { bytes, first_line } => {
                (String::from_utf8(bytes).unwrap(), first_line)
            }
            other => panic!("expected lines, got {other:?}"),
        }
    }

    #[test]
    fn only_appended_complete_lines_are_read_a_piece_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.csv");
        let mut tail = Tail::default();
        assert_eq!(tail.next(&path, 64).unwrap(), Appended::Nothing);
        std::fs::write(&path, "id,x").unwrap();
        assert_eq!(tail.next(&path, 64).unwrap(), Appended::Nothing);
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        write!(file, "\nG1,a\nG2,b\nG3,").unwrap();
        assert_eq!(tail.next(&path, 64).unwrap(), lines_of("G1,a\nG2,b\n", 2));
        assert_eq!(tail.header(), b"id,x\n");
        assert_eq!(tail.next(&path, 64).unwrap(), Appended::Nothing);
        write!(file, "c\nG4,d\nG5,e\n").unwrap();
        // Pieces of at most 6 bytes: one line per look.
        assert_eq!(lines(tail.next(&path, 6).unwrap()), ("G3,c\n".into(), 4));
        assert_eq!(lines(tail.next(&path, 6).unwrap()), ("G4,d\n".into(), 5));
        // A line longer than the piece is read whole.
        writeln!(file, "G6,a-long-line").unwrap();
        assert_eq!(lines(tail.next(&path, 3).unwrap()), ("G5,e\n".into(), 6));
        assert_eq!(
            lines(tail.next(&path, 3).unwrap()),
            ("G6,a-long-line\n".into(), 7)
        );
        assert_eq!(tail.position(), std::fs::metadata(&path).unwrap().len());
    }

    fn lines_of(text: &str, first_line: u64) -> Appended {
        Appended::Lines {
            bytes: text.as_bytes().to_vec(),
            first_line,
        }
    }

    #[test]
    fn a_replaced_file_is_said_and_read_again_from_its_top() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.csv");
        std::fs::write(&path, "id\nG1\nG2\n").unwrap();
        let mut tail = Tail::default();
        assert_eq!(
            lines(tail.next(&path, 1024).unwrap()),
            ("G1\nG2\n".into(), 2)
        );
        // Shorter: replaced.
        std::fs::write(&path, "id\nG9\n").unwrap();
        assert_eq!(tail.next(&path, 1024).unwrap(), Appended::Replaced);
        assert_eq!(lines(tail.next(&path, 1024).unwrap()), ("G9\n".into(), 2));
        // Another file as long or longer (written beside it, renamed over it).
        let other = dir.path().join("new.csv");
        std::fs::write(&other, "id\nG7\nG8\n").unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert_eq!(tail.next(&path, 1024).unwrap(), Appended::Replaced);
        assert_eq!(
            lines(tail.next(&path, 1024).unwrap()),
            ("G7\nG8\n".into(), 2)
        );
        std::fs::remove_file(&path).unwrap();
        assert_eq!(tail.next(&path, 1024).unwrap(), Appended::Replaced);
        assert_eq!(tail.next(&path, 1024).unwrap(), Appended::Nothing);
    }
}
