//! In-process games between engines, for the reduced calibration check and for
//! development tools: colour-swapped pairs from seeded random openings, spread over
//! threads, with no referee, no processes and no clock beyond a generous deadline.
//! The published calibration goes through `arena tournament` instead.
//!
//! Each game starts every engine with [`Engine::new_game`] and a seed derived from
//! the schedule's seed and the game's place in it, so with fixed-work engines the
//! results do not depend on the number of threads or on which thread played what.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::SmallRng;
use uttt::result::EndReason;
use uttt::rules::{ByMark, Mark, Position, Rules, Square};

use super::{Level, LevelEngine};
use crate::engine::{Budget, Engine, GameSetup, random_legal};
use crate::registry::{BotError, from_spec};

/// Makes a fresh engine for one contestant (each thread builds its own).
pub type Builder = Box<dyn Fn() -> Result<Box<dyn Engine>, BotError> + Sync>;

/// A contestant that plays `level`.
pub fn level_builder(level: &Level) -> Builder {
    let level = level.clone();
    Box::new(move || Ok(Box::new(LevelEngine::new(&level)?) as Box<dyn Engine>))
}

/// A contestant that plays the engine `spec`, as `arena bot` takes it.
pub fn spec_builder(spec: &str) -> Builder {
    let spec = spec.to_string();
    Box::new(move || from_spec(&spec))
}

/// Which contestants meet, and how.
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    /// Pairings, as indices into the contestants.
    pub pairings: Vec<(usize, usize)>,
    /// Colour-swapped pairs of games per pairing.
    pub pairs: u32,
    /// Random plies before the engines take over (the same for both games of a pair).
    pub opening_plies: u32,
    /// The rules of every game.
    pub rules: Rules,
    /// Seeds every opening and every engine.
    pub seed: u64,
    /// The time an engine may take for a move: a safety net for fixed-work engines,
    /// which stop long before it.
    pub move_time: Duration,
}

impl Schedule {
    /// Every pairing of `n` contestants whose indices are at most `window` apart
    /// (`window` ≥ n - 1: a full round robin).
    pub fn window(n: usize, window: usize) -> Vec<(usize, usize)> {
        (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .filter(|&(a, b)| b - a <= window)
            .collect()
    }
}

/// One finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played {
    /// The contestant that played X.
    pub x: usize,
    /// The contestant that played O.
    pub o: usize,
    /// The pair it belongs to (the other game of the pair has the colours swapped).
    pub pair: u64,
    /// The winner, or `None` for a draw.
    pub winner: Option<Mark>,
    /// How it ended: on the board, or an illegal move by the loser.
    pub reason: EndReason,
    /// Moves each side chose (opening plies excluded).
    pub moves: ByMark<u32>,
    /// Time each side spent choosing them (for cost reports, never for results).
    pub think: ByMark<Duration>,
}

/// Why a schedule could not be played.
#[derive(Debug)]
pub enum GamesError {
    /// A contestant could not be built.
    Build(BotError),
    /// A pairing names a contestant that does not exist, or one contestant twice.
    Pairing {
        /// The pairing as given.
        pairing: (usize, usize),
        /// How many contestants there are.
        contestants: usize,
    },
}

impl std::fmt::Display for GamesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GamesError::Build(e) => e.fmt(f),
            GamesError::Pairing {
                pairing: (a, b),
                contestants,
            } => write!(
                f,
                "pairing ({a}, {b}): a pairing needs two different contestants of 0..{contestants}"
            ),
        }
    }
}

impl std::error::Error for GamesError {}

/// Plays `schedule` between `contestants` on `threads` threads. Games come back in
/// schedule order: pairing by pairing, pair by pair, the first contestant of the
/// pairing playing X in the first game of each pair.
///
/// # Errors
/// A pairing that is not two different contestants, or a contestant that could
/// not be built.
pub fn play(
    contestants: &[Builder],
    schedule: &Schedule,
    threads: usize,
) -> Result<Vec<Played>, GamesError> {
    let n = contestants.len();
    if let Some(&pairing) = schedule
        .pairings
        .iter()
        .find(|&&(a, b)| a == b || a >= n || b >= n)
    {
        return Err(GamesError::Pairing {
            pairing,
            contestants: n,
        });
    }
    let jobs: Vec<(usize, u32)> = (0..schedule.pairings.len())
        .flat_map(|p| (0..schedule.pairs).map(move |k| (p, k)))
        .collect();
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, [Played; 2])>> = Mutex::new(Vec::with_capacity(jobs.len()));
    let failure: Mutex<Option<BotError>> = Mutex::new(None);
    let worker = || {
        let built: Result<Vec<Box<dyn Engine>>, BotError> =
            contestants.iter().map(|build| build()).collect();
        let mut engines = match built {
            Ok(engines) => engines,
            Err(e) => {
                *lock(&failure) = Some(e);
                return;
            }
        };
        loop {
            let j = next.fetch_add(1, Ordering::Relaxed);
            let Some(&(p, k)) = jobs.get(j) else { break };
            let pair = (p as u64) << 32 | u64::from(k);
            let games = play_pair(&mut engines, schedule, schedule.pairings[p], pair);
            lock(&results).push((j, games));
        }
    };
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(worker);
        }
    });
    if let Some(e) = lock(&failure).take() {
        return Err(GamesError::Build(e));
    }
    let mut results = std::mem::take(&mut *lock(&results));
    results.sort_by_key(|(j, _)| *j);
    Ok(results.into_iter().flat_map(|(_, games)| games).collect())
}

/// A poisoned lock only means another worker panicked; its data is still whole.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The engines at `a` and `b` (two different places) at once.
fn two_mut<T>(items: &mut [T], a: usize, b: usize) -> (&mut T, &mut T) {
    if a < b {
        let (left, right) = items.split_at_mut(b);
        (&mut left[a], &mut right[0])
    } else {
        let (left, right) = items.split_at_mut(a);
        (&mut right[0], &mut left[b])
    }
}

/// Both games of one pair: `a` plays X first, then `b` does, from one opening.
fn play_pair(
    engines: &mut [Box<dyn Engine>],
    schedule: &Schedule,
    (a, b): (usize, usize),
    pair: u64,
) -> [Played; 2] {
    let pair_seed = crate::engine::mix(schedule.seed ^ crate::engine::mix(pair));
    let mut rng = SmallRng::seed_from_u64(pair_seed);
    let mut opening = Vec::new();
    let mut pos = Position::new(schedule.rules);
    for _ in 0..schedule.opening_plies {
        if pos.is_over() {
            break;
        }
        let sq = random_legal(&pos, &mut rng);
        pos.play_unchecked(sq);
        opening.push(sq);
    }
    let mut game = |x: usize, o: usize, g: u64| {
        let (ex, eo) = two_mut(engines, x, o);
        let seed = crate::engine::mix(pair_seed ^ g);
        let outcome = one_game(ex.as_mut(), eo.as_mut(), &opening, schedule, seed);
        Played {
            x,
            o,
            pair,
            winner: outcome.winner,
            reason: outcome.reason,
            moves: outcome.moves,
            think: outcome.think,
        }
    };
    [game(a, b, 1), game(b, a, 2)]
}

/// How one game went.
struct Outcome {
    winner: Option<Mark>,
    reason: EndReason,
    moves: ByMark<u32>,
    think: ByMark<Duration>,
}

/// One game from `opening`, `x` moving first.
fn one_game(
    x: &mut dyn Engine,
    o: &mut dyn Engine,
    opening: &[Square],
    schedule: &Schedule,
    seed: u64,
) -> Outcome {
    let setup = |mark: Mark, salt: u64| GameSetup {
        mark,
        rules: schedule.rules,
        seed: crate::engine::mix(seed ^ salt),
    };
    x.new_game(&setup(Mark::X, 1));
    o.new_game(&setup(Mark::O, 2));
    let mut pos = Position::new(schedule.rules);
    let mut history: Vec<Square> = Vec::with_capacity(81);
    for &sq in opening {
        pos.play_unchecked(sq);
        history.push(sq);
    }
    let mut outcome = Outcome {
        winner: None,
        reason: EndReason::NoMoves,
        moves: ByMark::default(),
        think: ByMark::default(),
    };
    while !pos.is_over() {
        let side = pos.side_to_move();
        let engine: &mut dyn Engine = match side {
            Mark::X => &mut *x,
            Mark::O => &mut *o,
        };
        let started = Instant::now();
        let choice = engine.choose(&pos, &history, Budget::from_now(schedule.move_time));
        *outcome.think.get_mut(side) += started.elapsed();
        *outcome.moves.get_mut(side) += 1;
        match pos.play(choice.square) {
            Ok(next) => pos = next,
            Err(_) => {
                // An illegal move breaks the engine contract; it loses, as under
                // the referee.
                outcome.winner = Some(!side);
                outcome.reason = EndReason::IllegalMove;
                break;
            }
        }
        history.push(choice.square);
    }
    x.end_game();
    o.end_game();
    if let Some(end) = pos.status().outcome() {
        outcome.winner = end.winner();
        outcome.reason = EndReason::from(end);
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_keeps_pairings_of_near_neighbours() {
        assert_eq!(Schedule::window(4, 1), [(0, 1), (1, 2), (2, 3)]);
        assert_eq!(Schedule::window(3, 5), [(0, 1), (0, 2), (1, 2)]);
    }

    #[test]
    fn results_do_not_depend_on_the_threads() {
        let contestants = ["random", "greedy", "mcts --playouts 50"].map(spec_builder);
        let schedule = Schedule {
            pairings: Schedule::window(3, 2),
            pairs: 3,
            opening_plies: 2,
            rules: Rules::STANDARD,
            seed: 9,
            move_time: Duration::from_secs(30),
        };
        let strip = |games: Vec<Played>| {
            games
                .into_iter()
                .map(|g| (g.x, g.o, g.pair, g.winner, g.moves))
                .collect::<Vec<_>>()
        };
        let one = strip(play(&contestants, &schedule, 1).unwrap());
        let three = strip(play(&contestants, &schedule, 3).unwrap());
        assert_eq!(one.len(), 18);
        assert_eq!(one, three);
        // Colours alternate within each pair.
        assert_eq!((one[0].0, one[0].1, one[1].0, one[1].1), (0, 1, 1, 0));
        assert_eq!(one[0].2, one[1].2);
    }

    #[test]
    fn bad_contestants_and_pairings_are_errors() {
        let schedule = |pairings: Vec<(usize, usize)>| Schedule {
            pairings,
            pairs: 2,
            opening_plies: 0,
            rules: Rules::STANDARD,
            seed: 1,
            move_time: Duration::from_secs(1),
        };
        let broken = ["random", "alphazero"].map(spec_builder);
        let err = play(&broken, &schedule(vec![(0, 1)]), 2).unwrap_err();
        assert!(err.to_string().contains("unknown bot 'alphazero'"), "{err}");
        let fine = ["random", "greedy"].map(spec_builder);
        for pairing in [(0, 0), (0, 2)] {
            let err = play(&fine, &schedule(vec![pairing]), 1).unwrap_err();
            assert!(matches!(err, GamesError::Pairing { .. }), "{err}");
        }
    }
}
