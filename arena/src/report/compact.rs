//! The compact form of a game that the report embeds and the live page fetches:
//! one character per mark plus the few facts of each position that only the rules
//! can decide, and word tables written here by the notation module.
//!
//! Why: the report used to embed every position of every game as JSON objects
//! (about 3.7 KB a game), so 100,000 games made a page of hundreds of megabytes.
//! A game here costs about as many bytes as it has plies, and the page builds a
//! game's positions only when it is opened.
//!
//! What the script may and may not do with it: it draws; it never applies a rule.
//! Everything the rules decide is given —
//! - `claims`: where a board's state changed (claimed by X or O, or drawn), at which
//!   ply, as the engine's position says after that mark;
//! - `free`: every position where the player to move was *not* sent to one board,
//!   with the boards the engine allows there (so a house rule that keeps won boards
//!   open needs nothing new in the page);
//! - `end`: the boards in play after the last mark and who is to move there, or
//!   nothing when the game is over.
//!
//! In any other position the player was sent, and the board is where the next
//! recorded mark went: the next mark is data, not a rule. The mark of ply k is X
//! for odd k and O for even k in every game the page gets, because the replay
//! ([`crate::results::replay`]) refuses a row whose mark is not the side to move.
//! The words of a move, a claim and a caption come from [`Tables`], built from the
//! same functions the logs use.

use std::collections::BTreeMap;

use serde::Serialize;
use serde::ser::{SerializeTuple, Serializer};
use uttt::rules::{BoardIndex, BoardState, Mark, Position, Square};

use crate::results::replay::{Replay, caption_words};
use referee::game::{claim_line, drawn_line, move_line};

/// The 88 symbols of the encoding: printable ASCII without the characters that JSON
/// or HTML escape (`"` `\` `<` `>` `&` `'`) and without space (a separator). Square
/// `k` (board × 9 + cell) and ply `k` are both written as `ALPHABET[k]`.
pub const ALPHABET: &str =
    "!#$%()*+,-./0123456789:;=?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~";

/// Reports whose games hold more marks than this leave out each mark's think time
/// and info: at 100,000 games they would be most of the page. The live page
/// (`arena serve`) and `arena replay` still show them, game by game.
pub const DETAILS_BUDGET: usize = 1_000_000;

fn symbol(k: usize) -> char {
    // Squares are < 81 and plies ≤ 81, both below the alphabet's 88.
    char::from(ALPHABET.as_bytes()[k.min(ALPHABET.len() - 1)])
}

/// The words the script puts together, each written by the function the logs use.
#[derive(Debug, Serialize)]
pub struct Tables {
    /// The symbols, in order.
    alphabet: &'static str,
    /// "X played center of top-right board": index `(opening × 2 + mark) × 81 + square`,
    /// mark 0 for X and 1 for O, opening 1 for a move of the opening.
    played: Vec<String>,
    /// "X claims the top-left board", "The top-left board is drawn": index
    /// `state × 9 + board`, state 0 for X, 1 for O, 2 for drawn.
    claims: Vec<String>,
    /// "O to play in the top-right board": index `mark × 10 + board`, board 9 for
    /// a free move.
    captions: Vec<String>,
}

impl Tables {
    /// The tables, built once per page.
    pub fn new() -> Tables {
        let mut played = Vec::with_capacity(4 * 81);
        for opening in [false, true] {
            for mark in Mark::ALL {
                for board in BoardIndex::ALL {
                    for cell in uttt::rules::Cell::ALL {
                        played.push(move_line(mark, Square::new(board, cell), opening));
                    }
                }
            }
        }
        let mut claims: Vec<String> = Mark::ALL
            .iter()
            .flat_map(|&m| BoardIndex::ALL.map(|b| claim_line(m, b)))
            .collect();
        claims.extend(BoardIndex::ALL.map(drawn_line));
        let captions = Mark::ALL
            .iter()
            .flat_map(|&m| {
                BoardIndex::ALL
                    .map(|b| caption_words(m, Some(b)))
                    .into_iter()
                    .chain([caption_words(m, None)])
            })
            .collect();
        Tables {
            alphabet: ALPHABET,
            played,
            claims,
            captions,
        }
    }
}

impl Default for Tables {
    fn default() -> Tables {
        Tables::new()
    }
}

/// A game's marks and the facts of its positions (see the module's doc).
#[derive(Clone, Debug, PartialEq)]
pub struct Play {
    /// How many of the first marks came from the opening.
    pub opening: usize,
    /// One symbol per mark: its square.
    pub moves: String,
    /// Per board whose state changed: ply, board digit 1–9, `X`, `O` or `D`.
    pub claims: String,
    /// Per position with a free move, space-separated: its ply, then the digits of
    /// the boards the engine allows — left out when they are those of the free move
    /// before (late in a game most moves are free, and the open boards rarely change).
    pub free: String,
    /// The boards in play after the last mark (digits), empty when the game is over.
    pub end: String,
    /// The caption after the last mark (index into [`Tables`]' captions), `None`
    /// when the game is over.
    pub end_caption: Option<usize>,
    /// Think times and info, when the page has room for them.
    pub details: Option<Details>,
}

/// Per mark, what the log says beyond the square.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Details {
    /// Think time in ms per mark (`null` for the opening's), to 0.01 ms.
    t: Vec<Option<f64>>,
    /// The bot's info by ply, where it said something.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    i: BTreeMap<usize, String>,
}

fn state_char(state: BoardState) -> char {
    match state {
        BoardState::Open => '.',
        BoardState::Won(Mark::X) => 'X',
        BoardState::Won(Mark::O) => 'O',
        BoardState::Drawn => 'D',
    }
}

fn digits(boards: impl IntoIterator<Item = BoardIndex>) -> String {
    boards
        .into_iter()
        .map(|b| char::from(b'0' + b.number()))
        .collect()
}

/// The caption's index in [`Tables`]: who is to move, and where.
fn caption_index(position: &Position) -> Option<usize> {
    if position.is_over() {
        return None;
    }
    let side = position.side_to_move().index();
    Some(side * 10 + position.required_board().map_or(9, BoardIndex::index))
}

impl Play {
    /// The compact form of a replayed game; `details` keeps think times and info.
    pub fn new(replay: &Replay, details: bool) -> Play {
        let opening = replay
            .steps
            .iter()
            .filter(|s| s.played.as_ref().is_some_and(|p| p.bot.is_none()))
            .count();
        let mut play = Play {
            opening,
            moves: String::with_capacity(replay.plies()),
            claims: String::new(),
            free: String::new(),
            end: String::new(),
            end_caption: caption_index(replay.last()),
            details: details.then(Details::default),
        };
        let last = replay.plies();
        let mut before: Option<&Position> = None;
        let mut free_boards = String::new();
        for (ply, step) in replay.steps.iter().enumerate() {
            let position = &step.position;
            if let Some(played) = &step.played {
                play.moves.push(symbol(played.record.square.index()));
                if let Some(d) = &mut play.details {
                    d.t.push(played.think_ms.map(|t| (t * 100.0).round() / 100.0));
                    if !played.info.is_empty() {
                        d.i.insert(ply, played.info.clone());
                    }
                }
            }
            for board in BoardIndex::ALL {
                let state = position.board_state(board);
                if before.is_some_and(|b| b.board_state(board) != state) {
                    play.claims.push(symbol(ply));
                    play.claims.push(char::from(b'0' + board.number()));
                    play.claims.push(state_char(state));
                }
            }
            let playable = step.playable();
            if ply == last {
                play.end = digits(playable);
            } else if position.required_board().is_none() {
                if !play.free.is_empty() {
                    play.free.push(' ');
                }
                play.free.push(symbol(ply));
                let boards = digits(playable);
                if boards != free_boards {
                    play.free.push_str(&boards);
                    free_boards = boards;
                }
            }
            before = Some(position);
        }
        play
    }
}

impl Serialize for Play {
    /// As a JSON array, `[opening, moves, claims, free, end, endCaption, details]`
    /// without trailing nulls: a report repeats it for every game, so no key is
    /// written at all.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let len = if self.details.is_some() {
            7
        } else if self.end_caption.is_some() {
            6
        } else {
            5
        };
        let mut t = s.serialize_tuple(len)?;
        t.serialize_element(&self.opening)?;
        t.serialize_element(&self.moves)?;
        t.serialize_element(&self.claims)?;
        t.serialize_element(&self.free)?;
        t.serialize_element(&self.end)?;
        if len > 5 {
            t.serialize_element(&self.end_caption)?;
        }
        if len > 6 {
            t.serialize_element(&self.details)?;
        }
        t.end()
    }
}

/// A finished game as the report's list and viewer need it: the row of
/// `games.csv` with its texts as indices into the page's shared words, and its play.
#[derive(Debug)]
pub struct GameCode<'a> {
    /// The game's id.
    pub id: &'a str,
    /// X's and O's names, as indices into the page's bot names.
    pub bots: [usize; 2],
    /// Round and pair.
    pub round: u32,
    /// The pair within the round.
    pub pair: u32,
    /// "standard rules · opening of 4 plies", as a word index.
    pub about: usize,
    /// The result line, as a word index.
    pub result: usize,
    /// 0: X won, 1: O won, 2: a draw.
    pub outcome: u8,
    /// The end reason's name ("three-in-a-row", "crash"), as a word index.
    pub reason: usize,
    /// The end in words from games.csv, as a word index.
    pub detail: usize,
    /// The marks games.csv counts.
    pub plies: u32,
    /// Why the game does not replay cleanly, if it does not.
    pub problem: Option<&'a str>,
    /// The protocol transcript of a game that ended abnormally.
    pub transcript: Option<String>,
    /// The marks.
    pub play: &'a Play,
}

impl Serialize for GameCode<'_> {
    /// As a JSON array: `[id, x, o, round, pair, about, result, outcome, reason,
    /// detail, plies, play, problem, transcript]`, without trailing nulls.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let len = if self.transcript.is_some() {
            14
        } else if self.problem.is_some() {
            13
        } else {
            12
        };
        let mut t = s.serialize_tuple(len)?;
        t.serialize_element(&self.id)?;
        t.serialize_element(&self.bots[0])?;
        t.serialize_element(&self.bots[1])?;
        t.serialize_element(&self.round)?;
        t.serialize_element(&self.pair)?;
        t.serialize_element(&self.about)?;
        t.serialize_element(&self.result)?;
        t.serialize_element(&self.outcome)?;
        t.serialize_element(&self.reason)?;
        t.serialize_element(&self.detail)?;
        t.serialize_element(&self.plies)?;
        t.serialize_element(&self.play)?;
        if len > 12 {
            t.serialize_element(&self.problem)?;
        }
        if len > 13 {
            t.serialize_element(&self.transcript)?;
        }
        t.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::replay::replay;
    use crate::results::store::MoveRow;
    use proptest::prelude::*;
    use rand::{Rng as _, SeedableRng as _};
    use uttt::notation::parse_square_lenient as parse_square;
    use uttt::rules::Rules;

    /// A random game under `rules`, as the rows of moves.csv.
    fn random_game(rules: Rules, seed: u64) -> Vec<MoveRow> {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut position = Position::new(rules);
        let mut rows = Vec::new();
        while !position.is_over() {
            let legal = position.legal_moves();
            let square = legal
                .iter()
                .nth(rng.random_range(0..legal.len()))
                .expect("a move");
            let mark = position.side_to_move();
            position = position.play(square).expect("legal");
            rows.push(MoveRow {
                game: "G0001".into(),
                ply: rows.len() as u32 + 1,
                mark,
                bot: if rows.len() < 2 {
                    crate::results::store::OPENING_BOT.into()
                } else {
                    "b".into()
                },
                square,
                board: square.board().number(),
                cell: square.cell().number(),
                free_move: false,
                think_ms: Some(rng.random_range(0.0..50.0)),
                depth: None,
                score: None,
                nodes: None,
                info: if rows.len() % 7 == 0 {
                    "depth 3".into()
                } else {
                    String::new()
                },
                claimed: None,
                drawn: None,
                charged_ms: None,
                cpu_ms: None,
                wait_ms: None,
                late_ms: None,
            });
        }
        rows
    }

    fn index(c: char) -> usize {
        ALPHABET.find(c).expect("a symbol")
    }

    /// The positions as the module's doc says the page reads them: per ply, the
    /// nine boards' states and the boards in play — no rule applied.
    fn decode(play: &Play) -> Vec<(String, String)> {
        let moves: Vec<usize> = play.moves.chars().map(index).collect();
        let claims: Vec<char> = play.claims.chars().collect();
        let mut boards_before = String::new();
        let free: BTreeMap<usize, String> = play
            .free
            .split(' ')
            .filter(|e| !e.is_empty())
            .map(|e| {
                let mut chars = e.chars();
                let ply = chars.next().map(index).expect("a ply");
                let boards: String = chars.collect();
                if !boards.is_empty() {
                    boards_before = boards;
                }
                (ply, boards_before.clone())
            })
            .collect();
        let mut boards = ['.'; 9];
        (0..=moves.len())
            .map(|ply| {
                for claim in claims.chunks(3).filter(|c| index(c[0]) == ply) {
                    let board = claim[1].to_digit(10).expect("a digit") as usize - 1;
                    boards[board] = claim[2];
                }
                let in_play = if ply == moves.len() {
                    play.end.clone()
                } else if let Some(f) = free.get(&ply) {
                    f.clone()
                } else {
                    (moves[ply] / 9 + 1).to_string()
                };
                (boards.iter().collect(), in_play)
            })
            .collect()
    }

    #[test]
    fn the_alphabet_has_distinct_symbols_that_need_no_escaping() {
        let symbols: std::collections::BTreeSet<char> = ALPHABET.chars().collect();
        assert_eq!(symbols.len(), 88);
        assert_eq!(ALPHABET.len(), 88);
        assert!(ALPHABET.chars().all(|c| c.is_ascii_graphic()));
        assert!(!ALPHABET.contains(['"', '\\', '<', '>', '&', '\'']));
        let json = serde_json::to_string(ALPHABET).expect("json");
        assert_eq!(json.len(), ALPHABET.len() + 2, "nothing escaped");
    }

    #[test]
    fn tables_say_what_the_logs_say() {
        let tables = Tables::new();
        let e5 = parse_square("e5").expect("e5");
        assert_eq!(tables.played.len(), 324);
        assert_eq!(tables.played[e5.index()], "X played center of center board");
        assert_eq!(
            tables.played[(2 + 1) * 81 + e5.index()],
            "O played center of center board (opening)"
        );
        assert_eq!(tables.claims[9 + 2], "O claims the top-right board");
        assert_eq!(tables.claims[18 + 4], "The center board is drawn");
        assert_eq!(tables.captions[10 + 9], "O has a free move: any open board");
        assert_eq!(tables.captions[2], "X to play in the top-right board");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Read as documented, the encoding gives every position's boards and the
        /// boards in play exactly as the engine has them, under every rule set.
        #[test]
        fn read_as_documented_every_position_is_the_engines(seed in any::<u64>(), variant in 0usize..4) {
            let rules: Rules = ["standard", "open-won-boards", "draws-count-both", "most-boards"][variant]
                .parse()
                .expect("rules");
            let rows = random_game(rules, seed);
            let replayed = replay(rules, &rows);
            prop_assert!(replayed.stop.is_none());
            let play = Play::new(&replayed, true);
            prop_assert_eq!(play.moves.len(), rows.len());
            prop_assert_eq!(play.opening, 2.min(rows.len()));
            let decoded = decode(&play);
            for (step, (boards, in_play)) in replayed.steps.iter().zip(&decoded) {
                let engine: String = BoardIndex::ALL
                    .map(|b| state_char(step.position.board_state(b)))
                    .iter()
                    .collect();
                prop_assert_eq!(boards, &engine);
                prop_assert_eq!(in_play, &digits(step.playable()));
            }
            prop_assert_eq!(play.end_caption, None, "a finished game has no caption");
            let details = play.details.expect("kept");
            prop_assert_eq!(details.t.len(), rows.len());
            prop_assert!(details.i.keys().all(|&ply| rows[ply - 1].info == "depth 3"));
        }
    }

    #[test]
    fn an_unfinished_game_ends_with_who_is_to_move_and_where() {
        let rows = random_game(Rules::STANDARD, 9);
        let replayed = replay(Rules::STANDARD, &rows[..10]);
        let play = Play::new(&replayed, false);
        let last = replayed.last();
        let side = last.side_to_move().index();
        let board = last.required_board().map_or(9, BoardIndex::index);
        assert_eq!(play.end_caption, Some(side * 10 + board));
        assert_eq!(play.end, digits(replayed.steps[10].playable()));
        assert!(play.details.is_none());
        let json = serde_json::to_value(&play).expect("json");
        assert_eq!(json[0], 2, "the first two marks were the opening");
        assert_eq!(json[1].as_str().map(str::len), Some(10));
        assert_eq!(
            json.as_array().map(Vec::len),
            Some(6),
            "no details: left out"
        );
    }
}
