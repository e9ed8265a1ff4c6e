//! The event's own ranking, drawn once for `report.html` and for the live page:
//! a Swiss's table (points, Buchholz, Sonneborn–Berger, byes) and a knockout's
//! bracket (a column per round, each match with its score, the rounds not drawn
//! yet as empty boxes), and who won. The rows come from `swiss.csv` or
//! `knockout.csv` ([`crate::results::event`]); the live page also brings the
//! scores of the matches in play from the games finished since the bracket was
//! written ([`with_scores`]). Every name goes through [`Html::text`].

use crate::results::event::{EventTable, KnockoutRow, SwissRow};
use crate::results::round_scores::RoundScores;

use super::escape::Html;
use super::left_out::{Said, why_markup};

/// What the drawing shows beside the file's rows.
#[derive(Clone, Copy, Debug, Default)]
pub struct Beside<'a> {
    /// The bots the run left out, each in the table's place for it (a row under
    /// the Swiss table, a line under the bracket).
    pub left_out: &'a [Said],
    /// The pairs with a game on a board now (the live page): their match says
    /// "playing".
    pub playing: &'a [(String, String)],
}

/// Who won an event, and how it was decided, in words.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Winner {
    /// The bot (several, joined with "and", when they share first place).
    pub name: String,
    /// "3.5 of 4 points", "won the final 2–0", "on Buchholz".
    pub how: String,
}

/// The knockout's rows with the score so far of each match still in play, from
/// the finished games of its round (`scores`) (the file holds the scores as they were when
/// the round was drawn).
pub fn with_scores(event: &EventTable, scores: &RoundScores) -> EventTable {
    let EventTable::Knockout(rows) = event else {
        return event.clone();
    };
    let rows = rows
        .iter()
        .map(|r| {
            if !r.decided_by.is_empty() {
                return r.clone();
            }
            let (a, b, _) = scores.get(r.round, &r.a, &r.b);
            KnockoutRow {
                a_points: Some(a),
                b_points: Some(b),
                ..r.clone()
            }
        })
        .collect();
    EventTable::Knockout(rows)
}

/// The winner of a finished event: the final's winner, or the top of the Swiss
/// table (saying when a tie-break decided it). `None` while it is being played.
pub fn winner(event: &EventTable, over: bool) -> Option<Winner> {
    if !over {
        return None;
    }
    match event {
        EventTable::Swiss(rows) => {
            let first = rows.first()?;
            let how = match rows.get(1) {
                Some(second) if second.points == first.points => {
                    if second.buchholz == first.buchholz {
                        format!("{} points, ahead on Sonneborn–Berger", first.points)
                    } else {
                        format!("{} points, ahead on Buchholz", first.points)
                    }
                }
                _ => format!("{} points", first.points),
            };
            Some(Winner {
                name: first.bot.clone(),
                how,
            })
        }
        EventTable::Knockout(rows) => {
            let last = rows.iter().map(|r| r.round).max()?;
            let final_rows: Vec<&KnockoutRow> = rows.iter().filter(|r| r.round == last).collect();
            let [f] = final_rows.as_slice() else {
                return None;
            };
            if f.winner.is_empty() {
                return None;
            }
            let (w, l) = if f.winner == f.a {
                (f.a_points, f.b_points)
            } else {
                (f.b_points, f.a_points)
            };
            let how = match f.decided_by.as_str() {
                "bye" => "went through unopposed".to_string(),
                "seed" => format!(
                    "tied the final {}–{}, through as the higher seed",
                    w.unwrap_or(0.0),
                    l.unwrap_or(0.0)
                ),
                _ => format!("won the final {}–{}", w.unwrap_or(0.0), l.unwrap_or(0.0)),
            };
            Some(Winner {
                name: f.winner.clone(),
                how,
            })
        }
    }
}

/// A round robin's winner: the most points, several named together when they
/// share first place. `None` without any bot.
pub fn points_winner(points: &[(String, f64)]) -> Option<Winner> {
    let best = points.iter().map(|p| p.1).reduce(f64::max)?;
    let leaders: Vec<&str> = points
        .iter()
        .filter(|p| (p.1 - best).abs() < 1e-9)
        .map(|p| p.0.as_str())
        .collect();
    let unit = if best == 1.0 { "point" } else { "points" };
    let best = points_text(best);
    let how = if leaders.len() > 1 {
        format!("share first place with {best} {unit} each")
    } else {
        format!("{best} {unit}")
    };
    Some(Winner {
        name: leaders.join(" and "),
        how,
    })
}

/// The table or the bracket. `rounds`: the event's rounds when known (a Swiss's
/// count; a knockout's from its bracket size), so that rounds not drawn yet are
/// drawn as empty boxes.
pub fn drawing(event: &EventTable, rounds: Option<u32>, beside: Beside<'_>) -> Html {
    let mut html = match event {
        EventTable::Swiss(rows) => swiss_table(rows, beside.left_out),
        EventTable::Knockout(rows) => bracket(rows, rounds, beside.playing),
    };
    if matches!(event, EventTable::Knockout(_)) && !beside.left_out.is_empty() {
        html.append(left_out_list(beside.left_out));
    }
    html
}

/// The bots left out of a bracket, under it.
fn left_out_list(left_out: &[Said]) -> Html {
    let mut html = Html::new();
    html.raw("<ul class=\"left-outs\" aria-label=\"Left out\">\n");
    for said in left_out {
        html.raw("<li class=\"left-out\"><span class=\"who\">")
            .text(&said.name)
            .raw("</span> <span class=\"why\">");
        why_markup(&mut html, said);
        html.raw("</span></li>\n");
    }
    html.raw("</ul>\n");
    html
}

/// Points as a person writes them: `3`, `3.5`.
pub fn points_text(points: f64) -> String {
    let half = (points * 2.0).round() / 2.0;
    format!("{half}")
}

fn swiss_table(rows: &[SwissRow], left_out: &[Said]) -> Html {
    let mut html = Html::new();
    html.raw("<div class=\"table-wrap\"><table class=\"numbers event-table\" aria-label=\"Swiss table\">\n<thead><tr><th scope=\"col\">#</th><th scope=\"col\" class=\"name\">Bot</th><th scope=\"col\" class=\"points\">Points</th><th scope=\"col\" class=\"tiebreak\" title=\"Buchholz: the opponents' points\">Buchholz</th><th scope=\"col\" class=\"tiebreak\" title=\"Sonneborn–Berger: the opponents' points weighted by the points taken from them\">S–B</th><th scope=\"col\" class=\"tiebreak\">Byes</th></tr></thead>\n<tbody>\n");
    for r in rows {
        html.raw(if r.rank == 1 && r.points > 0.0 {
            "<tr class=\"leader\"><td>"
        } else {
            "<tr><td>"
        })
        .display(r.rank)
        .raw("</td><th scope=\"row\" class=\"name\" title=\"")
        .text(&r.bot)
        .raw("\">")
        .text(&r.bot)
        .raw("</th><td class=\"points\"><strong>")
        .text(&points_text(r.points))
        .raw("</strong></td><td class=\"tiebreak\">")
        .display(r.buchholz)
        .raw("</td><td class=\"tiebreak\">")
        .display(r.sonneborn_berger)
        .raw("</td><td class=\"tiebreak\">")
        .display(r.byes)
        .raw("</td></tr>\n");
    }
    for said in left_out {
        left_out_row(&mut html, said, 4);
    }
    html.raw("</tbody></table></div>\n");
    html
}

/// A left-out bot's row of a table: no rank, its name, and why across the
/// `span` columns after it.
pub fn left_out_row(html: &mut Html, said: &Said, span: usize) {
    html.raw("<tr class=\"left-out\"><td>–</td><th scope=\"row\" class=\"name\" title=\"")
        .text(&said.name)
        .raw("\">")
        .text(&said.name)
        .raw("</th><td class=\"why\" colspan=\"")
        .display(span)
        .raw("\">");
    why_markup(html, said);
    html.raw("</td></tr>\n");
}

/// "Final", "Semi-finals", "Quarter-finals", else "Round N".
fn round_title(round: u32, rounds: u32) -> String {
    match rounds.checked_sub(round) {
        Some(0) => "Final".into(),
        Some(1) => "Semi-finals".into(),
        Some(2) => "Quarter-finals".into(),
        _ => format!("Round {round}"),
    }
}

fn bracket(rows: &[KnockoutRow], rounds: Option<u32>, playing: &[(String, String)]) -> Html {
    let drawn = rows.iter().map(|r| r.round).max().unwrap_or(0);
    let rounds = rounds.unwrap_or(drawn).max(drawn);
    let mut html = Html::new();
    html.raw("<div class=\"bracket\" role=\"list\" aria-label=\"Knockout bracket\">\n");
    for round in 1..=rounds {
        let here: Vec<&KnockoutRow> = rows.iter().filter(|r| r.round == round).collect();
        html.raw(if here.is_empty() {
            "<div class=\"bracket-round later\" role=\"listitem\"><h3>"
        } else {
            "<div class=\"bracket-round\" role=\"listitem\"><h3>"
        })
        .text(&round_title(round, rounds))
        .raw("</h3>\n<ul>\n");
        if here.is_empty() {
            // Not drawn yet: as many boxes as the bracket has matches there.
            let boxes = 1u32 << rounds.saturating_sub(round).min(16);
            for _ in 0..boxes {
                html.raw("<li class=\"match tbd\"><span class=\"slot\">to be decided</span><span class=\"slot\">&nbsp;</span></li>\n");
            }
        }
        for r in here {
            let on_a_board = playing
                .iter()
                .any(|(x, o)| (x == &r.a && o == &r.b) || (x == &r.b && o == &r.a));
            bracket_match(&mut html, r, on_a_board);
        }
        html.raw("</ul></div>\n");
    }
    html.raw("</div>\n");
    html
}

/// One match: its two slots with their points, the winner's marked once the
/// match is decided; an undecided one says whether a game of it is on a board.
fn bracket_match(html: &mut Html, r: &KnockoutRow, on_a_board: bool) {
    if r.decided_by == "bye" {
        html.raw("<li class=\"match decided\"><span class=\"slot won\"><span class=\"who\">")
            .text(&r.a)
            .raw("</span></span><span class=\"slot bye\">bye</span></li>\n");
        return;
    }
    let state = match r.decided_by.as_str() {
        "" if on_a_board => "match playing",
        "" => "match open",
        _ => "match decided",
    };
    html.raw("<li class=\"").text(state).raw("\">");
    for (name, points) in [(&r.a, r.a_points), (&r.b, r.b_points)] {
        let won = !r.winner.is_empty() && r.winner == *name;
        html.raw(if won {
            "<span class=\"slot won\">"
        } else if r.winner.is_empty() {
            "<span class=\"slot\">"
        } else {
            "<span class=\"slot lost\">"
        })
        .raw("<span class=\"who\" title=\"")
        .text(name)
        .raw("\">")
        .text(name)
        .raw("</span><span class=\"pts\">")
        .text(&points_text(points.unwrap_or(0.0)))
        .raw("</span></span>");
    }
    match r.decided_by.as_str() {
        "seed" => {
            html.raw("<span class=\"note\">tied: the higher seed goes through</span>");
        }
        crate::results::event::NO_SHOW => {
            html.raw("<span class=\"note\">neither bot could start: nobody goes through</span>");
        }
        "" if on_a_board => {
            html.raw("<span class=\"note\">playing</span>");
        }
        "" if r.a_points.unwrap_or(0.0) + r.b_points.unwrap_or(0.0) == 0.0 => {
            html.raw("<span class=\"note\">to play</span>");
        }
        "" => {
            html.raw("<span class=\"note\">between games</span>");
        }
        _ => {}
    }
    html.raw("</li>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ko(round: u32, a: &str, b: &str, pts: (f64, f64), winner: &str, by: &str) -> KnockoutRow {
        KnockoutRow {
            round,
            a: a.into(),
            b: b.into(),
            a_points: Some(pts.0),
            b_points: Some(pts.1),
            winner: winner.into(),
            decided_by: by.into(),
        }
    }

    #[test]
    fn a_bracket_draws_every_round_with_scores_and_boxes_for_rounds_to_come() {
        let rows = vec![
            ko(1, "ann", "<b>dee</b>", (2.0, 0.0), "ann", "games"),
            ko(1, "bo", "cy", (1.0, 1.0), "", ""),
        ];
        let html = drawing(
            &EventTable::Knockout(rows.clone()),
            Some(2),
            Beside::default(),
        )
        .into_string();
        assert!(html.contains("<h3>Semi-finals</h3>"), "{html}");
        assert!(html.contains("<h3>Final</h3>"), "{html}");
        assert!(html.contains("&lt;b&gt;dee&lt;/b&gt;"), "{html}");
        assert!(!html.contains("<b>dee"), "{html}");
        assert!(html.contains("<span class=\"slot won\"><span class=\"who\" title=\"ann\">ann</span><span class=\"pts\">2</span>"), "{html}");
        // An undecided match with a game finished, none on a board.
        assert!(
            html.contains("<li class=\"match open\">")
                && html.contains("<span class=\"note\">between games</span>"),
            "{html}"
        );
        assert_eq!(html.matches("match tbd").count(), 1, "{html}");
        assert!(html.contains("bracket-round later"), "{html}");
        assert_eq!(winner(&EventTable::Knockout(vec![]), true), None);
        // A game of it on a board: playing; none finished: to play.
        let playing = [("cy".to_string(), "bo".to_string())];
        let beside = Beside {
            left_out: &[],
            playing: &playing,
        };
        let html = drawing(&EventTable::Knockout(rows.clone()), Some(2), beside).into_string();
        assert!(
            html.contains("<li class=\"match playing\">")
                && html.contains("<span class=\"note\">playing</span>"),
            "{html}"
        );
        let mut fresh = rows;
        fresh[1].a_points = Some(0.0);
        fresh[1].b_points = Some(0.0);
        let html = drawing(&EventTable::Knockout(fresh), Some(2), Beside::default()).into_string();
        assert!(
            html.contains("<span class=\"note\">to play</span>"),
            "{html}"
        );
    }

    #[test]
    fn the_left_out_are_rows_of_the_swiss_table_and_a_line_under_the_bracket() {
        let said = [crate::report::left_out::said(
            "<i>eve</i>",
            "build failed (exit code 1): /home/t/eve/main.cpp:3: error",
        )];
        let beside = Beside {
            left_out: &said,
            playing: &[],
        };
        let swiss = EventTable::Swiss(vec![SwissRow {
            rank: 1,
            bot: "ann".into(),
            points: 2.9999999999,
            buchholz: 0.0,
            sonneborn_berger: 0.0,
            byes: 0,
        }]);
        let html = drawing(&swiss, Some(3), beside).into_string();
        assert!(
            html.contains("<td class=\"points\"><strong>3</strong>"),
            "{html}"
        );
        assert!(html.contains("<tr class=\"left-out\"><td>–</td><th scope=\"row\" class=\"name\" title=\"&lt;i&gt;eve&lt;/i&gt;\">&lt;i&gt;eve&lt;/i&gt;</th><td class=\"why\" colspan=\"4\"><span class=\"short\">not playing: its code did not build</span><span class=\"detail\"> (main.cpp:3: error)</span></td></tr>"), "{html}");
        assert!(!html.contains("/home"), "{html}");
        let bracket = EventTable::Knockout(vec![ko(1, "ann", "bo", (2.0, 0.0), "ann", "games")]);
        let html = drawing(&bracket, Some(1), beside).into_string();
        assert!(html.contains("<ul class=\"left-outs\" aria-label=\"Left out\">\n<li class=\"left-out\"><span class=\"who\">&lt;i&gt;eve&lt;/i&gt;</span>"), "{html}");
        assert_eq!(points_text(29.998800000000003), "30");
        assert_eq!(points_text(2.5), "2.5");
    }

    #[test]
    fn the_winner_is_the_finals_or_the_top_of_the_swiss_table() {
        let final_round = vec![
            ko(1, "ann", "bo", (2.0, 0.0), "ann", "games"),
            ko(1, "cy", "dee", (0.5, 1.5), "dee", "games"),
            ko(2, "ann", "dee", (1.0, 1.0), "ann", "seed"),
        ];
        let event = EventTable::Knockout(final_round);
        assert_eq!(winner(&event, false), None);
        assert_eq!(
            winner(&event, true),
            Some(Winner {
                name: "ann".into(),
                how: "tied the final 1–1, through as the higher seed".into()
            })
        );
        let swiss = |points: [f64; 2], buchholz: [f64; 2]| {
            EventTable::Swiss(
                (0..2)
                    .map(|i| SwissRow {
                        rank: i + 1,
                        bot: ["ann", "bo"][i].into(),
                        points: points[i],
                        buchholz: buchholz[i],
                        sonneborn_berger: 0.0,
                        byes: 0,
                    })
                    .collect(),
            )
        };
        let how = |e: &EventTable| winner(e, true).map(|w| w.how);
        assert_eq!(
            how(&swiss([3.0, 2.0], [1.0, 1.0])).as_deref(),
            Some("3 points")
        );
        assert_eq!(
            how(&swiss([3.0, 3.0], [4.0, 1.0])).as_deref(),
            Some("3 points, ahead on Buchholz")
        );
        assert_eq!(
            how(&swiss([3.0, 3.0], [4.0, 4.0])).as_deref(),
            Some("3 points, ahead on Sonneborn–Berger")
        );
    }

    #[test]
    fn scores_of_matches_in_play_come_from_their_finished_games() {
        use crate::report::page::tests::game;
        let (mut g1, _) = game("G0003", "bo", "cy");
        g1.round = 1;
        g1.winner = uttt::result::Decision::Win(uttt::rules::Mark::O);
        let event = EventTable::Knockout(vec![ko(1, "bo", "cy", (0.0, 0.0), "", "")]);
        let EventTable::Knockout(rows) = with_scores(&event, &RoundScores::of(&[g1])) else {
            panic!("a knockout stays one");
        };
        assert_eq!((rows[0].a_points, rows[0].b_points), (Some(0.0), Some(1.0)));
    }
}
