//! The rules of dependency of ARCHITECTURE.md, checked by reading the sources:
//! which folders of `arena/src` may import which, and no circle between files
//! anywhere in the repository's crates.
//!
//! A file imports another when it names an item of it through `crate::`,
//! `super::` or `self::` (in a `use` or in code): the module path is resolved to
//! the deepest file that holds it. A `pub use` (a name offered to others, such as
//! a folder's table of contents), the tests' own imports and the crate roots
//! (`lib.rs`, `main.rs`, which only dispatch) are not counted.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A source file: its module path in its crate, and the code it names.
#[derive(Debug)]
struct Source {
    /// `tournament::run` for `arena/src/tournament/run.rs`, `tournament` for its
    /// `mod.rs`.
    module: Vec<String>,
    /// Each module path the file names, resolved to absolute segments.
    names: Vec<Vec<String>>,
}

/// The module path of `file` under the crate's `src`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).unwrap_or(file);
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if let Some(last) = parts.pop() {
        let stem = last.trim_end_matches(".rs");
        if stem != "mod" && stem != "lib" && stem != "main" {
            parts.push(stem.to_string());
        }
    }
    parts
}

/// The code of a file: comments, strings and character literals blanked out
/// (a string becomes `""`), lines kept.
fn code_of(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied();
    while let Some(c) = at(i) {
        let word_start = i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        if c == '/' && at(i + 1) == Some('/') {
            while at(i).is_some_and(|c| c != '\n') {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == Some('*') {
            i += 2;
            while at(i).is_some() && !(at(i) == Some('*') && at(i + 1) == Some('/')) {
                if at(i) == Some('\n') {
                    out.push('\n');
                }
                i += 1;
            }
            i += 2;
        } else if c == 'r' && word_start && matches!(at(i + 1), Some('"' | '#')) {
            // A raw string: r"…", r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while at(j) == Some('#') {
                hashes += 1;
                j += 1;
            }
            if at(j) != Some('"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                match at(j) {
                    None => break,
                    Some('"') if (1..=hashes).all(|k| at(j + k) == Some('#')) => {
                        j += 1 + hashes;
                        break;
                    }
                    Some('\n') => out.push('\n'),
                    _ => {}
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while let Some(c) = at(i) {
                match c {
                    '\\' => {
                        if at(i + 1) == Some('\n') {
                            out.push('\n');
                        }
                        i += 1;
                    }
                    '"' => break,
                    '\n' => out.push('\n'),
                    _ => {}
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && at(i + 1) == Some('\\') {
            // '\n', '\u{…}'
            i += 2;
            while at(i).is_some_and(|c| c != '\'') {
                i += 1;
            }
            i += 1;
        } else if c == '\'' && at(i + 2) == Some('\'') {
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The paths after `crate::`, `super::` and `self::` in `code`, groups
/// (`{a, b::{c, d}}`) expanded, each as its segments with the prefix first.
fn paths_in(code: &str) -> Vec<Vec<String>> {
    let bytes: Vec<char> = code.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let boundary = i == 0 || !(bytes[i - 1].is_alphanumeric() || bytes[i - 1] == '_');
        let rest: String = bytes[i..].iter().take(8).collect();
        if boundary
            && (rest.starts_with("crate::")
                || rest.starts_with("super::")
                || rest.starts_with("self::"))
        {
            let (paths, end) = parse_path(&bytes, i);
            found.extend(paths);
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    found
}

/// The path (or group of paths) starting at `i`, and where it ends.
fn parse_path(chars: &[char], mut i: usize) -> (Vec<Vec<String>>, usize) {
    let mut prefix = Vec::new();
    loop {
        while chars.get(i).is_some_and(|c| c.is_whitespace()) {
            i += 1;
        }
        if chars.get(i) == Some(&'{') {
            let mut paths = Vec::new();
            i += 1;
            loop {
                while chars.get(i).is_some_and(|c| c.is_whitespace() || *c == ',') {
                    i += 1;
                }
                match chars.get(i) {
                    None => return (paths, i),
                    Some('}') => return (paths, i + 1),
                    _ => {}
                }
                let (inner, end) = parse_path(chars, i);
                for path in inner {
                    let mut full = prefix.clone();
                    full.extend(path.into_iter().filter(|s| s != "self"));
                    paths.push(full);
                }
                // `a as b`, `*`: skip to the next item.
                i = end;
                while chars.get(i).is_some_and(|c| !matches!(c, ',' | '}')) {
                    i += 1;
                }
            }
        }
        let start = i;
        while chars
            .get(i)
            .is_some_and(|c| c.is_alphanumeric() || *c == '_')
        {
            i += 1;
        }
        if i == start {
            return (vec![prefix], i);
        }
        prefix.push(chars[start..i].iter().collect());
        if chars.get(i) == Some(&':') && chars.get(i + 1) == Some(&':') {
            i += 2;
        } else {
            return (vec![prefix], i);
        }
    }
}

/// `path` as written in a file of module `module` (inside the inline modules
/// `inline`), as absolute segments from the crate root.
fn absolute(module: &[String], inline: &[String], path: &[String]) -> Vec<String> {
    let mut here: Vec<String> = module.iter().chain(inline).cloned().collect();
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            here.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        _ => {}
    }
    while rest.first().map(String::as_str) == Some("super") {
        here.pop();
        rest = &rest[1..];
    }
    here.extend(rest.iter().cloned());
    here
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            for entry in
                std::fs::read_dir(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            {
                stack.push(entry.unwrap_or_else(|e| panic!("{e}")).path());
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// The files of the crate whose sources are in `src`, with what each names.
fn read_crate(src: &Path) -> BTreeMap<PathBuf, Source> {
    let mut sources = BTreeMap::new();
    for file in rust_files(src) {
        let module = module_of(src, &file);
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        // Inline modules: indentation, name, and whether it is a test module
        // (whose imports are the tests', not the file's).
        let mut inline: Vec<(usize, String, bool)> = Vec::new();
        let mut after_cfg_test = false;
        let mut names = Vec::new();
        let mut statement = String::new();
        for line in code_of(&text).lines() {
            let indent = line.len() - line.trim_start().len();
            if let Some((open, _, _)) = inline.last()
                && line.trim_end() == format!("{}}}", " ".repeat(*open))
            {
                inline.pop();
                continue;
            }
            let code = line;
            let words: Vec<&str> = code.split_whitespace().collect();
            if let Some(i) = words.iter().position(|w| *w == "mod")
                && words.last() == Some(&"{")
                && words.len() == i + 3
            {
                inline.push((indent, words[i + 1].to_string(), after_cfg_test));
                continue;
            }
            after_cfg_test = code.trim() == "#[cfg(test)]";
            if inline.iter().any(|(_, _, test)| *test) {
                continue;
            }
            // A statement is read whole: a `use` may span lines.
            statement.push_str(code);
            statement.push(' ');
            let open = statement.trim_start().starts_with("use ")
                || statement.trim_start().starts_with("pub use ")
                || statement.trim_start().starts_with("pub(crate) use ");
            if open && !code.contains(';') {
                continue;
            }
            // A `pub use` names an item for others: a table of contents, not a
            // dependence of this file's code.
            let reexport = open && statement.trim_start().starts_with("pub");
            let here: Vec<String> = inline.iter().map(|(_, n, _)| n.clone()).collect();
            if !reexport {
                for path in paths_in(&statement) {
                    names.push(absolute(&module, &here, &path));
                }
            }
            statement.clear();
        }
        sources.insert(file, Source { module, names });
    }
    sources
}

/// Which file each file imports, in one crate: the deepest module file a
/// named path starts with, the file itself and the crate root left out.
fn imports(src: &Path) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let sources = read_crate(src);
    let by_module: BTreeMap<&[String], &PathBuf> = sources
        .iter()
        .filter(|(path, _)| {
            let name = path.file_name().unwrap_or_default();
            name != "main.rs"
        })
        .map(|(path, s)| (s.module.as_slice(), path))
        .collect();
    let mut edges = BTreeMap::new();
    for (file, source) in &sources {
        let name = file.file_name().unwrap_or_default();
        if name == "lib.rs" || name == "main.rs" {
            continue;
        }
        let mut targets = BTreeSet::new();
        for path in &source.names {
            let target = (1..=path.len())
                .rev()
                .find_map(|n| by_module.get(&path[..n]).copied());
            if let Some(target) = target
                && target != file
            {
                targets.insert(target.clone());
            }
        }
        edges.insert(file.clone(), targets);
    }
    edges
}

/// The circles of `edges`: each a set of files that reach each other
/// (strongly connected components of two files or more), with its edges.
fn circles(edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<String>> {
    let reach = |from: &PathBuf| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(file) = stack.pop() {
            for next in edges.get(&file).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&PathBuf, BTreeSet<PathBuf>> =
        edges.keys().map(|f| (f, reach(f))).collect();
    let mut done = BTreeSet::new();
    let mut found = Vec::new();
    for (file, from_file) in &reached {
        if done.contains(*file) || !from_file.contains(*file) {
            continue;
        }
        let members: BTreeSet<&PathBuf> = from_file
            .iter()
            .filter(|other| reached.get(other).is_some_and(|r| r.contains(*file)))
            .collect();
        let mut lines = Vec::new();
        for member in &members {
            done.insert((*member).clone());
            for next in edges.get(*member).into_iter().flatten() {
                if members.contains(next) {
                    let shown = |f: &Path| {
                        f.strip_prefix(workspace())
                            .unwrap_or(f)
                            .display()
                            .to_string()
                    };
                    lines.push(format!("{} -> {}", shown(member), shown(next)));
                }
            }
        }
        found.push(lines);
    }
    found
}

/// The workspace's directory.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or_else(|| Path::new(".."))
        .to_path_buf()
}

#[test]
fn no_file_of_any_crate_imports_a_file_that_imports_it_back() {
    let mut all = Vec::new();
    for krate in ["core", "referee", "ratings", "bots", "arena"] {
        let src = workspace().join(krate).join("src");
        assert!(src.is_dir(), "{}", src.display());
        all.extend(circles(&imports(&src)));
    }
    assert!(all.is_empty(), "circles between files: {all:#?}");
}

/// The folders of `arena/src` (and `cli.rs`), which the layers are about; the
/// other files at the top (`defaults`, `millis`, `exit_codes`, `suggest`,
/// `stdout`) are helpers any layer may use.
const LAYERS: [&str; 8] = [
    "results",
    "tournament",
    "report",
    "serve",
    "terminal",
    "conformance",
    "cli",
    "commands",
];

/// The layering of ARCHITECTURE.md: each layer and the layers it may import;
/// `commands` may import every one, and no layer imports `commands` (nothing
/// but `lib.rs` does). `cli` is the flags' structs: no layer below the commands
/// reads them, and they read no layer.
#[test]
fn the_layers_import_only_downwards() {
    let allowed: [(&str, &[&str]); 7] = [
        ("results", &[]),
        ("tournament", &["results"]),
        ("report", &["results"]),
        ("serve", &["report", "results"]),
        ("terminal", &["results"]),
        ("conformance", &["tournament", "terminal", "results"]),
        ("cli", &[]),
    ];
    let src = workspace().join("arena").join("src");
    let mut wrong = Vec::new();
    for (file, source) in &read_crate(&src) {
        let Some(layer) = source.module.first() else {
            continue;
        };
        let Some((_, may)) = allowed.iter().find(|(l, _)| l == layer) else {
            continue;
        };
        for name in &source.names {
            let Some(target) = name.first() else { continue };
            if target != layer
                && LAYERS.contains(&target.as_str())
                && !may.contains(&target.as_str())
            {
                let shown = file.strip_prefix(workspace()).unwrap_or(file);
                wrong.push(format!(
                    "{} uses crate::{}",
                    shown.display(),
                    name.join("::")
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// The reader itself: a group, `self`, `super` and an inline module resolve as
/// the compiler resolves them.
#[test]
fn paths_are_read_as_the_compiler_reads_them() {
    let text = |s: &[&str]| s.iter().map(ToString::to_string).collect::<Vec<_>>();
    assert_eq!(
        paths_in("use super::{a::{B, C}, self as d, e};"),
        [
            text(&["super", "a", "B"]),
            text(&["super", "a", "C"]),
            text(&["super"]),
            text(&["super", "e"])
        ]
    );
    assert_eq!(
        paths_in(&code_of(
            "let x = crate::results::store::read(\"crate::not\"); // crate::no"
        )),
        [text(&["crate", "results", "store", "read"])]
    );
    assert_eq!(
        absolute(
            &text(&["tournament", "run"]),
            &[],
            &text(&["super", "entrant", "Entrant"])
        ),
        text(&["tournament", "entrant", "Entrant"])
    );
    assert_eq!(
        absolute(
            &text(&["tournament", "run"]),
            &text(&["tests"]),
            &text(&["super", "x"])
        ),
        text(&["tournament", "run", "x"])
    );
}

/// The circle finder itself: a ring of three files is one circle, a file that
/// only imports into it is not part of it.
#[test]
fn a_ring_of_files_is_one_circle_with_its_edges() {
    let file = |name: &str| workspace().join(name);
    let edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = [
        ("a.rs", vec!["b.rs"]),
        ("b.rs", vec!["c.rs"]),
        ("c.rs", vec!["a.rs"]),
        ("d.rs", vec!["a.rs"]),
    ]
    .into_iter()
    .map(|(from, to)| (file(from), to.into_iter().map(file).collect()))
    .collect();
    assert_eq!(
        circles(&edges),
        [vec!["a.rs -> b.rs", "b.rs -> c.rs", "c.rs -> a.rs"]]
    );
}
