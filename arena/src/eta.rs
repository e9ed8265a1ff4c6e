//! How long a run has left, estimated one way for the terminal's bar and the
//! live page: from the wall time of the newest games finished, the games each
//! round still has to play, how many are played at once, and how far the games
//! on the boards have got.
//!
//! A Swiss or a knockout plays its rounds one after another: a round of 8 games
//! at 2 at once takes 4 games' time, and the next round starts only when its
//! last game ends. So the estimate adds the rounds up, each at least one game
//! long, rather than dividing the games left by the rate seen so far (which, in
//! the first minute, takes the wait for the first games to end for slowness,
//! and climbs until one ends). Before any game has ended, a run at a pace
//! estimates a game as [`PRIOR_PLIES`] marks at the pace each; without a pace
//! it says nothing yet. BENCHMARKS.md ("The time left") has the estimate against
//! the real end of paced runs, minute by minute.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// Marks in a game before any has ended (a game of random play lasts about 60;
/// bots that see tactics finish sooner).
pub const PRIOR_PLIES: u32 = 60;

/// How many of the newest games the mean is taken over.
pub const WINDOW: usize = 64;

/// The newest finished games' wall times and lengths.
#[derive(Clone, Debug, Default)]
pub struct GameTimes {
    recent: VecDeque<(Duration, u32)>,
}

impl GameTimes {
    /// Notes a game of `plies` marks that took `wall`.
    pub fn add(&mut self, wall: Duration, plies: u32) {
        if self.recent.len() == WINDOW {
            self.recent.pop_front();
        }
        self.recent.push_back((wall, plies));
    }

    /// The mean wall time of a game: of the newest games, else (none ended
    /// yet) [`PRIOR_PLIES`] marks at `pace`; `None` without either.
    pub fn game(&self, pace: Duration) -> Option<Duration> {
        if self.recent.is_empty() {
            return (!pace.is_zero()).then(|| pace * PRIOR_PLIES);
        }
        let total: Duration = self.recent.iter().map(|r| r.0).sum();
        Some(total / self.recent.len() as u32)
    }

    /// The mean length of a game in marks, [`PRIOR_PLIES`] before any ended.
    pub fn plies(&self) -> f64 {
        if self.recent.is_empty() {
            return f64::from(PRIOR_PLIES);
        }
        self.recent.iter().map(|r| f64::from(r.1)).sum::<f64>() / self.recent.len() as f64
    }
}

/// The work a run has left.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Left {
    /// Games of the round being played not finished yet, those on a board
    /// included (a round robin: every game left).
    pub this_round: u64,
    /// How far the games on a board have got, added up (two games half played:
    /// 1.0).
    pub under_way: f64,
    /// Games of the rounds after this one, and how many rounds they make.
    pub later: (u64, u64),
    /// Games played at once.
    pub at_once: u64,
}

impl Left {
    /// The time `self` takes when a game takes `game`: each round the games it
    /// has over the games played at once, at least one game long; the games
    /// under way count for what is left of them.
    pub fn time(&self, game: Duration) -> Duration {
        let at_once = self.at_once.max(1) as f64;
        let round = |games: f64| {
            if games <= 0.0 {
                0.0
            } else {
                (games / at_once).max(1.0)
            }
        };
        let this = self.this_round as f64;
        let started = self.under_way.clamp(0.0, this);
        // The round's last game is at least a little more to wait for.
        let now = if this > 0.0 {
            ((this - started) / at_once).max(0.25)
        } else {
            0.0
        };
        let (games, rounds) = self.later;
        let later = if rounds == 0 {
            0.0
        } else {
            rounds as f64 * round(games as f64 / rounds as f64)
        };
        game.mul_f64(now + later)
    }
}

/// A run's time left as the command playing it sees it: each round as it is
/// drawn, each game as it ends. A slot that ends a game starts the next one of
/// the round at once, so the games on the boards started when the newest games
/// ended (or the round did): that is how far they have got.
#[derive(Clone, Debug)]
pub struct RunClock {
    times: GameTimes,
    pace: Duration,
    at_once: usize,
    /// When each game on a board started, the oldest first.
    starts: VecDeque<Instant>,
    /// Games of the round not finished.
    this_round: u64,
    /// Of which not started.
    waiting: u64,
    /// Games and rounds after this one.
    later: (u64, u64),
}

impl RunClock {
    /// A clock for a run at `pace` playing `at_once` games at once.
    pub fn new(pace: Duration, at_once: usize) -> RunClock {
        RunClock {
            times: GameTimes::default(),
            pace,
            at_once: at_once.max(1),
            starts: VecDeque::new(),
            this_round: 0,
            waiting: 0,
            later: (0, 0),
        }
    }

    /// A round of `games` (a round robin: all its games left) starts at `now`;
    /// `later`: the games and rounds after it.
    pub fn round(&mut self, games: u64, later: (u64, u64), now: Instant) {
        let on_boards = games.min(self.at_once as u64);
        self.starts = std::iter::repeat_n(now, on_boards as usize).collect();
        self.this_round = games;
        self.waiting = games - on_boards;
        self.later = later;
    }

    /// A game of `plies` marks that took `wall` ended at `now`.
    pub fn ended(&mut self, wall: Duration, plies: u32, now: Instant) {
        self.times.add(wall, plies);
        self.this_round = self.this_round.saturating_sub(1);
        self.starts.pop_front();
        if self.waiting > 0 {
            self.waiting -= 1;
            self.starts.push_back(now);
        }
    }

    /// The time left at `now`; `None` before any game ended in a run
    /// without a pace.
    pub fn left(&self, now: Instant) -> Option<Duration> {
        let game = self.times.game(self.pace)?;
        let under_way = self
            .starts
            .iter()
            .map(|&s| {
                (now.saturating_duration_since(s).as_secs_f64() / game.as_secs_f64()).min(0.95)
            })
            .sum();
        let left = Left {
            this_round: self.this_round,
            under_way,
            later: self.later,
            at_once: self.at_once as u64,
        };
        Some(left.time(game))
    }
}

/// A duration in words for people, as precise as it is worth: "40 s" (to
/// 5 s), "2 min 30 s" (to 10 s, under ten minutes), "17 min", "1 h 5 min".
pub fn words(left: Duration) -> String {
    let s = left.as_secs();
    if s < 60 {
        return format!("{} s", s.div_ceil(5) * 5);
    }
    if s < 600 {
        let tens = (s + 5) / 10;
        return match tens % 6 {
            0 => format!("{} min", tens / 6),
            r => format!("{} min {} s", tens / 6, r * 10),
        };
    }
    if s < 3600 {
        return format!("{} min", (s + 30) / 60);
    }
    let h = s / 3600;
    format!("{h} h {} min", (s - h * 3600 + 30) / 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GAME: Duration = Duration::from_secs(18);

    #[test]
    fn a_round_robin_is_its_games_over_the_games_at_once() {
        let left = Left {
            this_round: 20,
            under_way: 0.0,
            later: (0, 0),
            at_once: 2,
        };
        assert_eq!(left.time(GAME), GAME * 10);
        // Two games half played: one game's time less.
        let going = Left {
            under_way: 1.0,
            ..left
        };
        assert_eq!(going.time(GAME), GAME.mul_f64(9.5));
    }

    #[test]
    fn rounds_are_added_up_each_at_least_one_game_long() {
        // A Swiss of 9 at 2 at once: 8 games a round, the first half played.
        let left = Left {
            this_round: 4,
            under_way: 0.0,
            later: (16, 2),
            at_once: 2,
        };
        assert_eq!(left.time(GAME), GAME * (2 + 4 + 4));
        // A knockout's final: one game's time, not half of it.
        let last = Left {
            this_round: 0,
            under_way: 0.0,
            later: (2, 1),
            at_once: 4,
        };
        assert_eq!(last.time(GAME), GAME);
        // The last game of a round, nearly over: a little, never nothing.
        let nearly = Left {
            this_round: 1,
            under_way: 0.99,
            later: (0, 0),
            at_once: 2,
        };
        assert_eq!(nearly.time(GAME), GAME.mul_f64(0.25));
    }

    #[test]
    fn the_game_time_is_the_newest_games_mean_else_the_pace_times_sixty_marks() {
        let mut times = GameTimes::default();
        assert_eq!(times.game(Duration::ZERO), None);
        assert_eq!(
            times.game(Duration::from_millis(300)),
            Some(Duration::from_secs(18))
        );
        assert_eq!(times.plies(), 60.0);
        times.add(Duration::from_secs(10), 40);
        times.add(Duration::from_secs(20), 50);
        assert_eq!(
            times.game(Duration::from_millis(300)),
            Some(Duration::from_secs(15))
        );
        assert_eq!(times.plies(), 45.0);
        for _ in 0..WINDOW {
            times.add(Duration::from_secs(1), 10);
        }
        assert_eq!(times.game(Duration::ZERO), Some(Duration::from_secs(1)));
    }

    #[test]
    fn the_runs_clock_counts_the_games_on_the_boards_from_when_they_started() {
        let start = Instant::now();
        let pace = Duration::from_millis(300);
        let mut clock = RunClock::new(pace, 2);
        // A Swiss round of 8 games, two rounds of 8 after it.
        clock.round(8, (16, 2), start);
        // Before a game ended: 60 marks at the pace a game, 4 + 8 games' time.
        assert_eq!(clock.left(start), Some(GAME * 12));
        // Half a game later, the two on the boards are half played.
        assert_eq!(clock.left(start + GAME / 2), Some(GAME.mul_f64(11.5)));
        // One ends after 20 s: its slot takes the next game.
        let at = start + Duration::from_secs(20);
        clock.ended(Duration::from_secs(20), 60, at);
        let game = Duration::from_secs(20);
        // 7 left, one of them 0.95 played (it is past its time), one just started.
        let expected = game.mul_f64((7.0 - 0.95) / 2.0 + 8.0);
        assert_eq!(clock.left(at), Some(expected));
        // Without a pace, nothing before a game ended.
        let mut quick = RunClock::new(Duration::ZERO, 2);
        quick.round(10, (0, 0), start);
        assert_eq!(quick.left(start), None);
    }

    #[test]
    fn durations_are_said_in_round_numbers() {
        assert_eq!(words(Duration::from_secs(3)), "5 s");
        assert_eq!(words(Duration::from_secs(41)), "45 s");
        assert_eq!(words(Duration::from_secs(89)), "1 min 30 s");
        assert_eq!(words(Duration::from_secs(121)), "2 min");
        assert_eq!(words(Duration::from_secs(754)), "13 min");
        assert_eq!(words(Duration::from_secs(3900)), "1 h 5 min");
    }
}
