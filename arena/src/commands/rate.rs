//! `arena rate BOT`: places a bot on the reference levels' Elo scale
//! (`bots/levels.toml`) with an adaptive gauntlet — colour-swapped pairs against the
//! levels around its current estimate ([`ratings::next_opponent`]) until the
//! interval is precise enough ([`ratings::StopRule`]) — and prints, and writes to
//! `summary.json`, the rating ([`ratings::place`]), its interval, the levels just
//! below and above, and the bot's faults. Exit codes: 0 precise, 3 `--max-games`
//! reached first, 4 the bot could not run, 130 interrupted.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashSet};
use std::rc::Rc;

use bots::levels::LevelTable;
use indicatif::ProgressBar;
use ratings::{AnchoredPair, Confidence, Placement, Progress, StopRule, next_opponent, place};
use referee::game::{Termination, TimeControl};
use serde::Serialize;
use uttt::result::{Decision, EndReason};

use super::{refused, usage};
use crate::cli::{PlayOptions, RateArgs};
use crate::defaults;
use crate::exit_codes::{self, Code};
use crate::results::atomic::{stamped_dir, write_atomic};
use crate::results::manifest::ProcessPolicy;
use crate::results::recorder::Recorder;
use crate::results::store::GameRow;
use crate::results::summary::SUMMARY_VERSION;
use crate::tournament::adaptive::AdaptivePairs;
use crate::tournament::entrant::Lineup;
use crate::tournament::isolation;
use crate::tournament::preflight::BotsBroken;
use crate::tournament::prepare::{RunSpec, prepare};
use crate::tournament::run::Watcher;
use crate::tournament::runner::{Finished, Flow, Interruption, RunEnd};
use crate::tournament::schedule::{Format, Plan, Schedule, ScheduledGame};

/// The file the result is written to in the results directory.
pub const SUMMARY_FILE: &str = "summary.json";

/// Pairs before the precision may stop the gauntlet: a few pairs that happen to
/// agree say little about how much games vary.
const MIN_PAIRS: u32 = 4;

/// Runs `arena rate`.
///
/// # Errors
/// Writing results failed, or the runtime failed.
pub fn run(args: &RateArgs) -> anyhow::Result<Code> {
    if !(args.precision.is_finite() && args.precision > 0.0) {
        return Ok(usage(&format!(
            "--precision {}: use a positive number of Elo, e.g. 50",
            args.precision
        )));
    }
    if args.json {
        crate::stdout::words_to_stderr();
    }
    let table = LevelTable::shipped();
    let out = args.out.clone().unwrap_or_else(|| stamped_dir("rate"));
    let play = play_options(args, &out);
    let lineup = match lineup(args, table, &play) {
        Ok(lineup) => lineup,
        Err(message) => return Ok(usage(&message)),
    };
    // Every level can be met in every pair the run may play.
    let games_per_pairing = args.max_games + args.max_games % 2;
    let prepared = prepare(run_spec(&lineup, &play, &out, games_per_pairing));
    let mut recorder = match prepared {
        Ok(prepared) => prepared.recorder,
        Err(e) => return refused(e),
    };
    let scale: Vec<f64> = table.levels().iter().map(|l| l.elo).collect();
    let state = Rc::new(RefCell::new(Gauntlet::new(
        args,
        lineup.names(),
        scale,
        recorder.recorded_games()?,
    )));
    announce(args, &state.borrow(), recorder.seed(), &out, &lineup);
    let games = pairs(&lineup, games_per_pairing, &recorder, &state)?;
    let mut watcher = RateWatch {
        state: state.clone(),
    };
    let end = match lineup.run_games(&play, games, &mut recorder, &mut watcher) {
        Ok(end) => end,
        // The preflight found the bot broken before any game: a rating of nothing,
        // said in summary.json like a bot that fails in its first game.
        Err(e) => match e.downcast::<BotsBroken>() {
            Ok(broken) => {
                state.borrow_mut().infrastructure = Some(broken.to_string().trim_end().to_string());
                RunEnd::Stopped
            }
            Err(e) => return Err(e),
        },
    };
    let gauntlet = state.borrow();
    let code = gauntlet.exit_code(end);
    report(&gauntlet.summary(end, code), &out, args.json)?;
    Ok(code)
}

/// How the gauntlet is identified in its results directory: the bot against
/// every level, at most `games_per_pairing` games each.
fn run_spec<'a>(
    lineup: &'a Lineup,
    play: &PlayOptions,
    out: &'a std::path::Path,
    games_per_pairing: u32,
) -> RunSpec<'a> {
    RunSpec {
        name: "rate",
        entrants: &lineup.entrants,
        rules: lineup.rules,
        format: Format::Gauntlet { challenger: 0 },
        games_per_pairing,
        openings: &lineup.openings,
        seed: play.seed,
        out: Some(out),
        shard: None,
        batch: None,
        concurrency: play.concurrency,
        processes: ProcessPolicy::Reuse,
        force: false,
        isolation: &lineup.isolation,
    }
}

/// What is rated, how precisely, where the results go.
fn announce(args: &RateArgs, s: &Gauntlet, seed: u64, out: &std::path::Path, lineup: &Lineup) {
    crate::say!(
        "Rating {} on the reference levels (level 1 = 0), to ±{} Elo (95%) or {} games; \
             {} ms per move, levels at fixed work; seed {}; results in {}",
        s.bot,
        args.precision,
        args.max_games,
        args.time,
        seed,
        out.display()
    );
    crate::say!("{}", isolation::banner(&lineup.isolation));
}

/// The bot and the levels, each level under its generous safety-net time.
fn lineup(args: &RateArgs, table: &LevelTable, play: &PlayOptions) -> Result<Lineup, String> {
    let names: Vec<String> = table
        .levels()
        .iter()
        .map(bots::levels::Level::name)
        .collect();
    let mut specs = vec![args.bot.as_str()];
    specs.extend(names.iter().map(String::as_str));
    let mut lineup = Lineup::from_command_line(&specs, play)?;
    let level_time = TimeControl::per_move(
        defaults::LEVEL_MOVE_TIME.get(),
        defaults::LEVEL_FIRST_MOVE_TIME.get(),
        defaults::LEVEL_MARGIN.get(),
    );
    for level in &mut lineup.entrants[1..] {
        level.time = level_time;
    }
    Ok(lineup)
}

/// The games: pairs of the run's gauntlet schedule, each against the level the
/// gauntlet chooses when it starts.
fn pairs(
    lineup: &Lineup,
    games_per_pairing: u32,
    recorder: &Recorder,
    state: &Rc<RefCell<Gauntlet>>,
) -> anyhow::Result<impl Iterator<Item = ScheduledGame> + use<>> {
    let schedule = Schedule::new(
        Plan {
            bots: lineup.entrants.len(),
            format: Format::Gauntlet { challenger: 0 },
            games_per_pairing,
            openings: lineup.openings.clone(),
            rules: lineup.rules,
            seed: recorder.seed(),
        },
        None,
    )?;
    let finished: HashSet<String> = state.borrow().rows.iter().map(|r| r.id.clone()).collect();
    let levels = state.borrow().scale.len();
    let chooser = state.clone();
    Ok(AdaptivePairs::new(
        schedule,
        levels,
        &finished,
        move |started| chooser.borrow().next_level(started),
    ))
}

/// Writes summary.json and prints it (`--json`) or says it in words.
fn report(summary: &Summary, out: &std::path::Path, json: bool) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(summary)?;
    write_atomic(&out.join(SUMMARY_FILE), format!("{text}\n").as_bytes())?;
    // Under --json the words go to standard error and only the object to stdout.
    print_summary(summary);
    if json {
        crate::stdout::write_data(&format!("{text}\n"));
    }
    Ok(())
}

/// The options of a command-line run: the bot's time; the standard rules and the
/// calibration's openings.
fn play_options(args: &RateArgs, out: &std::path::Path) -> PlayOptions {
    PlayOptions {
        time: args.time,
        first_time: args.first_time,
        margin: args.margin,
        clock: None,
        increment: None,
        handshake_time: args.handshake_time,
        rules: "standard".into(),
        random_plies: defaults::RATE_RANDOM_PLIES,
        openings: None,
        seed: args.seed,
        concurrency: args.concurrency,
        out: Some(out.to_path_buf()),
        allow_unannounced_rules: false,
        sandbox: args.sandbox,
        memory_mb: args.memory_mb,
        nodes: None,
        no_preflight: false,
        json: args.json,
        serve: None,
        show_logs: false,
    }
}

/// The gauntlet's state, shared by the game source (which asks it for the next
/// level) and the watcher (which tells it every finished game).
#[derive(Debug)]
struct Gauntlet {
    /// The bot's name in the results.
    bot: String,
    /// The levels' names in the results, weakest first.
    levels: Vec<String>,
    /// Their ratings.
    scale: Vec<f64>,
    rule: StopRule,
    confidence: Confidence,
    quiet: bool,
    /// The placement from every game so far.
    placement: Option<Placement>,
    /// Precise, or out of games: start no more pairs.
    progress: Progress,
    /// The bot could not be started: the run says nothing about its strength.
    infrastructure: Option<String>,
    /// Games per level and the bot's points there, from the rows.
    per_level: Vec<(u32, f64)>,
    /// The bot's losses by its own fault, by reason.
    faults: BTreeMap<EndReason, u32>,
    games: u32,
    /// Every finished game (at most `--max-games`): the placement is refitted
    /// from all of them after each.
    rows: Vec<GameRow>,
}

impl Gauntlet {
    fn new(args: &RateArgs, names: Vec<String>, scale: Vec<f64>, rows: Vec<GameRow>) -> Gauntlet {
        let mut names = names.into_iter();
        let bot = names.next().unwrap_or_default();
        let mut gauntlet = Gauntlet {
            bot,
            levels: names.collect(),
            per_level: vec![(0, 0.0); scale.len()],
            scale,
            rule: StopRule {
                precision: args.precision,
                min_pairs: MIN_PAIRS,
                max_games: args.max_games,
            },
            confidence: Confidence::default(),
            quiet: args.quiet || args.json,
            placement: None,
            progress: Progress::Continue,
            infrastructure: None,
            faults: BTreeMap::new(),
            games: 0,
            rows,
        };
        gauntlet.update();
        gauntlet
    }

    /// Recomputes everything from the rows: the pairs, the placement, the faults.
    fn update(&mut self) {
        let mut pairs: BTreeMap<u32, (usize, AnchoredPair)> = BTreeMap::new();
        self.per_level = vec![(0, 0.0); self.scale.len()];
        self.faults.clear();
        self.games = 0;
        for row in &self.rows {
            let Some(seat) = row.seat_of(&self.bot) else {
                continue;
            };
            let Some(level) = self.levels.iter().position(|l| l == row.bot(!seat)) else {
                continue;
            };
            let points = match row.winner {
                Decision::Win(w) if w == seat => 1.0,
                Decision::Win(_) => 0.0,
                Decision::Draw => 0.5,
            };
            if row.loser() == Some(seat) && !row.reason.on_the_board() {
                *self.faults.entry(row.reason).or_default() += 1;
            }
            self.games += 1;
            self.per_level[level].0 += 1;
            self.per_level[level].1 += points;
            let entry = pairs.entry(row.pair).or_insert((
                level,
                AnchoredPair {
                    opponent: self.scale[level],
                    points: 0.0,
                    games: 0,
                },
            ));
            entry.1.points += points;
            entry.1.games += 1;
        }
        let pairs: Vec<AnchoredPair> = pairs.into_values().map(|(_, p)| p).collect();
        self.placement = place(&pairs, self.confidence);
        if self.progress == Progress::Continue {
            self.progress = self.rule.progress(self.placement.as_ref());
        }
    }

    /// The level of the next pair, or `None` when the gauntlet is over.
    fn next_level(&self, started: &[u32]) -> Option<usize> {
        let scheduled: u32 = started.iter().sum::<u32>() * 2;
        if self.progress != Progress::Continue
            || self.infrastructure.is_some()
            || scheduled >= self.rule.max_games
        {
            return None;
        }
        Some(next_opponent(&self.scale, self.placement.as_ref(), started))
    }

    fn exit_code(&self, end: RunEnd) -> Code {
        if let Some(problem) = &self.infrastructure {
            eprintln!(
                "error: the bot could not run, so the rating says nothing about its strength: {problem}"
            );
            return exit_codes::INFRASTRUCTURE;
        }
        match (end, self.progress) {
            (RunEnd::Interrupted(why), _) => super::interrupted(why),
            (_, Progress::Precise) => exit_codes::OK,
            _ => exit_codes::INCONCLUSIVE,
        }
    }

    fn summary(&self, end: RunEnd, code: Code) -> Summary {
        let p = self.placement;
        let finite = |x: f64| x.is_finite().then_some(x.round());
        let (elo, low, high) = p.map_or((None, None, None), |p| {
            (
                finite(p.elo),
                finite(p.interval.low),
                finite(p.interval.high),
            )
        });
        // The levels around the estimate (or around the open interval's one end).
        let point = p.map(|p| {
            if p.elo.is_finite() {
                p.elo
            } else if p.elo > 0.0 {
                p.interval.low
            } else {
                p.interval.high
            }
        });
        let level = |i: usize| LevelRef {
            name: self.levels[i].clone(),
            elo: self.scale[i],
        };
        let below = point.and_then(|x| self.scale.iter().rposition(|&r| r <= x).map(level));
        let above = point.and_then(|x| self.scale.iter().position(|&r| r > x).map(level));
        let stopped = if self.infrastructure.is_some() {
            "bot-failed"
        } else if matches!(end, RunEnd::Interrupted(_)) {
            "interrupted"
        } else {
            match self.progress {
                Progress::Precise => "precise",
                Progress::MaxGames | Progress::Continue => "max-games",
            }
        };
        Summary {
            version: SUMMARY_VERSION,
            command: "rate".into(),
            exit_code: code.0,
            exit_reason: exit_codes::meaning(code).to_string(),
            bot: self.bot.clone(),
            elo,
            low,
            high,
            half_width: p.map(|p| p.interval.half_width()).and_then(finite),
            confidence: self.confidence.level(),
            precision: self.rule.precision,
            stopped: stopped.into(),
            games: self.games,
            points: p.map_or(0.0, |p| p.points),
            level_below: below,
            level_above: above,
            faults: self
                .faults
                .iter()
                .map(|(r, n)| (r.name().to_string(), *n))
                .collect(),
            levels: (0..self.scale.len())
                .filter(|&i| self.per_level[i].0 > 0)
                .map(|i| LevelGames {
                    name: self.levels[i].clone(),
                    elo: self.scale[i],
                    games: self.per_level[i].0,
                    points: self.per_level[i].1,
                })
                .collect(),
        }
    }
}

/// What `arena rate` found: `summary.json`, and `--json`.
#[derive(Debug, Serialize)]
struct Summary {
    /// summary.json's schema version (the other commands' too).
    version: u32,
    /// `rate`.
    command: String,
    /// The exit code of the run.
    exit_code: u8,
    /// Why, in words.
    exit_reason: String,
    /// The bot's name in the results.
    bot: String,
    /// The maximum-likelihood rating; null when the bot won (or lost) every game.
    elo: Option<f64>,
    /// The interval's ends; null when the results do not bound that side.
    low: Option<f64>,
    high: Option<f64>,
    /// Half the interval's width; null when a side is open.
    half_width: Option<f64>,
    confidence: f64,
    /// The half-width asked for.
    precision: f64,
    /// precise, max-games, interrupted or bot-failed.
    stopped: String,
    games: u32,
    points: f64,
    /// The strongest level rated at or below the estimate, and the weakest above.
    level_below: Option<LevelRef>,
    level_above: Option<LevelRef>,
    /// The bot's losses by its own fault, by reason (timeout, illegal-move…).
    faults: BTreeMap<String, u32>,
    /// The games against each level met.
    levels: Vec<LevelGames>,
}

#[derive(Debug, Serialize)]
struct LevelRef {
    name: String,
    elo: f64,
}

#[derive(Debug, Serialize)]
struct LevelGames {
    name: String,
    elo: f64,
    games: u32,
    points: f64,
}

fn print_summary(s: &Summary) {
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
    let level = |l: &Option<LevelRef>| {
        l.as_ref()
            .map_or("-".to_string(), |l| format!("{} ({:.0})", l.name, l.elo))
    };
    crate::say!(
        "between {} and {}",
        level(&s.level_below),
        level(&s.level_above)
    );
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

/// The gauntlet's side of the run: after every game, the placement and whether to
/// start more pairs.
#[derive(Debug)]
struct RateWatch {
    state: Rc<RefCell<Gauntlet>>,
}

impl Watcher for RateWatch {
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
        state.rows.push(row.clone());
        state.update();
        if !state.quiet
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

/// "1234 ± 48 (1186 to 1282)", with open ends shown as such.
fn line(p: &Placement) -> String {
    let end = |x: f64| {
        if x.is_finite() {
            format!("{x:.0}")
        } else {
            "open".to_string()
        }
    };
    let half = p.interval.half_width();
    match (p.elo.is_finite(), half.is_finite()) {
        (true, true) => format!(
            "{:.0} ± {half:.0} ({} to {})",
            p.elo,
            end(p.interval.low),
            end(p.interval.high)
        ),
        (true, false) => format!(
            "{:.0} ({} to {})",
            p.elo,
            end(p.interval.low),
            end(p.interval.high)
        ),
        _ => format!("{} to {}", end(p.interval.low), end(p.interval.high)),
    }
}
