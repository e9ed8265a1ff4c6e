//! The table of a Swiss (`swiss.csv`) or the bracket of a knockout
//! (`knockout.csv`), written beside the games after each round and read back by
//! the report: one writer and one reader per file. What the rows hold is decided
//! by `crate::tournament::draw`; this module only stores them. Names are
//! written as the other files write text cells (`ratings::spreadsheet`): a
//! spreadsheet never runs one as a formula.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::atomic::write_atomic;

/// The Swiss table's file.
pub const SWISS_FILE: &str = "swiss.csv";
/// The knockout bracket's file.
pub const KNOCKOUT_FILE: &str = "knockout.csv";
/// How knockout.csv's `decided_by` says that neither bot of a match could be
/// started (nobody goes through).
pub const NO_SHOW: &str = "no-show";

/// A bot's line in the final Swiss table, best first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SwissRow {
    /// 1 for the winner.
    pub rank: usize,
    /// The bot.
    #[serde(
        serialize_with = "ratings::spreadsheet::serialize",
        deserialize_with = "ratings::spreadsheet::deserialize"
    )]
    pub bot: String,
    /// Points (a win 1, a draw 0.5), byes included.
    pub points: f64,
    /// The sum of its opponents' points.
    pub buchholz: f64,
    /// The sum over its games of the opponent's points times the points taken.
    pub sonneborn_berger: f64,
    /// Byes it had.
    pub byes: u32,
}

/// One line of a knockout bracket: a match, or a bye.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KnockoutRow {
    /// The round, 1 first.
    pub round: u32,
    /// The higher seed (or the bot with the bye).
    #[serde(
        serialize_with = "ratings::spreadsheet::serialize",
        deserialize_with = "ratings::spreadsheet::deserialize"
    )]
    pub a: String,
    /// The other bot; empty for a bye.
    #[serde(
        serialize_with = "ratings::spreadsheet::serialize",
        deserialize_with = "ratings::spreadsheet::deserialize"
    )]
    pub b: String,
    /// a's points in the match (none for a bye).
    pub a_points: Option<f64>,
    /// b's points.
    pub b_points: Option<f64>,
    /// Who goes through; empty while the match is in play.
    #[serde(
        serialize_with = "ratings::spreadsheet::serialize",
        deserialize_with = "ratings::spreadsheet::deserialize"
    )]
    pub winner: String,
    /// `games`, `seed` (still tied after the tie-break pairs), `bye`, or empty.
    pub decided_by: String,
}

/// The table of a Swiss or the bracket of a knockout.
#[derive(Clone, Debug, PartialEq)]
pub enum EventTable {
    /// A Swiss's standings.
    Swiss(Vec<SwissRow>),
    /// A knockout's matches and byes, round by round.
    Knockout(Vec<KnockoutRow>),
}

/// Writes `table` into `dir` (whole, atomically).
///
/// # Errors
/// The file cannot be written.
pub fn write(dir: &Path, table: &EventTable) -> anyhow::Result<()> {
    let mut csv = csv::Writer::from_writer(Vec::new());
    let file = match table {
        EventTable::Swiss(rows) => {
            for row in rows {
                csv.serialize(row)?;
            }
            SWISS_FILE
        }
        EventTable::Knockout(rows) => {
            for row in rows {
                csv.serialize(row)?;
            }
            KNOCKOUT_FILE
        }
    };
    let bytes = csv.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
    write_atomic(&dir.join(file), &bytes)
}

/// The event table in `dir`, if there is one.
///
/// # Errors
/// The file cannot be read or has a bad row (named with its line).
pub fn read(dir: &Path) -> anyhow::Result<Option<EventTable>> {
    fn rows<T: for<'de> Deserialize<'de>>(path: &Path) -> anyhow::Result<Vec<T>> {
        let bytes = super::nofollow::read(path)
            .map_err(|e| anyhow::anyhow!("reading {}: {e}", path.display()))?;
        let mut reader = csv::Reader::from_reader(bytes.as_slice());
        reader
            .deserialize()
            .enumerate()
            .map(|(i, row)| row.map_err(|e| anyhow::anyhow!("{}:{}: {e}", path.display(), i + 2)))
            .collect()
    }
    let swiss = dir.join(SWISS_FILE);
    // A name that is there is read (and refused if it is a link), never skipped.
    if swiss.symlink_metadata().is_ok() {
        return Ok(Some(EventTable::Swiss(rows(&swiss)?)));
    }
    let knockout = dir.join(KNOCKOUT_FILE);
    if knockout.symlink_metadata().is_ok() {
        return Ok(Some(EventTable::Knockout(rows(&knockout)?)));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_written_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path()).unwrap(), None);
        let table = EventTable::Knockout(vec![
            KnockoutRow {
                round: 1,
                a: "ann".into(),
                b: String::new(),
                a_points: None,
                b_points: None,
                winner: "ann".into(),
                decided_by: "bye".into(),
            },
            KnockoutRow {
                round: 1,
                a: "-A1".into(),
                b: "cy".into(),
                a_points: Some(1.5),
                b_points: Some(0.5),
                winner: "-A1".into(),
                decided_by: "games".into(),
            },
        ]);
        write(dir.path(), &table).unwrap();
        assert_eq!(read(dir.path()).unwrap(), Some(table));
        let text = std::fs::read_to_string(dir.path().join(KNOCKOUT_FILE)).unwrap();
        assert!(
            text.starts_with("round,a,b,a_points,b_points,winner,decided_by\n1,ann,,,,ann,bye\n"),
            "{text}"
        );
    }
}
