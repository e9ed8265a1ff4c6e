//! Turning what a user wrote for a bot ("mcts", "python3 my_bot.py",
//! "v2=./engine --fast") into a named, resolved [`BotCommand`], with errors that
//! say what is wrong and how to fix it — before any game starts.
//!
//! Grammar: `[NAME=][PROTOCOL:]COMMAND LINE`, where the command line is split like a
//! shell would, `PROTOCOL` is `uttt` (default), `builtin`, `codingame` or `riddles`,
//! and a first word that is a built-in bot name (`random`, `greedy`, `negamax`,
//! `negamax-easy|medium|hard`, `mcts`, `level`, `level1`…) means that built-in bot.
//! Use `./mcts` to run a program of that name instead.
//!
//! Resolving looks at the file system (is the program there, is it executable) but
//! starts nothing: processes are the runner's business.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

// Names `arena bot` serves (the reference ladder): the `bots` registry's.
use bots::registry::NAMES as BUILTIN_BOTS;
use referee::bot::{BotCommand, ResourceLimits};
use referee::dialect::Dialect;

use crate::suggest::did_you_mean;

/// Interpreters whose first non-option argument names the bot better than they do.
const INTERPRETERS: &[&str] = &[
    "python", "python3", "pypy", "pypy3", "node", "nodejs", "java", "ruby", "perl", "sh", "bash",
    "php", "lua",
];

/// A bot ready to be started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotSpec {
    /// Its name in results: letters, digits, `_`, `.`, `-`.
    pub name: String,
    /// How to start it.
    pub command: BotCommand,
    /// The protocol it speaks.
    pub dialect: Dialect,
    /// Whether it is one of the built-in reference bots.
    pub builtin: bool,
}

/// A bot spec that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bot '{spec}': {problem}")]
pub struct BotSpecError {
    /// The spec as written.
    pub spec: String,
    /// What is wrong and how to fix it.
    pub problem: String,
}

/// Where a spec is resolved: relative paths are taken from `base_dir`, and built-in
/// bots are served by `arena_exe bot NAME`.
#[derive(Clone, Debug)]
pub struct Resolver {
    /// Directory relative paths in commands are resolved against.
    pub base_dir: PathBuf,
    /// The `arena` executable (serves built-in bots, and is the launcher).
    pub arena_exe: PathBuf,
    /// Limits for every bot.
    pub limits: ResourceLimits,
}

impl Resolver {
    /// Resolves relative to the current directory, with this executable as launcher.
    ///
    /// # Errors
    /// The current directory or executable cannot be determined.
    pub fn from_env() -> std::io::Result<Resolver> {
        Ok(Resolver {
            base_dir: std::env::current_dir()?,
            arena_exe: std::env::current_exe()?,
            limits: ResourceLimits::default(),
        })
    }

    /// This resolver with both memory limits at `mib` MiB when given (`--memory-mb`).
    #[must_use]
    pub fn with_memory_mb(mut self, mib: Option<u64>) -> Resolver {
        if let Some(mib) = mib {
            self.limits = self.limits.with_memory(mib_to_bytes(mib));
        }
        self
    }

    /// Parses and resolves one spec.
    ///
    /// # Errors
    /// [`BotSpecError`] naming the problem: empty, bad quoting, unknown protocol,
    /// program not found or not executable.
    pub fn resolve(&self, spec: &str) -> Result<BotSpec, BotSpecError> {
        self.resolve_as(spec, Program::Exists)
    }

    /// Resolves a spec whose program a build step makes: a program path inside
    /// `base_dir` that does not exist yet is taken as the build's output (the
    /// build checks it once it has run, with [`program_problem`]).
    ///
    /// # Errors
    /// As [`Resolver::resolve`], but not for a program the build will make.
    pub fn resolve_before_build(&self, spec: &str) -> Result<BotSpec, BotSpecError> {
        self.resolve_as(spec, Program::MadeByBuild)
    }

    fn resolve_as(&self, spec: &str, program: Program) -> Result<BotSpec, BotSpecError> {
        let fail = |problem: String| BotSpecError {
            spec: spec.to_string(),
            problem,
        };
        let mut rest = spec.trim();
        let mut name = None;
        // A first word with `=` in it and nothing that a command line has (a space, a
        // path, an option, a quote) is meant as a name: it must be a valid one.
        if let Some((n, tail)) = rest.split_once('=')
            && !n.is_empty()
            && !n.contains(|c: char| c.is_whitespace() || matches!(c, '/' | '\'' | '"'))
            && !n.starts_with('-')
        {
            if !n.chars().all(is_name_char) {
                return Err(fail(format!(
                    "name '{n}' has characters that are not allowed: use letters, digits, '_', '.', '-' (e.g. '{}={tail}')",
                    sanitize_name(n)
                )));
            }
            name = Some(n.to_string());
            rest = tail.trim_start();
        }
        let mut dialect = Dialect::Uttt;
        let mut builtin = false;
        if let Some((prefix, tail)) = rest.split_once(':') {
            if prefix == "builtin" {
                builtin = true;
                rest = tail.trim_start();
            } else if let Some(d) = Dialect::from_name(prefix) {
                dialect = d;
                rest = tail.trim_start();
            }
        }
        let words = shlex::split(rest)
            .ok_or_else(|| fail("unbalanced quotes: quote the whole command line once, e.g. \"python3 'my bot.py'\"".into()))?;
        let Some((first, args)) = words.split_first() else {
            return Err(fail(
                "empty command: give a built-in name (random, mcts, …) or a command line".into(),
            ));
        };
        if builtin || (dialect == Dialect::Uttt && BUILTIN_BOTS.contains(&first.as_str())) {
            if !BUILTIN_BOTS.contains(&first.as_str()) {
                return Err(fail(format!(
                    "no built-in bot '{first}'{}: choose one of {}",
                    did_you_mean(first, BUILTIN_BOTS.iter().copied()),
                    bots::registry::names_text()
                )));
            }
            if let Err(error) = bots::registry::check(first, args) {
                return Err(fail(error.to_string()));
            }
            let mut command = BotCommand::new(&self.arena_exe);
            command.args = std::iter::once("bot".into())
                .chain(std::iter::once(first.into()))
                .chain(args.iter().map(OsString::from))
                .collect();
            command.launcher = Some(self.arena_exe.clone());
            command.limits = self.limits;
            let name = name.unwrap_or_else(|| builtin_name(first, args));
            return Ok(BotSpec {
                name,
                command,
                dialect: Dialect::Uttt,
                builtin: true,
            });
        }
        let program = match program {
            Program::MadeByBuild if first.contains('/') && !self.base_dir.join(first).exists() => {
                self.base_dir.join(first)
            }
            _ => self.resolve_program(first).map_err(fail)?,
        };
        let mut command = BotCommand::new(program);
        command.args = args.iter().map(|a| self.resolve_arg(a)).collect();
        if let Some(i) = script_index(first, args) {
            // Absolute even when missing: the interpreter's error then names the
            // user's directory, not the bot's scratch directory it runs in.
            command.args[i] = self.base_dir.join(&args[i]).into_os_string();
        }
        command.launcher = Some(self.arena_exe.clone());
        command.limits = self.limits;
        let name = name.unwrap_or_else(|| derived_name(first, args));
        Ok(BotSpec {
            name,
            command,
            dialect,
            builtin: false,
        })
    }

    fn resolve_program(&self, program: &str) -> Result<PathBuf, String> {
        if program.contains('/') {
            let path = self.base_dir.join(program);
            return match file_problem(&path, program, &self.base_dir) {
                None => Ok(path),
                Some(problem) => Err(problem),
            };
        }
        find_on_path(program).ok_or_else(|| {
            let local = self.base_dir.join(program);
            if local.is_file() {
                format!("'{program}' is not on PATH; to run the file in this directory write './{program}'")
            } else {
                match crate::suggest::closest(program, BUILTIN_BOTS.iter().copied()) {
                    Some(name) => format!(
                        "program '{program}' not found on PATH (did you mean the built-in bot '{name}'?)"
                    ),
                    None => format!("program '{program}' not found on PATH"),
                }
            }
        })
    }

    /// Arguments that name existing files or directories relative to `base_dir`
    /// become absolute: the bot runs in its own scratch directory.
    fn resolve_arg(&self, arg: &str) -> OsString {
        if arg.starts_with('-') || Path::new(arg).is_absolute() {
            return arg.into();
        }
        let candidate = self.base_dir.join(arg);
        if candidate.exists() {
            candidate.into_os_string()
        } else {
            arg.into()
        }
    }
}

/// Whether a spec's program must exist now, or is made by a build step first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Program {
    Exists,
    MadeByBuild,
}

/// What is wrong with `path` (written `as_written`) as a program to run, if
/// anything: missing, not a file, not executable.
fn file_problem(path: &Path, as_written: &str, looked_in: &Path) -> Option<String> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() && is_executable(&meta) => None,
        Ok(meta) if meta.is_file() => Some(format!(
            "'{as_written}' is not executable: run 'chmod +x {as_written}', or start it through its interpreter (e.g. \"python3 {as_written}\")"
        )),
        Ok(_) => Some(format!("'{as_written}' is not a file")),
        Err(_) => Some(format!(
            "'{as_written}' does not exist (looked in {})",
            looked_in.display()
        )),
    }
}

/// What is wrong with a resolved command's program, if anything (after the
/// build that was to make it).
pub fn program_problem(command: &BotCommand) -> Option<String> {
    let shown = command
        .program
        .file_name()
        .map_or_else(String::new, |f| format!("./{}", f.to_string_lossy()));
    let dir = command.program.parent().unwrap_or(&command.program);
    file_problem(&command.program, &shown, dir)
}

/// `mib` MiB in bytes, as the limits take them.
pub const fn mib_to_bytes(mib: u64) -> u64 {
    mib * 1024 * 1024
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')
}

/// A name made safe for results and the protocol's `opponent` field.
pub fn sanitize_name(raw: &str) -> String {
    let name: String = raw
        .chars()
        .map(|c| if is_name_char(c) { c } else { '-' })
        .collect();
    let name = name.trim_matches('-').to_string();
    if name.is_empty() {
        "bot".to_string()
    } else {
        name
    }
}

fn builtin_name(first: &str, args: &[String]) -> String {
    let mut name = first.to_string();
    let mut i = 0;
    while i < args.len() {
        let flag = args[i].trim_start_matches('-');
        if flag == "level"
            && let Some(level) = args.get(i + 1)
        {
            name = format!("{first}-{level}");
            i += 2;
            continue;
        }
        // `level --n 3` is level3, the name it has everywhere else.
        if first == "level"
            && flag == "n"
            && let Some(number) = args.get(i + 1)
        {
            name = format!("level{number}");
            i += 2;
            continue;
        }
        name.push('-');
        name.push_str(flag);
        i += 1;
    }
    sanitize_name(&name)
}

fn derived_name(program: &str, args: &[String]) -> String {
    let stem = |s: &str| {
        Path::new(s)
            .file_stem()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let base = Path::new(program)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let interpreted = INTERPRETERS
        .iter()
        .any(|i| base == *i || base.starts_with(&format!("{i}.")));
    let script = if interpreted {
        args.iter().find(|a| !a.starts_with('-'))
    } else {
        None
    };
    sanitize_name(&match script {
        Some(script) => stem(script),
        None => stem(program),
    })
}

/// The index in `args` of the script an interpreter runs (`python3 bot.py`), when
/// it is written as a relative file name (with an extension or a `/`).
fn script_index(program: &str, args: &[String]) -> Option<usize> {
    let base = Path::new(program)
        .file_name()?
        .to_string_lossy()
        .into_owned();
    if !INTERPRETERS
        .iter()
        .any(|i| base == *i || base.starts_with(&format!("{i}.")))
    {
        return None;
    }
    // Options that take a module or code rather than a file: no script then.
    let i = args.iter().position(|a| !a.starts_with('-'))?;
    if i > 0 && matches!(args[i - 1].as_str(), "-m" | "-c" | "-e" | "-r" | "--eval") {
        return None;
    }
    let path = Path::new(&args[i]);
    (!path.is_absolute() && (path.extension().is_some() || args[i].contains('/'))).then_some(i)
}

fn is_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    meta.permissions().mode() & 0o111 != 0
}

fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| {
            std::fs::metadata(candidate).is_ok_and(|m| m.is_file() && is_executable(&m))
        })
}

/// Makes names unique by adding `-2`, `-3`… to repeats, keeping the first as is.
pub fn dedupe_names(names: &mut [String]) {
    for i in 1..names.len() {
        if names[..i].contains(&names[i]) {
            let base = names[i].clone();
            let mut n = 2;
            while names.contains(&format!("{base}-{n}")) {
                n += 1;
            }
            names[i] = format!("{base}-{n}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolver() -> Resolver {
        Resolver {
            base_dir: PathBuf::from(env!("CARGO_MANIFEST_DIR")),
            arena_exe: PathBuf::from("/opt/arena"),
            limits: ResourceLimits::default(),
        }
    }

    #[test]
    fn builtin_names_become_arena_bot() {
        let spec = resolver().resolve("negamax --level hard").unwrap();
        assert!(spec.builtin);
        assert_eq!(spec.name, "negamax-hard");
        assert_eq!(spec.command.program, PathBuf::from("/opt/arena"));
        assert_eq!(
            spec.command.args,
            ["bot", "negamax", "--level", "hard"].map(OsString::from)
        );
        assert_eq!(resolver().resolve("builtin:mcts").unwrap().name, "mcts");
        let level = resolver().resolve("level --n 3").unwrap();
        assert!(level.builtin);
        assert_eq!(level.name, "level3");
        assert_eq!(
            level.command.args,
            ["bot", "level", "--n", "3"].map(OsString::from)
        );
        assert_eq!(resolver().resolve("level3").unwrap().name, "level3");
        assert_eq!(
            resolver()
                .resolve("strong=mcts --playouts 500")
                .unwrap()
                .name,
            "strong"
        );
    }

    #[test]
    fn commands_are_resolved_and_named() {
        let spec = resolver().resolve("sh src/../Cargo.toml --fast").unwrap();
        assert!(!spec.builtin);
        assert!(spec.command.program.ends_with("sh"));
        assert_eq!(spec.name, "Cargo");
        assert!(
            Path::new(&spec.command.args[0]).is_absolute(),
            "existing file arguments become absolute"
        );
        assert_eq!(spec.command.args[1], OsString::from("--fast"));
        assert_eq!(
            resolver().resolve("codingame:sh x.py").unwrap().dialect,
            Dialect::Codingame
        );
    }

    #[test]
    fn errors_say_how_to_fix() {
        let err = resolver().resolve("no-such-program-xyz").unwrap_err();
        assert_eq!(
            err.problem,
            "program 'no-such-program-xyz' not found on PATH"
        );
        let err = resolver().resolve("./missing.py").unwrap_err();
        assert!(
            err.problem.starts_with("'./missing.py' does not exist"),
            "{}",
            err.problem
        );
        let err = resolver().resolve("./Cargo.toml").unwrap_err();
        assert!(err.problem.contains("chmod +x"), "{}", err.problem);
        let err = resolver().resolve("Cargo.toml").unwrap_err();
        assert!(
            err.problem.contains("write './Cargo.toml'"),
            "{}",
            err.problem
        );
        assert!(
            resolver()
                .resolve("  ")
                .unwrap_err()
                .problem
                .starts_with("empty command")
        );
        assert!(
            resolver()
                .resolve("python3 'unterminated")
                .unwrap_err()
                .problem
                .contains("quotes")
        );
        assert!(
            resolver()
                .resolve("builtin:alphazero")
                .unwrap_err()
                .problem
                .contains("choose one of")
        );
        assert_eq!(
            resolver().resolve("🤖=random").unwrap_err().problem,
            "name '🤖' has characters that are not allowed: use letters, digits, '_', '.', '-' (e.g. 'bot=random')"
        );
        assert!(
            resolver()
                .resolve("my.bot v2=random")
                .unwrap_err()
                .problem
                .contains("not found on PATH"),
            "a first word with a space is a command, not a name"
        );
        let spec = resolver().resolve("sh x.py --depth=3").unwrap();
        assert_eq!(spec.name, "x");
    }

    #[test]
    fn duplicate_names_get_suffixes() {
        let mut names = vec![
            "bot".to_string(),
            "bot".to_string(),
            "x".to_string(),
            "bot".to_string(),
        ];
        dedupe_names(&mut names);
        assert_eq!(names, ["bot", "bot-2", "x", "bot-3"]);
    }
}
