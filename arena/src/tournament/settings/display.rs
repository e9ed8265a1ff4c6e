//! How a run is shown, apart from how it is played: the least time a move
//! stays on screen (`--pace`, `[display] pace-ms`) and who the words at the end
//! are for (`--audience`, `[display] audience`). Neither changes a game: the
//! pace is waited out after a bot's reply is timed and before the next request,
//! so it is never charged to a bot, and a run may be resumed at another pace.

use std::time::Duration;

use crate::audience::Audience;

/// A run's display settings, decided.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Display {
    /// The least time between two marks of a game (zero: as fast as the bots
    /// play).
    pub pace: Duration,
    /// Who reads the words at the end.
    pub audience: Audience,
}
