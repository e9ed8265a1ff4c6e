//! `arena gauntlet CHALLENGER --against BOT…`: the challenger plays each opponent in
//! colour-swapped pairs; the standings and per-opponent results are printed, and the
//! exit code is 1 when `--min-score` is given and the challenger scored less.

use indicatif::ProgressBar;

use super::match_cmd::summary_line;
use super::{refused, usage};
use crate::cli::GauntletArgs;
use crate::exit_codes::{self, Code};
use crate::results::recorder::Recorder;
use crate::results::standings;
use crate::results::store::GameRow;
use crate::results::summary::{GauntletVerdict, Summary};
use crate::tournament::isolation;
use crate::tournament::prepare::prepare_command_line;
use crate::tournament::run::Watcher;
use crate::tournament::runner::{Finished, Flow, RunEnd};
use crate::tournament::schedule::Format;

/// Runs `arena gauntlet`.
///
/// # Errors
/// Writing results failed, or the runtime failed.
pub fn run(args: &GauntletArgs) -> anyhow::Result<Code> {
    if let Err(message) = check(args) {
        return Ok(usage(&message));
    }
    let json = args.play.json;
    if json {
        crate::stdout::words_to_stderr();
    }
    let mut specs: Vec<&str> = vec![args.challenger.as_str()];
    specs.extend(args.against.iter().map(String::as_str));
    let format = Format::Gauntlet { challenger: 0 };
    let (lineup, prepared) =
        match prepare_command_line("gauntlet", &specs, &args.play, format, args.games) {
            Ok(started) => started,
            Err(e) => return refused(e),
        };
    let mut recorder = prepared.recorder;
    if let Err(e) =
        super::serve_cmd::beside_run(args.play.serve, args.play.show_logs, recorder.out())
    {
        return Ok(super::usage(&format!("{e:#}")));
    }
    let challenger = lineup.entrants[0].spec.name.clone();
    crate::say!(
        "Gauntlet: {challenger} against {} opponents, {} games, {} ms per move, seed {}",
        lineup.entrants.len() - 1,
        recorder.total(),
        args.play.time,
        recorder.seed()
    );
    crate::say!("{}", isolation::banner(&lineup.isolation));
    let mut watcher = GauntletWatch {
        challenger: challenger.clone(),
        quiet: args.quiet,
        score: None,
    };
    let end = match lineup.run_games(&args.play, prepared.games, &mut recorder, &mut watcher) {
        Ok(end) => end,
        Err(e) => return super::failed_run("gauntlet", e, &recorder, json),
    };
    let summary = summary(args, &challenger, watcher.score, end, &recorder)?;
    super::conclude(&summary, &recorder, json)
}

/// summary.json of the gauntlet, with its exit code: PASS or FAIL against
/// `--min-score`, none for a run that was stopped or in which a bot did not start.
///
/// # Errors
/// The games could not be rated.
fn summary(
    args: &GauntletArgs,
    challenger: &str,
    score: Option<f64>,
    end: RunEnd,
    recorder: &Recorder,
) -> anyhow::Result<Summary> {
    // No PASS or FAIL for a run that was stopped or in which a bot did not start.
    let (code, said) = if let RunEnd::Interrupted(why) = end {
        (super::interrupted(why), None)
    } else if let Some(code) = super::bots_started(recorder) {
        (code, None)
    } else {
        match score {
            None => (exit_codes::INTERRUPTED, None),
            Some(score) => verdict(score, args.min_score),
        }
    };
    let tally = recorder.scoreboard().score(challenger);
    let mut summary = super::summary_for("gauntlet", recorder, None, code)?;
    if let (Some(verdict), Some(score), Some(min)) = (said, tally.score(), args.min_score) {
        summary.exit_reason = format!(
            "{verdict}: {challenger} scored {:.1}% against a minimum of {:.1}%",
            score * 100.0,
            min * 100.0
        );
    }
    summary.gauntlet = Some(GauntletVerdict {
        challenger: challenger.to_string(),
        score: tally.score(),
        points: tally.points(),
        games: tally.games(),
        min_score: args.min_score,
        verdict: said.map(str::to_string),
    });
    Ok(summary)
}

/// The numbers `clap` cannot check alone.
fn check(args: &GauntletArgs) -> Result<(), String> {
    if let Some(min) = args.min_score
        && !(0.0..=1.0).contains(&min)
    {
        return Err(format!(
            "--min-score {min}: use a fraction from 0 to 1, e.g. 0.6 for 60%"
        ));
    }
    if args.games < 2 || args.games % 2 == 1 {
        return Err(format!(
            "--games {}: use an even number of at least 2 (pairs with colours swapped)",
            args.games
        ));
    }
    Ok(())
}

/// Pass or fail against `--min-score`, said and returned with the exit code.
fn verdict(score: f64, min_score: Option<f64>) -> (Code, Option<&'static str>) {
    match min_score {
        Some(min) if score < min => {
            crate::say!(
                "FAIL: below the minimum score of {:.1}% (exit 1)",
                min * 100.0
            );
            (exit_codes::FAILURE, Some("FAIL"))
        }
        Some(min) => {
            crate::say!("PASS: at least the minimum score of {:.1}%", min * 100.0);
            (exit_codes::OK, Some("PASS"))
        }
        None => (exit_codes::OK, None),
    }
}

/// A gauntlet's words: a line per game unless `--quiet`, then the standings and
/// the challenger's score, which the exit code is decided on.
#[derive(Debug)]
struct GauntletWatch {
    challenger: String,
    quiet: bool,
    /// The challenger's score over every game, once the run is over and there is one.
    score: Option<f64>,
}

impl Watcher for GauntletWatch {
    fn game(
        &mut self,
        finished: &Finished,
        row: &GameRow,
        _bar: &ProgressBar,
        recorder: &Recorder,
    ) -> anyhow::Result<Flow> {
        if !self.quiet {
            crate::say!(
                "[{}/{}] {} {}",
                recorder.done(),
                recorder.total(),
                row.id,
                summary_line(&finished.record)
            );
        }
        Ok(Flow::Continue)
    }

    fn summary(&mut self, recorder: &Recorder, _end: RunEnd) -> anyhow::Result<()> {
        let board = recorder.scoreboard();
        if board.is_empty() {
            return Ok(());
        }
        let report = board.analysis(&ratings::FitOptions::default())?;
        standings::print_report(&report)?;
        if let Some(out) = recorder.out() {
            standings::write_files(&report, out)?;
        }
        let tally = board.score(&self.challenger);
        let (points, played) = (tally.points(), tally.games());
        let score = points / played.max(1) as f64;
        crate::say!(
            "\n{} scored {points}/{played} = {:.1}%",
            self.challenger,
            score * 100.0
        );
        self.score = Some(score);
        Ok(())
    }
}
