//! The games the network learns from: `mcts` or `mcts-net` of fixed work against
//! itself, after a few random plies, each of its moves with the value its search
//! gave it and the visits of the root's children (the search's policy).
//!
//! A game is a function of its index and the run's seed alone (the engines stop
//! by their work), and the games come back in index order whatever the number of
//! threads, so a run can be repeated exactly.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use uttt::rules::{Mark, Position, Rules, Square};

use crate::engine::{Budget, Engine, GameSetup, random_legal};
use crate::mcts::MctsEngine;

/// Makes the engine both sides of a game play (one per side), of fixed work.
pub type Factory<'a> = &'a (dyn Fn() -> MctsEngine + Sync);

/// The root's children a record keeps: those with at least this share of the
/// visits (the others count as never visited).
const KEPT_SHARE: u32 = 100;

/// One self-play game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// X's result: 1 a win, 0.5 a draw, 0 a loss.
    pub result: f32,
    /// How many of the first moves were random.
    pub random_plies: usize,
    /// Every move, from the empty board.
    pub moves: Vec<Square>,
    /// For each move after the random ones, the search's value (0..1) for the
    /// side that made it.
    pub values: Vec<f32>,
    /// For each move after the random ones, the root's children the search
    /// visited (at least 1% of its visits) and their visits; empty for a move
    /// played without a search (one that wins at once).
    pub visits: Vec<Vec<(Square, u32)>>,
}

impl fmt::Display for GameRecord {
    /// `RESULT PLIES MOVE… | VALUE… | VISITS…`, one game per line; each move's
    /// visits are `SQUARE:N,…`, or `-` for none.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.result, self.random_plies)?;
        for m in &self.moves {
            write!(f, " {m}")?;
        }
        write!(f, " |")?;
        for v in &self.values {
            write!(f, " {v:.3}")?;
        }
        write!(f, " |")?;
        for children in &self.visits {
            let text: Vec<String> = children.iter().map(|(sq, n)| format!("{sq}:{n}")).collect();
            if text.is_empty() {
                write!(f, " -")?;
            } else {
                write!(f, " {}", text.join(","))?;
            }
        }
        Ok(())
    }
}

impl FromStr for GameRecord {
    type Err = String;

    fn from_str(line: &str) -> Result<GameRecord, String> {
        let (head, rest) = line.split_once('|').ok_or("no '|'")?;
        let (values, visits) = rest.split_once('|').unwrap_or((rest, ""));
        let mut words = head.split_whitespace();
        let result: f32 = words
            .next()
            .ok_or("empty line")?
            .parse()
            .map_err(|_| "the result is not a number")?;
        if ![0.0, 0.5, 1.0].contains(&result) {
            return Err(format!("result {result} is not 0, 0.5 or 1"));
        }
        let random_plies = words
            .next()
            .ok_or("no random plies")?
            .parse()
            .map_err(|_| "the random plies are not a count")?;
        let moves = words
            .map(|w| {
                w.parse::<Square>()
                    .map_err(|_| format!("'{w}' is not a square"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let values = values
            .split_whitespace()
            .map(|v| match v.parse::<f32>() {
                Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
                _ => Err(format!("'{v}' is not a value from 0 to 1")),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let visits = visits
            .split_whitespace()
            .map(|word| {
                if word == "-" {
                    return Ok(Vec::new());
                }
                word.split(',')
                    .map(|pair| {
                        let (sq, n) = pair
                            .split_once(':')
                            .ok_or(format!("'{pair}' is not SQUARE:N"))?;
                        let sq = sq
                            .parse::<Square>()
                            .map_err(|_| format!("'{sq}' is not a square"))?;
                        let n = n
                            .parse::<u32>()
                            .map_err(|_| format!("'{n}' is not a count"))?;
                        Ok((sq, n))
                    })
                    .collect::<Result<Vec<_>, String>>()
            })
            .collect::<Result<Vec<_>, _>>()?;
        if !visits.is_empty() && visits.len() != values.len() {
            return Err(format!(
                "{} values but {} visit lists",
                values.len(),
                visits.len()
            ));
        }
        Ok(GameRecord {
            result,
            random_plies,
            moves,
            values,
            visits,
        })
    }
}

impl GameRecord {
    /// Each position after the random plies with its side to move's result and
    /// search value, replayed under `rules`; `map` is applied to every move first
    /// (a symmetry of the board, or the identity).
    ///
    /// # Errors
    /// A move is illegal under `rules`.
    pub fn positions(
        &self,
        rules: Rules,
        map: impl Fn(Square) -> Square,
    ) -> Result<Vec<(Position, f32, f32)>, String> {
        Ok(self
            .searched(rules, map)?
            .into_iter()
            .map(|p| (p.position, p.result, p.search))
            .collect())
    }

    /// [`GameRecord::positions`] with the root's visits of each (moved by `map`
    /// too).
    ///
    /// # Errors
    /// A move is illegal under `rules`.
    pub fn searched(
        &self,
        rules: Rules,
        map: impl Fn(Square) -> Square,
    ) -> Result<Vec<Searched>, String> {
        let mut pos = Position::new(rules);
        let mut out = Vec::with_capacity(self.moves.len());
        for (ply, &sq) in self.moves.iter().enumerate() {
            if ply >= self.random_plies && !pos.is_over() {
                let result = match pos.side_to_move() {
                    Mark::X => self.result,
                    Mark::O => 1.0 - self.result,
                };
                let k = ply - self.random_plies;
                let search = self.values.get(k).copied().unwrap_or(result);
                let visits = self
                    .visits
                    .get(k)
                    .map(|children| children.iter().map(|&(sq, n)| (map(sq), n)).collect())
                    .unwrap_or_default();
                out.push(Searched {
                    position: pos,
                    result,
                    search,
                    visits,
                });
            }
            pos = pos
                .play(map(sq))
                .map_err(|e| format!("move {} ({sq}): {e}", ply + 1))?;
        }
        Ok(out)
    }
}

/// A searched position of a game.
#[derive(Clone, Debug)]
pub struct Searched {
    /// The position.
    pub position: Position,
    /// The game's result for its side to move.
    pub result: f32,
    /// The search's value for its side to move.
    pub search: f32,
    /// The root's visited children and their visits.
    pub visits: Vec<(Square, u32)>,
}

/// Plays game `index` of a run seeded `seed`: the engine `make` makes against
/// itself under `rules`, after 0 to `opening` random plies.
pub fn play_game(
    make: Factory<'_>,
    opening: u32,
    seed: u64,
    index: u64,
    rules: Rules,
) -> GameRecord {
    let mut rng = SmallRng::seed_from_u64(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ index);
    let mut engines = [make(), make()];
    for (engine, mark) in engines.iter_mut().zip([Mark::X, Mark::O]) {
        engine.new_game(&GameSetup {
            mark,
            rules,
            seed: rng.random(),
        });
    }
    let random_plies = rng.random_range(0..=opening) as usize;
    let mut pos = Position::new(rules);
    let mut moves: Vec<Square> = Vec::new();
    let mut values = Vec::new();
    let mut visits = Vec::new();
    while !pos.is_over() {
        let sq = if moves.len() < random_plies {
            random_legal(&pos, &mut rng)
        } else {
            let engine = &mut engines[pos.side_to_move().index()];
            // Fixed work: the deadline is only a safety net.
            let budget = Budget::from_now(Duration::from_secs(600));
            let choice = engine.choose(&pos, &moves, budget);
            let score = choice.info.and_then(|i| i.score).unwrap_or(0.0);
            // Kept to the three decimals a line holds, so a game read back from
            // its line is the game played.
            let value = ((score + 1.0) / 2.0).clamp(0.0, 1.0);
            values.push((value * 1000.0).round() as f32 / 1000.0);
            let children = engine.root_visits(&pos);
            let total: u32 = children.iter().map(|c| c.1).sum();
            let floor = (total / KEPT_SHARE).max(1);
            visits.push(children.into_iter().filter(|c| c.1 >= floor).collect());
            choice.square
        };
        pos.play_unchecked(sq);
        moves.push(sq);
    }
    let result = match pos.status().outcome().and_then(|o| o.winner()) {
        Some(Mark::X) => 1.0,
        Some(Mark::O) => 0.0,
        None => 0.5,
    };
    GameRecord {
        result,
        random_plies: random_plies.min(moves.len()),
        moves,
        values,
        visits,
    }
}

/// Games `games` (indices) of a run, on `threads` threads, in index order;
/// `progress` is called after each game with the number finished. A run in
/// pieces (`0..n`, then `n..m`) plays the games of the whole (`0..m`).
pub fn generate(
    make: Factory<'_>,
    games: std::ops::Range<u64>,
    opening: u32,
    seed: u64,
    rules: Rules,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Vec<GameRecord> {
    let threads = threads.max(1) as u64;
    let done = std::sync::atomic::AtomicU64::new(0);
    let first = games.start;
    let mut slots: Vec<Option<GameRecord>> = vec![None; games.clone().count()];
    let results: Vec<Vec<(u64, GameRecord)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let done = &done;
                scope.spawn(move || {
                    let mut mine = Vec::new();
                    for index in (first + t..games.end).step_by(threads as usize) {
                        mine.push((index, play_game(make, opening, seed, index, rules)));
                        let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                        progress(n);
                    }
                    mine
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or_default())
            .collect()
    });
    for (index, game) in results.into_iter().flatten() {
        slots[(index - first) as usize] = Some(game);
    }
    slots.into_iter().flatten().collect()
}

/// A factory of the engine `spec` names (`mcts …` or `mcts-net …`, as `arena
/// bot` takes them).
///
/// # Errors
/// `spec` is not `mcts` or `mcts-net` with options they take.
pub fn spec_factory(spec: &str) -> Result<impl Fn() -> MctsEngine + Sync, crate::BotError> {
    let mut words = spec.split_whitespace().map(str::to_string);
    let name = words.next().unwrap_or_default();
    let args: Vec<String> = words.collect();
    let engine = crate::registry::mcts_engine(&name, &args)?;
    let (name, config) = (engine.name(), *engine.config());
    let name: &'static str = if name == "mcts-net" {
        "mcts-net"
    } else {
        "mcts"
    };
    Ok(move || MctsEngine::named(name, config))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_round_trips_through_its_line() {
        let make = spec_factory("mcts --playouts 50").unwrap();
        let game = play_game(&make, 4, 1, 0, Rules::STANDARD);
        assert!(game.random_plies <= 4);
        assert_eq!(game.values.len(), game.moves.len() - game.random_plies);
        let line = game.to_string();
        let back: GameRecord = line.parse().unwrap();
        assert_eq!(back, game);
        let end = Position::from_moves(Rules::STANDARD, game.moves.iter().copied()).unwrap();
        assert!(end.is_over());
        for bad in [
            "",
            "2 0 e5 |",
            "1 0 z9 |",
            "1 0 e5 | 1.5",
            "1 x e5 |",
            "1 0 e5",
        ] {
            assert!(bad.parse::<GameRecord>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_run_is_the_same_on_one_thread_or_two() {
        let make = spec_factory("mcts --playouts 30").unwrap();
        let run = |games, threads| generate(&make, games, 4, 9, Rules::STANDARD, threads, &|_| {});
        let one = run(0..6, 1);
        assert_eq!(one.len(), 6);
        assert_eq!(one, run(0..6, 2));
        assert_ne!(one[0].moves, one[1].moves);
        let mut pieces = run(0..2, 2);
        pieces.extend(run(2..6, 2));
        assert_eq!(one, pieces);
    }
}
