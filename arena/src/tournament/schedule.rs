//! The schedule: which games a tournament plays, in which order, with which opening
//! and seed. Pure and deterministic from the tournament seed, so a run can be
//! resumed, repeated, or split across machines (`--shard K/N`) and merged.
//!
//! Every pairing plays its openings as colour-swapped pairs (same opening, each bot
//! X once). Round `r` holds one pair of every pairing, so any prefix of the schedule
//! is balanced across pairings. All pairings of a round share the round's opening.
//!
//! A [`Schedule`] computes each game from its number instead of listing them: its
//! memory does not grow with the games still to play, however many there are.

use rand::{Rng as _, SeedableRng as _, rngs::StdRng};
use uttt::rules::{Position, Rules, Square};

use super::format::Format;
use super::openings::Openings;
use crate::results::store::GameMeta;

/// One scheduled game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduledGame {
    /// Id, round, pair and seed.
    pub meta: GameMeta,
    /// Its number in the schedule, 1-based (the number in its id).
    pub number: u64,
    /// Index of the bot playing X.
    pub x: usize,
    /// Index of the bot playing O.
    pub o: usize,
    /// Moves before the bots take over.
    pub opening: Vec<Square>,
}

/// Everything the schedule depends on.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Number of bots.
    pub bots: usize,
    /// Who plays whom.
    pub format: Format,
    /// Games each pairing plays (an odd number leaves the last pair incomplete).
    pub games_per_pairing: u32,
    /// Openings.
    pub openings: Openings,
    /// Rules (random openings are generated under them).
    pub rules: Rules,
    /// The tournament seed.
    pub seed: u64,
}

/// A `--shard K/N` selection: pairs whose number is `K` modulo `N` (1-based `K`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, 1..=count.
    pub index: u32,
    /// How many shards.
    pub count: u32,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let err = || format!("shard '{s}' should be K/N with 1 <= K <= N, e.g. 2/3");
        let (k, n) = s.split_once('/').ok_or_else(err)?;
        let (index, count) = (
            k.trim().parse::<u32>().map_err(|_| err())?,
            n.trim().parse::<u32>().map_err(|_| err())?,
        );
        if index == 0 || index > count {
            return Err(err());
        }
        Ok(Shard { index, count })
    }
}

/// An `arena sprt --batch K --pairs M` selection: the `M` pairs after the first
/// `(K − 1)·M` of the schedule. Batches 1…n together are exactly the first `n·M` pairs
/// of the sequential test with the same seed, so their games are its games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Batch {
    /// This batch, from 1.
    pub index: u32,
    /// Colour-swapped pairs in every batch.
    pub pairs: u32,
}

/// Why a schedule cannot be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    /// Fewer than two bots, or a gauntlet whose challenger is not one of them.
    #[error("a schedule needs at least two bots (and a gauntlet a challenger among them)")]
    TooFewBots,
    /// A Swiss or knockout has no fixed schedule.
    #[error("a swiss or knockout is drawn round by round: it has no fixed schedule")]
    Drawn,
    /// More pairs than results files can number.
    #[error(
        "the schedule has {pairs} pairs of games, more than the {max} a results file can number: \
         use fewer games per pairing or fewer bots (or split the bots into several tournaments)"
    )]
    TooManyPairs {
        /// Pairs in the schedule.
        pairs: u128,
        /// The most allowed.
        max: u32,
    },
    /// A batch that ends after the schedule does.
    #[error(
        "batch {index} of {pairs} pairs would end at game {end}, after the test's last (--max-games {max}): \
         raise --max-games (the same for every batch) or stop submitting batches"
    )]
    BatchPastEnd {
        /// The batch.
        index: u32,
        /// Pairs per batch.
        pairs: u32,
        /// Its last game's number.
        end: u64,
        /// Games in the schedule.
        max: u64,
    },
}

/// The schedule of a plan (or of one shard of it), computed game by game: game `k`
/// is a function of `k`, so the schedule never exists as a list. A billion-game
/// match or a 10,000-bot round robin takes the memory of one game at a time, and
/// `total` is known without enumerating anything.
///
/// Layout: pair `q` (0-based; its number in the files is `q + 1`) is pairing
/// `q mod P` of round `q / P`, where `P` is the number of pairings. Every pair has two
/// games (each bot X once) except in the last round of an odd number of games per
/// pairing, where it has one. Games are numbered in pair order, so the two games
/// of pair `q` are `2q + 1` and `2q + 2` as long as every earlier pair is complete.
#[derive(Clone, Debug)]
pub struct Schedule {
    plan: Plan,
    shard: Option<Shard>,
    /// When set, only the pairs of this range (an SPRT batch).
    range: Option<std::ops::Range<u64>>,
    /// Pairings per round.
    pairings: u64,
    /// Pairs of two games (all rounds but an odd last one).
    full_pairs: u64,
    /// All pairs.
    pairs: u64,
}

impl Schedule {
    /// The schedule of `plan`, or of one `shard` of it.
    ///
    /// # Errors
    /// [`ScheduleError`]: too few bots, or more pairs than a `u32` pair number holds.
    pub fn new(plan: Plan, shard: Option<Shard>) -> Result<Schedule, ScheduleError> {
        let bots = plan.bots as u64;
        let pairings = match plan.format {
            Format::RoundRobin => bots * bots.saturating_sub(1) / 2,
            Format::Gauntlet { challenger } if challenger < plan.bots => bots - 1,
            Format::Gauntlet { .. } => 0,
            Format::Drawn(_) => return Err(ScheduleError::Drawn),
        };
        if pairings == 0 {
            return Err(ScheduleError::TooFewBots);
        }
        let rounds = u64::from(plan.games_per_pairing.div_ceil(2));
        let pairs = u128::from(pairings) * u128::from(rounds);
        if pairs > u128::from(u32::MAX) {
            return Err(ScheduleError::TooManyPairs {
                pairs,
                max: u32::MAX,
            });
        }
        let full_pairs = pairings * u64::from(plan.games_per_pairing / 2);
        Ok(Schedule {
            pairs: pairings * rounds,
            full_pairs,
            pairings,
            plan,
            shard,
            range: None,
        })
    }

    /// Only the pairs of `batch`.
    ///
    /// # Errors
    /// [`ScheduleError::BatchPastEnd`] if the batch does not fit in the schedule.
    pub fn only_batch(mut self, batch: Batch) -> Result<Schedule, ScheduleError> {
        let first = u64::from(batch.index.saturating_sub(1)) * u64::from(batch.pairs);
        let end = first + u64::from(batch.pairs);
        if batch.index == 0 || batch.pairs == 0 || end > self.full_pairs {
            return Err(ScheduleError::BatchPastEnd {
                index: batch.index,
                pairs: batch.pairs,
                end: 2 * end,
                max: 2 * self.full_pairs,
            });
        }
        self.range = Some(first..end);
        Ok(self)
    }

    /// How many games the schedule (or its shard) has.
    pub fn total(&self) -> u64 {
        if let Some(range) = &self.range {
            return 2 * (range.end - range.start);
        }
        let (first, step) = self.pair_selection();
        let count_below = |end: u64| {
            if end > first {
                (end - 1 - first) / step + 1
            } else {
                0
            }
        };
        let full = count_below(self.full_pairs);
        let all = count_below(self.pairs);
        2 * full + (all - full)
    }

    /// The games in play order (of the shard, if any).
    pub fn games(&self) -> Games {
        let (first, step) = self.pair_selection();
        Games {
            schedule: self.clone(),
            pair: first,
            end: self.end(),
            step,
            game_in_pair: 0,
            opening: None,
        }
    }

    /// The scheduled game with this id (`G0001`…), if the schedule (and its shard)
    /// has one.
    pub fn game(&self, id: &str) -> Option<ScheduledGame> {
        let number = GameMeta::number_of(id)?;
        let k = number.checked_sub(1)?;
        let (pair, game_in_pair) = if k < 2 * self.full_pairs {
            (k / 2, k % 2)
        } else {
            (self.full_pairs + (k - 2 * self.full_pairs), 0)
        };
        let (first, step) = self.pair_selection();
        if pair >= self.end() || pair < first || pair % step != first % step {
            return None;
        }
        let game = self.build(pair, game_in_pair, &self.opening(pair / self.pairings));
        (game.meta.id == id).then_some(game)
    }

    /// The first selected pair and the step to the next.
    fn pair_selection(&self) -> (u64, u64) {
        match (&self.range, self.shard) {
            (Some(range), _) => (range.start, 1),
            (None, Some(s)) => (u64::from(s.index - 1), u64::from(s.count)),
            (None, None) => (0, 1),
        }
    }

    /// One past the last selected pair.
    fn end(&self) -> u64 {
        self.range.as_ref().map_or(self.pairs, |range| range.end)
    }

    /// The bots of pairing `p` (`a` plays X in the pair's first game): round robin in
    /// the order (0,1), (0,2), … (0,n-1), (1,2), …; a gauntlet the challenger against
    /// each other bot in order.
    fn pairing(&self, p: u64) -> (usize, usize) {
        let n = self.plan.bots as u64;
        let (a, b) = match self.plan.format {
            Format::RoundRobin => {
                // Pairings before row a: a(2n - a - 1)/2. Find the last row starting
                // at or before p.
                let row_start = |a: u64| a * (2 * n - a - 1) / 2;
                let (mut low, mut high) = (0, n - 1);
                while high - low > 1 {
                    let mid = low + (high - low) / 2;
                    if row_start(mid) <= p {
                        low = mid;
                    } else {
                        high = mid;
                    }
                }
                (low, low + 1 + (p - row_start(low)))
            }
            Format::Gauntlet { challenger } => {
                let c = challenger as u64;
                (c, if p < c { p } else { p + 1 })
            }
            // Never a Schedule (see Schedule::new).
            Format::Drawn(_) => (0, 0),
        };
        (
            usize::try_from(a).unwrap_or(usize::MAX),
            usize::try_from(b).unwrap_or(usize::MAX),
        )
    }

    /// The opening of round `round` (0-based).
    fn opening(&self, round: u64) -> Vec<Square> {
        opening_of(&self.plan.openings, self.plan.rules, self.plan.seed, round)
    }

    /// Game `game_in_pair` (0 or 1) of pair `pair`.
    fn build(&self, pair: u64, game_in_pair: u64, opening: &[Square]) -> ScheduledGame {
        let (a, b) = self.pairing(pair % self.pairings);
        let (x, o) = if game_in_pair == 0 { (a, b) } else { (b, a) };
        let first_game = if pair < self.full_pairs {
            2 * pair
        } else {
            2 * self.full_pairs + (pair - self.full_pairs)
        };
        let number = first_game + game_in_pair + 1;
        let round = u32::try_from(pair / self.pairings + 1).unwrap_or(u32::MAX);
        let pair = u32::try_from(pair + 1).unwrap_or(u32::MAX);
        ScheduledGame {
            meta: game_meta(self.plan.seed, number, round, pair),
            number,
            x,
            o,
            opening: opening.to_vec(),
        }
    }

    fn games_in_pair(&self, pair: u64) -> u64 {
        if pair < self.full_pairs { 2 } else { 1 }
    }
}

/// The games of a [`Schedule`] in play order, made one at a time.
#[derive(Debug)]
pub struct Games {
    schedule: Schedule,
    pair: u64,
    /// One past the last pair to play.
    end: u64,
    step: u64,
    game_in_pair: u64,
    /// The opening of the round being played, and its round.
    opening: Option<(u64, Vec<Square>)>,
}

impl Iterator for Games {
    type Item = ScheduledGame;

    fn next(&mut self) -> Option<ScheduledGame> {
        let s = &self.schedule;
        if self.pair >= self.end {
            return None;
        }
        let round = self.pair / s.pairings;
        if self.opening.as_ref().is_none_or(|(r, _)| *r != round) {
            self.opening = Some((round, s.opening(round)));
        }
        let opening = self.opening.as_ref().map_or(&[][..], |(_, o)| o.as_slice());
        let game = s.build(self.pair, self.game_in_pair, opening);
        self.game_in_pair += 1;
        if self.game_in_pair == s.games_in_pair(self.pair) {
            self.game_in_pair = 0;
            self.pair = self.pair.saturating_add(self.step);
        }
        Some(game)
    }
}

/// The opening of round `round` (0-based) of a run with `openings` and `seed`
/// (every pairing of a round shares it; drawn formats use it for a pairing's
/// `round`-th pair).
pub fn opening_of(openings: &Openings, rules: Rules, seed: u64, round: u64) -> Vec<Square> {
    match openings {
        Openings::None => Vec::new(),
        Openings::RandomPlies(k) => random_opening(rules, *k, mix(seed ^ mix(round))),
        Openings::Book(lines) if lines.is_empty() => Vec::new(),
        Openings::Book(lines) => {
            let len = lines.len() as u64;
            lines
                .get(usize::try_from(round % len).unwrap_or(0))
                .cloned()
                .unwrap_or_default()
        }
    }
}

/// Game `number` (from 1) of a run with seed `run_seed`, in `round` and `pair`:
/// its id and its seed, the same for a fixed schedule and a drawn one.
pub fn game_meta(run_seed: u64, number: u64, round: u32, pair: u32) -> GameMeta {
    GameMeta {
        id: GameMeta::id_of(number),
        round,
        pair,
        seed: mix(run_seed.wrapping_add(number)),
    }
}

/// SplitMix64: a well-mixed 64-bit value from a counter, for deriving independent
/// per-game seeds from one tournament seed.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A random opening of `plies` legal moves that does not end the game.
fn random_opening(rules: Rules, plies: u32, seed: u64) -> Vec<Square> {
    let mut rng = StdRng::seed_from_u64(seed);
    'attempt: loop {
        let mut pos = Position::new(rules);
        let mut moves = Vec::with_capacity(plies as usize);
        for _ in 0..plies {
            let legal = pos.legal_moves();
            let Some(sq) = legal.nth(rng.random_range(0..legal.len().max(1))) else {
                continue 'attempt;
            };
            pos.play_unchecked(sq);
            moves.push(sq);
            if pos.is_over() {
                continue 'attempt;
            }
        }
        return moves;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use uttt::notation::parse_move_list;

    impl Shard {
        /// Whether this shard plays `game`: the reference [`Schedule::games`]
        /// must agree with. Pairs are never split across shards.
        fn contains(&self, game: &ScheduledGame) -> bool {
            (game.meta.pair - 1) % self.count == self.index - 1
        }
    }

    fn plan(bots: usize, games: u32) -> Plan {
        Plan {
            bots,
            format: Format::RoundRobin,
            games_per_pairing: games,
            openings: Openings::RandomPlies(4),
            rules: Rules::STANDARD,
            seed: 42,
        }
    }

    fn schedule(plan: &Plan) -> Vec<ScheduledGame> {
        Schedule::new(plan.clone(), None).unwrap().games().collect()
    }

    /// The schedule as a list, built the obvious way (the arena's first
    /// implementation): the reference the computed schedule must equal.
    fn listed(plan: &Plan) -> Vec<ScheduledGame> {
        let pairings: Vec<(usize, usize)> = match plan.format {
            Format::RoundRobin => (0..plan.bots)
                .flat_map(|a| (a + 1..plan.bots).map(move |b| (a, b)))
                .collect(),
            Format::Gauntlet { challenger } => (0..plan.bots)
                .filter(|&b| b != challenger)
                .map(|b| (challenger, b))
                .collect(),
            Format::Drawn(_) => unreachable!("not a schedule"),
        };
        let rounds = plan.games_per_pairing.div_ceil(2);
        let mut games = Vec::new();
        let mut pair = 0u32;
        for round in 0..rounds {
            let opening = match &plan.openings {
                Openings::None => Vec::new(),
                Openings::RandomPlies(k) => {
                    random_opening(plan.rules, *k, mix(plan.seed ^ mix(u64::from(round))))
                }
                Openings::Book(lines) => lines[round as usize % lines.len()].clone(),
            };
            let in_round = if round + 1 == rounds && plan.games_per_pairing % 2 == 1 {
                1
            } else {
                2
            };
            for &(a, b) in &pairings {
                pair += 1;
                for g in 0..in_round {
                    let (x, o) = if g == 0 { (a, b) } else { (b, a) };
                    let number = games.len() as u64 + 1;
                    games.push(ScheduledGame {
                        meta: GameMeta {
                            id: format!("G{number:04}"),
                            round: round + 1,
                            pair,
                            seed: mix(plan.seed.wrapping_add(number)),
                        },
                        number,
                        x,
                        o,
                        opening: opening.clone(),
                    });
                }
            }
        }
        games
    }

    #[test]
    fn round_robin_pairs_swap_colours_and_share_openings() {
        let games = schedule(&plan(3, 4));
        assert_eq!(games.len(), 3 * 4);
        for pair in games.chunks(2) {
            assert_eq!(pair[0].meta.pair, pair[1].meta.pair);
            assert_eq!((pair[0].x, pair[0].o), (pair[1].o, pair[1].x));
            assert_eq!(pair[0].opening, pair[1].opening);
            assert_eq!(pair[0].opening.len(), 4);
        }
        // Round 1 holds one pair of every pairing before round 2 starts.
        let round1: Vec<_> = games.iter().take(6).map(|g| g.meta.round).collect();
        assert_eq!(round1, [1; 6]);
        assert_eq!(games[6].meta.round, 2);
        assert_ne!(games[0].opening, games[6].opening);
        assert_eq!(games[0].meta.id, "G0001");
    }

    #[test]
    fn same_seed_same_schedule_other_seed_other_openings() {
        assert_eq!(schedule(&plan(4, 2)), schedule(&plan(4, 2)));
        let other = Plan {
            seed: 43,
            ..plan(4, 2)
        };
        assert_ne!(
            schedule(&plan(4, 2))[0].opening,
            schedule(&other)[0].opening
        );
    }

    #[test]
    fn odd_game_counts_leave_one_incomplete_pair() {
        let games = schedule(&plan(2, 3));
        assert_eq!(games.len(), 3);
        assert_eq!(games[2].meta.pair, 2);
    }

    #[test]
    fn gauntlet_plays_only_the_challenger() {
        let p = Plan {
            format: Format::Gauntlet { challenger: 2 },
            ..plan(4, 2)
        };
        let games = schedule(&p);
        assert_eq!(games.len(), 3 * 2);
        assert!(games.iter().all(|g| g.x == 2 || g.o == 2));
    }

    #[test]
    fn shards_partition_the_schedule_by_pairs() {
        let games = schedule(&plan(4, 4));
        let shards: Vec<Shard> = (1..=3).map(|k| format!("{k}/3").parse().unwrap()).collect();
        for g in &games {
            assert_eq!(shards.iter().filter(|s| s.contains(g)).count(), 1);
        }
        assert!("0/3".parse::<Shard>().is_err());
        assert!("4/3".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
    }

    #[test]
    fn huge_schedules_are_counted_and_indexed_without_being_listed() {
        // 10,000 bots: 49,995,000 pairings, one pair each.
        let s = Schedule::new(plan(10_000, 2), None).unwrap();
        assert_eq!(s.total(), 99_990_000);
        let last = s.game("G99990000").unwrap();
        assert_eq!((last.x, last.o, last.meta.pair), (9999, 9998, 49_995_000));
        assert_eq!(s.game("G99990001"), None);
        let billion = Schedule::new(plan(2, 1_000_000_000), None).unwrap();
        assert_eq!(billion.total(), 1_000_000_000);
        assert_eq!(billion.games().nth(2).map(|g| g.meta.round), Some(2));
        assert!(matches!(
            Schedule::new(plan(100_000, 1_000_000), None),
            Err(ScheduleError::TooManyPairs { .. })
        ));
        assert_eq!(
            Schedule::new(plan(1, 2), None).err(),
            Some(ScheduleError::TooFewBots)
        );
    }

    fn any_plan() -> impl Strategy<Value = (Plan, Option<Shard>)> {
        (
            2usize..9,
            1u32..8,
            any::<bool>(),
            0usize..8,
            0u32..3,
            any::<u64>(),
            proptest::option::of((1u32..5, 0u32..5)),
        )
            .prop_map(
                |(bots, games, gauntlet, challenger, openings, seed, shard)| {
                    let format = if gauntlet {
                        Format::Gauntlet {
                            challenger: challenger % bots,
                        }
                    } else {
                        Format::RoundRobin
                    };
                    let openings = match openings {
                        0 => Openings::None,
                        1 => Openings::RandomPlies(2),
                        _ => Openings::Book(vec![
                            parse_move_list("e5").unwrap(),
                            parse_move_list("a1 b2").unwrap(),
                            parse_move_list("i9").unwrap(),
                        ]),
                    };
                    let shard = shard.map(|(count, index)| Shard {
                        index: index % count + 1,
                        count,
                    });
                    (
                        Plan {
                            bots,
                            format,
                            games_per_pairing: games,
                            openings,
                            rules: Rules::STANDARD,
                            seed,
                        },
                        shard,
                    )
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn the_computed_schedule_is_the_listed_one((plan, shard) in any_plan()) {
            let all = listed(&plan);
            let expected: Vec<ScheduledGame> = all
                .iter()
                .filter(|g| shard.is_none_or(|s| s.contains(g)))
                .cloned()
                .collect();
            let s = Schedule::new(plan, shard).unwrap();
            let got: Vec<ScheduledGame> = s.games().collect();
            prop_assert_eq!(&got, &expected);
            prop_assert_eq!(s.total(), expected.len() as u64);
            for g in &all {
                let found = s.game(&g.meta.id);
                if expected.contains(g) {
                    prop_assert_eq!(found.as_ref(), Some(g));
                } else {
                    prop_assert_eq!(found, None);
                }
            }
            prop_assert_eq!(s.game("G0"), None);
            prop_assert_eq!(s.game("G01"), None);
        }

        /// Batches 1…n of an SPRT (two bots) are the sequential schedule's games in
        /// order, cut every `pairs` pairs, and each finds its own games by id only.
        #[test]
        fn batches_cut_the_sequential_schedule(
            pairs in 1u32..6,
            batches in 1u32..5,
            openings in 0u32..3,
            seed in any::<u64>(),
        ) {
            let plan = Plan {
                bots: 2,
                format: Format::RoundRobin,
                games_per_pairing: 2 * pairs * batches,
                openings: match openings {
                    0 => Openings::None,
                    1 => Openings::RandomPlies(2),
                    _ => Openings::Book(vec![parse_move_list("e5").unwrap(), parse_move_list("a1 b2").unwrap()]),
                },
                rules: Rules::STANDARD,
                seed,
            };
            let all = listed(&plan);
            let mut joined = Vec::new();
            for index in 1..=batches {
                let s = Schedule::new(plan.clone(), None).unwrap().only_batch(Batch { index, pairs }).unwrap();
                let games: Vec<ScheduledGame> = s.games().collect();
                prop_assert_eq!(s.total(), games.len() as u64);
                prop_assert_eq!(games.len() as u32, 2 * pairs);
                for g in &all {
                    prop_assert_eq!(s.game(&g.meta.id).is_some(), games.contains(g));
                }
                joined.extend(games);
            }
            prop_assert_eq!(joined, all);
            let past = Schedule::new(plan, None).unwrap().only_batch(Batch { index: batches + 1, pairs });
            prop_assert!(matches!(past, Err(ScheduleError::BatchPastEnd { .. })), "a batch past the end is refused");
        }
    }
}
