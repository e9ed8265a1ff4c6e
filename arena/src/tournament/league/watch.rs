//! When `arena league --watch` plays again: only on a change. What is compared
//! from one look to the next ([`Looked`]) is the league file's contents and a
//! stamp of every submission's folder (a folder that appears, goes or changes;
//! a failed build's folder too, so it is built again when the student changes
//! it, and only then). A run that could not start is tried again only after a
//! change since it; a file that does not load is said once, and again when it
//! loads. The command looks every `--poll-seconds` and says what [`Watch::look`]
//! returns.

use std::collections::BTreeMap;
use std::path::Path;

/// The league file's contents, hashed (`None` when it cannot be read): a file
/// saved with new settings is a reason to play again.
pub fn file_stamp(path: &Path) -> Option<u64> {
    use std::hash::{Hash as _, Hasher as _};
    let bytes = std::fs::read(path).ok()?;
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut hasher);
    Some(hasher.finish())
}

/// What one look saw: the league file and the entrants' folders.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Looked {
    /// The file's contents ([`file_stamp`]).
    pub file: Option<u64>,
    /// Each entrant's stamp (`versions::stamps`); `None` when the file does
    /// not load.
    pub versions: Option<BTreeMap<String, String>>,
}

/// What a look asks the command to do or say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The file does not load (said once per error): the words of the error.
    Broken(String),
    /// The file loads again after it did not.
    LoadsAgain,
    /// Something changed since the last run: play again.
    Changed,
}

/// The watch's memory: what the last run that played saw, what a run that
/// could not start left, and the error last said.
#[derive(Debug)]
pub struct Watch {
    played: Looked,
    failed: Option<Looked>,
    said: Option<String>,
}

impl Watch {
    /// A watch after a run that saw `played`.
    pub fn new(played: Looked) -> Watch {
        Watch {
            played,
            failed: None,
            said: None,
        }
    }

    /// A run that saw `looked` (before it copied the folders) played.
    pub fn played(&mut self, looked: Looked) {
        self.played = looked;
        self.failed = None;
    }

    /// A run could not start; `looked` is what it left.
    pub fn failed(&mut self, looked: Looked) {
        self.failed = Some(looked);
    }

    /// One look: `file` the file's stamp now, `versions` the entrants'
    /// stamps or why the file does not load. The events, in order.
    pub fn look(
        &mut self,
        file: Option<u64>,
        versions: Result<BTreeMap<String, String>, String>,
    ) -> Vec<Event> {
        let mut events = Vec::new();
        match versions {
            Err(words) => {
                if self.said.as_ref() != Some(&words) {
                    events.push(Event::Broken(words.clone()));
                    self.said = Some(words);
                }
            }
            Ok(versions) => {
                if self.said.take().is_some() {
                    events.push(Event::LoadsAgain);
                }
                let now = Looked {
                    file,
                    versions: Some(versions),
                };
                if now != self.played && self.failed.as_ref().is_none_or(|f| &now != f) {
                    events.push(Event::Changed);
                }
            }
        }
        events
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamps(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    fn looked(pairs: &[(&str, &str)]) -> Looked {
        Looked {
            file: Some(1),
            versions: Some(stamps(pairs)),
        }
    }

    #[test]
    fn nothing_changed_is_nothing_to_do_however_often_it_looks() {
        let mut watch = Watch::new(looked(&[("ada", "a1"), ("eve", "broken")]));
        for _ in 0..5 {
            assert!(
                watch
                    .look(Some(1), Ok(stamps(&[("ada", "a1"), ("eve", "broken")])))
                    .is_empty()
            );
        }
        // The failed build's folder changes: play (and build) again.
        assert_eq!(
            watch.look(Some(1), Ok(stamps(&[("ada", "a1"), ("eve", "fixed")]))),
            [Event::Changed]
        );
        // So does the file.
        assert_eq!(
            watch.look(Some(2), Ok(stamps(&[("ada", "a1"), ("eve", "broken")]))),
            [Event::Changed]
        );
    }

    #[test]
    fn a_broken_file_is_said_once_and_its_fix_once() {
        let mut watch = Watch::new(looked(&[("ada", "a1")]));
        let broken = || Err("league.toml:2: invalid type".to_string());
        assert_eq!(
            watch.look(Some(3), broken()),
            [Event::Broken("league.toml:2: invalid type".into())]
        );
        assert!(watch.look(Some(3), broken()).is_empty());
        // Fixed back to what played: it loads again, and nothing changed.
        assert_eq!(
            watch.look(Some(1), Ok(stamps(&[("ada", "a1")]))),
            [Event::LoadsAgain]
        );
    }

    #[test]
    fn a_run_that_could_not_start_is_tried_again_only_after_a_change() {
        let mut watch = Watch::new(looked(&[("ada", "a1")]));
        watch.failed(looked(&[("ada", "a2")]));
        assert!(watch.look(Some(1), Ok(stamps(&[("ada", "a2")]))).is_empty());
        assert_eq!(
            watch.look(Some(1), Ok(stamps(&[("ada", "a3")]))),
            [Event::Changed]
        );
    }
}
