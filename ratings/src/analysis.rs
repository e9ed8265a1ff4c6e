//! Everything `arena ratings` shows, computed once from the games: the rating fit,
//! the head-to-head statistics of every pairing, and the first player's results.

use super::bradley_terry::{FitError, FitOptions, Standings};
use super::model::GameResult;
use super::pentanomial::PairingStats;
use super::record::FirstPlayer;
use super::totals::Totals;

/// The standings, pairings and first-player results of a set of games.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    /// The rating fit, with every bot's record.
    pub standings: Standings,
    /// Every two bots that met, `a` < `b` by name.
    pub pairings: Vec<PairingStats>,
    /// X's results over all games.
    pub first_player: FirstPlayer,
}

impl Analysis {
    /// Builds the report.
    ///
    /// # Errors
    /// As [`Standings::fit`]: an anchor bot that played no game.
    pub fn build(games: &[GameResult], options: &FitOptions) -> Result<Analysis, FitError> {
        Analysis::of(&Totals::of(games), options)
    }

    /// The report of the games counted in `totals`: what [`Self::build`] gives for
    /// those games, at a cost that grows with the bots and pairings only.
    ///
    /// # Errors
    /// As [`Standings::fit`].
    pub fn of(totals: &Totals, options: &FitOptions) -> Result<Analysis, FitError> {
        Ok(Analysis {
            standings: Standings::fit_totals(totals, options)?,
            pairings: totals.pairings(),
            first_player: totals.first_player(),
        })
    }

    /// The games between `bot` and `opponent`, seen by `bot`.
    pub fn pairing(&self, bot: &str, opponent: &str) -> Option<PairingStats> {
        self.pairings.iter().find_map(|p| {
            if p.a == bot && p.b == opponent {
                Some(p.clone())
            } else if p.a == opponent && p.b == bot {
                Some(p.flipped())
            } else {
                None
            }
        })
    }
}

#[cfg(test)]
mod properties {
    //! Any set of games, however odd, gives a finite report and well-formed output.
    use proptest::prelude::*;
    use uttt::rules::Mark;

    use super::super::model::{Decision, PairKey};
    use super::super::simulation::game;
    use super::super::table;
    use super::*;

    fn games() -> impl Strategy<Value = Vec<GameResult>> {
        let one = (0..5usize, 1..5usize, 0..3u8, proptest::option::of(0..4u64)).prop_map(
            |(x, offset, result, pair)| {
                let o = (x + offset) % 5;
                let decision = match result {
                    0 => Decision::Win(Mark::X),
                    1 => Decision::Draw,
                    _ => Decision::Win(Mark::O),
                };
                let g = game(&format!("b{x}"), &format!("b{o}"), decision);
                match pair {
                    Some(k) => g.with_pair(PairKey(k)),
                    None => g,
                }
            },
        );
        proptest::collection::vec(one, 0..40)
    }

    proptest! {
        // A fixed seed keeps the run deterministic, like every other test here.
        #![proptest_config(ProptestConfig {
            cases: 200,
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed),
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        #[test]
        fn every_game_set_gives_a_finite_consistent_report(games in games()) {
            let report = Analysis::build(&games, &FitOptions::default()).unwrap();
            let s = &report.standings;
            let mut played = 0;
            for (i, bot) in s.bots().iter().enumerate() {
                prop_assert!(bot.rating.elo.is_finite() && bot.rating.std_error.is_finite());
                played += bot.record.total.games();
                if let Some(next) = s.los(i, i + 1) {
                    prop_assert!((0.0..=1.0).contains(&next));
                }
            }
            prop_assert_eq!(played, 2 * games.len() as u64);
            for component in s.components() {
                let mean: f64 = component.iter().map(|&i| s.bots()[i].rating.elo).sum::<f64>()
                    / component.len() as f64;
                prop_assert!(mean.abs() < 1e-6);
            }
            let mut pair_games = 0;
            for p in &report.pairings {
                prop_assert_eq!(
                    p.games.games(),
                    2 * p.pentanomial.pairs() + p.unpaired.games()
                );
                pair_games += p.games.games();
            }
            prop_assert_eq!(pair_games, games.len() as u64);
            let mut out = Vec::new();
            table::write_standings_table(&mut out, &report, 80).unwrap();
            table::write_standings_brief(&mut out, &report, 80).unwrap();
            table::write_plain_notes(&mut out, &report, 80).unwrap();
            table::write_pairings_table(&mut out, &report, 80).unwrap();
            table::write_los_table(&mut out, &report).unwrap();
            let mut csv_out = Vec::new();
            table::write_crosstable_csv(&mut csv_out, &report).unwrap();
            let rows = String::from_utf8(csv_out).unwrap().lines().count();
            prop_assert_eq!(rows, 1 + 2 * report.pairings.len());
        }
    }
}
