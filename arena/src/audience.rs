//! Who reads a run's words at the end: the people who measure bots (the
//! standings, and every statistic when they ask with `--details`) or a class in
//! front of a screen (the event's result, the winner, each bot's score; never
//! normalized Elo, pentanomial counts or notes on the fit's prior, which a room
//! of students cannot act on). A helper any layer may
//! use: the command line and a file's `[display] audience` read it, the terminal
//! and tournament.json write it.

use std::fmt;
use std::str::FromStr;

/// Who the words at the end of a run are for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Audience {
    /// The standings and the winner, and every table and note on `--details`
    /// (the default).
    #[default]
    Full,
    /// A class: the event's table, the winner, the scores with Elo; never nElo,
    /// pentanomial counts or notes about the fit.
    Class,
}

impl Audience {
    /// Each word and its value, in the order messages list them.
    pub const WORDS: &'static [(&'static str, Audience)] =
        &[("full", Audience::Full), ("class", Audience::Class)];
}

impl FromStr for Audience {
    type Err = String;

    fn from_str(word: &str) -> Result<Audience, String> {
        Audience::WORDS
            .iter()
            .find(|(w, _)| *w == word)
            .map(|(_, a)| *a)
            .ok_or_else(|| format!("'{word}' is not an audience: use \"full\" or \"class\""))
    }
}

impl fmt::Display for Audience {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let word = Audience::WORDS
            .iter()
            .find(|(_, a)| a == self)
            .map_or("full", |(w, _)| w);
        f.write_str(word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_audience_round_trips_through_its_word_and_a_wrong_word_lists_the_right_ones() {
        for &(word, audience) in Audience::WORDS {
            assert_eq!(word.parse::<Audience>(), Ok(audience));
            assert_eq!(audience.to_string(), word);
        }
        assert_eq!(
            "students".parse::<Audience>(),
            Err("'students' is not an audience: use \"full\" or \"class\"".into())
        );
    }
}
