//! Which rules a game is played under: the standard rules or a combination of house
//! variants. Named in text (`standard`, `open-won-boards+most-boards`) so configs,
//! the command line and the protocol can carry it.

use std::fmt;
use std::str::FromStr;

/// One house rule. Each changes exactly one thing about the standard game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// A won small board stays playable until it is full. Its first winner keeps
    /// it, and only a full board gives the opponent a free move.
    OpenWonBoards,
    /// A drawn small board counts for both players in big-board lines.
    DrawsCountBoth,
    /// A game that ends with no big-board line is won by whoever owns more small
    /// boards; equal counts are a draw.
    MostBoards,
}

impl Variant {
    /// Every variant, in the order names are written.
    pub const ALL: [Variant; 3] = [
        Variant::OpenWonBoards,
        Variant::DrawsCountBoth,
        Variant::MostBoards,
    ];

    /// The name used in configs, on the command line and in the protocol.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::OpenWonBoards => "open-won-boards",
            Variant::DrawsCountBoth => "draws-count-both",
            Variant::MostBoards => "most-boards",
        }
    }

    const fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// The rules of one game: standard, or standard plus any set of [`Variant`]s. All
/// combinations are meaningful; each variant touches a different rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Rules(u8);

impl Rules {
    /// The rules of DEVELOPERS.md: won and drawn boards closed, drawn boards block
    /// lines, a game with no line ends in a draw.
    pub const STANDARD: Rules = Rules(0);

    /// These rules plus `variant`.
    #[must_use]
    pub const fn with(self, variant: Variant) -> Rules {
        Rules(self.0 | variant.bit())
    }

    /// Whether `variant` is in force.
    #[inline]
    pub const fn has(self, variant: Variant) -> bool {
        self.0 & variant.bit() != 0
    }

    /// Whether these are the standard rules with no variant.
    pub const fn is_standard(self) -> bool {
        self.0 == 0
    }

    /// The variants in force, in [`Variant::ALL`] order.
    pub fn variants(self) -> impl Iterator<Item = Variant> {
        Variant::ALL.into_iter().filter(move |v| self.has(*v))
    }
}

impl fmt::Display for Rules {
    /// `standard`, or the variant names joined by `+`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_standard() {
            return f.write_str("standard");
        }
        for (i, v) in self.variants().enumerate() {
            if i > 0 {
                f.write_str("+")?;
            }
            f.write_str(v.name())?;
        }
        Ok(())
    }
}

/// A rules name that is not `standard` or a `+`-separated list of variant names.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown rules '{name}': use 'standard' or any of open-won-boards, draws-count-both, \
     most-boards joined by '+' (e.g. 'open-won-boards+most-boards')"
)]
pub struct ParseRulesError {
    /// The part that was not understood.
    pub name: String,
}

impl FromStr for Rules {
    type Err = ParseRulesError;

    /// Accepts `standard`, a variant name, or variant names joined by `+` or `,`
    /// (with optional spaces), in any order.
    fn from_str(s: &str) -> Result<Rules, ParseRulesError> {
        let s = s.trim();
        if s == "standard" {
            return Ok(Rules::STANDARD);
        }
        let mut rules = Rules::STANDARD;
        for part in s.split(['+', ',']).map(str::trim) {
            let variant = Variant::ALL
                .into_iter()
                .find(|v| v.name() == part)
                .ok_or_else(|| ParseRulesError {
                    name: part.to_string(),
                })?;
            rules = rules.with(variant);
        }
        Ok(rules)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_combination_round_trips() {
        for bits in 0..8u8 {
            let rules = Rules(bits);
            assert_eq!(rules.to_string().parse::<Rules>(), Ok(rules));
        }
    }

    #[test]
    fn names() {
        assert_eq!(Rules::STANDARD.to_string(), "standard");
        let r = Rules::STANDARD
            .with(Variant::MostBoards)
            .with(Variant::OpenWonBoards);
        assert_eq!(r.to_string(), "open-won-boards+most-boards");
        assert_eq!("most-boards, open-won-boards".parse::<Rules>(), Ok(r));
    }

    #[test]
    fn unknown_name_is_named_in_the_error() {
        let err = "open-won-boards+fast".parse::<Rules>().unwrap_err();
        assert_eq!(err.name, "fast");
        assert!(err.to_string().contains("unknown rules 'fast'"));
        assert!("".parse::<Rules>().is_err());
    }
}
