//! From result files to standings: games.csv rows become [`GameResult`]s for the
//! ratings module, and the report is printed and written as standings.csv,
//! crosstable.csv and reasons.csv.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context as _;
use uttt::rules::Mark;

use crate::store::GameRow;
use ratings::{self, Decision, EndReason, Ending, FitOptions, GameResult, PairKey, Report};

/// The ratings input for one games.csv row. `source` keeps pair keys of different
/// files apart (pairs are never split across shards, so shards need no merging of
/// pairs).
///
/// # Errors
/// The row's winner or names are not valid.
pub fn to_result(row: &GameRow, source: u32) -> anyhow::Result<GameResult> {
    let winner = row
        .winner_mark()
        .map_err(|e| anyhow::anyhow!("game {}: {e}", row.id))?;
    let reason: EndReason = row
        .reason
        .parse()
        .map_err(|e| anyhow::anyhow!("game {}: {e}", row.id))?;
    let ending = match winner {
        Some(w) if !reason.on_the_board() => Ending::Forfeit { loser: !w, reason },
        w => Ending::Played {
            decision: Decision::from_winner(w),
            reason,
        },
    };
    let game = GameResult::new(row.x.clone(), row.o.clone(), ending)
        .map_err(|e| anyhow::anyhow!("game {}: {e}", row.id))?;
    Ok(game.with_pair(PairKey((u64::from(source) << 32) | u64::from(row.pair))))
}

/// Points (win 1, draw ½) and games per bot.
fn points(rows: &[GameRow]) -> BTreeMap<&str, (f64, u32)> {
    let mut table: BTreeMap<&str, (f64, u32)> = BTreeMap::new();
    for row in rows {
        let (px, po) = match row.winner_mark() {
            Ok(Some(Mark::X)) => (1.0, 0.0),
            Ok(Some(Mark::O)) => (0.0, 1.0),
            _ => (0.5, 0.5),
        };
        for (name, p) in [(row.x.as_str(), px), (row.o.as_str(), po)] {
            let entry = table.entry(name).or_default();
            entry.0 += p;
            entry.1 += 1;
        }
    }
    table
}

/// "mcts 7.5/8" for the bot with the most points so far (for the progress line).
pub fn leader(rows: &[GameRow]) -> String {
    points(rows)
        .into_iter()
        .max_by(|a, b| a.1.0.total_cmp(&b.1.0))
        .map_or_else(
            || "-".to_string(),
            |(name, (p, n))| format!("{name} {p}/{n}"),
        )
}

/// The ratings report of `rows` (from one source).
///
/// # Errors
/// A row is invalid, or the fit failed.
pub fn build(rows: &[GameRow], options: &FitOptions) -> anyhow::Result<Report> {
    let games = rows
        .iter()
        .map(|r| to_result(r, 0))
        .collect::<anyhow::Result<Vec<_>>>()?;
    Report::build(&games, options).map_err(|e| anyhow::anyhow!("{e}"))
}

/// Prints the standings (if `print`) and writes standings.csv, crosstable.csv and
/// reasons.csv into `out`, each atomically.
///
/// # Errors
/// The fit failed or a file could not be written.
pub fn report(rows: &[GameRow], out: &Path, print: bool) -> anyhow::Result<()> {
    if rows.is_empty() {
        if print {
            println!("No finished games yet.");
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
pub fn print_report(report: &Report) -> anyhow::Result<()> {
    let mut text = Vec::new();
    text.push(b'\n');
    ratings::table::write_standings_table(&mut text, report)?;
    text.push(b'\n');
    ratings::table::write_pairings_table(&mut text, report)?;
    print!("{}", String::from_utf8_lossy(&text));
    Ok(())
}

/// Writes standings.csv, crosstable.csv and reasons.csv.
///
/// # Errors
/// A file could not be written.
pub fn write_files(report: &Report, out: &Path) -> anyhow::Result<()> {
    let write = |name: &str, f: &dyn Fn(&mut Vec<u8>) -> csv::Result<()>| -> anyhow::Result<()> {
        let mut bytes = Vec::new();
        f(&mut bytes).with_context(|| format!("formatting {name}"))?;
        crate::manifest::write_atomic(&out.join(name), &bytes)
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

    fn row(x: &str, o: &str, winner: &str, reason: &str, pair: u32) -> GameRow {
        GameRow {
            id: format!("G{pair}{x}"),
            round: 1,
            pair,
            x: x.into(),
            o: o.into(),
            opening: String::new(),
            winner: winner.into(),
            winner_name: String::new(),
            reason: reason.into(),
            detail: String::new(),
            plies: 20,
            boards_x: 0,
            boards_o: 0,
            rules: "standard".into(),
            duration_ms: 1,
            seed: 1,
        }
    }

    #[test]
    fn faults_are_forfeits_of_the_loser_and_board_results_are_played() {
        let timeout = to_result(&row("a", "b", "O", "timeout", 1), 0).unwrap();
        assert_eq!(timeout.ending().at_fault(), Some(Mark::X));
        let line = to_result(&row("a", "b", "X", "three-in-a-row", 1), 0).unwrap();
        assert_eq!(line.ending().at_fault(), None);
        let both_failed = to_result(&row("a", "b", "draw", "handshake-failure", 1), 0).unwrap();
        assert_eq!(both_failed.decision(), Decision::Draw);
        assert_ne!(
            to_result(&row("a", "b", "X", "three-in-a-row", 7), 1)
                .unwrap()
                .pair(),
            line.pair()
        );
        assert!(to_result(&row("a", "b", "Y", "three-in-a-row", 7), 1).is_err());
        assert!(to_result(&row("a", "b", "X", "x", 7), 1).is_err());
    }

    #[test]
    fn leader_has_the_most_points() {
        let rows = [
            row("a", "b", "O", "three-in-a-row", 1),
            row("b", "a", "X", "three-in-a-row", 1),
        ];
        assert_eq!(leader(&rows), "b 2/2");
    }
}
