//! `arena check BOT`: the conformance checker ([`crate::conformance`]) on one bot,
//! each step printed as it ends; with `--config`, every bot of a tournament file
//! ([`super::check_all`]). Exit code 0 only if every step passes.

use anyhow::Context as _;

use super::flags;
use crate::cli::CheckArgs;
use crate::conformance::checker::{CheckOptions, Checker, run_steps};
use crate::exit_codes::{self, Code, UsageError};
use crate::tournament::runner;
use crate::tournament::settings::bot::Protocol;
use crate::tournament::settings::input::{Input, TimeInput};

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
    let runtime = runner::runtime(1).context("starting the async runtime")?;
    let steps = runtime.block_on(run_steps(&mut checker));
    let failed = steps.iter().filter(|s| s.result.is_err()).count();
    crate::say!(
        "\n{} of {} steps passed{}",
        steps.len() - failed,
        steps.len(),
        if failed == 0 {
            ": your bot speaks the protocol correctly."
        } else {
            "."
        }
    );
    Ok(if failed == 0 {
        exit_codes::OK
    } else {
        exit_codes::FAILURE
    })
}

/// The clock and seed of `args`.
fn options(args: &CheckArgs) -> CheckOptions {
    CheckOptions {
        move_time: args.time,
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
        time: TimeInput::fixed(args.time, args.time, args.margin),
        handshake: Some(args.handshake_time),
        limits: flags::memory(args.memory_mb),
        sandbox_override: Some(args.sandbox),
        seed: Some(args.seed),
        bots,
        ..Input::default()
    })
}
