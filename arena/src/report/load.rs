//! Reading a results directory for the report: `games.csv` (required), `moves.csv`,
//! `tournament.json`, `logs/*.stderr.log`, `transcripts/*.txt` and a league's
//! grades and similarity files (all optional:
//! `arena ratings --out` writes no moves, a match writes no transcripts when nothing
//! went wrong). Whatever is missing or unreadable among the optional files becomes a
//! warning shown in the report, never a failure: the standings are still worth seeing.
//! Every file is read without following links ([`nofollow`]): a log or transcript
//! that is a link is left out with a warning, a `games.csv` that is one is refused.

use std::collections::BTreeMap;
use std::path::Path;

use super::compact;
use super::replayed::{Replayed, replay_file};
use crate::results::event::{self, EventTable};
use crate::results::logs::LOGS_DIR;
use crate::results::manifest::{MANIFEST_FILE, Manifest};
use crate::results::nofollow;
use crate::results::store::{GAMES_FILE, GameRow, MOVES_FILE, TRANSCRIPTS_DIR, read_games};

/// The most of each log or transcript kept in the report: its tail, since the end is
/// where a crash leaves its last words.
pub const TEXT_TAIL_BYTES: usize = 8 * 1024;

/// Transcripts stop being embedded once they add up to this much, so a tournament
/// with thousands of faults still gives a page a browser opens quickly.
pub const TRANSCRIPTS_BUDGET_BYTES: usize = 2 * 1024 * 1024;

/// Everything the report shows, as read from disk.
#[derive(Debug, Default)]
pub struct Results {
    /// Finished games, sorted by id.
    pub games: Vec<GameRow>,
    /// Each game's marks replayed and kept compact, by game id (no entry: none in
    /// moves.csv).
    pub replays: BTreeMap<String, Replayed>,
    /// Whether moves.csv had any row.
    pub has_moves: bool,
    /// Whether each mark's think time and info are kept: not past
    /// [`compact::DETAILS_BUDGET`] marks, counted from games.csv.
    pub details: bool,
    /// The manifest, when there is a readable one.
    pub manifest: Option<Manifest>,
    /// Each bot's stderr log (its tail), by bot name.
    pub logs: BTreeMap<String, Tail>,
    /// The protocol transcripts of abnormal games (their tails), by game id.
    pub transcripts: BTreeMap<String, Tail>,
    /// A Swiss's table or a knockout's bracket, when the run was one.
    pub event: Option<EventTable>,
    /// A league's grades, history and similarity (`arena league`'s directory).
    pub league: Option<crate::results::league::League>,
    /// The games a bot's fault ended, with their bundles and repro commands.
    pub failures: Vec<crate::results::bundle::Failure>,
    /// What could not be read, in words, for the reader of the report.
    pub warnings: Vec<String>,
}

/// The end of a text file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tail {
    /// The text (invalid UTF-8 replaced).
    pub text: String,
    /// Bytes cut from the start, 0 when the whole file is here.
    pub cut: usize,
}

impl Tail {
    /// The last `max` bytes of `bytes`, starting at a line boundary when one is near.
    pub fn of(bytes: &[u8], max: usize) -> Tail {
        if bytes.len() <= max {
            return Tail {
                text: String::from_utf8_lossy(bytes).into_owned(),
                cut: 0,
            };
        }
        let mut start = bytes.len() - max;
        if let Some(nl) = bytes[start..].iter().position(|&b| b == b'\n')
            && nl < max / 4
        {
            start += nl + 1;
        }
        Tail {
            text: String::from_utf8_lossy(&bytes[start..]).into_owned(),
            cut: start,
        }
    }
}

/// Reads a results directory.
///
/// # Errors
/// `games.csv` is missing or has a bad row, or `moves.csv` has a bad row (named with
/// its line).
pub fn load(dir: &Path) -> anyhow::Result<Results> {
    let games_path = dir.join(GAMES_FILE);
    // Any name there is read (a link is refused by the reader, not taken for none).
    if games_path.symlink_metadata().is_err() {
        anyhow::bail!(
            "{} has no {GAMES_FILE}: give a results directory written by `arena tournament`, \
             `arena match --out`, `arena sprt --out` or `arena gauntlet --out`",
            dir.display()
        );
    }
    let mut games = read_games(&games_path)?;
    games.sort_by(|a, b| a.id.cmp(&b.id));
    let mut results = Results {
        games,
        ..Results::default()
    };

    let marks: u64 = results.games.iter().map(|g| u64::from(g.plies)).sum();
    results.details = marks <= compact::DETAILS_BUDGET as u64;
    let moves_path = dir.join(MOVES_FILE);
    if moves_path.symlink_metadata().is_ok() {
        (results.replays, results.has_moves) =
            replay_file(&moves_path, &results.games, results.details)?;
    } else {
        results
            .warnings
            .push(format!("no {MOVES_FILE}: the games cannot be replayed"));
    }

    match Manifest::load(dir) {
        Ok(Some(manifest)) => results.manifest = Some(manifest),
        Ok(None) => results.warnings.push(format!(
            "no {MANIFEST_FILE}: the seed and the configuration are unknown"
        )),
        Err(e) => results.warnings.push(format!("{e:#}")),
    }

    match event::read(dir) {
        Ok(table) => results.event = table,
        Err(e) => results.warnings.push(format!("{e:#}")),
    }

    match crate::results::league::read(dir) {
        Ok(league) => results.league = league,
        Err(e) => results.warnings.push(format!("{e:#}")),
    }

    results.logs = read_tails(
        dir,
        LOGS_DIR,
        ".stderr.log",
        usize::MAX,
        &mut results.warnings,
    );
    let played: std::collections::HashSet<&str> =
        results.games.iter().map(|g| g.id.as_str()).collect();
    let mut transcripts = read_tails(
        dir,
        TRANSCRIPTS_DIR,
        ".txt",
        TRANSCRIPTS_BUDGET_BYTES,
        &mut results.warnings,
    );
    transcripts.retain(|id, _| played.contains(id.as_str()));
    results.transcripts = transcripts;
    results.failures = crate::results::bundle::failures(dir, &results.games);
    Ok(results)
}

/// The tails of the files `*<suffix>` in the folder `folder` of `dir`, keyed by the
/// name before the suffix, until `budget` bytes of text are taken. A missing folder
/// is empty; a file (or the folder) that is a link is left out, with a warning.
fn read_tails(
    dir: &Path,
    folder: &str,
    suffix: &str,
    budget: usize,
    warnings: &mut Vec<String>,
) -> BTreeMap<String, Tail> {
    let mut tails = BTreeMap::new();
    let names = match nofollow::list_in(dir, Path::new(folder)) {
        Ok(names) => names,
        Err(e) => {
            warnings.push(format!("{folder} not shown: {e}"));
            return tails;
        }
    };
    let mut used = 0usize;
    for name in names {
        if used >= budget {
            break;
        }
        let Some(key) = name.strip_suffix(suffix) else {
            continue;
        };
        let rel = Path::new(folder).join(&name);
        // A little more than is shown, so the cut can move to a line start.
        let max = (TEXT_TAIL_BYTES + TEXT_TAIL_BYTES / 4) as u64;
        match nofollow::read_tail_in(dir, &rel, max) {
            Ok((bytes, before)) => {
                let mut tail = Tail::of(&bytes, TEXT_TAIL_BYTES);
                tail.cut += usize::try_from(before).unwrap_or(usize::MAX);
                used += tail.text.len();
                tails.insert(key.to_string(), tail);
            }
            Err(e) => warnings.push(format!("{} not shown: {e}", rel.display())),
        }
    }
    tails
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tails_keep_the_end_from_a_line_start() {
        let text = "first line\nsecond line\nthird\n";
        assert_eq!(
            Tail::of(text.as_bytes(), 100),
            Tail {
                text: text.into(),
                cut: 0
            }
        );
        // A newline near the cut: start after it.
        let tail = Tail::of(text.as_bytes(), 20);
        assert_eq!(tail.text, "second line\nthird\n");
        assert_eq!(tail.cut, 11);
        // None near: cut mid-line rather than lose most of the budget.
        assert_eq!(Tail::of(text.as_bytes(), 17).text, "econd line\nthird\n");
        // Invalid UTF-8 is replaced, never an error.
        assert_eq!(Tail::of(b"ok \xff", 10).text, "ok \u{fffd}");
    }

    #[test]
    fn a_directory_without_games_is_refused_with_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let err = load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("has no games.csv"), "{err}");
        assert!(err.contains("arena tournament"), "{err}");
    }

    #[test]
    fn moves_are_replayed_per_game_in_ply_order_and_a_torn_line_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("games.csv"),
            "id,round,pair,x,o,opening,winner,winner_name,reason,detail,plies,boards_x,boards_o,rules,duration_ms,seed\n\
             G1,1,1,a,b,,X,a,crash,b crashed,2,0,0,standard,5,1\n\
             G2,1,2,b,a,,O,a,crash,b crashed,1,0,0,standard,5,2\n",
        )
        .unwrap();
        let path = dir.path().join("moves.csv");
        std::fs::write(
            &path,
            "game,ply,mark,bot,square,board,cell,free_move,think_ms,depth,score,nodes,info,claimed,drawn\n\
             G2,1,X,a,e5,5,5,true,1.5,,,,,,\n\
             G1,2,O,b,e4,5,2,false,0.5,3,0.25,99,pv e5; hi,,\n\
             G1,1,X,a,e5,5,5,true,,,,,,,\n\
             G9,1,X,a,e5,5,5,true,,,,,,,\n\
             G1,3,X,a,e",
        )
        .unwrap();
        let results = load(dir.path()).unwrap();
        assert!(results.has_moves && results.details);
        assert_eq!(results.replays.len(), 2, "G9 is not a finished game");
        let g1 = &results.replays["G1"];
        assert_eq!(g1.play.moves.len(), 2);
        assert_eq!(g1.problem, None, "{:?}", g1.problem);
        assert_eq!(results.replays["G2"].play.moves.len(), 1);
        std::fs::write(&path, "game,ply\nG1,zero\n").unwrap();
        let err = load(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("moves.csv:2: not a moves.csv row: column 'ply'"),
            "{err}"
        );
    }
}
