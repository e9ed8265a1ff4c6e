//! The one interface every reference engine implements, and the time budget it is
//! handed. The protocol loop ([`crate::serve()`]) and the self-play harness drive
//! engines only through this trait, so an engine never sees a pipe, a clock field
//! of the protocol or a malformed message.

use std::fmt;
use std::time::{Duration, Instant};

use rand::Rng;
use uttt::protocol::Info;
use uttt::rules::{BoardIndex, Cell, Mark, Position, Rules, Square};

/// What an engine learns when a game starts.
///
/// The seed is the only source of randomness an engine may use: the same seed,
/// the same moves by the opponent and enough time give the same game (for
/// engines whose work does not depend on the clock), so tournament games can be
/// replayed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameSetup {
    /// The engine's mark in this game.
    pub mark: Mark,
    /// The rules the game is played under.
    pub rules: Rules,
    /// Seed for the engine's random generator.
    pub seed: u64,
}

impl GameSetup {
    /// Standard rules, playing `mark`, with `seed`.
    pub const fn standard(mark: Mark, seed: u64) -> GameSetup {
        GameSetup {
            mark,
            rules: Rules::STANDARD,
            seed,
        }
    }
}

/// The wall-clock time an engine may spend on one move: it must return before
/// [`Budget::deadline`].
///
/// A deadline (an instant) rather than a duration, because the protocol loop
/// starts the clock when it *reads* the request, and everything after that
/// (rebuilding the position, allocating) is already spent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    start: Instant,
    deadline: Instant,
    nodes: Option<u64>,
}

impl Budget {
    /// A budget that started at `start` and ends at `deadline`.
    pub fn new(start: Instant, deadline: Instant) -> Budget {
        Budget {
            start,
            deadline: deadline.max(start),
            nodes: None,
        }
    }

    /// The same budget, also ending after `nodes` nodes of the engine's own
    /// search when given (`nodes` on `go`): fixed work, so the same seed gives the
    /// same move on an idle or a busy machine. The deadline stays a safety net.
    #[must_use]
    pub const fn with_nodes(mut self, nodes: Option<u64>) -> Budget {
        self.nodes = nodes;
        self
    }

    /// The node limit, if the move has one. Each engine counts its own nodes:
    /// negamax the positions it visits, mcts its playouts; random and greedy do a
    /// fixed amount of work whatever the budget.
    pub const fn nodes(&self) -> Option<u64> {
        self.nodes
    }

    /// The tighter of the move's node limit and an engine's own (`--nodes`,
    /// `--playouts`), whichever are set.
    pub fn node_limit_with(&self, own: Option<u64>) -> Option<u64> {
        match (own, self.nodes) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// A budget of `time` starting now.
    pub fn from_now(time: Duration) -> Budget {
        let start = Instant::now();
        Budget::new(start, start + time)
    }

    /// When the engine must have returned its move.
    pub const fn deadline(&self) -> Instant {
        self.deadline
    }

    /// When the budget started.
    pub const fn start(&self) -> Instant {
        self.start
    }

    /// The whole budget, from start to deadline.
    pub fn total(&self) -> Duration {
        self.deadline - self.start
    }

    /// The same budget ending no later than `cap` after its start: for engines that
    /// deliberately think less than they may (the beginner levels).
    #[must_use]
    pub fn capped(self, cap: Duration) -> Budget {
        Budget {
            deadline: self.deadline.min(self.start + cap),
            ..self
        }
    }

    /// Whether the deadline has passed.
    pub fn is_over(&self) -> bool {
        Instant::now() >= self.deadline
    }
}

/// A deadline checked cheaply from a hot loop: the clock is read only every
/// `interval` calls, so search loops can ask after every node or playout.
///
/// Reading the clock costs ~25 ns, a playout ~1 µs; checking every 16 playouts
/// keeps the overrun far below a millisecond at a negligible cost.
#[derive(Clone, Copy, Debug)]
pub struct Stopwatch {
    deadline: Instant,
    interval: u32,
    countdown: u32,
    expired: bool,
}

impl Stopwatch {
    /// Checks `deadline` every `interval` calls to [`Stopwatch::expired`] (at least 1).
    pub fn new(deadline: Instant, interval: u32) -> Stopwatch {
        Stopwatch {
            deadline,
            interval: interval.max(1),
            countdown: 0,
            expired: false,
        }
    }

    /// Whether the deadline has passed; once true, stays true.
    #[inline]
    pub fn expired(&mut self) -> bool {
        if self.expired {
            return true;
        }
        if self.countdown == 0 {
            self.countdown = self.interval;
            self.expired = Instant::now() >= self.deadline;
        }
        self.countdown -= 1;
        self.expired
    }
}

/// What ends an engine's thinking on a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Work {
    /// A fixed amount of work (a depth, nodes, playouts, or none at all): with the
    /// same seed and the same opponent moves it plays the same game on any machine
    /// and under any load, as long as the deadline is generous enough not to come
    /// first. The reference levels are built only from such engines.
    Fixed,
    /// The clock: it thinks until the deadline, so it plays stronger on a faster or
    /// quieter machine.
    Clock,
}

/// An engine's answer to one move request.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// The move. Must be one of the position's legal moves.
    pub square: Square,
    /// What the engine wants logged with the move (depth, score, nodes, pv).
    pub info: Option<Info>,
}

impl Choice {
    /// A move with nothing to report.
    pub const fn plain(square: Square) -> Choice {
        Choice { square, info: None }
    }
}

/// A game-playing engine.
///
/// The contract, which the protocol loop and the tests rely on:
/// - [`Engine::choose`] is only called for a position that is not over, and
///   `pos` is the position reached by playing `history` from the empty board
///   under the rules of the last [`Engine::new_game`]. It returns a legal move of
///   `pos`, before the budget's deadline, and never panics.
/// - Randomness comes only from the seed given to [`Engine::new_game`].
/// - An engine may keep state between moves of one game (a search tree) and must
///   drop it in `new_game`. It must not assume it saw every position: a referee may
///   start a game from an opening, and `history` says what happened since.
pub trait Engine: fmt::Debug + Send {
    /// The name the engine gives in the handshake (`id name`), e.g. `negamax-hard`.
    fn name(&self) -> String;

    /// A new game starts: forget the last one and reseed.
    fn new_game(&mut self, setup: &GameSetup);

    /// Chooses a move for the side to move in `pos`.
    fn choose(&mut self, pos: &Position, history: &[Square], budget: Budget) -> Choice;

    /// The game ended; an engine may free what it kept for it.
    fn end_game(&mut self) {}

    /// What ends its thinking on a move. Engines that do not say are assumed to
    /// think until the deadline.
    fn work(&self) -> Work {
        Work::Clock
    }
}

impl<E: Engine + ?Sized> Engine for &mut E {
    fn name(&self) -> String {
        (**self).name()
    }
    fn new_game(&mut self, setup: &GameSetup) {
        (**self).new_game(setup);
    }
    fn choose(&mut self, pos: &Position, history: &[Square], budget: Budget) -> Choice {
        (**self).choose(pos, history, budget)
    }
    fn end_game(&mut self) {
        (**self).end_game();
    }
    fn work(&self) -> Work {
        (**self).work()
    }
}

impl<E: Engine + ?Sized> Engine for Box<E> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn new_game(&mut self, setup: &GameSetup) {
        (**self).new_game(setup);
    }
    fn choose(&mut self, pos: &Position, history: &[Square], budget: Budget) -> Choice {
        (**self).choose(pos, history, budget)
    }
    fn end_game(&mut self) {
        (**self).end_game();
    }
    fn work(&self) -> Work {
        (**self).work()
    }
}

/// Some legal move of `pos`, for engines that must answer and found nothing
/// better; `e5` when the position has no legal move (a contract violation the
/// protocol loop never commits: it only asks about positions that are not over).
pub fn first_legal(pos: &Position) -> Square {
    pos.legal_moves()
        .iter()
        .next()
        .unwrap_or(Square::new(BoardIndex::ALL[4], Cell::ALL[4]))
}

/// A uniformly random legal move of `pos`, or [`first_legal`] if there is none.
pub fn random_legal(pos: &Position, rng: &mut impl Rng) -> Square {
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return first_legal(pos);
    }
    moves
        .nth(rng.random_range(0..moves.len()))
        .unwrap_or_else(|| first_legal(pos))
}

/// A score as engines report it (-1 a sure loss, 0 even, 1 a sure win) as one
/// digit, 0 to 9, so the development tools can print a game's values in one line
/// and show at a glance where it left balance.
pub fn value_digit(score: f64) -> char {
    let digit = ((score + 1.0) * 5.0).clamp(0.0, 9.0) as u8;
    char::from(b'0' + digit)
}

/// SplitMix64's step: a well-mixed 64-bit value from a counter (the table's keys,
/// the levels' per-game seeds).
pub const fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_digits_run_from_sure_loss_to_sure_win() {
        let digits: String = [-1.0, -0.81, -0.79, 0.0, 0.59, 0.61, 0.99, 1.0, 7.0]
            .into_iter()
            .map(value_digit)
            .collect();
        assert_eq!(digits, "001578999");
    }

    #[test]
    fn capped_budget_ends_at_the_earlier_instant() {
        let start = Instant::now();
        let budget = Budget::new(start, start + Duration::from_millis(100));
        assert_eq!(
            budget.capped(Duration::from_millis(10)).deadline(),
            start + Duration::from_millis(10)
        );
        assert_eq!(budget.capped(Duration::from_secs(5)), budget);
        assert_eq!(budget.total(), Duration::from_millis(100));
    }

    #[test]
    fn a_deadline_before_the_start_is_an_empty_budget() {
        let start = Instant::now();
        let budget = Budget::new(start, start - Duration::from_millis(1));
        assert_eq!(budget.total(), Duration::ZERO);
        assert!(budget.is_over());
    }

    #[test]
    fn stopwatch_reads_the_clock_on_the_first_call_and_latches() {
        let past = Instant::now() - Duration::from_millis(1);
        let mut watch = Stopwatch::new(past, 1000);
        assert!(watch.expired());
        assert!(watch.expired());
        let future = Instant::now() + Duration::from_secs(60);
        let mut watch = Stopwatch::new(future, 4);
        assert!((0..100).all(|_| !watch.expired()));
    }
}
