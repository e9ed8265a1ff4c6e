//! A league's tables, drawn once for the report and the live page: the
//! students' table (their current version's rating, the highest level passed,
//! the result), with the reference levels among them as lines to reach rather
//! than as entrants, and the students the run left out in their place with why;
//! the full table with how many versions each student submitted and their
//! rating history beside it — a small line chart, one point per version in the
//! order the league first saw them; and, for the teacher only (`arena report
//! --teacher`), the pairs the similarity check flagged with their evidence.
//!
//! Every name, version and fragment is bot- or student-written: all of it goes
//! through [`Html::text`]. The charts are inline SVG styled by classes (the live
//! page's Content-Security-Policy allows no inline style), with one `<title>` per
//! point so a reader can hover a version for its numbers.

use bots::levels::LevelTable;

use super::chart::{readable_time, round1, signed};
use super::escape::Html;
use super::left_out::{Said, said, why_markup};
use crate::results::league::{Flag, GradeRow, League, PairRow};

/// The chart's size, in its own units (it scales with its cell).
const WIDTH: f64 = 240.0;
const HEIGHT: f64 = 64.0;
/// Room on the left for the axis' two labels.
const LEFT: f64 = 44.0;
const RIGHT: f64 = 10.0;
const TOP: f64 = 8.0;
const BOTTOM: f64 = 8.0;

/// Who reads the drawing: the class (the live page, report.html), or the
/// teacher, who also sees the similarity check's pairs and evidence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reader {
    /// The live page and the report handed back: no similarity.
    Class,
    /// `arena report --teacher`: everything.
    Teacher,
}

/// A reference level the league plays, and its rating on the levels' scale.
#[derive(Clone, Debug, PartialEq)]
pub struct LevelLine {
    /// `level3`.
    pub name: String,
    /// Its published rating (level 1 = 0).
    pub rating: f64,
}

/// The reference levels among `names` (a league's bots), weakest first, with
/// their published ratings (`bots/levels.toml`).
pub fn levels_among<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<LevelLine> {
    let names: Vec<&str> = names.into_iter().collect();
    LevelTable::shipped()
        .levels()
        .iter()
        .filter(|l| names.contains(&l.name().as_str()))
        .map(|l| LevelLine {
            name: l.name(),
            rating: l.elo,
        })
        .collect()
}

/// The fit of a league's games on its grades' scale: every level that has
/// played (`played`) fixed at its published rating; the plain fit when none has.
pub fn anchored(levels: &[LevelLine], played: impl Fn(&str) -> bool) -> ratings::FitOptions {
    let fixed: Vec<ratings::FixedRating> = levels
        .iter()
        .filter(|l| played(&l.name))
        .map(|l| ratings::FixedRating {
            name: l.name.clone(),
            elo: l.rating,
        })
        .collect();
    if fixed.is_empty() {
        return ratings::FitOptions::default();
    }
    ratings::FitOptions {
        anchor: ratings::Anchor::Bots(fixed),
        ..ratings::FitOptions::default()
    }
}

/// What a league's drawing shows beside its files.
#[derive(Clone, Copy, Debug)]
pub struct Context<'a> {
    /// The levels it plays.
    pub levels: &'a [LevelLine],
    /// The students the latest run left out, with why (those with an earlier
    /// version keep their row of grades.csv, marked left out).
    pub left_out: &'a [Said],
}

/// The students' table as the event's ranking: rank, student, rating (95%),
/// highest level, result; the levels as reference lines; the left-out students
/// last, with why.
pub fn ranking(league: &League, context: Context<'_>) -> Html {
    let mut html = Html::new();
    for w in &league.warnings {
        html.raw("<p class=\"problem\">")
            .text(&super::left_out::without_paths(w))
            .raw("</p>\n");
    }
    if league.grades.is_empty() && context.left_out.is_empty() {
        html.raw("<p>No student graded yet.</p>\n");
        return html;
    }
    html.raw("<div class=\"table-wrap\"><table class=\"numbers league-ranking\" aria-label=\"League table\">\n<thead><tr><th scope=\"col\" class=\"rank\">#</th><th scope=\"col\" class=\"name\">Student</th><th scope=\"col\" class=\"rating\">Rating</th><th scope=\"col\" class=\"interval\">95% interval</th><th scope=\"col\">Highest level</th><th scope=\"col\" class=\"verdict\">Result</th></tr></thead>\n<tbody>\n");
    rows(&mut html, league, context, &|html, _| {
        html.raw("</td></tr>\n");
    });
    html.raw("</tbody></table></div>\n");
    html
}

/// The section: the full table with each student's versions, games, faults and
/// rating history, then (for the teacher) the similarity.
pub fn section(league: &League, context: Context<'_>, reader: Reader) -> Html {
    let mut html = Html::new();
    html.raw("<section id=\"league\">\n<h2>League</h2>\n<p class=\"hint\">Each student's current version, rated against the reference levels only (level 1 = 0), best first; the levels are the lines to reach. The history draws every version's rating with its 95% interval, one point per version in the order the league first saw them (filled: the current one; hover a point for its numbers); a dashed mark is a version without a rating yet, at the edge its one-sided bound points to (every game won, or lost). grades.csv and grades-history.csv hold the same numbers.</p>\n");
    for w in &league.warnings {
        html.raw("<p class=\"problem\">")
            .text(&super::left_out::without_paths(w))
            .raw("</p>\n");
    }
    html.append(table(league, context));
    if reader == Reader::Teacher {
        html.append(similarity(league.pairs.as_deref()));
    }
    html.raw("</section>\n");
    html
}

/// The students' full table.
fn table(league: &League, context: Context<'_>) -> Html {
    let mut html = Html::new();
    if league.grades.is_empty() && context.left_out.is_empty() {
        html.raw("<p>No student graded yet.</p>\n");
        return html;
    }
    let axis = axis(&league.history);
    html.raw("<div class=\"table-wrap\"><table class=\"numbers league\" aria-label=\"League\">\n<thead><tr><th scope=\"col\" class=\"rank\">#</th><th scope=\"col\" class=\"name\">Student</th><th scope=\"col\" class=\"rating\">Rating</th><th scope=\"col\" class=\"interval\">95% interval</th><th scope=\"col\">Highest level</th><th scope=\"col\" class=\"verdict\">Result</th><th scope=\"col\">Versions</th><th scope=\"col\">Games</th><th scope=\"col\">Faults</th><th scope=\"col\" class=\"history\">History</th></tr></thead>\n<tbody>\n");
    rows(&mut html, league, context, &|html, row| {
        let Some(row) = row else {
            html.raw("</td><td></td><td></td><td></td><td class=\"history\"></td></tr>\n");
            return;
        };
        let versions: Vec<&GradeRow> = ordered(league.versions_of(&row.student).collect());
        html.raw("</td><td class=\"versions\">")
            .display(row.versions)
            .raw("</td><td>")
            .display(row.games)
            .raw("</td><td>")
            .display(row.faults)
            .raw("</td><td class=\"history\">")
            .append(chart(&row.student, &versions, axis))
            .raw("</td></tr>\n");
    });
    html.raw("</tbody></table></div>\n");
    html
}

/// The rows both tables share, the students best first with the levels among
/// them: rank, name, rating, interval, highest level, and the result cell left
/// open for `end` to close (with the full table's cells, given the student's row;
/// `None` for a level's line or a student without one).
fn rows(
    html: &mut Html,
    league: &League,
    context: Context<'_>,
    end: &dyn Fn(&mut Html, Option<&GradeRow>),
) {
    let mut levels = context.levels.iter().rev().peekable();
    // Students of one rating share a place.
    let mut rank = 0;
    let mut place = 0;
    let mut last = None;
    let level_line = |html: &mut Html, level: &LevelLine| {
        html.raw("<tr class=\"level\"><td class=\"rank\"></td><th scope=\"row\" class=\"name\">")
            .text(&level.name)
            .raw("</th><td class=\"rating\">")
            .text(&signed(level.rating.round(), 0))
            .raw("</td><td class=\"interval\"></td><td colspan=\"2\" class=\"level-note\">reference level");
        end(html, None);
    };
    for row in &league.grades {
        let key = sort_key(row);
        while let Some(level) = levels.next_if(|l| key.is_none_or(|k| l.rating > k)) {
            level_line(html, level);
        }
        // Nothing of theirs to grade (left out, or no version of theirs has
        // built yet): said with why, unranked. One whose latest submission did
        // not build keeps the earlier version's grade and place, said so.
        let left = row.status == "left-out" || (row.status == "build-failed" && row.games == 0);
        let stale = row.status == "build-failed" && !left;
        if !left {
            rank += 1;
            let words = rating_words(row);
            if last.as_ref() != Some(&words) {
                place = rank;
            }
            last = Some(words);
        }
        html.raw(if left {
            "<tr class=\"left-out\" data-student=\""
        } else if place == 1 {
            "<tr class=\"leader\" data-student=\""
        } else {
            "<tr data-student=\""
        })
        .text(&row.student)
        .raw("\"><td class=\"rank\">");
        if left {
            html.raw("–");
        } else {
            html.display(place);
        }
        html.raw("</td><th scope=\"row\" class=\"name\" title=\"")
            .text(&row.student)
            .raw("\">")
            .text(&row.student)
            .raw("</th><td class=\"rating\">")
            .text(&rating_words(row))
            .raw("</td><td class=\"interval\">")
            .text(&interval_words(row))
            .raw("</td><td>")
            .text(if row.highest_level.is_empty() {
                "—"
            } else {
                &row.highest_level
            })
            .raw("</td>");
        if left {
            let said = context
                .left_out
                .iter()
                .find(|s| s.name == row.student)
                .cloned()
                .unwrap_or_else(|| said(&row.student, &row.detail));
            html.raw("<td class=\"why\">");
            why_markup(html, &said);
        } else {
            html.raw("<td class=\"verdict\">")
                .text(if row.result.is_empty() {
                    "—"
                } else {
                    &row.result
                });
            if stale {
                html.raw("<br><small>")
                    .text(
                        "the latest submission did not build: this is the earlier version's grade",
                    )
                    .raw("</small>");
            }
        }
        end(html, Some(row));
    }
    for level in levels {
        level_line(html, level);
    }
    // Left out before their first version: no grade to keep.
    for said in context
        .left_out
        .iter()
        .filter(|s| !league.grades.iter().any(|g| g.student == s.name))
    {
        html.raw("<tr class=\"left-out\" data-student=\"")
            .text(&said.name)
            .raw("\"><td class=\"rank\">–</td><th scope=\"row\" class=\"name\" title=\"")
            .text(&said.name)
            .raw("\">")
            .text(&said.name)
            .raw("</th><td class=\"rating\">—</td><td class=\"interval\"></td><td>—</td><td class=\"why\">");
        why_markup(html, said);
        end(html, None);
    }
}

/// Where a student sits among the levels: their rating, else the bound the
/// results give; `None` without either (last).
fn sort_key(row: &GradeRow) -> Option<f64> {
    row.rating
        .or(row.rating_low)
        .or(row.rating_high)
        .map(|r| r as f64)
}

/// `+290 to +410`, an open end as `…`; empty without a rating.
fn interval_words(row: &GradeRow) -> String {
    let end = |v: Option<i64>| v.map_or_else(|| "…".to_string(), |v| signed(v as f64, 0));
    match row.rating {
        Some(_) => format!("{} to {}", end(row.rating_low), end(row.rating_high)),
        None => String::new(),
    }
}

/// A student's versions by when the league first saw them (the file's order
/// among equal times).
fn ordered(mut versions: Vec<&GradeRow>) -> Vec<&GradeRow> {
    versions.sort_by(|a, b| a.version_since.cmp(&b.version_since));
    versions
}

/// `+350`, `above +300` or `below +41` when one side is open, `—` without a
/// rating.
fn rating_words(row: &GradeRow) -> String {
    match row.rating {
        Some(r) => signed(r as f64, 0),
        None => match (row.rating_low, row.rating_high) {
            (Some(low), None) => format!("above {}", signed(low as f64, 0)),
            (None, Some(high)) => format!("below {}", signed(high as f64, 0)),
            _ => "—".into(),
        },
    }
}

/// The vertical range every chart shares (so two students' lines compare):
/// all ratings and finite interval ends, at least 100 Elo tall.
fn axis(history: &[GradeRow]) -> (f64, f64) {
    let values: Vec<f64> = history
        .iter()
        .flat_map(|r| [r.rating, r.rating_low, r.rating_high])
        .flatten()
        .map(|v| v as f64)
        .collect();
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() {
        return (-50.0, 50.0);
    }
    let mid = (lo + hi) / 2.0;
    let half = ((hi - lo) / 2.0).max(50.0);
    (mid - half, mid + half)
}

/// One student's history: a point per version (rated ones joined by the line,
/// each with its interval), on the shared `axis`.
fn chart(student: &str, versions: &[&GradeRow], (lo, hi): (f64, f64)) -> Html {
    let mut svg = Html::new();
    let y = |v: f64| TOP + (hi - v.clamp(lo, hi)) / (hi - lo) * (HEIGHT - TOP - BOTTOM);
    let n = versions.len();
    let x = |i: usize| {
        if n <= 1 {
            (LEFT + WIDTH - RIGHT) / 2.0
        } else {
            LEFT + (WIDTH - LEFT - RIGHT) * i as f64 / (n - 1) as f64
        }
    };
    svg.raw("<svg class=\"history\" role=\"img\" viewBox=\"0 0 ")
        .display(WIDTH)
        .raw(" ")
        .display(HEIGHT)
        .raw("\" aria-label=\"")
        .text(&format!(
            "{student}'s rating, one point per version ({n} version{})",
            if n == 1 { "" } else { "s" }
        ))
        .raw("\">");
    for (value, at) in [(hi, TOP), (lo, HEIGHT - BOTTOM)] {
        svg.raw("<line class=\"grid\" x1=\"")
            .display(LEFT - 4.0)
            .raw("\" x2=\"")
            .display(WIDTH - RIGHT)
            .raw("\" y1=\"")
            .display(at)
            .raw("\" y2=\"")
            .display(at)
            .raw("\"/><text class=\"tick\" x=\"")
            .display(LEFT - 8.0)
            .raw("\" y=\"")
            .display(at + 4.0)
            .raw("\">")
            .text(&signed(value, 0))
            .raw("</text>");
    }
    let mut line = Vec::new();
    let mut marks = Html::new();
    for (i, v) in versions.iter().enumerate() {
        let cx = round1(x(i));
        let title = point_title(student, i + 1, n, v);
        match v.rating {
            Some(r) => {
                let cy = round1(y(r as f64));
                line.push(format!("{cx},{cy}"));
                let low = v.rating_low.map_or(lo, |l| l as f64);
                let high = v.rating_high.map_or(hi, |h| h as f64);
                marks
                    .raw("<g class=\"version\"><title>")
                    .text(&title)
                    .raw("</title><line class=\"history-interval\" x1=\"")
                    .display(cx)
                    .raw("\" x2=\"")
                    .display(cx)
                    .raw("\" y1=\"")
                    .display(round1(y(high)))
                    .raw("\" y2=\"")
                    .display(round1(y(low)))
                    .raw("\"/><circle class=\"history-point")
                    .raw(if v.status == "retired" {
                        ""
                    } else {
                        " current"
                    })
                    .raw("\" cx=\"")
                    .display(cx)
                    .raw("\" cy=\"")
                    .display(cy)
                    .raw("\" r=\"4\"/></g>");
            }
            None => {
                // A one-sided bound sits at the edge it points to.
                let cy = match (v.rating_low, v.rating_high) {
                    (Some(_), None) => y(hi),
                    (None, Some(_)) => y(lo),
                    _ => HEIGHT / 2.0,
                };
                marks
                    .raw("<g class=\"version\"><title>")
                    .text(&title)
                    .raw("</title><circle class=\"history-unrated\" cx=\"")
                    .display(cx)
                    .raw("\" cy=\"")
                    .display(round1(cy))
                    .raw("\" r=\"4\"/></g>");
            }
        }
    }
    // Numbers and commas only: no text of the student's reaches this attribute.
    svg.raw("<polyline class=\"history-line\" points=\"")
        .text(&line.join(" "))
        .raw("\"/>")
        .append(marks)
        .raw("</svg>");
    svg
}

/// "ada, version 2 of 3 (3f9a…), first seen 2026-12-01 10:00:00 UTC, retired:
/// rating +350 (+290 to +410), 8 games".
fn point_title(student: &str, k: usize, n: usize, v: &GradeRow) -> String {
    let interval = interval_words(v);
    format!(
        "{student}, version {k} of {n} ({}), first seen {}, {}: rating {}{}, {} game{}",
        v.version,
        readable_time(&v.version_since),
        v.status,
        rating_words(v),
        if interval.is_empty() {
            String::new()
        } else {
            format!(" ({interval})")
        },
        v.games,
        if v.games == 1 { "" } else { "s" }
    )
}

/// The flagged pairs with their evidence, or what the check found.
fn similarity(pairs: Option<&[PairRow]>) -> Html {
    let mut html = Html::new();
    html.raw("<h3 id=\"similarity\">Similarity</h3>\n");
    let Some(pairs) = pairs else {
        html.raw("<p class=\"hint\">Not checked yet (the league ran with <code>--no-similarity</code>, or similarity.csv is not written yet).</p>\n");
        return html;
    };
    let flagged: Vec<&PairRow> = pairs.iter().filter(|p| p.flagged == Flag::Yes).collect();
    html.raw("<p class=\"hint\">Pairs of current submissions whose sources share at least the threshold's share of fingerprints (names, comments and layout do not count), with where they match and how often the two bots chose the same move on the same positions. A flag is for a person to look at; it changes no grade. similarity.csv lists every pair compared.</p>\n");
    if flagged.is_empty() {
        html.raw("<p class=\"similarity-none\">No pair of the ")
            .display(pairs.len())
            .raw(" compared reaches the threshold")
            .text(
                &pairs
                    .first()
                    .map_or_else(String::new, |p| format!(" ({})", p.threshold)),
            )
            .raw(".</p>\n");
        return html;
    }
    html.raw("<div class=\"table-wrap\"><table class=\"text similarity\" aria-label=\"Flagged pairs\">\n<thead><tr><th scope=\"col\" class=\"name\">Pair</th><th scope=\"col\">Language</th><th scope=\"col\">Source score</th><th scope=\"col\">Same moves</th><th scope=\"col\">Matching fragments</th></tr></thead>\n<tbody>\n");
    for p in flagged {
        html.raw("<tr class=\"flagged\"><th scope=\"row\" class=\"name\">")
            .text(&p.a)
            .raw(" ~ ")
            .text(&p.b)
            .raw("</th><td>")
            .text(&p.family)
            .raw("</td><td class=\"score\">")
            .text(&format!(
                "{:.2} (threshold {}; {} fingerprints shared)",
                p.score, p.threshold, p.shared
            ))
            .raw("</td><td class=\"behaviour\">")
            .text(&match p.behaviour {
                Some(b) => format!(
                    "{:.0}% of {} position{}",
                    b * 100.0,
                    p.positions,
                    if p.positions == 1 { "" } else { "s" }
                ),
                None => "not asked".into(),
            })
            .raw("</td><td><ul class=\"fragments\">");
        for fragment in p.evidence.split("; ").filter(|f| !f.is_empty()) {
            html.raw("<li><code>").text(fragment).raw("</code></li>");
        }
        html.raw("</ul></td></tr>\n");
    }
    html.raw("</tbody></table></div>\n");
    html
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::league::tests::grade;

    const HOSTILE: &str = "</svg><img src=x onerror=alert(1)>\"'&";

    fn league() -> League {
        let mut a1 = grade(HOSTILE, "a1", Some(100));
        a1.status = "retired".into();
        let mut a2 = grade(HOSTILE, "a2", None);
        a2.rating_low = Some(300);
        a2.rating_high = None;
        a2.status = "retired".into();
        a2.version_since = "2026-12-02T10:00:00Z".into();
        let mut a3 = grade(HOSTILE, "a3", Some(250));
        a3.version_since = "2026-12-03T10:00:00Z".into();
        a3.versions = 3;
        let b1 = grade("bo", "b1", Some(-20));
        League {
            grades: vec![a3.clone(), b1.clone()],
            history: vec![a1, a2, a3, b1],
            pairs: Some(vec![PairRow {
                a: HOSTILE.into(),
                b: "bo".into(),
                family: "python".into(),
                score: 0.93,
                shared: 41,
                behaviour: Some(1.0),
                positions: 30,
                flagged: Flag::Yes,
                threshold: 0.6,
                evidence: format!("{HOSTILE}.py:1-9 ~ bot.py:2-10; a.py:3-4 ~ b.py:5-6"),
            }]),
            warnings: Vec::new(),
        }
    }

    /// The `points` of each polyline, as pairs of numbers.
    fn lines(html: &str) -> Vec<Vec<(f64, f64)>> {
        html.split("<polyline class=\"history-line\" points=\"")
            .skip(1)
            .map(|s| {
                s.split('"')
                    .next()
                    .unwrap()
                    .split_whitespace()
                    .map(|p| {
                        let (x, y) = p.split_once(',').unwrap();
                        (x.parse().unwrap(), y.parse().unwrap())
                    })
                    .collect()
            })
            .collect()
    }

    fn context() -> Context<'static> {
        Context {
            levels: &[],
            left_out: &[],
        }
    }

    #[test]
    fn one_line_per_student_through_each_rated_version_in_order() {
        let html = section(&league(), context(), Reader::Class).into_string();
        let lines = lines(&html);
        assert_eq!(lines.len(), 2);
        // ada: v1 and v3 rated, v2 (bound below only) hollow at the top.
        assert_eq!(lines[0].len(), 2);
        assert!(lines[0][0].0 < lines[0][1].0, "in the order first seen");
        assert!(lines[0][0].1 > lines[0][1].1, "250 is drawn above 100");
        assert_eq!(lines[1].len(), 1);
        assert_eq!(html.matches("class=\"history-unrated\"").count(), 1);
        assert_eq!(html.matches("<svg class=\"history\"").count(), 2);
        assert!(html.contains("<td class=\"versions\">3</td>"));
        assert!(html.contains("version 2 of 3 (a2)"), "{html}");
        assert!(html.contains("above +300"));
    }

    #[test]
    fn names_and_evidence_never_become_markup() {
        let html = section(&league(), context(), Reader::Teacher).into_string();
        assert!(!html.contains(HOSTILE));
        assert!(!html.contains("<img"));
        let escaped = crate::report::escape::escape(HOSTILE);
        assert!(html.matches(&escaped).count() >= 6, "{html}");
        // The flagged pair with its score, behaviour and each fragment.
        assert!(html.contains("0.93 (threshold 0.6; 41 fingerprints shared)"));
        assert!(html.contains("100% of 30 positions"));
        assert_eq!(html.matches("<li><code>").count(), 2);
    }

    #[test]
    fn without_similarity_or_flags_it_says_so() {
        let mut league = league();
        league.pairs = None;
        let teacher = |league: &League| section(league, context(), Reader::Teacher).into_string();
        assert!(teacher(&league).contains("Not checked yet"));
        league.pairs = Some(vec![]);
        let html = teacher(&league);
        assert!(html.contains("No pair of the 0 compared"), "{html}");
    }

    #[test]
    fn the_class_never_sees_the_similarity() {
        let html = section(&league(), context(), Reader::Class).into_string();
        assert!(!html.contains("imilarity"), "{html}");
        assert!(!html.contains("0.93"), "{html}");
        assert!(!html.contains("fragments"), "{html}");
        let html = ranking(&league(), context()).into_string();
        assert!(!html.contains("imilarity"), "{html}");
    }

    #[test]
    fn a_student_whose_code_never_built_is_said_and_one_whose_latest_did_not_keeps_the_old_grade() {
        let mut league = league();
        let mut never = grade("cy", "c1", None);
        never.status = "build-failed".into();
        never.games = 0;
        never.result = String::new();
        never.highest_level = String::new();
        never.detail = "build failed (exit code 1):\nmain.cpp:1:5: error: oops".into();
        let mut later = grade("dan", "d2", Some(40));
        later.status = "build-failed".into();
        later.result = "fail".into();
        league.grades.push(never);
        league.grades.push(later);
        let html = ranking(&league, context()).into_string();
        // cy: unranked, with the compiler's words.
        assert!(
            html.contains("<tr class=\"left-out\" data-student=\"cy\">"),
            "{html}"
        );
        assert!(html.contains("main.cpp:1:5: error: oops"), "{html}");
        // dan: ranked on the earlier version's grade, said to be that.
        assert!(html.contains("<tr data-student=\"dan\">"), "{html}");
        assert!(html.contains("<td class=\"rating\">+40</td>"), "{html}");
        assert!(
            html.contains(
                "the latest submission did not build: this is the earlier version&#39;s grade"
            ),
            "{html}"
        );
    }

    #[test]
    fn levels_are_lines_among_the_students_and_the_left_out_are_said() {
        let mut league = league();
        let mut gone = grade("cy", "c1", Some(10));
        gone.status = "left-out".into();
        gone.detail = "build failed (exit code 1): /srv/c/cy/main.cpp:1:5: error: oops".into();
        league.grades.push(gone);
        let levels = [
            LevelLine {
                name: "level1".into(),
                rating: 0.0,
            },
            LevelLine {
                name: "level2".into(),
                rating: 151.4,
            },
            LevelLine {
                name: "level3".into(),
                rating: 300.0,
            },
        ];
        let new = [crate::report::left_out::said(
            "dee",
            "left out by hand (--exclude)",
        )];
        let context = Context {
            levels: &levels,
            left_out: &new,
        };
        let html = ranking(&league, context).into_string();
        // In rating order: level3, the student at 250, level2, bo at -20 below level1.
        let at = |needle: &str| {
            html.find(needle)
                .unwrap_or_else(|| panic!("{needle}: {html}"))
        };
        assert!(at(">level3<") < at("data-student=\"&lt;/svg"), "{html}");
        assert!(at("data-student=\"&lt;/svg") < at(">level2<"));
        assert!(at(">level2<") < at(">level1<"));
        assert!(at(">level1<") < at("data-student=\"bo\""));
        assert!(html.contains("<td class=\"rating\">+151</td>"), "{html}");
        assert_eq!(html.matches("<tr class=\"level\">").count(), 3);
        // Only students are ranked; the left out last, with why, without paths.
        assert!(
            html.contains("<td class=\"rank\">2</td><th scope=\"row\" class=\"name\" title=\"bo\""),
            "{html}"
        );
        assert!(
            html.contains("not playing: its code did not build"),
            "{html}"
        );
        assert!(html.contains("main.cpp:1:5: error: oops"), "{html}");
        assert!(!html.contains("/srv"), "{html}");
        assert!(html.contains("data-student=\"dee\""), "{html}");
        assert!(html.contains("sitting this one out"), "{html}");
    }
}
