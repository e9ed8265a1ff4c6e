//! The report page: one HTML document with its style, script and data inline.
//!
//! Everything a reader needs without a script is rendered here as HTML: the
//! standings with their Elo chart, the crosstable, the LOS matrix, the first
//! player's results, the end reasons, the game list and the configuration. The
//! script only adds what needs interaction: filtering the game list and the game
//! viewer, which draws the steps computed by [`crate::results::replay`] from the
//! embedded JSON and never decides a rule itself.
//!
//! A Content-Security-Policy allows no network access at all and runs only the
//! script carrying this page's random nonce, so even markup that slipped past the
//! escaping could neither load nor run anything.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;
use uttt::notation::board_name;
use uttt::result::{Decision, EndReason};
use uttt::rules::{BoardIndex, Cell, Mark, Square};

use super::chart::{EloBar, elo_chart, percent, readable_time, score_colour, signed};
use super::compact::{GameCode, Tables};
use super::escape::Html;
use super::league::{Context, Reader, levels_among};
use super::left_out::{Said, said};
use super::load::{Results, Tail};
use super::replayed::Replayed;
use crate::results::event::EventTable;
use crate::results::manifest::Manifest;
use crate::results::store::GameRow;
use ratings::table::{crosstable_rows, standings_rows};
use ratings::{Analysis, Wdl};

const STYLE: &str = include_str!("assets/report.css");
const SCRIPT: &str = include_str!("assets/report.js");
/// The drawing of a position, shared with the live page of `arena serve`.
pub const BOARD_SCRIPT: &str = include_str!("assets/board.js");
/// The game viewer, shared with the live page.
pub const VIEWER_SCRIPT: &str = include_str!("assets/viewer.js");
/// The report's style, shared with the live page.
pub const STYLE_SHEET: &str = STYLE;

/// What the page is made from.
#[derive(Debug)]
pub struct Inputs<'a> {
    /// The results directory, read.
    pub results: &'a Results,
    /// The ratings report, or why there is none.
    pub report: Result<Analysis, String>,
    /// The nonce of the page's one script.
    pub nonce: &'a str,
    /// Who reads it: the class (report.html), or the teacher.
    pub reader: Reader,
}

/// The game data the viewer draws, compact (see [`compact`]): the word tables,
/// the bots' names and the page's other texts each stored once, and per game its
/// row and its marks. The script builds a game's positions only when it is opened.
#[derive(Debug, Serialize)]
struct PageData<'a> {
    tables: Tables,
    bots: Vec<String>,
    /// Texts shared by many games: result lines, end reasons, rules.
    words: Vec<String>,
    /// By outcome (X won, O won, draw): the filter's name and the score shown.
    outcomes: [[&'static str; 2]; 3],
    /// Whether think times and info are embedded ([`compact::DETAILS_BUDGET`]).
    details: bool,
    games: Vec<GameCode<'a>>,
}

/// Distinct strings, each stored once (`list`, in order of first use).
#[derive(Debug, Default)]
pub struct Words {
    /// The strings.
    pub list: Vec<String>,
    index: HashMap<String, usize>,
}

impl Words {
    /// The index of `word`, added if new.
    pub fn id(&mut self, word: &str) -> usize {
        if let Some(&i) = self.index.get(word) {
            return i;
        }
        self.list.push(word.to_string());
        self.index.insert(word.to_string(), self.list.len() - 1);
        self.list.len() - 1
    }
}

/// The result line of a row: "X (mcts) wins: three boards in a row." or "Draw: …".
pub fn result_line(game: &GameRow) -> String {
    let detail = game.detail.trim_end_matches('.');
    match game.winner {
        Decision::Win(mark) => format!("{mark} ({}) wins: {detail}.", game.bot(mark)),
        Decision::Draw => format!("Draw: {detail}."),
    }
}

/// Game ids in schedule order: `G0002` before `G0010`, and `G9999` before `G10000`.
fn id_order(a: &GameRow, b: &GameRow) -> std::cmp::Ordering {
    (a.id.len(), &a.id).cmp(&(b.id.len(), &b.id))
}

/// The whole page.
///
/// # Errors
/// The game data cannot be serialized (not expected: it is all strings and numbers).
pub fn render(inputs: &Inputs<'_>) -> serde_json::Result<String> {
    let results = inputs.results;
    let mut games: Vec<&GameRow> = results.games.iter().collect();
    games.sort_by(|a, b| id_order(a, b));
    let replays: Vec<Cow<'_, Replayed>> = games
        .iter()
        .map(|g| match results.replays.get(&g.id) {
            Some(r) => Cow::Borrowed(r),
            None => Cow::Owned(Replayed::new(g, &[], results.details)),
        })
        .collect();

    let mut html = Html::new();
    html.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        .raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        .raw("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'nonce-")
        .text(inputs.nonce)
        .raw("'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'\">\n")
        .raw("<meta name=\"generator\" content=\"uttt-arena ")
        .text(env!("CARGO_PKG_VERSION"))
        .raw("\">\n<title>")
        .text(&title(results))
        .raw("</title>\n<style>\n")
        .raw(STYLE)
        .raw("</style>\n</head>\n<body>\n");
    html.append(header(results, games.len(), inputs.reader));
    html.raw("<main>\n");
    html.append(warnings(results, &replays, &games));
    let left_out = left_out_of(results.manifest.as_ref());
    let over = results
        .manifest
        .as_ref()
        .is_some_and(|m| m.finished_at.is_some());
    // A Swiss or knockout leads with its own ranking; the Elo fit is a second
    // view, not numbered (bots that never met are not ranked by it).
    if let Some(event) = &results.event {
        html.append(winner_banner(super::event::winner(event, over)));
        html.append(event_section(event, results.manifest.as_ref(), &left_out));
    }
    if let Some(league) = &results.league {
        let levels = levels_among(
            results
                .manifest
                .iter()
                .flat_map(|m| m.schedule.bots.iter().map(|b| b.name.as_str())),
        );
        let context = Context {
            levels: &levels,
            left_out: &left_out,
        };
        html.append(super::league::section(league, context, inputs.reader));
    }
    let round_robin = results
        .manifest
        .as_ref()
        .is_some_and(|m| m.schedule.format == "round-robin");
    let ranked = results.event.is_none();
    match &inputs.report {
        Ok(report) if !report.standings.bots().is_empty() => {
            if round_robin && over {
                let points: Vec<(String, f64)> = standings_rows(&report.standings)
                    .into_iter()
                    .map(|r| (r.bot, r.points))
                    .collect();
                html.append(winner_banner(super::event::points_winner(&points)));
            }
            let left_out = if results.event.is_none() && results.league.is_none() {
                left_out.as_slice()
            } else {
                &[]
            };
            html.append(standings_section(report, ranked, left_out));
            // The matrices take the page's width: side by side, ten bots'
            // columns would not fit a laptop's screen.
            html.append(crosstable_section(report));
            html.append(los_section(report));
            html.raw("<div class=\"pair\">\n");
            html.append(first_player_section(report));
            html.append(reasons_section(report));
            html.raw("</div>\n");
        }
        Ok(_) => {
            html.raw("<section id=\"standings\"><h2>Standings</h2><p>No finished games yet.</p></section>\n");
        }
        Err(why) => {
            html.raw("<section id=\"standings\"><h2>Standings</h2><p class=\"problem\">The ratings could not be computed: ")
                .text(why)
                .raw("</p></section>\n");
        }
    }
    if !results.failures.is_empty() {
        html.append(failures_section(&results.failures));
    }
    html.append(games_section(&games, &replays));
    html.append(config_section(results));
    html.raw("</main>\n<footer>Made by <code>arena report</code> ")
        .text(env!("CARGO_PKG_VERSION"))
        .raw(". This page is self-contained: it loads nothing from the network.</footer>\n");

    let data = page_data(results, &games, &replays, results.details);
    html.raw("<script type=\"application/json\" id=\"report-data\">")
        .json(&data)?
        .raw("</script>\n<script nonce=\"")
        .text(inputs.nonce)
        .raw("\">\n")
        .raw(BOARD_SCRIPT)
        .raw(VIEWER_SCRIPT)
        .raw(SCRIPT)
        .raw("</script>\n</body>\n</html>\n");
    Ok(html.into_string())
}

/// The games, compact, for the script.
fn page_data<'a>(
    results: &Results,
    games: &[&'a GameRow],
    replays: &'a [Cow<'_, Replayed>],
    details: bool,
) -> PageData<'a> {
    let mut words = Words::default();
    let mut bots = Words::default();
    let codes = games
        .iter()
        .zip(replays)
        .map(|(g, r)| GameCode {
            id: &g.id,
            bots: [bots.id(&g.x), bots.id(&g.o)],
            round: g.round,
            pair: g.pair,
            about: words.id(&rules_and_opening(g)),
            result: words.id(&result_line(g)),
            outcome: match g.winner {
                Decision::Win(Mark::X) => 0,
                Decision::Win(Mark::O) => 1,
                Decision::Draw => 2,
            },
            reason: words.id(g.reason.name()),
            detail: words.id(&g.detail),
            plies: g.plies,
            problem: r.problem.as_deref(),
            transcript: results.transcripts.get(&g.id).map(tail_text),
            play: &r.play,
        })
        .collect();
    let outcome = |d: Decision| [decision_name(d), score_of(d)];
    PageData {
        tables: Tables::new(),
        bots: bots.list,
        words: words.list,
        outcomes: [
            outcome(Decision::Win(Mark::X)),
            outcome(Decision::Win(Mark::O)),
            outcome(Decision::Draw),
        ],
        details,
        games: codes,
    }
}

/// `X`, `O` or `draw`, as games.csv and the list's filter name it.
fn decision_name(d: Decision) -> &'static str {
    match d {
        Decision::Win(Mark::X) => "X",
        Decision::Win(Mark::O) => "O",
        Decision::Draw => "draw",
    }
}

/// "Round 1 · pair 2 · standard rules · opening of 4 plies".
pub fn about(game: &GameRow) -> String {
    format!(
        "Round {} · pair {} · {}",
        game.round,
        game.pair,
        rules_and_opening(game)
    )
}

/// "standard rules · opening of 4 plies": the part of [`about`] many games share.
fn rules_and_opening(game: &GameRow) -> String {
    let mut text = format!("{} rules", game.rules);
    let opening = game.opening.len();
    if opening > 0 {
        text.push_str(&format!(" · opening of {opening} plies"));
    }
    text
}

fn tail_text(tail: &Tail) -> String {
    if tail.cut == 0 {
        tail.text.clone()
    } else {
        format!("[… {} bytes before this]\n{}", tail.cut, tail.text)
    }
}

fn title(results: &Results) -> String {
    match &results.manifest {
        Some(m) => format!("{} — uttt-arena report", m.name),
        None => "uttt-arena report".to_string(),
    }
}

fn header(results: &Results, games: usize, reader: Reader) -> Html {
    let mut html = Html::new();
    html.raw("<header class=\"top\">\n<h1>");
    match &results.manifest {
        Some(m) => {
            html.text(&m.name);
        }
        None => {
            html.raw("Results");
        }
    }
    html.raw(" <span class=\"sub\">uttt-arena report</span></h1>\n<p class=\"meta\">");
    let bots: BTreeSet<&str> = results
        .games
        .iter()
        .flat_map(|g| [g.x.as_str(), g.o.as_str()])
        .collect();
    let mut facts = vec![
        format!("{games} game{}", plural(games)),
        format!("{} bot{}", bots.len(), plural(bots.len())),
    ];
    if let Some(m) = &results.manifest {
        facts.push(format!("{} rules", m.schedule.rules));
        facts.push(format!("seed {}", m.schedule.seed));
        facts.push(match &m.finished_at {
            Some(end) => format!("{} to {}", readable_time(&m.started_at), readable_time(end)),
            None => format!("started {} (not finished)", readable_time(&m.started_at)),
        });
    }
    for (i, fact) in facts.iter().enumerate() {
        if i > 0 {
            html.raw(" · ");
        }
        html.text(fact);
    }
    html.raw("</p>\n<nav aria-label=\"Sections\">");
    if results.league.is_some() {
        html.raw("<a href=\"#league\">League</a>");
        if reader == Reader::Teacher {
            html.raw("<a href=\"#similarity\">Similarity</a>");
        }
    }
    html.raw("<a href=\"#standings\">Standings</a><a href=\"#crosstable\">Head to head</a><a href=\"#los\">LOS</a><a href=\"#first-player\">First player</a><a href=\"#reasons\">End reasons</a><a href=\"#games\">Games</a><a href=\"#config\">Configuration</a></nav>\n</header>\n");
    html
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn warnings(results: &Results, replays: &[Cow<'_, Replayed>], games: &[&GameRow]) -> Html {
    let mut list: Vec<String> = results.warnings.clone();
    let damaged = replays.iter().filter(|r| r.problem.is_some()).count();
    if damaged > 0 && results.has_moves {
        let first = replays
            .iter()
            .find_map(|r| r.problem.clone())
            .unwrap_or_default();
        list.push(format!(
            "{damaged} of {} games do not replay cleanly under the rules; the first: {first}",
            games.len()
        ));
    }
    let mut html = Html::new();
    if list.is_empty() {
        return html;
    }
    html.raw("<div class=\"warnings\" role=\"note\"><ul>");
    for w in &list {
        html.raw("<li>").text(w).raw("</li>");
    }
    html.raw("</ul></div>\n");
    html
}

/// The event's own ranking: a Swiss's table or a knockout's bracket (the one
/// drawing of [`super::event`], shared with the live page).
/// The bots the run left out, said for the class.
fn left_out_of(manifest: Option<&Manifest>) -> Vec<Said> {
    manifest
        .map(|m| m.left_out.iter().map(|l| said(&l.name, &l.why)).collect())
        .unwrap_or_default()
}

fn event_section(event: &EventTable, manifest: Option<&Manifest>, left_out: &[Said]) -> Html {
    let mut html = Html::new();
    let rounds = manifest.and_then(|m| rounds_of(&m.schedule.format, event));
    match event {
        EventTable::Swiss(_) => {
            html.raw("<section id=\"swiss\" class=\"event\">\n<h2>Swiss table</h2>\n<p class=\"hint\">The event's ranking: by points (a bye counts as won games), then Buchholz (the opponents' points), then Sonneborn–Berger (the opponents' points weighted by the points taken from them).</p>\n");
        }
        EventTable::Knockout(_) => {
            html.raw("<section id=\"knockout\" class=\"event\">\n<h2>Knockout bracket</h2>\n<p class=\"hint\">One column per round; the winner of each match goes through (a tie after the tie-break pairs: the higher seed).</p>\n");
        }
    }
    let beside = super::event::Beside {
        left_out,
        playing: &[],
    };
    html.append(super::event::drawing(event, rounds, beside));
    html.raw("</section>\n");
    html
}

/// The rounds of the event: a Swiss's from its format (`swiss:5`), a knockout's
/// from the bots of its first round.
pub fn rounds_of(format: &str, event: &EventTable) -> Option<u32> {
    if let Some(rounds) = format.strip_prefix("swiss:") {
        return rounds.parse().ok();
    }
    let EventTable::Knockout(rows) = event else {
        return None;
    };
    let first = rows.iter().filter(|r| r.round == 1);
    let bots: u32 = first
        .map(|r| if r.b.is_empty() { 1 } else { 2 })
        .sum::<u32>()
        .max(2);
    Some(bots.next_power_of_two().trailing_zeros())
}

/// The banner of a finished event: who won, and how.
fn winner_banner(winner: Option<super::event::Winner>) -> Html {
    let mut html = Html::new();
    if let Some(w) = winner {
        html.raw("<p class=\"winner-banner\" role=\"status\">Winner: <strong>")
            .text(&w.name)
            .raw("</strong> <span>")
            .text(&w.how)
            .raw("</span></p>\n");
    }
    html
}

fn wdl(w: &Wdl) -> String {
    format!("{}-{}-{}", w.wins, w.draws, w.losses)
}

/// The Elo table. `ranked`: whether its order is the event's ranking (a round
/// robin); in a Swiss or knockout it is not numbered and lists the bots by name,
/// since the fit is undetermined between bots that never met.
/// The bots the run left out are its last rows, with why.
fn standings_section(report: &Analysis, ranked: bool, left_out: &[Said]) -> Html {
    let standings = &report.standings;
    let confidence = standings.confidence().to_string();
    let mut rows = standings_rows(standings);
    if !ranked {
        rows.sort_by(|a, b| a.bot.cmp(&b.bot));
    }
    let grouped = standings.components().len() > 1;
    let mut html = Html::new();
    if ranked {
        html.raw("<section id=\"standings\">\n<h2>Standings</h2>\n<p class=\"hint\">Elo from one maximum-likelihood fit over all games; ± is half the ")
            .text(&confidence)
            .raw(" interval; LOS next is the likelihood that the bot is stronger than the one below it.</p>\n<div class=\"table-wrap\"><table class=\"numbers\" aria-label=\"Standings\">\n<thead><tr><th scope=\"col\">#</th><th scope=\"col\" class=\"name\">Bot</th>");
    } else {
        html.raw("<section id=\"standings\">\n<h2>Elo <span class=\"sub\">a second view, not the ranking</span></h2>\n<p class=\"hint\">Elo from one maximum-likelihood fit over the games played; ± is half the ")
            .text(&confidence)
            .raw(" interval. In a Swiss or a knockout the bots do not all meet, so the fit is undetermined between bots that never met: it is not a ranking, and the bots are listed by name. The event's ranking is above.</p>\n<div class=\"table-wrap\"><table class=\"numbers\" aria-label=\"Elo\">\n<thead><tr><th scope=\"col\" class=\"name\">Bot</th>");
    }
    if grouped {
        html.raw("<th scope=\"col\">Group</th>");
    }
    html.raw("<th scope=\"col\">Games</th><th scope=\"col\">W</th><th scope=\"col\">D</th><th scope=\"col\">L</th><th scope=\"col\">Score</th><th scope=\"col\">Elo</th><th scope=\"col\">±</th>");
    if ranked {
        html.raw("<th scope=\"col\">LOS next</th>");
    }
    html.raw("<th scope=\"col\">As X</th><th scope=\"col\">As O</th></tr></thead>\n<tbody>\n");
    for row in &rows {
        html.raw("<tr>");
        if ranked {
            html.raw("<td>").display(row.rank).raw("</td>");
        }
        html.raw("<th scope=\"row\" class=\"name\" title=\"")
            .text(&row.bot)
            .raw("\">")
            .text(&row.bot)
            .raw("</th>");
        if grouped {
            html.raw("<td>").display(row.group).raw("</td>");
        }
        html.raw("<td>")
            .display(row.games)
            .raw("</td><td>")
            .display(row.wins)
            .raw("</td><td>")
            .display(row.draws)
            .raw("</td><td>")
            .display(row.losses)
            .raw("</td><td style=\"background:")
            .text(&score_colour(row.score))
            .raw("\">")
            .text(&percent(row.score))
            .raw("</td><td><strong>")
            .text(&signed(row.elo, 1))
            .raw("</strong></td><td>")
            .text(&format!("{:.1}", row.elo_error))
            .raw("</td>");
        if ranked {
            html.raw("<td>")
                .text(&row.los_next.map_or(String::new(), percent))
                .raw("</td>");
        }
        html.raw("<td>")
            .text(&row.x_score.map_or("—".into(), percent))
            .raw("</td><td>")
            .text(&row.o_score.map_or("—".into(), percent))
            .raw("</td></tr>\n");
    }
    for said in left_out {
        // Every column after the name: the counts, score, Elo, ±, LOS, as X and O.
        let span = 9 + usize::from(grouped);
        if ranked {
            super::event::left_out_row(&mut html, said, span);
        } else {
            html.raw("<tr class=\"left-out\"><th scope=\"row\" class=\"name\">")
                .text(&said.name)
                .raw("</th><td class=\"why\" colspan=\"")
                .display(span - 1)
                .raw("\">");
            super::left_out::why_markup(&mut html, said);
            html.raw("</td></tr>\n");
        }
    }
    html.raw("</tbody></table></div>\n<figure class=\"chart\">\n");
    let bars: Vec<EloBar> = standings
        .bots()
        .iter()
        .map(|b| EloBar {
            name: b.name().to_string(),
            elo: b.rating.elo,
            low: b.rating.interval.low,
            high: b.rating.interval.high,
        })
        .collect();
    html.append(elo_chart(&bars, &confidence));
    html.raw("<figcaption>Elo (dot) and its ")
        .text(&confidence)
        .raw(" interval (bar).</figcaption>\n</figure>\n");
    if !standings.notes().is_empty() {
        html.raw("<ul class=\"notes\">");
        for note in standings.notes() {
            html.raw("<li>").display(note).raw("</li>");
        }
        html.raw("</ul>\n");
    }
    html.raw("</section>\n");
    html
}

/// In place of a matrix of every two bots, past
/// [`ratings::table::MATRIX_MAX_BOTS`]: its heading and where the numbers are.
fn matrix_left_out(id: &str, heading: &str, bots: usize, columns: &str) -> Html {
    let mut html = Html::new();
    html.raw("<section id=\"")
        .text(id)
        .raw("\">\n<h2>")
        .text(heading)
        .raw("</h2>\n<p class=\"hint\">")
        .display(bots)
        .raw(" bots: this table is drawn for at most ")
        .display(ratings::table::MATRIX_MAX_BOTS)
        .raw(" (it would have a cell for every two bots). Every pairing that played is a row of <code>crosstable.csv</code> (")
        .text(columns)
        .raw("), which <code>arena ratings games.csv --out DIR</code> writes.</p>\n</section>\n");
    html
}

fn crosstable_section(report: &Analysis) -> Html {
    let names: Vec<&str> = report.standings.bots().iter().map(|b| b.name()).collect();
    if names.len() > ratings::table::MATRIX_MAX_BOTS {
        return matrix_left_out(
            "crosstable",
            "Head to head",
            names.len(),
            "games, wins, draws, losses, score, elo, elo_error",
        );
    }
    let confidence = report.standings.confidence();
    let cells: BTreeMap<(String, String), _> = crosstable_rows(report)
        .into_iter()
        .map(|r| ((r.bot.clone(), r.opponent.clone()), r))
        .collect();
    let mut html = Html::new();
    html.raw("<section id=\"crosstable\">\n<h2>Head to head</h2>\n<p class=\"hint\">Score of the row bot against the column bot, with its wins-draws-losses: red below 50%, blue above. Hover for Elo ± (")
        .display(confidence)
        .raw(", from colour-swapped pairs).</p>\n<div class=\"table-wrap\"><table class=\"matrix\" aria-label=\"Head to head\">\n");
    matrix_head(&mut html, &names);
    for (i, row_bot) in names.iter().enumerate() {
        html.raw("<tr><th scope=\"row\" class=\"name\">")
            .display(i + 1)
            .raw(". ")
            .text(row_bot)
            .raw("</th>");
        for col_bot in &names {
            if row_bot == col_bot {
                html.raw("<td class=\"self\">—</td>");
                continue;
            }
            match cells.get(&(row_bot.to_string(), col_bot.to_string())) {
                None => {
                    html.raw("<td class=\"none\"></td>");
                }
                Some(c) => {
                    html.raw("<td style=\"background:")
                        .text(&score_colour(c.score))
                        .raw("\" title=\"")
                        .text(&format!(
                            "{row_bot} vs {col_bot}: {} games, Elo {} ± {}, LOS {}",
                            c.games,
                            signed(c.elo, 1),
                            c.elo_error.map_or("n/a".into(), |e| format!("{e:.1}")),
                            c.los.map_or("n/a".into(), percent)
                        ))
                        .raw("\"><span class=\"big\">")
                        .text(&percent(c.score))
                        .raw("</span><span class=\"small\">")
                        .text(&format!("{}-{}-{}", c.wins, c.draws, c.losses))
                        .raw("</span></td>");
                }
            }
        }
        html.raw("</tr>\n");
    }
    html.raw("</tbody></table></div>\n</section>\n");
    html
}

fn matrix_head(html: &mut Html, names: &[&str]) {
    html.raw("<thead><tr><th scope=\"col\" class=\"name\">Bot</th>");
    for (i, name) in names.iter().enumerate() {
        html.raw("<th scope=\"col\" title=\"")
            .text(name)
            .raw("\">")
            .display(i + 1)
            .raw("</th>");
    }
    html.raw("</tr></thead>\n<tbody>\n");
}

fn los_section(report: &Analysis) -> Html {
    let standings = &report.standings;
    let names: Vec<&str> = standings.bots().iter().map(|b| b.name()).collect();
    if names.len() > ratings::table::MATRIX_MAX_BOTS {
        return matrix_left_out(
            "los",
            "Likelihood of superiority",
            names.len(),
            "rating_los; each bot's over the next is the standings' LOS",
        );
    }
    let matrix = standings.los_matrix();
    let mut html = Html::new();
    html.raw("<section id=\"los\">\n<h2>Likelihood of superiority</h2>\n<p class=\"hint\">The probability that the row bot is stronger than the column bot, from the rating fit over all games. Blank: the two bots are not connected through games.</p>\n<div class=\"table-wrap\"><table class=\"matrix\" aria-label=\"Likelihood of superiority\">\n");
    matrix_head(&mut html, &names);
    for (i, row) in matrix.iter().enumerate() {
        html.raw("<tr><th scope=\"row\" class=\"name\">")
            .display(i + 1)
            .raw(". ")
            .text(names.get(i).copied().unwrap_or(""))
            .raw("</th>");
        for (j, cell) in row.iter().enumerate() {
            match cell {
                _ if i == j => {
                    html.raw("<td class=\"self\">—</td>");
                }
                None => {
                    html.raw("<td class=\"none\"></td>");
                }
                Some(los) => {
                    html.raw("<td style=\"background:")
                        .text(&score_colour(*los))
                        .raw("\">")
                        .text(&percent(*los))
                        .raw("</td>");
                }
            }
        }
        html.raw("</tr>\n");
    }
    html.raw("</tbody></table></div>\n</section>\n");
    html
}

fn first_player_section(report: &Analysis) -> Html {
    let fp = &report.first_player;
    let games = fp.x.games();
    let mut html = Html::new();
    html.raw("<section id=\"first-player\">\n<h2>First player</h2>\n");
    if games == 0 {
        html.raw("<p>No games.</p></section>\n");
        return html;
    }
    let share = |n: u64| n as f64 / games as f64;
    html.raw("<div class=\"fp-bar\" role=\"img\" aria-label=\"")
        .text(&format!(
            "X won {}, draws {}, O won {}",
            percent(share(fp.x.wins)),
            percent(share(fp.x.draws)),
            percent(share(fp.x.losses))
        ))
        .raw("\">");
    for (class, n, label) in [
        ("x", fp.x.wins, "X won"),
        ("d", fp.x.draws, "draws"),
        ("o", fp.x.losses, "O won"),
    ] {
        if n == 0 {
            continue;
        }
        html.raw("<span class=\"")
            .raw(class)
            .raw("\" style=\"flex-grow:")
            .display(n)
            .raw("\">")
            .text(&format!("{label} {n} ({})", percent(share(n))))
            .raw("</span>");
    }
    html.raw("</div>\n<p>X (moving first) scored <strong>")
        .text(&fp.x.score().map_or("—".into(), percent))
        .raw("</strong> over ")
        .display(games)
        .raw(" games");
    if let Some(h) = report.standings.x_advantage() {
        html.raw("; the rating fit puts the first move's worth at <strong>")
            .text(&signed(h.elo, 1))
            .raw(" ± ")
            .text(&format!("{:.1}", (h.interval.high - h.interval.low) / 2.0))
            .raw(" Elo</strong>");
    }
    html.raw(".</p>\n<div class=\"table-wrap\"><table class=\"numbers\">\n<thead><tr><th scope=\"col\" class=\"name\">Bot</th><th scope=\"col\">As X (W-D-L)</th><th scope=\"col\">Score as X</th><th scope=\"col\">As O (W-D-L)</th><th scope=\"col\">Score as O</th></tr></thead>\n<tbody>\n");
    for bot in report.standings.bots() {
        let r = &bot.record;
        html.raw("<tr><th scope=\"row\" class=\"name\">")
            .text(bot.name())
            .raw("</th><td>")
            .text(&wdl(&r.as_x))
            .raw("</td>");
        score_cell(&mut html, r.as_x.score());
        html.raw("<td>").text(&wdl(&r.as_o)).raw("</td>");
        score_cell(&mut html, r.as_o.score());
        html.raw("</tr>\n");
    }
    html.raw("</tbody></table></div>\n</section>\n");
    html
}

fn score_cell(html: &mut Html, score: Option<f64>) {
    match score {
        Some(s) => {
            html.raw("<td style=\"background:")
                .text(&score_colour(s))
                .raw("\">")
                .text(&percent(s))
                .raw("</td>");
        }
        None => {
            html.raw("<td>—</td>");
        }
    }
}

fn reasons_section(report: &Analysis) -> Html {
    let bots = report.standings.bots();
    let present: BTreeSet<EndReason> = bots
        .iter()
        .flat_map(|b| b.record.reasons.keys().copied())
        .collect();
    // The board's reasons first, in their usual order, then the faults alphabetically.
    let mut reasons: Vec<EndReason> = EndReason::ALL
        .into_iter()
        .filter(|r| r.on_the_board() && present.contains(r))
        .collect();
    reasons.extend(present.iter().filter(|r| !r.on_the_board()));
    let mut html = Html::new();
    html.raw("<section id=\"reasons\">\n<h2>How games ended</h2>\n<p class=\"hint\">Games of each bot by end reason; <span class=\"fault\">(n own)</span>: how many of them were the bot's own fault (timeouts, crashes, illegal moves…).</p>\n<div class=\"table-wrap\"><table class=\"numbers\" aria-label=\"End reasons\">\n<thead><tr><th scope=\"col\" class=\"name\">Bot</th>");
    for r in &reasons {
        html.raw("<th scope=\"col\">").text(r.name()).raw("</th>");
    }
    html.raw("<th scope=\"col\">Faults</th></tr></thead>\n<tbody>\n");
    for bot in bots {
        html.raw("<tr><th scope=\"row\" class=\"name\">")
            .text(bot.name())
            .raw("</th>");
        let mut faults = 0;
        for r in &reasons {
            match bot.record.reasons.get(r) {
                None => {
                    html.raw("<td class=\"zero\">0</td>");
                }
                Some(t) => {
                    faults += t.faults;
                    html.raw("<td>").display(t.games);
                    if t.faults > 0 {
                        html.raw(" <span class=\"fault\" title=\"")
                            .text(&format!("{} by {}", t.faults, bot.name()))
                            .raw("\">(")
                            .display(t.faults)
                            .raw(" own)</span>");
                    }
                    html.raw("</td>");
                }
            }
        }
        if faults > 0 {
            html.raw("<td class=\"fault\"><strong>")
                .display(faults)
                .raw("</strong></td>");
        } else {
            html.raw("<td class=\"zero\">0</td>");
        }
        html.raw("</tr>\n");
    }
    html.raw("</tbody></table></div>\n</section>\n");
    html
}

/// The most failed games the report lists (summary.json has them all).
const FAILURES_SHOWN: usize = 200;

/// The failed games: who, why, the bundle and the command that reproduces each.
fn failures_section(failures: &[crate::results::bundle::Failure]) -> Html {
    let mut html = Html::new();
    html.raw("<section id=\"failures\">\n<h2>Failures</h2>\n<p class=\"hint\">Games lost by a bot's fault. Each has a bundle (transcript, both bots' stderr of that game, seeds, position, exit, peak memory) under <code>failures/</code>; the command replays the game against the bot and shows what it answers now.</p>\n<div class=\"table-wrap\"><table aria-label=\"Failures\">\n<thead><tr><th scope=\"col\">Game</th><th scope=\"col\" class=\"name\">Bot</th><th scope=\"col\">Reason</th><th scope=\"col\">Detail</th><th scope=\"col\">Reproduce</th></tr></thead>\n<tbody>\n");
    for f in failures.iter().take(FAILURES_SHOWN) {
        html.raw("<tr><td>")
            .text(&f.game)
            .raw("</td><td class=\"name\">")
            .text(&f.bot)
            .raw("</td><td>")
            .text(&f.reason)
            .raw("</td><td>")
            .text(&f.detail)
            .raw("</td><td><code>")
            .text(&f.reproduce)
            .raw("</code></td></tr>\n");
    }
    html.raw("</tbody></table></div>\n");
    if failures.len() > FAILURES_SHOWN {
        html.raw("<p class=\"hint\">")
            .text(&format!(
                "… and {} more (summary.json lists them all).",
                failures.len() - FAILURES_SHOWN
            ))
            .raw("</p>\n");
    }
    html.raw("</section>\n");
    html
}

/// "1–0", "0–1" or "½–½".
fn score_text(game: &GameRow) -> &'static str {
    score_of(game.winner)
}

fn score_of(decision: Decision) -> &'static str {
    match decision {
        Decision::Win(Mark::X) => "1–0",
        Decision::Win(Mark::O) => "0–1",
        Decision::Draw => "½–½",
    }
}

/// Games listed per page: the page's HTML carries the first page (for readers
/// without JavaScript); the script lists the rest from the data, a page at a time.
const LIST_PAGE: usize = 100;

fn games_section(games: &[&GameRow], replays: &[Cow<'_, Replayed>]) -> Html {
    let bots: BTreeSet<&str> = games
        .iter()
        .flat_map(|g| [g.x.as_str(), g.o.as_str()])
        .collect();
    let reasons: BTreeSet<EndReason> = games.iter().map(|g| g.reason).collect();
    let mut html = Html::new();
    html.raw("<section id=\"games\">\n<h2>Games</h2>\n<div class=\"games-layout\">\n<div class=\"game-list\">\n<form class=\"filters needs-js\" id=\"filters\" aria-label=\"Filter games\">\n<label>Bot <select id=\"f-bot\"><option value=\"\">any</option>");
    for b in &bots {
        html.raw("<option value=\"")
            .text(b)
            .raw("\">")
            .text(b)
            .raw("</option>");
    }
    html.raw("</select></label>\n<label>Result <select id=\"f-result\"><option value=\"\">any</option><option value=\"win\">won by the bot</option><option value=\"loss\">lost by the bot</option><option value=\"X\">X won</option><option value=\"O\">O won</option><option value=\"draw\">draw</option></select></label>\n<label>Reason <select id=\"f-reason\"><option value=\"\">any</option>");
    for r in &reasons {
        html.raw("<option value=\"")
            .text(r.name())
            .raw("\">")
            .text(r.name())
            .raw("</option>");
    }
    html.raw("</select></label>\n<output id=\"f-count\" aria-live=\"polite\"></output>\n</form>\n<div class=\"list-scroll\"><table class=\"games\" id=\"game-table\">\n<thead><tr><th scope=\"col\">Game</th><th scope=\"col\">X</th><th scope=\"col\">O</th><th scope=\"col\">Result</th><th scope=\"col\">Reason</th><th scope=\"col\">Plies</th></tr></thead>\n<tbody>\n");
    for (g, r) in games.iter().zip(replays).take(LIST_PAGE) {
        html.raw("<tr data-id=\"")
            .text(&g.id)
            .raw("\" data-x=\"")
            .text(&g.x)
            .raw("\" data-o=\"")
            .text(&g.o)
            .raw("\" data-winner=\"")
            .display(g.winner)
            .raw("\" data-reason=\"")
            .text(g.reason.name())
            .raw("\"><td><a href=\"#")
            .text(&g.id)
            .raw("\">")
            .text(&g.id)
            .raw("</a>");
        if r.problem.is_some() {
            html.raw(" <span class=\"fault\" title=\"does not replay cleanly\">!</span>");
        }
        html.raw("</td><td class=\"")
            .raw(if g.winner == Decision::Win(Mark::X) {
                "winner"
            } else {
                ""
            })
            .raw("\">")
            .text(&g.x)
            .raw("</td><td class=\"")
            .raw(if g.winner == Decision::Win(Mark::O) {
                "winner"
            } else {
                ""
            })
            .raw("\">")
            .text(&g.o)
            .raw("</td><td>")
            .raw(score_text(g))
            .raw("</td><td title=\"")
            .text(&g.detail)
            .raw("\">")
            .text(g.reason.name())
            .raw("</td><td>")
            .display(g.plies)
            .raw("</td></tr>\n");
    }
    html.raw("</tbody></table></div>\n<div class=\"pager needs-js\" id=\"g-pager\" hidden><button type=\"button\" id=\"g-prev\">Previous</button> <span id=\"g-range\"></span> <button type=\"button\" id=\"g-next\">Next</button></div>\n");
    if games.len() > LIST_PAGE {
        html.raw("<noscript><p>The first ")
            .display(LIST_PAGE)
            .raw(" of ")
            .display(games.len())
            .raw(" games. With JavaScript the list shows them all, a page at a time; games.csv has every game.</p></noscript>\n");
    }
    html.raw("</div>\n");
    html.append(viewer());
    html.raw("</div>\n<noscript><p>The game viewer and the filters need JavaScript; the tables work without it.</p></noscript>\n</section>\n");
    html
}

/// The viewer's fixed markup: the nine boards with their 81 squares (named a1–i9
/// here, by the notation module), the narrative panel and the controls. The script
/// fills it in for each step.
pub fn viewer() -> Html {
    let mut html = Html::new();
    html.raw("<div class=\"viewer needs-js\" id=\"viewer\" tabindex=\"0\" aria-label=\"Game viewer: arrow keys step, Home and End jump\">\n")
        .raw("<div class=\"v-head\"><h3 id=\"v-title\">Game</h3><p id=\"v-players\" class=\"players\"></p><p id=\"v-about\" class=\"about\"></p></div>\n")
        .raw("<div class=\"v-board\"><div class=\"grid\" id=\"v-grid\">\n");
    for board in BoardIndex::ALL {
        board_markup(&mut html, board);
    }
    html.raw("</div></div>\n")
        .raw("<div class=\"v-focus\" id=\"v-focus\" aria-hidden=\"true\"><p class=\"focus-title\" id=\"v-focus-title\"></p><div class=\"focus-boards\" id=\"v-focus-boards\"></div></div>\n")
        .raw("<div class=\"v-side\">\n<p class=\"ply\">Ply <strong id=\"v-ply\">0</strong> of <span id=\"v-plies\">0</span></p>\n")
        .raw("<div class=\"narrative\" id=\"v-lines\" aria-live=\"polite\"></div>\n")
        .raw("<p class=\"caption\" id=\"v-caption\"></p>\n")
        .raw("<dl class=\"move-facts\"><dt>Bot</dt><dd id=\"v-bot\">—</dd><dt>Think time</dt><dd id=\"v-think\">—</dd><dt>Info</dt><dd id=\"v-info\">—</dd></dl>\n")
        .raw("<p class=\"result\" id=\"v-result\"></p>\n<p class=\"problem\" id=\"v-problem\" hidden></p>\n")
        .raw("<details id=\"v-transcript\" hidden><summary>Protocol transcript</summary><pre></pre></details>\n")
        .raw("<ul class=\"legend\"><li><span class=\"key gold\"></span>where the next mark goes</li><li><span class=\"key last\"></span>last move</li><li><span class=\"key drawn\"></span>drawn board</li></ul>\n</div>\n")
        .raw("<div class=\"controls\" id=\"v-controls\">")
        .raw("<button type=\"button\" id=\"v-first\" aria-label=\"First position (Home)\" title=\"First position (Home)\"><svg viewBox=\"0 0 16 16\" aria-hidden=\"true\"><path d=\"M2 2h2.5v12H2zM14 2v12L5.5 8z\"/></svg></button>")
        .raw("<button type=\"button\" id=\"v-prev\" aria-label=\"Previous move (left arrow)\" title=\"Previous move (left arrow)\"><svg viewBox=\"0 0 16 16\" aria-hidden=\"true\"><path d=\"M12 2v12L3.5 8z\"/></svg></button>")
        .raw("<button type=\"button\" id=\"v-play\" aria-label=\"Play\" title=\"Play\"><svg class=\"play\" viewBox=\"0 0 16 16\" aria-hidden=\"true\"><path d=\"M1.5 2v12L8 8zM8 2v12l6.5-6z\"/></svg><svg class=\"pause\" viewBox=\"0 0 16 16\" aria-hidden=\"true\"><path d=\"M3 2h3.5v12H3zM9.5 2H13v12H9.5z\"/></svg></button>")
        .raw("<button type=\"button\" id=\"v-next\" aria-label=\"Next move (right arrow)\" title=\"Next move (right arrow)\"><svg viewBox=\"0 0 16 16\" aria-hidden=\"true\"><path d=\"M4 2v12l8.5-6z\"/></svg></button>")
        .raw("<button type=\"button\" id=\"v-last\" aria-label=\"Last position (End)\" title=\"Last position (End)\"><svg viewBox=\"0 0 16 16\" aria-hidden=\"true\"><path d=\"M2 2v12l8.5-6zM11.5 2H14v12h-2.5z\"/></svg></button>")
        .raw("<input type=\"range\" id=\"v-slider\" min=\"0\" max=\"0\" value=\"0\" step=\"1\" aria-label=\"Ply\">")
        .raw("</div>\n</div>\n");
    html
}

/// One board of the viewer's grid: nine cells named by their squares (the markup
/// `board.js` draws into, on the report and on the live page).
pub fn board_markup(html: &mut Html, board: BoardIndex) {
    html.raw("<div class=\"board\" data-board=\"")
        .display(board.number())
        .raw("\" role=\"group\" aria-label=\"")
        .text(&board_name(board))
        .raw("\">");
    for cell in Cell::ALL {
        let square = Square::new(board, cell);
        html.raw("<div class=\"cell\" data-square=\"")
            .display(square)
            .raw("\"></div>");
    }
    html.raw("<div class=\"owner\" aria-hidden=\"true\"></div></div>\n");
}

fn config_section(results: &Results) -> Html {
    let mut html = Html::new();
    html.raw("<section id=\"config\">\n<h2>Configuration</h2>\n");
    match &results.manifest {
        None => {
            html.raw("<p>No tournament.json in the results directory.</p>\n");
        }
        Some(m) => {
            let s = &m.schedule;
            let facts: Vec<(&str, String)> = vec![
                ("Name", m.name.clone()),
                ("Seed", s.seed.to_string()),
                ("Rules", s.rules.clone()),
                ("Format", s.format.clone()),
                ("Games per pairing", s.games_per_pairing.to_string()),
                ("Openings", s.openings.clone()),
                (
                    "Games played",
                    format!("{} of {}", m.games_done, m.games_total),
                ),
                ("Concurrency", m.concurrency.to_string()),
                ("Processes", m.processes.to_string()),
                ("Shard", m.shard.clone().unwrap_or_else(|| "—".into())),
                ("Started", readable_time(&m.started_at)),
                (
                    "Finished",
                    m.finished_at
                        .as_deref()
                        .map_or_else(|| "—".into(), readable_time),
                ),
                ("Arena version", m.arena_version.clone()),
            ];
            html.raw("<dl class=\"facts\">");
            for (k, v) in &facts {
                html.raw("<dt>")
                    .text(k)
                    .raw("</dt><dd>")
                    .text(v)
                    .raw("</dd>");
            }
            html.raw("</dl>\n<div class=\"table-wrap\"><table class=\"text\" aria-label=\"Bots\">\n<thead><tr><th scope=\"col\" class=\"name\">Bot</th><th scope=\"col\">Command</th><th scope=\"col\">Protocol</th><th scope=\"col\">Time per move</th><th scope=\"col\">Failures</th></tr></thead>\n<tbody>\n");
            let ms = |v: Option<u64>| v.map_or("—".to_string(), |v| format!("{v} ms"));
            for bot in &s.bots {
                let mut time = ms(bot.move_ms);
                if let Some(first) = bot.first_move_ms {
                    time.push_str(&format!(" (first move {first} ms)"));
                }
                time.push_str(&format!(", margin {} ms", bot.margin_ms));
                if let Some(clock) = bot.clock_ms {
                    time.push_str(&format!("; clock {clock} ms + {}", ms(bot.increment_ms)));
                }
                let failures = m
                    .failures
                    .get(&bot.name)
                    .map(|f| {
                        f.iter()
                            .map(|(k, v)| format!("{k}: {v}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    })
                    .filter(|s| !s.is_empty())
                    .unwrap_or_else(|| "none".into());
                html.raw("<tr><th scope=\"row\" class=\"name\">")
                    .text(&bot.name)
                    .raw("</th><td><code>")
                    .text(&bot.command)
                    .raw("</code></td><td>")
                    .text(&bot.protocol)
                    .raw("</td><td>")
                    .text(&time)
                    .raw("</td><td>")
                    .text(&failures)
                    .raw("</td></tr>\n");
            }
            html.raw("</tbody></table></div>\n");
        }
    }
    if !results.logs.is_empty() {
        html.raw("<h3>Standard error of each bot</h3>\n<p class=\"hint\">The end of each bot's <code>logs/&lt;bot&gt;.stderr.log</code>, as the bot wrote it.</p>\n");
        for (bot, tail) in &results.logs {
            html.raw("<details class=\"log\"><summary>")
                .text(bot)
                .raw(" <span class=\"hint\">(")
                .text(&format!("{} bytes", tail.cut + tail.text.len()))
                .raw(")</span></summary><pre>")
                .text(&tail_text(tail))
                .raw("</pre></details>\n");
        }
    }
    html.raw("</section>\n");
    html
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::report::load::Tail;
    use crate::results::store::MoveRow;
    use ratings::FitOptions;
    use uttt::rules::{Position, Rules};

    const HOSTILE: &str = "</script><img src=x onerror=alert(1)><!-- & \"'";

    /// A finished game between `x` and `o`, always the first legal square, with
    /// the hostile text as every move's info.
    pub(crate) fn game(id: &str, x: &str, o: &str) -> (GameRow, Vec<MoveRow>) {
        let mut position = Position::new(Rules::STANDARD);
        let mut moves = Vec::new();
        while let Some(sq) = position.legal_moves().nth(0) {
            let mark = position.side_to_move();
            position = position.play(sq).unwrap();
            moves.push(MoveRow {
                game: id.into(),
                ply: moves.len() as u32 + 1,
                mark,
                bot: if mark == Mark::X { x.into() } else { o.into() },
                square: sq,
                board: sq.board().number(),
                cell: sq.cell().number(),
                free_move: false,
                think_ms: Some(0.5),
                depth: None,
                score: None,
                nodes: None,
                info: HOSTILE.into(),
                claimed: None,
                drawn: None,
                charged_ms: None,
                cpu_ms: None,
                wait_ms: None,
                late_ms: None,
            });
        }
        let outcome = position.status().outcome().unwrap();
        let row = GameRow {
            id: id.into(),
            round: 1,
            pair: 1,
            x: x.into(),
            o: o.into(),
            opening: Vec::new(),
            winner: Decision::from_winner(outcome.winner()),
            winner_name: String::new(),
            reason: EndReason::from(outcome),
            detail: format!("stderr said {HOSTILE}"),
            plies: moves.len() as u32,
            boards_x: 0,
            boards_o: 0,
            rules: Rules::STANDARD,
            duration_ms: 1,
            seed: 1,
            x_version: String::new(),
            o_version: String::new(),
            x_cpu_share: None,
            o_cpu_share: None,
        };
        (row, moves)
    }

    fn results() -> Results {
        let (a, a_moves) = game("G0001", HOSTILE, "plain");
        let (b, b_moves) = game("G0002", "plain", HOSTILE);
        let mut results = Results {
            has_moves: true,
            details: true,
            ..Results::default()
        };
        results
            .replays
            .insert("G0001".into(), Replayed::new(&a, &a_moves, true));
        results
            .replays
            .insert("G0002".into(), Replayed::new(&b, &b_moves, true));
        results.games = vec![a, b];
        let tail = Tail {
            text: format!("{HOSTILE}\n"),
            cut: 0,
        };
        results.logs.insert(HOSTILE.into(), tail.clone());
        results.transcripts.insert("G0001".into(), tail);
        results.warnings.push(format!("a warning naming {HOSTILE}"));
        results
    }

    fn page(results: &Results) -> String {
        let report = crate::results::standings::build(&results.games, &FitOptions::default())
            .map_err(|e| e.to_string());
        render(&Inputs {
            results,
            report,
            nonce: "abc123",
            reader: Reader::Class,
        })
        .unwrap()
    }

    fn data(html: &str) -> serde_json::Value {
        let start = html
            .find("<script type=\"application/json\" id=\"report-data\">")
            .unwrap();
        let body = &html[start..];
        let body = &body[body.find('>').unwrap() + 1..];
        serde_json::from_str(&body[..body.find("</script>").unwrap()]).unwrap()
    }

    #[test]
    fn bot_text_never_becomes_markup() {
        let html = page(&results());
        assert!(!html.contains(HOSTILE));
        assert!(!html.contains("<img"));
        assert!(!html.contains("<!--"));
        assert_eq!(html.matches("<script").count(), 2);
        assert_eq!(html.matches("</script>").count(), 2);
        assert!(html.contains("script-src 'nonce-abc123'"));
        assert!(html.contains("<script nonce=\"abc123\">"));
        // Shown as text: in the tables, the logs and the warnings, escaped.
        let escaped = crate::report::escape::escape(HOSTILE);
        assert!(html.matches(&escaped).count() >= 5, "{}", html.len());
        // And read back exactly by the script.
        let data = data(&html);
        let game = |k: usize| &data["games"][k];
        let bot = |v: &serde_json::Value| data["bots"][v.as_u64().unwrap() as usize].clone();
        let word = |v: &serde_json::Value| data["words"][v.as_u64().unwrap() as usize].clone();
        assert_eq!(bot(&game(0)[1]), HOSTILE);
        assert_eq!(bot(&game(1)[2]), HOSTILE);
        assert_eq!(game(0)[11][6]["i"]["1"], HOSTILE);
        assert_eq!(game(0)[13], format!("{HOSTILE}\n"));
        assert!(word(&game(0)[6]).as_str().unwrap().contains(HOSTILE));
    }

    #[test]
    fn every_game_is_its_row_and_one_symbol_per_mark() {
        let results = results();
        let data = data(&page(&results));
        let moves = &game("G0001", HOSTILE, "plain").1;
        let game = &data["games"][0];
        assert_eq!(game[0], "G0001");
        assert_eq!(game[10], moves.len());
        let play = &game[11];
        let alphabet = data["tables"]["alphabet"].as_str().unwrap();
        let squares: Vec<usize> = play[1]
            .as_str()
            .unwrap()
            .chars()
            .map(|c| alphabet.find(c).unwrap())
            .collect();
        let recorded: Vec<usize> = moves.iter().map(|m| m.square.index()).collect();
        assert_eq!(squares, recorded);
        // Finished: nothing in play, no caption; think times kept at this size.
        assert_eq!(play[4], "");
        assert_eq!(play[5], serde_json::Value::Null);
        assert_eq!(play[6]["t"].as_array().unwrap().len(), moves.len());
        assert_eq!(data["details"], true);
        assert_eq!(data["outcomes"][2], serde_json::json!(["draw", "½–½"]));
        // The positions themselves are checked against the engine in compact.rs.
    }

    #[test]
    fn a_page_without_moves_or_manifest_still_has_its_tables() {
        let mut results = results();
        results.replays.clear();
        results.has_moves = false;
        let html = page(&results);
        assert!(html.contains("id=\"standings\""));
        assert!(html.contains("id=\"crosstable\""));
        assert!(html.contains("No tournament.json"));
        let data = data(&html);
        assert_eq!(data["games"][0][11][1], "");
        assert!(data["games"][0][12].as_str().unwrap().contains("0 marks"));
    }
}
