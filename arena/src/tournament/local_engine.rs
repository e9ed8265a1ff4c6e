//! A built-in engine as an in-process player of the referee's game loop: the
//! opponent `arena check` plays, and the engines of the self-play example. It
//! answers through the same protocol logic as `arena bot` (`bots::serve`), so an
//! engine plays alike in-process and over a pipe.

use std::time::Instant;

use bots::Engine;
use bots::serve::EnginePlayer;
use referee::bot::Reply;
use referee::game::LocalPlayer;
use uttt::protocol::{FromBot, GameOver, Go, Info, NewGame};

/// A reference engine seated in this process.
#[derive(Debug)]
pub struct LocalEngine {
    player: EnginePlayer<Box<dyn Engine>>,
}

impl LocalEngine {
    /// The engine of a built-in spec such as `"random"` or `"mcts --playouts 200"`.
    ///
    /// # Errors
    /// The spec names no built-in engine or has bad options (the message says which).
    pub fn from_spec(spec: &str) -> Result<LocalEngine, String> {
        let engine = bots::registry::from_spec(spec).map_err(|e| e.to_string())?;
        Ok(LocalEngine {
            player: EnginePlayer::new(engine),
        })
    }

    /// The engine's own name (`id name`).
    pub fn name(&self) -> String {
        self.player.engine().name()
    }
}

impl LocalPlayer for LocalEngine {
    fn new_game(&mut self, game: &NewGame) {
        self.player.new_game(game);
    }

    fn choose(&mut self, go: &Go) -> (Reply, Option<Info>) {
        // The referee sends only consistent requests, so there is nothing to report.
        let reply = self.player.go(go, Instant::now(), &mut |_| {});
        match reply.answer {
            FromBot::Move(square) => (Reply::Move(square), reply.info),
            _ => (Reply::Resign, None),
        }
    }

    fn game_over(&mut self, _over: &GameOver) {
        self.player.game_over(&mut |_| {});
    }
}
