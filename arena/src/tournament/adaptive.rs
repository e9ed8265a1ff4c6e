//! A gauntlet whose next opponent is chosen as it starts: the games of a
//! [`Format::Gauntlet`](super::format::Format) schedule, taken a colour-swapped
//! pair at a time, each pair against the opponent a chooser names when the runner
//! asks for the next game (`arena rate` chooses from the results so far).
//!
//! The games are the schedule's own (round `k` against opponent `p` is always the
//! same ids, opening and seeds), so a run resumes like any other: the pairs of an
//! interrupted run are found in its rows, their missing games are played first, and
//! the chooser picks up from the counts.

use std::collections::{HashSet, VecDeque};

use super::schedule::{Schedule, ScheduledGame};

/// The games of a gauntlet, a pair at a time, against chosen opponents.
///
/// The challenger is bot 0; opponent `p` (0-based) is bot `p + 1`, pairing `p` of
/// the schedule, whose games per pairing must be even.
#[derive(Debug)]
pub struct AdaptivePairs<F> {
    schedule: Schedule,
    /// Opponents (bots but the challenger).
    opponents: usize,
    /// Pairs started against each opponent: the next pair's round.
    started: Vec<u32>,
    /// Games of started pairs not yet handed out.
    pending: VecDeque<ScheduledGame>,
    /// Picks the next pair's opponent from the pairs started against each, or
    /// ends the run with `None`.
    choose: F,
}

impl<F: FnMut(&[u32]) -> Option<usize>> AdaptivePairs<F> {
    /// The pairs of `schedule` (a gauntlet of bot 0 against `opponents` others),
    /// given the games already `finished` (their ids): every pair with a finished
    /// game counts as started, and its unfinished games come first.
    pub fn new(
        schedule: Schedule,
        opponents: usize,
        finished: &HashSet<String>,
        choose: F,
    ) -> AdaptivePairs<F> {
        let mut pairs = AdaptivePairs {
            schedule,
            opponents,
            started: vec![0; opponents],
            pending: VecDeque::new(),
            choose,
        };
        for opponent in 0..opponents {
            let rounds: Vec<u32> = (0..)
                .map_while(|round| pairs.pair(opponent, round).map(|games| (round, games)))
                .filter(|(_, games)| games.iter().any(|g| finished.contains(&g.meta.id)))
                .map(|(round, _)| round)
                .collect();
            let Some(&last) = rounds.last() else { continue };
            pairs.started[opponent] = last + 1;
            for round in 0..=last {
                for game in pairs.pair(opponent, round).into_iter().flatten() {
                    if !finished.contains(&game.meta.id) {
                        pairs.pending.push_back(game);
                    }
                }
            }
        }
        pairs
    }

    /// Pairs started against each opponent (including those being played).
    pub fn started(&self) -> &[u32] {
        &self.started
    }

    /// The two games of round `round` against `opponent`, if the schedule has them.
    fn pair(&self, opponent: usize, round: u32) -> Option<[ScheduledGame; 2]> {
        let pair = u64::from(round) * self.opponents as u64 + opponent as u64;
        let game = |number: u64| self.schedule.game(&format!("G{number:04}"));
        Some([game(2 * pair + 1)?, game(2 * pair + 2)?])
    }
}

impl<F: FnMut(&[u32]) -> Option<usize>> Iterator for AdaptivePairs<F> {
    type Item = ScheduledGame;

    fn next(&mut self) -> Option<ScheduledGame> {
        if let Some(game) = self.pending.pop_front() {
            return Some(game);
        }
        let opponent = (self.choose)(&self.started)?;
        let [first, second] = self.pair(opponent, *self.started.get(opponent)?)?;
        self.started[opponent] += 1;
        self.pending.push_back(second);
        Some(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::format::Format;
    use crate::tournament::openings::Openings;
    use crate::tournament::schedule::Plan;
    use uttt::rules::Rules;

    fn schedule(games_per_pairing: u32) -> Schedule {
        let plan = Plan {
            bots: 4,
            format: Format::Gauntlet { challenger: 0 },
            games_per_pairing,
            openings: Openings::RandomPlies(2),
            rules: Rules::STANDARD,
            seed: 7,
        };
        Schedule::new(plan, None).unwrap()
    }

    #[test]
    fn each_pair_is_the_schedules_pair_against_the_chosen_opponent() {
        let choices = [2usize, 2, 0];
        let mut k = 0;
        let games: Vec<ScheduledGame> =
            AdaptivePairs::new(schedule(10), 3, &HashSet::new(), |_: &[u32]| {
                k += 1;
                choices.get(k - 1).copied()
            })
            .collect();
        let ids: Vec<&str> = games.iter().map(|g| g.meta.id.as_str()).collect();
        // Pair q = round·3 + opponent holds games 2q+1 and 2q+2.
        assert_eq!(ids, ["G0005", "G0006", "G0011", "G0012", "G0001", "G0002"]);
        for g in &games {
            assert_eq!(Some(g), schedule(10).game(&g.meta.id).as_ref());
        }
        // Colours swap within a pair: the challenger is X, then O, against bot 3.
        assert_eq!(
            (games[0].x, games[0].o, games[1].x, games[1].o),
            (0, 3, 3, 0)
        );
    }

    #[test]
    fn the_chooser_sees_the_pairs_started_and_the_schedule_bounds_the_rounds() {
        let mut seen = Vec::new();
        let games = AdaptivePairs::new(schedule(4), 3, &HashSet::new(), |started: &[u32]| {
            seen.push(started.to_vec());
            Some(1)
        })
        .count();
        // Two pairs per opponent in this schedule: the third asked for is refused.
        assert_eq!(games, 4);
        assert_eq!(seen, [vec![0, 0, 0], vec![0, 1, 0], vec![0, 2, 0]]);
    }

    #[test]
    fn a_resumed_run_plays_the_missing_games_of_its_pairs_first() {
        // G0005 (round 0 against opponent 2) and G0011 and G0012 (round 1) finished.
        let finished: HashSet<String> = ["G0005", "G0011", "G0012"].map(String::from).into();
        let pairs = AdaptivePairs::new(schedule(10), 3, &finished, |_: &[u32]| Some(0));
        assert_eq!(pairs.started(), [0, 0, 2]);
        let ids: Vec<String> = pairs.take(3).map(|g| g.meta.id).collect();
        assert_eq!(ids, ["G0006", "G0001", "G0002"]);
    }
}
