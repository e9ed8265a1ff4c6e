//! Bots from a folder of submissions: `[[bot]] glob = "students/*"` makes one bot
//! per matching directory, named after it. What runs is said by the directory's
//! own `bot.toml` (`command`, `build`, `protocol`, `args`), or else by a
//! convention on the files in it:
//!
//! | the directory holds | the bot runs | built first with |
//! |---|---|---|
//! | `main.cpp` or `bot.cpp` | `./bot` | `g++ -std=c++17 -O2 -o bot *.cpp` |
//! | `bot.py` | `python3 bot.py` | — |
//! | `bot.js` | `node bot.js` | — |
//! | an executable file `bot` (and none of the above) | `./bot` | — |
//!
//! A directory that matches none of these, or more than one language, or whose
//! `bot.toml` cannot be read, is a [`Found::Nothing`] with the reason and the
//! fix: the tournament reports it by name instead of skipping it.
//!
//! A submission is written by someone the teacher does not trust, so it stays
//! inside its folder: a folder that is a symbolic link, or holds one pointing
//! outside, is left out ([`outside_links`]); so is a folder whose name is a
//! built-in bot's (`mcts`: the tables could not tell them apart), and folders
//! whose names become the same bot name (`-alice` and `alice`: the folder
//! already named so keeps it, [`settle_names`]). Once its command is resolved,
//! [`confine`] checks that it names only the folder's own files and the
//! machine's programs. Hidden folders, which a glob never matches, are listed
//! so they can be reported.
//!
//! This module only looks at files; it resolves no command and starts nothing.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use serde::Deserialize;

use super::bot_spec::{BotSpec, sanitize_name};
use super::settings::builds::{Over, SubmissionCap};

/// The file a submission may describe itself in.
pub const BOT_TOML: &str = "bot.toml";

/// The build the C++ convention runs.
pub const CPP_BUILD: &str = "g++ -std=c++17 -O2 -o bot *.cpp";

/// One directory a glob matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submission {
    /// The bot's name: the directory's, made safe for results.
    pub name: String,
    /// The directory (absolute when the tournament file's directory is).
    pub dir: PathBuf,
    /// What it holds.
    pub found: Found,
}

/// What a submission directory holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// A bot, and how it is run.
    Bot(SubmittedBot),
    /// No bot: why, with the fix, in words for the teacher and the student.
    Nothing(String),
}

/// How a submitted bot is run, as its `bot.toml` or a convention says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubmittedBot {
    /// The command line, relative to the directory.
    pub command: String,
    /// A build step run in the directory first, if any.
    pub build: Option<String>,
    /// The protocol, if `bot.toml` names one.
    pub protocol: Option<String>,
    /// Extra arguments from `bot.toml`.
    pub args: Vec<String>,
    /// Which rule found it.
    pub rule: Rule,
}

/// Which rule found a submission's command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// The directory's `bot.toml`.
    BotToml,
    /// `main.cpp` or `bot.cpp`.
    Cpp,
    /// `bot.py`.
    Python,
    /// `bot.js`.
    JavaScript,
    /// An executable named `bot`.
    Executable,
}

impl Rule {
    /// How the rule reads in messages.
    pub const fn describe(self) -> &'static str {
        match self {
            Rule::BotToml => "its bot.toml",
            Rule::Cpp => "C++ (main.cpp or bot.cpp)",
            Rule::Python => "Python (bot.py)",
            Rule::JavaScript => "JavaScript (bot.js)",
            Rule::Executable => "an executable named bot",
        }
    }
}

/// `bot.toml` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct BotToml {
    command: Option<String>,
    build: Option<String>,
    protocol: Option<String>,
    #[serde(default)]
    args: Vec<String>,
}

/// Why a glob cannot be expanded at all (a mistake in the tournament file).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GlobError {
    /// Not a valid pattern.
    #[error("glob \"{pattern}\" is not a valid pattern: {why}")]
    Pattern {
        /// The pattern as written.
        pattern: String,
        /// What is wrong with it.
        why: String,
    },
    /// It matches no directory.
    #[error(
        "glob \"{pattern}\" matches no directory (looked in {}): put one directory per bot there, or fix the pattern",
        base.display()
    )]
    Empty {
        /// The pattern as written.
        pattern: String,
        /// Where it was looked for.
        base: PathBuf,
    },
}

/// What a glob found: the submissions, and the hidden directories it passed
/// over (its `*` does not match a leading dot).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expansion {
    /// One per matching directory, in name order.
    pub submissions: Vec<Submission>,
    /// Hidden directories the pattern would match but for their leading dot.
    pub hidden: Vec<PathBuf>,
}

/// The directories `pattern` (relative to `base`) matches, in name order, each
/// with what it holds, its name settled against the others'. Files are not
/// submissions and are passed over; hidden directories are listed apart.
///
/// # Errors
/// [`GlobError`]: a bad pattern, or one that matches no directory.
pub fn expand(pattern: &str, base: &Path, cap: SubmissionCap) -> Result<Expansion, GlobError> {
    let dirs = matching_dirs(pattern, base, true)?;
    if dirs.is_empty() {
        return Err(GlobError::Empty {
            pattern: pattern.to_string(),
            base: base.to_path_buf(),
        });
    }
    let hidden = matching_dirs(pattern, base, false)?
        .into_iter()
        .filter(|d| !dirs.contains(d))
        .collect();
    let mut submissions: Vec<Submission> = dirs
        .into_iter()
        .map(|dir| {
            let found = match std::fs::read_link(&dir) {
                Ok(target) => Found::Nothing(format!(
                    "it is a symbolic link (to {}): a submission must be a folder of its own, not a link to one",
                    target.display()
                )),
                Err(_) => inspect(&dir, cap),
            };
            Submission {
                name: sanitize_name(&folder_name(&dir)),
                found,
                dir,
            }
        })
        .collect();
    settle_names(&mut submissions);
    Ok(Expansion {
        submissions,
        hidden,
    })
}

/// The directories `pattern` matches below `base`, sorted; with `literal_dot`,
/// as a glob is read (no `*` matching a leading dot).
fn matching_dirs(pattern: &str, base: &Path, literal_dot: bool) -> Result<Vec<PathBuf>, GlobError> {
    // The base is a path, not a pattern: a '[' or '*' in it matches itself.
    let full = Path::new(&glob::Pattern::escape(&base.to_string_lossy())).join(pattern);
    let options = glob::MatchOptions {
        case_sensitive: true,
        require_literal_separator: true,
        require_literal_leading_dot: literal_dot,
    };
    let paths =
        glob::glob_with(&full.to_string_lossy(), options).map_err(|e| GlobError::Pattern {
            pattern: pattern.to_string(),
            why: e.msg.to_string(),
        })?;
    let mut dirs: Vec<PathBuf> = paths
        .filter_map(Result::ok)
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    Ok(dirs)
}

fn folder_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The name a submission left out for its name is reported (and given
/// feedback) under: its folder's name when that is a safe file name, else the
/// folder's name with every other character written `%XX`, so distinct folders
/// keep distinct names (`c c` is `c%20c`, `c?c` is `c%3Fc`).
fn shown_name(raw: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-');
    if !raw.is_empty() && !raw.starts_with('.') && raw.chars().all(safe) {
        return raw.to_string();
    }
    let mut shown = String::new();
    for c in raw.chars() {
        if safe(c) && !(shown.is_empty() && c == '.') {
            shown.push(c);
        } else {
            let mut bytes = [0u8; 4];
            for b in c.encode_utf8(&mut bytes).bytes() {
                shown.push_str(&format!("%{b:02X}"));
            }
        }
    }
    shown
}

/// Whether `name` would pass for a built-in bot in the tables: a registry name
/// (`mcts`, `level3`) or one a built-in with options gets (`mcts-fast`), in any
/// case.
pub fn looks_builtin(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    bots::registry::NAMES.iter().copied().find(|builtin| {
        lower == *builtin
            || lower
                .strip_prefix(builtin)
                .is_some_and(|rest| rest.starts_with('-'))
    })
}

/// Leaves out the submissions whose names would mislead: one named like a
/// built-in bot, and every folder whose name had to change to become the same
/// bot name as another folder's (the folder already named so keeps it; with
/// none, or two, every one of them is left out). Each says which folders.
pub fn settle_names(submissions: &mut [Submission]) {
    let mut by_name: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, s) in submissions.iter().enumerate() {
        by_name.entry(s.name.clone()).or_default().push(i);
    }
    let mut refusals: Vec<(usize, String)> = Vec::new();
    for (name, folders) in &by_name {
        if let Some(builtin) = looks_builtin(name) {
            for &i in folders {
                refusals.push((i, format!(
                    "its name '{name}' is that of the built-in bot '{builtin}', so the tables could not tell them apart: rename the folder"
                )));
            }
            continue;
        }
        if folders.len() < 2 {
            continue;
        }
        let exact: Vec<usize> = folders
            .iter()
            .copied()
            .filter(|&i| folder_name(&submissions[i].dir) == *name)
            .collect();
        let keeper = match exact.as_slice() {
            [one] => Some(*one),
            _ => None,
        };
        for &i in folders.iter().filter(|&&i| Some(i) != keeper) {
            let others: Vec<String> = folders
                .iter()
                .filter(|&&j| j != i)
                .map(|&j| submissions[j].dir.display().to_string())
                .collect();
            let raw = folder_name(&submissions[i].dir);
            let why = match keeper {
                Some(k) => format!(
                    "its name '{raw}' becomes the bot name '{name}', which the folder {} already has: rename it (letters, digits, '_', '.', '-')",
                    submissions[k].dir.display()
                ),
                None => format!(
                    "its name '{raw}' becomes the bot name '{name}', as {} do: rename them so that each is a distinct name (letters, digits, '_', '.', '-')",
                    others.join(" and ")
                ),
            };
            refusals.push((i, why));
        }
    }
    for (i, why) in refusals {
        let s = &mut submissions[i];
        s.name = shown_name(&folder_name(&s.dir));
        s.found = Found::Nothing(why);
    }
}

/// What one submission directory holds: its `bot.toml`, else the conventions.
/// A folder holding a symbolic link that leads outside it, or more than `cap`,
/// holds nothing usable.
pub fn inspect(dir: &Path, cap: SubmissionCap) -> Found {
    match survey(dir, cap) {
        Ok(Survey {
            over: Some(over), ..
        }) => return Found::Nothing(cap.refusal(&over)),
        Ok(Survey { outside, .. }) if outside.is_empty() => {}
        Ok(Survey { outside, .. }) => {
            return Found::Nothing(format!(
                "it holds a symbolic link that leads outside it ({}): a submission may use only its own files: replace the link with the file itself",
                outside.join(", ")
            ));
        }
        Err(e) => return Found::Nothing(format!("it cannot be read: {e}")),
    }
    let toml_path = dir.join(BOT_TOML);
    let described = match read_bot_toml(&toml_path) {
        Ok(text) => match toml::from_str::<BotToml>(text.trim_start_matches('\u{feff}')) {
            Ok(t) => Some(t),
            Err(e) => {
                let line = e
                    .span()
                    .map(|s| {
                        format!(
                            ":{}",
                            text[..s.start.min(text.len())].matches('\n').count() + 1
                        )
                    })
                    .unwrap_or_default();
                return Found::Nothing(format!(
                    "{BOT_TOML}{line}: {} (it may set command, build, protocol and args)",
                    e.message().trim().replace('\n', " ")
                ));
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Found::Nothing(format!("{BOT_TOML} cannot be read: {e}")),
    };
    let convention = convention(dir);
    match (described, convention) {
        (Some(toml), by_files) => {
            let fallback = by_files.ok();
            let Some(command) = toml
                .command
                .or_else(|| fallback.as_ref().map(|b| b.command.clone()))
            else {
                return Found::Nothing(format!(
                    "{BOT_TOML} has no command and no file here says how to run the bot: add command = \"…\" to it"
                ));
            };
            let build = toml
                .build
                .or_else(|| fallback.as_ref().and_then(|b| b.build.clone()));
            Found::Bot(SubmittedBot {
                command,
                build,
                protocol: toml.protocol,
                args: toml.args,
                rule: Rule::BotToml,
            })
        }
        (None, Ok(bot)) => Found::Bot(bot),
        (None, Err(why)) => Found::Nothing(why),
    }
}

/// The most of a `bot.toml` read: four keys fit in a few lines.
const BOT_TOML_MAX_BYTES: u64 = 64 * 1024;

/// A submission's `bot.toml`, refused past [`BOT_TOML_MAX_BYTES`] or when it is
/// not a plain file (the folder is the student's: the file may be anything, a
/// FIFO or gigabytes long; a link leading outside was refused before).
fn read_bot_toml(path: &Path) -> std::io::Result<String> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("it is not a plain file"));
    }
    let mut text = String::new();
    file.take(BOT_TOML_MAX_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| std::io::Error::other(format!("it is not UTF-8 text ({e})")))?;
    if text.len() as u64 > BOT_TOML_MAX_BYTES {
        return Err(std::io::Error::other(format!(
            "it is longer than {} KiB: it says only command, build, protocol and args",
            BOT_TOML_MAX_BYTES / 1024
        )));
    }
    Ok(text)
}

/// The conventions, on the file names alone.
fn convention(dir: &Path) -> Result<SubmittedBot, String> {
    let has = |name: &str| dir.join(name).is_file();
    let mut languages = Vec::new();
    if has("main.cpp") || has("bot.cpp") {
        languages.push(Rule::Cpp);
    }
    if has("bot.py") {
        languages.push(Rule::Python);
    }
    if has("bot.js") {
        languages.push(Rule::JavaScript);
    }
    let bot = |rule: Rule, command: &str, build: Option<&str>| SubmittedBot {
        command: command.to_string(),
        build: build.map(str::to_string),
        protocol: None,
        args: Vec::new(),
        rule,
    };
    match languages.as_slice() {
        [Rule::Cpp] => Ok(bot(Rule::Cpp, "./bot", Some(CPP_BUILD))),
        [Rule::Python] => Ok(bot(Rule::Python, "python3 bot.py", None)),
        [Rule::JavaScript] => Ok(bot(Rule::JavaScript, "node bot.js", None)),
        [] if is_executable_file(&dir.join("bot")) => Ok(bot(Rule::Executable, "./bot", None)),
        [] => Err(format!(
            "no bot found: add one of main.cpp or bot.cpp (built with g++), bot.py, bot.js or an executable named bot, or a {BOT_TOML} with command = \"…\""
        )),
        several => Err(format!(
            "more than one bot found ({}): keep one, or add a {BOT_TOML} with command = \"…\" to choose",
            several
                .iter()
                .map(|r| r.describe())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// What a look over a submission's folder found: the symbolic links that lead
/// outside it (`name -> target`), and whether it holds more than its cap.
#[derive(Debug, Default)]
struct Survey {
    outside: Vec<String>,
    over: Option<Over>,
}

/// Looks over every entry below `dir` (never through a link): the links that
/// lead outside it, following each to its end (one that leads nowhere, dangling
/// or a loop, is no way out and is not listed), and its size against `cap`,
/// from the entries' metadata alone (nothing is read). The look stops at the
/// first entry past the cap, so a folder of millions of files costs no more
/// than one at the cap.
///
/// # Errors
/// A directory below `dir` cannot be read.
fn survey(dir: &Path, cap: SubmissionCap) -> std::io::Result<Survey> {
    let root = std::fs::canonicalize(dir)?;
    let mut found = Survey::default();
    let (mut entries, mut bytes) = (0u64, 0u64);
    let mut pending = vec![root.clone()];
    while let Some(current) = pending.pop() {
        for entry in std::fs::read_dir(&current)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            let path = entry.path();
            let shown = || {
                path.strip_prefix(&root)
                    .unwrap_or(&path)
                    .display()
                    .to_string()
            };
            entries += 1;
            if entries > cap.files {
                found.over = Some(Over::Files);
                return Ok(found);
            }
            if kind.is_dir() {
                pending.push(path.clone());
            } else if kind.is_file() {
                let length = entry.metadata()?.len();
                bytes = bytes.saturating_add(length);
                if bytes > cap.bytes {
                    found.over = Some(Over::Bytes {
                        file: shown(),
                        length,
                    });
                    return Ok(found);
                }
            } else if kind.is_symlink()
                && let Ok(target) = std::fs::canonicalize(&path)
                && !target.starts_with(&root)
            {
                found
                    .outside
                    .push(format!("{} -> {}", shown(), target.display()));
            }
        }
    }
    found.outside.sort();
    Ok(found)
}

/// Checks that a submission's resolved command stays inside its folder (the
/// spec's working directory): its program is in the folder or is the program
/// the machine's `PATH` finds under its name (an interpreter, a compiler), and
/// every argument that is a path (absolute, with a `/`, `..`, `~`, also after
/// `--option=`) leads into the folder. Built-in bots and the `arena` program
/// (`arena_exe`) are refused unless `allow_builtin`.
///
/// # Errors
/// What it reaches for, in words for the teacher and the student.
pub fn confine(spec: &BotSpec, arena_exe: &Path, allow_builtin: bool) -> Result<(), String> {
    const ALLOW: &str = "allow-builtin = true in the tournament file lets submissions use them";
    let command = &spec.command;
    let Some(written_folder) = &command.working_dir else {
        return Err("it has no folder of its own".into());
    };
    let folder = std::fs::canonicalize(written_folder).map_err(|e| {
        format!(
            "its folder {} cannot be read: {e}",
            written_folder.display()
        )
    })?;
    let same = |a: &Path, b: &Path| {
        std::fs::canonicalize(a).is_ok_and(|a| std::fs::canonicalize(b).is_ok_and(|b| a == b))
    };
    if spec.builtin || same(&command.program, arena_exe) {
        if allow_builtin {
            return Ok(());
        }
        let what = if spec.builtin {
            format!(
                "the built-in bot '{}'",
                command
                    .args
                    .get(1)
                    .map_or_else(String::new, |a| a.to_string_lossy().into_owned())
            )
        } else {
            "the arena program itself".to_string()
        };
        return Err(format!(
            "its command runs {what}, not code of its own: a submission may not play a built-in bot ({ALLOW})"
        ));
    }
    let inside = |path: &Path| leads_into(path, &folder);
    let program = &command.program;
    if !inside(program) && !machines(program) {
        return Err(format!(
            "its program {} is outside its folder and is not a program of this machine (on PATH): a submission may run only its own files or an interpreter such as python3",
            program.display()
        ));
    }
    for arg in &command.args {
        let arg = arg.to_string_lossy();
        let value = arg
            .strip_prefix('-')
            .and_then(|option| option.split_once('='))
            .map(|(_, value)| value);
        for word in std::iter::once(arg.as_ref()).chain(value) {
            let pathlike = word.starts_with('~')
                || word.starts_with('/')
                || word.contains('/')
                || word == "..";
            if pathlike && (word.starts_with('~') || !inside(Path::new(word))) {
                // As the student wrote it: the resolver put the folder in front.
                let shown = Path::new(word)
                    .strip_prefix(written_folder)
                    .map_or_else(|_| word.to_string(), |p| p.display().to_string());
                return Err(format!(
                    "its command names {shown}, outside its folder: a submission may use only its own files (and the programs of this machine)"
                ));
            }
        }
    }
    Ok(())
}

/// Whether `program` is one of this machine's: in a directory of `PATH` (as
/// written or once its links are followed), or below `/usr`, `/bin` or
/// `/sbin` (an interpreter reached through a link in `/etc/alternatives`).
fn machines(program: &Path) -> bool {
    let real = std::fs::canonicalize(program).unwrap_or_else(|_| program.to_path_buf());
    if ["/usr", "/bin", "/sbin"]
        .iter()
        .any(|d| real.starts_with(d))
    {
        return true;
    }
    let on_path: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .filter_map(|d| std::fs::canonicalize(d).ok())
                .collect()
        })
        .unwrap_or_default();
    [program, real.as_path()].iter().any(|p| {
        p.parent()
            .and_then(|d| std::fs::canonicalize(d).ok())
            .is_some_and(|d| on_path.contains(&d))
    })
}

/// Whether `path` (taken from `folder` when relative) leads into `folder`
/// (canonical), following the links of the part that exists and reading the
/// rest (`..` included) as written.
fn leads_into(path: &Path, folder: &Path) -> bool {
    let full = folder.join(path);
    let mut existing = full.as_path();
    let mut rest: Vec<Component<'_>> = Vec::new();
    let resolved = loop {
        if let Ok(real) = std::fs::canonicalize(existing) {
            break real;
        }
        let Some(parent) = existing.parent() else {
            return false;
        };
        if let Some(last) = existing.components().next_back() {
            rest.push(last);
        }
        existing = parent;
    };
    let mut resolved = resolved;
    for part in rest.into_iter().rev() {
        match part {
            Component::ParentDir => {
                resolved.pop();
            }
            Component::Normal(name) => resolved.push(name),
            _ => {}
        }
    }
    resolved.starts_with(folder)
}

fn is_executable_file(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    fn found(files: &[(&str, &str)]) -> Found {
        let dir = folder(files);
        inspect(dir.path(), SubmissionCap::default())
    }

    #[test]
    fn each_convention_picks_its_command() {
        let Found::Bot(py) = found(&[("bot.py", "")]) else {
            panic!()
        };
        assert_eq!((py.command.as_str(), py.build), ("python3 bot.py", None));
        let Found::Bot(js) = found(&[("bot.js", "")]) else {
            panic!()
        };
        assert_eq!(js.command, "node bot.js");
        let Found::Bot(cpp) = found(&[("main.cpp", ""), ("util.h", "")]) else {
            panic!()
        };
        assert_eq!(
            (cpp.command.as_str(), cpp.build.as_deref()),
            ("./bot", Some(CPP_BUILD))
        );
        // A C++ directory that was built before still builds (and runs ./bot).
        let Found::Bot(built) = found(&[("bot.cpp", ""), ("bot", "")]) else {
            panic!()
        };
        assert_eq!(built.rule, Rule::Cpp);
    }

    #[test]
    fn an_executable_named_bot_runs_as_it_is() {
        let dir = folder(&[("bot", "#!/bin/sh\n")]);
        assert!(
            matches!(
                inspect(dir.path(), SubmissionCap::default()),
                Found::Nothing(_)
            ),
            "not executable yet"
        );
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(
            dir.path().join("bot"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        let Found::Bot(bot) = inspect(dir.path(), SubmissionCap::default()) else {
            panic!()
        };
        assert_eq!(
            (bot.command.as_str(), bot.rule),
            ("./bot", Rule::Executable)
        );
    }

    #[test]
    fn bot_toml_says_what_the_files_cannot() {
        let Found::Bot(bot) = found(&[
            ("bot.py", ""),
            (
                "bot.toml",
                "command = \"python3 main.py\"\nargs = [\"--fast\"]\nprotocol = \"codingame\"\n",
            ),
        ]) else {
            panic!()
        };
        assert_eq!(bot.command, "python3 main.py");
        assert_eq!(bot.args, ["--fast"]);
        assert_eq!(bot.protocol.as_deref(), Some("codingame"));
        assert_eq!(bot.rule, Rule::BotToml);
        // A bot.toml with a build only keeps the convention's command.
        let Found::Bot(bot) = found(&[("main.cpp", ""), ("bot.toml", "build = \"make\"\n")]) else {
            panic!()
        };
        assert_eq!(
            (bot.command.as_str(), bot.build.as_deref()),
            ("./bot", Some("make"))
        );
    }

    #[test]
    fn a_directory_without_a_bot_says_why_and_how_to_fix_it() {
        let Found::Nothing(why) = found(&[("README.md", "")]) else {
            panic!()
        };
        assert!(
            why.starts_with("no bot found: add one of main.cpp"),
            "{why}"
        );
        let Found::Nothing(why) = found(&[("bot.py", ""), ("bot.js", "")]) else {
            panic!()
        };
        assert_eq!(
            why,
            "more than one bot found (Python (bot.py), JavaScript (bot.js)): keep one, or add a bot.toml with command = \"…\" to choose"
        );
        let Found::Nothing(why) = found(&[("bot.py", ""), ("bot.toml", "\ncomand = \"x\"\n")])
        else {
            panic!()
        };
        assert!(
            why.starts_with("bot.toml:2: unknown field `comand`"),
            "{why}"
        );
        let Found::Nothing(why) = found(&[("bot.toml", "build = \"make\"\n")]) else {
            panic!()
        };
        assert!(why.contains("has no command"), "{why}");
    }

    #[test]
    fn a_glob_expands_to_directories_in_name_order() {
        let dir = folder(&[
            ("students/zoe/bot.py", ""),
            ("students/al ex/bot.js", ""),
            ("students/notes.txt", ""),
            ("students/.git/bot.py", ""),
            ("students/empty/README", ""),
        ]);
        let expansion = expand("students/*", dir.path(), SubmissionCap::default()).unwrap();
        let found = &expansion.submissions;
        let names: Vec<&str> = found.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["al-ex", "empty", "zoe"]);
        assert!(matches!(found[1].found, Found::Nothing(_)));
        assert_eq!(expansion.hidden, [dir.path().join("students/.git")]);
        assert_eq!(
            expand("nobody/*", dir.path(), SubmissionCap::default()).unwrap_err(),
            GlobError::Empty {
                pattern: "nobody/*".into(),
                base: dir.path().to_path_buf()
            }
        );
        assert!(matches!(
            expand("students/[", dir.path(), SubmissionCap::default()),
            Err(GlobError::Pattern { .. })
        ));
    }

    #[test]
    fn a_folder_over_its_cap_is_left_out_from_its_entries_alone() {
        let dir = folder(&[
            ("s/ada/bot.py", ""),
            ("s/bo/bot.py", ""),
            ("s/cy/bot.py", ""),
        ]);
        // bo: a sparse file of 3 GiB (no disk used); cy: eleven entries.
        let big = std::fs::File::create(dir.path().join("s/bo/big.bin")).unwrap();
        big.set_len(3 << 30).unwrap();
        for i in 0..5 {
            std::fs::create_dir(dir.path().join(format!("s/cy/d{i}"))).unwrap();
            std::fs::write(dir.path().join(format!("s/cy/d{i}/x.py")), "").unwrap();
        }
        let cap = SubmissionCap {
            bytes: 1 << 20,
            files: 10,
        };
        let found = expand("s/*", dir.path(), cap).unwrap().submissions;
        assert!(matches!(found[0].found, Found::Bot(_)), "{:?}", found[0]);
        assert_eq!(
            nothing(&found[1]),
            "it holds more than 1 MiB (its file big.bin alone is 3.0 GiB): a submission may hold \
             at most 1 MiB and 10 files and folders (submission-max-mb and submission-max-files \
             in the tournament file): remove what the bot does not need (data, builds, archives)"
        );
        assert!(
            nothing(&found[2]).starts_with("it holds more than 10 files and folders: "),
            "{}",
            nothing(&found[2])
        );
        // The default cap takes them all but the sparse file.
        let found = expand("s/*", dir.path(), SubmissionCap::default())
            .unwrap()
            .submissions;
        let kept: Vec<bool> = found
            .iter()
            .map(|s| matches!(s.found, Found::Bot(_)))
            .collect();
        assert_eq!(kept, [true, false, true]);
    }

    #[test]
    fn a_bot_toml_is_read_only_when_it_is_a_short_plain_file() {
        let long = format!("command = \"python3 bot.py\"\n{}", "# ...\n".repeat(20_000));
        let Found::Nothing(why) = found(&[("bot.py", ""), ("bot.toml", &long)]) else {
            panic!()
        };
        assert_eq!(
            why,
            "bot.toml cannot be read: it is longer than 64 KiB: it says only command, build, protocol and args"
        );
        // A FIFO is refused at once, never waited on.
        let dir = folder(&[("bot.py", "")]);
        nix::unistd::mkfifo(
            &dir.path().join(BOT_TOML),
            nix::sys::stat::Mode::from_bits_truncate(0o644),
        )
        .unwrap();
        let Found::Nothing(why) = inspect(dir.path(), SubmissionCap::default()) else {
            panic!()
        };
        assert_eq!(why, "bot.toml cannot be read: it is not a plain file");
    }

    fn nothing(s: &Submission) -> &str {
        match &s.found {
            Found::Nothing(why) => why,
            Found::Bot(_) => panic!("{} was kept", s.dir.display()),
        }
    }

    #[test]
    fn clashing_names_leave_out_every_folder_whose_name_had_to_change() {
        let dir = folder(&[
            ("s/alice/bot.py", ""),
            ("s/-alice/bot.py", ""),
            ("s/c c/bot.py", ""),
            ("s/c?c/bot.py", ""),
            ("s/c-c/bot.py", ""),
            ("s/d d/bot.py", ""),
            ("s/d?d/bot.py", ""),
            ("s/MCTS/bot.py", ""),
            ("s/level3/bot.py", ""),
            ("s/mcts-fast/bot.py", ""),
            ("s/greedyness/bot.py", ""),
        ]);
        let found = expand("s/*", dir.path(), SubmissionCap::default())
            .unwrap()
            .submissions;
        let by_folder = |name: &str| {
            found
                .iter()
                .find(|s| s.dir.file_name().is_some_and(|f| f == name))
                .unwrap()
        };
        for kept in ["alice", "c-c", "greedyness"] {
            assert!(
                matches!(by_folder(kept).found, Found::Bot(_)),
                "{kept}: {:?}",
                by_folder(kept).found
            );
            assert_eq!(by_folder(kept).name, kept);
        }
        let minus = by_folder("-alice");
        assert_eq!(minus.name, "-alice");
        assert!(
            nothing(minus)
                .starts_with("its name '-alice' becomes the bot name 'alice', which the folder ")
                && nothing(minus).contains("s/alice already has"),
            "{}",
            nothing(minus)
        );
        assert_eq!(by_folder("c c").name, "c%20c");
        assert_eq!(by_folder("c?c").name, "c%3Fc");
        assert!(nothing(by_folder("c?c")).contains("s/c-c already has"));
        // No folder is named 'd-d': both are left out, each naming the other.
        assert!(
            nothing(by_folder("d d")).contains("as ")
                && nothing(by_folder("d d")).contains("s/d?d do"),
            "{}",
            nothing(by_folder("d d"))
        );
        assert!(nothing(by_folder("d?d")).contains("s/d d do"));
        for builtin in ["MCTS", "level3", "mcts-fast"] {
            assert!(
                nothing(by_folder(builtin)).contains("is that of the built-in bot"),
                "{builtin}"
            );
        }
    }

    #[test]
    fn a_folder_that_is_a_link_or_holds_one_leading_outside_is_left_out() {
        let dir = folder(&[
            ("s/ann/bot.py", ""),
            ("s/ann/lib/util.py", ""),
            ("s/ben/bot.py", ""),
            ("elsewhere/bot.py", ""),
        ]);
        let s = dir.path().join("s");
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), s.join("cat")).unwrap();
        std::os::unix::fs::symlink("lib/util.py", s.join("ann/util.py")).unwrap();
        std::os::unix::fs::symlink("nowhere", s.join("ann/dangling")).unwrap();
        std::os::unix::fs::symlink("../../elsewhere/bot.py", s.join("ben/lib.py")).unwrap();
        let found = expand("s/*", dir.path(), SubmissionCap::default())
            .unwrap()
            .submissions;
        assert!(
            matches!(found[0].found, Found::Bot(_)),
            "links inside are fine"
        );
        assert_eq!(
            nothing(&found[1]),
            format!(
                "it holds a symbolic link that leads outside it (lib.py -> {}): a submission may use only its own files: replace the link with the file itself",
                std::fs::canonicalize(dir.path().join("elsewhere/bot.py"))
                    .unwrap()
                    .display()
            )
        );
        assert!(
            nothing(&found[2]).starts_with("it is a symbolic link (to "),
            "{}",
            nothing(&found[2])
        );
    }

    /// A resolved submission running `program args…` from `dir`.
    fn spec(dir: &Path, program: &Path, args: &[&str], builtin: bool) -> BotSpec {
        let mut command = referee::bot::BotCommand::new(program);
        command.args = args.iter().map(std::ffi::OsString::from).collect();
        command.working_dir = Some(dir.to_path_buf());
        BotSpec {
            name: "bob".into(),
            command,
            dialect: referee::dialect::Dialect::Uttt,
            builtin,
        }
    }

    #[test]
    fn a_submission_is_confined_to_its_folder_and_the_machines_programs() {
        let dir = folder(&[("s/bob/bot.py", ""), ("s/alice/bot.py", "")]);
        let bob = dir.path().join("s/bob");
        let sh = PathBuf::from("/usr/bin/sh");
        let arena = dir.path().join("arena");
        std::fs::write(&arena, "").unwrap();
        let check = |program: &Path, args: &[&str]| {
            confine(&spec(&bob, program, args, false), &arena, false)
        };
        assert_eq!(
            check(
                &sh,
                &[bob.join("bot.py").to_str().unwrap(), "--depth=3", "fast"]
            ),
            Ok(())
        );
        assert_eq!(
            check(&bob.join("bot"), &["data/w.bin", "--model=./w.bin"]),
            Ok(()),
            "made by a build"
        );
        for reaching in [
            bob.join("../alice/bot.py").to_str().unwrap(),
            "../alice/bot.py",
            "/etc/shadow",
            "--model=/root/key",
            "~/secret",
            "..",
        ] {
            let err = check(&sh, &[reaching]).unwrap_err();
            assert!(err.contains("outside its folder"), "{reaching}: {err}");
        }
        let err = check(&dir.path().join("s/alice/bot.py"), &[]).unwrap_err();
        assert!(
            err.starts_with("its program ") && err.contains("is outside its folder"),
            "{err}"
        );
        let err = check(&arena, &["bot", "mcts"]).unwrap_err();
        assert!(err.contains("runs the arena program itself"), "{err}");
        let builtin = spec(&bob, &arena, &["bot", "mcts"], true);
        let err = confine(&builtin, &arena, false).unwrap_err();
        assert_eq!(
            err,
            "its command runs the built-in bot 'mcts', not code of its own: a submission may not play a built-in bot (allow-builtin = true in the tournament file lets submissions use them)"
        );
        assert_eq!(confine(&builtin, &arena, true), Ok(()));
    }
}
