//! What a tournament file's `[league]` table says (`arena league`): who each
//! student plays (the reference levels, the classmates, or both), which levels,
//! the level a pass needs and at what score, and the similarity threshold. Read
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
}

/// The levels played when the file names none: the six fastest (random play to
/// a small search), which span the range a class usually spans.
pub const DEFAULT_LEVELS: [u8; 6] = [1, 2, 3, 4, 5, 6];

/// Default `pass-score`: half the points against the level.
pub const DEFAULT_PASS_SCORE: f64 = 0.5;

/// Default `similarity-threshold`: measured on a class of 30 with planted copies
/// (BENCHMARKS.md, "League"): every copy scored 0.62 or more, every honest pair
/// 0.30 or less.
pub const DEFAULT_SIMILARITY_THRESHOLD: f64 = 0.6;

/// The `[league]` table decided: the levels named exist, `pass` is one of them,
/// the fractions are fractions.
///
/// # Errors
/// A [`SettingsError`] naming the line and the fix.
pub fn decide(input: &LeagueInput, at: &Where<'_>) -> Result<League, SettingsError> {
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
        }
    }

    const AT: Where<'static> = Where {
        file: Some("league.toml"),
    };

    #[test]
    fn the_defaults_are_six_levels_half_the_points_and_no_pass_level() {
        let league = decide(&input(), &AT).unwrap();
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
        let e = decide(&i, &AT).unwrap_err();
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
            decide(&i, &AT)
                .unwrap_err()
                .message
                .contains("not a reference level")
        );
        let mut i = input();
        i.pass_score = Some(Given::new(1.5, Source::Line(6)));
        assert!(
            decide(&i, &AT)
                .unwrap_err()
                .message
                .contains("pass-score = 1.5")
        );
    }

    #[test]
    fn peers_mode_plays_no_level() {
        let mut i = input();
        i.mode = Some(Given::new(LeagueMode::Peers, Source::Line(4)));
        assert!(decide(&i, &AT).unwrap().levels.is_empty());
    }
}
