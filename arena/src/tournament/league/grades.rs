//! A version's grade: its place on the reference levels' Elo scale from its games
//! against the levels alone (colour-swapped pairs, placed as `arena rate` places a
//! bot: [`ratings::place`]), the highest level it scored `pass-score` against, and
//! whether that reaches the `pass` level. The classmates' games never enter it,
//! so a grade does not move because someone else submitted.

use std::collections::BTreeMap;

use ratings::{AnchoredPair, Confidence, Placement, place};
use uttt::result::Decision;

use super::super::settings::league::League;
use crate::results::store::GameRow;

/// A version's games against one level.
#[derive(Clone, Debug, PartialEq)]
pub struct AgainstLevel {
    /// The level.
    pub level: String,
    /// Games played.
    pub games: u32,
    /// Points scored (a win 1, a draw ½).
    pub points: f64,
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

/// One version's grade.
#[derive(Clone, Debug, PartialEq)]
pub struct Grade {
    /// Where the levels' games place it (`None` before any).
    pub placement: Option<Placement>,
    /// Per level, weakest first (levels it has not met yet included, at 0 games).
    pub levels: Vec<AgainstLevel>,
    /// The strongest level it scored at least `pass-score` against.
    pub highest: Option<String>,
    /// Whether `highest` reaches the `pass` level (`None` without one).
    pub passed: Option<bool>,
    /// Games it played in the league (levels and classmates).
    pub games: u32,
    /// Games it lost by its own fault (timeout, crash, illegal move…), by reason.
    pub faults: BTreeMap<String, u32>,
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
        })
        .collect();
    let mut pairs: BTreeMap<u32, AnchoredPair> = BTreeMap::new();
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
        let points = match row.winner {
            Decision::Win(w) if w == seat => 1.0,
            Decision::Win(_) => 0.0,
            Decision::Draw => 0.5,
        };
        levels[i].games += 1;
        levels[i].points += points;
        let pair = pairs.entry(row.pair).or_insert(AnchoredPair {
            opponent: league.levels[i].elo,
            points: 0.0,
            games: 0,
        });
        pair.points += points;
        pair.games += 1;
    }
    let pairs: Vec<AnchoredPair> = pairs.into_values().collect();
    let highest = levels
        .iter()
        .rev()
        .find(|l| l.games > 0 && l.score() >= league.pass_score)
        .map(|l| l.level.clone());
    let rank = |name: &str| league.levels.iter().position(|l| l.name == name);
    let passed = league.pass.as_deref().map(|pass| {
        highest
            .as_deref()
            .and_then(rank)
            .zip(rank(pass))
            .is_some_and(|(h, p)| h >= p)
    });
    Grade {
        placement: place(&pairs, Confidence::default()),
        levels,
        highest,
        passed,
        games,
        faults,
    }
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
        assert_eq!(g.highest.as_deref(), Some("level4"));
        assert_eq!(g.passed, Some(true));
        assert_eq!(g.faults.get("timeout"), Some(&1));
        let p = g.placement.unwrap();
        assert_eq!(p.games, 4);
        assert!(p.elo > 0.0 && p.elo.is_finite(), "{p:?}");
    }

    #[test]
    fn a_version_without_games_has_no_rating_and_does_not_pass() {
        let g = grade(&league(), "ada", "v3", &[]);
        assert_eq!(g.placement, None);
        assert_eq!(g.passed, Some(false));
        assert_eq!(g.highest, None);
    }
}
