//! The calibration of the reference levels at reduced size: the shipped levels
//! play their neighbours in-process, the games are fitted like the published
//! calibration (one Bradley–Terry fit, level 1 anchored), and every step between
//! neighbours must be positive and agree with the table's documented step range.
//!
//! The design is deterministic: fixed seeds, and levels whose work is fixed, so
//! the same build always plays the same games. What it can detect is set by its
//! size: each step is estimated to about ±60–90 Elo (one standard error) where
//! the calibration of bots/levels.toml reached ±3–8, so the check is a gross one
//! (that calibration put every step inside the documented 150–250). It fails
//! when a level stops being stronger than the one below (a true step of 150 Elo
//! reads as 0 or less with a chance of about 1% at the top, far less below), or
//! when a step leaves the documented range by more than three standard errors of
//! this small design (200–250 Elo): a broken engine, a level redefined without
//! recalibrating, a change of strength that invalidates the published table. A
//! step that is truly in the range fails that second check with a chance below
//! 0.3%. `cargo test -p bots --test levels_scale -- --nocapture` prints the steps.

use std::time::Duration;

use bots::levels::LevelTable;
use bots::levels::games::{Played, Schedule, level_builder, play};
use ratings::{Anchor, Decision, Ending, FitOptions, GameResult, PairKey, Standings};
use uttt::rules::Rules;

/// Colour-swapped pairs per neighbouring pairing below the top one.
const PAIRS: u32 = 12;
/// Pairs for the top pairing, whose games cost the most by far (the top level
/// searches about thirty times as many playouts as the level below it).
const TOP_PAIRS: u32 = 8;
/// Standard errors a step may lie outside the documented range.
const Z: f64 = 3.0;

fn result_of(g: &Played) -> GameResult {
    let ending = Ending::of(g.winner.map_or(Decision::Draw, Decision::Win), g.reason);
    GameResult::new(
        format!("level{}", g.x + 1),
        format!("level{}", g.o + 1),
        ending,
    )
    .expect("two different names")
    .with_pair(PairKey(g.pair))
}

/// The levels this check plays: up to level 10. Level 11 thinks about a second a
/// move (800,000 playouts), so its step from level 10 costs a minute a game; it
/// is measured by the bounded calibration in bots/BENCHMARKS.md ("Level 11"),
/// not here.
const CHECKED: usize = 10;

#[test]
fn neighbouring_levels_are_ordered_and_their_steps_stay_in_the_documented_range() {
    let table = LevelTable::shipped();
    let levels = &table.levels()[..table.levels().len().min(CHECKED)];
    let n = levels.len();
    let contestants: Vec<_> = levels.iter().map(level_builder).collect();
    let neighbours = Schedule::window(n, 1);
    let (lower, top) = neighbours.split_at(n - 2);
    let schedule = |pairings: &[(usize, usize)], pairs: u32, seed: u64| Schedule {
        pairings: pairings.to_vec(),
        pairs,
        opening_plies: 4,
        rules: Rules::STANDARD,
        seed,
        move_time: Duration::from_secs(60),
    };
    let mut games = play(&contestants, &schedule(lower, PAIRS, 27), 2).expect("levels build");
    let top_games = play(&contestants, &schedule(top, TOP_PAIRS, 28), 2);
    let offset = 1 << 40; // keeps the top pairs' keys apart from the others'
    games.extend(
        top_games
            .expect("levels build")
            .into_iter()
            .map(|g| Played {
                pair: g.pair + offset,
                ..g
            }),
    );
    let results: Vec<GameResult> = games.iter().map(result_of).collect();
    let options = FitOptions {
        anchor: Anchor::Bot {
            name: "level1".into(),
            elo: 0.0,
        },
        ..FitOptions::default()
    };
    let standings = Standings::fit(&results, &options).expect("the fit runs");
    let range = table.steps();
    let mut report = String::new();
    let mut failures = Vec::new();
    for k in 1..n {
        let (below, above) = (format!("level{k}"), format!("level{}", k + 1));
        let at = |name: &str| standings.position(name).expect("every level played");
        let step = standings
            .difference(at(&above), at(&below))
            .expect("both in one component");
        let (low, high) = (step.elo - Z * step.std_error, step.elo + Z * step.std_error);
        report.push_str(&format!(
            "{below} -> {above}: {:+.0} ± {:.0} (1 s.e.)\n",
            step.elo, step.std_error
        ));
        if step.elo <= 0.0 {
            failures.push(format!("{above} is not above {below}"));
        }
        if high < range.low || low > range.high {
            failures.push(format!(
                "{below} -> {above}: {:+.0} ± {Z}×{:.0} misses {}..{}",
                step.elo, step.std_error, range.low, range.high
            ));
        }
    }
    println!("{report}");
    assert!(failures.is_empty(), "{}\n{report}", failures.join("\n"));
}
