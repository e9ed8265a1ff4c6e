//! `arena`: run Ultimate Tic-Tac-Toe bots against each other.

use std::process::ExitCode;

fn main() -> ExitCode {
    // The bot launcher: applies resource limits, then becomes the bot (never returns).
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == referee::bot::LAUNCH_ARG) {
        referee::bot::launch(&args[2..]);
    }
    // The live page beside a run, in a process of its own (never returns).
    if args
        .get(1)
        .is_some_and(|a| a == arena::serve::beside::PAGE_ARG)
    {
        arena::serve::beside::page_process(&args[2..]);
    }
    // Still single-threaded: inherited descriptors become close-on-exec (no bot
    // gets them, in any sandbox mode) and the referee's /proc entries close to
    // bots under its uid.
    referee::bot::sandbox::privileges::shield_referee();
    quiet_broken_pipe();
    let cli = arena::cli::parse();
    match arena::run(cli) {
        Ok(code) => code.into(),
        Err(err) => {
            eprintln!("error: {err:#}");
            // A mistake of the user's, or another run holding the results
            // directory: nothing was played, and `arena sprt` must not report it
            // as a regression (its exit 1).
            if err.is::<arena::exit_codes::UsageError>()
                || err.is::<arena::results::store::DirInUse>()
            {
                arena::exit_codes::USAGE.into()
            } else if err.is::<arena::tournament::preflight::BotsBroken>() {
                arena::exit_codes::INFRASTRUCTURE.into()
            } else {
                arena::exit_codes::FAILURE.into()
            }
        }
    }
}

/// Output outside `arena::stdout` (a bot's catalogue, a help text) that meets a
/// closed standard output panics in `println!`: exit quietly with 141, as a
/// command killed by SIGPIPE does, never 0. (SIGPIPE stays ignored: a bot that
/// closes its pipe must never kill the referee.)
fn quiet_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to std") && message.contains("Broken pipe") {
            std::process::exit(i32::from(arena::exit_codes::CLOSED_OUTPUT.0));
        }
        default(info);
    }));
}
