//! Foreign dialects: bots written for CodinGame's and for the TheAIGames/Riddles.io
//! Ultimate Tic-Tac-Toe arenas play unmodified. A dialect only translates: the
//! referee keeps one game loop and checks every move with its own rules engine.
//!
//! - `codingame` (CodinGame/game-ultimate-tictactoe): each turn the bot reads the
//!   opponent's last move as `row col` (`-1 -1` when there is none), the number of
//!   valid actions, and the actions one per line, all in global 0–8 row/column
//!   coordinates, shuffled with the game seed as CodinGame does; it answers `row col`
//!   with optional trailing text (logged as its info). No handshake, no game messages.
//! - `riddles` (Riddles.io 2017; TheAIGames 2016 with ids 0/1): a `settings` block at
//!   the start of each game, then each turn `update game round|move|field|macroboard`
//!   and `action move <time bank ms>`; the bot answers `place_move <column> <row>`.
//!   Player ids: X is `player0` (id 0), O is `player1` (id 1); the field uses `.` for
//!   empty and the ids for marks; the macroboard uses `-1` for boards the bot may play
//!   in, the owner's id for won boards and `.` for the rest (drawn or not playable).
//!
//! Neither dialect has a way to announce the rules, so each bot believes its own
//! arena's ([`Dialect::own_rules`]), and their bots usually never exit on their own: the referee starts a fresh process for every game and
//! kills it at the end.

use rand::seq::SliceRandom as _;
use rand::{SeedableRng as _, rngs::StdRng};

use uttt::protocol::{FromBot, GameOver, Go, Info, LineError, NewGame, escape_bytes};
use uttt::rules::{BoardIndex, BoardState, Mark, Position, Rules, Square, Variant};

/// The line protocol a bot speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// protocol.md.
    #[default]
    Uttt,
    /// CodinGame's Ultimate Tic-Tac-Toe.
    Codingame,
    /// TheAIGames / Riddles.io Ultimate Tic-Tac-Toe.
    Riddles,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 3] = [Dialect::Uttt, Dialect::Codingame, Dialect::Riddles];

    /// The name used in bot specs (`codingame:./bot`) and configs (`protocol = …`).
    pub const fn name(self) -> &'static str {
        match self {
            Dialect::Uttt => "uttt",
            Dialect::Codingame => "codingame",
            Dialect::Riddles => "riddles",
        }
    }

    /// The dialect with this name.
    pub fn from_name(name: &str) -> Option<Dialect> {
        Dialect::ALL.into_iter().find(|d| d.name() == name)
    }

    /// Whether the bot says `ready` before anything else.
    pub const fn has_handshake(self) -> bool {
        matches!(self, Dialect::Uttt)
    }

    /// Whether one process may play several games (foreign bots have no "new
    /// game" message, so they get a fresh process each game).
    pub const fn reuses_process(self) -> bool {
        matches!(self, Dialect::Uttt)
    }

    /// The rules a bot of this dialect believes, since it cannot be told any:
    /// CodinGame's referee gives a full board with no line to whoever won more
    /// small boards (`most-boards`); Riddles.io's calls it a draw, as our
    /// standard rules do. `None` for our protocol, which announces the rules.
    pub const fn own_rules(self) -> Option<Rules> {
        match self {
            Dialect::Uttt => None,
            Dialect::Codingame => Some(Rules::STANDARD.with(Variant::MostBoards)),
            Dialect::Riddles => Some(Rules::STANDARD),
        }
    }

    /// Whether a bot of this dialect plays `rules` knowing them: our protocol
    /// announces any rules; a foreign dialect has no way to, so its bot knows
    /// only its own ([`Dialect::own_rules`]).
    pub fn can_express(self, rules: Rules) -> bool {
        self.own_rules().is_none_or(|own| own == rules)
    }

    /// Whether a bot of this dialect learns the whole position each turn, so it can
    /// be started from an opening. CodinGame's protocol sends only the opponent's
    /// last move: a bot started after opening moves would play on a board it does
    /// not know.
    pub const fn can_start_from_opening(self) -> bool {
        matches!(self, Dialect::Uttt | Dialect::Riddles)
    }

    /// Lines announcing a new game, if the dialect has any.
    pub fn new_game_lines(self, game: &NewGame) -> Vec<String> {
        match self {
            Dialect::Uttt => vec![uttt::protocol::ToBot::NewGame(game.clone()).to_string()],
            Dialect::Codingame => Vec::new(),
            Dialect::Riddles => {
                let per_move = game
                    .timing
                    .move_time
                    .or(game.timing.first_move_time)
                    .unwrap_or_default();
                let bank = game.timing.clock.map_or(per_move, |(initial, _)| initial);
                let added = game.timing.clock.map_or(per_move, |(_, inc)| inc);
                let id = riddles_id(game.mark);
                vec![
                    format!("settings timebank {}", bank.as_millis()),
                    format!("settings time_per_move {}", added.as_millis()),
                    "settings player_names player0,player1".to_string(),
                    format!("settings your_bot player{id}"),
                    format!("settings your_botid {id}"),
                ]
            }
        }
    }

    /// The request for a move. `seed` is the bot's game seed (CodinGame shuffles the
    /// valid actions with it).
    pub fn request_lines(self, go: &Go, rules: Rules, seed: u64) -> Vec<String> {
        match self {
            Dialect::Uttt => vec![go.to_string()],
            Dialect::Codingame => {
                let (row, col) = go
                    .last
                    .map_or((-1, -1), |sq| (i32::from(sq.row()), i32::from(sq.column())));
                let mut actions: Vec<Square> = go.legal.clone();
                actions.shuffle(&mut StdRng::seed_from_u64(
                    seed ^ (go.moves.len() as u64).rotate_left(32),
                ));
                let mut lines = Vec::with_capacity(actions.len() + 2);
                lines.push(format!("{row} {col}"));
                lines.push(actions.len().to_string());
                lines.extend(
                    actions
                        .iter()
                        .map(|sq| format!("{} {}", sq.row(), sq.column())),
                );
                lines
            }
            Dialect::Riddles => {
                let pos = Position::from_moves(rules, go.moves.iter().copied())
                    .unwrap_or(Position::new(rules));
                let ply = go.moves.len();
                let field: Vec<String> = (0..9u8)
                    .flat_map(|row| (0..9u8).map(move |col| (col, row)))
                    .map(|(col, row)| {
                        match Square::from_column_row(col, row).and_then(|sq| pos.mark_at(sq)) {
                            Some(mark) => riddles_id(mark).to_string(),
                            None => ".".to_string(),
                        }
                    })
                    .collect();
                let playable: Vec<BoardIndex> = go.legal.iter().map(|sq| sq.board()).collect();
                let macroboard: Vec<String> = BoardIndex::ALL
                    .iter()
                    .map(|&b| {
                        if playable.contains(&b) {
                            "-1".to_string()
                        } else {
                            match pos.board_state(b) {
                                BoardState::Won(mark) => riddles_id(mark).to_string(),
                                _ => ".".to_string(),
                            }
                        }
                    })
                    .collect();
                vec![
                    format!("update game round {}", ply / 2 + 1),
                    format!("update game move {}", ply + 1),
                    format!("update game field {}", field.join(",")),
                    format!("update game macroboard {}", macroboard.join(",")),
                    format!("action move {}", go.time.as_millis()),
                ]
            }
        }
    }

    /// Parses one line of a bot's reply into the messages it holds (CodinGame's
    /// trailing text becomes an `info` before the move).
    ///
    /// # Errors
    /// [`LineError`] saying what is wrong and what the dialect expects.
    pub fn parse_reply(self, bytes: &[u8]) -> Result<Vec<FromBot>, LineError> {
        match self {
            Dialect::Uttt => uttt::protocol::parse_from_bot(bytes).map(|m| vec![m]),
            Dialect::Codingame => {
                let text = uttt::protocol::check_line(bytes)?;
                let expected = || LineError::Dialect {
                    problem: format!(
                        "'{}' is not 'row col' with row and column 0..8",
                        escape_bytes(text.as_bytes())
                    ),
                };
                let (row, rest) = split_word(text);
                let (col, message) = split_word(rest);
                let (Ok(row), Ok(col)) = (row.parse::<u8>(), col.parse::<u8>()) else {
                    return Err(expected());
                };
                let square = Square::from_column_row(col, row).ok_or_else(expected)?;
                let mut out = Vec::new();
                if !message.is_empty() {
                    out.push(FromBot::Info(Info {
                        text: message.to_string(),
                        ..Info::default()
                    }));
                }
                out.push(FromBot::Move(square));
                Ok(out)
            }
            Dialect::Riddles => {
                let text = uttt::protocol::check_line(bytes)?;
                let words: Vec<&str> = text.split_whitespace().collect();
                let expected = || LineError::Dialect {
                    problem: format!(
                        "'{}' is not 'place_move <column> <row>' with column and row 0..8",
                        escape_bytes(text.as_bytes())
                    ),
                };
                let ["place_move", x, y] = words[..] else {
                    return Err(expected());
                };
                let (Ok(col), Ok(row)) = (x.parse::<u8>(), y.parse::<u8>()) else {
                    return Err(expected());
                };
                Square::from_column_row(col, row)
                    .map(|sq| vec![FromBot::Move(sq)])
                    .ok_or_else(expected)
            }
        }
    }

    /// The end-of-game line, if the dialect has one.
    pub fn game_over_line(self, over: &GameOver) -> Option<String> {
        match self {
            Dialect::Uttt => Some(uttt::protocol::ToBot::GameOver(over.clone()).to_string()),
            Dialect::Codingame | Dialect::Riddles => None,
        }
    }
}

/// The first word of `s` and the rest, blanks around them removed.
fn split_word(s: &str) -> (&str, &str) {
    let s = s.trim_matches([' ', '\t']);
    match s.find([' ', '\t']) {
        Some(i) => (&s[..i], s[i..].trim_start_matches([' ', '\t'])),
        None => (s, ""),
    }
}

/// X is player 0, O is player 1 (the Riddles.io convention).
fn riddles_id(mark: Mark) -> u8 {
    match mark {
        Mark::X => 0,
        Mark::O => 1,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use uttt::protocol::Timing;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    fn go_after(moves: &[&str]) -> Go {
        let moves: Vec<Square> = moves.iter().map(|m| sq(m)).collect();
        let pos = Position::from_moves(Rules::STANDARD, moves.iter().copied()).unwrap();
        Go::new(Duration::from_millis(100), &moves, pos.legal_moves())
    }

    #[test]
    fn codingame_turn_lists_shuffled_global_coordinates() {
        let go = go_after(&["e5"]);
        let lines = Dialect::Codingame.request_lines(&go, Rules::STANDARD, 7);
        // e5 is row 4, column 4; the reply board is the center board (rows/cols 3..5).
        assert_eq!(lines[0], "4 4");
        assert_eq!(lines[1], "8");
        let mut actions: Vec<&str> = lines[2..].iter().map(String::as_str).collect();
        let shuffled = actions.clone();
        actions.sort_unstable();
        assert_eq!(
            actions,
            ["3 3", "3 4", "3 5", "4 3", "4 5", "5 3", "5 4", "5 5"]
        );
        assert_eq!(
            shuffled,
            Dialect::Codingame.request_lines(&go, Rules::STANDARD, 7)[2..]
        );
        let first = Dialect::Codingame.request_lines(&go_after(&[]), Rules::STANDARD, 1);
        assert_eq!((first[0].as_str(), first[1].as_str()), ("-1 -1", "81"));
    }

    #[test]
    fn codingame_replies_with_trailing_text() {
        assert_eq!(
            Dialect::Codingame.parse_reply(b"3 5"),
            Ok(vec![FromBot::Move(sq("f4"))])
        );
        let with_text = Dialect::Codingame
            .parse_reply(b"3 5 winrate 0.61 sims 4000\r")
            .unwrap();
        assert_eq!(with_text.len(), 2);
        assert!(matches!(&with_text[0], FromBot::Info(i) if i.text == "winrate 0.61 sims 4000"));
        assert_eq!(with_text[1], FromBot::Move(sq("f4")));
        for bad in [
            &b"9 9"[..],
            b"-1 0",
            b"3",
            b"a b",
            b"",
            b"99999999999999999999 1",
        ] {
            assert!(
                Dialect::Codingame.parse_reply(bad).is_err(),
                "{}",
                escape_bytes(bad)
            );
        }
    }

    #[test]
    fn riddles_turn_has_field_macroboard_and_time_bank() {
        let go = go_after(&["e5", "e4"]);
        let lines = Dialect::Riddles.request_lines(&go, Rules::STANDARD, 0);
        assert_eq!(lines[0], "update game round 2");
        assert_eq!(lines[1], "update game move 3");
        let field: Vec<&str> = lines[2]
            .trim_start_matches("update game field ")
            .split(',')
            .collect();
        assert_eq!(field.len(), 81);
        assert_eq!(field[4 * 9 + 4], "0", "X on e5");
        assert_eq!(field[3 * 9 + 4], "1", "O on e4");
        assert_eq!(field.iter().filter(|v| **v == ".").count(), 79);
        // e4 is the top-middle cell of the center board: X must play in board 2.
        assert_eq!(lines[3], "update game macroboard .,-1,.,.,.,.,.,.,.");
        assert_eq!(lines[4], "action move 100");
    }

    #[test]
    fn riddles_settings_and_replies() {
        let game = NewGame {
            mark: Mark::O,
            rules: Rules::STANDARD,
            opponent: "x".into(),
            seed: 1,
            timing: Timing {
                move_time: Some(Duration::from_millis(500)),
                first_move_time: None,
                margin: Duration::ZERO,
                clock: Some((Duration::from_secs(10), Duration::from_millis(500))),
                nodes: None,
            },
        };
        assert_eq!(
            Dialect::Riddles.new_game_lines(&game),
            [
                "settings timebank 10000",
                "settings time_per_move 500",
                "settings player_names player0,player1",
                "settings your_bot player1",
                "settings your_botid 1",
            ]
        );
        // place_move takes the column first.
        assert_eq!(
            Dialect::Riddles.parse_reply(b"place_move 5 3"),
            Ok(vec![FromBot::Move(sq("f4"))])
        );
        assert!(Dialect::Riddles.parse_reply(b"place_move 9 3").is_err());
        assert!(Dialect::Riddles.parse_reply(b"pass").is_err());
        assert!(Dialect::Riddles.parse_reply(b"place_move 1 2 3").is_err());
    }

    #[test]
    fn a_foreign_dialect_knows_only_its_own_arenas_rules() {
        let most: Rules = "most-boards".parse().unwrap();
        let open: Rules = "open-won-boards".parse().unwrap();
        assert!(Dialect::Uttt.can_express(most) && Dialect::Uttt.can_express(open));
        assert_eq!(Dialect::Uttt.own_rules(), None);
        assert_eq!(Dialect::Codingame.own_rules(), Some(most));
        assert!(Dialect::Codingame.can_express(most));
        assert!(!Dialect::Codingame.can_express(Rules::STANDARD));
        assert_eq!(Dialect::Riddles.own_rules(), Some(Rules::STANDARD));
        assert!(Dialect::Riddles.can_express(Rules::STANDARD));
        assert!(!Dialect::Riddles.can_express(most));
    }
}
