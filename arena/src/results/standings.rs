//! From result rows to standings: games.csv rows become [`GameResult`]s for the
//! ratings crate, scores are counted, and the ratings report is printed and written
//! as standings.csv, crosstable.csv and reasons.csv.
//!
//! Every score a command prints (a match's tally, a gauntlet's score, the leader
//! on the progress line) is counted here by [`score`], from typed rows.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context as _;
use uttt::rules::Mark;

use super::atomic::write_atomic;
use super::store::GameRow;
use ratings::{self, Analysis, Ending, FitOptions, GameResult, PairKey, Wdl};

/// The ratings input for one games.csv row. `source` keeps pair keys of different
/// files apart (pairs are never split across shards, so shards need no merging of
/// pairs).
///
/// # Errors
/// The row names the same bot twice (the reader refuses such rows).
pub fn to_result(row: &GameRow, source: u32) -> anyhow::Result<GameResult> {
    let ending = Ending::of(row.winner, row.reason);
    let game = GameResult::new(row.x.clone(), row.o.clone(), ending)
        .map_err(|e| anyhow::anyhow!("game {}: {e}", row.id))?;
    Ok(game.with_pair(PairKey((u64::from(source) << 32) | u64::from(row.pair))))
}

/// `bot`'s wins, draws and losses in the games of `rows` it played.
pub fn score<'a>(rows: impl IntoIterator<Item = &'a GameRow>, bot: &str) -> Wdl {
    let mut wdl = Wdl::default();
    for row in rows {
        if let Some(mark) = row.seat_of(bot) {
            wdl.add_decision(row.winner, mark);
        }
    }
    wdl
}

/// "mcts 7.5/8" for the bot with the most points so far (for the progress line).
pub fn leader(rows: &[GameRow]) -> String {
    let mut bots: BTreeMap<&str, Wdl> = BTreeMap::new();
    for row in rows {
        for mark in Mark::ALL {
            bots.entry(row.bot(mark))
                .or_default()
                .add_decision(row.winner, mark);
        }
    }
    bots.into_iter()
        .max_by(|a, b| a.1.points().total_cmp(&b.1.points()))
        .map_or_else(
            || "-".to_string(),
            |(name, wdl)| format!("{name} {}/{}", wdl.points(), wdl.games()),
        )
}

/// The ratings report of `rows` (from one source).
///
/// # Errors
/// A row is invalid, or the fit failed.
pub fn build(rows: &[GameRow], options: &FitOptions) -> anyhow::Result<Analysis> {
    let games = rows
        .iter()
        .map(|r| to_result(r, 0))
        .collect::<anyhow::Result<Vec<_>>>()?;
    Analysis::build(&games, options).map_err(|e| anyhow::anyhow!("{e}"))
}

/// Every bot's Elo in `rows` (the default fit), by name.
///
/// # Errors
/// A row is invalid, or the fit failed.
pub fn elo_by_name(rows: &[GameRow]) -> anyhow::Result<Vec<(String, f64)>> {
    let report = build(rows, &FitOptions::default())?;
    Ok(report
        .standings
        .bots()
        .iter()
        .map(|b| (b.name().to_string(), b.rating.elo))
        .collect())
}

/// Prints the standings (if `print`) and writes standings.csv, crosstable.csv and
/// reasons.csv into `out`, each atomically.
///
/// # Errors
/// The fit failed or a file could not be written.
pub fn report(rows: &[GameRow], out: &Path, print: bool) -> anyhow::Result<()> {
    if rows.is_empty() {
        if print {
            crate::say!("No finished games yet.");
        }
        return Ok(());
    }
    let report = build(rows, &FitOptions::default())?;
    if print {
        print_report(&report)?;
    }
    write_files(&report, out)
}

/// The terminal tables: standings with notes, pairings, first-player results.
///
/// # Errors
/// Writing to stdout failed.
pub fn print_report(report: &Analysis) -> anyhow::Result<()> {
    let mut text = Vec::new();
    text.push(b'\n');
    ratings::table::write_standings_table(&mut text, report)?;
    text.push(b'\n');
    ratings::table::write_pairings_table(&mut text, report)?;
    crate::say_raw!("{}", String::from_utf8_lossy(&text));
    Ok(())
}

/// Writes standings.csv, crosstable.csv and reasons.csv.
///
/// # Errors
/// A file could not be written.
pub fn write_files(report: &Analysis, out: &Path) -> anyhow::Result<()> {
    let write = |name: &str, f: &dyn Fn(&mut Vec<u8>) -> csv::Result<()>| -> anyhow::Result<()> {
        let mut bytes = Vec::new();
        f(&mut bytes).with_context(|| format!("formatting {name}"))?;
        write_atomic(&out.join(name), &bytes)
    };
    write("standings.csv", &|b| {
        ratings::table::write_standings_csv(b, report)
    })?;
    write("crosstable.csv", &|b| {
        ratings::table::write_crosstable_csv(b, report)
    })?;
    write("reasons.csv", &|b| {
        ratings::table::write_reasons_csv(b, report)
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratings::{Decision, EndReason};
    use uttt::rules::Rules;

    fn row(x: &str, o: &str, winner: Decision, reason: EndReason, pair: u32) -> GameRow {
        GameRow {
            id: format!("G{pair}{x}"),
            round: 1,
            pair,
            x: x.into(),
            o: o.into(),
            opening: Vec::new(),
            winner,
            winner_name: String::new(),
            reason,
            detail: String::new(),
            plies: 20,
            boards_x: 0,
            boards_o: 0,
            rules: Rules::STANDARD,
            duration_ms: 1,
            seed: 1,
            x_version: String::new(),
            o_version: String::new(),
        }
    }

    #[test]
    fn faults_are_forfeits_of_the_loser_and_board_results_are_played() {
        let (x, o) = (Decision::Win(Mark::X), Decision::Win(Mark::O));
        let timeout = to_result(&row("a", "b", o, EndReason::Timeout, 1), 0).unwrap();
        assert_eq!(timeout.ending().at_fault(), Some(Mark::X));
        let line = to_result(&row("a", "b", x, EndReason::ThreeInARow, 1), 0).unwrap();
        assert_eq!(line.ending().at_fault(), None);
        let both_failed = to_result(
            &row("a", "b", Decision::Draw, EndReason::HandshakeFailure, 1),
            0,
        )
        .unwrap();
        assert_eq!(both_failed.decision(), Decision::Draw);
        assert_ne!(
            to_result(&row("a", "b", x, EndReason::ThreeInARow, 7), 1)
                .unwrap()
                .pair(),
            line.pair()
        );
        assert!(to_result(&row("a", "a", x, EndReason::ThreeInARow, 7), 1).is_err());
    }

    #[test]
    fn scores_count_each_bots_games_from_its_seat() {
        let rows = [
            row("a", "b", Decision::Win(Mark::O), EndReason::ThreeInARow, 1),
            row("b", "a", Decision::Win(Mark::X), EndReason::Timeout, 1),
            row("a", "c", Decision::Draw, EndReason::NoMoves, 2),
        ];
        let a = score(&rows, "a");
        assert_eq!((a.wins, a.draws, a.losses), (0, 1, 2));
        assert_eq!(a.points(), 0.5);
        assert_eq!(score(&rows, "b").points(), 2.0);
        assert_eq!(score(&rows, "nobody").games(), 0);
        assert_eq!(leader(&rows), "b 2/2");
        assert_eq!(leader(&[]), "-");
    }
}
