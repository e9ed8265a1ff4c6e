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
//! This module only looks at files; it resolves no command and starts nothing.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::bot_spec::sanitize_name;

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

/// The directories `pattern` (relative to `base`) matches, in name order, each
/// with what it holds. Files are not submissions and are passed over, and so are
/// hidden directories (`*` does not match a leading dot).
///
/// # Errors
/// [`GlobError`]: a bad pattern, or one that matches no directory.
pub fn expand(pattern: &str, base: &Path) -> Result<Vec<Submission>, GlobError> {
    // The base is a path, not a pattern: a '[' or '*' in it matches itself.
    let full = Path::new(&glob::Pattern::escape(&base.to_string_lossy())).join(pattern);
    let options = glob::MatchOptions {
        case_sensitive: true,
        require_literal_separator: true,
        require_literal_leading_dot: true,
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
    if dirs.is_empty() {
        return Err(GlobError::Empty {
            pattern: pattern.to_string(),
            base: base.to_path_buf(),
        });
    }
    Ok(dirs
        .into_iter()
        .map(|dir| {
            let raw = dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            Submission {
                name: sanitize_name(&raw),
                found: inspect(&dir),
                dir,
            }
        })
        .collect())
}

/// What one submission directory holds: its `bot.toml`, else the conventions.
pub fn inspect(dir: &Path) -> Found {
    let toml_path = dir.join(BOT_TOML);
    let described = match std::fs::read_to_string(&toml_path) {
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
        inspect(dir.path())
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
            matches!(inspect(dir.path()), Found::Nothing(_)),
            "not executable yet"
        );
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(
            dir.path().join("bot"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        let Found::Bot(bot) = inspect(dir.path()) else {
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
        let found = expand("students/*", dir.path()).unwrap();
        let names: Vec<&str> = found.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["al-ex", "empty", "zoe"]);
        assert!(matches!(found[1].found, Found::Nothing(_)));
        assert_eq!(
            expand("nobody/*", dir.path()).unwrap_err(),
            GlobError::Empty {
                pattern: "nobody/*".into(),
                base: dir.path().to_path_buf()
            }
        );
        assert!(matches!(
            expand("students/[", dir.path()),
            Err(GlobError::Pattern { .. })
        ));
    }
}
