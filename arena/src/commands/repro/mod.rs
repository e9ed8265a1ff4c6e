//! `arena repro DIR --game ID [--bot NAME] [--ply N] [--command CMD]`: one game's
//! failure, reproduced. The bot is started afresh (the command, protocol and
//! time control `tournament.json` recorded, or `--command` to try a fixed
//! version; the limits, sandbox mode and clock the game was played under, read
//! by `recorded`), sent the recorded requests up to the one that failed (or the
//! one after N marks) — word for word from the game's transcript when there is
//! one — and what it answers now is shown beside what it answered then.
//!
//! Exit codes: 0 the failure did not happen again (the bot answered in time with a
//! legal move), 1 it reproduced (the same kind of failure), 3 a different failure,
//! 2 bad arguments or files. So `git bisect run arena repro … --command ./bot`
//! finds the change that broke a bot.

mod recorded;
mod script;

use std::time::Duration;

use referee::bot::sandbox::SandboxMode;
use referee::bot::{Answer, BotSession, Fault, Reply};
use referee::dialect::Dialect;
use uttt::notation::illegal_words;
use uttt::result::EndReason;
use uttt::rules::{Mark, Position};

use self::recorded::Recorded;
use self::script::{Script, Source};
use super::replay_cmd::{self, Problem, Replayed};
use crate::cli::ReproArgs;
use crate::exit_codes::{self, Code};
use crate::millis::Millis;
use crate::results::bundle::is_failure;
use crate::results::manifest::{BotEntry, Manifest};
use crate::terminal::board::{self, BoardView, Theme};
use crate::tournament::bot_spec::{Program, Resolver};
use crate::tournament::entrant::Entrant;
use crate::tournament::isolation;
use crate::tournament::settings::bot::{BotInput, Protocol};
use crate::tournament::settings::input::{self as written, Given, TimeInput};
use crate::tournament::settings::{self};
use referee::game::TimeControl;

/// `arena repro`'s exit code: the failure happened again, the same kind.
pub const REPRODUCED: Code = exit_codes::FAILURE;
/// `arena repro`'s exit code: a different failure than the recorded one.
pub const DIFFERENT: Code = Code(3);

/// What a bot did with one request, classified as the referee would.
#[derive(Clone, Debug, PartialEq)]
enum Outcome {
    /// A legal move (or a resignation), in time.
    Answered {
        words: String,
        failure: Option<EndReason>,
    },
    /// A fault or an illegal move: the game would be lost.
    Failed { reason: EndReason, words: String },
}

impl Outcome {
    fn reason(&self) -> Option<EndReason> {
        match self {
            Outcome::Answered { failure, .. } => *failure,
            Outcome::Failed { reason, .. } => Some(*reason),
        }
    }

    fn words(&self) -> &str {
        match self {
            Outcome::Answered { words, .. } | Outcome::Failed { words, .. } => words,
        }
    }
}

/// Runs `arena repro`.
///
/// # Errors
/// The files cannot be read or do not replay, or the runtime cannot start.
pub fn run(args: &ReproArgs) -> anyhow::Result<Code> {
    let game = match replay_cmd::load(&args.dir, Some(&args.game)) {
        Ok(game) => game,
        Err(Problem::Usage(message)) => return Ok(super::usage(&message)),
        Err(Problem::Data(e)) => return Err(e),
    };
    let manifest = Manifest::load(&args.dir)?;
    let plan = match plan(args, &game, manifest.as_ref()) {
        Ok(plan) => plan,
        Err(message) => return Ok(super::usage(&message)),
    };
    for line in plan.header(&game) {
        crate::say!("{line}");
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let now = runtime.block_on(replay(&plan, &game));
    for line in verdict_lines(&plan, &game, &now) {
        crate::say!("{line}");
    }
    Ok(verdict(plan.then.reason(), now.outcome.reason()))
}

/// Everything decided before the bot starts.
#[derive(Debug)]
struct Plan {
    /// The results directory.
    dir: std::path::PathBuf,
    seat: Mark,
    name: String,
    entrant: Entrant,
    dialect: Dialect,
    script: Script,
    /// Marks on the board at the request that is compared.
    target: usize,
    /// What the bot did then at that request.
    then: Outcome,
    /// The recorded game ended for this bot at the target (not a `--ply` earlier).
    at_failure: bool,
    /// What was restored of the conditions the game was played under, and what
    /// was not recorded or is not used, in words.
    conditions: Vec<String>,
}

fn plan(args: &ReproArgs, game: &Replayed, manifest: Option<&Manifest>) -> Result<Plan, String> {
    let row = &game.row;
    let seat = match &args.bot {
        Some(name) => row.seat_of(name).ok_or_else(|| {
            format!(
                "--bot {name}: game {} was played by {} (X) and {} (O)",
                row.id, row.x, row.o
            )
        })?,
        None if is_failure(row.reason) => row
            .loser()
            .ok_or_else(|| format!("game {} has no bot at fault", row.id))?,
        None => {
            return Err(format!(
                "game {} ended normally ({}): name the bot to replay with --bot ({} or {}) \
                 and where to stop with --ply N",
                row.id, row.reason, row.x, row.o
            ));
        }
    };
    let name = row.bot(seat).to_string();
    let total = game.moves.len();
    let failed_here = is_failure(row.reason) && row.loser() == Some(seat);
    let target = match args.ply {
        Some(n) if n as usize > total => {
            return Err(format!(
                "--ply {n}: game {} has {total} plies; choose 0 to {total}",
                row.id
            ));
        }
        Some(n) => n as usize,
        None if failed_here => total,
        None => {
            return Err(format!(
                "{name} did not fail in game {}: choose the request to replay with --ply N",
                row.id
            ));
        }
    };
    let at_failure = failed_here && target == total;
    if !at_failure && game.positions[target].side_to_move() != seat {
        return Err(format!(
            "after {target} marks of game {} it is {}'s turn, not {name}'s: choose a ply \
             where {name} ({seat}) is to move",
            row.id,
            row.bot(!seat)
        ));
    }
    let entry = manifest.and_then(|m| m.schedule.bots.iter().find(|b| b.name == name));
    let recorded = recorded::read(&args.dir, &row.id, &name, manifest)?;
    let (entrant, dialect) = entrant(args, &name, (entry, manifest), &recorded)?;
    let mut conditions = recorded.lines.clone();
    match (&args.sandbox, &recorded.sandbox) {
        (None, Some(mode)) if !matches!(mode.as_str(), "auto" | "strict") => {
            conditions.push(format!(
                "  sandbox: auto, though the run recorded {mode}: a results directory may \
                 come from anyone, so it never weakens a bot's isolation (--sandbox {mode} \
                 to match the run)"
            ));
        }
        (None, None) => conditions.push("  sandbox: not recorded: auto".into()),
        _ => {}
    }
    let transcript = args.dir.join("transcripts").join(format!("{}.txt", row.id));
    let script = script::transcript_lines(&transcript, seat)
        .filter(|_| dialect == Dialect::Uttt)
        .and_then(|lines| script::from_transcript(&lines, target))
        .unwrap_or_else(|| script::rebuilt(game, seat, row.bot(!seat), &entrant.time, target));
    let then = if at_failure {
        Outcome::Failed {
            reason: row.reason,
            words: row.detail.clone(),
        }
    } else {
        let m = &game.moves[target];
        Outcome::Answered {
            words: played_words(m.square.to_string(), m.think),
            failure: None,
        }
    };
    Ok(Plan {
        dir: args.dir.clone(),
        seat,
        name,
        entrant,
        dialect,
        script,
        target,
        then,
        at_failure,
        conditions,
    })
}

/// The bot to start: `--command`, else the command, protocol and time control
/// `tournament.json` recorded for it (read in this one place), under the
/// limits, sandbox mode and clock `recorded` restores.
fn entrant(
    args: &ReproArgs,
    name: &str,
    (entry, manifest): (Option<&BotEntry>, Option<&Manifest>),
    recorded: &Recorded,
) -> Result<(Entrant, Dialect), String> {
    let resolver =
        Resolver::from_env().map_err(|e| format!("cannot find the arena executable: {e}"))?;
    let input = match (&args.command, entry) {
        // Typed by the user now: the command line's grammar.
        (Some(command), _) => command.parse::<BotInput>().map_err(|e| e.to_string())?,
        (None, Some(entry)) => recorded_input(name, entry, manifest)?,
        (None, None) => {
            return Err(format!(
                "{} records no command for {name} (no tournament.json, or the bot is not in \
                 it): give one with --command \"...\"",
                args.dir.display()
            ));
        }
    };
    let mut spec = resolver
        .resolve_input(&input, Program::Exists)
        .map_err(|e| e.to_string())?;
    spec.name = name.to_string();
    spec.command.limits = recorded.limits;
    let time = TimeControl {
        clock_mode: recorded.clock,
        ..recorded_time(name, entry)?
    };
    let dialect = spec.dialect;
    let mode = match args.sandbox {
        Some(mode) => Some(mode),
        None => strict_if_recorded(recorded.sandbox.as_deref()),
    };
    let mut entrants = [Entrant { spec, time }];
    let host = isolation::detect(&resolver.arena_exe);
    isolation::apply(&mut entrants, &host, mode)?;
    let [entrant] = entrants;
    Ok((entrant, dialect))
}

/// The time control `tournament.json` recorded for `name`, made by the one rule
/// every run's time control is made by ([`settings::time::time_control`]), its
/// values range-checked like a user's (a results directory may come from anyone).
/// Without a record: the defaults a run without time flags gets.
fn recorded_time(name: &str, entry: Option<&BotEntry>) -> Result<TimeControl, String> {
    fn given<const MIN: u64, const MAX: u64>(
        name: &str,
        key: &str,
        ms: Option<u64>,
    ) -> Result<Option<Given<Millis<MIN, MAX>>>, String> {
        ms.map(|ms| {
            Millis::new(ms)
                .map(|v| Given::new(v, written::Source::Command))
                .map_err(|e| format!("tournament.json's {key} for {name}: {e}"))
        })
        .transpose()
    }
    let input = match entry {
        None => TimeInput::default(),
        Some(e) => TimeInput {
            move_ms: given(name, "move_ms", e.move_ms)?,
            first_move_ms: given(name, "first_move_ms", e.first_move_ms)?,
            margin_ms: given(name, "margin_ms", Some(e.margin_ms))?,
            clock_ms: given(name, "clock_ms", e.clock_ms)?,
            increment_ms: given(name, "increment_ms", e.increment_ms)?,
            nodes: e.nodes.map(|n| Given::new(n, written::Source::Command)),
            // The clock is the run's, not the bot's entry's: the caller sets
            // the one `recorded` restores.
            clock_mode: None,
        },
    };
    settings::time::time_control(&input)
        .map_err(|e| format!("tournament.json's time control for {name}: {}", e.message))
}

/// The bot `tournament.json` recorded, as fields: its `launch` entry when it has
/// one; else (a manifest from before `launch`) the words of its `command`, split as
/// a shell would and never read as a `NAME=PROTOCOL:` description, with the
/// recorded protocol. A command that does not split is refused with the fix.
fn recorded_input(
    name: &str,
    entry: &BotEntry,
    manifest: Option<&Manifest>,
) -> Result<BotInput, String> {
    let protocol = |builtin: bool| {
        if builtin {
            Ok(Protocol::Builtin)
        } else {
            Dialect::from_name(&entry.protocol)
                .map(Protocol::Speaks)
                .ok_or_else(|| {
                    format!(
                        "tournament.json records protocol '{}' for {name}, which this arena \
                         does not speak: give the bot with --command \"...\"",
                        entry.protocol
                    )
                })
        }
    };
    if let Some(launch) = manifest.and_then(|m| m.launch.get(name)) {
        return Ok(BotInput {
            name: Some(name.to_string()),
            protocol: Some(protocol(launch.builtin)?),
            words: launch.words.clone(),
            dir: launch.dir.clone(),
            env: Vec::new(),
        });
    }
    let words = shlex::split(&entry.command).ok_or_else(|| {
        format!(
            "tournament.json's command for {name} does not split into words: give the bot \
             with --command \"...\""
        )
    })?;
    Ok(BotInput {
        name: Some(name.to_string()),
        protocol: Some(protocol(false)?),
        words,
        dir: None,
        env: Vec::new(),
    })
}

/// The recorded sandbox mode, when it is `strict`; otherwise none (the
/// machine's `auto`). A results directory may come from anyone (a shard, a CI
/// artifact, a student): what it says may make the bot's isolation stricter,
/// never weaker, so a recorded `none` or a short layer list does not start the
/// recorded command with less than `auto` — only `--sandbox` chooses that.
fn strict_if_recorded(recorded: Option<&str>) -> Option<SandboxMode> {
    recorded
        .and_then(|text| text.parse().ok())
        .filter(|mode| *mode == SandboxMode::Strict)
}

impl Plan {
    fn header(&self, game: &Replayed) -> Vec<String> {
        let row = &game.row;
        let source = match self.script.source {
            Source::Transcript => format!("as the referee sent them (transcripts/{}.txt)", row.id),
            Source::Rebuilt => "rebuilt from moves.csv and tournament.json".to_string(),
        };
        let requests = self.script.requests.len();
        let mut lines = vec![
            format!(
                "Game {}: {} (X) vs {} (O), {} rules; replaying {} ({}) in a fresh process: {}",
                row.id,
                row.x,
                row.o,
                game.rules,
                self.name,
                self.seat,
                self.entrant.spec.command.display()
            ),
            format!(
                "  newgame and {requests} go request{} {source}",
                if requests == 1 { "" } else { "s" }
            ),
        ];
        lines.extend(self.conditions.iter().cloned());
        // A reused process had played earlier games: a failure may depend on them.
        let earlier = crate::results::bundle::load(
            &self
                .dir
                .join(crate::results::bundle::FAILURES_DIR)
                .join(&row.id),
        )
        .ok()
        .and_then(|info| info.bots.into_iter().find(|b| b.name == self.name))
        .and_then(|bot| bot.game_in_process)
        .filter(|&n| n > 1);
        if let Some(n) = earlier {
            lines.push(format!(
                "  (then this was game {n} of its process; the earlier {} not replayed)",
                if n == 2 { "one is" } else { "ones are" }
            ));
        }
        let pos = &game.positions[self.target.min(game.positions.len() - 1)];
        lines.push(String::new());
        lines.push(format!(
            "The position at the request (after {} marks):",
            self.target
        ));
        lines.extend(board::render(
            &BoardView {
                position: pos,
                last: self.target.checked_sub(1).map(|i| game.moves[i].square),
                cursor: None,
            },
            Theme::for_stdout(),
        ));
        lines.push(format!("Position: {pos}"));
        lines.push(String::new());
        lines
    }
}

/// What the bot did now.
#[derive(Debug)]
struct Now {
    outcome: Outcome,
    /// Marks on the board at the request it answered last.
    at: usize,
    /// Earlier requests it answered with another square than it played then.
    changed: Vec<String>,
    /// Its stderr in this replay.
    stderr: String,
}

async fn replay(plan: &Plan, game: &Replayed) -> Now {
    let command = &plan.entrant.spec.command;
    let handshake = crate::defaults::HANDSHAKE.duration();
    let mut session = match BotSession::start_dialect(command, plan.dialect, handshake).await {
        Ok(mut session) => {
            session.set_clock(plan.entrant.time.clock_mode);
            session
        }
        Err(fault) => {
            return Now {
                outcome: fault_outcome(&fault),
                at: 0,
                changed: Vec::new(),
                stderr: String::new(),
            };
        }
    };
    let mut now = Now {
        outcome: Outcome::Answered {
            words: "started and answered the handshake".into(),
            failure: None,
        },
        at: 0,
        changed: Vec::new(),
        stderr: String::new(),
    };
    if let Err(fault) = session.new_game(&plan.script.new_game).await {
        now.outcome = fault_outcome(&fault);
        return finish(session, now).await;
    }
    let margin = plan.script.new_game.timing.margin;
    for go in &plan.script.requests {
        let ply = go.moves.len();
        now.at = ply;
        let pos = game.positions[ply];
        now.outcome = match session.ask(go, go.time, margin).await {
            Ok(answer) => answered(&pos, &answer),
            Err(fault) => fault_outcome(&fault),
        };
        if let (true, Some(then), Outcome::Answered { words, .. }) =
            (ply < plan.target, game.moves.get(ply), &now.outcome)
        {
            let said = words.split(' ').next().unwrap_or_default();
            if said != then.square.to_string() {
                now.changed.push(format!(
                    "after {ply} marks: {} then, {said} now",
                    then.square
                ));
            }
        }
        if matches!(now.outcome, Outcome::Failed { .. }) {
            break;
        }
    }
    finish(session, now).await
}

async fn finish(session: BotSession, mut now: Now) -> Now {
    let closed = session.close(true).await;
    now.stderr = closed.stderr_tail;
    now
}

fn answered(pos: &Position, answer: &Answer) -> Outcome {
    match answer.reply {
        Reply::Resign => Outcome::Answered {
            words: format!("resign in {}", millis(answer.elapsed)),
            failure: None,
        },
        Reply::Move(square) => match pos.play(square) {
            Ok(_) => Outcome::Answered {
                words: played_words(square.to_string(), Some(answer.elapsed)),
                failure: None,
            },
            Err(error) => Outcome::Failed {
                reason: EndReason::IllegalMove,
                words: format!(
                    "played {square} in {}, which is illegal: {}",
                    millis(answer.elapsed),
                    illegal_words(&error)
                ),
            },
        },
    }
}

fn fault_outcome(fault: &Fault) -> Outcome {
    Outcome::Failed {
        reason: fault.reason(),
        words: fault.to_string(),
    }
}

fn played_words(square: String, think: Option<Duration>) -> String {
    match think {
        Some(t) => format!("{square} in {}", millis(t)),
        None => square,
    }
}

/// "42 ms", "0.4 ms": whole milliseconds, with a decimal below 10.
fn millis(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 10.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.0} ms")
    }
}

fn verdict_lines(plan: &Plan, game: &Replayed, now: &Now) -> Vec<String> {
    let mut lines = Vec::new();
    let earlier = now.at < plan.target && matches!(now.outcome, Outcome::Failed { .. });
    lines.push(format!("  then: {}", plan.then.words()));
    if earlier {
        lines.push(format!(
            "  now:  {} (at an earlier request, after {} marks)",
            now.outcome.words(),
            now.at
        ));
    } else {
        lines.push(format!("  now:  {}", now.outcome.words()));
    }
    if !now.changed.is_empty() {
        lines.push(format!(
            "  (it answered earlier requests differently: {}; the replay sends the recorded \
             game whatever it answers)",
            now.changed.join(", ")
        ));
    }
    if !now.stderr.trim().is_empty() && matches!(now.outcome, Outcome::Failed { .. }) {
        lines.push("  its stderr now (the end):".into());
        let all: Vec<&str> = now.stderr.lines().collect();
        for line in &all[all.len().saturating_sub(10)..] {
            lines.push(format!("    {line}"));
        }
    }
    if plan.at_failure && game.row.reason == EndReason::Timeout {
        lines.push(
            "  (a timeout depends on the machine's load: a replay on a quiet machine may not \
             reproduce it)"
                .into(),
        );
    }
    lines.push(String::new());
    let code = verdict(plan.then.reason(), now.outcome.reason());
    lines.push(match (code, plan.then.reason(), now.outcome.reason()) {
        (c, _, _) if c == exit_codes::OK => format!(
            "Not reproduced: {} answered in time with a legal move (exit 0).",
            plan.name
        ),
        (c, Some(reason), _) if c == REPRODUCED => {
            format!("Reproduced: {reason} again (exit 1).")
        }
        (_, then, now) => format!(
            "A different failure: {} then, {} now (exit 3).",
            then.map_or("none".into(), |r| r.to_string()),
            now.map_or("none".into(), |r| r.to_string())
        ),
    });
    lines
}

/// The exit code from what happened then and now.
fn verdict(then: Option<EndReason>, now: Option<EndReason>) -> Code {
    match (then, now) {
        (_, None) => exit_codes::OK,
        (Some(a), Some(b)) if a == b => REPRODUCED,
        _ => DIFFERENT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exit_code_says_whether_the_failure_came_back() {
        let crash = Some(EndReason::Crash);
        let timeout = Some(EndReason::Timeout);
        assert_eq!(verdict(crash, None), exit_codes::OK);
        assert_eq!(verdict(crash, crash), REPRODUCED);
        assert_eq!(verdict(crash, timeout), DIFFERENT);
        assert_eq!(verdict(None, None), exit_codes::OK);
        assert_eq!(verdict(None, crash), DIFFERENT);
    }
}
