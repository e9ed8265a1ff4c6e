//! `arena rate BOT`: places a bot on the reference levels' Elo scale
//! (`bots/levels.toml`) with an adaptive gauntlet — colour-swapped pairs against the
//! levels around its current estimate ([`ratings::next_opponent`]) until the
//! interval is precise enough ([`ratings::StopRule`]) — and prints, and writes to
//! `summary.json`, the rating ([`ratings::place`]), its interval, the levels just
//! below and above, and the bot's faults. Exit codes: 0 precise, 3 `--max-games`
//! reached first, 4 the bot could not run, 130 interrupted.
//!
//! The games start as the levels were calibrated (4 random plies, standard
//! rules) unless `--random-plies` or `--openings` says otherwise. A bot that is
//! told only the last move (CodinGame's) cannot start from an opening, so it is
//! rated from the empty board, and a bot that believes other rules is rated under
//! the levels' standard ones: each said in the banner, not hidden.

use std::cell::RefCell;
use std::collections::HashSet;
use std::path::Path;
use std::rc::Rc;

use bots::levels::LevelTable;
use indicatif::ProgressBar;
use ratings::{Progress, StopRule};
use referee::dialect::Dialect;
use referee::game::Termination;
use uttt::result::EndReason;
use uttt::rules::Rules;

use super::flags;
use super::skeleton::{Fit, GameCommand, Stage, interrupted, overloaded, play, summary_for};
use crate::cli::RateArgs;
use crate::defaults;
use crate::exit_codes::{self, Code, UsageError};
use crate::millis::MoveMs;
use crate::results::atomic::stamped_dir;
use crate::results::recorder::Recorder;
use crate::results::store::GameRow;
use crate::results::summary::{LevelRef, RateVerdict, Summary};
use crate::tournament::adaptive::AdaptivePairs;
use crate::tournament::openings::Openings;
use crate::tournament::placing::{Placing, line};
use crate::tournament::preflight::BotsBroken;
use crate::tournament::prepare::Remaining;
use crate::tournament::run::Watcher;
use crate::tournament::runner::{Finished, Flow, Interruption, RunEnd};
use crate::tournament::schedule::{Plan, Schedule, ScheduledGame};
use crate::tournament::settings::bot::{BotInput, Protocol};
use crate::tournament::settings::input::{
    BotEntry, EventInput, FormatKind, Given, Input, OpeningsInput, Source, TimeInput,
};
use crate::tournament::settings::{RunSettings, validate};

/// Pairs before the precision may stop the gauntlet: a few pairs that happen to
/// agree say little about how much games vary.
const MIN_PAIRS: u32 = 4;

/// Runs `arena rate`.
///
/// # Errors
/// A [`UsageError`], writing results failed, or the runtime failed.
pub fn run(args: &RateArgs) -> anyhow::Result<Code> {
    if !(args.precision.is_finite() && args.precision > 0.0) {
        return Err(UsageError::of(format!(
            "--precision {}: use a positive number of Elo, e.g. 50",
            args.precision
        )));
    }
    if args.json {
        crate::stdout::words_to_stderr();
    }
    let table = LevelTable::shipped();
    let out = args.out.clone().unwrap_or_else(|| stamped_dir("rate"));
    let exe = flags::arena_exe()?;
    let (input, notes) = input(args, table, &out)?;
    let mut settings = validate(input, &exe).map_err(|e| UsageError::of(e.to_string()))?;
    let host = crate::tournament::isolation::detect(&exe);
    let isolation =
        crate::tournament::isolation::apply(&mut settings.entrants, &host, settings.sandbox)
            .map_err(UsageError::of)?;
    let stage = Stage {
        settings: &settings,
        isolation: &isolation,
        out: Some(&out),
        concurrency: args.concurrency,
        shard: None,
        batch: None,
        force: false,
        preflight: true,
        serve: None,
        json: args.json,
    };
    let scale: Vec<f64> = table.levels().iter().map(|l| l.elo).collect();
    let rule = StopRule {
        precision: args.precision,
        min_pairs: MIN_PAIRS,
        max_games: args.max_games,
    };
    play(&stage, |_recorder| RateWatch {
        state: Rc::new(RefCell::new(Placing::new(
            settings.names().iter().map(ToString::to_string).collect(),
            scale,
            rule,
        ))),
        quiet: args.quiet || args.json,
        settings: &settings,
        out: &out,
        precision: args.precision,
        max_games: args.max_games,
        notes,
        fit: Fit::default(),
    })
}

/// The openings of `arena rate` for a bot speaking `dialect`: the ones asked
/// for, else the calibration's random plies, or the empty board for a bot that
/// cannot be told an opening (with why, for the banner).
fn openings(args: &RateArgs, dialect: Dialect) -> anyhow::Result<(OpeningsInput, Option<String>)> {
    if let Some(plies) = args.random_plies
        && plies > defaults::MAX_RANDOM_PLIES
    {
        return Err(UsageError::of(format!(
            "--random-plies {plies}: use at most {}",
            defaults::MAX_RANDOM_PLIES
        )));
    }
    let given = args.random_plies.is_some() || args.openings.is_some();
    let plies = match args.random_plies {
        Some(n) => (n > 0).then(|| Given::flag(n, "--random-plies")),
        None if args.openings.is_some() => None,
        None if !dialect.can_start_from_opening() => None,
        None => Some(Given::new(defaults::RATE_RANDOM_PLIES, Source::Command)),
    };
    let note = (!given && !dialect.can_start_from_opening()).then(|| {
        format!(
            "From the empty board: a {} bot is told only its opponent's last move, so it cannot \
             start from an opening (the levels were calibrated from {} random plies; \
             --random-plies 0 rates any bot this way)",
            dialect.name(),
            defaults::RATE_RANDOM_PLIES
        )
    });
    Ok((
        OpeningsInput {
            random_plies: plies,
            book: args.openings.clone().map(|p| Given::flag(p, "--openings")),
        },
        note,
    ))
}

/// The run: the bot under the flags' time against every level at its fixed
/// work (the safety net its only deadline), a gauntlet of colour-swapped pairs
/// under the standard rules from the calibration's openings; at most
/// `--max-games` against each level, so every level can be met in every pair.
fn input(args: &RateArgs, table: &LevelTable, out: &Path) -> anyhow::Result<(Input, Vec<String>)> {
    let mut bots = flags::bots(&[args.bot.as_str()], "BOT")?;
    let dialect = match bots.first().and_then(|b| b.bot.protocol) {
        Some(Protocol::Speaks(dialect)) => dialect,
        _ => Dialect::Uttt,
    };
    let (openings, opening_note) = openings(args, dialect)?;
    let believes = dialect.own_rules().unwrap_or(Rules::STANDARD);
    let rules_note = (believes != Rules::STANDARD).then(|| {
        format!(
            "Under the standard rules, the levels': a {} bot believes '{believes}', so where a \
             full board with no line is a draw here it counts on boards won",
            dialect.name()
        )
    });
    for level in table.levels() {
        let bot = BotInput {
            words: vec![level.name()],
            ..BotInput::default()
        };
        // A level's deadline is only a safety net: the table's own for the
        // levels that think seconds a move, else the usual one.
        let net = match level.safety_net_ms.and_then(|ms| MoveMs::new(ms).ok()) {
            Some(own) => TimeInput::fixed(
                own,
                own.max(defaults::SAFETY_NET_FIRST_MOVE_TIME),
                defaults::SAFETY_NET_MARGIN,
            ),
            None => TimeInput::fixed(
                defaults::SAFETY_NET_MOVE_TIME,
                defaults::SAFETY_NET_FIRST_MOVE_TIME,
                defaults::SAFETY_NET_MARGIN,
            ),
        };
        bots.push(BotEntry {
            time: Some(net),
            ..BotEntry::from_flag(bot, "BOT")
        });
    }
    let input = Input {
        name: Some("rate".into()),
        base_dir: flags::current_dir()?,
        seed: args.seed,
        rules: Some(Given::new(Rules::STANDARD, Source::Command)),
        allow_unannounced_rules: Some(Given::new(rules_note.is_some(), Source::Command)),
        event: EventInput {
            format: Some(Given::new(FormatKind::Gauntlet, Source::Command)),
            games: Some(Given::new(
                args.max_games + args.max_games % 2,
                Source::Command,
            )),
            ..EventInput::default()
        },
        time: flags::time(&args.time),
        openings,
        limits: flags::memory(args.memory_mb),
        sandbox_override: Some(args.sandbox),
        handshake: Some(args.handshake_time),
        concurrency: Some(args.concurrency),
        governor: flags::governor(args.governor),
        governor_wait_s: args.governor_wait,
        out: Some(out.to_path_buf()),
        bots,
        ..Input::default()
    };
    Ok((input, opening_note.into_iter().chain(rules_note).collect()))
}

/// The gauntlet's side of the run: after every game, the placement and whether
/// to start more pairs.
#[derive(Debug)]
struct RateWatch<'a> {
    state: Rc<RefCell<Placing>>,
    quiet: bool,
    settings: &'a RunSettings,
    out: &'a Path,
    precision: f64,
    max_games: u32,
    /// What the banner must add: how the games start and under which rules,
    /// when that is not as the levels were calibrated.
    notes: Vec<String>,
    fit: Fit,
}

impl GameCommand for RateWatch<'_> {
    const NAME: &'static str = "rate";

    /// What is rated, how precisely, where the results go.
    fn banner(&self, recorder: &Recorder) {
        crate::say!(
            "Rating {} on the reference levels (level 1 = 0), to ±{} Elo (95%) or {} games; \
             {} ms per move, levels at fixed work; seed {}; results in {}",
            self.state.borrow().bot,
            self.precision,
            self.max_games,
            self.settings.entrants[0]
                .time
                .move_time
                .map_or(0, |d| d.as_millis()),
            recorder.seed(),
            self.out.display()
        );
        crate::say!("Openings: {}", describe(&self.settings.openings));
        for note in &self.notes {
            crate::say!("{note}");
        }
    }

    /// Pairs of the run's gauntlet schedule, each against the level the
    /// placement chooses when it starts.
    fn games(
        &mut self,
        _remaining: Remaining,
        recorder: &Recorder,
        _more: bool,
    ) -> anyhow::Result<Box<dyn Iterator<Item = ScheduledGame>>> {
        let s = self.settings;
        let schedule = Schedule::new(
            Plan {
                bots: s.entrants.len(),
                format: s.format.clone(),
                games_per_pairing: s.games,
                openings: s.openings.clone(),
                rules: s.rules,
                seed: recorder.seed(),
            },
            None,
        )?;
        // The games of an earlier run on this directory, read back once.
        self.state.borrow_mut().resume(recorder.recorded_games()?);
        let finished: HashSet<String> = self.state.borrow().finished().map(String::from).collect();
        let levels = self.state.borrow().levels();
        let chooser = self.state.clone();
        Ok(Box::new(AdaptivePairs::new(
            schedule,
            levels,
            &finished,
            move |started| chooser.borrow().next_level(started),
        )))
    }

    /// The preflight found the bot broken before any game: a rating of nothing,
    /// said in summary.json like a bot that fails in its first game.
    fn failed(&mut self, error: anyhow::Error) -> anyhow::Result<RunEnd> {
        let broken = error.downcast::<BotsBroken>()?;
        self.state.borrow_mut().infrastructure = Some(broken.to_string().trim_end().to_string());
        Ok(RunEnd::Stopped)
    }

    fn conclusion(&mut self, end: RunEnd, recorder: &Recorder) -> anyhow::Result<Summary> {
        let state = self.state.borrow();
        let code = if let Some(problem) = &state.infrastructure {
            eprintln!(
                "error: the bot could not run, so the rating says nothing about its strength: {problem}"
            );
            exit_codes::INFRASTRUCTURE
        } else {
            match (end, state.progress) {
                (RunEnd::Interrupted(why), _) => interrupted(why),
                _ if overloaded(recorder).is_some() => exit_codes::OVERLOADED,
                (_, Progress::Precise) => exit_codes::OK,
                _ => exit_codes::INCONCLUSIVE,
            }
        };
        let verdict = state.verdict(end);
        // Under --json the words go to standard error and only the object to stdout.
        print_summary(&verdict);
        let mut summary = summary_for(Self::NAME, recorder, &self.fit, None, code)?;
        summary.games_total = u64::from(self.max_games);
        summary.arguments.clear();
        summary.rate = Some(verdict);
        Ok(summary)
    }
}

/// How the games start, in words.
fn describe(openings: &Openings) -> String {
    match openings {
        Openings::RandomPlies(n) if *n > 0 => format!("{n} random plies"),
        Openings::Book(lines) => format!("a book of {} lines", lines.len()),
        _ => "the empty board".to_string(),
    }
}

fn print_summary(s: &RateVerdict) {
    let number = |x: Option<f64>| x.map_or("?".to_string(), |x| format!("{x:.0}"));
    let rating = match (s.elo, s.low, s.high) {
        (Some(elo), Some(low), Some(high)) => format!(
            "{elo:.0} ± {:.0}  (95%: {low:.0} to {high:.0})",
            (high - low) / 2.0
        ),
        (_, Some(low), None) => format!("at least {low:.0} (95%; it won nearly everything)"),
        (_, None, Some(high)) => format!("at most {high:.0} (95%; it lost nearly everything)"),
        _ => format!(
            "{} (95%: {} to {})",
            number(s.elo),
            number(s.low),
            number(s.high)
        ),
    };
    crate::say!("\n{}: {rating}", s.bot);
    if let Some(place) = place_among_levels(s.level_below.as_ref(), s.level_above.as_ref()) {
        crate::say!("{place}");
    }
    for l in &s.levels {
        crate::say!(
            "  against {:<8} {:>5.0}: {}/{} points",
            l.name,
            l.elo,
            l.points,
            l.games
        );
    }
    let faults: Vec<String> = s.faults.iter().map(|(r, n)| format!("{r} {n}")).collect();
    crate::say!(
        "{} games; faults: {}; stopped: {}",
        s.games,
        if faults.is_empty() {
            "none".to_string()
        } else {
            faults.join(", ")
        },
        match s.stopped.as_str() {
            "precise" => format!("interval within ±{}", s.precision),
            "max-games" => "--max-games reached before the precision (exit 3)".to_string(),
            other => other.to_string(),
        }
    );
}

/// Where the rating lies among the levels: "between level3 (366) and level4
/// (565)", "below level1 (0), the weakest level", "above level11 (2031), the
/// strongest level"; `None` without a rating.
fn place_among_levels(below: Option<&LevelRef>, above: Option<&LevelRef>) -> Option<String> {
    let level = |l: &LevelRef| format!("{} ({:.0})", l.name, l.elo);
    match (below, above) {
        (Some(b), Some(a)) => Some(format!("between {} and {}", level(b), level(a))),
        (None, Some(a)) => Some(format!("below {}, the weakest level", level(a))),
        (Some(b), None) => Some(format!("above {}, the strongest level", level(b))),
        (None, None) => None,
    }
}

impl Watcher for RateWatch<'_> {
    fn game(
        &mut self,
        finished: &Finished,
        row: &GameRow,
        _bar: &ProgressBar,
        recorder: &Recorder,
    ) -> anyhow::Result<Flow> {
        let mut state = self.state.borrow_mut();
        if let Termination::Fault { by, fault } = &finished.record.termination
            && fault.reason() == EndReason::HandshakeFailure
            && *finished.record.names.get(*by) == state.bot
        {
            state.infrastructure = Some(format!("{} {fault}", state.bot));
            return Ok(Flow::Stop);
        }
        state.add(row);
        if !self.quiet
            && recorder.done().is_multiple_of(2)
            && let Some(p) = state.placement
        {
            crate::say!("{} games: {} {}", recorder.done(), state.bot, line(&p));
        }
        Ok(Flow::Continue)
    }

    fn complete(&self, end: RunEnd) -> bool {
        !matches!(end, RunEnd::Interrupted(_))
    }

    fn interrupted(&self, _recorder: &Recorder, why: Interruption) -> String {
        format!(
            "{}: unfinished games were not recorded; run the same command again to resume.",
            why.describe()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rating_is_placed_between_two_levels_or_beyond_the_weakest_or_strongest() {
        let level = |name: &str, elo: f64| LevelRef {
            name: name.into(),
            elo,
        };
        let (l1, l2, l11) = (
            level("level1", 0.0),
            level("level2", 199.0),
            level("level11", 2031.0),
        );
        assert_eq!(
            place_among_levels(Some(&l1), Some(&l2)).as_deref(),
            Some("between level1 (0) and level2 (199)")
        );
        assert_eq!(
            place_among_levels(None, Some(&l1)).as_deref(),
            Some("below level1 (0), the weakest level")
        );
        assert_eq!(
            place_among_levels(Some(&l11), None).as_deref(),
            Some("above level11 (2031), the strongest level")
        );
        assert_eq!(place_among_levels(None, None), None);
    }
}
