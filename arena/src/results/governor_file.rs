//! What the governor did (`tournament::governor`): its counts for
//! summary.json ([`GovernorReport`]), and `governor.json` in the results
//! directory, what it is doing now, which the live page shows
//! ([`GovernorStatus`]). Written here, the layer below, and filled in above.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// The file the live page reads.
pub const GOVERNOR_FILE: &str = "governor.json";

/// What the governor did over a run, for summary.json.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct GovernorReport {
    /// `on` or `off`.
    pub mode: String,
    /// Whether it acted (on, with a timed bot).
    pub active: bool,
    /// Whether timed bots ran at a raised priority.
    pub priority_raised: bool,
    /// Games at once asked for.
    pub concurrency_asked: usize,
    /// The fewest games at once it played.
    pub concurrency_lowest: usize,
    /// Times a game waited for the machine.
    pub waits: u32,
    /// Seconds spent waiting for the machine.
    pub waited_s: f64,
    /// Games played again for an under-served timed bot.
    pub replays: u32,
    /// Games kept although a timed bot was under-served after the replays.
    pub kept_under_served: u32,
}

/// What the governor is doing now, for the live page.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GovernorStatus {
    /// Games at once now.
    pub concurrency: usize,
    /// Games at once asked for.
    pub asked: usize,
    /// Whether the next game is waiting for the machine.
    pub waiting: bool,
    /// The last thing it did, in words.
    pub last: String,
}

impl GovernorStatus {
    /// Writes it as `dir`'s `governor.json` (atomically; best effort: the
    /// live page is a view, never a reason to stop a run).
    pub fn write(&self, dir: &Path) {
        if let Ok(json) = serde_json::to_vec_pretty(self) {
            let _ = super::atomic::write_atomic(&dir.join(GOVERNOR_FILE), &json);
        }
    }

    /// `dir`'s `governor.json`, if the run wrote one that reads (its first
    /// 64 KiB: a file from elsewhere is not read whole).
    pub fn read(dir: &Path) -> Option<GovernorStatus> {
        let (bytes, before) =
            super::nofollow::read_tail_in(dir, Path::new(GOVERNOR_FILE), 64 * 1024).ok()?;
        (before == 0).then(|| serde_json::from_slice(&bytes).ok())?
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_reads_back_and_a_file_too_large_or_broken_is_none() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(GovernorStatus::read(dir.path()), None, "no file");
        let status = GovernorStatus {
            concurrency: 1,
            asked: 2,
            waiting: true,
            last: "other programs keep the CPUs busy".into(),
        };
        status.write(dir.path());
        assert_eq!(GovernorStatus::read(dir.path()), Some(status));
        std::fs::write(dir.path().join(GOVERNOR_FILE), "{").unwrap();
        assert_eq!(GovernorStatus::read(dir.path()), None, "broken");
        std::fs::write(dir.path().join(GOVERNOR_FILE), vec![b' '; 70 * 1024]).unwrap();
        assert_eq!(GovernorStatus::read(dir.path()), None, "too large");
    }
}
