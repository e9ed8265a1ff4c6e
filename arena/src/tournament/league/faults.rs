//! Why a version lost games by its own doing, as its author can use it: the
//! games it lost by a fault (a crash, a timeout, an illegal or malformed move…)
//! grouped by reason, each group said once with its count and its first game's
//! facts, read back from that game's failure bundle (`failures/<id>/`): what
//! the bot did (`results::bundle::FaultFacts`: the time it was charged against
//! the time it had, the square it played), the moves up to there and the end of
//! its stderr. Every path in them is shown relative to the student's folder
//! ([`relative_to`]): `bot.py`, never the copy the arena ran.
//!
//! Only facts here; the words are `conformance::feedback`'s (a student's
//! feedback) and the command's (the terminal's one line per group).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use uttt::notation::parse_move_list;
use uttt::result::EndReason;
use uttt::rules::{Mark, Rules, Square};

use crate::results::bundle::{self, FAILURES_DIR, FaultFacts};
use crate::results::nofollow;
use crate::results::store::{GameMeta, GameRow};

/// The last lines of a bot's stderr kept with an example (a Python traceback
/// of a crash is about six).
pub const STDERR_LINES: usize = 12;

/// The games a version lost by one kind of fault.
#[derive(Clone, Debug, PartialEq)]
pub struct FaultGroup {
    /// Why they ended.
    pub reason: EndReason,
    /// How many.
    pub games: u32,
    /// The first of them.
    pub example: Example,
}

/// One game a version lost by its own doing, as its bundle tells it.
#[derive(Clone, Debug, PartialEq)]
pub struct Example {
    /// The game's id.
    pub game: String,
    /// The version's seat.
    pub mark: Mark,
    /// Its opponent.
    pub opponent: String,
    /// The rules played.
    pub rules: Rules,
    /// `games.csv`'s words for the ending, paths relative.
    pub detail: String,
    /// What the bot did (`None` for a bundle written before facts were kept,
    /// or none written).
    pub facts: Option<FaultFacts>,
    /// Every move played before it went wrong, opening included.
    pub moves: Vec<Square>,
    /// The opening's plies (nobody's moves).
    pub opening: usize,
    /// The end of its stderr during that game, paths relative.
    pub stderr: Vec<String>,
}

impl Example {
    /// The moves the version made in the game before it went wrong (0: it went
    /// wrong on its first).
    pub fn own_moves(&self) -> usize {
        self.moves
            .iter()
            .enumerate()
            .skip(self.opening)
            .filter(|(ply, _)| Mark::ALL[ply % 2] == self.mark)
            .count()
    }
}

/// `text` with the student's `folders` (the copy it ran from, its own folder)
/// left out of its paths: `bot.py`, not `/tmp/…/builds/eve/bot.py`; the
/// longest folder first, so a copy inside another is taken whole.
pub fn relative_to(text: &str, folders: &[PathBuf]) -> String {
    let mut folders: Vec<String> = folders
        .iter()
        .map(|f| f.display().to_string())
        .filter(|f| !f.is_empty() && f != "/")
        .collect();
    folders.sort_by_key(|f| std::cmp::Reverse(f.len()));
    let mut text = text.to_string();
    for shown in &folders {
        text = text.replace(&format!("{shown}/"), "").replace(shown, ".");
    }
    text
}

/// The games `name`'s `version` lost by its own doing in `rows`, grouped by
/// reason (the most frequent first), each with its first game's (by number) facts from
/// the bundles of `dir`; paths relative to `folders`.
pub fn of_version(
    dir: &Path,
    name: &str,
    version: &str,
    rows: &[GameRow],
    folders: &[PathBuf],
) -> Vec<FaultGroup> {
    let mut groups: BTreeMap<EndReason, (u32, &GameRow, Mark)> = BTreeMap::new();
    // By game number, not as they finished: the example is the same game
    // whatever order concurrent games finished in.
    for row in by_number(rows) {
        let Some(mark) = row.seat_of(name) else {
            continue;
        };
        let mine = match mark {
            Mark::X => &row.x_version,
            Mark::O => &row.o_version,
        };
        if mine != version || row.loser() != Some(mark) || !bundle::is_failure(row.reason) {
            continue;
        }
        groups
            .entry(row.reason)
            .and_modify(|(n, _, _)| *n += 1)
            .or_insert((1, row, mark));
    }
    let mut out: Vec<FaultGroup> = groups
        .into_iter()
        .map(|(reason, (games, row, mark))| FaultGroup {
            reason,
            games,
            example: example(dir, row, mark, folders),
        })
        .collect();
    out.sort_by_key(|g| std::cmp::Reverse(g.games));
    out
}

/// `rows` in the order of their game numbers.
pub fn by_number(rows: &[GameRow]) -> Vec<&GameRow> {
    let mut ordered: Vec<&GameRow> = rows.iter().collect();
    ordered.sort_by_key(|r| GameMeta::number_of(&r.id).unwrap_or(u64::MAX));
    ordered
}

/// The example of `row`, lost by the bot at `mark`, from its bundle when there
/// is one.
fn example(dir: &Path, row: &GameRow, mark: Mark, folders: &[PathBuf]) -> Example {
    let folder = dir.join(FAILURES_DIR).join(&row.id);
    let info = bundle::load(&folder).ok();
    let mut example = Example {
        game: row.id.clone(),
        mark,
        opponent: row.bot(!mark).to_string(),
        rules: row.rules,
        detail: relative_to(&row.detail, folders),
        facts: None,
        moves: row.opening.clone(),
        opening: row.opening.len(),
        stderr: Vec::new(),
    };
    let Some(info) = info else {
        return example;
    };
    example.facts = info.fault.clone();
    example.moves = parse_move_list(&info.moves).unwrap_or_default();
    let seat = mark.to_string();
    let stderr = info
        .bots
        .iter()
        .find(|b| b.mark == seat)
        .and_then(|b| b.stderr_file.as_ref())
        // The file name is the bundle's own: one component, never a path.
        .filter(|f| Path::new(f).components().count() == 1)
        .and_then(|f| nofollow::read(&folder.join(f)).ok())
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default();
    let lines: Vec<&str> = stderr.lines().collect();
    example.stderr = lines[lines.len().saturating_sub(STDERR_LINES)..]
        .iter()
        .map(|l| relative_to(l, folders))
        .collect();
    example
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copys_path_and_the_students_folder_are_left_out_of_the_words() {
        let folders = [
            PathBuf::from("/srv/class/students/cy"),
            PathBuf::from("/tmp/season/builds/cy"),
        ];
        assert_eq!(
            relative_to(
                "File \"/tmp/season/builds/cy/bot.py\", line 3 (in /srv/class/students/cy)",
                &folders
            ),
            "File \"bot.py\", line 3 (in .)"
        );
    }
}
