//! From result rows to standings: games.csv rows become [`GameResult`]s for the
//! ratings crate, scores are counted, and the ratings report is printed (fitted to
//! the terminal's width) and written as standings.csv, crosstable.csv and
//! reasons.csv.
//!
//! A run keeps its standings in a [`Scoreboard`], one game at a time: every score a
//! command prints while games finish (the leader on the progress line, an SPRT's
//! status, a match's tally) and the report at the end come from it, at a cost per
//! game that does not grow with the games already played, in memory that grows with
//! the bots and pairings only. Nothing here keeps the games themselves, but for
//! those a bot's fault ended, which the end of a run lists one by one.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use anyhow::Context as _;
use uttt::result::EndReason;

use super::atomic::write_atomic;
use super::bundle;
use super::store::GameRow;
use ratings::{self, Analysis, Ending, FitOptions, GameResult, PairKey, Totals, Wdl};

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

/// A run's standings, kept as its games finish (see the module docs): the ratings
/// crate's [`Totals`], how each pairing's games ended, and the games in which a bot
/// could not start.
#[derive(Debug, Default)]
pub struct Scoreboard {
    totals: Totals,
    /// By bot, then opponent (the two names in order): how their games ended.
    endings: HashMap<String, HashMap<String, Endings>>,
    /// Games in which a bot could not be started or failed its handshake.
    start_failures: u64,
    /// The first of them: its id and what went wrong.
    first_start_failure: Option<(String, String)>,
    /// The games a bot's fault ended ([`bundle::is_failure`]), in order: the end
    /// of a run lists each (summary.json holds them all), so they are kept as
    /// they finish; they grow with the failures, not with the games.
    failed: Vec<GameRow>,
}

/// How often a pairing's games ended for each reason, by whose doing.
type Endings = BTreeMap<(EndReason, Culprit), u64>;

/// Whose doing the end of a game was, among the two bots of a pairing (the first
/// is the one whose name sorts first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Culprit {
    /// Decided on the board.
    Nobody,
    First,
    Second,
    /// A fault reason with no winner: both bots failed before the first move.
    Both,
}

/// Whose doing the end of a game was, in a pairing's tally of endings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndedBy<'a> {
    /// Decided on the board.
    Board,
    /// This bot's fault.
    Bot(&'a str),
    /// Both bots failed before the first move.
    Both,
}

impl Scoreboard {
    /// The standings of `rows`, counted in order.
    ///
    /// # Errors
    /// A row names the same bot twice (the reader refuses such rows).
    pub fn of<'a>(rows: impl IntoIterator<Item = &'a GameRow>) -> anyhow::Result<Scoreboard> {
        let mut board = Scoreboard::default();
        for row in rows {
            board.add(row)?;
        }
        Ok(board)
    }

    /// Counts one more finished game.
    ///
    /// # Errors
    /// The row names the same bot twice.
    pub fn add(&mut self, row: &GameRow) -> anyhow::Result<()> {
        self.totals.add(&to_result(row, 0)?);
        let (first, second) = if row.x < row.o {
            (&row.x, &row.o)
        } else {
            (&row.o, &row.x)
        };
        let culprit = match row.loser() {
            _ if row.reason.on_the_board() => Culprit::Nobody,
            None => Culprit::Both,
            Some(loser) if row.bot(loser) == first.as_str() => Culprit::First,
            Some(_) => Culprit::Second,
        };
        let opponents = match self.endings.get_mut(first.as_str()) {
            Some(opponents) => opponents,
            None => self.endings.entry(first.clone()).or_default(),
        };
        let endings = match opponents.get_mut(second.as_str()) {
            Some(endings) => endings,
            None => opponents.entry(second.clone()).or_default(),
        };
        *endings.entry((row.reason, culprit)).or_default() += 1;
        if row.reason == EndReason::HandshakeFailure {
            self.start_failures += 1;
            self.first_start_failure
                .get_or_insert_with(|| (row.id.clone(), row.detail.clone()));
        }
        if bundle::is_failure(row.reason) {
            self.failed.push(row.clone());
        }
        Ok(())
    }

    /// The counts the ratings start from.
    pub fn totals(&self) -> &Totals {
        &self.totals
    }

    /// Games counted.
    pub fn games(&self) -> u64 {
        self.totals.games()
    }

    /// Whether no game was counted.
    pub fn is_empty(&self) -> bool {
        self.totals.is_empty()
    }

    /// `bot`'s wins, draws and losses.
    pub fn score(&self, bot: &str) -> Wdl {
        self.totals.record(bot).map(|r| r.total).unwrap_or_default()
    }

    /// "mcts 7.5/8" for the bot with the most points so far (for the progress
    /// line): a look at each bot, whatever the number of games.
    pub fn leader(&self) -> String {
        let mut best: Option<(&str, Wdl)> = None;
        for name in self.totals.names() {
            let wdl = self.score(name);
            let better = match best {
                None => true,
                // Ties go to the name sorting last, as a scan in name order did.
                Some((held, top)) => match wdl.points().total_cmp(&top.points()) {
                    std::cmp::Ordering::Greater => true,
                    std::cmp::Ordering::Equal => name.as_str() > held,
                    std::cmp::Ordering::Less => false,
                },
            };
            if better {
                best = Some((name, wdl));
            }
        }
        best.map_or_else(
            || "-".to_string(),
            |(name, wdl)| format!("{name} {}/{}", wdl.points(), wdl.games()),
        )
    }

    /// How the games between `a` and `b` ended: each end reason with whose doing
    /// it was, and how often, by reason.
    pub fn endings<'a>(&self, a: &'a str, b: &'a str) -> Vec<(EndReason, EndedBy<'a>, u64)> {
        let (first, second) = if a < b { (a, b) } else { (b, a) };
        let Some(endings) = self.endings.get(first).and_then(|o| o.get(second)) else {
            return Vec::new();
        };
        endings
            .iter()
            .map(|(&(reason, culprit), &count)| {
                let by = match culprit {
                    Culprit::Nobody => EndedBy::Board,
                    Culprit::First => EndedBy::Bot(first),
                    Culprit::Second => EndedBy::Bot(second),
                    Culprit::Both => EndedBy::Both,
                };
                (reason, by, count)
            })
            .collect()
    }

    /// Games in which a bot could not be started or failed its handshake, with the
    /// id and the detail of the first.
    pub fn start_failures(&self) -> Option<(u64, &str, &str)> {
        let (id, detail) = self.first_start_failure.as_ref()?;
        Some((self.start_failures, id, detail))
    }

    /// The games a bot's fault ended, in the order they were counted.
    pub fn failed_games(&self) -> &[GameRow] {
        &self.failed
    }

    /// The ratings report of every game counted.
    ///
    /// # Errors
    /// The fit failed.
    pub fn analysis(&self, options: &FitOptions) -> anyhow::Result<Analysis> {
        Analysis::of(&self.totals, options).map_err(|e| anyhow::anyhow!("{e}"))
    }
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

/// How much of the ratings the terminal shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    /// The standings for everyone (games, points, each rating and its interval,
    /// the notes a reader can act on), then each pairing.
    Standings,
    /// Every statistic: the standings with the likelihood of superiority, the
    /// first player's edge and every note on the fit, then each pairing.
    Everything,
}

/// The terminal tables, fitted to `width` columns: the standings as `shown`,
/// then each pairing, and where the columns left out are (`every`: "… have
/// every column").
///
/// # Errors
/// Writing to stdout failed.
pub fn print_report(
    report: &Analysis,
    shown: Shown,
    every: &str,
    width: usize,
) -> anyhow::Result<()> {
    let mut text = Vec::new();
    text.push(b'\n');
    let mut left_out = match shown {
        Shown::Standings => {
            let shown = ratings::table::write_standings_brief(&mut text, report, width)?;
            ratings::table::write_plain_notes(&mut text, report, width)?;
            shown
        }
        Shown::Everything => ratings::table::write_standings_table(&mut text, report, width)?,
    };
    text.push(b'\n');
    left_out.extend(ratings::table::write_pairings_table(
        &mut text, report, width,
    )?);
    if let Some(line) = ratings::table::left_out_line(&left_out, width, every) {
        text.extend_from_slice(line.as_bytes());
        text.push(b'\n');
    }
    crate::say_raw!("{}", String::from_utf8_lossy(&text));
    Ok(())
}

/// Where the columns a narrow terminal leaves out are: "DIR/standings.csv and
/// DIR/crosstable.csv have every column".
pub fn every_column(dir: &Path) -> String {
    format!(
        "{} and {} have every column",
        dir.join("standings.csv").display(),
        dir.join("crosstable.csv").display()
    )
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
    use ratings::Decision;
    use uttt::rules::Mark;

    fn row(x: &str, o: &str, winner: Decision, reason: EndReason, pair: u32) -> GameRow {
        GameRow {
            id: format!("G{pair}{x}"),
            pair,
            reason,
            ..GameRow::sample(x, o, winner)
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
        let board = Scoreboard::of(&rows).unwrap();
        let a = board.score("a");
        assert_eq!((a.wins, a.draws, a.losses), (0, 1, 2));
        assert_eq!(a.points(), 0.5);
        assert_eq!(board.score("b").points(), 2.0);
        assert_eq!(board.score("c").points(), 0.5);
        assert_eq!(board.score("nobody").games(), 0);
        assert_eq!(board.leader(), "b 2/2");
        assert_eq!(Scoreboard::default().leader(), "-");
        // A tie goes to the name sorting last.
        let tied = Scoreboard::of(&rows[2..]).unwrap();
        assert_eq!(tied.leader(), "c 0.5/1");
    }

    #[test]
    fn a_scoreboard_says_how_each_pairings_games_ended_and_who_could_not_start() {
        let mut failed = row(
            "b",
            "a",
            Decision::Win(Mark::X),
            EndReason::HandshakeFailure,
            2,
        );
        failed.id = "G0004".into();
        failed.detail = "a exited".into();
        let rows = [
            row("a", "b", Decision::Win(Mark::O), EndReason::ThreeInARow, 1),
            row("b", "a", Decision::Win(Mark::X), EndReason::Timeout, 1),
            row("a", "b", Decision::Draw, EndReason::HandshakeFailure, 2),
            failed,
            row("a", "c", Decision::Draw, EndReason::NoMoves, 3),
        ];
        let board = Scoreboard::of(&rows).unwrap();
        let ab = board.endings("b", "a");
        assert_eq!(
            ab,
            [
                (EndReason::HandshakeFailure, EndedBy::Bot("a"), 1),
                (EndReason::HandshakeFailure, EndedBy::Both, 1),
                (EndReason::ThreeInARow, EndedBy::Board, 1),
                (EndReason::Timeout, EndedBy::Bot("a"), 1),
            ]
        );
        assert_eq!(board.endings("a", "nobody"), []);
        assert_eq!(board.start_failures(), Some((2, "G2a", "")));
        assert_eq!(Scoreboard::default().start_failures(), None);
        assert!(Scoreboard::of(&[row("a", "a", Decision::Draw, EndReason::NoMoves, 1)]).is_err());
    }
}
