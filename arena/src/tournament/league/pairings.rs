//! Which games a league run plays: every pairing of current versions the mode
//! asks for (each student's version against each level; against each classmate's
//! version too in `peers` and `mixed`), as colour-swapped pairs, up to the games
//! each pairing wants now (against a level: [`super::grades::games_wanted`], more
//! where a pass is not settled yet), minus the games those same two versions
//! already played. A pure function of the current versions, the rows and what
//! they want: nothing is replayed, a new version plays all its games, an
//! interrupted run is completed by the next.
//!
//! **The same games for every version.** The `k`-th game against a level is
//! the same for every version of every student: its opening (of pair `k / 2`)
//! and its seed are functions of the league's seed, the level and `k` alone,
//! never of the student; the student is X in the even games and O in the odd
//! ones. The bots' seeds in `newgame` derive from the game's seed and the seat
//! (`runner`), and a league starts a fresh process for every game, so a bot's
//! state cannot carry one game's history into another. Two copies of a
//! deterministic program therefore play the same games and get the same grade.

use std::collections::{BTreeMap, HashMap};

use uttt::rules::Rules;

use super::super::openings::Openings;
use super::super::schedule::{ScheduledGame, mix, opening_of};
use super::super::settings::input::LeagueMode;
use crate::results::store::{GameMeta, GameRow};

/// An entrant of the run: its index among the run's entrants, name, version, and
/// whether it is a reference level (levels never play each other).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Side {
    /// Index in the run's entrants.
    pub index: usize,
    /// Its name.
    pub name: String,
    /// Its current version.
    pub version: String,
    /// A reference level.
    pub level: bool,
}

/// What decides the games besides the sides and the rows.
#[derive(Clone, Debug)]
pub struct LeaguePlan {
    /// Who plays whom.
    pub mode: LeagueMode,
    /// Games per pairing (an even number: colour-swapped pairs).
    pub games: u32,
    /// The league's seed (tournament.json keeps it for the season).
    pub seed: u64,
    /// Openings.
    pub openings: Openings,
    /// Rules.
    pub rules: Rules,
    /// The round of the games to play (a league's round is its run).
    pub round: u32,
}

/// The games two versions played together, in either colour.
fn played(rows: &[GameRow]) -> HashMap<[(&str, &str); 2], u32> {
    let mut counts = HashMap::new();
    for row in rows {
        let mut key = [
            (row.x.as_str(), row.x_version.as_str()),
            (row.o.as_str(), row.o_version.as_str()),
        ];
        key.sort_unstable();
        *counts.entry(key).or_insert(0) += 1;
    }
    counts
}

/// A stable 64-bit value of a text (FNV-1a), for seeds that follow names.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The pairings the mode asks for, each as (first, second) in a fixed order.
fn pairings(sides: &[Side], mode: LeagueMode) -> Vec<(&Side, &Side)> {
    let mut list = Vec::new();
    for (i, a) in sides.iter().enumerate() {
        for b in &sides[i + 1..] {
            let wanted = match (a.level, b.level) {
                (true, true) => false,
                (false, false) => mode.plays_peers(),
                _ => mode.plays_levels(),
            };
            if wanted {
                // The student first, so its first game of a pair is as X.
                list.push(if a.level { (b, a) } else { (a, b) });
            }
        }
    }
    list
}

/// The seed of game `k` of the pairing of `a` (the student, or the first
/// classmate) and `b`: against a level, of the level and the pair `k / 2` only,
/// so every student meets it in the same games; between classmates, of both
/// names.
fn game_seed(plan: &LeaguePlan, a: &Side, b: &Side, k_pair: u64) -> u64 {
    let pairing = if b.level {
        fnv(&format!("level\0{}", b.name))
    } else {
        fnv(&format!("{}\0{}", a.name, b.name))
    };
    mix(plan.seed ^ mix(pairing ^ mix(k_pair)))
}

/// The games still to play, numbered after the games in `rows`, in round
/// `plan.round`: each pairing `(a, b)` played up to `wanted(a, b)` games.
pub fn missing(
    sides: &[Side],
    plan: &LeaguePlan,
    rows: &[GameRow],
    wanted: impl Fn(&Side, &Side) -> u32,
) -> Vec<ScheduledGame> {
    let counts = played(rows);
    let mut number = rows
        .iter()
        .filter_map(|r| GameMeta::number_of(&r.id))
        .max()
        .unwrap_or(0);
    let mut pair = rows.iter().map(|r| r.pair).max().unwrap_or(0);
    let mut openings: BTreeMap<u64, Vec<uttt::rules::Square>> = BTreeMap::new();
    let mut games = Vec::new();
    for (a, b) in pairings(sides, plan.mode) {
        let mut key = [
            (a.name.as_str(), a.version.as_str()),
            (b.name.as_str(), b.version.as_str()),
        ];
        key.sort_unstable();
        let done = counts.get(&key).copied().unwrap_or(0);
        for k in u64::from(done)..u64::from(wanted(a, b)) {
            let k_pair = k / 2;
            if k % 2 == 0 || k == u64::from(done) {
                pair += 1;
            }
            number += 1;
            let (x, o) = if k % 2 == 0 { (a, b) } else { (b, a) };
            let opening = openings
                .entry(k_pair)
                .or_insert_with(|| opening_of(&plan.openings, plan.rules, plan.seed, k_pair))
                .clone();
            games.push(ScheduledGame {
                meta: GameMeta {
                    id: GameMeta::id_of(number),
                    round: plan.round,
                    pair,
                    seed: game_seed(plan, a, b, k_pair),
                },
                number,
                x: x.index,
                o: o.index,
                opening,
            });
        }
    }
    games
}

#[cfg(test)]
mod tests {
    use super::*;
    use uttt::result::{Decision, EndReason};

    fn side(index: usize, name: &str, version: &str, level: bool) -> Side {
        Side {
            index,
            name: name.into(),
            version: version.into(),
            level,
        }
    }

    fn plan(mode: LeagueMode) -> LeaguePlan {
        LeaguePlan {
            mode,
            games: 4,
            seed: 7,
            openings: Openings::None,
            rules: Rules::STANDARD,
            round: 1,
        }
    }

    /// The plan's own games for every pairing.
    fn four(_: &Side, _: &Side) -> u32 {
        4
    }

    fn row_of(game: &ScheduledGame, sides: &[Side]) -> GameRow {
        let s = |i: usize| sides.iter().find(|s| s.index == i).unwrap();
        GameRow {
            id: game.meta.id.clone(),
            round: game.meta.round,
            pair: game.meta.pair,
            x: s(game.x).name.clone(),
            o: s(game.o).name.clone(),
            opening: game.opening.clone(),
            winner: Decision::Draw,
            winner_name: String::new(),
            reason: EndReason::NoMoves,
            detail: String::new(),
            plies: 81,
            boards_x: 0,
            boards_o: 0,
            rules: Rules::STANDARD,
            duration_ms: 1,
            seed: game.meta.seed,
            x_version: s(game.x).version.clone(),
            o_version: s(game.o).version.clone(),
            x_cpu_share: None,
            o_cpu_share: None,
        }
    }

    #[test]
    fn levels_mode_plays_each_student_against_each_level_and_levels_never_meet() {
        let sides = [
            side(0, "ada", "a1", false),
            side(1, "bo", "b1", false),
            side(2, "level1", "l1", true),
            side(3, "level2", "l2", true),
        ];
        let games = missing(&sides, &plan(LeagueMode::Levels), &[], four);
        assert_eq!(games.len(), 4 * 4);
        assert!(games.iter().all(|g| sides[g.x].level != sides[g.o].level));
        let mixed = missing(&sides, &plan(LeagueMode::Mixed), &[], four);
        assert_eq!(mixed.len(), 5 * 4);
    }

    #[test]
    fn a_rerun_plays_nothing_and_a_new_version_plays_only_its_own_games() {
        let mut sides = vec![
            side(0, "ada", "a1", false),
            side(1, "bo", "b1", false),
            side(2, "level1", "l1", true),
        ];
        let first = missing(&sides, &plan(LeagueMode::Mixed), &[], four);
        let rows: Vec<GameRow> = first.iter().map(|g| row_of(g, &sides)).collect();
        assert!(missing(&sides, &plan(LeagueMode::Mixed), &rows, four).is_empty());
        sides[0].version = "a2".into();
        let mut round_two = plan(LeagueMode::Mixed);
        round_two.round = 2;
        let second = missing(&sides, &round_two, &rows, four);
        assert_eq!(
            second.len(),
            2 * 4,
            "ada's new version against bo and the level"
        );
        assert!(second.iter().all(|g| g.x == 0 || g.o == 0));
        assert_eq!(second[0].meta.id, GameMeta::id_of(rows.len() as u64 + 1));
        assert_eq!(second[0].meta.round, 2);
    }

    #[test]
    fn every_version_of_every_student_meets_a_level_with_the_same_seeds_openings_and_colours() {
        let sides = [side(0, "ada", "a1", false), side(1, "level1", "l1", true)];
        // Another student, under another index, with a name that sorts first.
        let again = [side(1, "level1", "l1", true), side(0, "Zoe", "z9", false)];
        let mut plan = plan(LeagueMode::Levels);
        plan.openings = Openings::RandomPlies(4);
        let one = missing(&sides, &plan, &[], four);
        let two = missing(&again, &plan, &[], four);
        // The student's seat (X: true) by game, with the seed and opening.
        let key = |g: &ScheduledGame| (g.meta.seed, g.x == 0, g.opening.clone());
        assert_eq!(
            one.iter().map(key).collect::<Vec<_>>(),
            two.iter().map(key).collect::<Vec<_>>()
        );
        assert!(!one[0].opening.is_empty());
        assert_eq!(one[0].meta.seed, one[1].meta.seed, "a pair shares its seed");
        assert_ne!(one[0].x, one[1].x, "and swaps colours");
    }

    #[test]
    fn an_interrupted_pairing_is_completed_not_restarted() {
        let sides = [side(0, "ada", "a1", false), side(1, "level1", "l1", true)];
        let all = missing(&sides, &plan(LeagueMode::Levels), &[], four);
        let rows: Vec<GameRow> = all[..3].iter().map(|g| row_of(g, &sides)).collect();
        let rest = missing(&sides, &plan(LeagueMode::Levels), &rows, four);
        assert_eq!(rest.len(), 1);
        assert_eq!(rest[0].meta.seed, all[3].meta.seed);
    }

    #[test]
    fn a_pairing_plays_up_to_what_it_wants_now_and_a_pair_more_later() {
        let sides = [side(0, "ada", "a1", false), side(1, "level1", "l1", true)];
        let first = missing(&sides, &plan(LeagueMode::Levels), &[], four);
        let rows: Vec<GameRow> = first.iter().map(|g| row_of(g, &sides)).collect();
        let more = missing(&sides, &plan(LeagueMode::Levels), &rows, |_, _| 6);
        assert_eq!(more.len(), 2);
        // Game 4 and 5 of the pairing: the third pair's, colours swapped.
        assert_eq!((more[0].x, more[1].x), (0, 1));
        assert_eq!(more[0].meta.seed, more[1].meta.seed);
        let longer = missing(&sides, &plan(LeagueMode::Levels), &[], |_, _| 6);
        assert_eq!(more[0].meta.seed, longer[4].meta.seed);
    }
}
