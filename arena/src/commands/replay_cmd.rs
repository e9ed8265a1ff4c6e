//! `arena replay DIR --game ID [--ply N]`: a recorded game told in the words of the
//! log and drawn at any ply.
//!
//! The game is rebuilt by playing `moves.csv` through the rules engine, so the
//! claims and drawn boards in the story, and the board drawn, are the engine's,
//! not copied from the file; a file that does not replay (an illegal move, a gap
//! in the plies, a wrong mark) is reported with its file and line. The result line
//! is the one `games.csv` recorded, since a fault (a crash, a timeout) leaves no
//! trace on the board.

use std::path::Path;

use referee::game::{MoveRecord, result_sentence};
use uttt::notation::{format_move_list, illegal_words};
use uttt::rules::{ByMark, Position, Rules, Square};

use crate::cli::ReplayArgs;
use crate::exit_codes::{self, Code, UsageError};
use crate::results::replay::{RowProblem, replay};
use crate::results::store::{self, GAMES_FILE, GameRow, MOVES_FILE, read_games};
use crate::terminal::board::{self, BoardView, Theme};

/// How many game ids an error message lists.
const IDS_SHOWN: usize = 8;

/// A game read back from its results directory and replayed by the engine.
#[derive(Debug)]
pub struct Replayed {
    /// Its row in games.csv.
    pub row: GameRow,
    /// The rules it was played under.
    pub rules: Rules,
    /// Every mark, as the engine describes it.
    pub moves: Vec<MoveRecord>,
    /// Marks that came from the opening.
    pub opening_plies: usize,
    /// The position after each ply: `positions[0]` is the empty board.
    pub positions: Vec<Position>,
}

/// Why a replay could not start: the user's arguments (exit code 2) or the files.
#[derive(Debug)]
pub enum Problem {
    /// The arguments name no game there.
    Usage(String),
    /// The files cannot be read or do not replay.
    Data(anyhow::Error),
}

impl From<anyhow::Error> for Problem {
    fn from(e: anyhow::Error) -> Self {
        Problem::Data(e)
    }
}

/// Runs `arena replay`.
///
/// # Errors
/// The files cannot be read or do not replay; the message names file and line.
pub fn run(args: &ReplayArgs) -> anyhow::Result<Code> {
    let game = match load(&args.dir, args.game.as_deref()) {
        Ok(game) => game,
        Err(Problem::Usage(message)) => {
            return Err(UsageError::of(message.to_string()));
        }
        Err(Problem::Data(e)) => return Err(e),
    };
    let total = game.moves.len();
    let ply = match args.ply {
        None => total,
        Some(n) if n as usize <= total => n as usize,
        Some(n) => {
            return Err(UsageError::of(format!(
                "--ply {n}: game {} has {total} plies; choose 0 to {total}",
                game.row.id
            )));
        }
    };
    for line in story(&game, ply) {
        crate::say!("{line}");
    }
    crate::say!();
    for line in board_lines(&game, ply, Theme::for_stdout()) {
        crate::say!("{line}");
    }
    Ok(exit_codes::OK)
}

/// The header and the narrative up to `ply`, with the result line at the end of
/// the game.
pub fn story(game: &Replayed, ply: usize) -> Vec<String> {
    let row = &game.row;
    let mut header = format!(
        "Game {}: {} (X) vs {} (O), {} rules",
        row.id, row.x, row.o, game.rules
    );
    if !row.opening.is_empty() {
        header.push_str(&format!(", opening {}", format_move_list(&row.opening)));
    }
    let mut lines = vec![header, String::new()];
    lines.extend(
        game.moves[..ply]
            .iter()
            .flat_map(|m| m.narrative(m.ply as usize <= game.opening_plies)),
    );
    let total = game.moves.len();
    if ply == total {
        let names = ByMark {
            x: row.x.clone(),
            o: row.o.clone(),
        };
        lines.push(result_sentence(row.winner.winner(), &names, &row.detail));
    } else {
        lines.push(format!(
            "(stopped at ply {ply} of {total}; the game goes on for {} more)",
            total - ply
        ));
    }
    lines
}

/// The board after `ply` with a caption: the last move, whose turn it is, and the
/// position text (which `arena play --from` accepts).
pub fn board_lines(game: &Replayed, ply: usize, theme: Theme) -> Vec<String> {
    let pos = &game.positions[ply];
    let last = ply.checked_sub(1).map(|i| game.moves[i].square);
    let mut lines = vec![match last {
        Some(sq) => format!(
            "After ply {ply} of {} ({} {sq}):",
            game.moves.len(),
            game.moves[ply - 1].mark
        ),
        None => format!("Before the first move (ply 0 of {}):", game.moves.len()),
    }];
    lines.extend(board::render(
        &BoardView {
            position: pos,
            last,
            cursor: None,
        },
        theme,
    ));
    lines.push(board::turn_words(pos));
    lines.push(format!("Position: {pos}"));
    if ply > 0 {
        let moves: Vec<Square> = game.moves[..ply].iter().map(|m| m.square).collect();
        lines.push(format!("Moves: {}", format_move_list(&moves)));
    }
    lines
}

/// Reads and replays one game of a results directory (also `arena repro`'s).
///
/// # Errors
/// [`Problem`]: the directory or game is not there, or the files do not replay.
pub fn load(dir: &Path, id: Option<&str>) -> Result<Replayed, Problem> {
    if !dir.is_dir() {
        return Err(Problem::Usage(if dir.exists() {
            format!("'{}' is not a directory", dir.display())
        } else {
            format!("results directory '{}' does not exist", dir.display())
        }));
    }
    let games_path = dir.join(GAMES_FILE);
    if !games_path.is_file() {
        return Err(Problem::Usage(format!(
            "'{}' has no {GAMES_FILE}: give a directory written by `arena match --out`, \
             `arena tournament` or `arena play`",
            dir.display()
        )));
    }
    let rows = read_games(&games_path)?;
    let row = pick_game(&rows, id, &games_path)?;
    replay_game(row, &dir.join(MOVES_FILE), &games_path).map_err(Problem::Data)
}

fn pick_game(rows: &[GameRow], id: Option<&str>, path: &Path) -> Result<GameRow, Problem> {
    let ids = || {
        let mut list: Vec<&str> = rows.iter().take(IDS_SHOWN).map(|r| r.id.as_str()).collect();
        if rows.len() > IDS_SHOWN {
            list.push("…");
        }
        list.join(", ")
    };
    if rows.is_empty() {
        return Err(Problem::Usage(format!(
            "{} holds no finished game yet",
            path.display()
        )));
    }
    match id {
        Some(id) => rows.iter().find(|r| r.id == id).cloned().ok_or_else(|| {
            Problem::Usage(format!(
                "no game '{id}' in {}; its {} game{}: {}",
                path.display(),
                rows.len(),
                if rows.len() == 1 { " is" } else { "s are" },
                ids()
            ))
        }),
        None if rows.len() == 1 => Ok(rows[0].clone()),
        None => Err(Problem::Usage(format!(
            "{} holds {} games: choose one with --game (e.g. --game {}); ids: {}",
            path.display(),
            rows.len(),
            rows[0].id,
            ids()
        ))),
    }
}

/// Plays the game's rows of `moves.csv` through the engine; a row it refuses, a
/// count that disagrees with `games.csv` or an opening that is not how the moves
/// begin is an error naming the file and the line.
fn replay_game(row: GameRow, moves_path: &Path, games_path: &Path) -> anyhow::Result<Replayed> {
    let rows = store::read_moves(moves_path, |game| game == row.id)?;
    let replayed = replay(row.rules, rows.iter().map(|n| &n.row));
    if let Some(stop) = &replayed.stop {
        let numbered = &rows[stop.index];
        let (line, m) = (numbered.line, &numbered.row);
        let at = format!("{}: line {line}: game {}", moves_path.display(), row.id);
        anyhow::bail!(
            "{}",
            match &stop.problem {
                RowProblem::OutOfOrder { expected } => {
                    format!("{at}: ply {} where ply {expected} was expected", m.ply)
                }
                RowProblem::NotItsTurn { turn } => format!(
                    "{at}, ply {}: the mark is '{}' but it is {turn}'s turn",
                    m.ply, m.mark
                ),
                RowProblem::Illegal(error) => format!(
                    "{at}, ply {} ({}) is illegal: {}",
                    m.ply,
                    m.square,
                    illegal_words(error)
                ),
            }
        );
    }
    let moves: Vec<MoveRecord> = replayed.moves().cloned().collect();
    if row.plies as usize != moves.len() {
        anyhow::bail!(
            "{} says game {} has {} plies, but {} has {} of its moves",
            games_path.display(),
            row.id,
            row.plies,
            moves_path.display(),
            moves.len()
        );
    }
    let played: Vec<Square> = moves.iter().map(|m| m.square).collect();
    if !played.starts_with(&row.opening) {
        anyhow::bail!(
            "{}: game {}: the opening '{}' is not how its moves begin ({})",
            games_path.display(),
            row.id,
            format_move_list(&row.opening),
            format_move_list(&played[..row.opening.len().min(played.len())])
        );
    }
    Ok(Replayed {
        opening_plies: row.opening.len(),
        rules: row.rules,
        positions: replayed.steps.iter().map(|s| s.position).collect(),
        row,
        moves,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn games_row(id: &str) -> GameRow {
        GameRow {
            id: id.into(),
            round: 1,
            pair: 1,
            x: "a".into(),
            o: "b".into(),
            opening: Vec::new(),
            winner: uttt::result::Decision::Draw,
            winner_name: String::new(),
            reason: uttt::result::EndReason::NoMoves,
            detail: "no legal move left and no line of boards".into(),
            plies: 0,
            boards_x: 0,
            boards_o: 0,
            rules: Rules::STANDARD,
            duration_ms: 0,
            seed: 0,
            x_version: String::new(),
            o_version: String::new(),
            x_cpu_share: None,
            o_cpu_share: None,
        }
    }

    #[test]
    fn unknown_game_ids_list_the_valid_ones() {
        let rows: Vec<GameRow> = (1..=10).map(|i| games_row(&format!("G{i:04}"))).collect();
        let Err(Problem::Usage(message)) =
            pick_game(&rows, Some("G0042"), Path::new("r/games.csv"))
        else {
            panic!("expected a usage error");
        };
        assert_eq!(
            message,
            "no game 'G0042' in r/games.csv; its 10 games are: \
             G0001, G0002, G0003, G0004, G0005, G0006, G0007, G0008, …"
        );
        let Err(Problem::Usage(message)) = pick_game(&rows, None, Path::new("r/games.csv")) else {
            panic!("expected a usage error");
        };
        assert!(
            message.contains("choose one with --game (e.g. --game G0001)"),
            "{message}"
        );
        assert_eq!(
            pick_game(&rows[..1], None, Path::new("r/games.csv"))
                .ok()
                .map(|r| r.id),
            Some("G0001".to_string())
        );
    }
}
