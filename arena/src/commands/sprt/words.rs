//! The words of an SPRT, shared by a run (`arena sprt`) and the decision over
//! batches (`arena sprt --decide`): the decision in a sentence, the unit of its
//! bounds, and the words summary.json and tournament.json use.

use ratings::{EloModel, SprtConfig, SprtDecision, SprtStatus};

use crate::results::summary::SprtVerdict;

/// The unit of elo0 and elo1 in words.
pub fn unit(model: EloModel) -> &'static str {
    match model {
        EloModel::Normalized => "nElo",
        EloModel::Logistic => "Elo",
    }
}

/// A decided test in words — the one wording of the terminal, summary.json and
/// `arena sprt --decide`: "H0 accepted after 120 games: new is weaker than hoped
/// against base — a regression (exit 1)". `None` while undecided.
pub fn decision_sentence(
    decision: SprtDecision,
    new: &str,
    base: &str,
    games: u64,
) -> Option<String> {
    match decision {
        SprtDecision::AcceptH1 => Some(format!(
            "H1 accepted after {games} games: {new} is not weaker than {base} by the test's standard (exit 0)"
        )),
        SprtDecision::AcceptH0 => Some(format!(
            "H0 accepted after {games} games: {new} is weaker than hoped against {base} — a regression (exit 1)"
        )),
        SprtDecision::Continue => None,
    }
}

/// Why a test without a decision has none, for the word summary.json says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Undecided {
    /// More games may decide it: the run stopped before its `--max-games` (a
    /// signal, a bot that could not start), or batches are still to be played.
    MoreGamesMayDecide,
    /// `--max-games` ran out first: the test is over, inconclusive (exit 3).
    OutOfGames,
}

/// The test's state as summary.json says it (`undecided` says which word a test
/// without a decision gets).
pub fn verdict(config: &SprtConfig, status: &SprtStatus, undecided: Undecided) -> SprtVerdict {
    SprtVerdict {
        decision: decision_word(status.decision, undecided).to_string(),
        llr: status.llr,
        lower_bound: status.bounds.lower,
        upper_bound: status.bounds.upper,
        elo0: config.elo0(),
        elo1: config.elo1(),
        alpha: config.alpha(),
        beta: config.beta(),
        model: model_word(config.model()).to_string(),
    }
}

/// The model as `tournament.json` records it.
pub fn model_word(model: EloModel) -> &'static str {
    match model {
        EloModel::Normalized => "normalized",
        EloModel::Logistic => "logistic",
    }
}

/// A decision as summary.json says it: `H0`, `H1`, or for a test without one
/// `continue` (more games may decide it) or `inconclusive` (`--max-games` ran
/// out, exit 3).
pub fn decision_word(decision: SprtDecision, undecided: Undecided) -> &'static str {
    match (decision, undecided) {
        (SprtDecision::AcceptH0, _) => "H0",
        (SprtDecision::AcceptH1, _) => "H1",
        (SprtDecision::Continue, Undecided::MoreGamesMayDecide) => "continue",
        (SprtDecision::Continue, Undecided::OutOfGames) => "inconclusive",
    }
}

/// The model a batch's `tournament.json` names, if it names one.
pub fn model_of_word(word: &str) -> Option<EloModel> {
    [EloModel::Normalized, EloModel::Logistic]
        .into_iter()
        .find(|&m| model_word(m) == word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_out_of_games_is_inconclusive_and_one_that_may_go_on_continues() {
        let word = |d, u| decision_word(d, u);
        assert_eq!(word(SprtDecision::AcceptH0, Undecided::OutOfGames), "H0");
        assert_eq!(
            word(SprtDecision::AcceptH1, Undecided::MoreGamesMayDecide),
            "H1"
        );
        assert_eq!(
            word(SprtDecision::Continue, Undecided::OutOfGames),
            "inconclusive"
        );
        assert_eq!(
            word(SprtDecision::Continue, Undecided::MoreGamesMayDecide),
            "continue"
        );
    }
}
