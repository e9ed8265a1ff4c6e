//! Counting: wins, draws and losses per bot, per seat, per end reason, and the
//! first player's results over all games. Pure tallies, no model.

use std::collections::BTreeMap;

use uttt::rules::Mark;

use super::estimate::ScoreEstimate;
use super::model::{Decision, EndReason, GameResult};

/// Wins, draws and losses from one side's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
}

impl Wdl {
    /// Counts one game worth `half_points` (0, 1 or 2) to this side.
    pub(crate) fn add(&mut self, half_points: u8) {
        match half_points {
            0 => self.losses += 1,
            1 => self.draws += 1,
            _ => self.wins += 1,
        }
    }

    /// Takes back one game worth `half_points` that [`Self::add`] counted.
    pub(crate) fn remove(&mut self, half_points: u8) {
        let count = match half_points {
            0 => &mut self.losses,
            1 => &mut self.draws,
            _ => &mut self.wins,
        };
        *count = count.saturating_sub(1);
    }

    /// Counts one game with this `decision`, seen by the side that played `mark`:
    /// the one place a game's result becomes a win, a draw or a loss.
    pub fn add_decision(&mut self, decision: Decision, mark: Mark) {
        self.add(decision.half_points(mark));
    }

    /// The same games seen by the other side.
    #[must_use]
    pub fn flipped(self) -> Wdl {
        Wdl {
            wins: self.losses,
            draws: self.draws,
            losses: self.wins,
        }
    }

    /// Games played.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Points: a win is 1, a draw ½.
    pub fn points(&self) -> f64 {
        self.wins as f64 + self.draws as f64 / 2.0
    }

    /// Points per game, or `None` with no games.
    pub fn score(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| self.points() / n as f64)
    }

    /// Draws per game, or `None` with no games.
    pub fn draw_ratio(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| self.draws as f64 / n as f64)
    }

    /// The per-game variance of the score about its mean μ:
    /// `σ² = w(1 − μ)² + d(½ − μ)² + l(0 − μ)²` with w, d, l the frequencies
    /// (cutechess `elo.cpp`, fastchess `elo_wdl.cpp`).
    pub(crate) fn per_game_variance(&self) -> Option<f64> {
        let n = self.games() as f64;
        let mu = self.score()?;
        Some(
            (self.wins as f64 * (1.0 - mu).powi(2)
                + self.draws as f64 * (0.5 - mu).powi(2)
                + self.losses as f64 * mu.powi(2))
                / n,
        )
    }

    /// The trinomial estimate: mean score with variance `σ²/N`. `None` with no games.
    pub fn estimate(&self) -> Option<ScoreEstimate> {
        let n = self.games();
        ScoreEstimate::new(n, self.score()?, self.per_game_variance()? / n as f64)
    }
}

impl std::ops::AddAssign for Wdl {
    fn add_assign(&mut self, other: Wdl) {
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
    }
}

/// How often one end reason occurred in a bot's games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReasonTally {
    /// Games of this bot that ended for this reason, whoever caused it.
    pub games: u64,
    /// Of those, games this bot forfeited (it was the side at fault).
    pub faults: u64,
}

/// One bot's results: overall, per seat, and per end reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotRecord {
    /// The bot's name.
    pub name: String,
    /// All games.
    pub total: Wdl,
    /// Games as X (moving first).
    pub as_x: Wdl,
    /// Games as O.
    pub as_o: Wdl,
    /// End reasons in alphabetical order.
    pub reasons: BTreeMap<EndReason, ReasonTally>,
}

impl BotRecord {
    pub(crate) fn new(name: &str) -> BotRecord {
        BotRecord {
            name: name.to_owned(),
            total: Wdl::default(),
            as_x: Wdl::default(),
            as_o: Wdl::default(),
            reasons: BTreeMap::new(),
        }
    }

    /// Whether the bot won every game it played (and played at least one).
    pub fn won_all(&self) -> bool {
        self.total.games() > 0 && self.total.wins == self.total.games()
    }

    /// Whether the bot lost every game it played (and played at least one).
    pub fn lost_all(&self) -> bool {
        self.total.games() > 0 && self.total.losses == self.total.games()
    }
}

/// The first player's results over all games, whoever the bots were: how much moving
/// first is worth in practice. The strength-adjusted version is the X-advantage term
/// of the rating fit ([`super::bradley_terry::Standings::x_advantage`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FirstPlayer {
    /// Results seen by X: `wins` are X wins, `losses` are O wins.
    pub x: Wdl,
}

impl FirstPlayer {
    /// Counts every game.
    pub fn from_games(games: &[GameResult]) -> FirstPlayer {
        let mut x = Wdl::default();
        for game in games {
            x.add_decision(game.decision(), Mark::X);
        }
        FirstPlayer { x }
    }

    /// X wins per game, or `None` with no games.
    pub fn x_win_rate(&self) -> Option<f64> {
        let n = self.x.games();
        (n > 0).then(|| self.x.wins as f64 / n as f64)
    }

    /// O wins per game, or `None` with no games.
    pub fn o_win_rate(&self) -> Option<f64> {
        let n = self.x.games();
        (n > 0).then(|| self.x.losses as f64 / n as f64)
    }

    /// X's mean score with its trinomial error, or `None` with no games.
    pub fn x_score(&self) -> Option<ScoreEstimate> {
        self.x.estimate()
    }
}

#[cfg(test)]
mod tests {
    use super::super::elo::Confidence;
    use super::super::model::fixtures::{draw, o_wins, x_wins};
    use super::super::model::{Ending, GameResult};
    use super::super::totals::bot_records;
    use super::*;

    #[test]
    fn records_count_seats_and_reasons() {
        let forfeit = GameResult::new(
            "b",
            "a",
            Ending::Forfeit {
                loser: Mark::X,
                reason: crate::model::EndReason::Timeout,
            },
        )
        .unwrap();
        let games = [x_wins("a", "b"), draw("a", "b"), o_wins("a", "c"), forfeit];
        let records = bot_records(&games);
        let names: Vec<_> = records.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
        let a = &records[0];
        assert_eq!(
            a.total,
            Wdl {
                wins: 2,
                draws: 1,
                losses: 1
            }
        );
        assert_eq!(a.as_x.games(), 3);
        assert_eq!(a.as_o.wins, 1);
        assert_eq!(
            a.reasons[&EndReason::Timeout],
            ReasonTally {
                games: 1,
                faults: 0
            }
        );
        assert_eq!(
            records[1].reasons[&EndReason::Timeout],
            ReasonTally {
                games: 1,
                faults: 1
            }
        );
        assert_eq!(a.reasons[&EndReason::ThreeInARow].games, 2);
        assert!(records[2].won_all());
        assert!(!a.won_all() && !a.lost_all());
    }

    #[test]
    fn first_player_counts_x_results() {
        let games = [
            x_wins("a", "b"),
            x_wins("b", "a"),
            draw("a", "b"),
            o_wins("b", "a"),
        ];
        let fp = FirstPlayer::from_games(&games);
        assert_eq!(fp.x_win_rate(), Some(0.5));
        assert_eq!(fp.o_win_rate(), Some(0.25));
        // X score (2 + ½)/4 = 0.625.
        assert_eq!(fp.x_score().map(|e| e.score()), Some(0.625));
        assert_eq!(FirstPlayer::from_games(&[]).x_score(), None);
    }

    #[test]
    fn trinomial_error_bar_by_hand() {
        // W=6, D=2, L=2 (N=10): μ = 7/10 = 0.7.
        // σ² = [6(0.3)² + 2(0.2)² + 2(0.7)²]/10 = (0.54 + 0.08 + 0.98)/10 = 0.16.
        // se = √(0.16/10) = 0.126491; z·se = 0.247918 → [0.452082, 0.947918].
        // Elo: −400·log10(1/0.452082 − 1) = −400·log10(1.211988) = −33.40
        //      −400·log10(1/0.947918 − 1) = −400·log10(0.054943) = +504.03
        // ± = (504.03 + 33.40)/2 = 268.72; Elo(0.7) = −400·log10(3/7) = 147.19.
        // LOS = Φ(0.2/0.126491) = Φ(1.581139) = 0.943077.
        let wdl = Wdl {
            wins: 6,
            draws: 2,
            losses: 2,
        };
        let est = wdl.estimate().unwrap();
        assert!((est.std_error() - 0.126_491).abs() < 1e-6);
        assert!((est.elo() - 147.19).abs() < 0.01);
        let ci = est.elo_interval(Confidence::P95);
        assert!((ci.low + 33.40).abs() < 0.01, "{ci:?}");
        assert!((ci.high - 504.03).abs() < 0.01, "{ci:?}");
        assert!((est.elo_error(Confidence::P95) - 268.72).abs() < 0.01);
        assert!((est.los() - 0.943_077).abs() < 1e-6);
    }
}
