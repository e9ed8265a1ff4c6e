//! `arena serve DIR…`: the live page of results directories, until Ctrl-C.

use anyhow::Context as _;

use crate::cli::ServeArgs;
use crate::exit_codes::{self, Code, UsageError};
use crate::serve::{Options, bind, serve, url};

/// Runs `arena serve`.
///
/// # Errors
/// The address cannot be bound or the runtime cannot start.
pub fn run(args: &ServeArgs) -> anyhow::Result<Code> {
    for dir in &args.dirs {
        if !dir.is_dir() {
            return Err(UsageError::of(format!(
                "{} is not a directory: give results directories written by `arena tournament` \
                 (or `match`/`sprt`/`gauntlet` with --out)",
                dir.display()
            )));
        }
    }
    let listener = bind(args.addr)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    crate::say!(
        "Live page of {} results director{}: {} (Ctrl-C stops)",
        args.dirs.len(),
        if args.dirs.len() == 1 { "y" } else { "ies" },
        url(&listener)
    );
    let options = Options {
        dirs: args.dirs.clone(),
        show_logs: args.show_logs,
    };
    runtime.block_on(serve(listener, options, async {
        let _ = tokio::signal::ctrl_c().await;
    }))?;
    Ok(exit_codes::OK)
}

/// Starts the live page beside a run writing `out`, if `--serve` asked for it.
///
/// # Errors
/// The address cannot be bound.
pub fn beside_run(
    serve: Option<std::net::SocketAddr>,
    show_logs: bool,
    out: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    let Some(addr) = serve else {
        return Ok(());
    };
    let Some(out) = out else {
        anyhow::bail!("--serve shows a results directory: give one with --out");
    };
    crate::serve::beside(addr, out.to_path_buf(), show_logs)
}
