//! BENCHMARKS.md, "League": the source similarity of a class of 30 — 21 honest
//! programs of the repository (Python bots and tools, the JavaScript of the
//! pages and the starter, the C++ starter) and 9 planted copies of the three
//! starter kits (names renamed, top-level blocks reordered, comments stripped) —
//! every copy found above the threshold, no honest pair above it, and the time.
//! No starter code is discounted here (the copies are of the starter kits): the
//! measure is of the score alone.
//! Run with `cargo test -p arena --release similarity::bench -- --ignored --nocapture`.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use super::tokens::Family;
use super::{Flag, Starters, compare, read_submission};

const HONEST: [&str; 21] = [
    "bots/starters/python/starter.py",
    "bots/starters/python/rules.py",
    "bots/starters/python/starter_uttt.py",
    "python/uttt/__init__.py",
    "python/tests/test_agreement.py",
    "python/bench/playouts.py",
    "tests/bots/sandbox/player.py",
    "tests/bots/selftest.py",
    "tests/bots/submissions/snoop.py",
    "tests/bots/codingame_first.py",
    "tests/bots/hostile.py",
    "tests/bots/riddles_first.py",
    "tests/bots/good.py",
    "tests/bots/codingame_hostile.py",
    "bots/starters/js/starter.js",
    "arena/src/serve/assets/live.js",
    "arena/src/report/assets/report.js",
    "arena/src/report/assets/viewer.js",
    "arena/src/report/assets/board.js",
    "tests/bots/sandbox/player.js",
    "bots/starters/cpp/starter.cpp",
];

/// The originals the copies are made of.
const COPIED: [&str; 3] = [
    "bots/starters/python/starter.py",
    "bots/starters/js/starter.js",
    "bots/starters/cpp/starter.cpp",
];

/// Every word that is not a keyword-looking short word, renamed consistently.
fn rename(text: &str) -> String {
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    let mut out = String::new();
    let mut word = String::new();
    let keep = [
        "def",
        "return",
        "for",
        "in",
        "if",
        "else",
        "elif",
        "while",
        "import",
        "from",
        "class",
        "function",
        "const",
        "let",
        "var",
        "int",
        "void",
        "auto",
        "include",
        "std",
        "self",
        "true",
        "false",
        "True",
        "False",
        "None",
        "not",
        "and",
        "or",
        "new",
        "this",
        "break",
        "continue",
        "try",
        "except",
        "catch",
        "static",
        "struct",
        "using",
        "namespace",
        "char",
        "string",
        "vector",
        "bool",
        "double",
        "long",
        "unsigned",
        "null",
        "print",
        "range",
        "len",
        "with",
        "as",
        "is",
        "lambda",
        "pass",
        "raise",
        "yield",
        "async",
        "await",
        "of",
        "typeof",
        "undefined",
        "require",
        "main",
    ];
    for c in text.chars().chain(std::iter::once('\n')) {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        if word.chars().next().is_some_and(char::is_alphabetic) && !keep.contains(&word.as_str()) {
            let n = names.len();
            out.push_str(names.entry(word.clone()).or_insert_with(|| format!("q{n}")));
        } else {
            out.push_str(&word);
        }
        word.clear();
        out.push(c);
    }
    out.pop();
    out
}

/// Top-level blocks (separated by blank lines) in reverse order.
fn reorder(text: &str) -> String {
    let mut blocks: Vec<&str> = text.split("\n\n").collect();
    blocks.reverse();
    blocks.join("\n\n")
}

/// Comment lines and trailing comments removed (text inside strings aside).
fn strip(text: &str) -> String {
    let mut out = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        let t = line.trim_start();
        if in_block {
            if t.contains("*/") || t.contains("\"\"\"") {
                in_block = false;
            }
            continue;
        }
        if t.starts_with("/*") || t.starts_with("\"\"\"") {
            in_block = !(t.contains("*/") || t[3..].contains("\"\"\""));
            continue;
        }
        if t.starts_with('#') && !t.starts_with("#include") || t.starts_with("//") {
            continue;
        }
        let cut = [" # ", " // "]
            .iter()
            .filter_map(|m| line.find(m))
            .filter(|&at| line[..at].matches('"').count() % 2 == 0)
            .min();
        out.push(cut.map_or(line, |at| &line[..at]).trim_end().to_string());
    }
    out.join("\n")
}

/// The default `similarity-threshold` of a league (the settings' own constant
/// is a layer above this one).
const THRESHOLD: f64 = 0.3;

#[test]
#[ignore = "a benchmark"]
fn bench_a_class_of_30_with_planted_copies() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let class = tempfile::tempdir().expect("temp dir");
    let place = |name: &str, file: &str, text: &str| {
        let dir = class.path().join(name);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join(file), text).expect("write");
        (name.to_string(), dir)
    };
    let mut students = Vec::new();
    let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (i, path) in HONEST.iter().enumerate() {
        let text = std::fs::read_to_string(root.join(path)).expect("a repository file");
        let file = Path::new(path)
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        students.push(place(&format!("h{i:02}"), &file, &text));
        if let Some(k) = COPIED.iter().position(|c| c == path) {
            groups
                .entry(format!("g{k}"))
                .or_default()
                .push(format!("h{i:02}"));
            for (how, copy) in [
                ("ren", rename(&text)),
                ("ord", reorder(&text)),
                ("str", strip(&text)),
            ] {
                let name = format!("c{k}{how}");
                students.push(place(&name, &file, &copy));
                groups.entry(format!("g{k}")).or_default().push(name);
            }
        }
    }
    assert_eq!(students.len(), 30);
    let started = Instant::now();
    let subs: Vec<_> = students
        .iter()
        .filter_map(|(name, dir)| read_submission(name, dir))
        .collect();
    let rows = compare(&subs, &Starters::none(), &BTreeMap::new(), THRESHOLD);
    let took = started.elapsed();
    let copy_pair = |a: &str, b: &str| {
        groups
            .values()
            .any(|g| g.iter().any(|x| x == a) && g.iter().any(|x| x == b))
    };
    let expected: usize = groups.values().map(|g| g.len() * (g.len() - 1) / 2).sum();
    let found = rows
        .iter()
        .filter(|r| r.flagged == Flag::Yes && copy_pair(&r.a, &r.b))
        .count();
    let false_flags: Vec<_> = rows
        .iter()
        .filter(|r| r.flagged == Flag::Yes && !copy_pair(&r.a, &r.b))
        .collect();
    let lowest_copy = rows
        .iter()
        .filter(|r| copy_pair(&r.a, &r.b))
        .map(|r| r.score)
        .fold(1.0, f64::min);
    let highest_honest = rows
        .iter()
        .filter(|r| !copy_pair(&r.a, &r.b))
        .max_by(|x, y| x.score.total_cmp(&y.score));
    let families: std::collections::BTreeSet<Family> = subs.iter().map(|s| s.family).collect();
    println!(
        "30 submissions ({} families), {} pairs compared in {:.3} s: {found} of {expected} copy pairs \
         flagged (lowest copy score {lowest_copy:.3}), {} false flags; highest honest pair: {:?}",
        families.len(),
        rows.len(),
        took.as_secs_f64(),
        false_flags.len(),
        highest_honest.map(|r| (&r.a, &r.b, r.score)),
    );
    for r in &false_flags {
        println!(
            "  false flag: {} ~ {} {:.3} {}",
            r.a, r.b, r.score, r.evidence
        );
    }
    for r in rows.iter().filter(|r| copy_pair(&r.a, &r.b)) {
        println!("  copy: {} ~ {} {:.3}", r.a, r.b, r.score);
    }
}
