//! Turning a bot as a user described it ([`BotInput`]: "mcts", "python3
//! my_bot.py", "v2=./engine --fast" on the command line, or a tournament file's
//! `[[bot]]` keys) into a named, resolved [`BotCommand`], with errors that say
//! what is wrong and how to fix it — before any game starts.
//!
//! The command line's grammar (`FromStr` for [`BotInput`]):
//! `[NAME=][PROTOCOL:]COMMAND LINE`, where the command line is split like a shell
//! would, `PROTOCOL` is `uttt` (default), `builtin`, `codingame` or `riddles`, and
//! a first word that is a built-in bot name (`random`, `greedy`, `negamax`,
//! `negamax-easy|medium|hard`, `mcts`, `level`, `level1`…) means that built-in bot.
//! Use `./mcts` to run a program of that name instead. A tournament file fills a
//! [`BotInput`]'s fields from its keys and never goes through this grammar.
//!
//! Resolving looks at the file system (is the program there, is it executable) but
//! starts nothing: processes are the runner's business.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

// Names `arena bot` serves (the reference ladder): the `bots` registry's.
use bots::registry::NAMES as BUILTIN_BOTS;
use referee::bot::{BotCommand, ResourceLimits};
use referee::dialect::Dialect;

use super::settings::bot::{BotInput, Protocol};
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

    /// Parses one spec of the command line's grammar ([`BotInput`]'s `FromStr`)
    /// and resolves it.
    ///
    /// # Errors
    /// [`BotSpecError`] naming the problem: empty, bad quoting, bad name, program
    /// not found or not executable.
    pub fn resolve(&self, spec: &str) -> Result<BotSpec, BotSpecError> {
        let input: BotInput = spec.parse()?;
        self.resolve_input(&input, Program::Exists)
            .map_err(|e| BotSpecError {
                spec: spec.to_string(),
                ..e
            })
    }

    /// Resolves a bot as described: its program found (or, `MadeByBuild`, taken
    /// as the output of its build step when it does not exist yet), relative
    /// paths taken from its own `dir` (else from `base_dir`), and its name
    /// derived from the command when it has none.
    ///
    /// # Errors
    /// [`BotSpecError`] naming the problem: empty, unknown built-in, program not
    /// found or not executable.
    pub fn resolve_input(&self, bot: &BotInput, program: Program) -> Result<BotSpec, BotSpecError> {
        let fail = |problem: String| BotSpecError {
            spec: bot.to_string(),
            problem,
        };
        let base_dir = bot.dir.as_deref().unwrap_or(&self.base_dir);
        let (builtin, dialect) = match bot.protocol {
            Some(Protocol::Builtin) => (true, Dialect::Uttt),
            Some(Protocol::Speaks(dialect)) => (false, dialect),
            None => (false, Dialect::Uttt),
        };
        let Some((first, args)) = bot.words.split_first() else {
            return Err(fail(
                "empty command: give a built-in name (random, mcts, …) or a command line".into(),
            ));
        };
        let mut spec = if builtin
            || (dialect == Dialect::Uttt && BUILTIN_BOTS.contains(&first.as_str()))
        {
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
            BotSpec {
                name: bot
                    .name
                    .clone()
                    .unwrap_or_else(|| builtin_name(first, args)),
                command,
                dialect: Dialect::Uttt,
                builtin: true,
            }
        } else {
            let path = match program {
                Program::MadeByBuild if first.contains('/') && !base_dir.join(first).exists() => {
                    base_dir.join(first)
                }
                _ => resolve_program(first, base_dir).map_err(fail)?,
            };
            let mut command = BotCommand::new(path);
            command.args = args.iter().map(|a| resolve_arg(a, base_dir)).collect();
            if let Some(i) = script_index(first, args) {
                // Absolute even when missing: the interpreter's error then names the
                // user's directory, not the bot's scratch directory it runs in.
                command.args[i] = base_dir.join(&args[i]).into_os_string();
            }
            BotSpec {
                name: bot
                    .name
                    .clone()
                    .unwrap_or_else(|| derived_name(first, args)),
                command,
                dialect,
                builtin: false,
            }
        };
        spec.command.launcher = Some(self.arena_exe.clone());
        spec.command.limits = self.limits;
        spec.command.working_dir.clone_from(&bot.dir);
        spec.command.env = bot.env.iter().map(|(k, v)| (k.into(), v.into())).collect();
        Ok(spec)
    }
}

/// The program of a command: a path (from `base_dir`) or a name on `PATH`.
fn resolve_program(program: &str, base_dir: &Path) -> Result<PathBuf, String> {
    if program.contains('/') {
        let path = base_dir.join(program);
        return match file_problem(&path, program, base_dir) {
            None => Ok(path),
            Some(problem) => Err(problem),
        };
    }
    find_on_path(program).ok_or_else(|| {
        let local = base_dir.join(program);
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
fn resolve_arg(arg: &str, base_dir: &Path) -> OsString {
    if arg.starts_with('-') || Path::new(arg).is_absolute() {
        return arg.into();
    }
    let candidate = base_dir.join(arg);
    if candidate.exists() {
        candidate.into_os_string()
    } else {
        arg.into()
    }
}

/// Whether a bot's program must exist now, or is made by a build step first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Program {
    /// It must exist now.
    Exists,
    /// A program path inside the bot's directory that does not exist yet is the
    /// build's output (the build checks it once it has run, with
    /// [`program_problem`]).
    MadeByBuild,
}

impl std::str::FromStr for BotInput {
    type Err = BotSpecError;

    /// The command line's grammar (see the module's documentation). A first
    /// word with `=` in it and nothing a command line has (a space, a path, an
    /// option, a quote) is a name, and must be a valid one; a prefix before `:`
    /// is a protocol only when it names one.
    fn from_str(spec: &str) -> Result<BotInput, BotSpecError> {
        let fail = |problem: String| BotSpecError {
            spec: spec.to_string(),
            problem,
        };
        let mut rest = spec.trim();
        let mut name = None;
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
        let mut protocol = None;
        if let Some((prefix, tail)) = rest.split_once(':')
            && let Some(p) = Protocol::from_word(prefix)
        {
            protocol = Some(p);
            rest = tail.trim_start();
        }
        let words = shlex::split(rest).ok_or_else(|| {
            fail("unbalanced quotes: quote the whole command line once, e.g. \"python3 'my bot.py'\"".into())
        })?;
        Ok(BotInput {
            name,
            protocol,
            words,
            dir: None,
            env: Vec::new(),
        })
    }
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
    fn the_command_lines_grammar_fills_a_bots_fields() {
        let words = |list: &[&str]| list.iter().map(ToString::to_string).collect::<Vec<_>>();
        let bot: BotInput = "v2=codingame:./engine --fast 'a b'".parse().unwrap();
        assert_eq!(bot.name.as_deref(), Some("v2"));
        assert_eq!(bot.protocol, Some(Protocol::Speaks(Dialect::Codingame)));
        assert_eq!(bot.words, words(&["./engine", "--fast", "a b"]));
        let bot: BotInput = "builtin:mcts".parse().unwrap();
        assert_eq!(bot.protocol, Some(Protocol::Builtin));
        // Not a name: an option or a path before the `=`; not a protocol: a
        // prefix that names none.
        assert_eq!("sh x.py --depth=3".parse::<BotInput>().unwrap().name, None);
        assert_eq!(
            "./a=b".parse::<BotInput>().unwrap().words,
            words(&["./a=b"])
        );
        let bot: BotInput = "c:/bot".parse().unwrap();
        assert_eq!((bot.protocol, bot.words), (None, words(&["c:/bot"])));
        // The text of a description is the description again.
        for text in [
            "v2=codingame:./engine --fast 'a b'",
            "builtin:mcts",
            "mcts --playouts 50",
        ] {
            let bot: BotInput = text.parse().unwrap();
            assert_eq!(bot.to_string().parse::<BotInput>().unwrap(), bot, "{text}");
        }
    }

    #[test]
    fn a_bots_own_dir_and_env_are_where_it_runs() {
        let bot = BotInput {
            words: vec!["sh".into(), "Cargo.toml".into()],
            dir: Some(PathBuf::from(env!("CARGO_MANIFEST_DIR"))),
            env: vec![("LEVEL".into(), "3".into())],
            ..BotInput::default()
        };
        let spec = resolver().resolve_input(&bot, Program::Exists).unwrap();
        assert_eq!(spec.command.working_dir, bot.dir);
        assert_eq!(spec.command.env, [("LEVEL".into(), "3".into())]);
        assert_eq!(
            spec.command.args,
            [Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("Cargo.toml")
                .into_os_string()]
        );
        let made = BotInput {
            words: vec!["./bot".into()],
            dir: Some(PathBuf::from(env!("CARGO_MANIFEST_DIR"))),
            ..BotInput::default()
        };
        assert!(resolver().resolve_input(&made, Program::Exists).is_err());
        let later = resolver()
            .resolve_input(&made, Program::MadeByBuild)
            .unwrap();
        assert!(later.command.program.ends_with("bot"), "the build's output");
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
