//! A seat played by code inside the referee's own process: a reference engine in
//! self-play, or the scripted opponent of `arena check`. Games with such a seat go
//! through [`play_game`](super::play_game) like any other, so the rules engine, the
//! order of the checks and the record are the same as in a tournament.

use std::time::{Duration, Instant};

use uttt::protocol::{GameOver, Go, Info, NewGame};

use super::Seat;
use crate::bot::{Answer, Fault, Reply, Usage};

/// What an in-process player answers. It is trusted code: it cannot crash the
/// referee in a way a seat could report, and it is not held to the deadline —
/// its think time is measured and recorded, and a caller that cares about
/// overruns reads them from the record.
pub trait LocalPlayer: Send {
    /// A game starts.
    fn new_game(&mut self, game: &NewGame);
    /// The reply to `go`, and the last `info` the player would have sent.
    fn choose(&mut self, go: &Go) -> (Reply, Option<Info>);
    /// The game ended.
    fn game_over(&mut self, over: &GameOver);
}

/// A [`Seat`] for a [`LocalPlayer`]. The player runs on the calling task and
/// blocks it while it thinks, so run such games on a runtime of their own (one
/// game at a time, as self-play and `arena check` do).
#[derive(Debug)]
pub struct LocalSeat<P>(pub P);

impl<P: LocalPlayer> Seat for LocalSeat<P> {
    async fn new_game(&mut self, game: &NewGame) -> Result<(), Fault> {
        self.0.new_game(game);
        Ok(())
    }

    async fn ask(
        &mut self,
        go: &Go,
        _allowed: Duration,
        _margin: Duration,
    ) -> Result<Answer, Fault> {
        let started = Instant::now();
        let (reply, info) = self.0.choose(go);
        let elapsed = started.elapsed();
        Ok(Answer {
            reply,
            elapsed,
            usage: Usage::wall_only(elapsed),
            info,
        })
    }

    async fn game_over(&mut self, over: &GameOver) {
        self.0.game_over(over);
    }

    /// Code in this process is timed by the wall clock.
    fn set_clock(&mut self, _: crate::bot::ClockMode) {}
}
