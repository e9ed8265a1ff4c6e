//! A watchable pace (`--pace`, `[display] pace-ms`): the least time between two
//! marks of a game, so a room can follow games whose bots answer at once.
//!
//! The wait comes after a bot's reply has been read and timed and before the
//! mark is shown and the next request is written: the referee's clock runs only
//! inside a seat's `ask`, so the pace is never charged to a bot (a bot with
//! 200 ms a move still has 200 ms at any pace) and never changes a result. A
//! reply that took longer than the pace is shown at once.

use std::sync::Mutex;
use std::time::Duration;

use referee::bot::{Answer, Fault, GameEvidence};
use referee::game::Seat;
use tokio::time::Instant;
use uttt::protocol::{GameOver, Go, NewGame};

/// When a game's last mark was shown, shared by its two seats.
#[derive(Debug)]
pub struct Pacer {
    pace: Duration,
    last: Mutex<Instant>,
}

impl Pacer {
    /// A game starting now, its marks at least `pace` apart.
    pub fn new(pace: Duration) -> Pacer {
        Pacer {
            pace,
            last: Mutex::new(Instant::now()),
        }
    }

    /// Waits until `pace` has passed since the last mark, and counts the mark
    /// about to be shown as the last.
    async fn hold(&self) {
        if self.pace.is_zero() {
            return;
        }
        let last = *self
            .last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        tokio::time::sleep_until(last + self.pace).await;
        *self
            .last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Instant::now();
    }
}

/// A seat whose replies are held back to the pace of its game.
#[derive(Debug)]
pub struct Paced<'a, S> {
    seat: &'a mut S,
    pacer: &'a Pacer,
}

impl<'a, S> Paced<'a, S> {
    /// `seat`, paced by `pacer` (one per game, for both seats).
    pub fn new(seat: &'a mut S, pacer: &'a Pacer) -> Paced<'a, S> {
        Paced { seat, pacer }
    }
}

impl<S: Seat + Send> Seat for Paced<'_, S> {
    async fn new_game(&mut self, game: &NewGame) -> Result<(), Fault> {
        self.seat.new_game(game).await
    }

    async fn ask(&mut self, go: &Go, allowed: Duration, margin: Duration) -> Result<Answer, Fault> {
        // Timed inside: the answer's elapsed time is the bot's, whatever the
        // wait after it.
        let answer = self.seat.ask(go, allowed, margin).await;
        if answer.is_ok() {
            self.pacer.hold().await;
        }
        answer
    }

    async fn game_over(&mut self, over: &GameOver) {
        self.seat.game_over(over).await;
    }

    fn set_clock(&mut self, clock: referee::bot::ClockMode) {
        self.seat.set_clock(clock);
    }

    fn transcript(&self) -> Vec<String> {
        self.seat.transcript()
    }

    fn evidence(&self) -> Option<GameEvidence> {
        self.seat.evidence()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn marks_are_held_to_the_pace_and_a_slow_one_is_not_held_longer() {
        let pacer = Pacer::new(Duration::from_millis(500));
        let start = Instant::now();
        pacer.hold().await;
        assert_eq!(start.elapsed(), Duration::from_millis(500));
        tokio::time::advance(Duration::from_millis(800)).await;
        let slow = Instant::now();
        pacer.hold().await;
        assert_eq!(slow.elapsed(), Duration::ZERO, "already past the pace");
        let none = Pacer::new(Duration::ZERO);
        let at = Instant::now();
        none.hold().await;
        assert_eq!(at.elapsed(), Duration::ZERO);
    }
}
