//! A version's grade: its place on the reference levels' Elo scale from its games
//! against the levels alone (colour-swapped pairs, placed as `arena rate` places a
//! bot: [`ratings::place`]), and for each level whether the games *settle* that it
//! scores `pass-score` against it, settle that it does not, or leave it open. The
//! highest level and the pass are stated only from settled levels; while a level
//! that could change them is open, they are "not yet decided", and
//! [`games_wanted`] asks for another pair against it, up to `max-games`. The
//! classmates' games never enter a grade, so it does not move because someone
//! else submitted.
//!
//! A level is settled by the same interval `arena rate` stops on: the version
//! placed on that level's games alone ([`ratings::place`], a likelihood-ratio
//! interval widened by the pairs' own dispersion) scores at least `pass-score`
//! against it exactly when its rating reaches the level's rating plus
//! `400·log10(p / (1 − p))` (the Elo model the scale was fitted with), so the
//! pass is settled when the whole interval lies on one side of that rating.
//! Every decision is a function of the version's own games, so two copies of a
//! deterministic program, which play the same games, get the same grade.

use std::collections::BTreeMap;

use ratings::{AnchoredPair, Confidence, Placement, place};
use uttt::result::Decision;

use super::super::settings::league::League;
use crate::results::machine_load::MIN_SHARE;
use crate::results::store::GameRow;

/// Whether the games against one level settle that the version scores
/// `pass-score` against it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Settled: it scores at least `pass-score` against the level.
    Passed,
    /// Settled: it scores less.
    NotPassed,
    /// Not settled by the games so far (or none yet).
    Open,
}

/// A version's games against one level.
#[derive(Clone, Debug, PartialEq)]
pub struct AgainstLevel {
    /// The level.
    pub level: String,
    /// Games played that count.
    pub games: u32,
    /// Points scored (a win 1, a draw ½).
    pub points: f64,
    /// What the games settle.
    pub verdict: Verdict,
    /// Games played that do not count: the version's bot, which plays by
    /// the clock, got less than its share of the CPU even after the governor
    /// played the game again (`games.csv`'s shares; see
    /// `tournament::governor`). They are played, so no later run plays them
    /// again, but they settle nothing: the level wants more games instead.
    pub overloaded: u32,
}

impl AgainstLevel {
    /// Points per game.
    pub fn score(&self) -> f64 {
        if self.games == 0 {
            0.0
        } else {
            self.points / f64::from(self.games)
        }
    }
}

/// Pass or fail against the `pass` level, or not settled yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A level at or above `pass` is settled passed.
    Pass,
    /// Every level at or above `pass` is settled not passed.
    Fail,
    /// Neither yet.
    Undecided,
}

impl Outcome {
    /// Its word in the files.
    pub const fn word(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Undecided => "undecided",
        }
    }
}

/// One version's grade.
#[derive(Clone, Debug, PartialEq)]
pub struct Grade {
    /// Where the levels' games place it (`None` before any).
    pub placement: Option<Placement>,
    /// Per level, weakest first (levels it has not met yet included, at 0 games).
    pub levels: Vec<AgainstLevel>,
    /// The strongest level settled passed.
    pub highest: Option<String>,
    /// The open levels that could still change `highest` (none above them is
    /// settled passed): empty when `highest` is settled.
    pub undecided: Vec<String>,
    /// Against the `pass` level (`None` without one).
    pub outcome: Option<Outcome>,
    /// Games it played in the league (levels and classmates).
    pub games: u32,
    /// Games it lost by its own fault (timeout, crash, illegal move…), by reason.
    pub faults: BTreeMap<String, u32>,
    /// The numeric grade by the league's rule, from `highest`.
    pub grade: f64,
}

impl Grade {
    /// Whether `highest` (and so the outcome) is settled.
    pub fn settled(&self) -> bool {
        self.undecided.is_empty()
    }
}

/// The rating from which a version scores `pass_score` against an opponent
/// rated `elo`: `elo + 400·log10(p/(1−p))` (infinite for a score of 1).
pub fn threshold(elo: f64, pass_score: f64) -> f64 {
    if pass_score >= 1.0 {
        return f64::INFINITY;
    }
    elo + 400.0 * (pass_score / (1.0 - pass_score)).log10()
}

/// What `pairs` (the version's games against a level rated `elo`) settle.
fn verdict(pairs: &[AnchoredPair], elo: f64, pass_score: f64) -> Verdict {
    let Some(p) = place(pairs, Confidence::default()) else {
        return Verdict::Open;
    };
    let line = threshold(elo, pass_score);
    if p.interval.low >= line {
        Verdict::Passed
    } else if p.interval.high < line {
        Verdict::NotPassed
    } else {
        Verdict::Open
    }
}

/// The grade of `name`'s `version` from `rows` (every game of the league).
pub fn grade(league: &League, name: &str, version: &str, rows: &[GameRow]) -> Grade {
    let mut levels: Vec<AgainstLevel> = league
        .levels
        .iter()
        .map(|l| AgainstLevel {
            level: l.name.clone(),
            games: 0,
            points: 0.0,
            verdict: Verdict::Open,
            overloaded: 0,
        })
        .collect();
    // Pairs by level, then by pair number.
    let mut pairs: Vec<BTreeMap<u32, AnchoredPair>> = vec![BTreeMap::new(); league.levels.len()];
    let mut games = 0;
    let mut faults = BTreeMap::new();
    for row in rows {
        let Some(seat) = row.seat_of(name) else {
            continue;
        };
        let mine = match seat {
            uttt::rules::Mark::X => &row.x_version,
            uttt::rules::Mark::O => &row.o_version,
        };
        if mine != version {
            continue;
        }
        games += 1;
        if row.loser() == Some(seat) && !row.reason.on_the_board() {
            *faults.entry(row.reason.name().to_string()).or_insert(0) += 1;
        }
        let opponent = row.bot(!seat);
        let Some(i) = league.levels.iter().position(|l| l.name == opponent) else {
            continue;
        };
        let share = match seat {
            uttt::rules::Mark::X => row.x_cpu_share,
            uttt::rules::Mark::O => row.o_cpu_share,
        };
        if league.timed && share.is_some_and(|s| s < MIN_SHARE) {
            levels[i].overloaded += 1;
            continue;
        }
        let points = match row.winner {
            Decision::Win(w) if w == seat => 1.0,
            Decision::Win(_) => 0.0,
            Decision::Draw => 0.5,
        };
        levels[i].games += 1;
        levels[i].points += points;
        let pair = pairs[i].entry(row.pair).or_insert(AnchoredPair {
            opponent: league.levels[i].elo,
            points: 0.0,
            games: 0,
        });
        pair.points += points;
        pair.games += 1;
    }
    for (i, level) in levels.iter_mut().enumerate() {
        let of_level: Vec<AnchoredPair> = pairs[i].values().copied().collect();
        level.verdict = verdict(&of_level, league.levels[i].elo, league.pass_score);
    }
    let all: Vec<AnchoredPair> = pairs.iter().flat_map(|p| p.values().copied()).collect();
    let highest_at = levels.iter().rposition(|l| l.verdict == Verdict::Passed);
    let highest = highest_at.map(|i| levels[i].level.clone());
    let undecided = levels
        .iter()
        .enumerate()
        .filter(|(i, l)| l.verdict == Verdict::Open && highest_at.is_none_or(|h| *i > h))
        .map(|(_, l)| l.level.clone())
        .collect();
    let outcome = league.pass.as_deref().map(|pass| {
        let from = league
            .levels
            .iter()
            .position(|l| l.name == pass)
            .unwrap_or(0);
        let at_or_above = &levels[from.min(levels.len())..];
        if at_or_above.iter().any(|l| l.verdict == Verdict::Passed) {
            Outcome::Pass
        } else if at_or_above.iter().all(|l| l.verdict == Verdict::NotPassed) {
            Outcome::Fail
        } else {
            Outcome::Undecided
        }
    });
    Grade {
        placement: place(&all, Confidence::default()),
        grade: league.grade_of(highest.as_deref()),
        levels,
        highest,
        undecided,
        outcome,
        games,
        faults,
    }
}

/// How many games `grade`'s version should have played against each level
/// (weakest first) by now: the first `min_games` against every level; then,
/// against each level still open that could change the highest level, one
/// colour-swapped pair more than it has, up to `max_games`. A level settled,
/// or below one settled passed, or at `max_games`, wants no more: the games a
/// version plays are a function of its own results, so copies play the same.
pub fn games_wanted(league: &League, grade: &Grade) -> Vec<u32> {
    grade
        .levels
        .iter()
        .map(|l| {
            // Games that did not count are played all the same: the level
            // wants as many more as it would without them, up to `max_games`
            // such games more (a machine that stays overloaded leaves the
            // level undecided, never plays forever).
            let played = l.games + l.overloaded;
            let cap = league.max_games + l.overloaded.min(league.max_games);
            if l.games < league.min_games {
                (played + league.min_games - l.games).min(cap).max(played)
            } else if grade.undecided.contains(&l.level) && played < cap {
                (played + 2 - played % 2).min(cap)
            } else {
                played
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::settings::input::LeagueMode;
    use crate::tournament::settings::league::LeagueLevel;
    use uttt::result::EndReason;
    use uttt::rules::{Mark, Rules};

    fn league() -> League {
        League {
            mode: LeagueMode::Mixed,
            levels: vec![
                LeagueLevel {
                    name: "level1".into(),
                    elo: 0.0,
                },
                LeagueLevel {
                    name: "level4".into(),
                    elo: 500.0,
                },
            ],
            pass: Some("level4".into()),
            pass_score: 0.5,
            similarity_threshold: 0.6,
            min_games: 4,
            max_games: 8,
            starter: None,
            level_grades: vec![50.0, 100.0],
            no_level_grade: 0.0,
            timed: true,
        }
    }

    fn game(
        pair: u32,
        x: (&str, &str),
        o: (&str, &str),
        winner: Decision,
        reason: EndReason,
    ) -> GameRow {
        GameRow {
            id: format!("G{pair}{}", x.0),
            round: 1,
            pair,
            x: x.0.into(),
            o: o.0.into(),
            opening: Vec::new(),
            winner,
            winner_name: String::new(),
            reason,
            detail: String::new(),
            plies: 30,
            boards_x: 0,
            boards_o: 0,
            rules: Rules::STANDARD,
            duration_ms: 1,
            seed: 1,
            x_version: x.1.into(),
            o_version: o.1.into(),
            x_cpu_share: None,
            o_cpu_share: None,
        }
    }

    /// `pairs` colour-swapped pairs of ada (version `v`) against `level`, with
    /// `won` games of each pair won by ada (the rest lost).
    fn pairs_against(level: &str, first_pair: u32, pairs: u32, won: u32) -> Vec<GameRow> {
        let line = EndReason::ThreeInARow;
        let mut rows = Vec::new();
        for p in first_pair..first_pair + pairs {
            let first = if won >= 1 { Mark::X } else { Mark::O };
            let second = if won >= 2 { Mark::O } else { Mark::X };
            rows.push(game(
                p,
                ("ada", "v"),
                (level, "l"),
                Decision::Win(first),
                line,
            ));
            rows.push(game(
                p,
                (level, "l"),
                ("ada", "v"),
                Decision::Win(second),
                line,
            ));
        }
        rows
    }

    #[test]
    fn the_grade_counts_only_this_versions_games_against_the_levels() {
        let win = Decision::Win(Mark::X);
        let loss = Decision::Win(Mark::O);
        let line = EndReason::ThreeInARow;
        let rows = [
            // ada v2: beats level1 twice, splits with level4.
            game(1, ("ada", "v2"), ("level1", "l"), win, line),
            game(1, ("level1", "l"), ("ada", "v2"), loss, line),
            game(2, ("ada", "v2"), ("level4", "l"), win, line),
            game(2, ("level4", "l"), ("ada", "v2"), win, EndReason::Timeout),
            // Her old version and a classmate: not in this grade.
            game(3, ("ada", "v1"), ("level4", "l"), loss, line),
            game(4, ("ada", "v2"), ("bo", "b"), loss, line),
        ];
        let g = grade(&league(), "ada", "v2", &rows);
        assert_eq!(
            g.games, 5,
            "classmate games count as games, not in the grade"
        );
        assert_eq!(g.levels[0].games, 2);
        assert!((g.levels[1].score() - 0.5).abs() < 1e-12);
        assert_eq!(g.faults.get("timeout"), Some(&1));
        let p = g.placement.unwrap();
        assert_eq!(p.games, 4);
        assert!(p.elo > 0.0 && p.elo.is_finite(), "{p:?}");
        // Two games settle nothing: every level is open, nothing is stated.
        assert_eq!(
            (g.highest.clone(), g.outcome),
            (None, Some(Outcome::Undecided))
        );
        assert_eq!(g.undecided, ["level1", "level4"]);
        assert_eq!(g.grade, 0.0);
    }

    #[test]
    fn a_version_without_games_is_undecided_and_wants_the_first_games() {
        let g = grade(&league(), "ada", "v3", &[]);
        assert_eq!(g.placement, None);
        assert_eq!(g.outcome, Some(Outcome::Undecided));
        assert_eq!(g.highest, None);
        assert_eq!(games_wanted(&league(), &g), [4, 4]);
    }

    #[test]
    fn a_bot_that_wins_or_loses_every_game_is_settled_by_the_first_games() {
        // Everything won against level1, everything lost against level4.
        let mut rows = pairs_against("level1", 1, 2, 2);
        rows.extend(pairs_against("level4", 3, 2, 0));
        let g = grade(&league(), "ada", "v", &rows);
        assert_eq!(g.levels[0].verdict, Verdict::Passed);
        assert_eq!(g.levels[1].verdict, Verdict::NotPassed);
        assert_eq!(g.highest.as_deref(), Some("level1"));
        assert!(g.settled());
        assert_eq!(g.outcome, Some(Outcome::Fail));
        assert_eq!(g.grade, 50.0);
        assert_eq!(games_wanted(&league(), &g), [4, 4], "nothing more to play");
    }

    #[test]
    fn an_even_score_wants_a_pair_more_until_max_games_and_stays_undecided() {
        let mut rows = pairs_against("level1", 1, 2, 2);
        rows.extend(pairs_against("level4", 3, 2, 1));
        let g = grade(&league(), "ada", "v", &rows);
        assert_eq!(g.levels[1].verdict, Verdict::Open);
        assert_eq!(g.undecided, ["level4"]);
        assert_eq!(g.highest.as_deref(), Some("level1"), "the settled part");
        assert_eq!(g.outcome, Some(Outcome::Undecided));
        assert_eq!(games_wanted(&league(), &g), [4, 6]);
        rows.extend(pairs_against("level4", 5, 2, 1));
        let g = grade(&league(), "ada", "v", &rows);
        assert_eq!(g.levels[1].games, 8);
        assert_eq!(
            games_wanted(&league(), &g),
            [4, 8],
            "max-games reached: open, no more"
        );
        assert_eq!(g.outcome, Some(Outcome::Undecided));
    }

    #[test]
    fn games_in_which_the_student_was_under_served_settle_nothing_and_want_more() {
        // Four wins against level1, each played while the student's bot got
        // 40% of the CPU it asked for.
        let starved = |mut rows: Vec<GameRow>| {
            for row in &mut rows {
                let share = Some(0.4);
                if row.x == "ada" {
                    row.x_cpu_share = share;
                } else {
                    row.o_cpu_share = share;
                }
            }
            rows
        };
        let mut rows = starved(pairs_against("level1", 1, 2, 2));
        let g = grade(&league(), "ada", "v", &rows);
        assert_eq!((g.levels[0].games, g.levels[0].overloaded), (0, 4));
        assert_eq!(
            g.levels[0].verdict,
            Verdict::Open,
            "nothing settled on them"
        );
        assert_eq!(g.highest, None);
        assert_eq!(
            games_wanted(&league(), &g)[0],
            8,
            "the first four games again, after the four played"
        );
        // Served games settle it.
        rows.extend(pairs_against("level1", 3, 2, 2));
        let g = grade(&league(), "ada", "v", &rows);
        assert_eq!(g.levels[0].verdict, Verdict::Passed);
        // A league at fixed work takes every game.
        let fixed = League {
            timed: false,
            ..league()
        };
        let g = grade(
            &fixed,
            "ada",
            "v",
            &starved(pairs_against("level1", 1, 2, 2)),
        );
        assert_eq!((g.levels[0].games, g.levels[0].overloaded), (4, 0));
        // A machine that stays overloaded: at most max-games more, then open.
        let many = starved(pairs_against("level1", 1, 20, 2));
        let g = grade(&league(), "ada", "v", &many);
        assert_eq!(g.levels[0].overloaded, 40);
        assert_eq!(games_wanted(&league(), &g)[0], 40, "no more: undecided");
    }

    #[test]
    fn a_level_below_one_settled_passed_needs_no_more_games() {
        // Even against level1 (open), everything won against level4.
        let mut rows = pairs_against("level1", 1, 2, 1);
        rows.extend(pairs_against("level4", 3, 2, 2));
        let g = grade(&league(), "ada", "v", &rows);
        assert_eq!(g.levels[0].verdict, Verdict::Open);
        assert_eq!(g.highest.as_deref(), Some("level4"));
        assert!(g.settled(), "{:?}", g.undecided);
        assert_eq!(g.outcome, Some(Outcome::Pass));
        assert_eq!(games_wanted(&league(), &g), [4, 4]);
    }

    #[test]
    fn the_pass_threshold_is_the_levels_rating_at_an_even_score() {
        assert!((threshold(500.0, 0.5) - 500.0).abs() < 1e-9);
        // 76% against a level is about 200 Elo above it.
        assert!((threshold(0.0, 0.76) - 200.0).abs() < 1.0);
        assert_eq!(threshold(0.0, 1.0), f64::INFINITY);
    }
}
