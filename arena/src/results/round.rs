//! `round.json`: the round of a Swiss or knockout being played (its number, how
//! many rounds the event has, its pairings and byes), written as each round is
//! drawn, so that a live page can say "Round 3 of 5" and show who plays whom
//! before their games start. The draw decides it (`crate::tournament::draw`);
//! this module only stores it, and the page reads it back.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::atomic::write_atomic;

/// The file, in the results directory.
pub const ROUND_FILE: &str = "round.json";

/// The round being played.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CurrentRound {
    /// 1 for the first round.
    pub number: u32,
    /// The rounds of the event (a Swiss's; a knockout's from its bracket size).
    pub of: u32,
    /// Who plays whom: the higher-ranked (or higher-seeded) bot first.
    pub pairs: Vec<(String, String)>,
    /// The bots that sit this round out.
    pub byes: Vec<String>,
}

/// Writes `round` into `dir`, whole.
///
/// # Errors
/// The file cannot be written.
pub fn write(dir: &Path, round: &CurrentRound) -> anyhow::Result<()> {
    write_atomic(&dir.join(ROUND_FILE), &serde_json::to_vec_pretty(round)?)
}

/// The round in `dir`, if a Swiss or knockout wrote one.
///
/// # Errors
/// The file cannot be read (a link is refused) or is not the JSON written here.
pub fn read(dir: &Path) -> anyhow::Result<Option<CurrentRound>> {
    let path = dir.join(ROUND_FILE);
    if path.symlink_metadata().is_err() {
        return Ok(None);
    }
    let bytes = super::nofollow::read(&path)
        .map_err(|e| anyhow::anyhow!("reading {}: {e}", path.display()))?;
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_written_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path()).unwrap(), None);
        let round = CurrentRound {
            number: 2,
            of: 3,
            pairs: vec![("ann".into(), "<b>cy</b>".into())],
            byes: vec!["bo".into()],
        };
        write(dir.path(), &round).unwrap();
        assert_eq!(read(dir.path()).unwrap(), Some(round));
        std::fs::write(dir.path().join(ROUND_FILE), "{").unwrap();
        assert!(
            read(dir.path())
                .unwrap_err()
                .to_string()
                .contains(ROUND_FILE)
        );
    }
}
