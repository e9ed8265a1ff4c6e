//! `arena match A B`: games between two bots in colour-swapped pairs, with the score
//! and the end reasons printed, the narrative with `--verbose`, and CSV files with
//! `--out`.

use std::collections::BTreeMap;

use ratings::Wdl;
use referee::game::GameRecord;

use super::flags;
use super::skeleton::{Fit, GameCommand, play, played, summary_for};
use crate::cli::MatchArgs;
use crate::exit_codes::{Code, UsageError};
use crate::results::recorder::Recorder;
use crate::results::standings::{EndedBy, Scoreboard};
use crate::results::store::GameRow;
use crate::results::summary::Summary;
use crate::tournament::run::Watcher;
use crate::tournament::runner::{Finished, Flow, RunEnd};
use crate::tournament::settings::RunSettings;
use crate::tournament::settings::input::FormatKind;

/// Runs `arena match`.
///
/// # Errors
/// A [`UsageError`], writing results failed, or the async runtime could not start.
pub fn run(args: &MatchArgs) -> anyhow::Result<Code> {
    if args.games == 0 {
        return Err(UsageError::of("--games must be at least 1"));
    }
    if args.play.json {
        crate::stdout::words_to_stderr();
    }
    let bots = [args.bot_a.as_str(), args.bot_b.as_str()];
    let event = (FormatKind::RoundRobin, args.games);
    let input = flags::input("match", &bots, event, &args.play)?;
    let (settings, isolation) = flags::settings(input)?;
    let stage = flags::stage(&settings, &isolation, &args.play);
    play(&stage, |_| MatchWatch {
        verbose: args.verbose,
        names: settings.names().iter().map(ToString::to_string).collect(),
        settings: &settings,
        fit: Fit::default(),
    })
}

/// A match's words: a line per game (the narrative too with `--verbose`), the
/// score at the end.
#[derive(Debug)]
struct MatchWatch<'a> {
    verbose: bool,
    names: Vec<String>,
    settings: &'a RunSettings,
    fit: Fit,
}

impl GameCommand for MatchWatch<'_> {
    const NAME: &'static str = "match";

    fn banner(&self, recorder: &Recorder) {
        let (time, ms) = (&self.settings.time, |d: Option<std::time::Duration>| {
            d.map_or(0, |d| d.as_millis())
        });
        crate::say!(
            "Match: {} vs {}, {} games, {} ms per move (first move {} ms, margin {} ms), rules {}, seed {}",
            self.names[0],
            self.names[1],
            recorder.total(),
            ms(time.move_time),
            ms(time.first_move_time),
            time.margin.as_millis(),
            self.settings.rules,
            recorder.seed()
        );
        if recorder.done() > 0 {
            crate::say!("Resuming: {} games already played", recorder.done());
        }
    }

    fn conclusion(&mut self, end: RunEnd, recorder: &Recorder) -> anyhow::Result<Summary> {
        let code = played(end, recorder);
        let pair = (self.names[0].as_str(), self.names[1].as_str());
        summary_for(Self::NAME, recorder, &self.fit, Some(pair), code)
    }
}

impl Watcher for MatchWatch<'_> {
    fn game(
        &mut self,
        finished: &Finished,
        _row: &GameRow,
        _bar: &indicatif::ProgressBar,
        recorder: &Recorder,
    ) -> anyhow::Result<Flow> {
        if self.verbose {
            crate::say!();
            for line in finished.record.narrative() {
                crate::say!("  {line}");
            }
        }
        crate::say!(
            "Game {}/{} ({}): {}",
            recorder.done(),
            recorder.total(),
            finished.game.meta.id,
            summary_line(&finished.record)
        );
        Ok(Flow::Continue)
    }

    fn summary(&mut self, recorder: &Recorder, _end: RunEnd) -> anyhow::Result<()> {
        crate::say!();
        // Every game of the match, those of earlier runs on this directory included.
        Tally::of(&self.names[0], &self.names[1], recorder.scoreboard()).print();
        if let Some(report) = self.fit.of(recorder.scoreboard())? {
            let row = ratings::table::crosstable_rows(&report)
                .into_iter()
                .find(|r| r.bot == self.names[0] && r.opponent == self.names[1]);
            if let Some(row) = row {
                for line in head_to_head_lines(&row) {
                    crate::say!("{line}");
                }
            }
        }
        if let Some(dir) = recorder.out() {
            crate::say!("Results written to {}", dir.display());
        }
        Ok(())
    }
}

/// A finished game's line for a run that prints one per game:
/// `[done/total] G0001 <what happened>`.
pub fn game_line(recorder: &Recorder, row: &GameRow, record: &referee::game::GameRecord) -> String {
    format!(
        "[{}/{}] {} {}",
        recorder.done(),
        recorder.total(),
        row.id,
        summary_line(record)
    )
}

/// "mcts (X) vs random (O): X (mcts) wins: three boards in a row. [31 plies]"
pub fn summary_line(record: &GameRecord) -> String {
    format!(
        "{} (X) vs {} (O): {} [{} plies]",
        record.names.x,
        record.names.o,
        record.result_line(),
        record.position.ply()
    )
}

/// Score of the first bot against the second, and how games ended.
#[derive(Debug)]
struct Tally {
    a: String,
    b: String,
    score: Wdl,
    reasons: BTreeMap<String, u64>,
}

impl Tally {
    /// The score of `a` against `b` over the games they played against each other.
    fn of(a: &str, b: &str, board: &Scoreboard) -> Tally {
        let mut reasons: BTreeMap<String, u64> = BTreeMap::new();
        for (reason, by, count) in board.endings(a, b) {
            // A fault is the loser's; a draw with a fault reason is a game both bots
            // failed before the first move.
            let key = match by {
                EndedBy::Board => reason.to_string(),
                EndedBy::Both => format!("{reason} by both"),
                EndedBy::Bot(loser) => format!("{reason} by {loser}"),
            };
            *reasons.entry(key).or_default() += count;
        }
        Tally {
            a: a.into(),
            b: b.into(),
            score: board.totals().pairing(a, b).games,
            reasons,
        }
    }

    fn print(&self) {
        let games = self.score.games();
        crate::say!(
            "Score of {} vs {}: {} - {} - {} [{:.3}] {games} games",
            self.a,
            self.b,
            self.score.wins,
            self.score.losses,
            self.score.draws,
            self.score.score().unwrap_or(0.0)
        );
        let reasons: Vec<String> = self
            .reasons
            .iter()
            .map(|(k, n)| format!("{k}: {n}"))
            .collect();
        crate::say!("Reasons: {}", reasons.join(", "));
    }
}

/// What cutechess-cli and fastchess users read first: the Elo difference of the
/// first bot with its 95% interval, LOS and draw ratio, and the pentanomial pair
/// counts when games were played in pairs. What the games cannot determine is
/// said in words: a perfect score has no finite Elo, and games without spread
/// (every pair alike) no interval or LOS.
fn head_to_head_lines(row: &ratings::table::CrosstableRow) -> Vec<String> {
    let elo = if row.elo.is_infinite() {
        format!(
            "too few games to tell ({} {} every game)",
            row.bot,
            if row.elo > 0.0 { "won" } else { "lost" }
        )
    } else {
        match row.elo_error {
            Some(e) if e.is_finite() => format!("{:+.1} ± {e:.1} (95%)", row.elo),
            _ => format!("{:+.1} (too few games for its interval)", row.elo),
        }
    };
    let los = row
        .los
        .map_or("too few games".to_string(), ratings::table::percent);
    let mut lines = vec![format!(
        "Elo difference: {elo}, LOS: {los}, draw ratio: {}",
        ratings::table::percent(row.draw_ratio)
    )];
    if row.pairs > 0 {
        lines.push(format!(
            "Pentanomial [LL, LD, WL+DD, WD, WW]: [{}, {}, {}, {}, {}] over {} pairs{}",
            row.ptnml_ll,
            row.ptnml_ld,
            row.ptnml_wl_dd,
            row.ptnml_wd,
            row.ptnml_ww,
            row.pairs,
            if row.unpaired_games > 0 {
                format!(", {} games unpaired", row.unpaired_games)
            } else {
                String::new()
            }
        ));
    }
    lines
}
