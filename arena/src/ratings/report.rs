//! Everything `arena ratings` shows, computed once from the games: the rating fit,
//! the head-to-head statistics of every pairing, and the first player's results.

use super::bradley_terry::{FitError, FitOptions, Standings};
use super::model::GameResult;
use super::pentanomial::{PairingStats, pairings};
use super::record::FirstPlayer;

/// The standings, pairings and first-player results of a set of games.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The rating fit, with every bot's record.
    pub standings: Standings,
    /// Every two bots that met, `a` < `b` by name.
    pub pairings: Vec<PairingStats>,
    /// X's results over all games.
    pub first_player: FirstPlayer,
}

impl Report {
    /// Builds the report.
    ///
    /// # Errors
    /// As [`Standings::fit`]: an anchor bot that played no game.
    pub fn build(games: &[GameResult], options: &FitOptions) -> Result<Report, FitError> {
        Ok(Report {
            standings: Standings::fit(games, options)?,
            pairings: pairings(games),
            first_player: FirstPlayer::from_games(games),
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
