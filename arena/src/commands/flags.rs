//! The command line's front end of the settings: the flags of a command that
//! plays games, already of their types (`crate::cli`), as the one [`Input`] a
//! tournament file also makes. Only what a flag alone decides is checked here
//! (a bot's text, the most random plies); everything else is the settings'
//! validation, the same for both front ends.

use crate::tournament::governor::GovernorMode;
use std::path::PathBuf;

use super::skeleton::Stage;
use crate::cli::{ClockValue, PlayOptions, TimeArgs};
use crate::defaults;
use crate::exit_codes::UsageError;
use crate::results::manifest::IsolationReport;
use crate::tournament::isolation;
use crate::tournament::settings::bot::BotInput;
use crate::tournament::settings::input::{
    BotEntry, EventInput, FormatKind, Given, Input, LimitsInput, OpeningsInput, Source, TimeInput,
};
use crate::tournament::settings::{self, RunSettings};

/// The time flags, as the settings read them.
pub fn time(time: &TimeArgs) -> TimeInput {
    TimeInput {
        move_ms: time.time.map(|t| Given::flag(t, "--time")),
        first_move_ms: time.first_time.map(|t| Given::flag(t, "--first-time")),
        margin_ms: Some(Given::flag(time.margin, "--margin")),
        ..TimeInput::default()
    }
}

/// Bots as the command line writes them (`NAME=PROTOCOL:command …`).
///
/// # Errors
/// A text that is not a bot description, in words.
pub fn bots(texts: &[&str], flag: &'static str) -> anyhow::Result<Vec<BotEntry>> {
    texts
        .iter()
        .map(|text| {
            let bot: BotInput = text.parse().map_err(|e| UsageError::of(format!("{e}")))?;
            Ok(BotEntry::from_flag(bot, flag))
        })
        .collect()
}

/// What a run of `match`, `gauntlet` or `sprt` is made of: its `name`, the `bots`
/// named on the command line, `games` per pairing in `format`, and the flags of
/// `play`.
///
/// # Errors
/// A bot's text, or more random plies than an opening may have.
pub fn input(
    name: &str,
    bots: &[&str],
    (format, games): (FormatKind, u32),
    play: &PlayOptions,
) -> anyhow::Result<Input> {
    if play.random_plies > defaults::MAX_RANDOM_PLIES {
        return Err(UsageError::of(format!(
            "--random-plies {}: use at most {}",
            play.random_plies,
            defaults::MAX_RANDOM_PLIES
        )));
    }
    let mut time = time(&play.time);
    for value in &play.clock {
        match *value {
            ClockValue::Game(ms) => time.clock_ms = Some(Given::flag(ms, "--clock")),
            ClockValue::Mode(mode) => time.clock_mode = Some(Given::flag(mode, "--clock")),
        }
    }
    time.increment_ms = play.increment.map(|i| Given::flag(i, "--increment"));
    time.nodes = play.nodes.map(|n| Given::flag(n, "--nodes"));
    Ok(Input {
        name: Some(name.to_string()),
        base_dir: current_dir()?,
        seed: play.seed,
        rules: play.rules.map(|r| Given::flag(r, "--rules")),
        event: EventInput {
            format: Some(Given::new(format, Source::Command)),
            games: Some(Given::flag(games, "--games")),
            ..EventInput::default()
        },
        time,
        openings: OpeningsInput {
            random_plies: (play.random_plies > 0)
                .then(|| Given::flag(play.random_plies, "--random-plies")),
            book: play
                .openings
                .clone()
                .map(|path| Given::flag(path, "--openings")),
        },
        limits: memory(play.memory_mb),
        sandbox_override: Some(play.sandbox),
        handshake: Some(play.handshake_time),
        concurrency: Some(play.concurrency),
        governor: governor(play.governor),
        governor_wait_s: play.governor_wait,
        out: play.out.clone(),
        allow_unannounced_rules: Some(Given::flag(
            play.allow_unannounced_rules,
            "--allow-unannounced-rules",
        )),
        bots: self::bots(bots, "BOT")?,
        ..Input::default()
    })
}

/// `--governor`, as the settings take it.
pub fn governor(flag: Option<crate::cli::Governor>) -> Option<Given<GovernorMode>> {
    flag.map(|g| {
        Given::flag(
            match g {
                crate::cli::Governor::On => GovernorMode::On,
                crate::cli::Governor::Off => GovernorMode::Off,
            },
            "--governor",
        )
    })
}

/// `--memory-mb`, which replaces every bot's own.
pub fn memory(mib: Option<u64>) -> LimitsInput {
    LimitsInput {
        memory_mb: mib.map(|m| Given::flag(m, "--memory-mb")),
        ..LimitsInput::default()
    }
}

/// Where relative paths on the command line start.
///
/// # Errors
/// The current directory cannot be read.
pub fn current_dir() -> anyhow::Result<PathBuf> {
    use anyhow::Context as _;
    std::env::current_dir().context("reading the current directory")
}

/// The arena executable, which serves the built-in bots.
///
/// # Errors
/// It cannot be found.
pub fn arena_exe() -> anyhow::Result<PathBuf> {
    use anyhow::Context as _;
    std::env::current_exe().context("locating the arena executable")
}

/// The settings of `input`, validated, and its bots planned under the
/// machine's isolation layers.
///
/// # Errors
/// A [`UsageError`]: a setting, or a sandbox mode this machine cannot give.
pub fn settings(input: Input) -> anyhow::Result<(RunSettings, IsolationReport)> {
    let exe = arena_exe()?;
    let mut settings =
        settings::validate(input, &exe).map_err(|e| UsageError::of(e.to_string()))?;
    let host = isolation::detect(&exe);
    let isolation = isolation::apply(&mut settings.entrants, &host, settings.sandbox)
        .map_err(UsageError::of)?;
    Ok((settings, isolation))
}

/// Where a run of `match`, `gauntlet` or `sprt` is played: the flags of `play`.
pub fn stage<'a>(
    settings: &'a RunSettings,
    isolation: &'a IsolationReport,
    play: &'a PlayOptions,
) -> Stage<'a> {
    Stage {
        settings,
        isolation,
        out: play.out.as_deref(),
        concurrency: play.concurrency,
        shard: None,
        batch: None,
        force: false,
        preflight: !play.no_preflight,
        serve: play.serve.map(|addr| (addr, play.show_logs)),
        json: play.json,
    }
}
