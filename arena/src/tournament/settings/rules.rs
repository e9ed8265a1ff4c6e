//! Which rules a run plays. A bot written for another arena cannot be told the
//! rules: it believes its own arena's ([`Dialect::own_rules`]: CodinGame breaks a
//! no-line finish by boards won, Riddles.io calls it a draw). So the rules written
//! are played, refused if a foreign bot would play them without knowing (unless
//! accepted); with none written, the rules the foreign bots believe are the run's
//! default, said in a note, and bots believing different rules are refused with
//! the choice spelled out; with no foreign bot, standard.

use referee::dialect::Dialect;
use uttt::rules::Rules;

use super::input::{Input, Source};
use crate::tournament::entrant::Entrant;

/// Rules that cannot be played, with the bot written where the fix belongs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RulesError {
    /// Where the bot to blame was written.
    pub source: Source,
    /// What is wrong and the choices.
    pub message: String,
}

/// The rules of a run and, when nobody wrote them, why they are these.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunRules {
    /// The rules of every game.
    pub rules: Rules,
    /// Why: the foreign bots' own rules became the run's (said before the games).
    pub note: Option<String>,
}

/// The rules `input` plays with these `entrants` (each written at `sources[i]`).
///
/// # Errors
/// Rules written that a foreign bot cannot be told (unless accepted), or no rules
/// written and foreign bots that believe different ones.
pub fn decide(
    input: &Input,
    entrants: &[Entrant],
    sources: &[Source],
) -> Result<RunRules, RulesError> {
    let in_file = input.file.is_some();
    let accepted = input
        .allow_unannounced_rules
        .as_ref()
        .is_some_and(|a| a.value);
    let opt_in = if in_file {
        "allow-unannounced-rules = true"
    } else {
        "--allow-unannounced-rules"
    };
    let choose = |rules: Rules| {
        if in_file {
            format!("rules = \"{rules}\"")
        } else {
            format!("--rules {rules}")
        }
    };
    // Each foreign bot with the rules it believes, in the order written.
    let believers: Vec<(usize, &Entrant, Rules)> = entrants
        .iter()
        .enumerate()
        .filter_map(|(i, e)| e.spec.dialect.own_rules().map(|own| (i, e, own)))
        .collect();
    if let Some(given) = &input.rules {
        let rules = given.value;
        if !accepted && let Some((i, e, own)) = believers.iter().find(|(_, _, own)| *own != rules) {
            return Err(RulesError {
                source: sources[*i].clone(),
                message: unannounced_rules_message(
                    &e.spec.name,
                    e.spec.dialect,
                    rules,
                    &choose(*own),
                    opt_in,
                ),
            });
        }
        return Ok(RunRules { rules, note: None });
    }
    let Some((_, first, own)) = believers.first() else {
        return Ok(RunRules {
            rules: Rules::STANDARD,
            note: None,
        });
    };
    if let Some((i, other, theirs)) = believers.iter().find(|(_, _, r)| r != own) {
        return Err(RulesError {
            source: sources[*i].clone(),
            message: format!(
                "bot '{}' speaks {} and believes the rules '{own}', bot '{}' speaks {} and \
                 believes '{theirs}', and neither can be told other rules: choose the rules \
                 with {} or {}, and let the other bot play rules it does not know with {opt_in}",
                first.spec.name,
                first.spec.dialect.name(),
                other.spec.name,
                other.spec.dialect.name(),
                choose(*own),
                choose(*theirs),
            ),
        });
    }
    let names: Vec<String> = believers
        .iter()
        .map(|(_, e, _)| format!("'{}'", e.spec.name))
        .collect();
    let note = (*own != Rules::STANDARD).then(|| {
        format!(
            "rules {own}: the rules of {} ({}), which cannot be told any; {}",
            arena_of(first.spec.dialect),
            names.join(", "),
            explain(*own)
        )
    });
    Ok(RunRules { rules: *own, note })
}

/// The arena whose bots speak `dialect`, in words.
fn arena_of(dialect: Dialect) -> String {
    match dialect {
        Dialect::Codingame => "CodinGame's bots".to_string(),
        Dialect::Riddles => "Riddles.io's bots".to_string(),
        Dialect::Uttt => "this arena's bots".to_string(),
    }
}

/// What `rules` change, for the note.
fn explain(rules: Rules) -> String {
    if rules == Rules::STANDARD.with(uttt::rules::Variant::MostBoards) {
        "a full board with no line goes to whoever won more small boards \
         (--rules standard --allow-unannounced-rules to call it a draw)"
            .to_string()
    } else {
        format!("every game is played under '{rules}'")
    }
}

/// Why a foreign-dialect bot cannot play under `rules`, and the two ways out:
/// its own rules (`own_choice`, as written), or `opt_in`.
pub fn unannounced_rules_message(
    name: &str,
    dialect: Dialect,
    rules: Rules,
    own_choice: &str,
    opt_in: &str,
) -> String {
    let believes = dialect.own_rules().unwrap_or(Rules::STANDARD);
    format!(
        "bot '{name}' speaks {}, which cannot announce the rules '{rules}': it would play believing \
         the rules are '{believes}' (its moves are still checked under '{rules}'). Use {own_choice}, \
         the rules it knows, or accept this with {opt_in}",
        dialect.name()
    )
}
