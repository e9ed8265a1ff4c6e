//! A league's feedback file (`feedback/<student>.txt`), in words for the
//! student, from the facts `tournament::league::season` gathers: the result
//! first in plain words (pass or not yet, against which level, how many points
//! of how many), then why games were lost in the student's own terms (the end
//! of their bot's stderr with paths in their folder, the time it took against
//! the limit, the illegal move and why the rules refuse it, the board), then
//! the next step (the command that runs their bot, `arena check` on it), then
//! how this version compares with their previous one; the version, the times
//! and the seed last. Nothing in it points to the teacher's files, and nothing
//! of the similarity check is in it. The faults are worded as `arena check`
//! words them ([`super::words`]).

use std::fmt::Write as _;

use uttt::result::EndReason;
use uttt::rules::{Position, Square};

use super::words::{board_lines, explain_facts, explain_illegal};
use crate::results::bundle::FaultFacts;
use crate::tournament::league::faults::{Example, FaultGroup};
use crate::tournament::league::files::Status;
use crate::tournament::league::grades::{Grade, Outcome, Verdict};
use crate::tournament::league::student::{Graded, NotPlayed, Student, Terms};

/// A whole percentage of `x` (0 to 1).
fn percent(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

/// Points as people write them: `7`, `6.5`.
fn points(x: f64) -> String {
    format!("{x}")
}

/// `n thing` or `n things`.
fn count(n: u32, thing: &str) -> String {
    format!("{n} {thing}{}", if n == 1 { "" } else { "s" })
}

/// "2026-12-04T23:12:33Z" as "2026-12-04 23:12 UTC".
fn when(stamp: &str) -> String {
    match (stamp.get(..10), stamp.get(11..16)) {
        (Some(day), Some(time)) if stamp.ends_with('Z') => format!("{day} {time} UTC"),
        _ => stamp.to_string(),
    }
}

/// `command` quoted for a shell, as `arena check` shows it.
fn quoted(command: &str) -> String {
    shlex::try_quote(command).map_or_else(|_| command.to_string(), |q| q.into_owned())
}

/// The text of `student`'s feedback file.
pub fn league(student: &Student) -> String {
    let mut t = String::new();
    let name = &student.row.student;
    match (&student.not_played, student.status) {
        (Some(NotPlayed::LeftOut { why }), _) => {
            let _ = writeln!(t, "{name}: LEFT OUT of this run: nothing of it was played.");
            let _ = writeln!(t, "Why: {why}");
        }
        (Some(NotPlayed::Build { .. }), _) | (None, Status::BuildFailed) => {
            let _ = writeln!(
                t,
                "{name}: BUILD FAILED: your newest submission did not build, so it played no \
                 game this time."
            );
        }
        _ => {
            let grade = student.graded.as_ref().map(|g| &g.grade);
            let _ = writeln!(t, "{name}: {}", headline(grade, &student.terms));
        }
    }
    if let Some(NotPlayed::Build {
        command,
        ended,
        output,
    }) = &student.not_played
    {
        build_block(&mut t, command.as_deref(), ended, output);
    }
    match &student.graded {
        Some(graded) => {
            if student.not_played.is_some() {
                let _ = writeln!(
                    t,
                    "\nYour grade is still that of your last version that played (first seen {}): \
                     {}",
                    when(&graded.since),
                    headline(Some(&graded.grade), &student.terms)
                );
            }
            levels_block(&mut t, &graded.grade, &student.terms);
            faults_block(&mut t, &graded.grade, &student.faults);
        }
        None => {
            let _ = writeln!(
                t,
                "\nNo version of yours has played in this league yet, so there is no grade yet."
            );
        }
    }
    next_steps(&mut t, student);
    if let (Some(now), Some(before)) = (&student.graded, &student.previous) {
        compare_block(&mut t, now, before);
    }
    about_block(&mut t, student);
    t
}

/// The result in one sentence, for a version graded `grade`.
fn headline(grade: Option<&Grade>, terms: &Terms) -> String {
    let Some(grade) = grade else {
        return "NO GRADE YET: your bot has not played a game.".to_string();
    };
    let reached = match &grade.highest {
        Some(level) => format!("your bot reached {level}"),
        None => "your bot has not reached a level yet".to_string(),
    };
    let open = open_words(grade, terms);
    match (grade.outcome, &terms.pass) {
        (Some(Outcome::Pass), Some(pass)) => {
            let open = if open.is_empty() {
                String::new()
            } else {
                format!(" Whether it reaches higher is not decided yet: {open}")
            };
            if grade.highest.as_deref() == Some(pass.as_str()) {
                format!(
                    "PASS. {}, the level you need to pass.{open}",
                    capital(&reached)
                )
            } else {
                format!(
                    "PASS. {} (you need {pass} to pass).{open}",
                    capital(&reached)
                )
            }
        }
        (Some(Outcome::Fail), Some(pass)) => {
            let open = if open.is_empty() {
                String::new()
            } else {
                format!(" Not decided yet: {open}")
            };
            format!(
                "NOT PASSED YET. {}; to pass, it needs {pass}.{open}",
                capital(&reached)
            )
        }
        (Some(Outcome::Undecided), Some(pass)) => {
            format!("NOT DECIDED YET whether you pass ({pass}). So far {reached}. {open}",)
        }
        _ if grade.settled() => format!("{}.", capital(&reached)),
        _ => format!("{}. {open}", capital(&reached)),
    }
}

/// "Your …" from "your …".
fn capital(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |c| {
        c.to_uppercase().chain(chars).collect::<String>()
    })
}

/// What is not settled, and what would settle it.
fn open_words(grade: &Grade, terms: &Terms) -> String {
    let open: Vec<_> = grade
        .levels
        .iter()
        .filter(|l| grade.undecided.contains(&l.level))
        .collect();
    let Some(first) = open.first() else {
        return String::new();
    };
    let score = percent(terms.pass_score);
    if first.games >= terms.max_games {
        format!(
            "Against {} it scored {} of {} points ({}): after {} games, the most the league \
             plays against one level, that is still not enough to tell whether it scores at \
             least {score}. A stronger version will settle it (or more games, if your teacher \
             lets the league play more).",
            first.level,
            points(first.points),
            first.games,
            percent(first.score()),
            first.games,
        )
    } else {
        format!(
            "Against {} it scored {} of {} points ({}): not enough games yet to tell whether it \
             scores at least {score}; the league plays more (up to {}) the next time it runs.",
            first.level,
            points(first.points),
            first.games,
            percent(first.score()),
            terms.max_games
        )
    }
}

/// A failed build: its command, how it ended, what it printed.
fn build_block(t: &mut String, command: Option<&str>, ended: &str, output: &[String]) {
    if let Some(command) = command {
        let _ = writeln!(t, "\nThe build command was: {command}\nIt ended: {ended}");
    } else {
        let _ = writeln!(t, "\nIt ended: {ended}");
    }
    if !output.is_empty() {
        let _ = writeln!(t, "What it printed (the end):");
        for line in output {
            let _ = writeln!(t, "  | {line}");
        }
    }
}

/// Each level: points of games, the share, and what the games settle.
fn levels_block(t: &mut String, grade: &Grade, terms: &Terms) {
    let _ = writeln!(
        t,
        "\nHow your bot did against each level (scoring at least {} of the points passes a \
         level; the league plays {} games against each, and up to {} where it takes more to be \
         sure):",
        percent(terms.pass_score),
        terms.min_games,
        terms.max_games
    );
    let width = grade
        .levels
        .iter()
        .map(|l| l.level.len())
        .max()
        .unwrap_or(6);
    for level in &grade.levels {
        let verdict = match (level.games, level.verdict) {
            (0, _) => "not played yet".to_string(),
            (_, Verdict::Passed) => "passed".to_string(),
            (_, Verdict::NotPassed) => "not passed".to_string(),
            (_, Verdict::Open) if grade.undecided.contains(&level.level) => {
                "not decided yet".to_string()
            }
            (_, Verdict::Open) => {
                "not decided (it does not matter: a stronger level is passed)".to_string()
            }
        };
        let busy = match level.overloaded {
            0 => String::new(),
            1 => "; 1 game played while the computer was too busy to give your bot its time does not count".to_string(),
            n => format!("; {n} games played while the computer was too busy to give your bot its time do not count"),
        };
        let _ = writeln!(
            t,
            "  {:<width$}  {:>4} of {:<3} points ({:>4})  {verdict}{busy}",
            level.level,
            points(level.points),
            level.games,
            percent(level.score()),
        );
    }
    if let Some(p) = grade.placement {
        let scale: Vec<String> = terms
            .levels
            .iter()
            .map(|(name, elo)| format!("{name} is {elo:.0}"))
            .collect();
        let strength = if p.elo == f64::INFINITY {
            "stronger than every level it played: it won every game".to_string()
        } else if p.elo == f64::NEG_INFINITY {
            "weaker than every level it played: it lost every game".to_string()
        } else {
            let range = match (p.interval.low.is_finite(), p.interval.high.is_finite()) {
                (true, true) => format!(
                    "; it could be anywhere from {:.0} to {:.0}, and more games would narrow that",
                    p.interval.low, p.interval.high
                ),
                _ => String::new(),
            };
            format!("about {:.0}{range}", p.elo)
        };
        let _ = writeln!(
            t,
            "Your bot's strength: {strength} (on the levels' scale: {}).",
            scale.join(", ")
        );
    }
}

/// Why games were lost: each kind of fault once, with its count and its
/// first game.
fn faults_block(t: &mut String, grade: &Grade, faults: &[FaultGroup]) {
    let lost: u32 = grade
        .levels
        .iter()
        .map(|l| {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let won = l.points.floor() as u32;
            l.games.saturating_sub(won)
        })
        .sum();
    if faults.is_empty() {
        if lost > 0 {
            let _ = writeln!(
                t,
                "\nYour bot lost no game by its own doing: every game it did not win was decided \
                 on the board."
            );
        }
        return;
    }
    let by_fault: u32 = faults.iter().map(|f| f.games).sum();
    let _ = writeln!(
        t,
        "\nWhy your bot lost games by its own doing ({}):",
        count(by_fault, "game")
    );
    for group in faults {
        let e = &group.example;
        let words = fault_words(e);
        let _ = writeln!(t, "  {}: {words}", count(group.games, "game"));
        let moment = match e.own_moves() {
            0 => "on its first move".to_string(),
            n => format!(
                "after {} of its own",
                count(u32::try_from(n).unwrap_or(0), "move")
            ),
        };
        let _ = writeln!(
            t,
            "    The first was game {} against {}, your bot playing {}, {moment}.",
            e.game, e.opponent, e.mark
        );
        if let Some(limit) = time_limit(e) {
            let _ = writeln!(t, "    {limit}");
        }
        if let Some(board) = board(e) {
            for line in board {
                let _ = writeln!(t, "      {line}");
            }
        }
        if !e.stderr.is_empty() {
            let _ = writeln!(t, "    Your bot's stderr (its error output) ended with:");
            for line in &e.stderr {
                let _ = writeln!(t, "      | {line}");
            }
        }
    }
}

/// The fault of `e` in words: as `arena check` says it; an illegal move with
/// why the rules refuse it.
fn fault_words(e: &Example) -> String {
    match &e.facts {
        Some(FaultFacts::Illegal { square }) => {
            let position = Position::from_moves(e.rules, e.moves.iter().copied()).ok();
            match (position, square.parse::<Square>()) {
                (Some(pos), Ok(sq)) => explain_illegal(&pos, sq),
                _ => e.detail.clone(),
            }
        }
        Some(facts) => explain_facts(facts),
        None => e.detail.clone(),
    }
}

/// For a timeout: the time it had, in words.
fn time_limit(e: &Example) -> Option<String> {
    let Some(FaultFacts::Timeout {
        charged_ms,
        allowed_ms,
        ..
    }) = &e.facts
    else {
        return None;
    };
    let which = if e.own_moves() == 0 {
        "its first move of a game (a fresh program may need to start up)"
    } else {
        "each move after its first"
    };
    Some(format!(
        "It took more than {charged_ms} ms, and it had {allowed_ms} ms for {which}."
    ))
}

/// For an illegal move: the board it was played on.
fn board(e: &Example) -> Option<Vec<String>> {
    let Some(FaultFacts::Illegal { square }) = &e.facts else {
        return None;
    };
    let position = Position::from_moves(e.rules, e.moves.iter().copied()).ok()?;
    let square = square.parse::<Square>().ok()?;
    Some(board_lines(&position, &e.moves, Some((e.mark, square))))
}

/// What to do next: run the bot, check it, and a hint for each fault.
fn next_steps(t: &mut String, student: &Student) {
    let _ = writeln!(t, "\nWhat to do next:");
    let command = student.command.as_deref();
    if let Some(NotPlayed::Build {
        command: Some(build),
        ..
    }) = &student.not_played
    {
        let _ = writeln!(
            t,
            "  - Fix the first error above (its file and line start its line), then build your \
             bot yourself, in your bot's folder: {build}"
        );
    }
    if let Some(NotPlayed::LeftOut { .. }) = &student.not_played {
        let _ = writeln!(
            t,
            "  - Do what the 'Why' above says; the next run plays it again."
        );
    }
    if let Some(command) = command {
        let _ = writeln!(
            t,
            "  - Run your bot yourself, in your bot's folder: {command}\n    It should wait for \
             the arena: type uttt 1 and press Enter, and it should answer ready."
        );
        let _ = writeln!(
            t,
            "  - Check it, step by step, in your bot's folder: arena check {}",
            quoted(command)
        );
    }
    let reasons: Vec<EndReason> = student.faults.iter().map(|f| f.reason).collect();
    let hint = |t: &mut String, words: &str| {
        let _ = writeln!(t, "  - {words}");
    };
    if reasons.contains(&EndReason::Crash) || reasons.contains(&EndReason::HandshakeFailure) {
        hint(
            t,
            "Your bot stopped with an error: the last lines of its error output above name the \
             file and line where it happened.",
        );
    }
    if reasons.contains(&EndReason::Timeout) {
        let terms = &student.terms;
        let limits = match (terms.first_move_ms, terms.move_ms) {
            (Some(first), Some(each)) if first != each => {
                format!(
                    " ({first} ms for its first move of a game, {each} ms for each move after it)"
                )
            }
            (_, Some(each)) => format!(" ({each} ms a move)"),
            _ => String::new(),
        };
        hint(
            t,
            &format!(
                "Your bot answered too late: make it answer within its time{limits}, and print \
                 each move on a line of its own, flushed."
            ),
        );
    }
    if reasons.contains(&EndReason::IllegalMove) {
        hint(
            t,
            "Your bot played a square the rules do not allow: play only a square of the `legal` \
             list the arena sends with each `go`.",
        );
    }
    if reasons.contains(&EndReason::MalformedOutput) {
        hint(
            t,
            "Your bot printed something that is not a move: print only your move (like e5) on \
             standard output, and anything else to standard error.",
        );
    }
    if student.faults.is_empty()
        && student.not_played.is_none()
        && let Some(grade) = student.graded.as_ref().map(|g| &g.grade)
    {
        let above = grade
            .levels
            .iter()
            .rposition(|l| l.verdict == Verdict::Passed)
            .map_or(0, |h| h + 1);
        if let Some(next) = grade.levels.get(above) {
            hint(
                t,
                &format!(
                    "Your next goal is {}: play against it yourself (arena match {} {}) and \
                     see where your bot loses.",
                    next.level,
                    quoted(command.unwrap_or("./bot")),
                    next.level
                ),
            );
        }
    }
}

/// This version against the previous one.
fn compare_block(t: &mut String, now: &Graded, before: &Graded) {
    let _ = writeln!(
        t,
        "\nCompared with your previous version (first seen {}):",
        when(&before.since)
    );
    let level = |g: &Grade| g.highest.clone().unwrap_or_else(|| "no level".into());
    let rank = |g: &Grade| {
        g.highest
            .as_ref()
            .and_then(|h| g.levels.iter().position(|l| &l.level == h))
    };
    let (a, b) = (&before.grade, &now.grade);
    let levels = match rank(b).cmp(&rank(a)) {
        std::cmp::Ordering::Greater => "higher",
        std::cmp::Ordering::Less => "lower",
        std::cmp::Ordering::Equal => "the same",
    };
    let _ = writeln!(
        t,
        "  highest level: {} before, {} now ({levels}).",
        level(a),
        level(b)
    );
    if let (Some(pa), Some(pb)) = (a.placement, b.placement)
        && pa.elo.is_finite()
        && pb.elo.is_finite()
    {
        let overlap = pa.interval.low <= pb.interval.high && pb.interval.low <= pa.interval.high;
        let direction = if pb.elo > pa.elo {
            "stronger"
        } else {
            "weaker"
        };
        let verdict = if (pb.elo - pa.elo).abs() < 0.5 {
            "the same".to_string()
        } else if overlap {
            format!(
                "about the same: this version looks {direction}, but by less than chance can \
                 move it in these games"
            )
        } else {
            direction.to_string()
        };
        let _ = writeln!(
            t,
            "  strength: about {:.0} before, about {:.0} now ({verdict}).",
            pa.elo, pb.elo
        );
    }
}

/// The version, times and seed, last.
fn about_block(t: &mut String, student: &Student) {
    let _ = writeln!(t, "\nAbout this feedback:");
    let terms = &student.terms;
    if let Some(g) = &student.graded {
        let _ = writeln!(
            t,
            "  graded version {} (first seen {}), {} in the league \"{}\"",
            g.version,
            when(&g.since),
            count(g.grade.games, "game"),
            terms.league
        );
    }
    if !student.row.version.is_empty()
        && student.graded.as_ref().map(|g| g.version.as_str()) != Some(&student.row.version)
    {
        let _ = writeln!(t, "  newest version {}", student.row.version);
    }
    if let Some(grade) = student.row.grade {
        let _ = writeln!(t, "  grade: {grade}");
    }
    let _ = writeln!(t, "  league seed {}", terms.seed);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::league::grades::AgainstLevel;
    use ratings::{Interval, Placement};

    fn terms() -> Terms {
        Terms {
            league: "season".into(),
            levels: vec![("level1".into(), 0.0), ("level2".into(), 199.0)],
            pass: Some("level2".into()),
            pass_score: 0.5,
            min_games: 4,
            max_games: 20,
            move_ms: Some(200),
            first_move_ms: Some(2000),
            seed: 5,
        }
    }

    fn grade(elo: f64, half: f64, level2: (u32, f64, Verdict), outcome: Outcome) -> Grade {
        let passed = level2.2 == Verdict::Passed;
        Grade {
            placement: Some(Placement {
                elo,
                interval: Interval {
                    low: elo - half,
                    high: elo + half,
                },
                dispersion: 1.0,
                pairs: 4,
                games: 8,
                points: 4.0,
            }),
            levels: vec![
                AgainstLevel {
                    level: "level1".into(),
                    games: 4,
                    points: 4.0,
                    verdict: Verdict::Passed,
                    overloaded: 0,
                },
                AgainstLevel {
                    level: "level2".into(),
                    games: level2.0,
                    points: level2.1,
                    verdict: level2.2,
                    overloaded: 0,
                },
            ],
            highest: Some(if passed { "level2" } else { "level1" }.into()),
            undecided: if level2.2 == Verdict::Open {
                vec!["level2".into()]
            } else {
                Vec::new()
            },
            outcome: Some(outcome),
            games: 4 + level2.0,
            faults: std::collections::BTreeMap::new(),
            grade: if passed { 100.0 } else { 50.0 },
        }
    }

    #[test]
    fn the_result_comes_first_in_plain_words() {
        let pass = grade(300.0, 100.0, (8, 7.0, Verdict::Passed), Outcome::Pass);
        assert_eq!(
            headline(Some(&pass), &terms()),
            "PASS. Your bot reached level2, the level you need to pass."
        );
        let open = grade(190.0, 150.0, (20, 9.5, Verdict::Open), Outcome::Undecided);
        assert_eq!(
            headline(Some(&open), &terms()),
            "NOT DECIDED YET whether you pass (level2). So far your bot reached level1. Against \
             level2 it scored 9.5 of 20 points (48%): after 20 games, the most the league plays \
             against one level, that is still not enough to tell whether it scores at least \
             50%. A stronger version will settle it (or more games, if your teacher lets the \
             league play more)."
        );
        assert_eq!(
            headline(None, &terms()),
            "NO GRADE YET: your bot has not played a game."
        );
    }

    #[test]
    fn a_version_is_compared_with_the_last_by_its_level_and_its_strength_within_chance() {
        let graded = |g: Grade| Graded {
            version: "v".into(),
            since: "2026-12-01T10:00:00Z".into(),
            grade: g,
        };
        let before = graded(grade(
            100.0,
            80.0,
            (8, 2.0, Verdict::NotPassed),
            Outcome::Fail,
        ));
        // Higher level, lower rating, within each other's intervals.
        let now = graded(grade(80.0, 80.0, (8, 7.0, Verdict::Passed), Outcome::Pass));
        let mut t = String::new();
        compare_block(&mut t, &now, &before);
        assert!(t.contains("(first seen 2026-12-01 10:00 UTC)"), "{t}");
        assert!(
            t.contains("highest level: level1 before, level2 now (higher)."),
            "{t}"
        );
        assert!(
            t.contains(
                "strength: about 100 before, about 80 now (about the same: this version looks \
                 weaker, but by less than chance can move it in these games)."
            ),
            "{t}"
        );
        let far = graded(grade(400.0, 50.0, (8, 7.0, Verdict::Passed), Outcome::Pass));
        let mut t = String::new();
        compare_block(&mut t, &far, &before);
        assert!(t.contains("about 400 now (stronger)"), "{t}");
    }
}
