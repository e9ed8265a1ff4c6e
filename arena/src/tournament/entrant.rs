//! The bots of a run and the conditions they play under. An [`Entrant`] is a
//! resolved bot with its time control; a [`Lineup`] is what `match`, `sprt` and
//! `gauntlet` make of their command line (the second layer of its arguments:
//! every flag checked and typed before any process starts). Tournament files make
//! their entrants in `config`.

use std::time::Duration;

use referee::dialect::Dialect;
use referee::game::{GameClock, TimeControl};
use uttt::rules::Rules;

use super::bot_spec::{BotSpec, Resolver, dedupe_names};
use super::isolation;
use super::openings::{BookFileError, Openings, read_book_file};
use super::run::{Watcher, run_games};
use super::runner::{RunEnd, RunOptions};
use super::schedule::ScheduledGame;
use crate::cli::PlayOptions;
use crate::defaults;
use crate::millis::{IncrementMs, MoveMs};
use crate::results::live::LIVE_DIR;
use crate::results::manifest::{IsolationReport, ProcessPolicy};
use crate::results::recorder::Recorder;

/// A bot entered in a run.
#[derive(Clone, Debug)]
pub struct Entrant {
    /// How to start it, and its name.
    pub spec: BotSpec,
    /// Its time control (differs between bots only with time odds).
    pub time: TimeControl,
}

/// Bots and game settings from the command line.
#[derive(Debug)]
pub struct Lineup {
    /// The bots, in the order given.
    pub entrants: Vec<Entrant>,
    /// Rules.
    pub rules: Rules,
    /// Openings.
    pub openings: Openings,
    /// The time control.
    pub time: TimeControl,
    /// The isolation layers in force for each bot.
    pub isolation: IsolationReport,
}

impl Lineup {
    /// Validates bot specs and the shared options. Errors are messages for the user.
    ///
    /// # Errors
    /// What is wrong and how to fix it.
    pub fn from_command_line(specs: &[&str], play: &PlayOptions) -> Result<Lineup, String> {
        let resolver = Resolver::from_env()
            .map_err(|e| format!("cannot find the arena executable: {e}"))?
            .with_memory_mb(play.memory_mb);
        let mut resolved = Vec::new();
        for raw in specs {
            resolved.push(resolver.resolve(raw).map_err(|e| e.to_string())?);
        }
        let mut names: Vec<String> = resolved.iter().map(|s| s.name.clone()).collect();
        dedupe_names(&mut names);
        let rules: Rules = play
            .rules
            .parse()
            .map_err(|e| format!("--rules: {}", crate::suggest::rules_error(&e)))?;
        if !play.allow_unannounced_rules
            && let Some(spec) = resolved.iter().find(|s| !s.dialect.can_express(rules))
        {
            return Err(unannounced_rules_message(
                &spec.name,
                spec.dialect,
                rules,
                "--allow-unannounced-rules",
            ));
        }
        let time = time_control(play)?;
        let openings = match (&play.openings, play.random_plies) {
            (Some(path), _) => {
                Openings::Book(read_book_file(path, rules).map_err(|e| match e {
                    BookFileError::Unreadable(e) => format!("--openings {}: {e}", path.display()),
                    BookFileError::Bad(e) => {
                        format!("{}:{}: {}", path.display(), e.line, e.message)
                    }
                })?)
            }
            (None, 0) => Openings::None,
            (None, k) if k > defaults::MAX_RANDOM_PLIES => {
                return Err(format!(
                    "--random-plies {k}: use at most {}",
                    defaults::MAX_RANDOM_PLIES
                ));
            }
            (None, k) => Openings::RandomPlies(k),
        };
        if openings.has_moves()
            && let Some(spec) = resolved
                .iter()
                .find(|s| !s.dialect.can_start_from_opening())
        {
            let flag = if play.openings.is_some() {
                "--openings"
            } else {
                "--random-plies"
            };
            return Err(opening_refused_message(&spec.name, spec.dialect, flag));
        }
        let mut entrants: Vec<Entrant> = resolved
            .into_iter()
            .zip(names)
            .map(|(mut spec, name)| {
                spec.name = name;
                Entrant { spec, time }
            })
            .collect();
        let host = isolation::detect(&resolver.arena_exe);
        let isolation = isolation::apply(&mut entrants, &host, Some(play.sandbox))?;
        Ok(Lineup {
            entrants,
            rules,
            openings,
            time,
            isolation,
        })
    }

    /// Plays `games` with [`run_games`], as a command-line run plays them:
    /// processes reused, `--concurrency` at once, stderr logs in `out/logs`.
    ///
    /// # Errors
    /// As [`run_games`].
    pub fn run_games(
        &self,
        play: &PlayOptions,
        games: impl IntoIterator<Item = ScheduledGame>,
        recorder: &mut Recorder,
        watcher: &mut impl Watcher,
    ) -> anyhow::Result<RunEnd> {
        run_games(
            &self.entrants,
            self.run_options(play),
            games,
            recorder,
            watcher,
        )
    }

    fn run_options(&self, play: &PlayOptions) -> RunOptions {
        RunOptions {
            concurrency: play.concurrency,
            processes: ProcessPolicy::Reuse,
            handshake_limit: play.handshake_time.duration(),
            rules: self.rules,
            log_dir: play.out.as_ref().map(|d| d.join("logs")),
            live_dir: play.out.as_ref().map(|d| d.join(LIVE_DIR)),
            preflight: !play.no_preflight,
        }
    }

    /// The bots' names, in the order given.
    pub fn names(&self) -> Vec<String> {
        self.entrants.iter().map(|e| e.spec.name.clone()).collect()
    }
}

/// The time control of `--time`, `--first-time`, `--margin`, `--clock` and
/// `--increment`.
fn time_control(play: &PlayOptions) -> Result<TimeControl, String> {
    // The numbers were checked by their types (crate::millis) when the command line
    // was read: the first-move floor is within a move time's range.
    let first = play.first_time.map_or(
        play.time.get().max(defaults::FIRST_MOVE_FLOOR.get()),
        MoveMs::get,
    );
    let mut time = TimeControl::per_move(play.time.get(), first, play.margin.get());
    time.clock = play.clock.map(|c| GameClock {
        initial: c.duration(),
        increment: play.increment.map_or(Duration::ZERO, IncrementMs::duration),
    });
    time.nodes = play.nodes;
    time.validate().map_err(|e| format!("--time: {e}"))?;
    Ok(time)
}

/// Why a foreign-dialect bot cannot play under house rules, and how to accept it.
pub fn unannounced_rules_message(
    name: &str,
    dialect: Dialect,
    rules: Rules,
    opt_in: &str,
) -> String {
    format!(
        "bot '{name}' speaks {}, which cannot announce the rules '{rules}': it would play believing \
         the rules are standard (its moves are still checked under '{rules}'). Use rules = \"standard\", \
         or accept this with {opt_in}",
        dialect.name()
    )
}

/// Why a bot of `dialect` cannot be started from an opening (`what`: the flag or
/// key that asked for one), and what to do.
pub fn opening_refused_message(name: &str, dialect: Dialect, what: &str) -> String {
    format!(
        "bot '{name}' speaks {}, which tells a bot only its opponent's last move, never the \
         opening moves: started from an opening ({what}) it would play on a board it does not \
         know, so its crashes and illegal moves would not be its own. Play it without \
         openings (remove {what}), or let it speak riddles or uttt, which send the whole position",
        dialect.name()
    )
}
