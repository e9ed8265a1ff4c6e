//! The command-line surface (clap derive). Doc comments here are the help text.
//! Each flag is read into its type here (a time into its range, `--rules` into
//! `Rules`, `--as` into a `Mark`); the commands turn the flags into the settings'
//! input, validated with a tournament file's by the same rules.

use clap::{Args, Parser, Subcommand};
use referee::bot::charge::ClockChoice;
use referee::bot::sandbox::SandboxMode;
use uttt::rules::{Mark, Rules};

use crate::audience::Audience;
use crate::defaults;
use crate::exit_codes::{self, UsageError};
use crate::millis::{ClockMs, HandshakeMs, IncrementMs, MarginMs, MoveMs, PaceMs};

/// The command line of this process, read; a flag's value that cannot be read
/// into its type is said as `error: …` with exit 2 (clap's own errors keep
/// their form).
pub fn parse() -> Cli {
    match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            use std::error::Error as _;
            if let Some(usage) = error.source().and_then(|e| e.downcast_ref::<UsageError>()) {
                eprintln!("error: {usage}");
                std::process::exit(i32::from(exit_codes::USAGE.0));
            }
            error.exit()
        }
    }
}

/// `--rules`: `standard`, or variants joined by `+`, with a suggestion for a
/// mistyped name.
fn rules(text: &str) -> Result<Rules, UsageError> {
    text.parse()
        .map_err(|e| UsageError(format!("--rules: {}", crate::suggest::rules_error(&e))))
}

/// `--as`: X or O.
fn mark(text: &str) -> Result<Mark, UsageError> {
    text.trim()
        .parse()
        .map_err(|_| UsageError(format!("--as '{text}': write X (moves first) or O")))
}

/// `--concurrency`: 1 to [`defaults::MAX_CONCURRENCY`].
fn concurrency() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::new().range(1..=defaults::MAX_CONCURRENCY)
}

/// `--memory-mb`: [`defaults::MEMORY_MB`].
fn memory_mb() -> clap::builder::RangedU64ValueParser<u64> {
    clap::builder::RangedU64ValueParser::new().range(defaults::MEMORY_MB)
}

/// `--clock` of the commands with a game clock: milliseconds on the game clock,
/// or how moves are charged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockValue {
    /// A game clock in milliseconds per bot.
    Game(ClockMs),
    /// How moves are charged.
    Mode(ClockChoice),
}

/// `--clock`: a number is a game clock, a word a way to charge moves.
fn clock_value(text: &str) -> Result<ClockValue, UsageError> {
    if let Ok(choice) = text.parse::<ClockChoice>() {
        return Ok(ClockValue::Mode(choice));
    }
    text.parse::<ClockMs>().map(ClockValue::Game).map_err(|e| {
        UsageError(format!(
            "--clock '{text}': give a game clock in milliseconds ({e}) or a clock: auto, fair, wall or cpu"
        ))
    })
}

/// `--clock` of `arena tournament`: how moves are charged.
fn clock_choice(text: &str) -> Result<ClockChoice, UsageError> {
    text.parse()
        .map_err(|e| UsageError(format!("--clock: {e}")))
}

/// `--sandbox`: a mode or a list of layers.
fn sandbox_mode(text: &str) -> Result<SandboxMode, String> {
    text.parse()
}

/// Run Ultimate Tic-Tac-Toe bots against each other: matches, tournaments, ratings.
#[derive(Debug, Parser)]
#[command(
    name = "arena",
    version = crate::VERSION,
    about,
    propagate_version = true,
    after_help = crate::exit_codes::TABLE
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Play games between two bots in colour-swapped pairs and print the score.
    #[command(name = "match", after_help = crate::exit_codes::TABLE)]
    Match(MatchArgs),
    /// Play a tournament from a config file, or the built-in ladder with no file.
    #[command(after_help = crate::exit_codes::TABLE)]
    Tournament(TournamentArgs),
    /// Play a season: a tournament file with a [league] table, run again as
    /// students resubmit. Only new versions play; grades against the reference
    /// levels, grades.csv and similarity.csv are written after every run.
    #[command(after_help = crate::exit_codes::TABLE)]
    League(LeagueArgs),
    /// Test a new version against a baseline until the SPRT decides (for CI).
    #[command(override_usage = "arena sprt [OPTIONS] <NEW> <BASE>\n       \
        arena sprt [OPTIONS] <NEW> <BASE> --batch <K> --pairs <M> --seed <SEED> --out <OUT>\n       \
        arena sprt --decide <DIR>...",
        after_help = crate::exit_codes::TABLE
    )]
    Sprt(SprtArgs),
    /// Play one bot against several; fail below a minimum score (for CI).
    #[command(after_help = crate::exit_codes::TABLE)]
    Gauntlet(GauntletArgs),
    /// Place a bot on the reference levels' Elo scale: an adaptive gauntlet
    /// against the levels nearest its rating, until the interval is precise enough.
    ///
    /// Plays colour-swapped pairs against the reference levels (`arena bot level
    /// --help`): the first against the middle level, then against the levels just
    /// below and above the bot's current estimate, until the 95% interval of its
    /// rating is within --precision or --max-games are played. Prints the rating on
    /// the levels' scale (level 1 = 0: Elo above random play), its interval, the
    /// levels just below and above, and the bot's faults; writes the same to
    /// summary.json in the results directory. The bot plays under --time; the levels
    /// play at their fixed work (with a generous time limit as a safety net). Games
    /// start after 4 random plies, under the standard rules, as in the levels'
    /// calibration. Exit codes: 0 precise, 3 --max-games reached first, 4 the bot
    /// could not run, 130 interrupted (run the same command again to resume).
    Rate(RateArgs),
    /// Standings (Elo ± 95%, LOS, pairings) from one or more games.csv files, e.g.
    /// the shards of one tournament.
    Ratings(RatingsArgs),
    /// Check that a bot speaks the protocol correctly, step by step, in plain words.
    Check(CheckArgs),
    /// Write a self-contained HTML report of a results directory: standings, tables
    /// and a viewer for every game.
    Report(ReportArgs),
    /// Serve a live page following results directories, while a run writes them or
    /// after: progress, standings, games in progress move by move, finished games.
    Serve(ServeArgs),
    /// Tell a recorded game in words and draw its board at any ply.
    Replay(ReplayArgs),
    /// Reproduce a failed game: start its bot afresh, replay the recorded requests
    /// up to the one that failed, and show what it answers now beside what it
    /// answered then.
    ///
    /// The bot runs as tournament.json recorded it (command, protocol, time
    /// control, sandbox mode), or as --command says (a fixed version); the
    /// requests are the game's transcript word for word, or rebuilt from
    /// moves.csv for a game without one. Exit codes: 0 not reproduced (it
    /// answered in time with a legal move), 1 reproduced (the same kind of
    /// failure), 3 a different failure, 2 bad arguments or files. The end of a
    /// run prints this command for each failed game.
    #[command(after_help = REPRO_EXIT_CODES)]
    Repro(ReproArgs),
    /// Ask a bot once per position of a suite of proven positions (win in 1, 2, 3,
    /// forced defences, free-move traps, house rules) and score it per category.
    ///
    /// Without FILE, the suite shipped with the arena (docs/suite.md describes the
    /// format and how every answer is proven). Each position is a `newgame` as the
    /// side to move and one `go` with the game's moves, under --time (or --nodes
    /// of work). Prints solved/total per category and draws the missed positions;
    /// writes every answer to --csv. Exit codes: 0 (or PASS with --min-score), 1
    /// below --min-score, 2 bad arguments or suite file, 4 the bot could not start.
    Suite(SuiteArgs),
    /// (suite authors) Prove every answer of a suite again by exhaustive search.
    #[command(name = "__suite-prove", hide = true)]
    SuiteProve(SuiteProveArgs),
    /// (suite authors) Print the shipped suite, generated from a seed.
    #[command(name = "__suite-generate", hide = true)]
    SuiteGenerate(SuiteGenerateArgs),
    /// Play a bot (or another person) in this terminal; the game is recorded.
    ///
    /// Type a square (e5, or board.cell like 5.1) and press Enter, or move the
    /// cursor with the arrow keys and press Enter; an illegal square is refused
    /// with the reason. `u` takes back your last move and the bot's reply (one
    /// move with --two-players); `q` or Ctrl-C leaves. The game written to
    /// games.csv and moves.csv is the line as finally played: moves taken back
    /// leave no trace. A game left unfinished is not written.
    Play(PlayArgs),
    /// Count move sequences from a position (rules-engine check and benchmark).
    Perft(PerftArgs),
    /// Benchmark the referee against baselines measured in the same run.
    Bench(BenchArgs),
    /// Show which bot isolation layers this machine supports, and why not.
    Doctor(DoctorArgs),
    /// Print a shell completion script for bash, zsh, fish, powershell or elvish.
    ///
    /// Install for bash: `arena completions bash >
    /// ~/.local/share/bash-completion/completions/arena` (a new shell then
    /// completes subcommands and flags). docs/guide/README.md lists the place for
    /// each shell.
    Completions(CompletionsArgs),
    /// Print the manual page (roff), or write one page per subcommand with --out-dir.
    ///
    /// Read it with `arena man | man -l -`; install with `arena man --out-dir
    /// ~/.local/share/man/man1` (then `man arena`, `man arena-match`).
    Man(ManArgs),
    /// (benchmark helper) Answer every line with "e5".
    #[command(name = "__echo", hide = true)]
    Echo,
    /// (benchmark helper) A protocol bot that plays the first legal move at once.
    #[command(name = "__instant", hide = true)]
    Instant,
    /// (benchmark helper) A protocol bot that sleeps before each move.
    #[command(name = "__sleeper", hide = true)]
    Sleeper {
        /// Milliseconds to sleep before each move.
        #[arg(long)]
        delay_ms: u64,
    },
    /// (benchmark helper) A protocol bot that spins before each move until it has
    /// used this much CPU time.
    #[command(name = "__burner", hide = true)]
    Burner {
        /// Milliseconds of CPU time to use before each move.
        #[arg(long)]
        cpu_ms: u64,
    },
    /// Play a reference bot over the protocol on stdin/stdout.
    ///
    /// Names, weakest first: random, greedy, negamax [--level easy|medium|hard]
    /// (also negamax-easy, negamax-medium, negamax-hard), mcts [OPTIONS].
    /// `arena bot NAME --help` lists a bot's options.
    // The help flag is the bot's: `arena bot mcts --help` must reach mcts's options.
    #[command(disable_help_flag = true)]
    Bot(BotArgs),
}

/// `arena tournament`.
#[derive(Debug, Args)]
pub struct TournamentArgs {
    /// Tournament file (TOML, see configs/). Without it: the built-in ladder
    /// (configs/default.toml).
    pub config: Option<std::path::PathBuf>,
    /// Results directory [default: the file's `out`, else results/<name>-<timestamp>/].
    /// Re-running with the same directory resumes: finished games are kept.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Games at once, 1 to 256 [default: the file's `concurrency`, else one per core].
    #[arg(long, value_parser = concurrency())]
    pub concurrency: Option<usize>,
    /// Keep bots that play by the clock served (on, the default): raise their
    /// priority where the arena may (root), play fewer games at once while they
    /// wait for a CPU, wait for a busy machine, play an under-served game again.
    /// off: raw speed, results that depend on the machine's load.
    #[arg(long, value_enum, value_name = "MODE")]
    pub governor: Option<Governor>,
    /// The longest the governor makes a game wait for a busy machine, in seconds
    /// (0 to 3600) [default: 60].
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(0..=3600))]
    pub governor_wait: Option<u64>,
    /// Play only shard K of N (K/N), so N machines can split one tournament; merge
    /// the results with `arena ratings`.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Tournament seed [default: the file's `seed`, else the one saved in --out, else random].
    #[arg(long)]
    pub seed: Option<u64>,
    /// No progress bar and no per-game lines.
    #[arg(long, short)]
    pub quiet: bool,
    /// Resume into a directory even if it holds a different tournament.
    #[arg(long)]
    pub force: bool,
    /// Bot isolation for every bot, overriding the file: auto (every layer this
    /// machine supports), none, strict (refuse to start if a layer is missing), or
    /// a list of layers such as rlimits,landlock. See `arena doctor`.
    #[arg(long, value_name = "MODE", value_parser = sandbox_mode)]
    pub sandbox: Option<SandboxMode>,
    /// Memory per bot in MiB: everything its processes hold (children, shared memory
    /// and memfds included); past it the bot is killed. Each process's address space
    /// is capped at the same size, so one larger allocation fails inside the bot
    /// [default: the file's memory-mb, else 1024 for the whole bot].
    #[arg(long, value_name = "MIB", value_parser = memory_mb())]
    pub memory_mb: Option<u64>,
    /// Also serve the live page of the results directory while the run plays (see
    /// `arena serve`), at ADDR [default: 127.0.0.1:8080].
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = defaults::SERVE_ADDR)]
    pub serve: Option<std::net::SocketAddr>,
    /// With --serve: show the bots' command lines and stderr on their pages.
    #[arg(long, requires = "serve")]
    pub show_logs: bool,
    /// Skip the preflight: by default every bot is started once before the first
    /// game, and a bot that cannot start stops the run (exit 4) before any game.
    #[arg(long)]
    pub no_preflight: bool,
    /// Print summary.json's object (what was run, the verdict, the standings, the
    /// exit code and why) on standard output at the end; everything else printed
    /// goes to standard error.
    #[arg(long)]
    pub json: bool,
    /// Games per pairing, overriding the file's `games` (even: colour-swapped pairs).
    #[arg(long, value_name = "N")]
    pub games: Option<u32>,
    /// Milliseconds per move, overriding the file's `[time] move-ms`.
    #[arg(long, value_name = "MS")]
    pub time: Option<MoveMs>,
    /// How moves are charged, overriding the file's `[time] clock`: auto (the fair
    /// clock where this machine can measure it, else wall), fair (wall time less
    /// the time the bot waited for a CPU), wall, or cpu (CPU time alone: sleeping
    /// is free, every thread counts). See `arena doctor`.
    #[arg(long, value_name = "CLOCK", value_parser = clock_choice)]
    pub clock: Option<ClockChoice>,
    /// Rounds of a Swiss, overriding the file's `rounds`.
    #[arg(long, value_name = "N")]
    pub rounds: Option<u32>,
    /// A gauntlet's pass mark, overriding the file's `min-score`: exit 1 when the
    /// challenger scores less than this share of the points, e.g. 0.6.
    #[arg(long, value_name = "FRACTION")]
    pub min_score: Option<f64>,
    /// Fixed work, overriding the file's `[limits] nodes`: every bot is asked to stop
    /// after N nodes of its own search per move (`nodes` on `go`; see protocol.md).
    /// Without a move time (--time or `move-ms`), the time limit is a safety net of
    /// 5000 ms a move (10000 the first).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=defaults::MAX_NODES))]
    pub nodes: Option<u64>,
    /// Add a bot to the file's, e.g. --bot mine="python3 my_bot.py" (repeatable).
    #[arg(long = "bot", value_name = "NAME=CMD")]
    pub bots: Vec<String>,
    /// Check the file, run the builds (in a temporary directory) and the
    /// preflight, and print what would be played (bots, games, the first round,
    /// an estimated duration); play nothing and leave nothing behind.
    #[arg(long)]
    pub dry_run: bool,
    /// Leave the bot NAME out of the run, as a submission that cannot start is
    /// (repeatable): it is listed, not played.
    #[arg(long, value_name = "NAME")]
    pub exclude: Vec<String>,
    /// The least time a move stays on screen, in ms (0 to 60000), so a room can
    /// follow the games on the live page [default: the file's `[display]
    /// pace-ms`, else 0]. Waited out between a reply and the next request:
    /// never charged to a bot's clock.
    #[arg(long, value_name = "MS")]
    pub pace: Option<PaceMs>,
    /// Who the words at the end are for: full (the standings and the winner;
    /// every statistic with --details) or class (the same, never the statistics
    /// of --details) [default: the file's `[display] audience`, else full].
    #[arg(long, value_name = "WHO")]
    pub audience: Option<Audience>,
    /// At the end, every statistic too: the likelihood that each bot is stronger
    /// than the next, the first player's edge, notes on the fit, and each
    /// pairing's Elo, nElo, LOS and pentanomial counts (crosstable.csv and the
    /// report always have them).
    #[arg(long)]
    pub details: bool,
}

/// `arena league`.
#[derive(Debug, Args)]
pub struct LeagueArgs {
    /// Tournament file with a [league] table (see docs/guide/classroom.md).
    pub config: std::path::PathBuf,
    /// The season's results directory [default: the file's `out`, else
    /// results/<name>]. Every run of the season uses the same one.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Games at once, 1 to 256 [default: the file's `concurrency`, else one per core].
    #[arg(long, value_parser = concurrency())]
    pub concurrency: Option<usize>,
    /// Keep bots that play by the clock served (on, the default): raise their
    /// priority where the arena may (root), play fewer games at once while they
    /// wait for a CPU, wait for a busy machine, play an under-served game again.
    /// off: raw speed, results that depend on the machine's load.
    #[arg(long, value_enum, value_name = "MODE")]
    pub governor: Option<Governor>,
    /// The longest the governor makes a game wait for a busy machine, in seconds
    /// (0 to 3600) [default: 60].
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(0..=3600))]
    pub governor_wait: Option<u64>,
    /// No progress bar and no list of faults: only the table and the files.
    #[arg(long, short)]
    pub quiet: bool,
    /// Bot isolation for every bot, overriding the file (see `arena tournament --sandbox`).
    #[arg(long, value_name = "MODE", value_parser = sandbox_mode)]
    pub sandbox: Option<SandboxMode>,
    /// The least time a move stays on screen, in ms (0 to 60000), so a room can
    /// follow the games on the live page [default: the file's `[display]
    /// pace-ms`, else 0]. Never charged to a bot's clock: it changes no grade.
    #[arg(long, value_name = "MS")]
    pub pace: Option<PaceMs>,
    /// Keep running: after each run, look at the submissions every
    /// --poll-seconds and play again when one changes (a change during a run is
    /// picked up after it). Ctrl-C stops.
    #[arg(long)]
    pub watch: bool,
    /// With --watch: seconds between looks at the submissions.
    #[arg(long, value_name = "S", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600), requires = "watch")]
    pub poll_seconds: u64,
    /// Also serve the live page of the season's directory (see `arena serve`), at
    /// ADDR [default: 127.0.0.1:8080].
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = defaults::SERVE_ADDR)]
    pub serve: Option<std::net::SocketAddr>,
    /// Skip the similarity check after the run.
    #[arg(long)]
    pub no_similarity: bool,
}

/// `arena doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Bots to check as they would run here (specs as for `arena match`), e.g.
    /// "python3 my_bot.py": whether each gets a uid of its own, and why not.
    pub bots: Vec<String>,
    /// Check every bot of this tournament file instead, each under its own mode.
    #[arg(long, value_name = "FILE", conflicts_with = "bots")]
    pub config: Option<std::path::PathBuf>,
    /// The sandbox mode to check the bots under [default: auto, or each bot's
    /// mode in --config].
    #[arg(long, value_name = "MODE", value_parser = sandbox_mode)]
    pub sandbox: Option<SandboxMode>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `arena completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `arena man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write arena.1 and arena-<command>.1 for every command into this directory
    /// (made if missing) instead of printing arena.1.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<std::path::PathBuf>,
}

/// `arena report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A results directory (from `arena tournament`, or `match`/`sprt`/`gauntlet`
    /// with --out).
    pub dir: std::path::PathBuf,
    /// Where to write the report [default: DIR/report.html, with --teacher
    /// DIR/report-teacher.html].
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// The teacher's report: also the pairs of a league's submissions the
    /// similarity check flagged, with their evidence. Never on the live page or
    /// in report.html, which the class sees.
    #[arg(long)]
    pub teacher: bool,
}

/// `arena serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Results directories (from `arena tournament`, or `match`/`sprt`/`gauntlet`
    /// with --out), running or finished.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<std::path::PathBuf>,
    /// Where to listen. Only this machine by default; another address (such as
    /// 0.0.0.0:8080) lets others on the network watch, with a warning.
    #[arg(long, default_value = defaults::SERVE_ADDR)]
    pub addr: std::net::SocketAddr,
    /// Show the bots' command lines and stderr on their pages (hidden by default:
    /// they may hold paths, tokens or a student's words).
    #[arg(long)]
    pub show_logs: bool,
}

/// `arena check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The bot: a built-in name or a command line, e.g. "python3 my_bot.py".
    #[arg(required_unless_present = "config")]
    pub bot: Option<String>,
    /// Check every bot of this tournament file instead (submissions built first),
    /// a few at once, and print one table: bot, PASS/FAIL, the first failure.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["bot", "protocol"])]
    pub config: Option<std::path::PathBuf>,
    /// With --config: where each bot's feedback file (<bot>.txt) goes, and the
    /// builds [default: check-feedback].
    #[arg(long, value_name = "DIR", requires = "config")]
    pub feedback: Option<std::path::PathBuf>,
    /// With --config: bots checked at once [default: one per core].
    #[arg(long, value_parser = concurrency(), requires = "config")]
    pub concurrency: Option<usize>,
    /// The protocol it speaks: uttt (default), codingame or riddles.
    #[arg(long)]
    pub protocol: Option<String>,
    /// Milliseconds per move in the normal steps (1 to 3600000).
    #[arg(long, default_value_t = defaults::CHECK_MOVE_TIME)]
    pub time: MoveMs,
    /// Milliseconds for the first move of each game, which may include starting the
    /// bot (1 to 3600000) [default: the larger of --time and 1000, CodinGame's first
    /// turn].
    #[arg(long, value_name = "MS")]
    pub first_time: Option<MoveMs>,
    /// Where the games your bot loses by its own fault (an illegal move, a crash, a
    /// timeout) are kept, for `arena replay` and `arena repro` [default:
    /// results/check-DATE-TIME, made only when a game is kept].
    #[arg(long, value_name = "DIR", conflicts_with = "config")]
    pub out: Option<std::path::PathBuf>,
    /// Forgiven overrun in milliseconds (0 to 600000).
    #[arg(long, default_value_t = defaults::MARGIN)]
    pub margin: MarginMs,
    /// Milliseconds to start and answer the handshake (1 to 600000).
    #[arg(long, default_value_t = defaults::HANDSHAKE)]
    pub handshake_time: HandshakeMs,
    /// Seed of the checker's own (opponent) moves.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Bot isolation, as in tournaments: auto, none, strict or a list of layers.
    #[arg(long, value_name = "MODE", default_value = "auto", value_parser = sandbox_mode)]
    pub sandbox: SandboxMode,
    /// Memory per bot in MiB: everything its processes hold (children, shared memory
    /// and memfds included); past it the bot is killed. Each process's address space
    /// is capped at the same size, so one larger allocation fails inside the bot
    /// [default: 1024 for the whole bot, address space unlimited].
    #[arg(long, value_name = "MIB", value_parser = memory_mb())]
    pub memory_mb: Option<u64>,
}

/// `arena ratings`.
#[derive(Debug, Args)]
pub struct RatingsArgs {
    /// games.csv files to merge (shards of one tournament, or several tournaments).
    #[arg(required = true)]
    pub files: Vec<std::path::PathBuf>,
    /// Fix a bot's rating, e.g. random=0; repeat it to fix several (a bot placed
    /// among reference levels: --anchor level9=1685 --anchor level10=1916), the
    /// others fitted around them [default: ratings average 0].
    #[arg(long, value_name = "NAME=ELO")]
    pub anchor: Vec<String>,
    /// Also print the likelihood-of-superiority matrix.
    #[arg(long)]
    pub los: bool,
    /// Write standings.csv, crosstable.csv and reasons.csv to this directory.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
}

/// `arena bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// What to measure.
    #[arg(value_enum)]
    pub kind: BenchKind,
    /// Moves to time (overhead).
    #[arg(long, default_value_t = 20_000)]
    pub moves: u32,
    /// Games per concurrent slot and case (timing, sandbox, games) [default: 10];
    /// games of the whole run (tournament) [default: 100000].
    #[arg(long)]
    pub games: Option<u32>,
    /// Seconds per bot and load at most (clock; --moves caps the moves too).
    #[arg(long, default_value_t = 30)]
    pub seconds: u64,
    /// Games at once (tournament) [default: what a tournament chooses, see `arena doctor`].
    #[arg(long, value_parser = concurrency())]
    pub concurrency: Option<usize>,
    /// Bot processes (tournament): reused, one per game, or a run of each.
    #[arg(long, value_enum, default_value_t = BenchProcesses::Both)]
    pub processes: BenchProcesses,
    /// Instant bots in the round robin (tournament), 2 or more.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(2..=200))]
    pub bots: u32,
    /// Games per line of the report (tournament).
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..))]
    pub window: u32,
    /// Names in the generated games (ratings), 2 or more.
    #[arg(long, default_value_t = 5_000, value_parser = clap::value_parser!(u32).range(2..))]
    pub names: u32,
    /// Keep the generated games.csv and the outputs in this directory (ratings)
    /// [default: a temporary directory, removed at the end].
    #[arg(long)]
    pub dir: Option<std::path::PathBuf>,
}

/// The bot processes of `arena bench tournament`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BenchProcesses {
    /// One process per bot, reused across its games.
    Reuse,
    /// A process per bot and game.
    PerGame,
    /// A run of each, reused first.
    Both,
}

/// Which benchmark.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum BenchKind {
    /// Per-move referee cost with an instant bot vs the raw pipe round trip.
    Overhead,
    /// Timeout precision with two games at once.
    Timing,
    /// Games per second of random vs random, concurrency 1 and 2, processes reused or not.
    Games,
    /// Start-up cost of a bot under each sandbox layer.
    Sandbox,
    /// A whole `arena tournament` of instant bots: games/s and the arena's CPU per
    /// game in each window of games, peak memory, against the runner alone.
    Tournament,
    /// False and missed time losses of the wall and fair clocks beside busy loops.
    Clock,
    /// `arena ratings` and `arena report` on generated games of many names (a merge
    /// of shards), against reading games.csv alone.
    Ratings,
}

/// `arena match`.
#[derive(Debug, Args)]
pub struct MatchArgs {
    /// First bot: a built-in name (random, greedy, negamax, mcts…) or a command line in
    /// quotes, e.g. "python3 my_bot.py". Prefix NAME= to name it, codingame: or
    /// riddles: for bots written for those arenas.
    pub bot_a: String,
    /// Second bot, as the first.
    pub bot_b: String,
    /// Number of games; they are played in pairs with colours swapped.
    #[arg(long, short = 'n', default_value_t = 2)]
    pub games: u32,
    /// Print every game move by move, in words.
    #[arg(long, short)]
    pub verbose: bool,
    /// Time, rules, openings, output.
    #[command(flatten)]
    pub play: PlayOptions,
}

/// The time flags of the commands that play games.
#[derive(Debug, Args)]
pub struct TimeArgs {
    /// Milliseconds per move (1 to 3600000) [default: 100].
    #[arg(long)]
    pub time: Option<MoveMs>,
    /// Milliseconds for each bot's first move of a game (1 to 3600000) [default: the
    /// larger of --time and 1000].
    #[arg(long)]
    pub first_time: Option<MoveMs>,
    /// Forgiven overrun in milliseconds (0 to 600000): a move later than --time but
    /// within the margin counts.
    #[arg(long, default_value_t = defaults::MARGIN)]
    pub margin: MarginMs,
}

/// Options shared by the commands that play games on the command line.
#[derive(Debug, Args)]
pub struct PlayOptions {
    /// Milliseconds per move, for the first move, and the margin.
    #[command(flatten)]
    pub time: TimeArgs,
    /// A game clock in milliseconds per bot (1 to 86400000; the per-move --time still
    /// caps each move), or how moves are charged: auto (the fair clock where this
    /// machine can measure it, else wall), fair (wall time less the time the bot
    /// waited for a CPU), wall, or cpu (CPU time alone: sleeping is free, every
    /// thread counts). Give both as --clock 60000 --clock wall.
    #[arg(long, value_name = "MS|CLOCK", value_parser = clock_value)]
    pub clock: Vec<ClockValue>,
    /// Milliseconds added to a bot's clock after each of its moves, with --clock (0 to
    /// 3600000).
    #[arg(long, requires = "clock")]
    pub increment: Option<IncrementMs>,
    /// Milliseconds a bot has to start and answer the handshake (1 to 600000).
    #[arg(long, default_value_t = defaults::HANDSHAKE)]
    pub handshake_time: HandshakeMs,
    /// Rules: standard, or variants joined by '+' (open-won-boards, draws-count-both,
    /// most-boards) [default: standard; with codingame: or riddles: bots, the rules
    /// they believe: most-boards for CodinGame's, standard for Riddles.io's].
    #[arg(long, value_parser = rules)]
    pub rules: Option<Rules>,
    /// Start each pair of games after this many random plies (0: from the empty board).
    #[arg(long, default_value_t = 0, conflicts_with = "openings")]
    pub random_plies: u32,
    /// Opening book: one move list per line (e.g. "e5 e4 d2"); each pair of games uses
    /// the next line.
    #[arg(long)]
    pub openings: Option<std::path::PathBuf>,
    /// Seed for openings and the bots' seeds [default: the one saved in --out, else random].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Games played at once (1 to 256).
    #[arg(long, default_value_t = 1, value_parser = concurrency())]
    pub concurrency: usize,
    /// Keep bots that play by the clock served (on, the default): raise their
    /// priority where the arena may (root), play fewer games at once while they
    /// wait for a CPU, wait for a busy machine, play an under-served game again.
    /// off: raw speed, results that depend on the machine's load.
    #[arg(long, value_enum, value_name = "MODE")]
    pub governor: Option<Governor>,
    /// The longest the governor makes a game wait for a busy machine, in seconds
    /// (0 to 3600) [default: 60].
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(0..=3600))]
    pub governor_wait: Option<u64>,
    /// Write games.csv and moves.csv to this directory; running again with the same
    /// directory resumes.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Let bots of foreign dialects (codingame:, riddles:) play house-rule variants
    /// they cannot be told about.
    #[arg(long)]
    pub allow_unannounced_rules: bool,
    /// Bot isolation: auto (every layer this machine supports), none, strict
    /// (refuse to start if a layer is missing), or a list of layers such as
    /// rlimits,landlock. See `arena doctor`.
    #[arg(long, value_name = "MODE", default_value = "auto", value_parser = sandbox_mode)]
    pub sandbox: SandboxMode,
    /// Memory per bot in MiB: everything its processes hold (children, shared memory
    /// and memfds included); past it the bot is killed. Each process's address space
    /// is capped at the same size, so one larger allocation fails inside the bot
    /// [default: 1024 for the whole bot, address space unlimited].
    #[arg(long, value_name = "MIB", value_parser = memory_mb())]
    pub memory_mb: Option<u64>,
    /// Also serve the live page of the results directory (--out) while the run plays (see
    /// `arena serve`), at ADDR [default: 127.0.0.1:8080].
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = defaults::SERVE_ADDR)]
    pub serve: Option<std::net::SocketAddr>,
    /// With --serve: show the bots' command lines and stderr on their pages.
    #[arg(long, requires = "serve")]
    pub show_logs: bool,
    /// Fixed work: ask every bot to stop after N nodes of its own search per move
    /// (`nodes` on `go`; an honour system, see protocol.md). With --seed, the
    /// built-in bots then play the same games on an idle or a busy machine. The
    /// time limit stays on as a safety net: without --time, 5000 ms a move (10000
    /// the first), which a loaded machine does not reach.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=defaults::MAX_NODES))]
    pub nodes: Option<u64>,
    /// Skip the preflight: by default every bot is started once before the first
    /// game, and a bot that cannot start stops the run (exit 4) before any game.
    #[arg(long)]
    pub no_preflight: bool,
    /// Print summary.json's object (what was run, the verdict, the standings, the
    /// exit code and why) on standard output at the end; everything else printed
    /// goes to standard error.
    #[arg(long)]
    pub json: bool,
}

/// `arena sprt`.
#[derive(Debug, Args)]
// Its help is the long form (a paragraph per flag): the default in one of its own,
// as clap writes it where it knows the default.
#[command(mut_arg("time", |a| a.long_help("Milliseconds per move (1 to 3600000)\n\n[default: 100]")))]
pub struct SprtArgs {
    /// The new version (a bot spec, as for `arena match`).
    #[arg(required_unless_present = "decide", conflicts_with = "decide")]
    pub new: Option<String>,
    /// The baseline it is tested against.
    #[arg(required_unless_present = "decide")]
    pub base: Option<String>,
    /// Play only batch K of a test spread over machines: its pairs (K-1)*M+1 to K*M
    /// of the sequential test with the same --seed, into its own --out directory,
    /// never stopping early. Decide with --decide.
    #[arg(long, value_name = "K", requires_all = ["pairs", "seed", "out"],
          value_parser = clap::value_parser!(u32).range(1..))]
    pub batch: Option<u32>,
    /// Colour-swapped pairs in each batch, M (the same for every batch of a test).
    #[arg(long, value_name = "M", requires = "batch",
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub pairs: Option<u32>,
    /// Decide a test played in batches from their directories (any order, any
    /// machine): checks the LLR after each complete batch, in batch order. Exit 0
    /// H1, 1 H0, 3 undecided (play more batches).
    #[arg(long, value_name = "DIR", num_args = 1.., conflicts_with_all = ["batch", "pairs"])]
    pub decide: Vec<std::path::PathBuf>,
    /// Elo difference under H0 (no improvement).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    pub elo0: f64,
    /// Elo difference under H1 (improvement).
    #[arg(long, default_value_t = 5.0, allow_negative_numbers = true)]
    pub elo1: f64,
    /// Probability of accepting H1 when H0 is true.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// Probability of accepting H0 when H1 is true.
    #[arg(long, default_value_t = 0.05)]
    pub beta: f64,
    /// Stop undecided after this many games (exit code 3), 2 to 2000000000.
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u32).range(2..=2_000_000_000))]
    pub max_games: u32,
    /// Elo model of elo0/elo1: normalized (fishtest's default) or logistic.
    #[arg(long, value_enum, default_value_t = SprtModel::Normalized)]
    pub model: SprtModel,
    /// No progress display.
    #[arg(long, short)]
    pub quiet: bool,
    /// Time, rules, openings, output.
    #[command(flatten)]
    pub play: PlayOptions,
}

/// `--governor`: whether timed bots are kept served (`on`, the default) or
/// not (`off`: raw speed). The words are the help's whole description, so
/// the variants carry none (a described variant would turn every command's
/// help into its long form).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
#[allow(missing_docs)]
pub enum Governor {
    On,
    Off,
}

/// The Elo model of an SPRT.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum SprtModel {
    /// Normalized Elo (nElo), independent of the draw rate.
    Normalized,
    /// Logistic (BayesElo-free) Elo.
    Logistic,
}

/// `arena rate`.
#[derive(Debug, Args)]
// The bot's time, in words of its own; the defaults as clap writes them.
#[command(
    mut_arg("time", |a| a
        .help("Milliseconds per move of the bot (1 to 3600000)")
        .long_help("Milliseconds per move of the bot (1 to 3600000)\n\n[default: 100]")),
    mut_arg("first_time", |a| a.help(
        "Milliseconds for the bot's first move of a game (1 to 3600000) [default: the larger of --time and 1000]")),
    mut_arg("margin", |a| a.help("Forgiven overrun in milliseconds (0 to 600000)")),
)]
pub struct RateArgs {
    /// The bot to rate (a bot spec, as for `arena match`).
    pub bot: String,
    /// Stop when the 95% interval's half-width is at most this many Elo.
    #[arg(long, default_value_t = defaults::RATE_PRECISION)]
    pub precision: f64,
    /// Stop after this many games even if less precise (2 to 100000).
    #[arg(long, default_value_t = defaults::RATE_MAX_GAMES, value_parser = clap::value_parser!(u32).range(2..=100_000))]
    pub max_games: u32,
    /// Print only summary.json's content, as JSON, on stdout.
    #[arg(long)]
    pub json: bool,
    /// No per-pair lines.
    #[arg(long, short)]
    pub quiet: bool,
    /// The bot's time per move, for its first move, and the margin.
    #[command(flatten)]
    pub time: TimeArgs,
    /// Milliseconds a bot has to start and answer the handshake (1 to 600000).
    #[arg(long, default_value_t = defaults::HANDSHAKE)]
    pub handshake_time: HandshakeMs,
    /// Seed for openings and the bots' seeds [default: the one saved in --out, else random].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Games played at once (1 to 256). More than one makes the bot share the
    /// cores with its own other games.
    #[arg(long, default_value_t = 1, value_parser = concurrency())]
    pub concurrency: usize,
    /// Keep bots that play by the clock served (on, the default): raise their
    /// priority where the arena may (root), play fewer games at once while they
    /// wait for a CPU, wait for a busy machine, play an under-served game again.
    /// off: raw speed, results that depend on the machine's load.
    #[arg(long, value_enum, value_name = "MODE")]
    pub governor: Option<Governor>,
    /// The longest the governor makes a game wait for a busy machine, in seconds
    /// (0 to 3600) [default: 60].
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(0..=3600))]
    pub governor_wait: Option<u64>,

    /// Results directory; running again with the same directory resumes
    /// [default: results/rate-DATE-TIME].
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Bot isolation: auto, none, strict, or a list of layers (see `arena doctor`).
    #[arg(long, value_name = "MODE", default_value = "auto", value_parser = sandbox_mode)]
    pub sandbox: SandboxMode,
    /// Memory per bot in MiB [default: 1024 for the whole bot].
    #[arg(long, value_name = "MIB", value_parser = memory_mb())]
    pub memory_mb: Option<u64>,
    /// Start each pair of games after this many random plies, 0 for the empty board
    /// [default: 4, as the levels were calibrated; the empty board for codingame:
    /// bots, which cannot be told an opening].
    #[arg(long, value_name = "N", conflicts_with = "openings")]
    pub random_plies: Option<u32>,
    /// Opening book: one move list per line; each pair of games uses the next line.
    #[arg(long, value_name = "FILE")]
    pub openings: Option<std::path::PathBuf>,
}

/// `arena gauntlet`.
#[derive(Debug, Args)]
pub struct GauntletArgs {
    /// The bot under test.
    pub challenger: String,
    /// Its opponents.
    #[arg(long, required = true, num_args = 1..)]
    pub against: Vec<String>,
    /// Games against each opponent (pairs with colours swapped).
    #[arg(long, short = 'n', default_value_t = 20)]
    pub games: u32,
    /// Fail (exit 1) if the challenger's overall score is below this fraction, e.g. 0.6.
    #[arg(long)]
    pub min_score: Option<f64>,
    /// No per-game lines.
    #[arg(long, short)]
    pub quiet: bool,
    /// Time, rules, openings, output.
    #[command(flatten)]
    pub play: PlayOptions,
}

/// `arena replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// A results directory holding games.csv and moves.csv (from `arena match
    /// --out`, `arena tournament` or `arena play`).
    pub dir: std::path::PathBuf,
    /// The game's id, as in games.csv (e.g. G0001) [default: the only game].
    #[arg(long)]
    pub game: Option<String>,
    /// Draw the board after this many marks (0: the empty board) [default: the end].
    #[arg(long)]
    pub ply: Option<u32>,
}

/// `arena suite`.
#[derive(Debug, Args)]
pub struct SuiteArgs {
    /// The bot (a bot spec, as for `arena match`).
    pub bot: String,
    /// A suite file [default: the shipped tactics suite].
    pub file: Option<std::path::PathBuf>,
    /// Milliseconds per position (1 to 3600000).
    #[arg(long, default_value_t = defaults::MOVE_TIME)]
    pub time: MoveMs,
    /// Forgiven overrun in milliseconds (0 to 600000).
    #[arg(long, default_value_t = defaults::MARGIN)]
    pub margin: MarginMs,
    /// Fixed work: `nodes N` on every `go` (the time limit stays as a safety net).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=defaults::MAX_NODES))]
    pub nodes: Option<u64>,
    /// Results directory: its suite.csv holds every answer (id, category, rules,
    /// answer, solved, best, think_ms, problem) [default:
    /// results/suite-<bot>-<date>-<time>, beside the other runs' results].
    #[arg(long, value_name = "DIR")]
    pub out: Option<std::path::PathBuf>,
    /// Write the answers to FILE instead of DIR/suite.csv.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<std::path::PathBuf>,
    /// Fail (exit 1) below this share of positions solved, e.g. 0.8.
    #[arg(long, value_name = "FRACTION")]
    pub min_score: Option<f64>,
    /// Bot isolation: auto, none, strict, or a list of layers (see `arena doctor`).
    #[arg(long, value_name = "MODE", default_value = "auto", value_parser = sandbox_mode)]
    pub sandbox: SandboxMode,
    /// Memory per bot in MiB [default: 1024 for the whole bot].
    #[arg(long, value_name = "MIB", value_parser = memory_mb())]
    pub memory_mb: Option<u64>,
}

/// `arena __suite-prove`.
#[derive(Debug, Args)]
pub struct SuiteProveArgs {
    /// A suite file [default: the shipped suite].
    pub file: Option<std::path::PathBuf>,
    /// Print every position's proven answer, not only the wrong ones.
    #[arg(long, short)]
    pub verbose: bool,
}

/// `arena __suite-generate`.
#[derive(Debug, Args)]
pub struct SuiteGenerateArgs {
    /// The seed of the random games the positions come from.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The exit codes of `arena repro`, after its help.
const REPRO_EXIT_CODES: &str = "\
Exit codes:
  0    not reproduced: the bot answered in time with a legal move
  1    reproduced: the same kind of failure (crash, timeout, illegal move...)
  2    bad usage, or no such game or bot in the directory
  3    a different failure than the recorded one";

/// `arena repro`.
#[derive(Debug, Args)]
pub struct ReproArgs {
    /// A results directory (from `arena tournament`, or `match`/`gauntlet`/`sprt`
    /// with --out).
    pub dir: std::path::PathBuf,
    /// The game's id, as in games.csv and the run's list of failures (e.g. G0317).
    #[arg(long)]
    pub game: String,
    /// The bot to replay, by its name in the game [default: the bot at fault].
    #[arg(long, value_name = "NAME")]
    pub bot: Option<String>,
    /// Replay up to the request for the move after N marks (the opening
    /// included) [default: the request that failed].
    #[arg(long, value_name = "N")]
    pub ply: Option<u32>,
    /// Start this bot instead of the recorded command (a bot spec, as for
    /// `arena match`), e.g. a fixed version: --command "python3 fixed.py".
    #[arg(long, value_name = "CMD")]
    pub command: Option<String>,
    /// Bot isolation [default: auto, or strict where the run recorded strict; a
    /// results directory never makes it weaker than auto].
    #[arg(long, value_name = "MODE", value_parser = sandbox_mode)]
    pub sandbox: Option<SandboxMode>,
}

/// `arena play`.
#[derive(Debug, Args)]
pub struct PlayArgs {
    /// The opponent: a built-in name (random, mcts…) or a command line in quotes,
    /// e.g. "python3 my_bot.py". Not with --two-players.
    #[arg(
        required_unless_present = "two_players",
        conflicts_with = "two_players"
    )]
    pub bot: Option<String>,
    /// The mark you play: X (moves first) or O.
    #[arg(
        long = "as",
        value_name = "X|O",
        default_value = "X",
        conflicts_with = "two_players",
        value_parser = mark
    )]
    pub side: Mark,
    /// Milliseconds per move for the bot, 1 to 3600000 (its first move gets at least
    /// 1000).
    #[arg(long, default_value_t = defaults::PLAY_MOVE_TIME)]
    pub time: MoveMs,
    /// Rules: standard, or variants joined by '+' (open-won-boards, draws-count-both,
    /// most-boards) [default: standard; against a codingame: bot, most-boards, the rules
    /// it believes].
    #[arg(long, value_parser = rules)]
    pub rules: Option<Rules>,
    /// Two people take turns at this terminal; `u` takes back one move.
    #[arg(long)]
    pub two_players: bool,
    /// Start from a move list ("e5 e4", a1..i9 or board.cell) or a position text
    /// ("9/9/9/9/4x4/9/9/9/9 5 o", as `arena replay` prints it).
    #[arg(long, value_name = "POSITION")]
    pub from: Option<String>,
    /// Your name in the results (letters, digits, _ . -). With --two-players give
    /// it twice: X's name, then O's.
    #[arg(long, default_value = "human")]
    pub name: Vec<String>,
    /// Results directory (games.csv and moves.csv are appended to)
    /// [default: results/play-<timestamp>/].
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Memory per bot in MiB: everything its processes hold (children, shared memory
    /// and memfds included); past it the bot is killed. Each process's address space
    /// is capped at the same size, so one larger allocation fails inside the bot
    /// [default: 1024 for the whole bot, address space unlimited].
    #[arg(long, value_name = "MIB", value_parser = memory_mb())]
    pub memory_mb: Option<u64>,
}

/// `arena bot`.
#[derive(Debug, Args)]
pub struct BotArgs {
    /// The bot: random, greedy, negamax, negamax-easy, negamax-medium, negamax-hard, mcts.
    #[arg(allow_hyphen_values = true)]
    pub name: String,
    /// The bot's options, e.g. --level hard; everything after NAME is passed to the bot.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<String>,
}

/// `arena perft`.
#[derive(Debug, Args)]
pub struct PerftArgs {
    /// Deepest depth to count, 1-20; one line is printed per depth.
    pub depth: String,
    /// Rules: standard, or variants joined by '+' (open-won-boards, draws-count-both, most-boards).
    #[arg(long, default_value = "standard", value_parser = rules)]
    pub rules: Rules,
    /// Start after these moves, e.g. "e5 e4" (a1..i9 or board.cell).
    #[arg(long, conflicts_with = "position")]
    pub moves: Option<String>,
    /// Start from this position text, e.g. "9/9/9/9/4x4/9/9/9/9 5 o".
    #[arg(long)]
    pub position: Option<String>,
    /// Print only the deepest depth, split by first move.
    #[arg(long)]
    pub divide: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_valid() {
        Cli::command().debug_assert();
    }
}
