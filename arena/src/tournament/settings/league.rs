//! What a tournament file's `[league]` table says (`arena league`): who each
//! student plays (the reference levels, the classmates, or both), which levels,
//! the level a pass needs and at what score, the most games against a level,
//! the grade each level is worth, the starter code the class was given and
//! the similarity threshold. Read
//! by the file's reader into a [`LeagueInput`], decided once by
//! [`decide`] into [`League`], whose levels then join the run's bots at fixed
//! work (as `arena rate` plays them).

use bots::levels::LevelTable;

use super::input::{Given, LeagueInput, LeagueMode};
use super::{SettingsError, Where};

/// One reference level a league plays.
#[derive(Clone, Debug, PartialEq)]
pub struct LeagueLevel {
    /// Its bot name (`level4`).
    pub name: String,
    /// Its rating on the levels' scale (`bots/levels.toml`).
    pub elo: f64,
}

/// A league's settings, decided.
#[derive(Clone, Debug, PartialEq)]
pub struct League {
    /// Who plays whom.
    pub mode: LeagueMode,
    /// The levels played, weakest first (none in `peers` mode).
    pub levels: Vec<LeagueLevel>,
    /// The level a pass needs, if the file names one.
    pub pass: Option<String>,
    /// The score against a level that counts as passing it.
    pub pass_score: f64,
    /// The source similarity from which a pair is flagged.
    pub similarity_threshold: f64,
    /// The first games against each level (the file's `games`): every version
    /// plays them.
    pub min_games: u32,
    /// The most games against one level (`max-games`): a level whose pass is
    /// not settled after `min_games` is played a pair more at a time, up to
    /// this.
    pub max_games: u32,
    /// The code the class was given (`starter`), left out of the similarity
    /// like the shipped starter kits.
    pub starter: Option<std::path::PathBuf>,
    /// The grade for reaching each level, weakest first (`level-grades`).
    pub level_grades: Vec<f64>,
    /// The grade when no level is reached, or nothing was graded
    /// (`no-level-grade`).
    pub no_level_grade: f64,
    /// Whether the students play by the clock (no node budget): then a game in
    /// which a student's bot got less than its share of the CPU counts toward
    /// no decision (see `tournament::governor`).
    pub timed: bool,
}

impl League {
    /// The grade of a version whose highest level (settled) is `highest`.
    pub fn grade_of(&self, highest: Option<&str>) -> f64 {
        highest
            .and_then(|h| self.levels.iter().position(|l| l.name == h))
            .and_then(|i| self.level_grades.get(i).copied())
            .unwrap_or(self.no_level_grade)
    }

    /// The most a grade can be (a gradebook's points possible).
    pub fn best_grade(&self) -> f64 {
        self.level_grades
            .iter()
            .copied()
            .fold(self.no_level_grade, f64::max)
    }
}

/// The levels played when the file names none: the six fastest (random play to
/// a small search), which span the range a class usually spans.
pub const DEFAULT_LEVELS: [u8; 6] = [1, 2, 3, 4, 5, 6];

/// Default `pass-score`: half the points against the level.
pub const DEFAULT_PASS_SCORE: f64 = 0.5;

/// Default `max-games`: enough to settle a pass of a bot that scores below 35%
/// or above 65% against the level (BENCHMARKS.md, "League: repeatable
/// grades"); closer than that stays "not yet decided".
pub const DEFAULT_MAX_GAMES: u32 = 20;

/// The default grade of the `i`-th of `n` levels (1-based): evenly spaced up to
/// 100, to one decimal (five levels: 20, 40, 60, 80, 100).
pub fn default_level_grade(i: usize, n: usize) -> f64 {
    let share = i as f64 / n.max(1) as f64;
    (share * 1000.0).round() / 10.0
}

/// Default `similarity-threshold`: measured on a class of 30 with planted copies
/// (BENCHMARKS.md, "League: the similarity's symmetric score"): every copy's
/// pair shared 0.397 of its fingerprints or more, every honest pair 0.128 or
/// less; the threshold lies between the lowest copy and twice the highest
/// honest pair.
pub const DEFAULT_SIMILARITY_THRESHOLD: f64 = 0.3;

/// The `[league]` table decided: the levels named exist, `pass` is one of them,
/// the fractions are fractions.
///
/// # Errors
/// A [`SettingsError`] naming the line and the fix.
pub fn decide(input: &LeagueInput, games: u32, at: &Where<'_>) -> Result<League, SettingsError> {
    let mode = input
        .mode
        .as_ref()
        .map_or_else(LeagueMode::default, |m| m.value);
    let table = LevelTable::shipped();
    let levels = if mode.plays_levels() {
        let names: Vec<String> = match &input.levels {
            Some(given) => given.value.clone(),
            None => DEFAULT_LEVELS.iter().map(|n| format!("level{n}")).collect(),
        };
        let source = input.levels.as_ref().map_or(&input.source, |l| &l.source);
        let mut levels = Vec::new();
        for name in names {
            let level = name
                .strip_prefix("level")
                .and_then(|n| n.parse::<u8>().ok())
                .and_then(|n| table.get(n))
                .ok_or_else(|| {
                    at.error(
                        source,
                        format!(
                            "levels: '{name}' is not a reference level: use level1 … level{}",
                            table.top()
                        ),
                    )
                })?;
            if levels.iter().any(|l: &LeagueLevel| l.name == level.name()) {
                return Err(at.error(source, format!("levels: '{name}' is listed twice")));
            }
            levels.push(LeagueLevel {
                name: level.name(),
                elo: level.elo,
            });
        }
        if levels.is_empty() {
            return Err(at.error(
                source,
                "levels = []: a grade needs at least one level, e.g. levels = [\"level2\", \"level4\"]",
            ));
        }
        levels.sort_by(|a, b| a.elo.total_cmp(&b.elo));
        levels
    } else {
        Vec::new()
    };
    let pass = match &input.pass {
        Some(p) if !levels.iter().any(|l| l.name == p.value) => {
            return Err(at.error(
                &p.source,
                format!(
                    "pass = \"{}\": the pass level must be one the league plays ({})",
                    p.value,
                    if levels.is_empty() {
                        "none in mode = \"peers\"".to_string()
                    } else {
                        levels
                            .iter()
                            .map(|l| l.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                ),
            ));
        }
        p => p.as_ref().map(|p| p.value.clone()),
    };
    let fraction = |given: &Option<Given<f64>>, key: &str, default: f64| match given {
        Some(g) if !(g.value > 0.0 && g.value <= 1.0) => Err(at.error(
            &g.source,
            format!(
                "{key} = {}: use a fraction above 0 and at most 1, e.g. 0.5",
                g.value
            ),
        )),
        Some(g) => Ok(g.value),
        None => Ok(default),
    };
    let max_games = match &input.max_games {
        Some(m) if m.value < games || m.value % 2 == 1 => {
            return Err(at.error(
                &m.source,
                format!(
                    "max-games = {}: use an even number (colour-swapped pairs) of at least the \
                     first games against each level (games = {games})",
                    m.value
                ),
            ));
        }
        Some(m) => m.value,
        None => DEFAULT_MAX_GAMES.max(games),
    };
    let level_grades = match &input.level_grades {
        Some(g) if g.value.len() != levels.len() => {
            return Err(at.error(
                &g.source,
                format!(
                    "level-grades lists {} grade{} for {} level{}: give one grade per level, \
                     weakest first ({})",
                    g.value.len(),
                    if g.value.len() == 1 { "" } else { "s" },
                    levels.len(),
                    if levels.len() == 1 { "" } else { "s" },
                    levels
                        .iter()
                        .map(|l| l.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        Some(g) if g.value.iter().any(|x| !x.is_finite() || *x < 0.0) => {
            return Err(at.error(
                &g.source,
                "level-grades: every grade must be a number of 0 or more",
            ));
        }
        Some(g) if g.value.windows(2).any(|w| w[1] < w[0]) => {
            return Err(at.error(
                &g.source,
                "level-grades: a stronger level cannot be worth less than a weaker one: list \
                 the grades weakest level first, each at least the one before",
            ));
        }
        Some(g) => g.value.clone(),
        None => (1..=levels.len())
            .map(|i| default_level_grade(i, levels.len()))
            .collect(),
    };
    let no_level_grade = match &input.no_level_grade {
        Some(g) if !g.value.is_finite() || g.value < 0.0 => {
            return Err(at.error(
                &g.source,
                format!("no-level-grade = {}: use a number of 0 or more", g.value),
            ));
        }
        Some(g) if level_grades.first().is_some_and(|first| g.value > *first) => {
            return Err(at.error(
                &g.source,
                format!(
                    "no-level-grade = {}: it cannot be more than the weakest level's grade ({})",
                    g.value,
                    level_grades.first().copied().unwrap_or_default()
                ),
            ));
        }
        Some(g) => g.value,
        None => 0.0,
    };
    Ok(League {
        mode,
        levels,
        pass,
        pass_score: fraction(&input.pass_score, "pass-score", DEFAULT_PASS_SCORE)?,
        similarity_threshold: fraction(
            &input.similarity_threshold,
            "similarity-threshold",
            DEFAULT_SIMILARITY_THRESHOLD,
        )?,
        min_games: games,
        max_games,
        starter: input.starter.as_ref().map(|s| s.value.clone()),
        level_grades,
        no_level_grade,
        timed: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::settings::input::Source;

    fn input() -> LeagueInput {
        LeagueInput {
            source: Source::Line(3),
            mode: None,
            levels: None,
            pass: None,
            pass_score: None,
            similarity_threshold: None,
            max_games: None,
            starter: None,
            level_grades: None,
            no_level_grade: None,
        }
    }

    const AT: Where<'static> = Where {
        file: Some("league.toml"),
    };

    #[test]
    fn the_defaults_are_six_levels_half_the_points_and_no_pass_level() {
        let league = decide(&input(), 4, &AT).unwrap();
        assert_eq!(league.mode, LeagueMode::Levels);
        let names: Vec<&str> = league.levels.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(
            names,
            ["level1", "level2", "level3", "level4", "level5", "level6"]
        );
        assert_eq!(league.pass, None);
        assert!((league.pass_score - 0.5).abs() < 1e-12);
    }

    #[test]
    fn a_pass_level_the_league_does_not_play_is_refused_at_its_line() {
        let mut i = input();
        i.levels = Some(Given::new(vec!["level2".into()], Source::Line(4)));
        i.pass = Some(Given::new("level4".into(), Source::Line(5)));
        let e = decide(&i, 4, &AT).unwrap_err();
        assert_eq!(e.line, Some(5));
        assert!(
            e.message.contains("must be one the league plays (level2)"),
            "{e}"
        );
    }

    #[test]
    fn unknown_levels_and_scores_out_of_range_are_refused() {
        let mut i = input();
        i.levels = Some(Given::new(vec!["level42".into()], Source::Line(4)));
        assert!(
            decide(&i, 4, &AT)
                .unwrap_err()
                .message
                .contains("not a reference level")
        );
        let mut i = input();
        i.pass_score = Some(Given::new(1.5, Source::Line(6)));
        assert!(
            decide(&i, 4, &AT)
                .unwrap_err()
                .message
                .contains("pass-score = 1.5")
        );
    }

    #[test]
    fn peers_mode_plays_no_level() {
        let mut i = input();
        i.mode = Some(Given::new(LeagueMode::Peers, Source::Line(4)));
        assert!(decide(&i, 4, &AT).unwrap().levels.is_empty());
    }

    #[test]
    fn the_default_grades_are_evenly_spaced_and_the_rule_picks_the_highest_level() {
        let league = decide(&input(), 4, &AT).unwrap();
        assert_eq!(league.level_grades, [16.7, 33.3, 50.0, 66.7, 83.3, 100.0]);
        assert_eq!(league.grade_of(Some("level3")), 50.0);
        assert_eq!(league.grade_of(None), 0.0);
        assert_eq!(league.best_grade(), 100.0);
        assert_eq!((league.min_games, league.max_games), (4, DEFAULT_MAX_GAMES));
    }

    #[test]
    fn grades_and_max_games_out_of_their_rules_are_refused_at_their_line() {
        let mut i = input();
        i.levels = Some(Given::new(
            vec!["level1".into(), "level2".into()],
            Source::Line(4),
        ));
        i.level_grades = Some(Given::new(vec![50.0], Source::Line(7)));
        let e = decide(&i, 4, &AT).unwrap_err();
        assert_eq!(e.line, Some(7));
        assert!(e.message.contains("1 grade for 2 levels"), "{e}");
        i.level_grades = Some(Given::new(vec![80.0, 60.0], Source::Line(7)));
        assert!(
            decide(&i, 4, &AT)
                .unwrap_err()
                .message
                .contains("cannot be worth less")
        );
        i.level_grades = Some(Given::new(vec![60.0, 80.0], Source::Line(7)));
        i.no_level_grade = Some(Given::new(70.0, Source::Line(8)));
        assert!(
            decide(&i, 4, &AT)
                .unwrap_err()
                .message
                .contains("no-level-grade = 70")
        );
        i.no_level_grade = Some(Given::new(10.0, Source::Line(8)));
        i.max_games = Some(Given::new(3, Source::Line(9)));
        let e = decide(&i, 4, &AT).unwrap_err();
        assert_eq!(e.line, Some(9));
        assert!(e.message.contains("max-games = 3"), "{e}");
        i.max_games = Some(Given::new(6, Source::Line(9)));
        let league = decide(&i, 4, &AT).unwrap();
        assert_eq!(league.grade_of(Some("level2")), 80.0);
        assert_eq!(league.grade_of(None), 10.0);
        assert_eq!(league.max_games, 6);
    }
}
