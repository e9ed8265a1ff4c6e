//! The requests one bot was sent in a recorded game, up to a ply: taken word for
//! word from the game's transcript (`transcripts/<id>.txt`, kept for every game
//! that ended abnormally) when there is one, else rebuilt from `moves.csv` and the
//! time control of `tournament.json` the way the referee builds them.

use std::path::Path;
use std::time::Duration;

use referee::game::TimeControl;
use uttt::protocol::{Go, NewGame, ToBot, parse_to_bot};
use uttt::rules::{Mark, Square};

use crate::commands::replay_cmd::Replayed;
use crate::tournament::schedule::mix;

/// Where the requests came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The game's transcript: the lines exactly as the referee sent them.
    Transcript,
    /// Rebuilt from the recorded moves and time control (a game without a
    /// transcript: it ended normally).
    Rebuilt,
}

/// The requests to send, in order.
#[derive(Clone, Debug)]
pub struct Script {
    /// `newgame`.
    pub new_game: NewGame,
    /// Every `go` to the bot up to the target, each with the marks on the board
    /// when it was sent (`go.moves.len()`).
    pub requests: Vec<Go>,
    /// Where they came from.
    pub source: Source,
}

/// The referee's lines to `seat` in a transcript file, if it holds that seat's
/// part (`== X (name) ==` followed by `> ` lines).
pub fn transcript_lines(path: &Path, seat: Mark) -> Option<Vec<String>> {
    // Not through a link: the results directory may come from anyone.
    let bytes = crate::results::nofollow::read(path).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let header = format!("== {seat} (");
    let mut lines = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("== ") {
            inside = line.starts_with(&header);
            continue;
        }
        if inside && let Some(sent) = line.strip_prefix("> ") {
            lines.push(sent.to_string());
        }
    }
    (!lines.is_empty()).then_some(lines)
}

/// The script from a transcript's referee lines: its `newgame` and every `go` with
/// at most `target` marks on the board. `None` if the lines are not this
/// protocol's (a bot of another dialect) or hold no `newgame`.
pub fn from_transcript(lines: &[String], target: usize) -> Option<Script> {
    let mut new_game = None;
    let mut requests = Vec::new();
    for line in lines {
        match parse_to_bot(line).ok()? {
            ToBot::NewGame(game) => new_game = Some(game),
            ToBot::Go(go) if go.moves.len() <= target => requests.push(go),
            _ => {}
        }
    }
    Some(Script {
        new_game: new_game?,
        requests,
        source: Source::Transcript,
    })
}

/// The script the referee would have sent `seat` in `game` up to `target` marks,
/// rebuilt: `newgame` with the seed derived from the game's seed as the runner
/// derives it, and a `go` for each of the seat's turns after the opening, with the
/// time its control allowed (a game clock is charged the recorded think times).
pub fn rebuilt(
    game: &Replayed,
    seat: Mark,
    opponent: &str,
    time: &TimeControl,
    target: usize,
) -> Script {
    let salt = match seat {
        Mark::X => 0x58,
        Mark::O => 0x4F,
    };
    let new_game = NewGame {
        mark: seat,
        rules: game.rules,
        opponent: opponent.to_string(),
        seed: mix(game.row.seed ^ salt),
        timing: time.timing(),
    };
    let mut clocks = [Mark::X, Mark::O].map(|_| time.clock.map(|c| c.initial));
    let mut requests = Vec::new();
    let mut moved = false;
    let moves: Vec<Square> = game.moves.iter().map(|m| m.square).collect();
    for (ply, record) in game.moves.iter().enumerate().take(target + 1) {
        let pos = &game.positions[ply];
        if ply >= game.opening_plies && pos.side_to_move() == seat && !pos.is_over() {
            let mine = clocks[seat.index()];
            let allowed = time.allowed(!moved, mine);
            let mut go = Go::new(allowed, &moves[..ply], pos.legal_moves());
            go.nodes = time.nodes;
            if let (Some(mine), Some(theirs)) = (mine, clocks[(!seat).index()]) {
                go.clocks = Some((mine, theirs));
            }
            requests.push(go);
            moved = true;
        }
        if let (Some(left), Some(clock), Some(think)) = (
            clocks[record.mark.index()].as_mut(),
            time.clock,
            record.think,
        ) {
            *left = left.saturating_sub(think).saturating_add(clock.increment);
        }
    }
    // The request after the last recorded mark (the one that failed) has no row of
    // its own.
    let last = game.moves.len();
    if target >= last
        && let Some(pos) = game.positions.get(last)
        && pos.side_to_move() == seat
        && !pos.is_over()
    {
        let mine = clocks[seat.index()];
        let mut go = Go::new(time.allowed(!moved, mine), &moves, pos.legal_moves());
        go.nodes = time.nodes;
        if let (Some(mine), Some(theirs)) = (mine, clocks[(!seat).index()]) {
            go.clocks = Some((mine, theirs));
        }
        requests.push(go);
    }
    Script {
        new_game,
        requests,
        source: Source::Rebuilt,
    }
}

/// A time control from the milliseconds `tournament.json` records per bot.
pub fn time_control(
    move_ms: Option<u64>,
    first_move_ms: Option<u64>,
    margin_ms: u64,
    clock_ms: Option<u64>,
    increment_ms: Option<u64>,
    nodes: Option<u64>,
) -> TimeControl {
    TimeControl {
        move_time: move_ms.map(Duration::from_millis),
        first_move_time: first_move_ms.map(Duration::from_millis),
        margin: Duration::from_millis(margin_ms),
        clock: clock_ms.map(|c| referee::game::GameClock {
            initial: Duration::from_millis(c),
            increment: Duration::from_millis(increment_ms.unwrap_or(0)),
        }),
        nodes,
        // The run's clock is not in the manifest's bot entry; a replay measures
        // as this host can.
        clock_mode: referee::bot::ClockMode::auto(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seats_lines_are_read_from_its_part_of_the_transcript() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("G0001.txt");
        std::fs::write(
            &path,
            "game G0001: O (b) wins: X (a) crashed.\n\n== X (a) ==\n> newgame mark X rules standard \
             opponent b seed 7 movetime 100 firsttime 1000 margin 50\n> go time 1000 last none \
             moves none legal a1\n< a1\n\n== O (b) ==\n> newgame mark O rules standard opponent a \
             seed 8 movetime 100 firsttime 1000 margin 50\n",
        )
        .unwrap();
        let x = transcript_lines(&path, Mark::X).unwrap();
        assert_eq!(x.len(), 2);
        let script = from_transcript(&x, 0).unwrap();
        assert_eq!(script.new_game.seed, 7);
        assert_eq!(script.requests.len(), 1);
        assert_eq!(
            script.requests[0].to_string(),
            "go time 1000 last none moves none legal a1"
        );
        let o = transcript_lines(&path, Mark::O).unwrap();
        assert_eq!(from_transcript(&o, 9).unwrap().requests.len(), 0);
        assert!(transcript_lines(&dir.path().join("none.txt"), Mark::X).is_none());
        // A dialect's lines are not this protocol's.
        assert!(from_transcript(&["4 4".to_string()], 3).is_none());
    }
}
