//! `arena sprt NEW BASE`: colour-swapped pairs until the GSPRT on pentanomial pair
//! counts accepts H0 or H1 — the strength-regression check for CI. Exit codes (see
//! exit_codes.rs): 0 H1 accepted, 1 H0 accepted, 2 usage, 3 inconclusive at
//! `--max-games`, 4 a bot could not run, 130 interrupted. With `--out`, an interrupted
//! test resumes where it stopped.

use anyhow::Context as _;
use referee::game::Termination;

use super::common;
use crate::cli::{SprtArgs, SprtModel};
use crate::exit_codes::{self, Code};
use crate::progress::games_bar;
use crate::results::standings::to_result;
use crate::results::store::GameRow;
use crate::runner::{self, Flow, RunEnd};
use crate::schedule::Format;
use ratings::{Confidence, EloModel, SprtConfig, SprtDecision, head_to_head, table::sprt_line};

/// Runs `arena sprt`.
///
/// # Errors
/// Writing results failed, or the runtime failed.
pub fn run(args: &SprtArgs) -> anyhow::Result<Code> {
    let model = match args.model {
        SprtModel::Normalized => EloModel::Normalized,
        SprtModel::Logistic => EloModel::Logistic,
    };
    let config = match SprtConfig::new(args.elo0, args.elo1, args.alpha, args.beta, model) {
        Ok(c) => c,
        Err(e) => {
            return Ok(common::usage(&e.to_string()));
        }
    };
    let (
        setup,
        common::Prepared {
            games,
            mut recorder,
        },
    ) = match common::start(
        "sprt",
        &[&args.new, &args.base],
        &args.play,
        Format::RoundRobin,
        args.max_games + args.max_games % 2,
    )? {
        Ok(started) => started,
        Err(message) => return Ok(common::usage(&message)),
    };
    let (new, base) = (
        setup.entrants[0].spec.name.clone(),
        setup.entrants[1].spec.name.clone(),
    );
    println!(
        "SPRT {new} vs {base}: H0 {} vs H1 {} {}, alpha {}, beta {}, at most {} games, {} ms per move, seed {}",
        args.elo0,
        args.elo1,
        match model {
            EloModel::Normalized => "nElo",
            EloModel::Logistic => "Elo",
        },
        args.alpha,
        args.beta,
        args.max_games,
        args.play.time,
        recorder.seed()
    );
    println!("{}", crate::sandbox::banner(&setup.sandbox));
    let confidence = Confidence::default();
    let status_of = |rows: &[GameRow]| {
        let games: Vec<_> = rows.iter().filter_map(|r| to_result(r, 0).ok()).collect();
        config.status(&head_to_head(&games, &new, &base).pentanomial)
    };
    let mut status = status_of(recorder.rows());
    let bar = games_bar(u64::from(args.max_games), recorder.done(), args.quiet);
    let mut infrastructure: Option<String> = None;
    let mut last_printed_pairs = 0;
    let already_decided = status.decision != SprtDecision::Continue;
    let games = games.take(if already_decided { 0 } else { usize::MAX });
    let on_finish = |finished: runner::Finished| -> anyhow::Result<Flow> {
        recorder.record(&finished.game.meta, &finished.record)?;
        bar.inc(1);
        if let Termination::Fault { by, fault } = &finished.record.termination
            && fault.reason() == uttt::result::EndReason::HandshakeFailure
        {
            infrastructure = Some(format!("{} {fault}", finished.record.names.get(*by)));
            return Ok(Flow::Stop);
        }
        status = status_of(recorder.rows());
        let line = sprt_line(&config, &status, confidence);
        bar.set_message(line.clone());
        let pairs = recorder.done() / 2;
        if bar.is_hidden()
            && !args.quiet
            && pairs >= last_printed_pairs + 10
            && status.decision == SprtDecision::Continue
        {
            println!("{} games: {line}", recorder.done());
            last_printed_pairs = pairs;
        }
        Ok(if status.decision == SprtDecision::Continue {
            Flow::Continue
        } else {
            Flow::Stop
        })
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
    ));
    bar.finish_and_clear();
    let end = end?;
    recorder.finish(end == RunEnd::Complete || status.decision != SprtDecision::Continue)?;
    println!(
        "{} games: {}",
        recorder.done(),
        sprt_line(&config, &status, confidence)
    );
    if let Some(problem) = infrastructure {
        eprintln!("error: a bot could not run, so the test says nothing about strength: {problem}");
        return Ok(exit_codes::INFRASTRUCTURE);
    }
    if end == RunEnd::Interrupted {
        eprintln!(
            "Interrupted: unfinished games were not recorded; run the same command again to resume."
        );
        return Ok(exit_codes::INTERRUPTED);
    }
    Ok(match status.decision {
        SprtDecision::AcceptH1 => {
            println!(
                "H1 accepted: {new} is not weaker than {base} by the test's standard (exit 0)"
            );
            exit_codes::OK
        }
        SprtDecision::AcceptH0 => {
            println!(
                "H0 accepted: {new} is weaker than hoped against {base} — a regression (exit 1)"
            );
            exit_codes::FAILURE
        }
        SprtDecision::Continue => {
            println!(
                "Inconclusive after {} games (exit 3): raise --max-games or widen elo0/elo1",
                recorder.done()
            );
            exit_codes::INCONCLUSIVE
        }
    })
}
