//! Which current submissions of a league look like the same program, with the
//! evidence: (a) their sources, normalised ([`tokens`]) and fingerprinted by
//! winnowing ([`fingerprint`]), compared within a language family; (b) their
//! behaviour, the share of identical answers on a fixed set of positions (the
//! caller asks the bots). Written to `similarity.csv`, every pair of a family,
//! the most similar first. It flags; it never changes a grade, and it is the
//! teacher's: a student's feedback says nothing of it.
//!
//! **The score is symmetric.** It is the share of the two programs'
//! fingerprints they hold in common: shared over those either holds (the
//! Jaccard index), the same whichever student is named first, so it says
//! "these two share", never who took from whom; a small program inside a
//! large one scores as little as it is of the whole.
//!
//! **Only the starter code is discounted.** The code the class was given —
//! the teacher's `[league] starter` and the shipped starter kits
//! ([`Starters`]) — is left out of both sides before scoring, however many
//! students kept it; nothing else is, however many students share it, so
//! eight copies of one program are eight copies, not "the class's code".
//!
//! What it cannot see: a copy rewritten by hand (other structure, same idea), a
//! program translated to another language, two students who share an idea
//! rather than code.

#[cfg(test)]
mod bench;
pub mod fingerprint;
pub mod tokens;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use self::fingerprint::{Print, winnow};
use self::tokens::{Family, tokens};
use crate::results::atomic::write_atomic;

pub use crate::results::league::{Flag, PairRow, SIMILARITY_FILE};

/// Files larger than this are not read as source (data, a vendored library).
const MAX_SOURCE_BYTES: u64 = 512 * 1024;

/// Fewer fingerprints than this say too little to score: a pair with one side
/// so small scores 0.
const MIN_PRINTS: usize = 10;

/// One student's sources of one family, fingerprinted.
#[derive(Clone, Debug)]
pub struct Submission {
    /// The student.
    pub name: String,
    /// The family of most of its source.
    pub family: Family,
    /// Each fingerprint with the file (relative to the folder) it is in.
    prints: Vec<(Print, usize)>,
    /// The files, relative to the folder.
    files: Vec<String>,
}

/// Folders below a submission the checker looks into, at most: a student's folder
/// is theirs to shape, and a deep or huge tree must not stall the league.
const MAX_DEPTH: usize = 16;
/// Source files read from one submission, at most.
const MAX_FILES: usize = 2_000;

/// The source files below `dir` (hidden folders, links and builds' output
/// skipped; at most [`MAX_FILES`], [`MAX_DEPTH`] folders down).
fn source_files(dir: &Path, rel: &Path, out: &mut Vec<PathBuf>) {
    if rel.components().count() > MAX_DEPTH || out.len() >= MAX_FILES {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir.join(rel)) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = rel.join(&name);
        if kind.is_dir()
            && !matches!(
                name.to_str(),
                Some("target" | "node_modules" | "__pycache__" | "build")
            )
        {
            source_files(dir, &path, out);
        } else if kind.is_file()
            && Family::of(&path).is_some()
            && entry.metadata().is_ok_and(|m| m.len() <= MAX_SOURCE_BYTES)
            && out.len() < MAX_FILES
        {
            out.push(path);
        }
    }
}

/// A source file's text: never through a link (the folder may change between the
/// listing and the read), never more than [`MAX_SOURCE_BYTES`].
fn read_source(path: &Path) -> Option<String> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
        .open(path)
        .ok()?;
    let mut text = String::new();
    file.take(MAX_SOURCE_BYTES).read_to_string(&mut text).ok()?;
    Some(text)
}

/// The submission in `dir` (a league passes the copy that played, never the
/// student's folder, which may hold other code by now): its sources of its main
/// family, fingerprinted (`None` when it has no source the checker reads).
pub fn read_submission(name: &str, dir: &Path) -> Option<Submission> {
    let mut paths = Vec::new();
    source_files(dir, Path::new(""), &mut paths);
    let mut by_family: BTreeMap<Family, Vec<(String, String)>> = BTreeMap::new();
    for path in paths {
        let Some(family) = Family::of(&path) else {
            continue;
        };
        let Some(text) = read_source(&dir.join(&path)) else {
            continue;
        };
        by_family
            .entry(family)
            .or_default()
            .push((path.display().to_string(), text));
    }
    let (family, files) = by_family
        .into_iter()
        .max_by_key(|(_, files)| files.iter().map(|(_, t)| t.len()).sum::<usize>())?;
    let mut prints = Vec::new();
    let mut names = Vec::new();
    for (i, (file, text)) in files.into_iter().enumerate() {
        prints.extend(winnow(&tokens(&text, family)).into_iter().map(|p| (p, i)));
        names.push(file);
    }
    Some(Submission {
        name: name.to_string(),
        family,
        prints,
        files: names,
    })
}

/// How many fragments the evidence names.
const FRAGMENTS: usize = 3;

/// The shipped starter kits, as the students get them: their code is the
/// class's, whoever keeps it.
const SHIPPED_STARTERS: [(&str, &str); 6] = [
    (
        "starter.py",
        include_str!("../../../bots/starters/python/starter.py"),
    ),
    (
        "starter_uttt.py",
        include_str!("../../../bots/starters/python/starter_uttt.py"),
    ),
    (
        "rules.py",
        include_str!("../../../bots/starters/python/rules.py"),
    ),
    (
        "starter.cpp",
        include_str!("../../../bots/starters/cpp/starter.cpp"),
    ),
    (
        "starter.js",
        include_str!("../../../bots/starters/js/starter.js"),
    ),
    (
        "main.rs",
        include_str!("../../../bots/starters/rust/src/main.rs"),
    ),
];

/// The code the class was given, fingerprinted: left out of both sides of
/// every pair.
#[derive(Clone, Debug, Default)]
pub struct Starters {
    prints: HashSet<u64>,
    warnings: Vec<String>,
}

impl Starters {
    /// No starter code: every fingerprint counts.
    pub fn none() -> Starters {
        Starters::default()
    }

    /// The shipped starter kits and, when the teacher names one, their own
    /// starter (a file or a folder of sources, read as a submission is).
    pub fn shipped_and(teacher: Option<&Path>) -> Starters {
        let mut starters = Starters::default();
        for (file, text) in SHIPPED_STARTERS {
            if let Some(family) = Family::of(Path::new(file)) {
                starters.add(text, family);
            }
        }
        if let Some(path) = teacher {
            let (dir, files) = if path.is_dir() {
                let mut files = Vec::new();
                source_files(path, Path::new(""), &mut files);
                (path.to_path_buf(), files)
            } else {
                let parent = path.parent().unwrap_or(Path::new(".")).to_path_buf();
                let name = path.file_name().map(PathBuf::from).unwrap_or_default();
                (parent, vec![name])
            };
            let mut read = 0;
            for file in files {
                let Some(family) = Family::of(&file) else {
                    continue;
                };
                if let Some(text) = read_source(&dir.join(&file)) {
                    starters.add(&text, family);
                    read += 1;
                }
            }
            if read == 0 {
                starters.warnings.push(format!(
                    "[league] starter = \"{}\": no source file there could be read, so only the \
                     shipped starter kits are discounted",
                    path.display()
                ));
            }
        }
        starters
    }

    /// Adds the fingerprints of `text`.
    fn add(&mut self, text: &str, family: Family) {
        self.prints
            .extend(winnow(&tokens(text, family)).into_iter().map(|p| p.hash));
    }

    /// Whether `hash` is starter code.
    fn holds(&self, hash: u64) -> bool {
        self.prints.contains(&hash)
    }

    /// What could not be read, in words.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
}

/// The score and evidence of two submissions of one family: the
/// fingerprints they share over those either holds, `starters`' left out.
fn compare_pair(a: &Submission, b: &Submission, starters: &Starters) -> (f64, usize, String) {
    let index: HashMap<u64, (Print, usize)> = b
        .prints
        .iter()
        .filter(|(p, _)| !starters.holds(p.hash))
        .map(|(p, f)| (p.hash, (*p, *f)))
        .collect();
    let own_a: HashSet<u64> = a
        .prints
        .iter()
        .map(|(p, _)| p.hash)
        .filter(|h| !starters.holds(*h))
        .collect();
    let own_b: HashSet<u64> = index.keys().copied().collect();
    let small = own_a.len().min(own_b.len());
    let union = own_a.union(&own_b).count();
    let mut matches: Vec<(usize, Print, usize, Print)> = Vec::new();
    let mut counted = HashSet::new();
    for (p, f) in &a.prints {
        if let Some((q, g)) = index.get(&p.hash)
            && counted.insert(p.hash)
        {
            matches.push((*f, *p, *g, *q));
        }
    }
    let shared = matches.len();
    let score = if small < MIN_PRINTS {
        0.0
    } else {
        shared as f64 / union as f64
    };
    // Fragments: runs of matches close together in both files.
    matches.sort_by_key(|(f, p, g, _)| (*f, *g, p.first));
    let mut fragments: Vec<(usize, usize, u32, u32, usize, u32, u32)> = Vec::new();
    for (f, p, g, q) in matches {
        if let Some(last) = fragments.last_mut()
            && last.0 == f
            && last.4 == g
            && p.first <= last.3 + 3
        {
            last.1 += 1;
            last.3 = last.3.max(p.last);
            last.5 = last.5.min(q.first);
            last.6 = last.6.max(q.last);
            continue;
        }
        fragments.push((f, 1, p.first, p.last, g, q.first, q.last));
    }
    fragments.sort_by_key(|fr| std::cmp::Reverse(fr.1));
    let evidence = fragments
        .iter()
        .take(FRAGMENTS)
        .map(|(f, _, a1, a2, g, b1, b2)| {
            format!(
                "{}:{a1}-{a2} ~ {}:{b1}-{b2}",
                a.files.get(*f).map_or("?", String::as_str),
                b.files.get(*g).map_or("?", String::as_str)
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    (score, shared, evidence)
}

/// Every pair of `subs` within a family, scored with `starters`' code left
/// out, with the behaviour of `answers` (each student's answer to each
/// position, `None` where it gave none), the most similar first.
pub fn compare(
    subs: &[Submission],
    starters: &Starters,
    answers: &BTreeMap<String, Vec<Option<String>>>,
    threshold: f64,
) -> Vec<PairRow> {
    let mut families: BTreeMap<Family, Vec<&Submission>> = BTreeMap::new();
    for sub in subs {
        families.entry(sub.family).or_default().push(sub);
    }
    let mut rows = Vec::new();
    for (family, members) in families {
        for (i, a) in members.iter().enumerate() {
            for b in &members[i + 1..] {
                let (score, shared, evidence) = compare_pair(a, b, starters);
                let (behaviour, positions) = agreement(answers.get(&a.name), answers.get(&b.name));
                rows.push(PairRow {
                    a: a.name.clone(),
                    b: b.name.clone(),
                    family: family.word().to_string(),
                    score: (score * 1000.0).round() / 1000.0,
                    shared,
                    behaviour: behaviour.map(|x| (x * 1000.0).round() / 1000.0),
                    positions,
                    flagged: if score >= threshold {
                        Flag::Yes
                    } else {
                        Flag::No
                    },
                    threshold,
                    evidence,
                });
            }
        }
    }
    rows.sort_by(|x, y| {
        y.score
            .total_cmp(&x.score)
            .then_with(|| (&x.a, &x.b).cmp(&(&y.a, &y.b)))
    });
    rows
}

/// The share of identical answers over the positions both answered.
fn agreement(
    a: Option<&Vec<Option<String>>>,
    b: Option<&Vec<Option<String>>>,
) -> (Option<f64>, usize) {
    let (Some(a), Some(b)) = (a, b) else {
        return (None, 0);
    };
    let both: Vec<(&String, &String)> = a
        .iter()
        .zip(b)
        .filter_map(|(x, y)| x.as_ref().zip(y.as_ref()))
        .collect();
    if both.is_empty() {
        return (None, 0);
    }
    let same = both.iter().filter(|(x, y)| x == y).count();
    (Some(same as f64 / both.len() as f64), both.len())
}

/// Writes `similarity.csv`.
///
/// # Errors
/// Writing failed.
pub fn write(dir: &Path, rows: &[PairRow]) -> anyhow::Result<()> {
    let mut out = csv::Writer::from_writer(Vec::new());
    if rows.is_empty() {
        out.write_record([
            "a",
            "b",
            "family",
            "score",
            "shared",
            "behaviour",
            "positions",
            "flagged",
            "threshold",
            "evidence",
        ])?;
    }
    for row in rows {
        out.serialize(row)?;
    }
    write_atomic(&dir.join(SIMILARITY_FILE), &out.into_inner()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_submission_is_read_without_links_and_within_bounds() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bot.py"), ORIGINAL).unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.py"), ORIGINAL).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.py"), dir.path().join("link.py"))
            .unwrap();
        let mut deep = dir.path().to_path_buf();
        for _ in 0..=MAX_DEPTH {
            deep.push("d");
        }
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(deep.join("deep.py"), ORIGINAL).unwrap();
        let submission = read_submission("ann", dir.path()).unwrap();
        assert_eq!(submission.files, ["bot.py"]);
        assert_eq!(read_source(&dir.path().join("link.py")), None);
    }

    fn sub(name: &str, text: &str) -> Submission {
        let family = Family::Python;
        Submission {
            name: name.into(),
            family,
            prints: winnow(&tokens(text, family))
                .into_iter()
                .map(|p| (p, 0))
                .collect(),
            files: vec!["bot.py".into()],
        }
    }

    const ORIGINAL: &str = "
def score(board, me):
    total = 0
    for line in LINES:
        mine = sum(1 for c in line if board[c] == me)
        theirs = sum(1 for c in line if board[c] not in (me, '.'))
        if theirs == 0:
            total += mine * mine
    return total

def choose(board, moves, me):
    best = None
    best_value = -1
    for m in moves:
        board[m] = me
        value = score(board, me)
        board[m] = '.'
        if value > best_value:
            best, best_value = m, value
    return best
";

    const RENAMED_AND_REORDERED: &str = "
# my own bot
def pick(b, legal, who):
    top = None
    top_v = -1
    for mv in legal:
        b[mv] = who
        v = evaluate(b, who)
        b[mv] = '.'
        if v > top_v:
            top, top_v = mv, v
    return top

def evaluate(b, who):
    acc = 0
    for ln in ROWS:
        a = sum(1 for x in ln if b[x] == who)
        o = sum(1 for x in ln if b[x] not in (who, '.'))
        if o == 0:
            acc += a * a
    return acc
";

    const OTHER: &str = "
import random
def reply(state):
    options = [i for i, v in enumerate(state) if v == '.']
    while True:
        guess = random.choice(options)
        if guess % 2 == 0 or len(options) < 3:
            return guess
        options.remove(guess)
    raise RuntimeError('no move')
";

    #[test]
    fn a_renamed_reordered_copy_is_flagged_with_its_fragments_and_another_program_is_not() {
        let subs = [
            sub("ada", ORIGINAL),
            sub("bo", RENAMED_AND_REORDERED),
            sub("cy", OTHER),
        ];
        let rows = compare(&subs, &Starters::none(), &BTreeMap::new(), 0.6);
        let find = |a: &str, b: &str| rows.iter().find(|r| r.a == a && r.b == b).unwrap();
        let copy = find("ada", "bo");
        assert!(copy.score >= 0.8, "{copy:?}");
        assert_eq!(copy.flagged, Flag::Yes);
        assert!(copy.evidence.contains("bot.py:"), "{}", copy.evidence);
        assert_eq!(find("ada", "cy").flagged, Flag::No);
        assert_eq!(rows[0].a, "ada", "the most similar pair first");
    }

    #[test]
    fn behaviour_is_the_share_of_identical_answers_where_both_answered() {
        let a = vec![Some("e5".to_string()), Some("a1".into()), None];
        let b = vec![Some("e5".to_string()), Some("b2".into()), Some("c3".into())];
        assert_eq!(agreement(Some(&a), Some(&b)), (Some(0.5), 2));
    }

    #[test]
    fn the_score_is_the_same_whichever_is_named_first_and_a_part_scores_as_a_part() {
        let both = format!("{ORIGINAL}\n{OTHER}");
        let forward = compare(
            &[sub("ada", ORIGINAL), sub("bo", &both)],
            &Starters::none(),
            &BTreeMap::new(),
            0.6,
        );
        let backward = compare(
            &[sub("bo", &both), sub("ada", ORIGINAL)],
            &Starters::none(),
            &BTreeMap::new(),
            0.6,
        );
        assert_eq!(forward[0].score, backward[0].score);
        // All of ada's program is in bo's, which is twice as long: they share
        // about half of their code, not all of it.
        assert!(
            forward[0].score > 0.3 && forward[0].score < 0.8,
            "{:?}",
            forward[0]
        );
    }

    #[test]
    fn many_copies_of_one_program_are_all_flagged_and_the_starter_kit_is_not() {
        let starter = include_str!("../../../bots/starters/python/starter.py");
        let mut subs: Vec<Submission> =
            (0..8).map(|i| sub(&format!("copy{i}"), ORIGINAL)).collect();
        subs.extend((0..3).map(|i| sub(&format!("kit{i}"), starter)));
        subs.push(sub("own", OTHER));
        let rows = compare(&subs, &Starters::shipped_and(None), &BTreeMap::new(), 0.6);
        let flagged: Vec<(&str, &str)> = rows
            .iter()
            .filter(|r| r.flagged == Flag::Yes)
            .map(|r| (r.a.as_str(), r.b.as_str()))
            .collect();
        assert_eq!(
            flagged.len(),
            8 * 7 / 2,
            "every pair of the copies: {flagged:?}"
        );
        assert!(
            flagged
                .iter()
                .all(|(a, b)| a.starts_with("copy") && b.starts_with("copy"))
        );
        // The kit unchanged is the class's code: nothing of it left to compare.
        let kits = rows
            .iter()
            .find(|r| r.a.starts_with("kit") && r.b.starts_with("kit"))
            .unwrap();
        assert_eq!(kits.score, 0.0, "{kits:?}");
    }

    #[test]
    fn the_teachers_starter_is_left_out_like_the_shipped_kits() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("given.py"), ORIGINAL).unwrap();
        let subs = [sub("ada", ORIGINAL), sub("bo", ORIGINAL)];
        let without = compare(&subs, &Starters::none(), &BTreeMap::new(), 0.6);
        assert_eq!(without[0].flagged, Flag::Yes);
        let starters = Starters::shipped_and(Some(&dir.path().join("given.py")));
        let with = compare(&subs, &starters, &BTreeMap::new(), 0.6);
        assert_eq!((with[0].score, with[0].flagged), (0.0, Flag::No));
        assert!(starters.warnings().is_empty());
        let missing = Starters::shipped_and(Some(&dir.path().join("nothing.py")));
        assert_eq!(missing.warnings().len(), 1);
    }
}
