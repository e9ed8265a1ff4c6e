//! `arena gauntlet CHALLENGER --against BOT…`: the challenger plays each opponent in
//! colour-swapped pairs; the standings and per-opponent results are printed, and the
//! exit code is 1 when `--min-score` is given and the challenger scored less.

use anyhow::Context as _;

use super::common;
use crate::cli::GauntletArgs;
use crate::exit_codes::{self, Code};
use crate::results::standings;
use crate::runner::{self, Flow, RunEnd};
use crate::schedule::Format;

/// Runs `arena gauntlet`.
///
/// # Errors
/// Writing results failed, or the runtime failed.
pub fn run(args: &GauntletArgs) -> anyhow::Result<Code> {
    if let Some(min) = args.min_score
        && !(0.0..=1.0).contains(&min)
    {
        return Ok(common::usage(&format!(
            "--min-score {min}: use a fraction from 0 to 1, e.g. 0.6 for 60%"
        )));
    }
    if args.games < 2 || args.games % 2 == 1 {
        eprintln!(
            "error: --games {}: use an even number of at least 2 (pairs with colours swapped)",
            args.games
        );
        return Ok(exit_codes::USAGE);
    }
    let mut specs: Vec<&str> = vec![args.challenger.as_str()];
    specs.extend(args.against.iter().map(String::as_str));
    let (
        setup,
        common::Prepared {
            games,
            mut recorder,
        },
    ) = match common::start(
        "gauntlet",
        &specs,
        &args.play,
        Format::Gauntlet { challenger: 0 },
        args.games,
    )? {
        Ok(started) => started,
        Err(message) => return Ok(common::usage(&message)),
    };
    let challenger = setup.entrants[0].spec.name.clone();
    let total = recorder.total();
    println!(
        "Gauntlet: {challenger} against {} opponents, {total} games, {} ms per move, seed {}",
        setup.entrants.len() - 1,
        args.play.time,
        recorder.seed()
    );
    println!("{}", crate::sandbox::banner(&setup.sandbox));
    let on_finish = |finished: runner::Finished| -> anyhow::Result<Flow> {
        let row = recorder.record(&finished.game.meta, &finished.record)?;
        if !args.quiet {
            println!(
                "[{}/{total}] {} {}",
                recorder.done(),
                row.id,
                super::match_cmd::summary_line(&finished.record)
            );
        }
        Ok(Flow::Continue)
    };
    let runtime = runner::runtime(args.play.concurrency).context("starting the async runtime")?;
    let end = runtime.block_on(runner::run(
        setup.entrants.clone(),
        common::run_options(&setup, &args.play),
        games,
        on_finish,
        async {
            let _ = tokio::signal::ctrl_c().await;
        },
    ))?;
    recorder.finish(end == RunEnd::Complete)?;
    if recorder.rows().is_empty() {
        return Ok(exit_codes::INTERRUPTED);
    }
    let report = standings::build(recorder.rows(), &ratings::FitOptions::default())?;
    standings::print_report(&report)?;
    if let Some(out) = recorder.out() {
        standings::write_files(&report, out)?;
    }
    let tally = standings::score(recorder.rows(), &challenger);
    let (points, played) = (tally.points(), tally.games());
    let score = points / played.max(1) as f64;
    println!(
        "\n{challenger} scored {points}/{played} = {:.1}%",
        score * 100.0
    );
    if end == RunEnd::Interrupted {
        eprintln!("Interrupted: unfinished games were not recorded.");
        return Ok(exit_codes::INTERRUPTED);
    }
    Ok(match args.min_score {
        Some(min) if score < min => {
            println!(
                "FAIL: below the minimum score of {:.1}% (exit 1)",
                min * 100.0
            );
            exit_codes::FAILURE
        }
        Some(min) => {
            println!("PASS: at least the minimum score of {:.1}%", min * 100.0);
            exit_codes::OK
        }
        None => exit_codes::OK,
    })
}
