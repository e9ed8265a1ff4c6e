//! Who plays whom, decided once the bots are known: a format's parameters
//! checked against each other (a challenger only for a gauntlet, rounds only for
//! a Swiss…), a gauntlet's challenger found by name, and a Swiss or knockout
//! seeded by the ratings of an earlier run.

use std::path::Path;

use super::input::{EventInput, FormatKind, Given, Source};
use super::{SettingsError, Where};
use crate::defaults;
use crate::results::standings::elo_by_name;
use crate::results::store::{GAMES_FILE, read_games};
use crate::tournament::entrant::Entrant;
use crate::tournament::format::{Drawn, Format};

/// Rounds of a Swiss that does not say: ⌈log2 N⌉ + 2, enough to separate the
/// leaders, and never more than N - 1 (beyond it, bots meet again).
pub fn default_swiss_rounds(bots: u32) -> u32 {
    let log2 = bots.max(1).next_power_of_two().trailing_zeros();
    (log2 + 2).min(bots.saturating_sub(1)).max(1)
}

/// The format of `event` for `entrants` (reordered by `seeding` when it is
/// given); `base_dir` is where `seeding`'s directory is found.
///
/// # Errors
/// A parameter of another format, a challenger that is not a bot, a seeding
/// directory that cannot be rated.
pub fn format(
    event: &EventInput,
    entrants: &mut [Entrant],
    base_dir: &Path,
    at: &Where<'_>,
) -> Result<Format, SettingsError> {
    let kind = event
        .format
        .as_ref()
        .map_or(FormatKind::RoundRobin, |f| f.value);
    let format = match kind {
        FormatKind::RoundRobin => {
            if let Some(c) = &event.challenger {
                return Err(at.error(
                    &c.source,
                    "challenger only applies to format = \"gauntlet\"",
                ));
            }
            Format::RoundRobin
        }
        FormatKind::Gauntlet => Format::Gauntlet {
            challenger: challenger(event, entrants, at)?,
        },
        FormatKind::Swiss => {
            let bots = u32::try_from(entrants.len()).unwrap_or(u32::MAX);
            let rounds = event
                .rounds
                .as_ref()
                .map_or_else(|| default_swiss_rounds(bots), |r| r.value);
            Format::Drawn(Drawn::Swiss { rounds })
        }
        FormatKind::Knockout => Format::Drawn(Drawn::Knockout {
            tiebreak_pairs: event
                .tiebreak_pairs
                .as_ref()
                .map_or(defaults::TIEBREAK_PAIRS, |t| t.value),
        }),
    };
    let only_for = |key: &Option<Given<u32>>, name: &str, format: &str, fits: bool| match key {
        Some(k) if !fits => Err(at.error(
            &k.source,
            format!("{name} only applies to format = \"{format}\""),
        )),
        _ => Ok(()),
    };
    only_for(&event.rounds, "rounds", "swiss", kind == FormatKind::Swiss)?;
    only_for(
        &event.tiebreak_pairs,
        "tiebreak-pairs",
        "knockout",
        kind == FormatKind::Knockout,
    )?;
    if let Some(seeding) = &event.seeding {
        if !matches!(format, Format::Drawn(_)) {
            return Err(at.error(
                &seeding.source,
                "seeding only applies to format = \"swiss\" or \"knockout\"",
            ));
        }
        let dir = base_dir.join(&seeding.value);
        let elo = read_games(&dir.join(GAMES_FILE))
            .and_then(|rows| elo_by_name(&rows))
            .map_err(|e| {
                at.error(
                    &seeding.source,
                    format!(
                        "seeding = \"{}\": cannot rate the bots of {}: {e} (name a results directory of an earlier run)",
                        seeding.value.display(),
                        dir.display()
                    ),
                )
            })?;
        seed_by_rating(entrants, &elo);
    }
    if let (Format::Drawn(_), Some(c)) = (&format, &event.challenger) {
        return Err(at.error(
            &c.source,
            "challenger only applies to format = \"gauntlet\"",
        ));
    }
    Ok(format)
}

/// A gauntlet's pass mark (`min-score`, `--min-score`): a share of the points
/// from 0 to 1, for a gauntlet only (the challenger's score is what it gates).
///
/// # Errors
/// Another format, or a number outside 0 to 1.
pub fn pass_mark(
    event: &EventInput,
    format: &Format,
    at: &Where<'_>,
) -> Result<Option<f64>, SettingsError> {
    let Some(min) = &event.min_score else {
        return Ok(None);
    };
    if !matches!(format, Format::Gauntlet { .. }) {
        return Err(at.error(
            &min.source,
            "min-score only applies to format = \"gauntlet\" (the challenger's score is \
             what it gates): add format = \"gauntlet\" and challenger = \"<bot name>\"",
        ));
    }
    if !(0.0..=1.0).contains(&min.value) {
        return Err(at.error(
            &min.source,
            format!(
                "min-score = {}: use a share of the points from 0 to 1, e.g. 0.6 for 60%",
                min.value
            ),
        ));
    }
    Ok(Some(min.value))
}

/// A gauntlet's challenger: the bot a file names, or the command line's first.
fn challenger(
    event: &EventInput,
    entrants: &[Entrant],
    at: &Where<'_>,
) -> Result<usize, SettingsError> {
    let Some(c) = &event.challenger else {
        return match event.format.as_ref().map(|f| &f.source) {
            Some(source @ Source::Line(_)) => Err(at.error(
                source,
                "format = \"gauntlet\" needs challenger = \"<bot name>\"",
            )),
            _ => Ok(0),
        };
    };
    entrants
        .iter()
        .position(|e| e.spec.name == c.value)
        .ok_or_else(|| {
            let names: Vec<&str> = entrants.iter().map(|e| e.spec.name.as_str()).collect();
            at.error(
                &c.source,
                format!(
                    "challenger '{}' is not a bot here: choose one of {}",
                    c.value,
                    names.join(", ")
                ),
            )
        })
}

/// Orders `entrants` by their place in `elo`, the earlier run's standings
/// (best first, ties broken as its standings break them, so the seeds are
/// the ranks its standings.csv shows); bots without one follow in the
/// file's order (a stable sort).
fn seed_by_rating(entrants: &mut [Entrant], elo: &[(String, f64)]) {
    let place = |e: &Entrant| {
        elo.iter()
            .position(|(name, _)| *name == e.spec.name)
            .unwrap_or(usize::MAX)
    };
    entrants.sort_by_key(place);
}
