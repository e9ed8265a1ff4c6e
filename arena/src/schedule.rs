//! The schedule: which games a tournament plays, in which order, with which opening
//! and seed. Pure and deterministic from the tournament seed, so a run can be
//! resumed, repeated, or split across machines (`--shard K/N`) and merged.
//!
//! Every pairing plays its openings as colour-swapped pairs (same opening, each bot
//! X once). Round `r` holds one pair of every pairing, so any prefix of the schedule
//! is balanced across pairings. All pairings of a round share the round's opening.

use rand::{Rng as _, SeedableRng as _, rngs::StdRng};
use uttt::rules::{Position, Rules, Square};

use crate::store::GameMeta;

/// Who plays whom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// Every bot against every other.
    RoundRobin,
    /// One bot (by index) against each of the others.
    Gauntlet {
        /// Index of the challenger among the bots.
        challenger: usize,
    },
}

/// Where openings come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Openings {
    /// Every game starts from the empty board.
    None,
    /// Each round starts after this many random legal plies, drawn from the seed.
    RandomPlies(u32),
    /// Each round uses the next line of this book, cycling.
    Book(Vec<Vec<Square>>),
}

/// One scheduled game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduledGame {
    /// Id, round, pair and seed.
    pub meta: GameMeta,
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

impl Shard {
    /// Whether this shard plays `game`. Pairs are never split across shards.
    pub fn contains(&self, game: &ScheduledGame) -> bool {
        (game.meta.pair - 1) % self.count == self.index - 1
    }
}

/// The pairings in play order: `(a, b)` with `a` playing X in the first game of
/// each pair.
fn pairings(plan: &Plan) -> Vec<(usize, usize)> {
    match plan.format {
        Format::RoundRobin => {
            let mut list = Vec::new();
            for a in 0..plan.bots {
                for b in a + 1..plan.bots {
                    list.push((a, b));
                }
            }
            list
        }
        Format::Gauntlet { challenger } => (0..plan.bots)
            .filter(|&b| b != challenger)
            .map(|b| (challenger, b))
            .collect(),
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

/// The whole schedule, in play order.
pub fn schedule(plan: &Plan) -> Vec<ScheduledGame> {
    let pairings = pairings(plan);
    let rounds = plan.games_per_pairing.div_ceil(2);
    let mut games = Vec::new();
    let mut pair = 0u32;
    for round in 0..rounds {
        let opening = match &plan.openings {
            Openings::None => Vec::new(),
            Openings::RandomPlies(k) => {
                random_opening(plan.rules, *k, mix(plan.seed ^ mix(u64::from(round))))
            }
            Openings::Book(lines) if lines.is_empty() => Vec::new(),
            Openings::Book(lines) => lines[round as usize % lines.len()].clone(),
        };
        let games_this_round = if round + 1 == rounds && plan.games_per_pairing % 2 == 1 {
            1
        } else {
            2
        };
        for &(a, b) in &pairings {
            pair += 1;
            for g in 0..games_this_round {
                let (x, o) = if g == 0 { (a, b) } else { (b, a) };
                let index = games.len() as u64 + 1;
                games.push(ScheduledGame {
                    meta: GameMeta {
                        id: format!("G{index:04}"),
                        round: round + 1,
                        pair,
                        seed: mix(plan.seed.wrapping_add(index)),
                    },
                    x,
                    o,
                    opening: opening.clone(),
                });
            }
        }
    }
    games
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
