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
        seen >= 3,
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
    // Without --locked, `cargo install` ignores Cargo.lock, resolves newer crates
    // and builds everything again instead of copying the main job's build.
    assert!(readme.contains("cargo install --locked --path arena\n"));
    let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap_or_default();
    // As written, or with its output kept (`| tee`) for the list of tests not run.
    assert!(
        ci.lines().any(|line| line == "cargo test --workspace"
            || line.starts_with("cargo test --workspace 2>&1 | tee ")),
        ".ci/run runs the README's test command"
    );
    // Exactly the two: the set-up section holds no third command to run first.
    let setup: Vec<&str> = readme
        .split("## Set up on a fresh machine")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .unwrap_or_default()
        .lines()
        .filter(|line| line.starts_with("    "))
        .collect();
    assert_eq!(
        setup,
        [
            "    cargo run --release -p arena -- tournament",
            "    cargo test --workspace"
        ]
    );
    let lines = readme.lines().count();
    assert!(
        lines <= 150,
        "the README is a front page of at most 150 lines, not {lines}"
    );
}

/// The code blocks of a document: (info string, body, the line the block starts
/// on, the HTML comment just before it, if any).
fn code_blocks(text: &str) -> Vec<(String, String, usize, Option<String>)> {
    let mut blocks = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index];
        let Some(info) = line.strip_prefix("```") else {
            index += 1;
            continue;
        };
        let start = index + 1;
        let comment = lines[..index]
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .filter(|l| l.trim_start().starts_with("<!--"))
            .map(|l| l.trim().to_owned());
        let mut body = String::new();
        index += 1;
        while index < lines.len() && !lines[index].starts_with("```") {
            body.push_str(lines[index]);
            body.push('\n');
            index += 1;
        }
        blocks.push((info.trim().to_owned(), body, start, comment));
        index += 1;
    }
    blocks
}

/// A console block's commands: the text after each `$ `, with its line.
fn console_commands(text: &str) -> Vec<(usize, String)> {
    code_blocks(text)
        .into_iter()
        .filter(|(info, ..)| info.starts_with("console"))
        .flat_map(|(_, body, start, _)| {
            body.lines()
                .enumerate()
                .filter_map(|(i, l)| Some((start + i + 1, l.strip_prefix("$ ")?.to_owned())))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Issue 49: a console example went on on a `> ` line, which trycmd joins to the
/// command and a shell runs as a command of its own, redirected: pasted, the
/// first line ran an SPRT without `--max-games`, the second printed `2000:
/// command not found` and left a file named `--time`. A command is one line.
#[test]
fn no_console_example_continues_a_command_on_a_line_a_shell_runs_on_its_own() {
    let root = repo_root();
    let mut continued = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap_or_default();
        let shown = doc
            .strip_prefix(&root)
            .unwrap_or(&doc)
            .display()
            .to_string();
        for (info, body, start, _) in code_blocks(&text) {
            if !info.starts_with("console") {
                continue;
            }
            for (i, line) in body.lines().enumerate() {
                if line.starts_with("> ") || line == ">" {
                    continued.push(format!("{shown}:{}: {line}", start + i + 1));
                }
            }
        }
    }
    assert!(
        continued.is_empty(),
        "a `> ` line in a console example is a new command with a redirection when \
         pasted: write the command on one line\n{}",
        continued.join("\n")
    );
}

/// The words bash makes of `command`, run in `dir` (an empty directory with
/// `HOME` in it, so that nothing a glob or `~` finds is the machine's own).
fn bash_words(command: &str, dir: &Path) -> Vec<String> {
    let script = format!("set -- {command}\nprintf '%s\\0' \"$@\"");
    let out = std::process::Command::new("bash")
        .args(["-c", &script])
        .current_dir(dir)
        .env("HOME", dir.join("home"))
        .output()
        .unwrap_or_else(|e| panic!("bash: {e}"));
    String::from_utf8_lossy(&out.stdout)
        .split('\0')
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The examples run in the tests without a shell (trycmd splits each command
/// like one, and starts the arena with the words). Pasted, they go through a
/// shell: each must mean to bash exactly the words the test ran, with no
/// expansion, redirection or second command the test never saw.
#[test]
fn every_console_command_means_to_a_shell_the_words_the_test_runs() {
    let scratch = tempfile::tempdir().unwrap_or_else(|e| panic!("temp dir: {e}"));
    let root = repo_root();
    let mut differ = Vec::new();
    let mut seen = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap_or_default();
        let shown = doc
            .strip_prefix(&root)
            .unwrap_or(&doc)
            .display()
            .to_string();
        for (line, command) in console_commands(&text) {
            seen += 1;
            let split = shlex::split(&command).unwrap_or_default();
            let bash = bash_words(&command, scratch.path());
            if split != bash {
                differ.push(format!(
                    "{shown}:{line}: {command}\n  the test runs {split:?}\n  a shell runs {bash:?}"
                ));
            }
        }
    }
    assert!(seen > 40, "only {seen} console commands found");
    assert!(
        differ.is_empty(),
        "these examples do something else when pasted into a shell:\n{}",
        differ.join("\n")
    );
}

/// Why an `sh` block may stay out of [`every_shell_snippet_in_the_docs_runs_as_pasted`],
/// as its info string says (```` ```sh,not-run=slow ````): only these.
const NOT_RUN_BECAUSE: &[(&str, &str)] = &[
    (
        "slow",
        "a release build or a calibration of minutes to hours",
    ),
    (
        "ci",
        "it downloads packages: .ci/run runs it as written, from the comment before it",
    ),
];

/// Commands that run until Ctrl-C: a block holding one is checked, not run.
const UNTIL_STOPPED: &[&str] = &["arena play ", "arena serve ", "--serve", "--watch"];

/// Words in a snippet that stand for something the reader must fill in: a
/// pasted command would fail on them.
const PLACEHOLDERS: &[&str] = &["example.invalid", "<your", "YOUR_", "path/to/"];

/// Issue 49: every shell snippet a reader may paste runs as written. Each ```` ```sh ````
/// block runs in bash (`-e`: every command must succeed), in order per document,
/// in a scratch directory with the reader's files (`configs/`, the starters,
/// `my_bot.py`), the arena on `PATH` and a home directory of its own. A block
/// that runs until stopped, or is marked `not-run=` with a reason of
/// [`NOT_RUN_BECAUSE`], is checked by `bash -n` and for placeholders instead.
/// `bash` blocks are copies of files (`<!-- file: … -->` before them), which
/// their own tests run.
#[test]
fn every_shell_snippet_in_the_docs_runs_as_pasted() {
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("temp dir: {e}"));
    let bin = work.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink(arena_bin(), bin.join("arena")).unwrap_or_else(|e| panic!("{e}"));
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let root = repo_root();
    let mut failed = Vec::new();
    let mut ran = 0;
    for (n, doc) in documents().into_iter().enumerate() {
        let text = std::fs::read_to_string(&doc).unwrap_or_default();
        let shown = doc
            .strip_prefix(&root)
            .unwrap_or(&doc)
            .display()
            .to_string();
        let dir = work.path().join(format!("doc{n}"));
        fixtures(&dir);
        let home = dir.join("home");
        std::fs::create_dir_all(&home).unwrap_or_else(|e| panic!("{e}"));
        for (info, body, start, comment) in code_blocks(&text) {
            let place = format!("{shown}:{start}");
            if info == "bash" {
                if !comment
                    .as_deref()
                    .is_some_and(|c| c.starts_with("<!-- file: "))
                {
                    failed.push(format!(
                        "{place}: a bash block is a copy of a file, with <!-- file: PATH --> \
                         before it; a snippet to paste is an sh block"
                    ));
                }
                continue;
            }
            let Some(attributes) = info.strip_prefix("sh") else {
                continue;
            };
            for placeholder in PLACEHOLDERS {
                if body.contains(placeholder) {
                    failed.push(format!(
                        "{place}: a placeholder ({placeholder}) fails when pasted"
                    ));
                }
            }
            let not_run = attributes.strip_prefix(",not-run=");
            if let Some(why) = not_run {
                if !NOT_RUN_BECAUSE.iter().any(|(word, _)| *word == why) {
                    failed.push(format!(
                        "{place}: not-run={why} is not a reason this test knows: {NOT_RUN_BECAUSE:?}"
                    ));
                }
                if why == "ci" {
                    let marker = comment.unwrap_or_default();
                    let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap_or_default();
                    if marker.is_empty() || !ci.contains(&marker) {
                        failed.push(format!(
                            "{place}: a not-run=ci block follows a comment that .ci/run looks for \
                             (found {marker:?})"
                        ));
                    }
                }
            } else if !attributes.is_empty() {
                failed.push(format!("{place}: unknown attributes: {info}"));
            }
            let until_stopped = UNTIL_STOPPED.iter().any(|c| body.contains(c));
            if not_run.is_some() || until_stopped {
                let syntax = std::process::Command::new("bash")
                    .args(["-n", "-c", &body])
                    .output()
                    .unwrap_or_else(|e| panic!("bash: {e}"));
                if !syntax.status.success() {
                    failed.push(format!(
                        "{place}: bash -n: {}",
                        String::from_utf8_lossy(&syntax.stderr)
                    ));
                }
                continue;
            }
            ran += 1;
            let out = std::process::Command::new("timeout")
                .args(["300", "bash", "-e", "-c", &body])
                .current_dir(&dir)
                .env("PATH", &path)
                .env("HOME", &home)
                .env("NO_COLOR", "1")
                .stdin(std::process::Stdio::null())
                .output()
                .unwrap_or_else(|e| panic!("bash: {e}"));
            if !out.status.success() {
                failed.push(format!(
                    "{place}: exit {:?}\n{}\n{}{}",
                    out.status.code(),
                    body.trim_end(),
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    assert!(ran >= 4, "only {ran} shell snippets ran");
    assert!(
        failed.is_empty(),
        "shell snippets that do not run as pasted:\n{}",
        failed.join("\n\n")
    );
}

/// Issue 49: the CI guide's GitHub Actions job installed the arena from a
/// placeholder URL. CI cannot run a workflow, so its file is checked for what
/// would make it fail on GitHub: it is YAML with a job whose steps each `uses`
/// a real action (`owner/repo@ref`) or `run`s bash that parses; the arena comes
/// from a step that installs it from the checked-out submodule this
/// repository's layout fits; nothing is a placeholder; and its `arena`
/// command runs here with the same flags, on built-in bots, two games.
#[test]
fn the_github_actions_job_in_the_ci_guide_is_complete_and_its_arena_command_runs() {
    use yaml_rust2::{Yaml, YamlLoader};
    let root = repo_root();
    let guide = std::fs::read_to_string(root.join("docs/guide/ci.md")).unwrap_or_default();
    let blocks: Vec<String> = code_blocks(&guide)
        .into_iter()
        .filter(|(info, body, ..)| info == "yaml" && body.contains("runs-on:"))
        .map(|(_, body, ..)| body)
        .collect();
    assert_eq!(blocks.len(), 1, "one workflow in docs/guide/ci.md");
    let workflow = &blocks[0];
    for placeholder in PLACEHOLDERS {
        assert!(
            !workflow.contains(placeholder),
            "a placeholder: {placeholder}"
        );
    }
    let docs = YamlLoader::load_from_str(workflow).unwrap_or_else(|e| panic!("YAML: {e}"));
    let doc = &docs[0];
    assert!(!doc["on"].is_badvalue(), "the workflow says when it runs");
    let Some(jobs) = doc["jobs"].as_hash() else {
        panic!("no jobs: {workflow}")
    };
    let mut runs = Vec::new();
    let mut uses = Vec::new();
    for job in jobs.values() {
        assert!(job["runs-on"].as_str().is_some(), "runs-on");
        let steps = job["steps"].as_vec().unwrap_or_else(|| panic!("steps"));
        for step in steps {
            match (step["uses"].as_str(), step["run"].as_str()) {
                (Some(action), None) => uses.push((action.to_owned(), step.clone())),
                (None, Some(script)) => runs.push(script.to_owned()),
                _ => panic!("a step either uses an action or runs a script: {step:?}"),
            }
        }
    }
    for (action, _) in &uses {
        let (name, reference) = action.split_once('@').unwrap_or((action, ""));
        let parts: Vec<&str> = name.split('/').collect();
        assert!(
            parts.len() >= 2
                && parts.iter().all(|p| !p.is_empty())
                && !reference.is_empty()
                && action
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./@".contains(c)),
            "not an action reference (owner/repo@ref): {action}"
        );
    }
    let checkout = uses
        .iter()
        .find(|(action, _)| action.starts_with("actions/checkout@"))
        .unwrap_or_else(|| panic!("the job checks out the repository"));
    assert_eq!(
        checkout.1["with"]["submodules"],
        Yaml::Boolean(true),
        "the checkout brings the arena's submodule"
    );
    let install = runs
        .iter()
        .find(|r| r.contains("cargo install"))
        .unwrap_or_else(|| panic!("a step installs the arena"));
    assert!(
        install.contains("cargo install --locked --path uttt-arena/arena"),
        "the arena is installed from its submodule, with its own Cargo.lock: {install}"
    );
    assert!(root.join("arena").join("Cargo.toml").exists());
    for script in &runs {
        let syntax = std::process::Command::new("bash")
            .args(["-n", "-c", script])
            .output()
            .unwrap_or_else(|e| panic!("bash: {e}"));
        assert!(syntax.status.success(), "bash -n: {script}");
    }
    // The SPRT step's command, its lines joined, with built-in bots and two games.
    let sprt = runs
        .iter()
        .map(|r| r.replace("\\\n", " "))
        .flat_map(|r| {
            r.lines()
                .map(str::trim)
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .find(|l| l.starts_with("arena sprt "))
        .unwrap_or_else(|| panic!("the job runs arena sprt"));
    let mut words = shlex::split(&sprt).unwrap_or_default();
    for word in &mut words {
        if word.starts_with("new=") {
            *word = "new=mcts --playouts 50".into();
        } else if word.starts_with("base=") {
            *word = "base=random".into();
        }
    }
    let at = words
        .iter()
        .position(|w| w == "--max-games")
        .unwrap_or_else(|| panic!("the job's SPRT has --max-games: {sprt}"));
    words[at + 1] = "2".into();
    let scratch = tempfile::tempdir().unwrap_or_else(|e| panic!("temp dir: {e}"));
    let out = std::process::Command::new(arena_bin())
        .args(&words[1..])
        .current_dir(scratch.path())
        .output()
        .unwrap_or_else(|e| panic!("arena: {e}"));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        matches!(out.status.code(), Some(0 | 1 | 3)),
        "the job's arena command with built-in bots: {words:?}\n{said}"
    );
}
