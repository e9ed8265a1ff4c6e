//! Time controls: a per-move limit (with a larger first-move allowance), an optional
//! game clock, and the forgiven overrun (margin).

use std::time::Duration;

use crate::bot::ClockMode;

/// A game clock: starting time and the increment added after each move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameClock {
    /// Time on the clock at the start.
    pub initial: Duration,
    /// Added after each of the player's moves.
    pub increment: Duration,
}

/// How much time a player has. At least one of `move_time` and `clock` is set
/// (see [`TimeControl::validate`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Time for each move.
    pub move_time: Option<Duration>,
    /// Time for the player's first move of the game (defaults to `move_time`).
    pub first_move_time: Option<Duration>,
    /// Forgiven overrun: a reply later than the allowed time but within the margin
    /// counts (fastchess/cutechess `timemargin` semantics).
    pub margin: Duration,
    /// Optional game clock.
    pub clock: Option<GameClock>,
    /// Nodes of its own search a bot should stop after, each move (`nodes` on
    /// `go` and `newgame`: fixed work for reproducible games; the clock stays on).
    pub nodes: Option<u64>,
    /// How a move's time is charged against the limit and the game clock.
    pub clock_mode: ClockMode,
}

/// A time control that cannot work.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TimeControlError {
    /// Neither a per-move limit nor a clock.
    #[error("no time limit: set a per-move time or a game clock")]
    Unlimited,
    /// A zero per-move or first-move time.
    #[error("a move time of 0 ms leaves no time to answer: use at least 1 ms")]
    ZeroMoveTime,
    /// A zero starting clock.
    #[error("a game clock must start above 0 ms")]
    ZeroClock,
}

impl TimeControl {
    /// `move_ms` per move, `first_ms` for the first move, `margin_ms` margin.
    pub fn per_move(move_ms: u64, first_ms: u64, margin_ms: u64) -> TimeControl {
        TimeControl {
            move_time: Some(Duration::from_millis(move_ms)),
            first_move_time: Some(Duration::from_millis(first_ms)),
            margin: Duration::from_millis(margin_ms),
            clock: None,
            nodes: None,
            clock_mode: ClockMode::auto(),
        }
    }

    /// Checks that the time control can be played.
    ///
    /// # Errors
    /// Which part cannot work, and how to fix it.
    pub fn validate(&self) -> Result<(), TimeControlError> {
        if self.move_time.is_none() && self.clock.is_none() {
            return Err(TimeControlError::Unlimited);
        }
        if self.move_time.is_some_and(|d| d.is_zero())
            || self.first_move_time.is_some_and(|d| d.is_zero())
        {
            return Err(TimeControlError::ZeroMoveTime);
        }
        if self.clock.is_some_and(|c| c.initial.is_zero()) {
            return Err(TimeControlError::ZeroClock);
        }
        Ok(())
    }

    /// The time a player may use for its next move: the first-move allowance or the
    /// per-move limit, capped by what is left on its clock.
    pub fn allowed(&self, first_move: bool, clock_left: Option<Duration>) -> Duration {
        let per_move = if first_move {
            self.first_move_time.or(self.move_time)
        } else {
            self.move_time
        };
        match (per_move, clock_left) {
            (Some(limit), Some(left)) => limit.min(left),
            (Some(limit), None) => limit,
            (None, Some(left)) => left,
            // Unreachable after `validate`; an hour is "no limit" for any real game.
            (None, None) => Duration::from_secs(3600),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn first_move_gets_its_allowance_then_the_limit() {
        let tc = TimeControl::per_move(100, 1000, 50);
        assert_eq!(tc.allowed(true, None), ms(1000));
        assert_eq!(tc.allowed(false, None), ms(100));
    }

    #[test]
    fn the_clock_caps_the_move_time() {
        let tc = TimeControl {
            move_time: Some(ms(500)),
            first_move_time: None,
            margin: ms(0),
            clock: Some(GameClock {
                initial: ms(10_000),
                increment: ms(100),
            }),
            nodes: None,
            clock_mode: ClockMode::Wall,
        };
        assert_eq!(tc.allowed(true, Some(ms(300))), ms(300));
        assert_eq!(tc.allowed(false, Some(ms(9000))), ms(500));
        let clock_only = TimeControl {
            move_time: None,
            ..tc
        };
        assert_eq!(clock_only.allowed(false, Some(ms(9000))), ms(9000));
    }

    #[test]
    fn validation() {
        assert_eq!(TimeControl::per_move(100, 1000, 0).validate(), Ok(()));
        assert_eq!(
            TimeControl::per_move(0, 1000, 0).validate(),
            Err(TimeControlError::ZeroMoveTime)
        );
        let none = TimeControl {
            move_time: None,
            first_move_time: None,
            margin: ms(0),
            clock: None,
            nodes: None,
            clock_mode: ClockMode::Wall,
        };
        assert_eq!(none.validate(), Err(TimeControlError::Unlimited));
    }
}
