//! The words at the end of `arena tournament`, in the order a room reads them,
//! fitted to the terminal's width: the event's own result first (a Swiss's
//! table, a knockout's bracket), then the standings with each rating and its
//! interval (a second view after an event's table), then one plain `Winner: …`
//! line, whatever the format. The statistician's detail — the likelihood of
//! superiority, the first player's edge, the notes on how the fit was made, each
//! pairing's Elo, nElo and pentanomial counts — comes with `--details` (never for
//! a class), and is always in crosstable.csv and the report.

use ratings::Analysis;

use crate::audience::Audience;
use crate::results::event::{EventTable as EventRows, KnockoutRow, SwissRow};
use crate::results::standings::Scoreboard;
use crate::terminal::width::wrap;
use crate::tournament::draw::EventTable;
use crate::tournament::format::Format;

/// What the end of a tournament shows.
#[derive(Debug)]
pub struct End<'a> {
    /// Who reads it.
    pub audience: Audience,
    /// The format.
    pub format: &'a Format,
    /// A Swiss's table or a knockout's bracket.
    pub event: Option<&'a EventTable>,
    /// The ratings of the games, if any were played.
    pub report: Option<&'a Analysis>,
    /// The finished games, counted.
    pub scoreboard: &'a Scoreboard,
    /// Whether every game was played (only then is there a winner).
    pub over: bool,
    /// `--quiet`: the same end without the pointer to `--details` (quiet is about
    /// what a run prints while it plays).
    pub quiet: bool,
    /// `--details`: every statistic, for an audience that is not a class.
    pub details: bool,
    /// The results directory, where crosstable.csv has every pairing.
    pub out: &'a std::path::Path,
}

/// Prints the end of a tournament.
///
/// # Errors
/// Printing failed.
pub fn print(end: &End<'_>) -> anyhow::Result<()> {
    let width = crate::terminal::width::columns();
    if let Some(event) = end.event {
        crate::say!("{}", event.text.trim_end());
    }
    let details = end.details && end.audience == Audience::Full;
    let every = crate::results::standings::every_column(end.out);
    let mut left_out = Vec::new();
    match end.report {
        None => crate::say!("No finished games yet."),
        Some(report) => {
            let mut text = Vec::new();
            text.push(b'\n');
            if end.event.is_some() {
                let heading = "Elo ratings over the event's games (not its ranking, which is the \
                               table above: bots that never met are not ordered by their own games):";
                text.extend_from_slice(wrap(heading, width, "").as_bytes());
                text.push(b'\n');
            }
            left_out = if details {
                ratings::table::write_standings_table(&mut text, report, width)?
            } else {
                let shown = ratings::table::write_standings_brief(&mut text, report, width)?;
                // A class reads no note on the fit, not even the plain ones.
                if end.audience == Audience::Full {
                    ratings::table::write_plain_notes(&mut text, report, width)?;
                }
                shown
            };
            crate::say_raw!("{}", String::from_utf8_lossy(&text));
        }
    }
    if end.over
        && let Some(line) = winner_line(end.format, end.event.map(|e| &e.table), end.scoreboard)
    {
        crate::say!("{}", wrap(&line, width, "  "));
    }
    if let Some(report) = end.report {
        let mut text = Vec::new();
        if details {
            text.push(b'\n');
            left_out.extend(ratings::table::write_pairings_table(
                &mut text, report, width,
            )?);
        }
        if let Some(line) = ratings::table::left_out_line(&left_out, width, &every) {
            text.extend_from_slice(line.as_bytes());
            text.push(b'\n');
        }
        if !details && !end.quiet && end.audience == Audience::Full {
            let more = format!(
                "Each pairing's Elo, LOS and pair counts, and how sure the ratings are: \
                 --details, or {}",
                end.out.join("crosstable.csv").display()
            );
            text.extend_from_slice(wrap(&more, width, "  ").as_bytes());
            text.push(b'\n');
        }
        crate::say_raw!("{}", String::from_utf8_lossy(&text));
    }
    Ok(())
}

/// `Winner: …` for a finished event: a Swiss's first place (its tie-breaks
/// said when they decided), a knockout's last bot standing, the most points
/// in a round robin (the best score in a gauntlet), ties named together.
/// `None` when nobody won (no games; a knockout whose final nobody reached).
pub fn winner_line(
    format: &Format,
    event: Option<&EventRows>,
    scoreboard: &Scoreboard,
) -> Option<String> {
    match event {
        Some(EventRows::Swiss(table)) => swiss_winner(table),
        Some(EventRows::Knockout(bracket)) => knockout_winner(bracket),
        None => most_points(format, scoreboard),
    }
}

/// The first of a Swiss's table.
fn swiss_winner(table: &[SwissRow]) -> Option<String> {
    let first = table.first()?;
    let level: Vec<&str> = table
        .iter()
        .skip(1)
        .filter(|r| r.points == first.points)
        .map(|r| r.bot.as_str())
        .collect();
    let points = points_text(first.points);
    Some(if level.is_empty() {
        format!("Winner: {} with {points}", first.bot)
    } else {
        format!(
            "Winner: {} with {points}, level with {} and ahead on the tie-breaks (Buchholz, then Sonneborn-Berger)",
            first.bot,
            level.join(", ")
        )
    })
}

/// The last bot standing in a knockout: the winner of its last round, when
/// that round is one match (or one bye) and decided.
fn knockout_winner(bracket: &[KnockoutRow]) -> Option<String> {
    let last = bracket.iter().map(|r| r.round).max()?;
    let final_rows: Vec<&KnockoutRow> = bracket.iter().filter(|r| r.round == last).collect();
    match final_rows.as_slice() {
        [only] if !only.winner.is_empty() => Some(format!("Winner: {}", only.winner)),
        _ => None,
    }
}

/// The most points (a round robin, where every bot plays as many games), or
/// the best score (a gauntlet, where the challenger plays more).
fn most_points(format: &Format, scoreboard: &Scoreboard) -> Option<String> {
    let mut names: Vec<&str> = scoreboard
        .totals()
        .names()
        .iter()
        .map(String::as_str)
        .collect();
    names.sort_unstable();
    let by_score = matches!(format, Format::Gauntlet { .. });
    let value = |name: &str| {
        let wdl = scoreboard.score(name);
        if by_score {
            wdl.points() / (wdl.games().max(1) as f64)
        } else {
            wdl.points()
        }
    };
    let best = names
        .iter()
        .map(|n| value(n))
        .fold(f64::NEG_INFINITY, f64::max);
    let first: Vec<&str> = names.iter().copied().filter(|n| value(n) == best).collect();
    let shown = if by_score {
        format!("{:.1}%", best * 100.0)
    } else {
        points_text(best)
    };
    match first.as_slice() {
        [] => None,
        [one] => Some(format!("Winner: {one} with {shown}")),
        [rest @ .., last] => Some(format!(
            "Winner: {} and {last}, level on {shown}",
            rest.join(", ")
        )),
    }
}

/// "3 points", "1 point", "2.5 points".
fn points_text(points: f64) -> String {
    if points == 1.0 {
        "1 point".into()
    } else {
        format!("{points} points")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uttt::result::Decision;
    use uttt::rules::Mark;

    use crate::results::store::GameRow;

    fn board(rows: &[GameRow]) -> Scoreboard {
        Scoreboard::of(rows).expect("distinct bots")
    }

    fn row(x: &str, o: &str, winner: Decision) -> GameRow {
        GameRow::sample(x, o, winner)
    }

    fn swiss(bot: &str, points: f64) -> SwissRow {
        SwissRow {
            rank: 0,
            bot: bot.into(),
            points,
            buchholz: 0.0,
            sonneborn_berger: 0.0,
            byes: 0,
        }
    }

    #[test]
    fn a_round_robin_is_won_on_points_and_a_tie_names_both() {
        let rows = [
            row("ada", "bob", Decision::Win(Mark::X)),
            row("bob", "cyd", Decision::Win(Mark::O)),
            row("cyd", "ada", Decision::Draw),
        ];
        assert_eq!(
            winner_line(&Format::RoundRobin, None, &board(&rows)).as_deref(),
            Some("Winner: ada and cyd, level on 1.5 points")
        );
        assert_eq!(
            winner_line(&Format::RoundRobin, None, &board(&rows[..1])).as_deref(),
            Some("Winner: ada with 1 point")
        );
        assert_eq!(winner_line(&Format::RoundRobin, None, &board(&[])), None);
    }

    #[test]
    fn a_swiss_is_won_by_its_first_place_and_says_when_the_tie_breaks_decided() {
        let table = EventRows::Swiss(vec![
            swiss("ada", 2.5),
            swiss("bob", 2.5),
            swiss("cyd", 1.0),
        ]);
        assert_eq!(
            winner_line(&Format::RoundRobin, Some(&table), &board(&[])).as_deref(),
            Some(
                "Winner: ada with 2.5 points, level with bob and ahead on the tie-breaks (Buchholz, then Sonneborn-Berger)"
            )
        );
    }

    #[test]
    fn a_knockout_is_won_by_the_last_bot_standing_once_the_final_is_decided() {
        let m = |round: u32, winner: &str| KnockoutRow {
            round,
            a: "ada".into(),
            b: "bob".into(),
            a_points: Some(1.0),
            b_points: Some(1.0),
            winner: winner.into(),
            decided_by: if winner.is_empty() { "" } else { "games" }.into(),
        };
        let over = EventRows::Knockout(vec![m(1, "ada"), m(1, "cyd"), m(2, "ada")]);
        assert_eq!(
            winner_line(&Format::RoundRobin, Some(&over), &board(&[])).as_deref(),
            Some("Winner: ada")
        );
        let open = EventRows::Knockout(vec![m(1, "ada"), m(1, "cyd"), m(2, "")]);
        assert_eq!(
            winner_line(&Format::RoundRobin, Some(&open), &board(&[])),
            None
        );
    }
}
