//! The user documentation cannot drift from the program: every command shown in
//! the README and the guide (`docs/guide/`) runs here against the real binary,
//! and every relative link in the docs leads to a file (and heading) that exists.
//!
//! A command example is a ```` ```console ```` block in the `trycmd` format: `$ `
//! starts a command, `? CODE` (optional) is its exit code, the lines after it are
//! what it prints (stdout then stderr), where `...` on a line of its own stands for
//! any lines and `[..]` for the rest of a line. Output is shown in full where it is
//! deterministic (fixed seeds, `--nodes`), and elided where it is not (times).
//! Blocks of one file run in order in one scratch directory that holds copies of
//! `configs/` and `bots/starters/` and a `my_bot.py` (the Python starter), so a
//! later command may read what an earlier one wrote.
//!
//! What an example prints may depend on the machine as well as on the command: the
//! sandbox banner (`sandbox: [..]`) is followed by a note or a warning for each bot
//! whose files lie below a private directory (a Python or an arena under `/root`
//! without bubblewrap), so a `...` line follows it in every example
//! ([`machine_dependent_lines_are_followed_by_an_elision`] checks this on any
//! machine, not only on those that print the notes).
//!
//! A block that needs something CI may lack says so in its info string,
//! ```` ```console,needs=bwrap ````, and runs only where every program named is
//! found; elsewhere the run says which example it skipped and why. Other code
//! blocks (`sh`, `toml`, `text`…) are not run: install steps, files, and output
//! shown for reading.
//!
//! `TRYCMD=dump cargo test -p uttt-tests --test docs_examples` writes what each
//! command printed into `dump/`, to help write a new example.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};
use uttt_tests::prerequisites::{find_program, say_skipped};
use uttt_tests::{arena_bin, repo_root};

/// The documents whose examples run and whose links are checked.
fn documents() -> Vec<PathBuf> {
    let root = repo_root();
    let mut docs = vec![root.join("README.md")];
    let guide = root.join("docs").join("guide");
    let mut chapters: Vec<PathBuf> = std::fs::read_dir(&guide)
        .unwrap_or_else(|e| panic!("reading {}: {e}", guide.display()))
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    chapters.sort();
    docs.extend(chapters);
    docs
}

/// The Debian package of a program an example may need, for the message of an
/// example that did not run.
fn package_of(program: &str) -> &str {
    match program {
        "bwrap" => "bubblewrap",
        other => other,
    }
}

/// The document with each ```` ```console,needs=A+B ```` block turned into a
/// plain console block where A and B are installed, and an ignored one
/// elsewhere, said with [`say_skipped`]; lines stay where they were, so a
/// failure names the document's own line.
fn with_needs_decided(shown: &str, text: &str) -> String {
    text.lines()
        .enumerate()
        .map(|(index, line)| {
            let Some(rest) = line.strip_prefix("```console,needs=") else {
                return line.to_owned();
            };
            let missing: Vec<&str> = rest
                .trim()
                .split('+')
                .filter(|program| find_program(program).is_none())
                .collect();
            if missing.is_empty() {
                return "```console".to_owned();
            }
            let packages: Vec<&str> = missing.iter().map(|p| package_of(p)).collect();
            say_skipped(&format!(
                "the example at {shown}:{} needs {}: apt-get install {}",
                index + 1,
                missing.join(" and "),
                packages.join(" ")
            ));
            "```console,ignore".to_owned()
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// Copies a directory tree (plain files and directories).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("mkdir {}: {e}", to.display()));
    let entries = std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            if entry.file_name() != "target" {
                copy_tree(&path, &target);
            }
        } else {
            std::fs::copy(&path, &target)
                .unwrap_or_else(|e| panic!("copy {}: {e}", path.display()));
        }
    }
}

/// The files every example may use, as a reader of the docs has them in a
/// checkout: the configs, the starter kits and their own `my_bot.py`.
fn fixtures(dir: &Path) {
    let root = repo_root();
    copy_tree(&root.join("configs"), &dir.join("configs"));
    copy_tree(
        &root.join("bots").join("starters"),
        &dir.join("bots").join("starters"),
    );
    std::fs::copy(
        root.join("bots/starters/python/starter.py"),
        dir.join("my_bot.py"),
    )
    .unwrap_or_else(|e| panic!("my_bot.py: {e}"));
}

#[test]
fn every_command_in_the_readme_and_the_guide_runs_as_shown() {
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("temp dir: {e}"));
    let cases = work.path().join("cases");
    std::fs::create_dir_all(&cases).unwrap_or_else(|e| panic!("{e}"));
    let root = repo_root();
    for doc in documents() {
        let relative = doc.strip_prefix(&root).unwrap_or(&doc);
        // docs/guide/tournament.md → docs-guide-tournament.md: one case per
        // document, named after it.
        let name = relative.to_string_lossy().replace('/', "-");
        let text = std::fs::read_to_string(&doc)
            .unwrap_or_else(|e| panic!("reading {}: {e}", doc.display()));
        if !text.contains("```console") {
            continue;
        }
        let case = cases.join(&name);
        let shown = relative.display().to_string();
        std::fs::write(&case, with_needs_decided(&shown, &text)).unwrap_or_else(|e| panic!("{e}"));
        fixtures(&case.with_extension("in"));
        // An (empty) .out directory makes trycmd run the case in a copy of .in.
        std::fs::create_dir_all(case.with_extension("out")).unwrap_or_else(|e| panic!("{e}"));
    }
    trycmd::TestCases::new()
        .register_bin("arena", arena_bin())
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .timeout(std::time::Duration::from_secs(300))
        .case(cases.join("*.md"));
}

/// A heading's anchor as GitHub makes it: lower case, spaces to `-`, every
/// other character but letters, digits, `-` and `_` dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut heading: Option<String> = None;
    for event in Parser::new(text) {
        match event {
            Event::Start(Tag::Heading { level, .. }) if level <= HeadingLevel::H6 => {
                heading = Some(String::new());
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some(h) = heading.take() {
                    found.insert(slug(&h));
                }
            }
            _ => {}
        }
    }
    found
}

#[test]
fn every_relative_link_in_the_docs_leads_somewhere() {
    let root = repo_root();
    let mut docs = documents();
    for extra in ["protocol.md", "docs/suite.md", "bots/starters/README.md"] {
        docs.push(root.join(extra));
    }
    let mut broken = Vec::new();
    let mut checked = 0;
    for doc in &docs {
        let text = std::fs::read_to_string(doc)
            .unwrap_or_else(|e| panic!("reading {}: {e}", doc.display()));
        for event in Parser::new(&text) {
            let (Event::Start(Tag::Link { dest_url, .. })
            | Event::Start(Tag::Image { dest_url, .. })) = event
            else {
                continue;
            };
            let url = dest_url.to_string();
            if url.contains("://") || url.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (path, fragment) = match url.split_once('#') {
                Some((p, f)) => (p, Some(f)),
                None => (url.as_str(), None),
            };
            let target = if path.is_empty() {
                doc.clone()
            } else {
                doc.parent().unwrap_or(&root).join(path)
            };
            let shown = doc.strip_prefix(&root).unwrap_or(doc).display().to_string();
            if !target.exists() {
                broken.push(format!("{shown}: ({url}): no {}", target.display()));
                continue;
            }
            if let Some(fragment) = fragment {
                let target_text = std::fs::read_to_string(&target).unwrap_or_default();
                if !anchors(&target_text).contains(fragment) {
                    broken.push(format!("{shown}: ({url}): no heading #{fragment} there"));
                }
            }
        }
    }
    assert!(
        checked > 20,
        "only {checked} links found: is the parser reading the docs?"
    );
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// Commands that cannot run in a test as they are written, shown in `sh`
/// blocks: interactive or until Ctrl-C (`play`, `serve`, `--serve`), or writing
/// to a user's home (the install lines of completions and the manual, whose
/// plain forms run in `docs/guide/README.md`).
const NOT_RUN: &[&str] = &[
    "arena play ",
    "arena serve ",
    "--serve",
    "--watch",
    "arena completions ",
    "arena man ",
];

#[test]
fn every_arena_command_in_the_docs_is_an_example_that_runs() {
    let root = repo_root();
    let mut untested = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap_or_default();
        let shown = doc
            .strip_prefix(&root)
            .unwrap_or(&doc)
            .display()
            .to_string();
        let mut block: Option<(String, String)> = None;
        for event in Parser::new(&text) {
            match event {
                Event::Start(Tag::CodeBlock(kind)) => {
                    let info = match kind {
                        pulldown_cmark::CodeBlockKind::Fenced(info) => info.to_string(),
                        pulldown_cmark::CodeBlockKind::Indented => "(indented)".to_owned(),
                    };
                    block = Some((info, String::new()));
                }
                Event::Text(t) => {
                    if let Some((_, body)) = block.as_mut() {
                        body.push_str(&t);
                    }
                }
                Event::End(TagEnd::CodeBlock) => {
                    let Some((info, body)) = block.take() else {
                        continue;
                    };
                    // console blocks run; text blocks show output; file copies are
                    // checked against their files (tests/tests/cluster.rs).
                    if info.starts_with("console")
                        || ["text", "toml", "json", "yaml", "python"].contains(&info.as_str())
                    {
                        continue;
                    }
                    for line in body.lines() {
                        let command = line.trim().trim_start_matches("$ ");
                        if command.starts_with("arena ")
                            && !NOT_RUN.iter().any(|allowed| command.contains(allowed))
                        {
                            untested.push(format!("{shown} ({info} block): {command}"));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    assert!(
        untested.is_empty(),
        "commands shown outside a ```console block are never run; make them console examples:\n{}",
        untested.join("\n")
    );
}

/// The starts of output lines that some machines follow with lines of their own:
/// the sandbox banner, with a note or a warning per bot whose files need one.
const FOLLOWED_BY_MACHINE_LINES: &[&str] = &["sandbox: "];

#[test]
fn machine_dependent_lines_are_followed_by_an_elision() {
    let root = repo_root();
    let mut bare = Vec::new();
    let mut seen = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap_or_default();
        let shown = doc
            .strip_prefix(&root)
            .unwrap_or(&doc)
            .display()
            .to_string();
        let lines: Vec<&str> = text.lines().collect();
        let mut in_console = false;
        for (index, line) in lines.iter().enumerate() {
            if line.starts_with("```") {
                in_console = !in_console && line.starts_with("```console");
                continue;
            }
            if !in_console
                || !FOLLOWED_BY_MACHINE_LINES
                    .iter()
                    .any(|s| line.starts_with(s))
            {
                continue;
            }
            seen += 1;
            if lines.get(index + 1) != Some(&"...") {
                bare.push(format!("{shown}:{}: {line}", index + 1));
            }
        }
    }
    assert!(
        seen >= 4,
        "only {seen} sandbox banners found in the examples"
    );
    assert!(
        bare.is_empty(),
        "these lines are followed by notes on some machines (a bot below /root without \
         bubblewrap): put a `...` line after each\n{}",
        bare.join("\n")
    );
}

#[test]
fn the_readme_keeps_the_two_set_up_commands_that_ci_runs() {
    let root = repo_root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap_or_default();
    assert!(readme.contains("cargo run --release -p arena -- tournament\n"));
    assert!(readme.contains("cargo test --workspace\n"));
    assert!(readme.contains("cargo install --path arena"));
    let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap_or_default();
    // As written, or with its output kept (`| tee`) for the list of tests not run.
    assert!(
        ci.lines().any(|line| line == "cargo test --workspace"
            || line.starts_with("cargo test --workspace 2>&1 | tee ")),
        ".ci/run runs the README's test command"
    );
    let lines = readme.lines().count();
    assert!(
        lines <= 150,
        "the README is a front page of at most 150 lines, not {lines}"
    );
}
