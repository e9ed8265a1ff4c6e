//! Names to engines: `random`, `greedy`, `negamax [--level L]` (also spelled
//! `negamax-easy|medium|hard`), `mcts [--playouts N] [--explore C] ...`, and the
//! reference levels `level --n N` (also spelled `levelN`).
//!
//! Each engine's options are a clap parser, so `--help`, typos and bad values get
//! clap's messages; an unknown name lists the valid ones. The same specs drive the
//! `arena bot` subcommand and the self-play harness.

use std::fmt;
use std::io;

use clap::{CommandFactory, Parser, ValueEnum};

use crate::engine::Engine;
use crate::greedy::GreedyEngine;
use crate::levels::{LevelEngine, LevelTable};
use crate::mcts::playout::Policy;
use crate::mcts::{Evaluation, Leaf, MctsConfig, MctsEngine, Reuse, Selection};
use crate::negamax::{Level, NegamaxEngine};
use crate::random::RandomEngine;
use crate::serve::{Identity, serve};

/// Every name [`build`] accepts: the engines weakest first, then the reference
/// levels (one name per level of [`LevelTable::shipped`], which a test checks).
pub const NAMES: &[&str] = &[
    "random",
    "greedy",
    "negamax",
    "negamax-easy",
    "negamax-medium",
    "negamax-hard",
    "mcts",
    "mcts-net",
    "level",
    "level1",
    "level2",
    "level3",
    "level4",
    "level5",
    "level6",
    "level7",
    "level8",
    "level9",
    "level10",
    "level11",
];

/// [`NAMES`] for messages, the numbered levels shortened to `level1…levelN`.
pub fn names_text() -> String {
    let (engines, numbered): (Vec<&str>, Vec<&str>) =
        NAMES.iter().partition(|name| level_of_name(name).is_none());
    let mut text = engines.join(", ");
    if let (Some(first), Some(last)) = (numbered.first(), numbered.last()) {
        text.push_str(&format!(", {first}…{last}"));
    }
    text
}

/// The level number in a name such as `level3`.
fn level_of_name(name: &str) -> Option<u8> {
    let digits = name.strip_prefix("level")?;
    if digits.starts_with('0') {
        return None;
    }
    digits.parse().ok()
}

/// Why an engine could not be built, or a bot could not run.
#[derive(Debug)]
pub enum BotError {
    /// A name that is not in [`NAMES`].
    UnknownName(String),
    /// Options the engine does not accept (clap's message says which and why),
    /// or a request for help, which is not an error.
    Options {
        /// The engine's name.
        name: String,
        /// What clap found.
        error: clap::Error,
    },
    /// Reading from or writing to the referee failed.
    Io(io::Error),
}

impl BotError {
    /// Whether this is a usage error (exit code 2) rather than a runtime failure.
    pub fn is_usage(&self) -> bool {
        matches!(self, BotError::UnknownName(_) | BotError::Options { .. })
    }
}

impl fmt::Display for BotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BotError::UnknownName(name) => write!(
                f,
                "unknown bot '{name}': the reference bots are {}",
                names_text()
            ),
            BotError::Options { name, error } => {
                let rendered = error.render().to_string();
                let text = rendered.trim();
                let text = text.strip_prefix("error: ").unwrap_or(text).replace(
                    "For more information, try '--help'.",
                    &format!("For the options, try 'arena bot {name} --help'."),
                );
                write!(f, "arena bot {name}: {text}")
            }
            BotError::Io(e) => write!(f, "talking to the referee: {e}"),
        }
    }
}

impl std::error::Error for BotError {}

/// `random` and `greedy` take no options.
#[derive(Debug, Parser)]
#[command(no_binary_name = true)]
struct NoOptions {}

/// The level spelled on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum LevelArg {
    Easy,
    Medium,
    Hard,
}

impl From<LevelArg> for Level {
    fn from(level: LevelArg) -> Level {
        match level {
            LevelArg::Easy => Level::Easy,
            LevelArg::Medium => Level::Medium,
            LevelArg::Hard => Level::Hard,
        }
    }
}

/// Alpha-beta search over a hand-written evaluation.
#[derive(Debug, Parser)]
#[command(no_binary_name = true)]
struct NegamaxOptions {
    /// easy: 2 plies, noisy; medium: 3 plies, at most 750 ms; hard: as deep as time allows.
    #[arg(long, value_enum, default_value = "medium")]
    level: LevelArg,
    /// Stop each move after N nodes (fixed work: same seed, same moves), or at the deadline.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
}

/// A reference level: an engine of fixed work, rated on the levels' Elo scale.
#[derive(Debug, Parser)]
#[command(no_binary_name = true)]
struct LevelOptions {
    /// The level: 1 (random moves) up to the strongest, as listed below.
    #[arg(long, value_name = "N", value_parser = level_number)]
    n: u8,
}

/// A level number that is in the shipped table.
fn level_number(text: &str) -> Result<u8, String> {
    let top = LevelTable::shipped().top();
    match text.parse::<u8>() {
        Ok(n) if (1..=top).contains(&n) => Ok(n),
        _ => Err(format!(
            "there is no level '{text}': the levels are 1 to {top}"
        )),
    }
}

/// What `arena bot level --help` prints after the options: the table.
fn levels_help() -> String {
    format!(
        "Levels (bots/levels.toml; Elo with level 1, random play, at 0; ±95% relative to level 1;\n\
         each stops by its work, never by the clock; `levelN` is `level --n N`):\n\n{}",
        LevelTable::shipped()
    )
}

/// Builds level `number` of the shipped table.
fn level_engine(name: &str, number: u8) -> Result<Box<dyn Engine>, BotError> {
    let level = LevelTable::shipped()
        .get(number)
        .ok_or_else(|| BotError::UnknownName(name.to_string()))?;
    Ok(Box::new(LevelEngine::new(level)?))
}

/// The playout policy spelled on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum PolicyArg {
    Random,
    Decisive,
    Claiming,
}

/// The static evaluation of `mcts`, on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum EvalArg {
    Handmade,
    Learned,
    Net,
}

/// How a new leaf is scored, on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum LeafArg {
    Playout,
    Value,
}

/// Whether the tree is kept between moves, on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum ReuseArg {
    Keep,
    Discard,
}

/// The child selection rule, on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum SelectArg {
    Puct,
    Uct,
}

/// Monte Carlo tree search with a solver and tree reuse.
#[derive(Debug, Parser)]
#[command(no_binary_name = true)]
struct MctsOptions {
    /// Stop after N playouts per move (fixed work: same seed, same moves), or at the deadline.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    playouts: Option<u64>,
    /// Child selection: puct (priors from the evaluation; children it rates poorly
    /// may never be tried) or uct (every child tried once).
    #[arg(long, value_enum, default_value = "puct")]
    select: SelectArg,
    /// Exploration constant C (rewards in 0..1). [default: 0.5 for puct, 0.7 for uct]
    #[arg(long, value_name = "C", value_parser = positive)]
    explore: Option<f64>,
    /// Softmax temperature of the puct priors, in units of win probability
    /// (lower: the search trusts the evaluation more). [default: 0.1]
    #[arg(long, value_name = "T", value_parser = positive)]
    prior_temp: Option<f64>,
    /// Playout policy: random; decisive (always take a game-winning move); claiming
    /// (decisive, and claim the board sent to when possible).
    #[arg(long, value_enum, default_value = "claiming")]
    rollout: PolicyArg,
    /// Weight 0..1 of the evaluation's minimax value in selection (0: playouts only).
    /// [default: 0.7 with the learned evaluation, 0.3 with the hand-written one]
    #[arg(long, value_name = "W", value_parser = unit)]
    minimax: Option<f32>,
    /// The evaluation behind the priors and the minimax values: hand-written;
    /// learned, a linear model fitted to self-play (under every single rule set);
    /// net, the learned value corrected by a small neural network (standard rules
    /// and most-boards; elsewhere the learned one). Under combinations of house
    /// rules the hand-written one is used. [default: learned for mcts, net for
    /// mcts-net]
    #[arg(long, value_enum)]
    eval: Option<EvalArg>,
    /// How a new leaf is scored: a playout, or its evaluation alone.
    #[arg(long, value_enum, default_value = "playout")]
    leaf: LeafArg,
    /// Keep the search tree between moves, or start each move afresh.
    #[arg(long, value_enum, default_value = "keep")]
    tree: ReuseArg,
    /// Most tree nodes (24 bytes each); the search goes on without growing when full.
    #[arg(long, value_name = "N", default_value_t = MctsConfig::default().max_nodes as u64,
          value_parser = clap::value_parser!(u64).range(1000..=1 << 28))]
    max_nodes: u64,
}

impl MctsOptions {
    /// The selection rule, with the constants given or those tuned for it. A
    /// temperature given to uct is refused rather than silently ignored.
    fn selection(&self, name: &str) -> Result<Selection, BotError> {
        let explore = self.explore.map(|c| c as f32);
        match self.select {
            SelectArg::Uct if self.prior_temp.is_some() => Err(BotError::Options {
                name: name.to_string(),
                error: MctsOptions::command()
                    .bin_name(format!("arena bot {name}"))
                    .error(
                        clap::error::ErrorKind::ArgumentConflict,
                        "--prior-temp sets the priors of --select puct; uct has none",
                    ),
            }),
            SelectArg::Uct => Ok(Selection::Uct {
                explore: explore.unwrap_or(Selection::UCT_EXPLORE),
            }),
            SelectArg::Puct => Ok(Selection::Puct {
                explore: explore.unwrap_or(Selection::PUCT_EXPLORE),
                temperature: self
                    .prior_temp
                    .map_or(Selection::PUCT_TEMPERATURE, |t| t as f32),
            }),
        }
    }
}

fn positive(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(c) if c.is_finite() && c > 0.0 => Ok(c),
        _ => Err(format!("'{text}' is not a positive number")),
    }
}

fn unit(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(w) if (0.0..=1.0).contains(&w) => Ok(w),
        _ => Err(format!("'{text}' is not a number from 0 to 1")),
    }
}

/// The configuration `mcts-net ARGS` names, with the network it would use left to
/// the rules of each game (for tools that give it another network).
///
/// # Errors
/// As [`build`].
pub fn mcts_net_config(args: &[String]) -> Result<MctsConfig, BotError> {
    mcts_config("mcts-net", args)
}

/// The `mcts` configuration its options name.
fn mcts_config(name: &str, args: &[String]) -> Result<MctsConfig, BotError> {
    let o = options::<MctsOptions>(name, args)?;
    Ok(MctsConfig {
        selection: o.selection(name)?,
        playouts: o.playouts,
        policy: match o.rollout {
            PolicyArg::Random => Policy::Random,
            PolicyArg::Decisive => Policy::Decisive,
            PolicyArg::Claiming => Policy::Claiming,
        },
        leaf: match o.leaf {
            LeafArg::Playout => Leaf::Playout,
            LeafArg::Value => Leaf::Value,
        },
        minimax: o.minimax,
        // The one difference between the two names: the evaluation by default.
        evaluation: match o.eval {
            Some(EvalArg::Handmade) => Evaluation::Handmade,
            Some(EvalArg::Learned) => Evaluation::Learned,
            Some(EvalArg::Net) => Evaluation::Net,
            None if name == "mcts-net" => Evaluation::Net,
            None => Evaluation::Learned,
        },
        network: None,
        reuse: match o.tree {
            ReuseArg::Keep => Reuse::Keep,
            ReuseArg::Discard => Reuse::Discard,
        },
        max_nodes: usize::try_from(o.max_nodes).unwrap_or(usize::MAX),
    })
}

/// The engine `mcts ARGS` or `mcts-net ARGS` names, as its concrete type (the
/// training tools read its tree).
///
/// # Errors
/// As [`build`]; a name other than those two is unknown here.
pub fn mcts_engine(name: &str, args: &[String]) -> Result<MctsEngine, BotError> {
    match name {
        "mcts" => Ok(MctsEngine::new(mcts_config(name, args)?)),
        "mcts-net" => Ok(MctsEngine::named("mcts-net", mcts_config(name, args)?)),
        _ => Err(BotError::UnknownName(name.to_string())),
    }
}

/// Parses `args` with the option parser `P`, naming the command `arena bot NAME`.
fn options<P: Parser>(name: &str, args: &[String]) -> Result<P, BotError> {
    options_with(name, args, |command| command)
}

/// [`options`], with the command adjusted by `adjust` first (e.g. more help).
fn options_with<P: Parser>(
    name: &str,
    args: &[String],
    adjust: impl FnOnce(clap::Command) -> clap::Command,
) -> Result<P, BotError> {
    let command = adjust(P::command().bin_name(format!("arena bot {name}")));
    let wrap = |error| BotError::Options {
        name: name.to_string(),
        error,
    };
    let matches = command.try_get_matches_from(args).map_err(wrap)?;
    P::from_arg_matches(&matches).map_err(wrap)
}

/// Checks `name` and its `args` as [`build`] does, without building the engine:
/// how a bot spec naming a reference bot is refused before any process starts.
///
/// # Errors
/// As [`build`].
pub fn check(name: &str, args: &[String]) -> Result<(), BotError> {
    match name {
        "random" | "greedy" | "negamax-easy" | "negamax-medium" | "negamax-hard" => {
            options::<NoOptions>(name, args).map(|_| ())
        }
        "negamax" => options::<NegamaxOptions>(name, args).map(|_| ()),
        "mcts" | "mcts-net" => options::<MctsOptions>(name, args)?
            .selection(name)
            .map(|_| ()),
        "level" => {
            let o = options_with::<LevelOptions>(name, args, |c| c.after_help(levels_help()))?;
            level_exists(name, o.n)
        }
        _ => match level_of_name(name) {
            Some(number) if NAMES.contains(&name) => {
                options::<NoOptions>(name, args)?;
                level_exists(name, number)
            }
            _ => Err(BotError::UnknownName(name.to_string())),
        },
    }
}

/// Whether the shipped table has level `number` (without building its engine).
fn level_exists(name: &str, number: u8) -> Result<(), BotError> {
    LevelTable::shipped()
        .get(number)
        .map(|_| ())
        .ok_or_else(|| BotError::UnknownName(name.to_string()))
}

/// Builds the engine called `name` with its command-line `args`.
///
/// # Errors
/// [`BotError::UnknownName`] or [`BotError::Options`] (which includes `--help`).
pub fn build(name: &str, args: &[String]) -> Result<Box<dyn Engine>, BotError> {
    let engine: Box<dyn Engine> = match name {
        "random" => {
            options::<NoOptions>(name, args)?;
            Box::new(RandomEngine::new())
        }
        "greedy" => {
            options::<NoOptions>(name, args)?;
            Box::new(GreedyEngine::new())
        }
        "negamax" => {
            let o = options::<NegamaxOptions>(name, args)?;
            let engine = NegamaxEngine::new(o.level.into());
            Box::new(match o.nodes {
                Some(nodes) => engine.with_node_limit(nodes),
                None => engine,
            })
        }
        "negamax-easy" | "negamax-medium" | "negamax-hard" => {
            options::<NoOptions>(name, args)?;
            let level = name.trim_start_matches("negamax-").parse::<Level>();
            Box::new(NegamaxEngine::new(level.unwrap_or_default()))
        }
        "mcts" | "mcts-net" => Box::new(mcts_engine(name, args)?),
        "level" => {
            let o = options_with::<LevelOptions>(name, args, |c| c.after_help(levels_help()))?;
            level_engine(name, o.n)?
        }
        _ => match level_of_name(name) {
            Some(number) if NAMES.contains(&name) => {
                options::<NoOptions>(name, args)?;
                level_engine(name, number)?
            }
            _ => return Err(BotError::UnknownName(name.to_string())),
        },
    };
    Ok(engine)
}

/// What ends the thinking of the built-in `name` with `args` ([`Work`]):
/// `None` for a name or options [`build`] refuses. The governor leaves a bot
/// of fixed work alone (the load cannot change its moves).
pub fn work(name: &str, args: &[String]) -> Option<crate::engine::Work> {
    build(name, args).ok().map(|engine| engine.work())
}

/// Builds an engine from one string, `NAME [OPTIONS]`, split at whitespace (for
/// the self-play harness and configs: `"mcts --explore 0.5"`).
///
/// # Errors
/// As [`build`]; an empty spec is an unknown name.
pub fn from_spec(spec: &str) -> Result<Box<dyn Engine>, BotError> {
    let mut words = spec.split_whitespace().map(str::to_string);
    let name = words.next().unwrap_or_default();
    let args: Vec<String> = words.collect();
    build(&name, &args)
}

/// What `arena bot --help` prints: every bot, one line each, weakest first.
pub fn catalogue() -> String {
    let lines = [
        ("random", "a uniformly random legal move"),
        (
            "greedy",
            "one ply of rules of thumb: claim, block, do not send to a claim or a free move",
        ),
        (
            "negamax [--level L]",
            "alpha-beta search; L is easy, medium (default) or hard",
        ),
        ("negamax-easy", "2 plies over a noisy evaluation"),
        (
            "negamax-medium",
            "3 plies, at most 750 ms: the beginner computer",
        ),
        ("negamax-hard", "iterative deepening for the whole budget"),
        (
            "mcts [OPTIONS]",
            "Monte Carlo tree search with a solver over a linear learned value",
        ),
        (
            "mcts-net [OPTIONS]",
            "mcts + a small neural network: stronger at few playouts",
        ),
        (
            "level --n N",
            "a reference level of fixed work, rated (arena bot level --help lists them)",
        ),
        ("level1, level2…", "the same: level3 is level --n 3"),
    ];
    let mut text = String::from(
        "Play a reference bot over the protocol on stdin/stdout.\n\n\
         Usage: arena bot <NAME> [OPTIONS]\n\nBots, weakest first:\n",
    );
    for (name, what) in lines {
        text.push_str(&format!("  {name:<22}{what}\n"));
    }
    text.push_str("\n'arena bot NAME --help' lists a bot's options.\n");
    text
}

/// `arena bot NAME [OPTIONS]`: builds the engine and serves it on stdin/stdout
/// until `quit` or the end of input. `--help` prints the engine's options.
///
/// # Errors
/// A usage error ([`BotError::is_usage`], exit code 2) or an I/O failure.
pub fn cli_main(name: &str, args: &[String]) -> Result<(), BotError> {
    if matches!(name, "-h" | "--help" | "help") {
        print!("{}", catalogue());
        return Ok(());
    }
    let mut engine = match build(name, args) {
        Err(BotError::Options { error, .. }) if !error.use_stderr() => {
            // --help: clap's rendered help goes to stdout, and that is a success.
            print!("{}", error.render());
            return Ok(());
        }
        other => other?,
    };
    let identity = Identity::reference(engine.as_ref());
    let stdin = io::stdin().lock();
    let stdout = io::stdout().lock();
    serve(engine.as_mut(), &identity, stdin, stdout, io::stderr()).map_err(BotError::Io)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn every_name_builds_with_no_options_but_level_which_needs_its_number() {
        for &name in NAMES {
            if name == "level" {
                let err = build(name, &[]).unwrap_err();
                assert!(err.to_string().contains("--n <N>"), "{err}");
                continue;
            }
            let engine = build(name, &[]).unwrap();
            let expected = match name {
                "negamax" => "negamax-medium",
                other => other,
            };
            assert_eq!(engine.name(), expected);
        }
    }

    #[test]
    fn there_is_one_name_per_shipped_level() {
        let numbered: Vec<String> = NAMES
            .iter()
            .filter(|n| level_of_name(n).is_some())
            .map(|n| n.to_string())
            .collect();
        let levels: Vec<String> = LevelTable::shipped()
            .levels()
            .iter()
            .map(|l| l.name())
            .collect();
        assert_eq!(numbered, levels);
    }

    #[test]
    fn a_level_is_reached_by_number_or_by_name() {
        let top = LevelTable::shipped().top();
        for n in 1..=top {
            let by_number = build("level", &args(&["--n", &n.to_string()])).unwrap();
            let by_name = build(&format!("level{n}"), &[]).unwrap();
            assert_eq!(by_number.name(), format!("level{n}"));
            assert_eq!(by_name.name(), by_number.name());
        }
        let beyond = (top + 1).to_string();
        let err = build("level", &args(&["--n", &beyond])).unwrap_err();
        assert!(err.is_usage());
        assert!(
            err.to_string()
                .contains(&format!("the levels are 1 to {top}")),
            "{err}"
        );
        for name in [format!("level{beyond}"), "level01".into(), "level0".into()] {
            assert!(
                matches!(build(&name, &[]), Err(BotError::UnknownName(_))),
                "{name}"
            );
        }
    }

    #[test]
    fn the_levels_help_shows_the_table() {
        let Err(BotError::Options { error: e, .. }) = build("level", &args(&["--help"])) else {
            panic!("--help should stop the build");
        };
        let help = e.render().to_string();
        for level in LevelTable::shipped().levels() {
            assert!(help.contains(&level.name()), "{help}");
            assert!(help.contains(&level.definition()), "{help}");
        }
    }

    #[test]
    fn options_reach_the_engine() {
        assert_eq!(
            build("negamax", &args(&["--level", "hard"]))
                .unwrap()
                .name(),
            "negamax-hard"
        );
        assert_eq!(
            build("negamax", &args(&["--level=easy"])).unwrap().name(),
            "negamax-easy"
        );
        let spec = from_spec(
            "mcts --playouts 500 --select uct --explore 0.4 --rollout random --minimax 0 --tree discard",
        );
        assert_eq!(spec.unwrap().name(), "mcts");
    }

    #[test]
    fn unknown_names_list_the_valid_ones() {
        let err = build("alphazero", &[]).unwrap_err();
        assert!(err.is_usage());
        assert_eq!(
            err.to_string(),
            "unknown bot 'alphazero': the reference bots are random, greedy, negamax, \
             negamax-easy, negamax-medium, negamax-hard, mcts, mcts-net, level, level1…level11"
        );
        assert!(from_spec("  ").unwrap_err().is_usage());
    }

    #[test]
    fn mcts_constants_default_to_those_tuned_for_the_selection_rule() {
        let selection = |words: &[&str]| {
            options::<MctsOptions>("mcts", &args(words))
                .and_then(|o| o.selection("mcts"))
                .unwrap()
        };
        assert_eq!(selection(&[]), Selection::PUCT);
        assert_eq!(selection(&["--select", "uct"]), Selection::UCT);
        assert_eq!(
            selection(&["--explore", "1", "--prior-temp", "0.2"]),
            Selection::Puct {
                explore: 1.0,
                temperature: 0.2
            }
        );
        assert_eq!(
            selection(&["--select", "uct", "--explore", "0.4"]),
            Selection::Uct { explore: 0.4 }
        );
    }

    #[test]
    fn bad_options_are_usage_errors_that_name_the_problem() {
        let cases = [
            ("negamax", vec!["--level", "expert"], "expert"),
            ("random", vec!["--level", "hard"], "--level"),
            ("negamax-hard", vec!["--level", "easy"], "--level"),
            ("mcts", vec!["--playouts", "0"], "0"),
            ("mcts", vec!["--explore", "-1"], "-1"),
            ("mcts", vec!["--explore", "NaN"], "NaN"),
            ("mcts", vec!["--fast"], "--fast"),
            ("mcts", vec!["--minimax", "1.5"], "1.5"),
            ("mcts", vec!["--select", "ucb"], "ucb"),
            ("mcts", vec!["--prior-temp", "0"], "0"),
            ("negamax", vec!["--nodes", "0"], "0"),
            ("level", vec!["--n", "0"], "there is no level '0'"),
            ("level", vec!["--n", "x"], "there is no level 'x'"),
            ("level3", vec!["--n", "2"], "--n"),
            (
                "mcts",
                vec!["--select", "uct", "--prior-temp", "0.2"],
                "--prior-temp sets the priors of --select puct",
            ),
        ];
        for (name, words, mentioned) in cases {
            let err = build(name, &args(&words)).unwrap_err();
            assert!(err.is_usage(), "{name} {words:?}");
            let text = err.to_string();
            assert!(text.contains(mentioned), "{name} {words:?}: {text}");
            assert!(text.contains(&format!("arena bot {name}")), "{text}");
        }
    }

    #[test]
    fn help_is_not_an_error_to_the_user() {
        let Err(BotError::Options { error: e, .. }) = build("mcts", &args(&["--help"])) else {
            panic!("--help should stop the build");
        };
        assert!(!e.use_stderr());
        let help = e.render().to_string();
        for option in [
            "--playouts",
            "--explore",
            "--rollout",
            "--tree",
            "--max-nodes",
        ] {
            assert!(help.contains(option), "{help}");
        }
    }

    #[test]
    fn the_catalogue_names_every_bot() {
        let text = catalogue();
        for name in NAMES.iter().filter(|n| level_of_name(n).is_none()) {
            assert!(text.contains(name), "{name}");
        }
        assert!(text.contains("level1, level2…"));
    }

    #[test]
    fn option_parsers_are_valid() {
        use clap::CommandFactory;
        NoOptions::command().debug_assert();
        NegamaxOptions::command().debug_assert();
        MctsOptions::command().debug_assert();
        LevelOptions::command().debug_assert();
    }
}
