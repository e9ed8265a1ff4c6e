//! The word-valued keys of a tournament file (`format = "swiss"`, `processes =
//! "per-game"`, `on-build-failure = "stop"`) read straight into their enums: a
//! word that is not one of them is refused by the file's reader with the key, the
//! words it takes and the line, like any other bad value.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, Visitor};

use super::builds::{OnBuildFailure, OnPreflightFailure};
use super::input::{ClockChoice, FormatKind, LeagueMode};
use crate::audience::Audience;
use crate::results::manifest::ProcessPolicy;
use crate::tournament::governor::GovernorMode;

/// An enum a key's words name.
pub trait Words: Sized + Copy + 'static {
    /// The key, for messages.
    const KEY: &'static str;
    /// Each word and its value, in the order messages list them.
    const WORDS: &'static [(&'static str, Self)];
}

/// A word-valued key's value, as read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Word<T>(pub T);

/// `"a", "b" or "c"`.
fn listed<T>(words: &[(&str, T)]) -> String {
    let quoted: Vec<String> = words.iter().map(|(w, _)| format!("\"{w}\"")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

impl<'de, T: Words> Deserialize<'de> for Word<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Word<T>, D::Error> {
        struct Read<T>(PhantomData<T>);
        impl<T: Words> Visitor<'_> for Read<T> {
            type Value = Word<T>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", listed(T::WORDS))
            }

            fn visit_str<E: de::Error>(self, word: &str) -> Result<Word<T>, E> {
                T::WORDS
                    .iter()
                    .find(|(w, _)| *w == word)
                    .map(|(_, value)| Word(*value))
                    .ok_or_else(|| {
                        E::custom(format!("{} = \"{word}\": use {}", T::KEY, listed(T::WORDS)))
                    })
            }
        }
        deserializer.deserialize_str(Read(PhantomData))
    }
}

impl Words for FormatKind {
    const KEY: &'static str = "format";
    const WORDS: &'static [(&'static str, FormatKind)] = &[
        ("round-robin", FormatKind::RoundRobin),
        ("gauntlet", FormatKind::Gauntlet),
        ("swiss", FormatKind::Swiss),
        ("knockout", FormatKind::Knockout),
    ];
}

impl Words for ProcessPolicy {
    const KEY: &'static str = "processes";
    const WORDS: &'static [(&'static str, ProcessPolicy)] = &[
        ("reuse", ProcessPolicy::Reuse),
        ("per-game", ProcessPolicy::PerGame),
    ];
}

impl Words for OnBuildFailure {
    const KEY: &'static str = "on-build-failure";
    const WORDS: &'static [(&'static str, OnBuildFailure)] = &[
        ("leave-out", OnBuildFailure::LeaveOut),
        ("stop", OnBuildFailure::Stop),
    ];
}

impl Words for LeagueMode {
    const KEY: &'static str = "mode";
    const WORDS: &'static [(&'static str, LeagueMode)] = &[
        ("levels", LeagueMode::Levels),
        ("peers", LeagueMode::Peers),
        ("mixed", LeagueMode::Mixed),
    ];
}

impl Words for OnPreflightFailure {
    const KEY: &'static str = "on-preflight-failure";
    const WORDS: &'static [(&'static str, OnPreflightFailure)] = &[
        ("leave-out", OnPreflightFailure::LeaveOut),
        ("stop", OnPreflightFailure::Stop),
    ];
}

impl Words for Audience {
    const KEY: &'static str = "audience";
    const WORDS: &'static [(&'static str, Audience)] = Audience::WORDS;
}

impl Words for GovernorMode {
    const KEY: &'static str = "governor";
    const WORDS: &'static [(&'static str, GovernorMode)] = &GovernorMode::WORDS;
}

impl Words for ClockChoice {
    const KEY: &'static str = "clock";
    const WORDS: &'static [(&'static str, ClockChoice)] = &ClockChoice::WORDS;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    struct File {
        format: toml::Spanned<Word<FormatKind>>,
    }

    #[test]
    fn a_word_is_read_into_its_enum_and_a_wrong_one_names_the_key_and_the_words() {
        let file: File = toml::from_str("format = \"swiss\"").unwrap();
        assert_eq!(file.format.get_ref().0, FormatKind::Swiss);
        let e = toml::from_str::<File>("\nformat = \"swis\"").unwrap_err();
        assert_eq!(
            e.message(),
            "format = \"swis\": use \"round-robin\", \"gauntlet\", \"swiss\" or \"knockout\""
        );
        assert_eq!(e.span(), Some(10..16));
    }
}
