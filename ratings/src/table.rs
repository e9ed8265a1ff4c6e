//! What people read: terminal tables and CSV files, written to any `impl Write`.
//!
//! Every function here is pure formatting of a [`Analysis`]; the caller picks the
//! destination (stdout, a file, a buffer in a test).
//!
//! Order is stable: bots appear in standings order ([`Standings::bots`]: by group
//! then rating, ties by name), reasons alphabetically. Numbers in CSV files are plain
//! decimals with a `.` separator, rounded (Elo to 0.01, fractions to 0.0001); an
//! infinite Elo (a perfect score) is written `inf` or `-inf`; a value that does not
//! apply is an empty cell. Intervals use the report's confidence level (95% unless
//! the fit was asked for another).

use std::io::{self, Write};

use serde::Serialize;

use super::analysis::Analysis;
use super::bradley_terry::{Note, Standings};
use super::elo::Confidence;
use super::estimate::ScoreEstimate;
use super::model::EndReason;
use super::pentanomial::{PairOutcome, PairingStats};
use super::sprt::{EloModel, SprtConfig, SprtDecision, SprtStatus};

/// Columns a table left out to fit its width, by the names a sentence gives
/// them (`nElo ±`, `LOS`), in the table's order; empty when everything fitted.
pub type LeftOut = Vec<&'static str>;

/// Writes the standings for everyone: who is where, their games and points, and
/// each rating with its interval, within `width` columns ([`write_plain_notes`]
/// adds the notes a reader can act on).
///
/// ```text
/// Rank  Bot     Games   W  D   L  Points  Score     Elo      ±
///    1  mcts       40  30  6   4    33.0  82.5%  +201.3   61.2
///    2  greedy     40  14  10  16   19.0  47.5%   -23.9   48.0
/// ```
///
/// "±" is half the interval at the report's confidence level. With more than one
/// group of bots that never met, a "Group" column says which group each bot is
/// in. The likelihood of superiority, the first player's edge and the notes on
/// how the fit was made are [`write_standings_table`]'s.
///
/// # Errors
/// Only write errors.
pub fn write_standings_brief(
    out: &mut impl Write,
    report: &Analysis,
    width: usize,
) -> io::Result<LeftOut> {
    if report.standings.bots().is_empty() {
        writeln!(out, "No games yet.")?;
        return Ok(LeftOut::new());
    }
    let left_out = standings_text_table(report, false).write(out, width)?;
    let standings = &report.standings;
    writeln!(
        out,
        "{}",
        fold(
            &format!(
                "± is the {} interval; the ratings come from one fit over all games.",
                standings.confidence()
            ),
            width,
            "  "
        )
    )?;
    Ok(left_out)
}

/// Writes the notes on the standings anyone can act on (a bot that won or lost
/// everything, bots that never met: [`Note::is_plain`]), folded to `width`.
///
/// # Errors
/// Only write errors.
pub fn write_plain_notes(out: &mut impl Write, report: &Analysis, width: usize) -> io::Result<()> {
    let plain: Vec<Note> = report
        .standings
        .notes()
        .iter()
        .filter(|n| n.is_plain())
        .cloned()
        .collect();
    write_notes(out, &plain, width)
}

/// Writes the standings table with the likelihood that each bot is stronger than
/// the next ("LOS>next"), the first player's edge and every note on the fit,
/// within `width` columns:
///
/// ```text
/// Rank  Bot     Games   W  D   L  Points  Score     Elo      ±  LOS>next
///    1  mcts       40  30  6   4    33.0  82.5%  +201.3   61.2     99.4%
///    2  greedy     40  14  10  16   19.0  47.5%   -23.9   48.0     97.1%
/// ```
///
/// # Errors
/// Only write errors.
pub fn write_standings_table(
    out: &mut impl Write,
    report: &Analysis,
    width: usize,
) -> io::Result<LeftOut> {
    let standings = &report.standings;
    if standings.bots().is_empty() {
        writeln!(out, "No games yet.")?;
        return Ok(LeftOut::new());
    }
    let left_out = standings_text_table(report, true).write(out, width)?;
    writeln!(out)?;
    let mut first = String::new();
    if let Some(h) = standings.x_advantage() {
        first.push_str(&format!(
            "X advantage: {} ± {} Elo",
            signed(h.elo, 1),
            unsigned(confidence_half(h.interval.low, h.interval.high), 1)
        ));
    }
    let fp = &report.first_player;
    if let (Some(score), Some(xw), Some(ow), Some(dr)) = (
        fp.x.score(),
        fp.x_win_rate(),
        fp.o_win_rate(),
        fp.x.draw_ratio(),
    ) {
        first.push_str(&format!(
            "; X scored {} (X won {}, O won {}, draws {}) over {} games",
            percent(score),
            percent(xw),
            percent(ow),
            percent(dr),
            fp.x.games()
        ));
    }
    if !first.is_empty() {
        writeln!(out, "{}", fold(&first, width, "  "))?;
    }
    writeln!(
        out,
        "{}",
        fold(
            &format!(
                "Intervals at {} confidence; ratings from one maximum-likelihood fit over all games.",
                standings.confidence()
            ),
            width,
            "  "
        )
    )?;
    write_notes(out, standings.notes(), width)?;
    Ok(left_out)
}

/// The standings as a table, with the LOS column or without.
fn standings_text_table(report: &Analysis, los: bool) -> TextTable {
    let standings = &report.standings;
    let grouped = standings.components().len() > 1;
    let mut columns = vec![Column::number("Rank", 0), Column::name("Bot")];
    if grouped {
        columns.push(Column::number("Group", 0));
    }
    columns.extend([
        Column::number("Games", 3),
        Column::number("W", 4).called("W, D, L"),
        Column::number("D", 4).called("W, D, L"),
        Column::number("L", 4).called("W, D, L"),
        Column::number("Points", 0),
        Column::number("Score", 5),
        Column::number("Elo", 0),
        Column::number("±", 1),
    ]);
    if los {
        columns.push(Column::number("LOS>next", 6));
    }
    let mut table = TextTable::new(columns);
    for (i, bot) in standings.bots().iter().enumerate() {
        let t = &bot.record.total;
        let mut row = vec![format!("{}", i + 1), bot.name().to_owned()];
        if grouped {
            row.push(format!("{}", bot.component + 1));
        }
        row.extend([
            t.games().to_string(),
            t.wins.to_string(),
            t.draws.to_string(),
            t.losses.to_string(),
            format!("{}", t.points()),
            t.score().map_or_else(String::new, percent),
            signed(bot.rating.elo, 1),
            error_cell(confidence_half(
                bot.rating.interval.low,
                bot.rating.interval.high,
            )),
        ]);
        if los {
            row.push(standings.los(i, i + 1).map_or_else(String::new, percent));
        }
        table.row(row);
    }
    table
}

/// Writes each note on its own line, prefixed with `note: ` and folded to
/// `width`; nothing without notes.
///
/// # Errors
/// Only write errors.
pub fn write_notes(out: &mut impl Write, notes: &[Note], width: usize) -> io::Result<()> {
    for note in notes {
        writeln!(out, "{}", fold(&format!("note: {note}"), width, "  "))?;
    }
    Ok(())
}

/// What an undetermined value is written as in a table: too few games (every
/// pair ended alike, or the interval has no end). The legend under a table that
/// shows it says so in a sentence ([`TOO_FEW_LEGEND`]).
pub const TOO_FEW: &str = "too few";

/// The sentence under a table with a [`TOO_FEW`] cell.
pub const TOO_FEW_LEGEND: &str = "too few: not enough games to estimate it (every pair of games \
     ended alike, or its interval has no end yet)";

/// Writes one line per pairing, in standings order, from the better bot's side,
/// within `width` columns (the columns it left out are returned):
///
/// ```text
/// Bot   Opponent  Games   W  D  L  Score     Elo      ±    nElo     ±    LOS  Draws  Ptnml(0-2)
/// mcts  greedy       20  15  3  2  82.5%  +270.0  120.3  +180.2  85.1  99.9%  15.0%  [0, 1, 2, 4, 3]
/// ```
///
/// Elo ± and nElo ± come from pentanomial pair statistics, with unpaired games
/// counted singly ([`super::pentanomial`]); "Ptnml(0-2)" is the pair counts
/// `[LL, LD, WL+DD, WD, WW]` as fastchess prints them. A value the games cannot
/// determine is said in words: "won all", "lost all", [`TOO_FEW`] (explained
/// under the table), never an infinity.
///
/// # Errors
/// Only write errors.
pub fn write_pairings_table(
    out: &mut impl Write,
    report: &Analysis,
    width: usize,
) -> io::Result<LeftOut> {
    let confidence = report.standings.confidence();
    let mut table = TextTable::new(vec![
        Column::name("Bot"),
        Column::name("Opponent"),
        Column::number("Games", 3),
        Column::number("W", 4).called("W, D, L"),
        Column::number("D", 4).called("W, D, L"),
        Column::number("L", 4).called("W, D, L"),
        Column::number("Score", 0),
        Column::number("Elo", 0),
        Column::number("±", 1).called("Elo ±"),
        Column::number("nElo", 7).called("nElo ±"),
        Column::number("±", 7).called("nElo ±"),
        Column::number("LOS", 5),
        Column::number("Draws", 6),
        Column::text("Ptnml(0-2)", 8),
    ]);
    for stats in ordered_pairings(report, true) {
        let Some(est) = stats.estimate() else {
            continue;
        };
        let g = &stats.games;
        let p = stats.pentanomial.counts();
        table.row(vec![
            stats.a.clone(),
            stats.b.clone(),
            g.games().to_string(),
            g.wins.to_string(),
            g.draws.to_string(),
            g.losses.to_string(),
            percent(est.score()),
            elo_cell(est.elo()),
            spread(&est, error_cell(est.elo_error(confidence))),
            spread(&est, elo_cell(est.nelo())),
            error_cell(est.nelo_error(confidence)),
            spread(&est, percent(est.los())),
            g.draw_ratio().map_or_else(String::new, percent),
            format!("[{}, {}, {}, {}, {}]", p[0], p[1], p[2], p[3], p[4]),
        ]);
    }
    let left_out = table.write(out, width)?;
    if table.shows(TOO_FEW) {
        writeln!(out, "{}", fold(TOO_FEW_LEGEND, width, "  "))?;
    }
    Ok(left_out)
}

/// The sentence after tables that left columns out, or `None` when nothing was
/// left out: "Not shown at 80 columns: nElo ±, LOS (a wider terminal shows them;
/// {where_all})".
pub fn left_out_line(left_out: &[&str], width: usize, where_all: &str) -> Option<String> {
    let mut names: Vec<&str> = Vec::new();
    for name in left_out {
        if !names.contains(name) {
            names.push(name);
        }
    }
    if names.is_empty() {
        return None;
    }
    let them = if names.len() == 1 { "it" } else { "them" };
    Some(fold(
        &format!(
            "Not shown at {width} columns: {} (a wider terminal shows {them}; {where_all}).",
            names.join(", ")
        ),
        width,
        "  ",
    ))
}

/// The most bots a matrix of every two bots is shown for (the terminal's LOS
/// matrix, the report's head-to-head and LOS matrices): 100 bots make 10,000
/// cells, already more than anyone reads, and 5,000 bots would make 25,000,000.
/// Above it the tables say where each pairing that played is instead:
/// crosstable.csv, one row per pairing and side, with the games' own statistics
/// and the fit's `rating_diff` and `rating_los`.
pub const MATRIX_MAX_BOTS: usize = 100;

/// Writes the likelihood-of-superiority matrix: row bot stronger than column bot,
/// in percent; columns are numbered by rank. Pairs in different groups are blank.
/// With more than [`MATRIX_MAX_BOTS`] bots, a line saying so instead.
///
/// # Errors
/// Only write errors.
pub fn write_los_table(out: &mut impl Write, report: &Analysis) -> io::Result<()> {
    let standings = &report.standings;
    let n = standings.bots().len();
    if n > MATRIX_MAX_BOTS {
        return writeln!(
            out,
            "{n} bots: the matrix is shown for at most {MATRIX_MAX_BOTS}. The LOS of every two \
             bots that met is in crosstable.csv (rating_los), and each bot's over the next in \
             the standings (LOS>next)."
        );
    }
    let mut columns = vec![Column::number("Rank", 0), Column::name("Bot")];
    columns.extend((1..=n).map(|i| Column {
        header: i.to_string(),
        called: "",
        kind: Kind::Number,
        leave_out: 0,
    }));
    let mut table = TextTable::new(columns);
    for (i, bot) in standings.bots().iter().enumerate() {
        let mut row = vec![(i + 1).to_string(), bot.name().to_owned()];
        row.extend((0..n).map(|j| {
            if i == j {
                "-".to_owned()
            } else {
                standings
                    .los(i, j)
                    .map_or_else(String::new, |l| format!("{:.1}", l * 100.0))
            }
        }));
        table.row(row);
    }
    // A matrix is read by its rows and columns together: none is left out.
    table.write(out, usize::MAX).map(drop)
}

/// One line of SPRT progress, for a live display or a log:
///
/// ```text
/// LLR +1.23 [-2.94, +2.94] · H0 0 vs H1 5 nElo · Elo +8.7 ± 12.1 · nElo +20.3 ± 28.2 · LOS 92.1% · 120 pairs · continue
/// ```
///
/// The Elo figures come from the pentanomial counts ([`SprtStatus::estimate`]) and are
/// naive: they ignore the optional stopping (see there).
pub fn sprt_line(config: &SprtConfig, status: &SprtStatus, confidence: Confidence) -> String {
    let unit = match config.model() {
        EloModel::Logistic => "Elo",
        EloModel::Normalized => "nElo",
    };
    let mut line = format!(
        "LLR {} [{}, {}] · H0 {} vs H1 {} {unit}",
        signed(status.llr, 2),
        signed(status.bounds.lower, 2),
        signed(status.bounds.upper, 2),
        plain(config.elo0()),
        plain(config.elo1()),
    );
    if let Some(est) = &status.estimate {
        if est.elo().is_infinite() {
            line.push_str(&format!(
                " · Elo: too few games ({} so far)",
                if est.elo() > 0.0 {
                    "every game won"
                } else {
                    "every game lost"
                }
            ));
        } else {
            line.push_str(&format!(
                " · Elo {} ± {} · nElo {} ± {}",
                signed(est.elo(), 1),
                spread(est, error_cell(est.elo_error(confidence))),
                spread(est, elo_cell(est.nelo())),
                error_cell(est.nelo_error(confidence)),
            ));
        }
        line.push_str(&format!(
            " · LOS {} · {} pairs",
            spread(est, percent(est.los())),
            est.games() / 2,
        ));
    } else {
        line.push_str(" · no complete pair yet");
    }
    line.push_str(match status.decision {
        SprtDecision::AcceptH0 => " · H0 accepted",
        SprtDecision::AcceptH1 => " · H1 accepted",
        SprtDecision::Continue => " · continue",
    });
    line
}

/// A number as short as it can be written: `5`, `2.5`, `-1`.
fn plain(x: f64) -> String {
    format!("{}", round(x, 2))
}

/// The header of standings.csv: the fields of [`StandingsRow`], in order.
pub const STANDINGS_HEADER: [&str; 19] = [
    "rank",
    "bot",
    "group",
    "games",
    "wins",
    "draws",
    "losses",
    "points",
    "score",
    "elo",
    "elo_error",
    "elo_low",
    "elo_high",
    "los_next",
    "x_games",
    "x_score",
    "o_games",
    "o_score",
    "perfect",
];

/// One row of standings.csv: one bot, in standings order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StandingsRow {
    /// 1 for the top bot; positions in the table, across groups.
    pub rank: usize,
    /// The bot's name.
    #[serde(serialize_with = "crate::spreadsheet::serialize")]
    pub bot: String,
    /// The group of bots connected through games, 1 = largest. Ratings compare
    /// only within a group.
    pub group: usize,
    /// Games played.
    pub games: u64,
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
    /// Wins + draws/2.
    pub points: f64,
    /// Points per game, 0 to 1.
    pub score: f64,
    /// Rating in Elo from the global fit (mean 0 per group unless anchored).
    pub elo: f64,
    /// Half the width of the rating interval (the "±").
    pub elo_error: f64,
    /// Lower end of the rating interval.
    pub elo_low: f64,
    /// Upper end of the rating interval.
    pub elo_high: f64,
    /// Likelihood (0 to 1) that this bot is stronger than the next one; empty for the
    /// last bot of a group.
    pub los_next: Option<f64>,
    /// Games as X (moving first).
    pub x_games: u64,
    /// Points per game as X; empty without such games.
    pub x_score: Option<f64>,
    /// Games as O.
    pub o_games: u64,
    /// Points per game as O; empty without such games.
    pub o_score: Option<f64>,
    /// `won-all` or `lost-all` when the bot won or lost every game (its rating is
    /// then bounded only by the prior), otherwise empty.
    pub perfect: &'static str,
}

/// Builds the rows of standings.csv.
pub fn standings_rows(standings: &Standings) -> Vec<StandingsRow> {
    standings
        .bots()
        .iter()
        .enumerate()
        .map(|(i, bot)| {
            let r = &bot.record;
            let interval = bot.rating.interval;
            StandingsRow {
                rank: i + 1,
                bot: bot.name().to_owned(),
                group: bot.component + 1,
                games: r.total.games(),
                wins: r.total.wins,
                draws: r.total.draws,
                losses: r.total.losses,
                points: r.total.points(),
                score: round(r.total.score().unwrap_or(0.0), 4),
                elo: round(bot.rating.elo, 2),
                elo_error: round(confidence_half(interval.low, interval.high), 2),
                elo_low: round(interval.low, 2),
                elo_high: round(interval.high, 2),
                los_next: standings.los(i, i + 1).map(|l| round(l, 4)),
                x_games: r.as_x.games(),
                x_score: r.as_x.score().map(|s| round(s, 4)),
                o_games: r.as_o.games(),
                o_score: r.as_o.score().map(|s| round(s, 4)),
                perfect: if r.won_all() {
                    "won-all"
                } else if r.lost_all() {
                    "lost-all"
                } else {
                    ""
                },
            }
        })
        .collect()
}

/// Writes standings.csv: a header row, then [`StandingsRow`]s.
///
/// # Errors
/// Write errors.
pub fn write_standings_csv(out: impl Write, report: &Analysis) -> csv::Result<()> {
    write_csv(out, &STANDINGS_HEADER, &standings_rows(&report.standings))
}

/// The header of crosstable.csv: the fields of [`CrosstableRow`], in order.
pub const CROSSTABLE_HEADER: [&str; 24] = [
    "bot",
    "opponent",
    "games",
    "wins",
    "draws",
    "losses",
    "score",
    "elo",
    "elo_error",
    "elo_low",
    "elo_high",
    "nelo",
    "nelo_error",
    "los",
    "draw_ratio",
    "pairs",
    "ptnml_ll",
    "ptnml_ld",
    "ptnml_wl_dd",
    "ptnml_wd",
    "ptnml_ww",
    "unpaired_games",
    "rating_diff",
    "rating_los",
];

/// One row of crosstable.csv: the games of `bot` against `opponent`, seen by `bot`.
/// Every pairing that played appears twice, once from each side, so a pivot on
/// (`bot`, `opponent`) gives the square crosstable.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CrosstableRow {
    /// The bot whose results the row gives.
    #[serde(serialize_with = "crate::spreadsheet::serialize")]
    pub bot: String,
    /// Its opponent.
    #[serde(serialize_with = "crate::spreadsheet::serialize")]
    pub opponent: String,
    /// Games between them.
    pub games: u64,
    /// Games `bot` won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games `bot` lost.
    pub losses: u64,
    /// `bot`'s points per game, 0 to 1.
    pub score: f64,
    /// Elo difference implied by the score (`inf`/`-inf` for a perfect score).
    pub elo: f64,
    /// Half the width of its interval, from pentanomial pair statistics (unpaired
    /// games counted singly). Empty when the games show no spread at all with an
    /// uneven score (every pair alike): "too few games", not "exact" (the
    /// terminal's `n/a`).
    pub elo_error: Option<f64>,
    /// Lower end of the Elo interval (empty as `elo_error`).
    pub elo_low: Option<f64>,
    /// Upper end of the Elo interval (empty as `elo_error`).
    pub elo_high: Option<f64>,
    /// Normalized Elo: (score − ½)/per-game sd · 800/ln 10 (empty as `elo_error`).
    pub nelo: Option<f64>,
    /// Half the width of the nElo interval.
    pub nelo_error: f64,
    /// Likelihood (0 to 1) that `bot` is stronger, from these games alone (empty
    /// as `elo_error`).
    pub los: Option<f64>,
    /// Draws per game.
    pub draw_ratio: f64,
    /// Complete colour-swapped pairs.
    pub pairs: u64,
    /// Pairs `bot` lost twice.
    pub ptnml_ll: u64,
    /// Pairs with a loss and a draw.
    pub ptnml_ld: u64,
    /// Pairs with a win and a loss, or two draws.
    pub ptnml_wl_dd: u64,
    /// Pairs with a win and a draw.
    pub ptnml_wd: u64,
    /// Pairs `bot` won twice.
    pub ptnml_ww: u64,
    /// Games outside complete pairs.
    pub unpaired_games: u64,
    /// Rating difference `bot − opponent` from the global fit.
    pub rating_diff: Option<f64>,
    /// Likelihood that `bot` is stronger, from the global fit (all games).
    pub rating_los: Option<f64>,
}

/// Builds the rows of crosstable.csv: by `bot` in standings order, then `opponent`
/// in standings order.
pub fn crosstable_rows(report: &Analysis) -> Vec<CrosstableRow> {
    let standings = &report.standings;
    let confidence = standings.confidence();
    ordered_pairings(report, false)
        .into_iter()
        .filter_map(|stats| {
            let est: ScoreEstimate = stats.estimate()?;
            let interval = est.elo_interval(confidence);
            let (i, j) = (standings.position(&stats.a)?, standings.position(&stats.b)?);
            let p = &stats.pentanomial;
            let known = |x: f64| has_spread(&est).then_some(x);
            Some(CrosstableRow {
                games: stats.games.games(),
                wins: stats.games.wins,
                draws: stats.games.draws,
                losses: stats.games.losses,
                score: round(est.score(), 4),
                elo: round(est.elo(), 2),
                elo_error: known(round(est.elo_error(confidence), 2)),
                elo_low: known(round(interval.low, 2)),
                elo_high: known(round(interval.high, 2)),
                nelo: known(round(est.nelo(), 2)),
                nelo_error: round(est.nelo_error(confidence), 2),
                los: known(round(est.los(), 4)),
                draw_ratio: round(stats.games.draw_ratio().unwrap_or(0.0), 4),
                pairs: p.pairs(),
                ptnml_ll: p.count(PairOutcome::LossLoss),
                ptnml_ld: p.count(PairOutcome::LossDraw),
                ptnml_wl_dd: p.count(PairOutcome::Even),
                ptnml_wd: p.count(PairOutcome::WinDraw),
                ptnml_ww: p.count(PairOutcome::WinWin),
                unpaired_games: stats.unpaired.games(),
                rating_diff: standings.difference(i, j).map(|d| round(d.elo, 2)),
                rating_los: standings.los(i, j).map(|l| round(l, 4)),
                bot: stats.a,
                opponent: stats.b,
            })
        })
        .collect()
}

/// Writes crosstable.csv: a header row, then [`CrosstableRow`]s.
///
/// # Errors
/// Write errors.
pub fn write_crosstable_csv(out: impl Write, report: &Analysis) -> csv::Result<()> {
    write_csv(out, &CROSSTABLE_HEADER, &crosstable_rows(report))
}

/// The header of reasons.csv: the fields of [`ReasonRow`], in order.
pub const REASONS_HEADER: [&str; 4] = ["bot", "reason", "games", "faults"];

/// One row of reasons.csv: how often one end reason occurred in one bot's games.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReasonRow {
    /// The bot.
    #[serde(serialize_with = "crate::spreadsheet::serialize")]
    pub bot: String,
    /// The end reason as the store writes it, e.g. `three-in-a-row`, `timeout`.
    pub reason: EndReason,
    /// The bot's games that ended for this reason.
    pub games: u64,
    /// Of those, the games this bot forfeited (it was at fault).
    pub faults: u64,
}

/// Builds the rows of reasons.csv: bots in standings order, reasons alphabetically.
pub fn reason_rows(standings: &Standings) -> Vec<ReasonRow> {
    standings
        .bots()
        .iter()
        .flat_map(|bot| {
            bot.record.reasons.iter().map(|(reason, tally)| ReasonRow {
                bot: bot.name().to_owned(),
                reason: *reason,
                games: tally.games,
                faults: tally.faults,
            })
        })
        .collect()
}

/// Writes reasons.csv: a header row, then [`ReasonRow`]s.
///
/// # Errors
/// Write errors.
pub fn write_reasons_csv(out: impl Write, report: &Analysis) -> csv::Result<()> {
    write_csv(out, &REASONS_HEADER, &reason_rows(&report.standings))
}

/// Writes `header`, then `rows` (whose serde field order matches the header, as a
/// test checks), so even an empty file has its header row.
fn write_csv<R: Serialize>(out: impl Write, header: &[&str], rows: &[R]) -> csv::Result<()> {
    let mut writer = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(out);
    writer.write_record(header)?;
    for row in rows {
        writer.serialize(row)?;
    }
    writer.flush()?;
    Ok(())
}

/// Pairings in standings order. With `one_side`, each pairing once from the side of
/// the bot ranked higher; otherwise from both sides.
fn ordered_pairings(report: &Analysis, one_side: bool) -> Vec<PairingStats> {
    let standings = &report.standings;
    let rank = |name: &str| standings.position(name).unwrap_or(usize::MAX);
    let mut rows: Vec<PairingStats> = report
        .pairings
        .iter()
        .flat_map(|p| {
            let (ra, rb) = (rank(&p.a), rank(&p.b));
            match (one_side, ra <= rb) {
                (true, true) => vec![p.clone()],
                (true, false) => vec![p.flipped()],
                (false, _) => vec![p.clone(), p.flipped()],
            }
        })
        .collect();
    rows.sort_by_key(|p| (rank(&p.a), rank(&p.b)));
    rows
}

fn confidence_half(low: f64, high: f64) -> f64 {
    super::estimate::Interval { low, high }.half_width()
}

/// `x` rounded to `decimals` places, with no negative zero; infinities and NaN
/// unchanged.
fn round(x: f64, decimals: i32) -> f64 {
    if x.is_finite() {
        let scale = 10f64.powi(decimals);
        // Adding +0.0 turns −0.0 into 0.0 and leaves everything else alone.
        (x * scale).round() / scale + 0.0
    } else {
        x
    }
}

/// `+12.3`, `-4.0`, `+inf`, `-inf`; zero prints as `+0.0`.
fn signed(x: f64, decimals: usize) -> String {
    if x.is_infinite() {
        if x > 0.0 { "+inf" } else { "-inf" }.to_owned()
    } else {
        format!("{:+.decimals$}", round(x, decimals as i32))
    }
}

/// An Elo (or nElo) difference for a table: `+12.3`, or "won all" / "lost all"
/// for the infinity of a perfect score.
fn elo_cell(x: f64) -> String {
    if x.is_infinite() {
        if x > 0.0 { "won all" } else { "lost all" }.to_owned()
    } else {
        signed(x, 1)
    }
}

/// Half an interval for a table: `48.0`, or [`TOO_FEW`] when it has no end.
fn error_cell(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.1}")
    } else {
        TOO_FEW.to_owned()
    }
}

/// `text`, or [`TOO_FEW`] when the sample shows no spread at all (every pair
/// alike) with a score strictly between 0 and 1: a zero variance then says "too
/// few games", not "exact", and ± 0 or an infinite nElo would mislead.
fn spread(est: &ScoreEstimate, text: String) -> String {
    if has_spread(est) {
        text
    } else {
        TOO_FEW.to_owned()
    }
}

/// Whether the error bar, nElo and LOS of `est` mean something: not when the
/// sample shows no spread at all with a score strictly between 0 and 1 (then
/// they are [`TOO_FEW`] on the terminal and empty cells in CSV files).
pub fn has_spread(est: &ScoreEstimate) -> bool {
    let decided = est.score() <= 0.0 || est.score() >= 1.0;
    est.std_error() != 0.0 || decided
}

fn unsigned(x: f64, decimals: usize) -> String {
    if x.is_infinite() {
        "inf".to_owned()
    } else {
        format!("{x:.decimals$}")
    }
}

/// `0.923` as `92.3%`: the one way a share is written, here and in the HTML
/// report.
pub fn percent(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// `text` folded at spaces into lines of at most `width` characters, every line
/// after the first indented by `indent`. A word longer than a line (a path, a
/// command) keeps a line of its own, whole: cut, it could not be copied.
///
/// A plain greedy fold over spaces: the sentences folded are the program's own,
/// and a crate for Unicode line breaking would add to every build for them.
pub fn fold(text: &str, width: usize, indent: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    let mut length = 0;
    let mut has_word = false;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let size = word.chars().count();
        if has_word && length + 1 + size > width {
            lines.push(std::mem::take(&mut line));
            line.push_str(indent);
            length = indent.chars().count();
            has_word = false;
        }
        if has_word {
            line.push(' ');
            length += 1;
        }
        line.push_str(word);
        length += size;
        has_word = true;
    }
    lines.push(line);
    lines.join("\n")
}

/// A column of a [`TextTable`]: its header, how it is aligned, and when it gives
/// way to a narrow terminal.
#[derive(Clone, Debug)]
struct Column {
    header: String,
    /// What a sentence calls it when it is left out ("nElo ±" for the ± after
    /// nElo): columns of one name are left out together.
    called: &'static str,
    kind: Kind,
    /// 0: always shown; otherwise the columns with the highest number are left
    /// out first while the table is wider than the terminal.
    leave_out: u8,
}

/// How a column's cells are aligned, and whether they may be cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A bot's name: left-aligned, cut (ending in `…`) when nothing else can give
    /// way.
    Name,
    /// Right-aligned.
    Number,
    /// Left-aligned, never cut.
    Text,
}

impl Column {
    fn name(header: &'static str) -> Column {
        Column {
            header: header.to_owned(),
            called: header,
            kind: Kind::Name,
            leave_out: 0,
        }
    }

    fn number(header: &'static str, leave_out: u8) -> Column {
        Column {
            header: header.to_owned(),
            called: header,
            kind: Kind::Number,
            leave_out,
        }
    }

    fn text(header: &'static str, leave_out: u8) -> Column {
        Column {
            kind: Kind::Text,
            ..Column::number(header, leave_out)
        }
    }

    /// The same column, called `called` in the sentence that says it was left out.
    fn called(self, called: &'static str) -> Column {
        Column { called, ..self }
    }
}

/// The narrowest a name column is cut to.
const NARROWEST_NAME: usize = 8;

/// How far names are cut before the columns that are left out last (`leave_out`
/// 1) go: a name of 20 characters still says whose row it is.
const SHORT_NAME: usize = 20;

/// A text table: names left-aligned, numbers right-aligned, two spaces apart,
/// fitted to a width by leaving columns out and, last, cutting names.
struct TextTable {
    columns: Vec<Column>,
    rows: Vec<Vec<String>>,
}

impl TextTable {
    fn new(columns: Vec<Column>) -> TextTable {
        TextTable {
            columns,
            rows: Vec::new(),
        }
    }

    fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// Whether any cell reads `text`.
    fn shows(&self, text: &str) -> bool {
        self.rows.iter().flatten().any(|cell| cell == text)
    }

    /// The widest cell of column `c`, its header included.
    fn natural_width(&self, c: usize) -> usize {
        self.rows
            .iter()
            .map(|r| r.get(c).map_or(0, |s| s.chars().count()))
            .chain(std::iter::once(self.columns[c].header.chars().count()))
            .max()
            .unwrap_or(0)
    }

    /// Writes the table within `width` columns: while it is wider, the columns
    /// with the highest `leave_out` go (all of one number at once) down to 2,
    /// then names longer than [`SHORT_NAME`] are cut, then the columns of
    /// `leave_out` 1 go, and last the names are cut to no less than
    /// [`NARROWEST_NAME`]. Returns what was left out, in the table's order.
    fn write(&self, out: &mut impl Write, width: usize) -> io::Result<LeftOut> {
        let mut widths: Vec<usize> = (0..self.columns.len())
            .map(|c| self.natural_width(c))
            .collect();
        let mut shown: Vec<usize> = (0..self.columns.len()).collect();
        let total = |shown: &[usize], widths: &[usize]| {
            shown.iter().map(|&c| widths[c]).sum::<usize>() + 2 * shown.len().saturating_sub(1)
        };
        // Names are cut to `to` characters at most, as far as `excess` asks.
        let cut_names = |shown: &[usize], widths: &mut [usize], to: usize, mut excess: usize| {
            for &c in shown {
                if self.columns[c].kind == Kind::Name && excess > 0 {
                    let cut = excess.min(widths[c].saturating_sub(to));
                    widths[c] -= cut;
                    excess -= cut;
                }
            }
        };
        while total(&shown, &widths) > width {
            let excess = total(&shown, &widths) - width;
            let next = shown
                .iter()
                .map(|&c| self.columns[c].leave_out)
                .max()
                .unwrap_or(0);
            let long_names = shown
                .iter()
                .any(|&c| self.columns[c].kind == Kind::Name && widths[c] > SHORT_NAME);
            if next >= 2 {
                shown.retain(|&c| self.columns[c].leave_out != next);
            } else if long_names {
                cut_names(&shown, &mut widths, SHORT_NAME, excess);
            } else if next == 1 {
                shown.retain(|&c| self.columns[c].leave_out != next);
            } else {
                cut_names(&shown, &mut widths, NARROWEST_NAME, excess);
                break;
            }
        }
        let header: Vec<String> = self.columns.iter().map(|c| c.header.clone()).collect();
        for row in std::iter::once(&header).chain(&self.rows) {
            let mut line = String::new();
            for (i, &c) in shown.iter().enumerate() {
                let w = widths[c];
                let cell = row.get(c).map_or("", String::as_str);
                let cell: String = if cell.chars().count() > w {
                    cell.chars()
                        .take(w.saturating_sub(1))
                        .chain(['…'])
                        .collect()
                } else {
                    cell.to_owned()
                };
                let pad = w.saturating_sub(cell.chars().count());
                if i > 0 {
                    line.push_str("  ");
                }
                if self.columns[c].kind == Kind::Number {
                    line.extend(std::iter::repeat_n(' ', pad));
                    line.push_str(&cell);
                } else {
                    line.push_str(&cell);
                    line.extend(std::iter::repeat_n(' ', pad));
                }
            }
            writeln!(out, "{}", line.trim_end())?;
        }
        Ok((0..self.columns.len())
            .filter(|c| !shown.contains(c))
            .map(|c| self.columns[c].called)
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use uttt::rules::Mark;

    use super::super::bradley_terry::FitOptions;
    use super::super::model::fixtures::{draw, o_wins, x_wins};
    use super::super::model::{Ending, GameResult, PairKey};
    use super::*;

    /// Three bots, two colour-swapped pairs per pairing, one forfeit by timeout.
    fn games() -> Vec<GameResult> {
        let timeout = GameResult::new(
            "random",
            "mcts",
            Ending::Forfeit {
                loser: Mark::X,
                reason: crate::model::EndReason::Timeout,
            },
        )
        .unwrap();
        vec![
            x_wins("mcts", "greedy").with_pair(PairKey(0)),
            draw("greedy", "mcts").with_pair(PairKey(0)),
            x_wins("mcts", "greedy").with_pair(PairKey(1)),
            x_wins("greedy", "mcts").with_pair(PairKey(1)),
            x_wins("mcts", "random").with_pair(PairKey(0)),
            timeout.with_pair(PairKey(0)),
            draw("mcts", "random").with_pair(PairKey(1)),
            o_wins("random", "mcts").with_pair(PairKey(1)),
            x_wins("greedy", "random").with_pair(PairKey(0)),
            x_wins("random", "greedy").with_pair(PairKey(0)),
            o_wins("greedy", "random").with_pair(PairKey(1)),
            o_wins("random", "greedy").with_pair(PairKey(1)),
        ]
    }

    fn report(games: &[GameResult]) -> Analysis {
        Analysis::build(games, &FitOptions::default()).unwrap()
    }

    fn text(write: impl FnOnce(&mut Vec<u8>) -> io::Result<()>) -> String {
        let mut out = Vec::new();
        write(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn csv_text(write: impl FnOnce(&mut Vec<u8>) -> csv::Result<()>) -> String {
        let mut out = Vec::new();
        write(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn standings_table_shows_ranks_ratings_and_los() {
        let r = report(&games());
        let expected = "\
Rank  Bot     Games  W  D  L  Points  Score     Elo      ±  LOS>next
   1  mcts        8  5  2  1       6  75.0%  +133.2  191.3     84.9%
   2  greedy      8  3  1  4     3.5  43.8%   -33.5  173.4     66.8%
   3  random      8  2  1  5     2.5  31.2%   -99.8  182.4

X advantage: +72.2 ± 223.9 Elo; X scored 58.3% (X won 50.0%, O won 33.3%, draws 16.7%) \
over 12 games
Intervals at 95% confidence; ratings from one maximum-likelihood fit over all games.
";
        assert_eq!(
            text(|o| write_standings_table(o, &r, usize::MAX).map(drop)),
            expected
        );
    }

    #[test]
    fn standings_table_marks_groups_and_notes() {
        // Two groups that never met; c won both its games.
        let games = [
            x_wins("a", "b"),
            draw("b", "a"),
            x_wins("a", "b"),
            x_wins("b", "a"),
            x_wins("c", "d"),
            o_wins("d", "c"),
        ];
        let expected = "\
Rank  Bot  Group  Games  W  D  L  Points   Score     Elo      ±  LOS>next
   1  a        1      4  2  1  1     2.5   62.5%   +44.3  166.1     69.9%
   2  b        1      4  1  1  2     1.5   37.5%   -44.3  166.1
   3  c        2      2  2  0  0       2  100.0%  +163.2  270.6     88.1%
   4  d        2      2  0  0  2       0    0.0%  -163.2  270.6

X advantage: +195.5 ± 311.3 Elo; X scored 75.0% (X won 66.7%, O won 16.7%, draws 16.7%) \
over 6 games
Intervals at 95% confidence; ratings from one maximum-likelihood fit over all games.
note: not every bot is connected to every other through games: ratings are only comparable \
within a group: {a, b}, {c, d}
note: c won every game: its true rating may be much higher than shown
note: d lost every game: its true rating may be much lower than shown
note: no finite maximum-likelihood fit exists, so ratings include 1 virtual draw(s) per \
pairing (BayesElo-style prior)
";
        assert_eq!(
            text(|o| write_standings_table(o, &report(&games), usize::MAX).map(drop)),
            expected
        );
    }

    #[test]
    fn no_games_say_so() {
        let r = report(&[]);
        assert_eq!(
            text(|o| write_standings_table(o, &r, usize::MAX).map(drop)),
            "No games yet.\n"
        );
        assert_eq!(
            csv_text(|o| write_standings_csv(o, &r)),
            format!("{}\n", STANDINGS_HEADER.join(","))
        );
        assert_eq!(
            csv_text(|o| write_crosstable_csv(o, &r)),
            format!("{}\n", CROSSTABLE_HEADER.join(","))
        );
        assert_eq!(
            csv_text(|o| write_reasons_csv(o, &r)),
            "bot,reason,games,faults\n"
        );
    }

    #[test]
    fn pairings_table_from_the_better_side() {
        let r = report(&games());
        let expected = "\
Bot     Opponent  Games  W  D  L  Score     Elo        ±     nElo      ±      LOS  Draws  Ptnml(0-2)
mcts    greedy        4  2  1  1  62.5%   +88.7    136.3   +245.7  340.5    92.1%  25.0%  [0, 0, 1, 1, 0]
mcts    random        4  3  1  0  87.5%  +338.0  too few   +737.0  340.5   100.0%  25.0%  [0, 0, 0, 1, 1]
greedy  random        4  2  0  2  50.0%    +0.0  too few  too few  340.5  too few   0.0%  [0, 0, 2, 0, 0]
too few: not enough games to estimate it (every pair of games ended alike, or its interval has \
no end yet)
";
        assert_eq!(
            text(|o| write_pairings_table(o, &r, usize::MAX).map(drop)),
            expected
        );
    }

    #[test]
    fn los_table_is_a_matrix_in_rank_order() {
        let r = report(&games());
        let expected = "\
Rank  Bot        1     2     3
   1  mcts       -  84.9  91.6
   2  greedy  15.1     -  66.8
   3  random   8.4  33.2     -
";
        assert_eq!(text(|o| write_los_table(o, &r)), expected);
    }

    #[test]
    fn the_los_table_of_more_bots_than_a_matrix_shows_says_where_to_look() {
        // A ring of 101 bots, each meeting its neighbour in a colour-swapped pair.
        let n = MATRIX_MAX_BOTS + 1;
        let games: Vec<GameResult> = (0..n)
            .flat_map(|i| {
                let (a, b) = (format!("b{i:03}"), format!("b{:03}", (i + 1) % n));
                let key = PairKey(i as u64);
                [x_wins(&a, &b).with_pair(key), draw(&b, &a).with_pair(key)]
            })
            .collect();
        let r = report(&games);
        assert_eq!(
            text(|o| write_los_table(o, &r)),
            "101 bots: the matrix is shown for at most 100. The LOS of every two bots that \
             met is in crosstable.csv (rating_los), and each bot's over the next in the \
             standings (LOS>next).\n"
        );
    }

    #[test]
    fn standings_csv_rows() {
        let r = report(&games());
        let expected = "\
rank,bot,group,games,wins,draws,losses,points,score,elo,elo_error,elo_low,elo_high,los_next,\
x_games,x_score,o_games,o_score,perfect
1,mcts,1,8,5,2,1,6.0,0.75,133.24,191.32,-58.08,324.56,0.8491,4,0.875,4,0.625,
2,greedy,1,8,3,1,4,3.5,0.4375,-33.46,173.42,-206.88,139.96,0.6675,4,0.625,4,0.25,
3,random,1,8,2,1,5,2.5,0.3125,-99.78,182.36,-282.14,82.58,,4,0.25,4,0.375,
";
        assert_eq!(csv_text(|o| write_standings_csv(o, &r)), expected);
    }

    #[test]
    fn crosstable_csv_rows_come_from_both_sides() {
        let r = report(&games());
        let got = csv_text(|o| write_crosstable_csv(o, &r));
        let lines: Vec<&str> = got.lines().collect();
        assert_eq!(lines[0], CROSSTABLE_HEADER.join(","));
        assert_eq!(
            lines[1],
            "mcts,greedy,4,2,1,1,0.625,88.74,136.27,-33.62,238.92,245.67,340.48,0.9214,0.25,\
             2,0,0,1,1,0,0,166.7,0.8491"
        );
        // A perfect pair score has an infinite upper bound.
        assert_eq!(
            lines[2],
            "mcts,random,4,3,1,0,0.875,338.04,inf,148.65,inf,737.02,340.48,1.0,0.25,\
             2,0,0,0,1,1,0,233.02,0.9161"
        );
        // No negative zero for an even score; every pair alike (no spread) leaves
        // the error bar, its ends, nElo and LOS empty, as the terminal's "n/a",
        // never a falsely exact 0.0 ± 0.0 and LOS 0.5.
        assert_eq!(
            lines[4],
            "greedy,random,4,2,0,2,0.5,0.0,,,,,340.48,,0.0,2,0,0,2,0,0,0,66.32,0.6675"
        );
        let order: Vec<(&str, &str)> = lines[1..]
            .iter()
            .map(|l| {
                let mut f = l.split(',');
                (f.next().unwrap(), f.next().unwrap())
            })
            .collect();
        assert_eq!(
            order,
            [
                ("mcts", "greedy"),
                ("mcts", "random"),
                ("greedy", "mcts"),
                ("greedy", "random"),
                ("random", "mcts"),
                ("random", "greedy")
            ]
        );
    }

    #[test]
    fn reasons_csv_counts_faults_per_bot() {
        let r = report(&games());
        let expected = "\
bot,reason,games,faults
mcts,no-moves,2,0
mcts,three-in-a-row,5,0
mcts,timeout,1,0
greedy,no-moves,1,0
greedy,three-in-a-row,7,0
random,no-moves,1,0
random,three-in-a-row,6,0
random,timeout,1,1
";
        assert_eq!(csv_text(|o| write_reasons_csv(o, &r)), expected);
    }

    #[test]
    fn the_header_constants_match_the_row_fields() {
        fn serde_header<R: Serialize>(row: &R) -> String {
            let mut w = csv::Writer::from_writer(Vec::new());
            w.serialize(row).unwrap();
            let bytes = w.into_inner().unwrap();
            String::from_utf8(bytes)
                .unwrap()
                .lines()
                .next()
                .unwrap()
                .to_owned()
        }
        let r = report(&games());
        assert_eq!(
            serde_header(&standings_rows(&r.standings)[0]),
            STANDINGS_HEADER.join(",")
        );
        assert_eq!(
            serde_header(&crosstable_rows(&r)[0]),
            CROSSTABLE_HEADER.join(",")
        );
        assert_eq!(
            serde_header(&reason_rows(&r.standings)[0]),
            REASONS_HEADER.join(",")
        );
    }

    #[test]
    fn a_narrow_terminal_leaves_out_the_least_needed_columns_first_and_says_which() {
        let r = report(&games());
        let mut out = Vec::new();
        let left_out = write_pairings_table(&mut out, &r, 80).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(left_out, ["nElo ±", "nElo ±", "Ptnml(0-2)"]);
        assert_eq!(
            text,
            "\
Bot     Opponent  Games  W  D  L  Score     Elo        ±      LOS  Draws
mcts    greedy        4  2  1  1  62.5%   +88.7    136.3    92.1%  25.0%
mcts    random        4  3  1  0  87.5%  +338.0  too few   100.0%  25.0%
greedy  random        4  2  0  2  50.0%    +0.0  too few  too few   0.0%
too few: not enough games to estimate it (every pair of games ended alike, or
  its interval has no end yet)
"
        );
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        assert_eq!(
            left_out_line(&left_out, 80, "crosstable.csv has them all").as_deref(),
            Some(
                "Not shown at 80 columns: nElo ±, Ptnml(0-2) (a wider terminal shows them;\n  \
                 crosstable.csv has them all)."
            )
        );
        assert_eq!(left_out_line(&[], 80, "anywhere"), None);
        // Narrower, the draws and LOS go too; wide enough, nothing is left out.
        let mut narrow = Vec::new();
        let left_out = write_pairings_table(&mut narrow, &r, 60).unwrap();
        assert_eq!(left_out, ["nElo ±", "nElo ±", "LOS", "Draws", "Ptnml(0-2)"]);
        let narrow = String::from_utf8(narrow).unwrap();
        assert!(narrow.lines().all(|l| l.chars().count() <= 60), "{narrow}");
        let mut wide = Vec::new();
        assert!(write_pairings_table(&mut wide, &r, 120).unwrap().is_empty());
    }

    #[test]
    fn names_are_cut_last_and_marked_with_an_ellipsis() {
        let long = "a-bot-whose-name-is-far-too-long-for-any-terminal-at-all";
        let games = [
            x_wins(long, "greedy").with_pair(PairKey(0)),
            draw("greedy", long).with_pair(PairKey(0)),
        ];
        let r = report(&games);
        let mut out = Vec::new();
        let left_out = write_standings_brief(&mut out, &r, 60).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            left_out,
            ["Games", "W, D, L", "W, D, L", "W, D, L", "Score"]
        );
        assert!(text.lines().all(|l| l.chars().count() <= 60), "{text}");
        assert!(
            text.contains("   1  a-bot-whose-name-is-far-too-lon…     1.5"),
            "{text}"
        );
    }

    #[test]
    fn the_brief_standings_keep_the_notes_a_reader_can_act_on_and_no_statistics() {
        // c won both its games (a plain note) and no finite fit exists (a prior,
        // which only the full table mentions).
        let games = [
            x_wins("a", "b"),
            draw("b", "a"),
            x_wins("a", "b"),
            x_wins("b", "a"),
            x_wins("c", "d"),
            o_wins("d", "c"),
        ];
        let r = report(&games);
        let brief = text(|o| {
            write_standings_brief(o, &r, 80)?;
            write_plain_notes(o, &r, 80)
        });
        assert_eq!(
            brief,
            "\
Rank  Bot  Group  Games  W  D  L  Points   Score     Elo      ±
   1  a        1      4  2  1  1     2.5   62.5%   +44.3  166.1
   2  b        1      4  1  1  2     1.5   37.5%   -44.3  166.1
   3  c        2      2  2  0  0       2  100.0%  +163.2  270.6
   4  d        2      2  0  0  2       0    0.0%  -163.2  270.6
± is the 95% interval; the ratings come from one fit over all games.
note: not every bot is connected to every other through games: ratings are only
  comparable within a group: {a, b}, {c, d}
note: c won every game: its true rating may be much higher than shown
note: d lost every game: its true rating may be much lower than shown
"
        );
        let full = text(|o| write_standings_table(o, &r, 80).map(drop));
        assert!(full.contains("BayesElo"), "{full}");
        assert!(full.contains("LOS>next"), "{full}");
        assert!(full.lines().all(|l| l.chars().count() <= 80), "{full}");
    }

    #[test]
    fn a_sentence_is_folded_at_spaces_with_a_hanging_indent_and_long_words_kept_whole() {
        let text = "Machine: bots waited for a CPU 58% of their move time; 0 moves charged more";
        let folded = fold(text, 30, "  ");
        assert_eq!(
            folded,
            "Machine: bots waited for a CPU\n  58% of their move time; 0\n  moves charged more"
        );
        assert!(folded.lines().all(|l| l.chars().count() <= 30));
        assert_eq!(fold("short", 30, "  "), "short");
        assert_eq!(
            fold("see /a/very/long/path/that/cannot/be/cut here", 12, "  "),
            "see\n  /a/very/long/path/that/cannot/be/cut\n  here"
        );
        assert_eq!(fold("", 10, "  "), "");
    }

    #[test]
    fn sprt_line_shows_llr_bounds_estimate_and_decision() {
        use super::super::pentanomial::Pentanomial;
        let config = SprtConfig::new(0.0, 5.0, 0.05, 0.05, EloModel::Normalized).unwrap();
        // The hand-computed pentanomial case of pentanomial.rs: Elo +52.51 ± 102.18,
        // nElo +81.89 ± 1.959964/√20·347.4356 = 152.27, LOS 85.4%.
        let pairs = Pentanomial::new([0, 2, 4, 3, 1]);
        let status = config.status(&pairs);
        let line = sprt_line(&config, &status, Confidence::P95);
        let llr = format!("{:+.2}", status.llr);
        assert_eq!(
            line,
            format!(
                "LLR {llr} [-2.94, +2.94] · H0 0 vs H1 5 nElo · Elo +52.5 ± 102.2 · \
                 nElo +81.9 ± 152.3 · LOS 85.4% · 10 pairs · continue"
            )
        );
        let empty = config.status(&Pentanomial::default());
        assert_eq!(
            sprt_line(&config, &empty, Confidence::P95),
            "LLR +0.00 [-2.94, +2.94] · H0 0 vs H1 5 nElo · no complete pair yet · continue"
        );
        let logistic = SprtConfig::new(-1.5, 2.5, 0.05, 0.05, EloModel::Logistic).unwrap();
        let decided = logistic.status(&Pentanomial::new([60, 250, 400, 150, 20]));
        assert!(sprt_line(&logistic, &decided, Confidence::P95).starts_with("LLR -"));
        assert!(sprt_line(&logistic, &decided, Confidence::P95).contains("H0 -1.5 vs H1 2.5 Elo"));
        assert!(sprt_line(&logistic, &decided, Confidence::P95).ends_with(" · H0 accepted"));
    }
}
