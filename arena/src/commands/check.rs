//! `arena check BOT`: the conformance checker ([`crate::conformance`]) on one bot,
//! each step printed as it ends; with `--config`, every bot of a tournament file
//! ([`super::check_all`]). Exit code 0 only if every step passes.

use anyhow::Context as _;
use referee::dialect::Dialect;
use referee::game::TimeControl;

use super::usage;
use crate::cli::CheckArgs;
use crate::conformance::checker::{CheckOptions, Checker, run_steps};
use crate::exit_codes::{self, Code};
use crate::results::manifest::IsolationReport;
use crate::tournament::bot_spec::{BotSpec, Resolver};
use crate::tournament::entrant::Entrant;
use crate::tournament::isolation;
use crate::tournament::runner;

/// Runs `arena check`.
///
/// # Errors
/// The runtime could not start.
pub fn run(args: &CheckArgs) -> anyhow::Result<Code> {
    if let Some(config) = &args.config {
        return super::check_all::run(config, args, &options(args));
    }
    let resolver = Resolver::from_env()
        .context("locating the arena executable")?
        .with_memory_mb(args.memory_mb);
    let (spec, isolation) = match bot_to_check(args, &resolver) {
        Ok(bot) => bot,
        Err(message) => return Ok(usage(&message)),
    };
    crate::say!(
        "Checking {} ({} protocol)",
        spec.command.display(),
        spec.dialect.name()
    );
    crate::say!("{}", isolation::banner(&isolation));
    let mut checker = Checker::new(&spec, &options(args), true);
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
        move_time: args.time.duration(),
        margin: args.margin.duration(),
        handshake: args.handshake_time.duration(),
        seed: args.seed,
    }
}

/// The bot as tournaments will run it, in the same sandbox, and its isolation.
/// Errors are the user's to fix.
fn bot_to_check(
    args: &CheckArgs,
    resolver: &Resolver,
) -> Result<(BotSpec, IsolationReport), String> {
    let mut raw = args.bot.clone().unwrap_or_default();
    if let Some(protocol) = &args.protocol {
        if Dialect::from_name(protocol).is_none() {
            return Err(format!(
                "--protocol '{protocol}': use uttt, codingame or riddles"
            ));
        }
        raw = format!("{protocol}:{raw}");
    }
    let spec = resolver.resolve(&raw).map_err(|e| e.to_string())?;
    let time = TimeControl::per_move(args.time.get(), args.time.get(), args.margin.get());
    let mut entrants = vec![Entrant { spec, time }];
    let host = isolation::detect(&resolver.arena_exe);
    let report = isolation::apply(&mut entrants, &host, Some(args.sandbox))?;
    let spec = entrants.pop().ok_or("no bot to check")?.spec;
    Ok((spec, report))
}
