//! `arena play` (in progress).
use crate::cli::PlayArgs;
use crate::exit_codes::{self, Code};
/// Runs `arena play`.
///
/// # Errors
/// Not yet.
pub fn run(_args: &PlayArgs) -> anyhow::Result<Code> {
    Ok(exit_codes::FAILURE)
}
