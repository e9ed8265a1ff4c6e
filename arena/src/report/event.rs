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

/// The table or the bracket. `rounds`: the event's rounds when known (a Swiss's
/// count; a knockout's from its bracket size), so that rounds not drawn yet are
/// drawn as empty boxes.
pub fn drawing(event: &EventTable, rounds: Option<u32>) -> Html {
    match event {
        EventTable::Swiss(rows) => swiss_table(rows),
        EventTable::Knockout(rows) => bracket(rows, rounds),
    }
}

fn swiss_table(rows: &[SwissRow]) -> Html {
    let mut html = Html::new();
    html.raw("<div class=\"table-wrap\"><table class=\"numbers event-table\" aria-label=\"Swiss table\">\n<thead><tr><th scope=\"col\">#</th><th scope=\"col\" class=\"name\">Bot</th><th scope=\"col\">Points</th><th scope=\"col\" title=\"Buchholz: the opponents' points\">Buchholz</th><th scope=\"col\" title=\"Sonneborn–Berger: the opponents' points weighted by the points taken from them\">S–B</th><th scope=\"col\">Byes</th></tr></thead>\n<tbody>\n");
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
        .raw("</th><td><strong>")
        .display(r.points)
        .raw("</strong></td><td>")
        .display(r.buchholz)
        .raw("</td><td>")
        .display(r.sonneborn_berger)
        .raw("</td><td>")
        .display(r.byes)
        .raw("</td></tr>\n");
    }
    html.raw("</tbody></table></div>\n");
    html
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

fn bracket(rows: &[KnockoutRow], rounds: Option<u32>) -> Html {
    let drawn = rows.iter().map(|r| r.round).max().unwrap_or(0);
    let rounds = rounds.unwrap_or(drawn).max(drawn);
    let mut html = Html::new();
    html.raw("<div class=\"bracket\" role=\"list\" aria-label=\"Knockout bracket\">\n");
    for round in 1..=rounds {
        let here: Vec<&KnockoutRow> = rows.iter().filter(|r| r.round == round).collect();
        html.raw("<div class=\"bracket-round\" role=\"listitem\"><h3>")
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
            bracket_match(&mut html, r);
        }
        html.raw("</ul></div>\n");
    }
    html.raw("</div>\n");
    html
}

fn bracket_match(html: &mut Html, r: &KnockoutRow) {
    if r.decided_by == "bye" {
        html.raw("<li class=\"match decided\"><span class=\"slot won\"><span class=\"who\">")
            .text(&r.a)
            .raw("</span></span><span class=\"slot bye\">bye</span></li>\n");
        return;
    }
    let state = match r.decided_by.as_str() {
        "" => "match playing",
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
        .display(points.unwrap_or(0.0))
        .raw("</span></span>");
    }
    match r.decided_by.as_str() {
        "seed" => {
            html.raw("<span class=\"note\">tied: the higher seed goes through</span>");
        }
        "" => {
            html.raw("<span class=\"note\">in play</span>");
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
        let html = drawing(&EventTable::Knockout(rows), Some(2)).into_string();
        assert!(html.contains("<h3>Semi-finals</h3>"), "{html}");
        assert!(html.contains("<h3>Final</h3>"), "{html}");
        assert!(html.contains("&lt;b&gt;dee&lt;/b&gt;"), "{html}");
        assert!(!html.contains("<b>dee"), "{html}");
        assert!(html.contains("<span class=\"slot won\"><span class=\"who\" title=\"ann\">ann</span><span class=\"pts\">2</span>"), "{html}");
        assert!(
            html.contains("<span class=\"note\">in play</span>"),
            "{html}"
        );
        assert_eq!(html.matches("match tbd").count(), 1, "{html}");
        assert_eq!(winner(&EventTable::Knockout(vec![]), true), None);
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
