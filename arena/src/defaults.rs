//! Every default the arena applies, once: the command line (`default_value_t`),
//! tournament files, `arena play`, `arena check` and the benchmarks read them here,
//! so a default cannot differ between two ways of starting the same run.
//!
//! Only values live here; what they mean for a game is the referee's business, and
//! the help text (doc comments in `cli.rs`) names the same numbers.

use std::ops::RangeInclusive;

use crate::millis::{HandshakeMs, MarginMs, MoveMs};

/// Time per move of `match`, `sprt` and `gauntlet`, and of a tournament file that
/// sets neither a move time nor a clock.
pub const MOVE_TIME: MoveMs = MoveMs::constant(100);

/// The least time a bot gets for its first move of a game when none is written:
/// `--first-time` and `first-move-ms` default to the larger of the move time and
/// this (a bot may load its book or start an interpreter then).
pub const FIRST_MOVE_FLOOR: MoveMs = MoveMs::constant(1000);

/// Forgiven overrun: a move later than its time but within the margin counts.
pub const MARGIN: MarginMs = MarginMs::constant(50);

/// Time a bot has to start and complete the handshake.
pub const HANDSHAKE: HandshakeMs = HandshakeMs::constant(5000);

/// Time per move in the normal steps of `arena check`.
pub const CHECK_MOVE_TIME: MoveMs = MoveMs::constant(1000);

/// Time per move of the bot in `arena play` (a person is not rushed).
pub const PLAY_MOVE_TIME: MoveMs = MoveMs::constant(1000);

/// `arena rate`: the interval half-width (Elo, 95%) it stops at.
pub const RATE_PRECISION: f64 = 50.0;

/// `arena rate`: the most games it plays, precise or not.
pub const RATE_MAX_GAMES: u32 = 600;

/// `arena rate`: random plies before each pair, as in the levels' calibration
/// (configs/levels.toml), so that the bot meets the levels on the openings their
/// ratings were measured on.
pub const RATE_RANDOM_PLIES: u32 = 4;

/// Time per move of a bot that stops by its work, never by the clock: `--nodes`
/// (or `[limits] nodes`) without a written move time, and the reference levels
/// of `arena rate`. Only a safety net against a bot that hangs, as generous as in
/// the levels' calibration (configs/levels.toml): far beyond what a fixed search
/// takes even on a loaded machine, so the deadline never decides a move.
pub const SAFETY_NET_MOVE_TIME: MoveMs = MoveMs::constant(5000);
/// The first move's, see [`SAFETY_NET_MOVE_TIME`].
pub const SAFETY_NET_FIRST_MOVE_TIME: MoveMs = MoveMs::constant(10_000);
/// The margin of `arena rate`'s levels, see [`SAFETY_NET_MOVE_TIME`].
pub const SAFETY_NET_MARGIN: MarginMs = MarginMs::constant(1000);

/// Games per pairing of a tournament file that does not say.
pub const GAMES_PER_PAIRING: u32 = 2;

/// The most random plies an opening may have.
pub const MAX_RANDOM_PLIES: u32 = 16;

/// The most games a run plays at once.
pub const MAX_CONCURRENCY: u64 = 256;

/// Memory per bot in MiB that `--memory-mb` and `memory-mb` accept.
pub const MEMORY_MB: RangeInclusive<u64> = 16..=1 << 20;
/// CPU seconds per bot that `cpu-seconds` accepts.
pub const CPU_SECONDS: RangeInclusive<u64> = 1..=1 << 30;
/// The largest file a bot may write, in MiB, that `file-size-mb` accepts.
pub const FILE_SIZE_MB: RangeInclusive<u64> = 1..=1 << 20;
/// Open descriptors per bot process that `open-files` accepts: fewer than 16
/// leave an interpreter unable to start.
pub const OPEN_FILES: RangeInclusive<u64> = 16..=1 << 20;
/// Processes and threads per bot that `processes` accepts.
pub const PROCESSES: RangeInclusive<u64> = 1..=1 << 20;

/// How long one build step may run (`build-seconds`): a C++ bot compiles in
/// seconds; a build that runs for minutes is stuck or fetching the internet.
pub const BUILD_LIMIT: std::time::Duration = std::time::Duration::from_secs(120);

/// The most a submission's folder may hold, in MiB (`submission-max-mb`): a
/// class's bot with its data is a few MiB; a folder past this is a build
/// output, an archive or a trap (a sparse file of gigabytes costs no disk).
pub const SUBMISSION_MAX_MB: u64 = 50;

/// The most files, folders and links a submission's folder may hold
/// (`submission-max-files`): a bot is a handful; `node_modules` is thousands.
pub const SUBMISSION_MAX_FILES: u64 = 5_000;

/// Extra colour-swapped pairs a tied knockout match plays before the higher
/// seed goes through.
pub const TIEBREAK_PAIRS: u32 = 2;

/// Games at once of a run that does not say: one per core this process may use
/// (its CPU affinity and cgroup CPU quota included, see [`crate::cores`]). A bot
/// that thinks on its opponent's time (pondering, background threads) competes
/// with the other games for the cores; lower `--concurrency` for such bots.
pub fn concurrency() -> usize {
    crate::cores::Cores::detect().usable()
}

/// Games at once per usable core above which a run warns: beyond the cores, games
/// of instant bots wait for one another and finish no sooner, and bots that think
/// lose clock time while they wait for a core.
pub const GAMES_PER_CORE_WARNING: usize = 2;

/// The most games of a tournament whose `report.html` is written when it ends
/// (`arena report DIR` writes any): a page of 100,000 games is about 18 MB and
/// opens in a second; writing it takes memory that grows with the games.
pub const REPORT_MAX_GAMES: u64 = 100_000;

/// Where the live page listens: this machine only.
pub const SERVE_ADDR: &str = "127.0.0.1:8080";
/// The largest `--nodes` / `[limits] nodes`: far more than any move needs, and
/// small enough that a bot's counter cannot overflow.
pub const MAX_NODES: u64 = 1 << 40;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_move_floor_is_a_move_time_and_defaults_are_in_their_ranges() {
        assert!(FIRST_MOVE_FLOOR >= MOVE_TIME);
        assert_eq!(MEMORY_MB, 16..=1_048_576);
        assert!(concurrency() >= 1);
    }
}
