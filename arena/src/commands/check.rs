//! `arena check BOT`: the conformance checker ([`crate::conformance`]) on one bot,
//! each step printed as it ends; with `--config`, every bot of a tournament file
//! ([`super::check_all`]). Exit code 0 only if every step passes.

use anyhow::Context as _;

use super::flags;
use crate::cli::CheckArgs;
use crate::conformance::checker::{CheckOptions, Checker, run_steps, tally};
use crate::exit_codes::{self, Code, UsageError};
use crate::results::atomic::stamped_dir;
use crate::tournament::runner;
use crate::tournament::settings::bot::Protocol;
use crate::tournament::settings::input::{Given, Input, TimeInput};

/// Runs `arena check`.
///
/// # Errors
/// A [`UsageError`], or the runtime could not start.
pub fn run(args: &CheckArgs) -> anyhow::Result<Code> {
    if let Some(config) = &args.config {
        return super::check_all::run(config, args, &options(args));
    }
    let (settings, isolation) = flags::settings(input(args)?)?;
    let Some(bot) = settings.entrants.first() else {
        return Err(UsageError::of("no bot to check"));
    };
    let spec = &bot.spec;
    crate::say!(
        "Checking {} ({} protocol)",
        spec.command.display(),
        spec.dialect.name()
    );
    crate::say!("{}", crate::tournament::isolation::banner(&isolation));
    let mut checker = Checker::new(spec, &options(args), true);
    if spec
        .dialect
        .own_rules()
        .is_some_and(|own| !own.is_standard())
    {
        crate::say!(
            "Rules {}: the rules a {} bot believes",
            checker.rules,
            spec.dialect.name()
        );
    }
    let kept = args.out.clone().unwrap_or_else(|| stamped_dir("check"));
    checker
        .keep_failed_games(kept, args.seed)
        .map_err(UsageError::of)?;
    let runtime = runner::runtime(1).context("starting the async runtime")?;
    let steps = runtime.block_on(run_steps(&mut checker));
    let passed = steps.iter().all(|s| s.outcome.ok());
    crate::say!(
        "\n{}{}",
        tally(&steps),
        if passed {
            ": your bot speaks the protocol correctly."
        } else {
            "."
        }
    );
    Ok(if passed {
        exit_codes::OK
    } else {
        exit_codes::FAILURE
    })
}

/// The clock and seed of `args`.
fn options(args: &CheckArgs) -> CheckOptions {
    CheckOptions {
        move_time: args.time,
        first_move_time: args.first_time,
        margin: args.margin,
        handshake: args.handshake_time.duration(),
        seed: args.seed,
    }
}

/// The bot as tournaments will run it: the same description, resolver, sandbox
/// and limits. `--protocol` is its protocol, as a prefix would be.
fn input(args: &CheckArgs) -> anyhow::Result<Input> {
    let text = args.bot.as_deref().unwrap_or_default();
    let mut bots = flags::bots(&[text], "BOT")?;
    if let (Some(word), Some(entry)) = (&args.protocol, bots.first_mut()) {
        match Protocol::from_word(word) {
            Some(protocol @ Protocol::Speaks(_)) => entry.bot.protocol = Some(protocol),
            _ => {
                return Err(UsageError::of(format!(
                    "--protocol '{word}': use uttt, codingame or riddles"
                )));
            }
        }
    }
    Ok(Input {
        base_dir: flags::current_dir()?,
        time: TimeInput {
            first_move_ms: args.first_time.map(|t| Given::flag(t, "--first-time")),
            ..TimeInput::fixed(args.time, args.time, args.margin)
        },
        handshake: Some(args.handshake_time),
        limits: flags::memory(args.memory_mb),
        sandbox_override: Some(args.sandbox),
        seed: Some(args.seed),
        bots,
        ..Input::default()
    })
}
