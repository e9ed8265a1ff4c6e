//! Milliseconds as a person writes them (`--time 100`, `move-ms = 100`): one type per
//! kind of duration, each with its range, so the command line and a tournament file
//! accept exactly the same numbers. The bounds keep every clock sum far inside a
//! `u64` of milliseconds (the most a bot can read), so no announced clock or time
//! can overflow, and no deadline is pushed past any sensible game.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// A whole number of milliseconds from `MIN` to `MAX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Millis<const MIN: u64, const MAX: u64>(u64);

/// Time for a move (or a first move): 1 ms to one hour.
pub type MoveMs = Millis<1, 3_600_000>;
/// Forgiven overrun: 0 to ten minutes.
pub type MarginMs = Millis<0, 600_000>;
/// A game clock's starting time: 1 ms to one day.
pub type ClockMs = Millis<1, 86_400_000>;
/// A game clock's increment: 0 to one hour.
pub type IncrementMs = Millis<0, 3_600_000>;
/// Time to start and complete the handshake: 1 ms to ten minutes.
pub type HandshakeMs = Millis<1, 600_000>;
/// The least time a move stays on screen (`--pace`, `[display] pace-ms`): 0 (as
/// fast as the bots play) to one minute.
pub type PaceMs = Millis<0, 60_000>;

/// A number of milliseconds that is not in its range (or not a number).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{given} is {problem}: use a whole number of milliseconds from {min} to {max}")]
pub struct MillisError {
    /// What was given.
    pub given: String,
    /// "out of range" or "not a number".
    problem: &'static str,
    /// The smallest allowed.
    pub min: u64,
    /// The largest allowed.
    pub max: u64,
}

impl<const MIN: u64, const MAX: u64> Millis<MIN, MAX> {
    /// `ms` if it is in range.
    ///
    /// # Errors
    /// [`MillisError`] naming the range.
    pub fn new(ms: u64) -> Result<Self, MillisError> {
        if (MIN..=MAX).contains(&ms) {
            Ok(Millis(ms))
        } else {
            Err(MillisError {
                given: ms.to_string(),
                problem: "out of range",
                min: MIN,
                max: MAX,
            })
        }
    }

    /// `ms`, for a constant: out of range fails the build (see `crate::defaults`).
    pub const fn constant(ms: u64) -> Self {
        assert!(MIN <= ms && ms <= MAX, "a constant out of its range");
        Millis(ms)
    }

    /// The number of milliseconds.
    pub const fn get(self) -> u64 {
        self.0
    }

    /// As a duration.
    pub const fn duration(self) -> Duration {
        Duration::from_millis(self.0)
    }
}

impl<const MIN: u64, const MAX: u64> TryFrom<i64> for Millis<MIN, MAX> {
    type Error = MillisError;

    /// A value read from a file, where numbers may be negative.
    fn try_from(ms: i64) -> Result<Self, MillisError> {
        match u64::try_from(ms) {
            Ok(ms) => Millis::new(ms),
            Err(_) => Err(MillisError {
                given: ms.to_string(),
                problem: "out of range",
                min: MIN,
                max: MAX,
            }),
        }
    }
}

impl<const MIN: u64, const MAX: u64> FromStr for Millis<MIN, MAX> {
    type Err = MillisError;

    /// A value typed on the command line.
    fn from_str(s: &str) -> Result<Self, MillisError> {
        let error = |problem| MillisError {
            given: s.to_string(),
            problem,
            min: MIN,
            max: MAX,
        };
        match s.parse::<i128>() {
            Ok(ms) => u64::try_from(ms)
                .map_err(|_| error("out of range"))
                .and_then(Millis::new),
            // Digits beyond even an i128 are still a number, far out of range.
            Err(_) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => {
                Err(error("out of range"))
            }
            Err(_) => Err(MillisError {
                given: format!("'{s}'"),
                ..error("not a number")
            }),
        }
    }
}

impl<const MIN: u64, const MAX: u64> fmt::Display for Millis<MIN, MAX> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ranges_and_messages() {
        assert_eq!("100".parse::<MoveMs>().map(MoveMs::get), Ok(100));
        assert_eq!(
            "0".parse::<MoveMs>().unwrap_err().to_string(),
            "0 is out of range: use a whole number of milliseconds from 1 to 3600000"
        );
        assert_eq!(
            "18446744073709551615"
                .parse::<IncrementMs>()
                .unwrap_err()
                .to_string(),
            "18446744073709551615 is out of range: use a whole number of milliseconds from 0 to 3600000"
        );
        assert_eq!(
            "99999999999999999999999"
                .parse::<ClockMs>()
                .unwrap_err()
                .max,
            86_400_000
        );
        assert_eq!(
            "-5".parse::<MarginMs>().unwrap_err().to_string(),
            "-5 is out of range: use a whole number of milliseconds from 0 to 600000"
        );
        assert_eq!(
            "1e3".parse::<MoveMs>().unwrap_err().to_string(),
            "'1e3' is not a number: use a whole number of milliseconds from 1 to 3600000"
        );
        assert!(" 5".parse::<MoveMs>().is_err());
        assert_eq!(MarginMs::try_from(-1).unwrap_err().given, "-1");
        assert_eq!(MarginMs::try_from(0).map(MarginMs::get), Ok(0));
        assert_eq!(
            HandshakeMs::new(600_000).map(HandshakeMs::duration),
            Ok(Duration::from_secs(600))
        );
    }

    proptest! {
        #[test]
        fn text_never_panics_and_accepts_exactly_the_range(text in "\\PC{0,24}", n in any::<u64>()) {
            let _ = text.parse::<MoveMs>();
            let parsed = n.to_string().parse::<MoveMs>();
            prop_assert_eq!(parsed.is_ok(), (1..=3_600_000).contains(&n));
            prop_assert_eq!(parsed.ok().map(MoveMs::get), (1..=3_600_000).contains(&n).then_some(n));
        }
    }
}
