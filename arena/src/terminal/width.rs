//! How wide the words at the end of a run may be, and prose folded to fit.
//!
//! The width is, in this order: `COLUMNS` when it is set to a number (a user's
//! or a test's explicit choice, as clap reads it for `--help`), the terminal
//! standard output is written to, or [`FALLBACK`] when it goes to a file or a
//! pipe. Tables fit it by leaving columns out (`ratings::table`); sentences are
//! folded at spaces by [`wrap`].

use std::io::IsTerminal as _;

/// The width when nothing says otherwise: what a terminal opens with.
pub const FALLBACK: usize = 80;

/// The narrowest width the tables and sentences are fitted to: below it, a
/// bot's name alone would not fit.
pub const NARROWEST: usize = 40;

/// The width to fit the words at the end of a run to (see the module docs).
pub fn columns() -> usize {
    let out = std::io::stdout();
    let terminal = out
        .is_terminal()
        .then(|| terminal_size::terminal_size_of(out))
        .flatten()
        .map(|(w, _)| usize::from(w.0));
    columns_from(std::env::var("COLUMNS").ok().as_deref(), terminal)
}

/// [`columns`] from what it reads: `COLUMNS`' value and the terminal's width.
fn columns_from(env: Option<&str>, terminal: Option<usize>) -> usize {
    env.and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&w| w > 0)
        .or(terminal)
        .unwrap_or(FALLBACK)
        .max(NARROWEST)
}

/// `text` folded at spaces to `width`, later lines indented by `indent` (the
/// ratings tables' own fold, so a table's notes and the sentences around it
/// fold alike).
pub fn wrap(text: &str, width: usize, indent: &str) -> String {
    ratings::table::fold(text, width, indent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_width_is_columns_when_set_else_the_terminals_else_80_and_never_below_40() {
        assert_eq!(columns_from(Some("120"), Some(100)), 120);
        assert_eq!(columns_from(None, Some(100)), 100);
        assert_eq!(columns_from(Some("wide"), Some(100)), 100);
        assert_eq!(columns_from(Some("0"), None), FALLBACK);
        assert_eq!(columns_from(None, None), FALLBACK);
        assert_eq!(columns_from(Some("20"), None), NARROWEST);
    }
}
