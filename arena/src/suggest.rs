//! "Did you mean …?" for a word the user mistyped: config keys, built-in bot
//! names, rule names (subcommands and flags get clap's own), through `strsim`,
//! which clap already depends on.

/// The candidate closest to `word`, if any is close enough: at most one edit
/// (a swap of neighbours counting as one) per three letters, and at least one.
/// Stricter than clap's Jaro measure, which offers `name` for `games`.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let allowed = (word.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .filter(|c| *c != word)
        .map(|c| (strsim::osa_distance(word, c), strsim::jaro(word, c), c))
        .filter(|(edits, _, _)| *edits <= allowed)
        // Fewest edits; between equals, the most alike (`game`: `games`, not `name`).
        .min_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)))
        .map(|(_, _, c)| c)
}

/// ` (did you mean 'x'?)`, or nothing when no candidate is close.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(word, candidates).map_or_else(String::new, |c| format!(" (did you mean '{c}'?)"))
}

/// The names a rules string is made of.
pub const RULE_NAMES: [&str; 4] = [
    "standard",
    "open-won-boards",
    "draws-count-both",
    "most-boards",
];

/// A rules parse error with a suggestion for the part that was not understood,
/// right after it: "unknown rules 'most-bords' (did you mean 'most-boards'?): use …".
pub fn rules_error(error: &uttt::rules::ParseRulesError) -> String {
    let text = error.to_string();
    let quoted = format!("'{}'", error.name);
    match text.split_once(&quoted) {
        Some((before, after)) => format!(
            "{before}{quoted}{}{after}",
            did_you_mean(&error.name, RULE_NAMES)
        ),
        None => text,
    }
}

/// toml's "unknown field `gamez`, expected one of `name`, `seed`, …" with the
/// closest expected key right after the unknown one, when one is close.
pub fn unknown_field(message: &str) -> String {
    let Some(rest) = message.strip_prefix("unknown field `") else {
        return message.to_string();
    };
    let Some((field, expected)) = rest.split_once('`') else {
        return message.to_string();
    };
    let keys: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    format!(
        "unknown field `{field}`{}{expected}",
        did_you_mean(field, keys)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_words_are_suggested_and_far_ones_are_not() {
        assert_eq!(closest("mtcs", ["random", "mcts", "greedy"]), Some("mcts"));
        assert_eq!(closest("alphazero", ["random", "mcts", "greedy"]), None);
        assert_eq!(closest("games", ["name", "command"]), None);
        assert_eq!(closest("game", ["name", "seed", "games"]), Some("games"));
        assert_eq!(
            unknown_field("unknown field `gamez`, expected one of `name`, `seed`, `games`"),
            "unknown field `gamez` (did you mean 'games'?), expected one of `name`, `seed`, `games`"
        );
        assert_eq!(
            unknown_field("invalid type: string"),
            "invalid type: string"
        );
    }
}
