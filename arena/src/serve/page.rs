//! The live page's HTML: the report's header, sections and board markup, filled in
//! by `live.js` from the server's events. Only the run's name is written here, and
//! escaped; everything else a bot controls reaches the page as JSON and is set with
//! `textContent`.

use uttt::rules::BoardIndex;

use super::snapshot::RunLine;
use crate::report::compact::Tables;
use crate::report::escape::Html;
use crate::report::page::{BOARD_SCRIPT, STYLE_SHEET, VIEWER_SCRIPT, board_markup, viewer};

/// The report's drawing of a position.
pub const BOARD_JS: &str = BOARD_SCRIPT;
/// The report's game viewer.
pub const VIEWER_JS: &str = VIEWER_SCRIPT;
/// The report's style.
pub const REPORT_CSS: &str = STYLE_SHEET;
/// The live page's script.
pub const LIVE_JS: &str = include_str!("assets/live.js");
/// Projector mode's pages (`utttProjector`).
pub const PROJECTOR_JS: &str = include_str!("assets/projector.js");
/// The page's icon (browsers ask for `/favicon.ico`): a board of three claimed
/// boards.
pub const ICON: &str = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 3 3\"><rect width=\"3\" height=\"3\" fill=\"#fff5d6\"/><path d=\"M0 0h1v1H0zM1 1h1v1H1zM2 2h1v1H2z\" fill=\"#1d4ed8\"/></svg>";
/// What the live page adds to the report's style.
pub const LIVE_CSS: &str = include_str!("assets/live.css");

fn head(html: &mut Html, title: &str) {
    html.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        .raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        .raw("<title>")
        .text(title)
        .raw("</title>\n<link rel=\"icon\" href=\"/favicon.ico\" type=\"image/svg+xml\">\n")
        .raw("<link rel=\"stylesheet\" href=\"/assets/report.css\">\n")
        .raw("<link rel=\"stylesheet\" href=\"/assets/live.css\">\n</head>\n");
}

/// The list of runs, when the server shows several: each run's name, format,
/// status, games and winner.
pub fn index(runs: &[RunLine]) -> String {
    let mut html = Html::new();
    head(&mut html, "uttt-arena live");
    html.raw("<body>\n<header class=\"top\"><h1>Live <span class=\"sub\">uttt-arena</span></h1></header>\n<main>\n<section><h2>Runs</h2><div class=\"table-wrap\"><table class=\"text runs\" aria-label=\"Runs\"><thead><tr><th scope=\"col\">Run</th><th scope=\"col\">Format</th><th scope=\"col\">Status</th><th scope=\"col\">Games</th><th scope=\"col\">Winner</th></tr></thead><tbody>\n");
    for (i, run) in runs.iter().enumerate() {
        let status = match run.status {
            "running" => "Running",
            "finished" => "Finished",
            "stopped" => "Stopped (not finished)",
            _ => "Not read yet",
        };
        html.raw("<tr><th scope=\"row\"><a href=\"/run/")
            .display(i)
            .raw("/\">")
            .text(&run.name)
            .raw("</a></th><td>")
            .text(&run.format)
            .raw("</td><td class=\"status\" data-status=\"")
            .text(run.status)
            .raw("\">")
            .text(status)
            .raw("</td><td>");
        match run.total {
            Some(total) => html.display(run.done).raw(" of ").display(total),
            None => html.display(run.done),
        };
        html.raw("</td><td>")
            .text(run.winner.as_deref().unwrap_or("—"))
            .raw("</td></tr>\n");
    }
    html.raw("</tbody></table></div></section>\n</main>\n</body>\n</html>\n");
    html.into_string()
}

/// The page of one run. One layout at every size: the games in progress beside
/// the event's ranking and the latest results (a column on a phone; in projector
/// mode one 16:9 screen), then the Elo table and the head-to-head.
pub fn run(name: &str) -> String {
    let mut html = Html::new();
    head(&mut html, &format!("{name} — uttt-arena live"));
    html.raw("<body>\n<header class=\"top\">\n<h1><span id=\"name\">")
        .text(name)
        .raw("</span> <span class=\"sub\" id=\"format\">uttt-arena live</span></h1>\n")
        .raw("<p class=\"meta\"><span id=\"status\" class=\"status\">connecting…</span> <span id=\"round\"></span> · <span id=\"progress\"></span> <span id=\"eta\"></span></p>\n")
        .raw("<p class=\"meta\" id=\"governor\" hidden></p>\n")
        .raw("<progress id=\"bar\" max=\"1\" value=\"0\" aria-label=\"Games played\"></progress>\n")
        .raw("<nav aria-label=\"Sections\"><a href=\"#ranking\">Ranking</a><a href=\"#live\">In progress</a><a href=\"#feed\">Latest results</a><a href=\"#standings\">Elo</a><a href=\"#crosstable\">Head to head</a><button type=\"button\" id=\"projector\" aria-pressed=\"false\">Projector</button></nav>\n")
        .raw("</header>\n<div id=\"conn\" class=\"warnings\" role=\"status\" hidden>Connection lost: reconnecting…</div>\n<main>\n")
        .raw("<p id=\"result\" class=\"winner-banner\" role=\"status\" hidden><span id=\"result-status\">Finished</span> · Winner: <strong id=\"winner-name\"></strong> <span id=\"winner-how\"></span></p>\n")
        .raw("<section id=\"bot\" hidden><h2><span id=\"bot-name\"></span> <a href=\"#\" class=\"back\">back to the run</a></h2>\n")
        .raw("<p id=\"bot-summary\"></p><h3>Faults</h3><ul id=\"bot-faults\"></ul>\n")
        .raw("<div id=\"bot-logs\" hidden><h3>Command</h3><pre id=\"bot-command\"></pre><h3>End of its stderr</h3><pre id=\"bot-stderr\"></pre></div>\n")
        .raw("<h3>Games</h3><div class=\"table-wrap\"><table class=\"text\" aria-label=\"The bot's games\"><thead><tr><th scope=\"col\">Game</th><th scope=\"col\">As</th><th scope=\"col\">Against</th><th scope=\"col\">Outcome</th><th scope=\"col\">Result</th></tr></thead><tbody id=\"bot-games\"></tbody></table></div></section>\n")
        .raw("<section id=\"game\" hidden><h2>Finished game <a href=\"#\" class=\"back\">back to the run</a></h2>\n");
    html.append(viewer());
    html.raw("</section>\n<div class=\"stage\" id=\"stage\">\n")
        .raw("<section id=\"live\"><h2>Games in progress <span class=\"sub\" id=\"live-count\"></span></h2><p class=\"hint\" id=\"live-empty\">No game in progress.</p><div id=\"live-games\" class=\"live-games\"></div></section>\n")
        .raw("<div class=\"side\">\n<section id=\"ranking\"><h2><span id=\"ranking-title\">Ranking</span><span class=\"sub\" id=\"ranking-when\"></span></h2><p class=\"hint\" id=\"ranking-hint\"></p><div id=\"event\"></div>\n")
        .raw("<div class=\"table-wrap\" id=\"points-wrap\"><table class=\"numbers event-table\" aria-label=\"Ranking\"><thead><tr><th scope=\"col\">#</th><th scope=\"col\" class=\"name\">Bot</th><th scope=\"col\" class=\"points\">Points</th><th scope=\"col\" class=\"tiebreak\">Games</th><th scope=\"col\" class=\"tiebreak\">W-D-L</th></tr></thead><tbody id=\"points-body\"></tbody></table></div>\n")
        .raw("<div id=\"pairings\" hidden><h3 id=\"pairings-title\"></h3><ul id=\"pairings-list\" class=\"pairings\"></ul></div></section>\n")
        .raw("<section id=\"feed\"><h2>Latest results</h2><p class=\"hint\" id=\"feed-empty\">No finished game yet.</p><ol id=\"feed-list\" class=\"feed\"></ol></section>\n</div>\n</div>\n")
        .raw("<div id=\"league-wrap\" hidden></div>\n")
        .raw("<section id=\"standings\"><h2 id=\"standings-title\">Elo</h2><p class=\"hint\" id=\"standings-hint\"></p><p class=\"problem\" id=\"standings-problem\" hidden></p>\n")
        .raw("<div class=\"table-wrap\"><table class=\"numbers\" aria-label=\"Elo\"><thead><tr><th scope=\"col\" class=\"rank\">#</th><th scope=\"col\" class=\"name\">Bot</th><th scope=\"col\">Games</th><th scope=\"col\">W</th><th scope=\"col\">D</th><th scope=\"col\">L</th><th scope=\"col\">Score</th><th scope=\"col\">Elo</th><th scope=\"col\">±</th></tr></thead><tbody id=\"standings-body\"></tbody></table></div></section>\n")
        .raw("<section id=\"crosstable\"><h2>Head to head</h2><p class=\"hint\">Score of the row bot against the column bot, with its wins-draws-losses.</p><div class=\"table-wrap\"><table class=\"matrix\" id=\"crosstable-table\" aria-label=\"Head to head\"></table></div></section>\n")
        .raw("</main>\n<template id=\"board-template\"><div class=\"grid\">");
    for board in BoardIndex::ALL {
        board_markup(&mut html, board);
    }
    html.raw("</div></template>\n<script type=\"application/json\" id=\"uttt-tables\">");
    // Tables hold only strings and a string slice: serializing them cannot fail,
    // and `json` writes nothing if it did.
    let _ = html.json(&Tables::new());
    html.raw("</script>\n<noscript><p>The live page needs JavaScript.</p></noscript>\n")
        .raw("<script src=\"/assets/board.js\"></script>\n<script src=\"/assets/viewer.js\"></script>\n<script src=\"/assets/projector.js\"></script>\n<script src=\"/assets/live.js\"></script>\n</body>\n</html>\n");
    html.into_string()
}
