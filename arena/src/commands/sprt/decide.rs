//! `arena sprt --decide DIR…`: the decision of an SPRT played in batches, checked
//! after each complete batch in batch order (as fishtest checks a test when a
//! worker's batch arrives). Exit 0 H1 accepted, 1 H0 accepted, 2 the directories
//! are not one test's batches, 3 undecided (play more batches), 4 a bot could not run.
//! `--json` prints the same as an object (`BatchesSummary`) on standard output.

use std::path::PathBuf;

use ratings::{Confidence, SprtConfig, SprtDecision, SprtStatus, table::sprt_line};

use super::words::{self, Undecided, decision_word, model_of_word};
use crate::commands::usage;
use crate::exit_codes::{self, Code};
use crate::results::sprt_batches::{self, BatchedTest};
use crate::results::store::GAMES_FILE;
use crate::results::summary::{BatchState, BatchesSummary, SUMMARY_VERSION};
use crate::tournament::prepare::check_batch_games;
use crate::tournament::schedule::Batch;

/// Runs `arena sprt --decide`.
pub fn run(dirs: &[PathBuf], json: bool) -> Code {
    if json {
        crate::stdout::words_to_stderr();
    }
    let test = match sprt_batches::load(dirs) {
        Ok(test) => test,
        Err(message) => return usage(&message),
    };
    let batches = test
        .complete
        .iter()
        .chain(test.unfinished.iter().map(|(batch, _)| batch));
    for batch in batches {
        let games_file = batch.dir.join(GAMES_FILE);
        let slice = Batch {
            index: batch.index,
            pairs: test.test.pairs,
        };
        if let Err(message) = check_batch_games(&test.key, slice, &batch.rows, &games_file) {
            return usage(&message);
        }
    }
    let config = match test_config(&test) {
        Ok(config) => config,
        Err(message) => return usage(&message),
    };
    announce(&test, &config);
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
    let states = batch_lines(&test, &config, &statuses);
    let games = states.iter().map(|b| b.games).sum();
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
    let (code, reason, undecided) = verdict(&test, last.decision, games, !statuses.is_empty());
    crate::say!("{reason}");
    if json {
        let sprt = words::verdict(&config, &last, undecided);
        print_json(&test, sprt, states, not_needed, (code, reason));
    }
    code
}

/// `--json`: the decision as one object on standard output.
fn print_json(
    test: &BatchedTest,
    sprt: crate::results::summary::SprtVerdict,
    batches: Vec<BatchState>,
    not_needed: Vec<u32>,
    (code, reason): (Code, String),
) {
    let summary = BatchesSummary {
        version: SUMMARY_VERSION,
        command: "sprt --decide".into(),
        arguments: std::env::args().collect(),
        seed: test.key.seed,
        pairs_per_batch: test.test.pairs,
        games_counted: batches.iter().map(|b| b.games).sum(),
        batches,
        not_needed,
        unfinished: test.unfinished.iter().map(|(b, _)| b.index).collect(),
        sprt,
        exit_code: code.0,
        exit_reason: reason,
    };
    match serde_json::to_string_pretty(&summary) {
        Ok(text) => crate::stdout::write_data(&format!("{text}\n")),
        Err(e) => eprintln!("error: writing the JSON summary: {e}"),
    }
}

/// The test the batches' tournament.json files describe.
fn test_config(test: &BatchedTest) -> Result<SprtConfig, String> {
    let entry = &test.test;
    let model = model_of_word(&entry.model).ok_or_else(|| {
        format!(
            "the batches name an SPRT model '{}' this arena does not know (normalized, logistic)",
            entry.model
        )
    })?;
    SprtConfig::new(entry.elo0, entry.elo1, entry.alpha, entry.beta, model)
        .map_err(|e| format!("the batches' SPRT settings: {e}"))
}

/// What is decided, from which batches, and the batches not counted.
fn announce(test: &BatchedTest, config: &SprtConfig) {
    crate::say!(
        "SPRT {} vs {} in batches of {} pairs, seed {}: H0 {} vs H1 {} {}, alpha {}, beta {}",
        test.new_name(),
        test.base_name(),
        test.test.pairs,
        test.key.seed,
        config.elo0(),
        config.elo1(),
        words::unit(config.model()),
        config.alpha(),
        config.beta()
    );
    for (batch, due) in &test.unfinished {
        crate::say!(
            "batch {} ({}): unfinished, {} of {due} games; not counted (run its command again to finish it)",
            batch.index,
            batch.dir.display(),
            batch.rows.len()
        );
    }
}

/// A line per batch counted, with the test after it; the same as data.
fn batch_lines(
    test: &BatchedTest,
    config: &SprtConfig,
    statuses: &[SprtStatus],
) -> Vec<BatchState> {
    let mut games = 0;
    let mut states = Vec::new();
    for (batch, status) in test.complete.iter().zip(statuses) {
        games += batch.rows.len() as u64;
        crate::say!(
            "after batch {} ({}), {games} games: {}",
            batch.index,
            batch.dir.display(),
            sprt_line(config, status, Confidence::default())
        );
        states.push(BatchState {
            index: batch.index,
            dir: batch.dir.display().to_string(),
            games: batch.rows.len() as u64,
            llr: status.llr,
            // After a batch, an undecided test went on to the next.
            decision: decision_word(status.decision, Undecided::MoreGamesMayDecide).to_string(),
        });
    }
    states
}

/// The verdict in words, its exit code, and for an undecided test whether more
/// batches may decide it.
fn verdict(
    test: &BatchedTest,
    decision: SprtDecision,
    games: u64,
    any: bool,
) -> (Code, String, Undecided) {
    let (new, base) = (test.new_name(), test.base_name());
    let last = test
        .complete
        .iter()
        .map(|b| b.index)
        .chain(test.unfinished.iter().map(|(b, _)| b.index));
    let next = last.max().map_or(1, |k| k + 1);
    let max_games = u64::from(test.key.games_per_pairing);
    let decided = words::decision_sentence(decision, new, base, games);
    match (decision, decided) {
        (SprtDecision::AcceptH1, Some(sentence)) if any => {
            (exit_codes::OK, sentence, Undecided::MoreGamesMayDecide)
        }
        (SprtDecision::AcceptH0, Some(sentence)) if any => {
            (exit_codes::FAILURE, sentence, Undecided::MoreGamesMayDecide)
        }
        _ if 2 * u64::from(next) * u64::from(test.test.pairs) > max_games => (
            exit_codes::INCONCLUSIVE,
            format!(
                "Inconclusive after {games} games: batch {next} would pass the test's --max-games {max_games} (exit 3): \
                 widen elo0/elo1, or start a new test with a larger --max-games"
            ),
            Undecided::OutOfGames,
        ),
        _ => (
            exit_codes::INCONCLUSIVE,
            format!(
                "Undecided after {games} games (exit 3): play more batches, next --batch {next}"
            ),
            Undecided::MoreGamesMayDecide,
        ),
    }
}
