//! `arena sprt --decide DIR…`: the decision of an SPRT played in batches, checked
//! after each complete batch in batch order (as fishtest checks a test when a
//! worker's batch arrives). Exit 0 H1 accepted, 1 H0 accepted, 2 the directories
//! are not one test's batches, 3 undecided (play more batches), 4 a bot could not run.
//! `--json` prints the same as an object (`BatchesSummary`) on standard output.

use std::path::PathBuf;

use ratings::{Confidence, EloModel, SprtConfig, SprtDecision, SprtStatus, table::sprt_line};

use super::sprt::{decision_word, model_of_word};
use super::usage;
use crate::exit_codes::{self, Code};
use crate::results::sprt_batches::{self, BatchedTest};
use crate::results::summary::{BatchState, BatchesSummary, SUMMARY_VERSION, SprtVerdict};

/// Runs `arena sprt --decide`.
pub fn run(dirs: &[PathBuf], json: bool) -> Code {
    if json {
        crate::stdout::words_to_stderr();
    }
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
    let mut states = Vec::new();
    for (batch, status) in test.complete.iter().zip(&statuses) {
        games += batch.rows.len() as u64;
        crate::say!(
            "after batch {} ({}), {games} games: {}",
            batch.index,
            batch.dir.display(),
            sprt_line(&config, status, confidence)
        );
        states.push(BatchState {
            index: batch.index,
            dir: batch.dir.display().to_string(),
            games: batch.rows.len() as u64,
            llr: status.llr,
            decision: decision_word(status.decision).to_string(),
        });
    }
    let not_needed: Vec<u32> = test.complete[statuses.len()..]
        .iter()
        .map(|b| b.index)
        .collect();
    if !not_needed.is_empty() {
        let list: Vec<String> = not_needed.iter().map(u32::to_string).collect();
        crate::say!(
            "not needed: batch {} (the test was decided before it)",
            list.join(", ")
        );
    }
    let last = statuses
        .last()
        .copied()
        .unwrap_or_else(|| config.status(&ratings::Pentanomial::default()));
    let (code, reason) = verdict(&test, last.decision, games, !statuses.is_empty());
    crate::say!("{reason}");
    if json {
        let summary = BatchesSummary {
            version: SUMMARY_VERSION,
            command: "sprt --decide".into(),
            arguments: std::env::args().collect(),
            seed: test.key.seed,
            pairs_per_batch: entry.pairs,
            batches: states,
            not_needed,
            unfinished: test.unfinished.iter().map(|(b, _)| b.index).collect(),
            games_counted: games,
            sprt: verdict_of(&config, &last, &entry.model),
            exit_code: code.0,
            exit_reason: reason,
        };
        match serde_json::to_string_pretty(&summary) {
            Ok(text) => crate::stdout::write_data(&format!("{text}\n")),
            Err(e) => eprintln!("error: writing the JSON summary: {e}"),
        }
    }
    code
}

/// The test's state as summary.json says it.
fn verdict_of(config: &SprtConfig, status: &SprtStatus, model: &str) -> SprtVerdict {
    SprtVerdict {
        decision: decision_word(status.decision).to_string(),
        llr: status.llr,
        lower_bound: status.bounds.lower,
        upper_bound: status.bounds.upper,
        elo0: config.elo0(),
        elo1: config.elo1(),
        alpha: config.alpha(),
        beta: config.beta(),
        model: model.to_string(),
    }
}

/// The verdict in words and its exit code.
fn verdict(test: &BatchedTest, decision: SprtDecision, games: u64, any: bool) -> (Code, String) {
    let (new, base) = (test.new_name(), test.base_name());
    let last = test
        .complete
        .iter()
        .map(|b| b.index)
        .chain(test.unfinished.iter().map(|(b, _)| b.index));
    let next = last.max().map_or(1, |k| k + 1);
    let max_games = u64::from(test.key.games_per_pairing);
    match decision {
        SprtDecision::AcceptH1 if any => (
            exit_codes::OK,
            format!(
                "H1 accepted after {games} games: {new} is not weaker than {base} by the test's standard (exit 0)"
            ),
        ),
        SprtDecision::AcceptH0 if any => (
            exit_codes::FAILURE,
            format!(
                "H0 accepted after {games} games: {new} is weaker than hoped against {base} — a regression (exit 1)"
            ),
        ),
        _ if 2 * u64::from(next) * u64::from(test.test.pairs) > max_games => (
            exit_codes::INCONCLUSIVE,
            format!(
                "Inconclusive after {games} games: batch {next} would pass the test's --max-games {max_games} (exit 3): \
                 widen elo0/elo1, or start a new test with a larger --max-games"
            ),
        ),
        _ => (
            exit_codes::INCONCLUSIVE,
            format!(
                "Undecided after {games} games (exit 3): play more batches, next --batch {next}"
            ),
        ),
    }
}
