//! Test suites of proven positions (docs/suite.md): a text format, one position a
//! line, each with the set of moves that are correct; the categories and what
//! "correct" means in each, checked by exhaustive search ([`prove`]); and the
//! generator of the shipped suite ([`generate`]).
//!
//! A line is `;`-separated fields `key value`:
//!
//! ```text
//! id win2-004; category win-in-2; rules standard; moves e5 e4 d2 ...; best c3 g7
//! ```
//!
//! `id`, `category`, `best` and one of `moves` (the game so far, what the bot is
//! sent) or `position` (position text) are required; `rules` defaults to
//! `standard`; `position` next to `moves` is checked against it; `side` (`x` or
//! `o`) is checked when given; `note` is free text. `#` starts a comment line.
//!
//! A suite file may come from anyone, and its ids are any word: whatever of a
//! file reaches a person (an id, the text a line's error quotes) is escaped by
//! the one rule for text the arena did not write
//! ([`uttt::protocol::escape_bytes`]), so no escape sequence in it reaches a
//! terminal.

pub mod generate;
pub mod prove;

use std::fmt;

use uttt::notation::{format_move_list, parse_move_list, parse_position};
use uttt::protocol::{escape_bytes, escape_lines};
use uttt::rules::{Position, Rules, Square};

/// The suite shipped with the arena (`arena suite BOT` with no file).
pub const SHIPPED: &str = include_str!("../../suites/tactics.txt");

/// What kind of position, and so what its correct moves are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// The side to move wins at once (three boards in a line); `best`: every move
    /// that does.
    WinIn1,
    /// It forces a win within 2 of its own moves but not in 1; `best`: every move
    /// that forces it within 2.
    WinIn2,
    /// Within 3 but not 2; `best`: every move that forces it within 3.
    WinIn3,
    /// The opponent threatens: most moves let it force a win within 2 of its
    /// moves; `best`: every move that does not (the side to move has no win within
    /// 2 itself).
    Defence,
    /// Some moves hand the opponent a free move that wins at once, one of them
    /// claiming a board (the tempting move); `best`: every move after which the
    /// opponent cannot win at once.
    FreeMoveTrap,
    /// A win in 1 or 2 under house rules whose winning moves differ from the
    /// standard rules' (the bot must read `rules`); `best` as for a win in 2.
    HouseRules,
}

impl Category {
    /// Every category, in the order tables list them.
    pub const ALL: [Category; 6] = [
        Category::WinIn1,
        Category::WinIn2,
        Category::WinIn3,
        Category::Defence,
        Category::FreeMoveTrap,
        Category::HouseRules,
    ];

    /// The word in suite files.
    pub const fn name(self) -> &'static str {
        match self {
            Category::WinIn1 => "win-in-1",
            Category::WinIn2 => "win-in-2",
            Category::WinIn3 => "win-in-3",
            Category::Defence => "defence",
            Category::FreeMoveTrap => "free-move-trap",
            Category::HouseRules => "house-rules",
        }
    }

    /// The category named `word`.
    pub fn from_name(word: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.name() == word)
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One position of a suite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Unique in its file.
    pub id: String,
    /// What kind of position.
    pub category: Category,
    /// The rules it is played under.
    pub rules: Rules,
    /// The moves that reach it, if given (what the bot is sent as `moves`).
    pub moves: Option<Vec<Square>>,
    /// The position.
    pub position: Position,
    /// The correct moves.
    pub best: Vec<Square>,
    /// Free text.
    pub note: String,
}

/// A line of a suite file that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {problem}")]
pub struct SuiteError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong and how to fix it, the line's text it quotes escaped.
    pub problem: String,
}

impl Entry {
    /// The id as a person is shown it (on a terminal, in a CSV cell): escaped,
    /// so an id holding an escape sequence shows it instead of running it.
    pub fn shown_id(&self) -> String {
        escape_bytes(self.id.as_bytes())
    }
}

/// Reads a suite file's text.
///
/// # Errors
/// The first line that is not a position, with what is wrong.
pub fn parse(text: &str) -> Result<Vec<Entry>, SuiteError> {
    let mut entries: Vec<Entry> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        // The problem quotes the line's text (a field, a category, a square):
        // escaped whole, without escape_bytes' length limit, which would cut the
        // fix off a long quote. The arena's own words are ASCII and come out as
        // they are.
        let entry = parse_line(trimmed).map_err(|problem| SuiteError {
            line: line_no,
            problem: escape_lines(problem.as_bytes()),
        })?;
        if entries.iter().any(|e| e.id == entry.id) {
            return Err(SuiteError {
                line: line_no,
                problem: format!(
                    "id '{}' appears twice: ids must be unique",
                    entry.shown_id()
                ),
            });
        }
        entries.push(entry);
    }
    Ok(entries)
}

fn parse_line(line: &str) -> Result<Entry, String> {
    let mut fields: Vec<(&str, &str)> = Vec::new();
    for field in line.split(';').map(str::trim).filter(|f| !f.is_empty()) {
        let (key, value) = field.split_once(' ').unwrap_or((field, ""));
        if fields.iter().any(|(k, _)| *k == key) {
            return Err(format!("'{key}' is given twice"));
        }
        fields.push((key, value.trim()));
    }
    let get = |key: &str| fields.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
    for (key, _) in &fields {
        if !matches!(
            *key,
            "id" | "category" | "rules" | "moves" | "position" | "side" | "best" | "note"
        ) {
            return Err(format!(
                "unknown field '{key}': fields are id, category, rules, moves, position, side, best, note"
            ));
        }
    }
    let id = get("id")
        .filter(|v| !v.is_empty() && !v.contains(char::is_whitespace))
        .ok_or("no 'id' (one word, e.g. 'id win1-001')")?
        .to_string();
    let category = get("category").ok_or("no 'category'")?;
    let category = Category::from_name(category).ok_or_else(|| {
        format!(
            "unknown category '{category}': use one of {}",
            Category::ALL.map(Category::name).join(", ")
        )
    })?;
    let rules: Rules = get("rules")
        .unwrap_or("standard")
        .parse()
        .map_err(|e: uttt::rules::ParseRulesError| e.to_string())?;
    let moves = get("moves")
        .map(|m| {
            let list = parse_move_list(m).map_err(|e| format!("moves: {e}"))?;
            Position::from_moves(rules, list.iter().copied())
                .map(|p| (list.clone(), p))
                .map_err(|(i, e)| {
                    format!(
                        "moves: move {} ({}) is illegal: {}",
                        i + 1,
                        list[i],
                        uttt::notation::illegal_words(&e)
                    )
                })
        })
        .transpose()?;
    let position = match (get("position"), &moves) {
        (Some(text), moves) => {
            let pos = parse_position(text, rules).map_err(|e| e.to_string())?;
            if let Some((_, reached)) = moves
                && *reached != pos
            {
                return Err(format!(
                    "the moves reach '{reached}', not the position '{text}'"
                ));
            }
            pos
        }
        (None, Some((_, pos))) => *pos,
        (None, None) => return Err("give the game's 'moves' or a 'position'".into()),
    };
    if position.is_over() {
        return Err("the game is already over in this position".into());
    }
    if let Some(side) = get("side") {
        let expected = position
            .side_to_move()
            .as_char()
            .to_ascii_lowercase()
            .to_string();
        if side != expected {
            return Err(format!("side '{side}', but it is {expected} to move"));
        }
    }
    let best = parse_move_list(get("best").ok_or("no 'best' (the correct moves)")?)
        .map_err(|e| format!("best: {e}"))?;
    if best.is_empty() {
        return Err("'best' lists no move".into());
    }
    if let Some(bad) = best.iter().find(|sq| !position.is_legal(**sq)) {
        return Err(format!("best: {bad} is not a legal move here"));
    }
    Ok(Entry {
        id,
        category,
        rules,
        moves: moves.map(|(list, _)| list),
        position,
        best,
        note: get("note").unwrap_or_default().to_string(),
    })
}

impl fmt::Display for Entry {
    /// The entry as a line of a suite file.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "id {}; category {}; rules {}",
            self.id, self.category, self.rules
        )?;
        if let Some(moves) = &self.moves {
            write!(f, "; moves {}", format_move_list(moves))?;
        }
        write!(
            f,
            "; position {}; best {}",
            self.position,
            format_move_list(&self.best)
        )?;
        if !self.note.is_empty() {
            write!(f, "; note {}", self.note)?;
        }
        Ok(())
    }
}

/// Why an entry's `best` is not what its category says, or `None` when the
/// search proves it exactly.
pub fn check(entry: &Entry) -> Option<String> {
    let proven = match correct_moves(entry.category, &entry.position) {
        Ok(moves) => moves,
        Err(why) => return Some(why),
    };
    if entry.category == Category::HouseRules
        && let Some(moves) = &entry.moves
        && !generate::differs_from_standard(moves, &proven)
    {
        return Some(
            "the standard rules give the same winning moves: nothing tests the house rules".into(),
        );
    }
    let mut given = entry.best.clone();
    given.sort();
    (given != proven).then(|| {
        format!(
            "best is {}, but the search proves {}",
            format_move_list(&given),
            if proven.is_empty() {
                "no move".to_string()
            } else {
                format_move_list(&proven)
            }
        )
    })
}

/// The correct moves of a position of `category`, proven by exhaustive search,
/// in square order.
///
/// # Errors
/// The position is not of that category (what the search found instead).
pub fn correct_moves(category: Category, pos: &Position) -> Result<Vec<Square>, String> {
    use prove::{claims_board, gives_free_move, losing_moves, winning_moves, wins_within};
    let win_in = |n: u32| -> Result<Vec<Square>, String> {
        if n > 1 && wins_within(pos, n - 1) {
            return Err(format!("it is a win in {} already", n - 1));
        }
        let moves = winning_moves(pos, n);
        if moves.is_empty() {
            return Err(format!("no move forces a win within {n}"));
        }
        Ok(moves)
    };
    let not_losing = |within: u32| -> Vec<Square> {
        let losing = losing_moves(pos, within);
        pos.legal_moves()
            .iter()
            .filter(|sq| !losing.contains(sq))
            .collect()
    };
    match category {
        Category::WinIn1 => win_in(1),
        Category::WinIn2 => win_in(2),
        Category::WinIn3 => win_in(3),
        Category::Defence => {
            if wins_within(pos, 2) {
                return Err("the side to move wins within 2 itself".into());
            }
            let holding = not_losing(2);
            if holding.is_empty() {
                return Err("every move loses within 2 of the opponent's moves".into());
            }
            if holding.len() * 2 > pos.legal_moves().len() {
                return Err("most moves hold: there is no threat to defend".into());
            }
            Ok(holding)
        }
        Category::FreeMoveTrap => {
            if wins_within(pos, 1) {
                return Err("the side to move wins at once".into());
            }
            let losing = losing_moves(pos, 1);
            if losing.is_empty() {
                return Err("no move lets the opponent win at once".into());
            }
            if let Some(sq) = losing.iter().find(|&&sq| !gives_free_move(pos, sq)) {
                return Err(format!(
                    "{sq} loses at once without handing over a free move"
                ));
            }
            if !losing.iter().any(|&sq| claims_board(pos, sq)) {
                return Err("no losing move claims a board (nothing tempts)".into());
            }
            let holding = not_losing(1);
            if holding.is_empty() {
                return Err("every move lets the opponent win at once".into());
            }
            Ok(holding)
        }
        Category::HouseRules => {
            if !prove::is_house(pos) {
                return Err(
                    "the rules are standard: a house-rules position needs a variant".into(),
                );
            }
            let moves = winning_moves(pos, 2);
            if moves.is_empty() {
                return Err("no move forces a win within 2".into());
            }
            Ok(moves)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_answer_of_the_shipped_suite_is_proven() {
        let entries = parse(SHIPPED).unwrap();
        for entry in &entries {
            assert_eq!(check(entry), None, "{}", entry.id);
        }
        for (category, quota) in generate::QUOTAS {
            let n = entries.iter().filter(|e| e.category == category).count();
            assert_eq!(n, quota, "{category}");
        }
    }

    #[test]
    fn the_shipped_suite_is_what_its_generator_makes() {
        let made = generate::suite(1, &generate::QUOTAS);
        assert_eq!(
            made,
            parse(SHIPPED).unwrap(),
            "run `arena __suite-generate > bots/suites/tactics.txt`"
        );
    }

    #[test]
    fn lines_round_trip_through_their_text() {
        for entry in parse(SHIPPED).unwrap().iter().take(20) {
            assert_eq!(
                parse(&entry.to_string()).unwrap(),
                std::slice::from_ref(entry)
            );
        }
    }

    #[test]
    fn a_wrong_answer_is_caught_by_the_proof() {
        let entry = &parse(SHIPPED).unwrap()[0];
        let mut wrong = entry.clone();
        let other = entry
            .position
            .legal_moves()
            .iter()
            .find(|sq| !entry.best.contains(sq))
            .unwrap();
        wrong.best = vec![other];
        let why = check(&wrong).unwrap();
        assert!(why.contains("but the search proves"), "{why}");
    }

    #[test]
    fn bad_lines_say_what_is_wrong() {
        let cases = [
            (
                "id a; category win-in-9; moves e5; best e4",
                "unknown category 'win-in-9'",
            ),
            (
                "id a; category win-in-1; moves e5 a1; best e4",
                "moves: move 2 (a1) is illegal",
            ),
            (
                "id a; category win-in-1; moves e5; best a1",
                "best: a1 is not a legal move here",
            ),
            (
                "id a; category win-in-1; best e4",
                "give the game's 'moves' or a 'position'",
            ),
            (
                "id a; category win-in-1; moves e5; best e4; colour red",
                "unknown field 'colour'",
            ),
            (
                "id a; category win-in-1; moves e5; side x; best e4",
                "side 'x', but it is o to move",
            ),
            (
                "id a; category win-in-1; rules fast; moves e5; best e4",
                "unknown rules 'fast'",
            ),
        ];
        for (line, expected) in cases {
            let err = parse(line).unwrap_err();
            assert_eq!(err.line, 1);
            assert!(err.problem.contains(expected), "{line}: {}", err.problem);
        }
        let twice = "id a; category win-in-1; moves e5; best e4\n# c\nid a; category win-in-1; moves e5; best e4";
        assert_eq!(parse(twice).unwrap_err().line, 3);
    }
}
