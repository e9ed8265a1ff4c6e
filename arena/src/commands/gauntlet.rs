//! `arena gauntlet CHALLENGER --against BOT…`: the challenger plays each opponent in
//! colour-swapped pairs; the standings and per-opponent results are printed, and the
//! exit code is 1 when `--min-score` is given and the challenger scored less.

use indicatif::ProgressBar;

use super::flags;
use super::skeleton::{Fit, GameCommand, bots_started, interrupted, overloaded, play, summary_for};
use crate::cli::GauntletArgs;
use crate::exit_codes::{self, Code, UsageError};
use crate::results::recorder::Recorder;
use crate::results::standings;
use crate::results::store::GameRow;
use crate::results::summary::{GauntletVerdict, Summary};
use crate::tournament::run::Watcher;
use crate::tournament::runner::{Finished, Flow, RunEnd};
use crate::tournament::settings::RunSettings;
use crate::tournament::settings::input::FormatKind;

/// Runs `arena gauntlet`.
///
/// # Errors
/// A [`UsageError`], writing results failed, or the runtime failed.
pub fn run(args: &GauntletArgs) -> anyhow::Result<Code> {
    check(args).map_err(UsageError::of)?;
    if args.play.json {
        crate::stdout::words_to_stderr();
    }
    let mut bots: Vec<&str> = vec![args.challenger.as_str()];
    bots.extend(args.against.iter().map(String::as_str));
    let event = (FormatKind::Gauntlet, args.games);
    let input = flags::input("gauntlet", &bots, event, &args.play)?;
    let (settings, isolation) = flags::settings(input)?;
    let stage = flags::stage(&settings, &isolation, &args.play);
    play(&stage, |_| GauntletWatch {
        challenger: settings.entrants[0].spec.name.clone(),
        quiet: args.quiet,
        min_score: args.min_score,
        score: None,
        settings: &settings,
        fit: Fit::default(),
    })
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

/// Pass or fail against `--min-score`, said and returned with the exit code
/// (`arena gauntlet`'s, and a tournament file's gauntlet with `min-score`).
pub(super) fn verdict(score: f64, min_score: Option<f64>) -> (Code, Option<&'static str>) {
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
struct GauntletWatch<'a> {
    challenger: String,
    quiet: bool,
    /// `--min-score`.
    min_score: Option<f64>,
    /// The challenger's score over every game, once the run is over and there is one.
    score: Option<f64>,
    settings: &'a RunSettings,
    fit: Fit,
}

impl GameCommand for GauntletWatch<'_> {
    const NAME: &'static str = "gauntlet";

    fn banner(&self, recorder: &Recorder) {
        crate::say!(
            "Gauntlet: {} against {} opponents, {} games, {} ms per move, seed {}",
            self.challenger,
            self.settings.entrants.len() - 1,
            recorder.total(),
            self.settings.time.move_time.map_or(0, |d| d.as_millis()),
            recorder.seed()
        );
    }

    /// summary.json of the gauntlet, with its exit code: PASS or FAIL against
    /// `--min-score`, none for a run that was stopped or in which a bot did not
    /// start.
    fn conclusion(&mut self, end: RunEnd, recorder: &Recorder) -> anyhow::Result<Summary> {
        let (code, said) = if let RunEnd::Interrupted(why) = end {
            (interrupted(why), None)
        } else if let Some(code) = bots_started(recorder) {
            (code, None)
        } else if let Some(code) = self.min_score.and_then(|_| overloaded(recorder)) {
            (code, None)
        } else {
            match self.score {
                None => (exit_codes::INTERRUPTED, None),
                Some(score) => verdict(score, self.min_score),
            }
        };
        let mut summary = summary_for(Self::NAME, recorder, &self.fit, None, code)?;
        record_verdict(
            &mut summary,
            recorder,
            &self.challenger,
            self.min_score,
            said,
        );
        Ok(summary)
    }
}

/// The gauntlet's verdict in `summary`: the challenger's score, and the reason
/// for the exit code when a pass mark decided it.
pub(super) fn record_verdict(
    summary: &mut Summary,
    recorder: &Recorder,
    challenger: &str,
    min_score: Option<f64>,
    said: Option<&str>,
) {
    let tally = recorder.scoreboard().score(challenger);
    if let (Some(verdict), Some(score), Some(min)) = (said, tally.score(), min_score) {
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
        min_score,
        verdict: said.map(str::to_string),
    });
}

impl Watcher for GauntletWatch<'_> {
    fn game(
        &mut self,
        finished: &Finished,
        row: &GameRow,
        _bar: &ProgressBar,
        recorder: &Recorder,
    ) -> anyhow::Result<Flow> {
        if !self.quiet {
            crate::say!(
                "{}",
                super::match_cmd::game_line(recorder, row, &finished.record)
            );
        }
        Ok(Flow::Continue)
    }

    fn summary(&mut self, recorder: &Recorder, _end: RunEnd) -> anyhow::Result<()> {
        let Some(report) = self.fit.of(recorder.scoreboard())? else {
            return Ok(());
        };
        let every = match recorder.out() {
            Some(out) => standings::every_column(out),
            None => {
                "--out DIR writes every column to DIR/standings.csv and crosstable.csv".to_string()
            }
        };
        standings::print_report(
            &report,
            standings::Shown::Standings,
            &every,
            crate::terminal::width::columns(),
        )?;
        if let Some(out) = recorder.out() {
            standings::write_files(&report, out)?;
        }
        let tally = recorder.scoreboard().score(&self.challenger);
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
