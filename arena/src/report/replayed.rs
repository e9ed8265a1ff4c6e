//! The games of a results directory replayed by the rules engine and kept compact
//! ([`Play`]), with what disagrees with their files: read from `moves.csv` a game at
//! a time, so that a report of 100,000 games (six million rows) never holds the
//! rows, nor every position, all at once.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use uttt::notation::illegal_words;
use uttt::result::{Decision, EndReason};

use super::compact::Play;
use crate::results::replay::{Replay, RowProblem, replay};
use crate::results::store::{self, GameRow, MoveRow};

/// A game replayed by the engine, kept compact (a replay holds every position:
/// a hundred thousand of them at once would need gigabytes), and why it disagrees
/// with its files, if it does.
#[derive(Clone, Debug)]
pub struct Replayed {
    /// The game, compact.
    pub play: Play,
    /// Why it does not replay cleanly, if it does not.
    pub problem: Option<String>,
}

impl Replayed {
    /// Replays `moves`, the rows of `game` in `moves.csv`, in ply order; `details`
    /// keeps think times and info.
    pub fn new(game: &GameRow, moves: &[MoveRow], details: bool) -> Replayed {
        let replay = replay(game.rules, moves);
        let problem = match &replay.stop {
            Some(stop) => {
                let row = &moves[stop.index];
                let why = match &stop.problem {
                    RowProblem::OutOfOrder { expected } => format!("expected ply {expected} here"),
                    RowProblem::NotItsTurn { turn } => {
                        format!("the row says {} moved, but it was {turn}'s turn", row.mark)
                    }
                    RowProblem::Illegal(error) => format!(
                        "{} is not a legal move here: {}",
                        row.square,
                        illegal_words(error)
                    ),
                };
                Some(format!(
                    "moves.csv, game {} ply {}: {why}",
                    game.id, row.ply
                ))
            }
            None => end_problem(game, &replay),
        };
        Replayed {
            play: Play::new(&replay, details),
            problem,
        }
    }
}

/// Whether the replayed end agrees with `games.csv`: as many marks, and where the
/// board decided the game, the same winner and reason (as an [`EndReason`], so an
/// equal-boards draw under `most-boards` agrees with the file's `most-boards`).
fn end_problem(game: &GameRow, replay: &Replay) -> Option<String> {
    let marks = replay.plies();
    if marks != game.plies as usize {
        return Some(format!(
            "moves.csv has {marks} marks for game {}, games.csv says {}",
            game.id, game.plies
        ));
    }
    let outcome = replay.last().status().outcome()?;
    let winner = Decision::from_winner(outcome.winner());
    let reason = EndReason::from(outcome);
    if winner != game.winner || reason != game.reason {
        return Some(format!(
            "the rules end game {} as {winner} ({reason}), games.csv says {} ({})",
            game.id, game.winner, game.reason
        ));
    }
    None
}

/// Every game of `games` replayed from the `moves.csv` at `path`, by id. A game's
/// rows are gathered until games.csv's count of them is reached, then replayed and
/// dropped; a game with fewer rows (a damaged file) is replayed at the end with what
/// there is; rows of a game not in games.csv (unfinished when the run stopped) are
/// left out. Also says whether the file had any row.
///
/// # Errors
/// The file cannot be read, or a complete line is not a valid row.
pub fn replay_file(
    path: &Path,
    games: &[GameRow],
    details: bool,
) -> anyhow::Result<(BTreeMap<String, Replayed>, bool)> {
    let rows_of: HashMap<&str, &GameRow> = games.iter().map(|g| (g.id.as_str(), g)).collect();
    let mut pending: HashMap<String, Vec<MoveRow>> = HashMap::new();
    let mut done = BTreeMap::new();
    let mut any = false;
    store::for_each_move(path, |numbered| {
        any = true;
        let row = numbered.row;
        let Some(&game) = rows_of.get(row.game.as_str()) else {
            return Ok(());
        };
        let rows = pending.entry(row.game.clone()).or_default();
        rows.push(row);
        if rows.len() >= game.plies as usize
            && let Some(mut rows) = pending.remove(&game.id)
        {
            rows.sort_by_key(|m| m.ply);
            done.insert(game.id.clone(), Replayed::new(game, &rows, details));
        }
        Ok(())
    })?;
    for (id, mut rows) in pending {
        if let Some(&game) = rows_of.get(id.as_str()) {
            rows.sort_by_key(|m| m.ply);
            done.insert(id, Replayed::new(game, &rows, details));
        }
    }
    Ok((done, any))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::page::tests::game;
    use uttt::rules::{Position, Rules};

    #[test]
    fn an_equal_boards_draw_under_most_boards_agrees_with_its_row() {
        use rand::{Rng as _, SeedableRng as _};
        let rules: Rules = "most-boards".parse().unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        // Random games until one ends level on boards with no legal mark left.
        let (row, moves) = loop {
            let mut position = Position::new(rules);
            let mut moves = Vec::new();
            while !position.is_over() {
                let legal = position.legal_moves();
                let sq = legal.nth(rng.random_range(0..legal.len())).unwrap();
                let mark = position.side_to_move();
                position = position.play(sq).unwrap();
                moves.push(MoveRow {
                    ply: moves.len() as u32 + 1,
                    mark,
                    square: sq,
                    board: sq.board().number(),
                    cell: sq.cell().number(),
                    ..game("G0001", "a", "b").1[0].clone()
                });
            }
            let outcome = position.status().outcome().unwrap();
            if outcome.reason_name() == "equal-boards" {
                let (mut row, _) = game("G0001", "a", "b");
                row.rules = rules;
                row.winner = Decision::Draw;
                row.reason = EndReason::MostBoards;
                row.plies = moves.len() as u32;
                break (row, moves);
            }
        };
        let replay = crate::results::replay::replay(rules, &moves);
        assert_eq!(end_problem(&row, &replay), None);
        let mut wrong = row.clone();
        wrong.reason = EndReason::NoMoves;
        assert!(end_problem(&wrong, &replay).is_some());
    }
}
