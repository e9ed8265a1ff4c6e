//! The counts every statistic starts from, kept game by game: each bot's record,
//! each seat pair's results, each pairing's W/D/L and pentanomial pair counts, and
//! the first player's results. Adding a game costs the same whether it is the
//! first or the millionth, and the memory grows with the bots and pairings, not
//! with the games: a run of a million games keeps its standings at hand without
//! keeping its games.
//!
//! Only the first game of a colour-swapped pair whose partner has not come yet is
//! held (its pairing, key, seat and points), until the partner comes. Games of one
//! key pair up two by two in the order they are added (a schedule gives a key two
//! games; a third game of a key starts a new pair).
//!
//! [`super::Analysis::of`] fits the ratings from these counts; the functions over a
//! slice of games ([`super::Analysis::build`], [`pairings`], [`head_to_head`],
//! [`bot_records`]) count the slice into a `Totals` first, so there is one
//! way of counting.

use std::collections::HashMap;

use uttt::rules::Mark;

use super::model::{GameResult, PairKey};
use super::pentanomial::{PairOutcome, PairingStats, Pentanomial};
use super::record::{BotRecord, FirstPlayer, Wdl};

/// The running counts of a set of games (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct Totals {
    /// Bot names by id, in order of first appearance.
    names: Vec<String>,
    /// The id of each name.
    ids: HashMap<String, usize>,
    /// Each bot's record, by id.
    records: Vec<BotRecord>,
    /// X's results by (X's id, O's id).
    seats: HashMap<(usize, usize), Wdl>,
    /// By (a, b), `a`'s name before `b`'s: `a`'s results.
    pairings: HashMap<(usize, usize), PairCounts>,
    /// The first game of each pair still waiting for its second.
    open: HashMap<(usize, usize, PairKey), OpenPair>,
    /// X's results over every game.
    first_player: Wdl,
    /// Games counted.
    games: u64,
}

/// One pairing's counts, seen by the bot whose name sorts first.
#[derive(Clone, Copy, Debug, Default)]
struct PairCounts {
    games: Wdl,
    pentanomial: Pentanomial,
    /// Games outside complete pairs, open pairs' first games included.
    unpaired: Wdl,
}

/// The first game of a pair: whether the pairing's first bot played X in it, and
/// its half points.
#[derive(Clone, Copy, Debug)]
struct OpenPair {
    first_bot_was_x: bool,
    half_points: u8,
}

impl Totals {
    /// No games yet.
    pub fn new() -> Totals {
        Totals::default()
    }

    /// The counts of `games`, added in order.
    pub fn of<'a>(games: impl IntoIterator<Item = &'a GameResult>) -> Totals {
        let mut totals = Totals::new();
        for game in games {
            totals.add(game);
        }
        totals
    }

    /// Counts one more game.
    pub fn add(&mut self, game: &GameResult) {
        let x = self.id(game.x());
        let o = self.id(game.o());
        let decision = game.decision();
        let reason = game.ending().reason();
        let at_fault = game.ending().at_fault();
        for (mark, bot) in [(Mark::X, x), (Mark::O, o)] {
            let record = &mut self.records[bot];
            record.total.add_decision(decision, mark);
            match mark {
                Mark::X => record.as_x.add_decision(decision, mark),
                Mark::O => record.as_o.add_decision(decision, mark),
            }
            let tally = record.reasons.entry(reason).or_default();
            tally.games += 1;
            if at_fault == Some(mark) {
                tally.faults += 1;
            }
        }
        self.seats
            .entry((x, o))
            .or_default()
            .add_decision(decision, Mark::X);
        self.first_player.add_decision(decision, Mark::X);
        self.games += 1;

        let (a, b, a_mark) = if self.names[x] < self.names[o] {
            (x, o, Mark::X)
        } else {
            (o, x, Mark::O)
        };
        let half_points = decision.half_points(a_mark);
        let counts = self.pairings.entry((a, b)).or_default();
        counts.games.add(half_points);
        let Some(key) = game.pair() else {
            counts.unpaired.add(half_points);
            return;
        };
        let first_bot_was_x = a_mark == Mark::X;
        match self.open.remove(&(a, b, key)) {
            Some(first) if first.first_bot_was_x != first_bot_was_x => {
                // Colours swapped: the two games are one pair.
                match PairOutcome::from_half_points(first.half_points + half_points) {
                    Some(outcome) => {
                        counts.unpaired.remove(first.half_points);
                        counts.pentanomial.add(outcome);
                    }
                    // Never: each game is worth at most two half points.
                    None => counts.unpaired.add(half_points),
                }
            }
            // The same colours twice: two single games, and the key is used up.
            Some(_) => counts.unpaired.add(half_points),
            None => {
                counts.unpaired.add(half_points);
                self.open.insert(
                    (a, b, key),
                    OpenPair {
                        first_bot_was_x,
                        half_points,
                    },
                );
            }
        }
    }

    /// The id of `name`, new if the name is.
    fn id(&mut self, name: &str) -> usize {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len();
        self.names.push(name.to_owned());
        self.ids.insert(name.to_owned(), id);
        self.records.push(BotRecord::new(name));
        id
    }

    /// Games counted.
    pub fn games(&self) -> u64 {
        self.games
    }

    /// Whether no game was counted.
    pub fn is_empty(&self) -> bool {
        self.games == 0
    }

    /// The bots' names, in order of their first game.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// A bot's record, if it played.
    pub fn record(&self, name: &str) -> Option<&BotRecord> {
        self.ids.get(name).map(|&id| &self.records[id])
    }

    /// Every bot's record, sorted by name.
    pub fn records(&self) -> Vec<BotRecord> {
        let mut records = self.records.clone();
        records.sort_by(|a, b| a.name.cmp(&b.name));
        records
    }

    /// X's results over every game.
    pub fn first_player(&self) -> FirstPlayer {
        FirstPlayer {
            x: self.first_player,
        }
    }

    /// X's results by seat pair, as (X, O, results of X), in no particular order.
    pub fn seats(&self) -> impl Iterator<Item = (&str, &str, Wdl)> + '_ {
        self.seats
            .iter()
            .map(|(&(x, o), &wdl)| (self.names[x].as_str(), self.names[o].as_str(), wdl))
    }

    /// The head-to-head statistics of every two bots that met, sorted by `(a, b)`
    /// with `a` < `b` by name.
    pub fn pairings(&self) -> Vec<PairingStats> {
        let mut all: Vec<PairingStats> = self
            .pairings
            .iter()
            .map(|(&(a, b), counts)| self.stats(a, b, counts))
            .collect();
        all.sort_by(|p, q| (&p.a, &p.b).cmp(&(&q.a, &q.b)));
        all
    }

    /// The games of `bot` against `opponent`, seen by `bot`; all counts zero when
    /// they did not meet.
    pub fn pairing(&self, bot: &str, opponent: &str) -> PairingStats {
        let ids = (self.ids.get(bot), self.ids.get(opponent));
        let found = match ids {
            (Some(&i), Some(&j)) => self
                .pairings
                .get(&(i, j))
                .map(|c| self.stats(i, j, c))
                .or_else(|| {
                    self.pairings
                        .get(&(j, i))
                        .map(|c| self.stats(j, i, c).flipped())
                }),
            _ => None,
        };
        found.unwrap_or_else(|| PairingStats {
            a: bot.to_owned(),
            b: opponent.to_owned(),
            games: Wdl::default(),
            pentanomial: Pentanomial::default(),
            unpaired: Wdl::default(),
        })
    }

    fn stats(&self, a: usize, b: usize, counts: &PairCounts) -> PairingStats {
        PairingStats {
            a: self.names[a].clone(),
            b: self.names[b].clone(),
            games: counts.games,
            pentanomial: counts.pentanomial,
            unpaired: counts.unpaired,
        }
    }

    /// Pairs whose second game has not been counted (for tests of the memory
    /// bound: at most one per pairing and key in flight).
    pub fn open_pairs(&self) -> usize {
        self.open.len()
    }
}

/// Every bot's record, sorted by name.
pub fn bot_records(games: &[GameResult]) -> Vec<BotRecord> {
    Totals::of(games).records()
}

/// The head-to-head statistics of every two bots that met, sorted by `(a, b)` with
/// `a` < `b` by name. Use [`PairingStats::flipped`] for `b`'s side.
pub fn pairings(games: &[GameResult]) -> Vec<PairingStats> {
    Totals::of(games).pairings()
}

/// The games of `bot` against `opponent`, seen by `bot`: what `arena sprt` tracks for
/// a candidate against its baseline. Games of other bots are ignored; with no games
/// between them the counts are all zero.
pub fn head_to_head(games: &[GameResult], bot: &str, opponent: &str) -> PairingStats {
    let between = games
        .iter()
        .filter(|g| g.seat_of(bot).is_some() && g.seat_of(opponent).is_some());
    Totals::of(between).pairing(bot, opponent)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use super::super::analysis::Analysis;
    use super::super::bradley_terry::FitOptions;
    use super::super::model::fixtures::{draw, o_wins, x_wins};
    use super::super::model::{Decision, EndReason, Ending};
    use super::*;

    /// The records counted the plain way, from the whole slice.
    fn naive_records(games: &[GameResult]) -> Vec<BotRecord> {
        let mut by_name: BTreeMap<&str, BotRecord> = BTreeMap::new();
        for game in games {
            for mark in Mark::ALL {
                let name = game.bot(mark);
                let record = by_name.entry(name).or_insert_with(|| BotRecord::new(name));
                let half = game.decision().half_points(mark);
                record.total.add(half);
                if mark == Mark::X {
                    record.as_x.add(half);
                } else {
                    record.as_o.add(half);
                }
                let tally = record.reasons.entry(game.ending().reason()).or_default();
                tally.games += 1;
                tally.faults += u64::from(game.ending().at_fault() == Some(mark));
            }
        }
        by_name.into_values().collect()
    }

    /// The pairings counted the plain way: group each pairing's games by key, cut
    /// each group into twos in order, and count a two of swapped colours as a pair.
    fn naive_pairings(games: &[GameResult]) -> Vec<PairingStats> {
        type Groups<'g> = BTreeMap<Option<PairKey>, Vec<&'g GameResult>>;
        let mut by_pairing: BTreeMap<(&str, &str), Groups<'_>> = BTreeMap::new();
        for game in games {
            let key = (game.x().min(game.o()), game.x().max(game.o()));
            by_pairing
                .entry(key)
                .or_default()
                .entry(game.pair())
                .or_default()
                .push(game);
        }
        let mut all = Vec::new();
        for ((a, b), groups) in by_pairing {
            let mut stats = PairingStats {
                a: a.to_owned(),
                b: b.to_owned(),
                games: Wdl::default(),
                pentanomial: Pentanomial::default(),
                unpaired: Wdl::default(),
            };
            let points = |g: &GameResult| g.decision().half_points(g.seat_of(a).unwrap());
            for (key, group) in groups {
                for g in &group {
                    stats.games.add(points(g));
                }
                if key.is_none() {
                    group.iter().for_each(|g| stats.unpaired.add(points(g)));
                    continue;
                }
                for two in group.chunks(2) {
                    match two {
                        [g1, g2] if g1.x() == g2.o() => stats
                            .pentanomial
                            .add(PairOutcome::ALL[usize::from(points(g1) + points(g2))]),
                        _ => two.iter().for_each(|g| stats.unpaired.add(points(g))),
                    }
                }
            }
            all.push(stats);
        }
        all
    }

    fn naive_seats(games: &[GameResult]) -> BTreeMap<(String, String), Wdl> {
        let mut seats: BTreeMap<(String, String), Wdl> = BTreeMap::new();
        for g in games {
            seats
                .entry((g.x().to_owned(), g.o().to_owned()))
                .or_default()
                .add_decision(g.decision(), Mark::X);
        }
        seats
    }

    fn games() -> impl Strategy<Value = Vec<GameResult>> {
        let one = (
            0..5usize,
            1..5usize,
            0..3u8,
            0..EndReason::ALL.len(),
            0..6u64,
        )
            .prop_map(|(x, offset, result, reason, key)| {
                let decision = match result {
                    0 => Decision::Win(Mark::X),
                    1 => Decision::Draw,
                    _ => Decision::Win(Mark::O),
                };
                let ending = Ending::of(decision, EndReason::ALL[reason]);
                let game =
                    GameResult::new(format!("b{x}"), format!("b{}", (x + offset) % 5), ending)
                        .unwrap();
                // Key 5 is no key: a game outside any pair.
                if key == 5 {
                    game
                } else {
                    game.with_pair(PairKey(key))
                }
            });
        proptest::collection::vec(one, 0..60)
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 200,
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x7071),
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// After every game, the running counts equal the plain count of every game
        /// so far, and the report fitted from them equals a fresh one.
        #[test]
        fn running_counts_equal_a_fresh_count_after_every_game(games in games()) {
            let mut totals = Totals::new();
            for (n, game) in games.iter().enumerate() {
                totals.add(game);
                let so_far = &games[..=n];
                prop_assert_eq!(totals.records(), naive_records(so_far));
                prop_assert_eq!(totals.pairings(), naive_pairings(so_far));
                let seats: BTreeMap<(String, String), Wdl> = totals
                    .seats()
                    .map(|(x, o, wdl)| ((x.to_owned(), o.to_owned()), wdl))
                    .collect();
                prop_assert_eq!(seats, naive_seats(so_far));
                prop_assert_eq!(totals.first_player(), FirstPlayer::from_games(so_far));
                prop_assert_eq!(totals.games(), so_far.len() as u64);
                let options = FitOptions::default();
                prop_assert_eq!(
                    Analysis::of(&totals, &options).unwrap(),
                    Analysis::build(so_far, &options).unwrap()
                );
            }
        }
    }

    #[test]
    fn a_key_used_a_third_time_starts_a_new_pair() {
        let games = [
            x_wins("a", "b").with_pair(PairKey(0)),
            o_wins("b", "a").with_pair(PairKey(0)),
            draw("a", "b").with_pair(PairKey(0)),
        ];
        let totals = Totals::of(&games);
        let ab = totals.pairing("a", "b");
        assert_eq!(ab.pentanomial.counts(), [0, 0, 0, 0, 1]);
        assert_eq!(ab.unpaired.games(), 1);
        assert_eq!(totals.open_pairs(), 1);
        // Seen from the other side, flipped.
        assert_eq!(
            totals.pairing("b", "a").pentanomial.counts(),
            [1, 0, 0, 0, 0]
        );
    }

    #[test]
    fn a_closed_pair_is_forgotten() {
        let mut totals = Totals::new();
        for k in 0..1000 {
            totals.add(&x_wins("a", "b").with_pair(PairKey(k)));
            totals.add(&x_wins("b", "a").with_pair(PairKey(k)));
        }
        assert_eq!(totals.open_pairs(), 0);
        assert_eq!(totals.games(), 2000);
        assert_eq!(
            totals.pairing("a", "b").pentanomial.counts(),
            [0, 0, 1000, 0, 0]
        );
        assert_eq!(totals.pairing("a", "z").games.games(), 0);
        assert_eq!(totals.record("a").map(|r| r.as_x.wins), Some(1000));
        assert_eq!(totals.names(), ["a", "b"]);
    }
}
