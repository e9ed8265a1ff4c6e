//! `arena sprt --decide DIR…`: the decision of an SPRT played in batches, checked
//! after each complete batch in batch order (as fishtest checks a test when a
//! worker's batch arrives). Exit 0 H1 accepted, 1 H0 accepted, 2 the directories
//! are not one test's batches, 3 undecided (play more batches), 4 a bot could not run.

use std::path::PathBuf;

use ratings::{Confidence, EloModel, SprtConfig, SprtDecision, table::sprt_line};

use super::sprt::model_of_word;
use super::usage;
use crate::exit_codes::{self, Code};
use crate::results::sprt_batches::{self, BatchedTest};

/// Runs `arena sprt --decide`.
pub fn run(dirs: &[PathBuf]) -> Code {
    let test = match sprt_batches::load(dirs) {
        Ok(test) => test,
        Err(message) => return usage(&message),
    };
    let entry = &test.test;
    let Some(model) = model_of_word(&entry.model) else {
        return usage(&format!(
            "the batches name an SPRT model '{}' this arena does not know (normalized, logistic)",
            entry.model
        ));
    };
    let config = match SprtConfig::new(entry.elo0, entry.elo1, entry.alpha, entry.beta, model) {
        Ok(config) => config,
        Err(e) => return usage(&format!("the batches' SPRT settings: {e}")),
    };
    crate::say!(
        "SPRT {} vs {} in batches of {} pairs, seed {}: H0 {} vs H1 {} {}, alpha {}, beta {}",
        test.new_name(),
        test.base_name(),
        entry.pairs,
        test.key.seed,
        entry.elo0,
        entry.elo1,
        match model {
            EloModel::Normalized => "nElo",
            EloModel::Logistic => "Elo",
        },
        entry.alpha,
        entry.beta
    );
    for (batch, due) in &test.unfinished {
        crate::say!(
            "batch {} ({}): unfinished, {} of {due} games; not counted (run its command again to finish it)",
            batch.index,
            batch.dir.display(),
            batch.rows.len()
        );
    }
    if let Some(broken) = test.complete.iter().find(|b| b.handshake_failures() > 0) {
        eprintln!(
            "error: in batch {} ({}), {} games were lost because a bot could not start or failed \
             its handshake, so the test says nothing about strength: fix the bot and play that \
             batch again into an empty directory",
            broken.index,
            broken.dir.display(),
            broken.handshake_failures()
        );
        return exit_codes::INFRASTRUCTURE;
    }
    let statuses = config.after_batches(test.complete.iter().map(|b| b.pairs));
    let confidence = Confidence::default();
    let mut games = 0;
    for (batch, status) in test.complete.iter().zip(&statuses) {
        games += batch.rows.len();
        crate::say!(
            "after batch {} ({}), {games} games: {}",
            batch.index,
            batch.dir.display(),
            sprt_line(&config, status, confidence)
        );
    }
    let unused: Vec<String> = test.complete[statuses.len()..]
        .iter()
        .map(|b| b.index.to_string())
        .collect();
    if !unused.is_empty() {
        crate::say!(
            "not needed: batch {} (the test was decided before it)",
            unused.join(", ")
        );
    }
    verdict(&test, statuses.last().map(|s| s.decision), games)
}

/// The verdict line and its exit code.
fn verdict(test: &BatchedTest, decision: Option<SprtDecision>, games: usize) -> Code {
    let (new, base) = (test.new_name(), test.base_name());
    let last = test
        .complete
        .iter()
        .map(|b| b.index)
        .chain(test.unfinished.iter().map(|(b, _)| b.index));
    let next = last.max().map_or(1, |k| k + 1);
    let max_games = u64::from(test.key.games_per_pairing);
    match decision {
        Some(SprtDecision::AcceptH1) => {
            crate::say!(
                "H1 accepted after {games} games: {new} is not weaker than {base} by the test's standard (exit 0)"
            );
            exit_codes::OK
        }
        Some(SprtDecision::AcceptH0) => {
            crate::say!(
                "H0 accepted after {games} games: {new} is weaker than hoped against {base} — a regression (exit 1)"
            );
            exit_codes::FAILURE
        }
        _ if 2 * u64::from(next) * u64::from(test.test.pairs) > max_games => {
            crate::say!(
                "Inconclusive after {games} games: batch {next} would pass the test's --max-games {max_games} (exit 3): \
                 widen elo0/elo1, or start a new test with a larger --max-games"
            );
            exit_codes::INCONCLUSIVE
        }
        _ => {
            crate::say!(
                "Undecided after {games} games (exit 3): play more batches, next --batch {next}"
            );
            exit_codes::INCONCLUSIVE
        }
    }
}
