//! With the `serde` feature: the vocabulary types (de)serialise as their text
//! form — `X`, `draw`, `timeout`, `e5`, `open-won-boards+most-boards` — the same
//! words as `Display`/`FromStr`, so CSV and JSON files hold what people read and
//! a reader gets typed values or an error naming the bad word.

use std::fmt::Display;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::result::{Decision, EndReason};
use crate::rules::{Mark, Rules, Square};

macro_rules! as_text {
    ($($ty:ty),*) => {$(
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<$ty, D::Error> {
                let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                parse(&text)
            }
        }
    )*};
}

fn parse<T: FromStr, E: serde::de::Error>(text: &str) -> Result<T, E>
where
    T::Err: Display,
{
    text.parse::<T>().map_err(E::custom)
}

as_text!(Mark, Decision, EndReason, Rules, Square);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_travel_as_their_words() {
        let json = serde_json::to_string(&(Decision::Draw, EndReason::Timeout, Mark::O))
            .unwrap_or_default();
        assert_eq!(json, r#"["draw","timeout","O"]"#);
        let back: (Decision, EndReason, Mark) = serde_json::from_str(&json).unwrap_or((
            Decision::Win(Mark::X),
            EndReason::Crash,
            Mark::X,
        ));
        assert_eq!(back, (Decision::Draw, EndReason::Timeout, Mark::O));
        let bad = serde_json::from_str::<Decision>(r#""Q""#).map_err(|e| e.to_string());
        assert_eq!(
            bad,
            Err("'Q' is not a result: use X, O or draw".to_string())
        );
    }
}
