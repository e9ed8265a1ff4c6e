//! The input of every statistic: one finished game, as the store reads it back.
//!
//! A [`GameResult`] names the two bots by seat, says how the game ended
//! ([`Ending`]) and, when the game was one half of a colour-swapped pair, carries the
//! [`PairKey`] it shares with the other half. The constructor checks the few things
//! the statistics rely on (two different, non-empty bot names), so every later step
//! can trust its input.
//!
//! A forfeit names the side at fault and nothing else: the winner follows from it,
//! so a "timeout by X that X won" cannot be written down.

use uttt::rules::Mark;

pub use uttt::result::{Decision, EndReason};

/// How a game ended.
///
/// The reason is the closed [`EndReason`] of the rules crate; the statistics only
/// count reasons, they never interpret them beyond who was at fault.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ending {
    /// Decided on the board or by adjudication; nobody was at fault.
    Played {
        /// Who won, or a draw.
        decision: Decision,
        /// Why the game ended, e.g. three in a row.
        reason: EndReason,
    },
    /// `loser` lost by its own fault: a missed deadline, an illegal move, a crash,
    /// resigning. The other side wins.
    Forfeit {
        /// The side at fault.
        loser: Mark,
        /// What it did, e.g. a timeout.
        reason: EndReason,
    },
}

impl Ending {
    /// The ending of a game that `reason` ended with `decision`: a win for a reason
    /// not decided on the board (a timeout, an illegal move…) is the loser's
    /// forfeit; everything else was played out. (A draw for a fault reason, which
    /// no referee records, counts as played.)
    pub fn of(decision: Decision, reason: EndReason) -> Ending {
        match decision {
            Decision::Win(winner) if !reason.on_the_board() => Ending::Forfeit {
                loser: !winner,
                reason,
            },
            decision => Ending::Played { decision, reason },
        }
    }

    /// Who won, or a draw.
    pub fn decision(&self) -> Decision {
        match self {
            Ending::Played { decision, .. } => *decision,
            Ending::Forfeit { loser, .. } => Decision::Win(!*loser),
        }
    }

    /// Why the game ended.
    pub fn reason(&self) -> EndReason {
        match self {
            Ending::Played { reason, .. } | Ending::Forfeit { reason, .. } => *reason,
        }
    }

    /// The side at fault, if the game was forfeited.
    pub fn at_fault(&self) -> Option<Mark> {
        match self {
            Ending::Played { .. } => None,
            Ending::Forfeit { loser, .. } => Some(*loser),
        }
    }
}

/// Identifies a colour-swapped pair: the two games of one opening, each bot playing X
/// once. The key only has to be unique among the games of one pairing (two bots); the
/// schedule's pair index is a natural choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PairKey(pub u64);

/// One finished game: who sat where, how it ended, and its pair if any.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GameResult {
    x: String,
    o: String,
    ending: Ending,
    pair: Option<PairKey>,
}

impl GameResult {
    /// A game with `x` playing first and `o` second.
    ///
    /// # Errors
    /// A bot name is empty, both seats name the same bot (a bot cannot be rated
    /// against itself).
    pub fn new(
        x: impl Into<String>,
        o: impl Into<String>,
        ending: Ending,
    ) -> Result<GameResult, GameResultError> {
        let (x, o) = (x.into(), o.into());
        if x.trim().is_empty() || o.trim().is_empty() {
            return Err(GameResultError::EmptyBotName);
        }
        if x == o {
            return Err(GameResultError::SelfPlay(x));
        }
        Ok(GameResult {
            x,
            o,
            ending,
            pair: None,
        })
    }

    /// The same game, marked as one half of colour-swapped pair `key`.
    #[must_use]
    pub fn with_pair(mut self, key: PairKey) -> GameResult {
        self.pair = Some(key);
        self
    }

    /// The bot that played X (moved first).
    pub fn x(&self) -> &str {
        &self.x
    }

    /// The bot that played O.
    pub fn o(&self) -> &str {
        &self.o
    }

    /// The bot in seat `mark`.
    pub fn bot(&self, mark: Mark) -> &str {
        match mark {
            Mark::X => &self.x,
            Mark::O => &self.o,
        }
    }

    /// The seat `bot` played, if it played this game.
    pub fn seat_of(&self, bot: &str) -> Option<Mark> {
        if self.x == bot {
            Some(Mark::X)
        } else if self.o == bot {
            Some(Mark::O)
        } else {
            None
        }
    }

    /// How the game ended.
    pub fn ending(&self) -> &Ending {
        &self.ending
    }

    /// Who won, or a draw.
    pub fn decision(&self) -> Decision {
        self.ending.decision()
    }

    /// The colour-swapped pair this game belongs to, if any.
    pub fn pair(&self) -> Option<PairKey> {
        self.pair
    }
}

/// Why a [`GameResult`] was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameResultError {
    /// A seat has an empty name.
    #[error("a game names an empty bot: every game needs a bot name for X and for O")]
    EmptyBotName,
    /// Both seats name the same bot.
    #[error("bot '{0}' is listed as both X and O: a bot cannot be rated against itself")]
    SelfPlay(String),
}

#[cfg(test)]
pub(crate) mod fixtures {
    //! Short constructors for tests.
    use super::*;

    /// A game decided on the board.
    pub(crate) fn played(x: &str, o: &str, decision: Decision) -> GameResult {
        let reason = match decision {
            Decision::Win(_) => EndReason::ThreeInARow,
            Decision::Draw => EndReason::NoMoves,
        };
        GameResult::new(x, o, Ending::Played { decision, reason }).unwrap()
    }

    /// X wins.
    pub(crate) fn x_wins(x: &str, o: &str) -> GameResult {
        played(x, o, Decision::Win(Mark::X))
    }

    /// O wins.
    pub(crate) fn o_wins(x: &str, o: &str) -> GameResult {
        played(x, o, Decision::Win(Mark::O))
    }

    /// A draw.
    pub(crate) fn draw(x: &str, o: &str) -> GameResult {
        played(x, o, Decision::Draw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forfeit_is_won_by_the_other_side() {
        let game = GameResult::new(
            "a",
            "b",
            Ending::Forfeit {
                loser: Mark::X,
                reason: EndReason::Timeout,
            },
        )
        .unwrap();
        assert_eq!(game.decision(), Decision::Win(Mark::O));
        assert_eq!(game.ending().at_fault(), Some(Mark::X));
        assert_eq!(game.ending().reason(), EndReason::Timeout);
    }

    #[test]
    fn half_points_per_side() {
        assert_eq!(Decision::Win(Mark::X).half_points(Mark::X), 2);
        assert_eq!(Decision::Win(Mark::X).half_points(Mark::O), 0);
        assert_eq!(Decision::Draw.half_points(Mark::O), 1);
    }

    #[test]
    fn bad_games_are_refused_with_a_reason() {
        let ending = || Ending::Played {
            decision: Decision::Draw,
            reason: EndReason::NoMoves,
        };
        assert_eq!(
            GameResult::new("a", "a", ending()),
            Err(GameResultError::SelfPlay("a".into()))
        );
        assert_eq!(
            GameResult::new(" ", "b", ending()),
            Err(GameResultError::EmptyBotName)
        );
    }

    #[test]
    fn seats_are_found_by_name() {
        let game = fixtures::x_wins("a", "b").with_pair(PairKey(3));
        assert_eq!(game.seat_of("a"), Some(Mark::X));
        assert_eq!(game.seat_of("b"), Some(Mark::O));
        assert_eq!(game.seat_of("c"), None);
        assert_eq!(game.bot(Mark::O), "b");
        assert_eq!(game.pair(), Some(PairKey(3)));
    }
}
