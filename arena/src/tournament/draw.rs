//! Formats whose next round depends on the last: Swiss and knockout. Pure: the
//! games drawn so far are a function of the plan (seed included) and the results
//! of the games already finished, so a run resumes by drawing again from its
//! `games.csv`, and two runs with the same results draw the same games.
//!
//! [`draw`] replays the event round by round and stops at the first stage with
//! an unfinished game: those are what to play now. Games are numbered in draw
//! order; every pairing plays colour-swapped pairs (each bot X once per pair,
//! same opening), the `j`-th pair of a pairing the round-robin opening of round
//! `j`. Scores are counted in half-points (win 2, draw 1, loss 0).
//!
//! **Swiss** (`format = "swiss"`, `rounds = N`):
//! - Standings order: score, then config order.
//! - Bye: with an odd number of bots, before pairing, the lowest-ranked bot that
//!   has had no bye (the one with the fewest byes, if all have had one) sits out
//!   and scores as if it had won all its games of the round: never more than a
//!   pairing's games are worth. A bot that could not be started in its latest
//!   game cannot play, and is never given a bye while another bot can take it.
//! - Round 1 pairs the top half of the config order with the bottom half (1 v
//!   n/2+1, 2 v n/2+2, …); later rounds go down the standings, each bot with
//!   the nearest-ranked bot it has not met (Monrad). A complete search finds a
//!   pairing without rematches whenever one exists; only when none does are
//!   rematches allowed.
//! - Final ranking: score, then Buchholz (the sum of the opponents' scores), then
//!   Sonneborn–Berger (the sum, over games, of the opponent's score times the
//!   points the bot took from it), then config order. Byes add to the score only.
//!
//! **Knockout** (`format = "knockout"`): seeded by config order into a bracket of
//! the next power of two (seeds 1 and 2 can meet only in the final); the top
//! seeds get the byes of a smaller field. Each match is `games` games; a tie
//! plays one more pair, up to `tiebreak-pairs` times, and a tie after those is
//! won by the higher seed (the bot listed first). A bot that could not be
//! started in any game of its match never goes through: when neither could,
//! nobody does, and the next round's opponent has a bye.

use std::collections::{BTreeSet, HashMap};

use uttt::rules::{Rules, Square};

use super::format::Drawn;
use super::openings::Openings;
use super::schedule::{ScheduledGame, game_meta, opening_of};
use crate::results::event;
use crate::results::store::GameRow;
use uttt::result::Decision;
use uttt::rules::Mark;

/// The result of a finished game, as the draw needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finished {
    /// Who played X and O (bot indices).
    pub x: usize,
    /// O.
    pub o: usize,
    /// X's half-points: 2 a win, 1 a draw, 0 a loss.
    pub x_half_points: u8,
    /// Whether X, and O, could not be started for the game (lost it by a
    /// failed handshake): they cannot play.
    pub absent: (bool, bool),
}

/// What the draw depends on besides results.
#[derive(Clone, Debug)]
pub struct DrawPlan {
    /// Bots, in config order (their seeding).
    pub bots: usize,
    /// The format.
    pub format: Drawn,
    /// Games of a pairing in a round (even).
    pub games_per_pairing: u32,
    /// Openings.
    pub openings: Openings,
    /// Rules.
    pub rules: Rules,
    /// The tournament seed.
    pub seed: u64,
}

/// The event so far.
#[derive(Clone, Debug, Default)]
pub struct Draw {
    /// Every game drawn, finished or not, in number order.
    pub games: Vec<ScheduledGame>,
    /// Whether more games will be drawn once these are finished.
    pub more: bool,
    /// The rounds: who met whom and who had a bye, with scores.
    pub rounds: Vec<RoundRecord>,
}

/// One round of the event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RoundRecord {
    /// 1-based.
    pub number: u32,
    /// The pairings, with each side's half-points so far in the pairing (when
    /// finished: the result).
    pub matches: Vec<Match>,
    /// The bots that sat out (a Swiss: at most one).
    pub byes: Vec<usize>,
}

/// One pairing of a round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Match {
    /// The bots (a is the higher ranked or seeded).
    pub a: usize,
    /// b.
    pub b: usize,
    /// Half-points of a and b in the games finished.
    pub half_points: (u32, u32),
    /// Whether every game drawn for it is finished.
    pub finished: bool,
    /// Knockout: who goes through, and whether the seeding rule decided it.
    pub winner: Option<(usize, bool)>,
    /// Knockout: whether the match is over, its `winner` final (`None` then:
    /// neither bot could be started, nobody goes through). A match whose games
    /// are all finished is not over while a tie-break pair is still to come.
    pub decided: bool,
}

/// Draws the event from the results so far (`finished`, by game id). A result
/// whose bots are not those of the drawn game is ignored (the caller refuses
/// such a directory).
pub fn draw(plan: &DrawPlan, finished: &HashMap<String, Finished>) -> Draw {
    let mut builder = Builder {
        plan,
        finished,
        draw: Draw::default(),
        pair: 0,
        absent: vec![false; plan.bots],
    };
    match plan.format {
        Drawn::Swiss { rounds } => builder.swiss(rounds),
        Drawn::Knockout { tiebreak_pairs } => builder.knockout(tiebreak_pairs),
    }
    builder.draw
}

struct Builder<'a> {
    plan: &'a DrawPlan,
    finished: &'a HashMap<String, Finished>,
    draw: Draw,
    /// Pairs drawn so far.
    pair: u32,
    /// Each bot: whether it could not be started in its latest finished game.
    absent: Vec<bool>,
}

/// What the finished games of a pairing's pairs say.
#[derive(Clone, Copy, Debug)]
struct Played {
    /// Half-points of a and b.
    half_points: (u32, u32),
    /// Whether every game drawn is finished.
    done: bool,
    /// Whether a, and b, could not be started in any of them (false without a
    /// finished game).
    absent: (bool, bool),
}

impl Builder<'_> {
    /// Draws `pairs` colour-swapped pairs of `a` v `b` in `round`, the first
    /// with opening index `first_opening`. Returns the half-points of a and b in
    /// those that are finished, whether all are, and who could not be started
    /// in any of them.
    fn play(&mut self, round: u32, a: usize, b: usize, first_opening: u32, pairs: u32) -> Played {
        let (mut ha, mut hb, mut all) = (0, 0, true);
        let (mut absent_a, mut absent_b, mut any) = (true, true, false);
        for j in 0..pairs {
            self.pair += 1;
            let opening: Vec<Square> = opening_of(
                &self.plan.openings,
                self.plan.rules,
                self.plan.seed,
                u64::from(first_opening + j),
            );
            for (x, o) in [(a, b), (b, a)] {
                let number = self.draw.games.len() as u64 + 1;
                let meta = game_meta(self.plan.seed, number, round, self.pair);
                match self.finished.get(&meta.id) {
                    Some(f) if f.x == x && f.o == o => {
                        let (hx, ho) = (u32::from(f.x_half_points), 2 - u32::from(f.x_half_points));
                        let (gone_a, gone_b) = if x == a {
                            (ha, hb) = (ha + hx, hb + ho);
                            f.absent
                        } else {
                            (ha, hb) = (ha + ho, hb + hx);
                            (f.absent.1, f.absent.0)
                        };
                        (absent_a, absent_b, any) = (absent_a && gone_a, absent_b && gone_b, true);
                        self.absent[x] = f.absent.0;
                        self.absent[o] = f.absent.1;
                    }
                    _ => all = false,
                }
                self.draw.games.push(ScheduledGame {
                    meta,
                    number,
                    x,
                    o,
                    opening: opening.clone(),
                });
            }
        }
        Played {
            half_points: (ha, hb),
            done: all,
            absent: (any && absent_a, any && absent_b),
        }
    }

    fn swiss(&mut self, rounds: u32) {
        let n = self.plan.bots;
        let pairs = self.plan.games_per_pairing / 2;
        let mut score = vec![0u32; n];
        let mut byes = vec![0u32; n];
        let mut met: BTreeSet<(usize, usize)> = BTreeSet::new();
        for round in 1..=rounds {
            let (pairings, bye) = swiss_pairing(round, &score, &byes, &met, &self.absent);
            let mut record = RoundRecord {
                number: round,
                matches: Vec::new(),
                byes: bye.into_iter().collect(),
            };
            let mut round_done = true;
            let mut gained = vec![0u32; n];
            for (a, b) in pairings {
                let Played {
                    half_points: (ha, hb),
                    done,
                    ..
                } = self.play(round, a, b, 0, pairs);
                round_done &= done;
                gained[a] += ha;
                gained[b] += hb;
                met.insert((a.min(b), a.max(b)));
                record.matches.push(Match {
                    a,
                    b,
                    half_points: (ha, hb),
                    finished: done,
                    winner: None,
                    decided: false,
                });
            }
            if let Some(bye) = bye {
                byes[bye] += 1;
                gained[bye] += 2 * self.plan.games_per_pairing;
            }
            self.draw.rounds.push(record);
            if !round_done {
                self.draw.more = round < rounds;
                return;
            }
            for (s, g) in score.iter_mut().zip(gained) {
                *s += g;
            }
        }
    }

    fn knockout(&mut self, tiebreak_pairs: u32) {
        let n = self.plan.bots;
        let size = n.next_power_of_two();
        let order = bracket_order(size);
        // The slots of round 1: a seed index, or None for a bye.
        let mut slots: Vec<Option<usize>> = order.iter().map(|&s| (s < n).then_some(s)).collect();
        let pairs = self.plan.games_per_pairing / 2;
        let mut round = 0;
        while slots.len() > 1 {
            round += 1;
            let mut record = RoundRecord {
                number: round,
                ..RoundRecord::default()
            };
            // Each slot of the next round: a bot already (a bye), nobody, or
            // the winner of a match of this round (its index).
            let mut next: Vec<Result<Option<usize>, usize>> = Vec::new();
            let mut open = Vec::new();
            // Per match: whether a, and b, could not be started in any game.
            let mut absent = Vec::new();
            for slot in slots.chunks(2) {
                match (slot[0], slot.get(1).copied().flatten()) {
                    (Some(a), Some(b)) => {
                        let (a, b) = (a.min(b), a.max(b));
                        let played = self.play(round, a, b, 0, pairs);
                        record.matches.push(Match {
                            a,
                            b,
                            half_points: played.half_points,
                            finished: played.done,
                            winner: None,
                            decided: false,
                        });
                        absent.push(played.absent);
                        open.push(record.matches.len() - 1);
                        next.push(Err(record.matches.len() - 1));
                    }
                    (Some(a), None) | (None, Some(a)) => {
                        record.byes.push(a);
                        next.push(Ok(Some(a)));
                    }
                    (None, None) => next.push(Ok(None)),
                }
            }
            // Tie-breaks: one more pair for every tied match, stage by stage.
            let mut stage = 0;
            loop {
                if record.matches.iter().any(|m| !m.finished) {
                    // The matches already over are said so while the others
                    // play: finished and not tied, or tied with no tie-break
                    // pair left.
                    for (i, m) in record.matches.iter_mut().enumerate() {
                        let (ha, hb) = m.half_points;
                        if m.finished && (ha != hb || stage == tiebreak_pairs) {
                            m.winner = through(m, absent[i]);
                            m.decided = true;
                        }
                    }
                    self.draw.rounds.push(record);
                    self.draw.more = true;
                    return;
                }
                let tied: Vec<usize> = open
                    .iter()
                    .copied()
                    .filter(|&i| record.matches[i].half_points.0 == record.matches[i].half_points.1)
                    .collect();
                if tied.is_empty() || stage == tiebreak_pairs {
                    break;
                }
                stage += 1;
                for i in tied {
                    let (a, b) = (record.matches[i].a, record.matches[i].b);
                    let played = self.play(round, a, b, pairs + stage - 1, 1);
                    let m = &mut record.matches[i];
                    let (ha, hb) = played.half_points;
                    m.half_points = (m.half_points.0 + ha, m.half_points.1 + hb);
                    m.finished = played.done;
                    absent[i] = (
                        absent[i].0 && played.absent.0,
                        absent[i].1 && played.absent.1,
                    );
                }
            }
            // Winners, into the slots of the next round.
            for (i, m) in record.matches.iter_mut().enumerate() {
                m.winner = through(m, absent[i]);
                m.decided = true;
            }
            slots = next
                .into_iter()
                .map(|slot| match slot {
                    Ok(bot) => bot,
                    Err(i) => record.matches[i].winner.map(|(w, _)| w),
                })
                .collect();
            self.draw.rounds.push(record);
        }
        self.draw.more = false;
    }
}

/// Who goes through a finished knockout match `m` (and whether the seeding
/// rule decided it), `absent` saying whether a, and b, could never be started
/// in it: the more points, the higher seed (the lower index) when tied, nobody
/// when neither could play.
fn through(m: &Match, absent: (bool, bool)) -> Option<(usize, bool)> {
    let (ha, hb) = m.half_points;
    match (absent, ha.cmp(&hb)) {
        ((true, true), _) => None,
        (_, std::cmp::Ordering::Greater) => Some((m.a, false)),
        (_, std::cmp::Ordering::Less) => Some((m.b, false)),
        (_, std::cmp::Ordering::Equal) => Some((m.a, true)),
    }
}

/// The seeds (0-based) of a bracket of `size` (a power of two) in slot order:
/// adjacent slots meet in round 1, and seeds 0 and 1 can meet only in the final.
pub fn bracket_order(size: usize) -> Vec<usize> {
    let mut order = vec![0usize];
    while order.len() < size {
        let m = order.len() * 2;
        order = order.iter().flat_map(|&s| [s, m - 1 - s]).collect();
    }
    order
}

/// The finished games of `rows` as the draw reads them, by game id (a row
/// naming a bot not among `names` is left out: the run refuses it elsewhere).
pub fn results_by_id<'a>(
    names: &[&str],
    rows: impl IntoIterator<Item = &'a GameRow>,
) -> HashMap<String, Finished> {
    let index = |name: &str| names.iter().position(|n| *n == name);
    rows.into_iter()
        .filter_map(|row| {
            let x_half_points = match row.winner {
                Decision::Win(Mark::X) => 2,
                Decision::Draw => 1,
                Decision::Win(Mark::O) => 0,
            };
            // A game lost by a failed handshake: the loser (both, in a draw)
            // could not be started.
            let unstarted = row.reason == uttt::result::EndReason::HandshakeFailure;
            let absent = match row.winner {
                _ if !unstarted => (false, false),
                Decision::Win(Mark::X) => (false, true),
                Decision::Win(Mark::O) => (true, false),
                Decision::Draw => (true, true),
            };
            Some((
                row.id.clone(),
                Finished {
                    x: index(&row.x)?,
                    o: index(&row.o)?,
                    x_half_points,
                    absent,
                },
            ))
        })
        .collect()
}

/// The table of a Swiss or the bracket of a knockout: text for the terminal and
/// the rows of its file.
#[derive(Clone, Debug, PartialEq)]
pub struct EventTable {
    /// For the terminal.
    pub text: String,
    /// For `swiss.csv` or `knockout.csv` ([`crate::results::event`]).
    pub table: event::EventTable,
}

/// The event's table from its finished games (`rows`), bots named `names`.
pub fn event_table<'a>(
    plan: &DrawPlan,
    names: &[&str],
    rows: impl IntoIterator<Item = &'a GameRow>,
) -> EventTable {
    table_of(plan, names, &results_by_id(names, rows))
}

/// [`event_table`] from the results by game id.
fn table_of(plan: &DrawPlan, names: &[&str], finished: &HashMap<String, Finished>) -> EventTable {
    let d = draw(plan, finished);
    let name = |i: usize| names.get(i).copied().unwrap_or("?").to_string();
    let points = |half: u32| f64::from(half) / 2.0;
    match plan.format {
        Drawn::Swiss { rounds } => {
            let played = d
                .rounds
                .iter()
                .filter(|r| r.matches.iter().all(|m| m.finished))
                .count();
            let rows: Vec<event::SwissRow> =
                swiss_table(plan.bots, plan.games_per_pairing, &d, finished)
                    .iter()
                    .enumerate()
                    .map(|(rank, l)| event::SwissRow {
                        rank: rank + 1,
                        bot: name(l.bot),
                        points: points(l.score),
                        buchholz: points(l.buchholz),
                        sonneborn_berger: f64::from(l.sonneborn_berger) / 4.0,
                        byes: l.byes,
                    })
                    .collect();
            let width = names.iter().map(|n| n.len()).max().unwrap_or(3).max(3);
            let mut text = format!(
                "Swiss after {played} of {rounds} rounds (ties broken by Buchholz, then Sonneborn-Berger):\n{:>4}  {:<width$}  {:>6}  {:>8}  {:>6}  byes\n",
                "rank", "bot", "points", "buchholz", "s-b"
            );
            for r in &rows {
                text.push_str(&format!(
                    "{:>4}  {:<width$}  {:>6}  {:>8}  {:>6}  {}\n",
                    r.rank, r.bot, r.points, r.buchholz, r.sonneborn_berger, r.byes
                ));
            }
            EventTable {
                text,
                table: event::EventTable::Swiss(rows),
            }
        }
        Drawn::Knockout { .. } => {
            let mut rows = Vec::new();
            for round in &d.rounds {
                for &b in &round.byes {
                    rows.push(event::KnockoutRow {
                        round: round.number,
                        a: name(b),
                        b: String::new(),
                        a_points: None,
                        b_points: None,
                        winner: name(b),
                        decided_by: "bye".into(),
                    });
                }
                for m in &round.matches {
                    let (winner, by) = match (m.decided, m.winner) {
                        (true, Some((w, true))) => (name(w), "seed"),
                        (true, Some((w, false))) => (name(w), "games"),
                        (true, None) => (String::new(), NO_SHOW),
                        (false, _) => (String::new(), ""),
                    };
                    rows.push(event::KnockoutRow {
                        round: round.number,
                        a: name(m.a),
                        b: name(m.b),
                        a_points: Some(points(m.half_points.0)),
                        b_points: Some(points(m.half_points.1)),
                        winner,
                        decided_by: by.into(),
                    });
                }
            }
            let table = event::EventTable::Knockout(rows);
            EventTable {
                text: bracket_text(&table, !d.more),
                table,
            }
        }
    }
}

pub use crate::results::event::NO_SHOW;

/// A knockout bracket in words, round by round (`over`: the final is played).
pub fn bracket_text(table: &event::EventTable, over: bool) -> String {
    let event::EventTable::Knockout(rows) = table else {
        return String::new();
    };
    let last = rows.iter().map(|r| r.round).max().unwrap_or(0);
    let mut text = String::from("Knockout bracket (seeded by config order or seeding):\n");
    for round in 1..=last {
        let in_round: Vec<&event::KnockoutRow> = rows.iter().filter(|r| r.round == round).collect();
        let is_final = over && round == last && in_round.len() == 1;
        text.push_str(&format!(
            "Round {round}{}\n",
            if is_final { " (final)" } else { "" }
        ));
        for r in in_round {
            match r.decided_by.as_str() {
                "bye" => text.push_str(&format!("  {}: bye\n", r.a)),
                by => {
                    let outcome = match by {
                        "seed" => format!(
                            " -> {} (still tied after the tie-break pairs: the higher seed goes through)",
                            r.winner
                        ),
                        "games" => format!(" -> {}", r.winner),
                        NO_SHOW => {
                            " -> neither bot could be started: nobody goes through".to_string()
                        }
                        _ => " (in play)".to_string(),
                    };
                    text.push_str(&format!(
                        "  {} {}-{} {}{outcome}\n",
                        r.a,
                        r.a_points.unwrap_or(0.0),
                        r.b_points.unwrap_or(0.0),
                        r.b
                    ));
                }
            }
        }
    }
    text
}

/// The pairings of Swiss round `round` (1-based), given each bot's score and
/// byes so far, the pairs that have met (as `(low, high)`) and the bots that
/// could not be started in their latest game (`absent`): pairs with the
/// higher-ranked bot first, and the bot with the bye.
pub fn swiss_pairing(
    round: u32,
    score: &[u32],
    byes: &[u32],
    met: &BTreeSet<(usize, usize)>,
    absent: &[bool],
) -> (Vec<(usize, usize)>, Option<usize>) {
    let n = score.len();
    // Standings: score, then config order.
    let mut ranked: Vec<usize> = (0..n).collect();
    ranked.sort_by_key(|&i| (std::cmp::Reverse(score[i]), i));
    let bye = (n % 2 == 1).then(|| {
        // A bye is a win without a game: never for a bot that cannot play,
        // while one that can is there to take it.
        let can_play: Vec<usize> = ranked
            .iter()
            .copied()
            .filter(|&i| !absent.get(i).copied().unwrap_or(false))
            .collect();
        let pool = if can_play.is_empty() {
            &ranked
        } else {
            &can_play
        };
        // Lowest ranked among those with the fewest byes.
        let fewest = pool.iter().map(|&i| byes[i]).min().unwrap_or(0);
        pool.iter()
            .rev()
            .copied()
            .find(|&i| byes[i] == fewest)
            .unwrap_or(ranked[n - 1])
    });
    ranked.retain(|&i| Some(i) != bye);
    if round == 1 {
        // Top half against bottom half.
        let half = ranked.len() / 2;
        let (top, bottom) = ranked.split_at(half);
        ranked = top.iter().zip(bottom).flat_map(|(&a, &b)| [a, b]).collect();
    }
    let have_met = |a: usize, b: usize| met.contains(&(a.min(b), a.max(b)));
    let mut budget = 200_000u32;
    let pairs = match_down(&ranked, &|a, b| !have_met(a, b), &mut budget).unwrap_or_else(|| {
        let mut budget = 200_000u32;
        match_down(&ranked, &|_, _| true, &mut budget).unwrap_or_default()
    });
    (pairs, bye)
}

/// Pairs `ranked` (an even number of bots, best first) going down the list,
/// each with the nearest-ranked allowed partner, backtracking when the rest
/// cannot be paired. `None` when no pairing of them all is allowed (or the
/// search budget ran out).
fn match_down(
    ranked: &[usize],
    allowed: &dyn Fn(usize, usize) -> bool,
    budget: &mut u32,
) -> Option<Vec<(usize, usize)>> {
    let Some((&first, rest)) = ranked.split_first() else {
        return Some(Vec::new());
    };
    for (k, &partner) in rest.iter().enumerate() {
        if *budget == 0 {
            return None;
        }
        *budget -= 1;
        if !allowed(first, partner) {
            continue;
        }
        let remaining: Vec<usize> = rest
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != k)
            .map(|(_, &p)| p)
            .collect();
        if let Some(mut pairs) = match_down(&remaining, allowed, budget) {
            pairs.insert(0, (first, partner));
            return Some(pairs);
        }
    }
    None
}

/// A bot's line in the final Swiss table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwissLine {
    /// The bot.
    pub bot: usize,
    /// Half-points, byes included.
    pub score: u32,
    /// Sum of the opponents' scores (half-points).
    pub buchholz: u32,
    /// Sum over games of the opponent's score times the half-points taken
    /// (in quarter-points: half-points times half-points).
    pub sonneborn_berger: u32,
    /// Byes had.
    pub byes: u32,
}

/// The Swiss ranking of `draw` (its finished games): score, Buchholz,
/// Sonneborn–Berger, config order.
pub fn swiss_table(
    bots: usize,
    games_per_pairing: u32,
    draw: &Draw,
    finished: &HashMap<String, Finished>,
) -> Vec<SwissLine> {
    let mut score = vec![0u32; bots];
    let mut byes = vec![0u32; bots];
    let mut games_of: Vec<Vec<(usize, u32)>> = vec![Vec::new(); bots];
    for round in &draw.rounds {
        if round.matches.iter().all(|m| m.finished) {
            for &b in &round.byes {
                byes[b] += 1;
            }
        }
    }
    for game in &draw.games {
        if let Some(f) = finished.get(&game.meta.id)
            && (f.x, f.o) == (game.x, game.o)
        {
            let hx = u32::from(f.x_half_points);
            score[f.x] += hx;
            score[f.o] += 2 - hx;
            games_of[f.x].push((f.o, hx));
            games_of[f.o].push((f.x, 2 - hx));
        }
    }
    let per_bye = 2 * games_per_pairing;
    for (s, b) in score.iter_mut().zip(&byes) {
        *s += b * per_bye;
    }
    let mut lines: Vec<SwissLine> = (0..bots)
        .map(|bot| {
            let mut opponents: Vec<usize> = games_of[bot].iter().map(|&(o, _)| o).collect();
            opponents.sort_unstable();
            opponents.dedup();
            SwissLine {
                bot,
                score: score[bot],
                buchholz: opponents.iter().map(|&o| score[o]).sum(),
                sonneborn_berger: games_of[bot].iter().map(|&(o, h)| score[o] * h).sum(),
                byes: byes[bot],
            }
        })
        .collect();
    lines.sort_by_key(|l| {
        (
            std::cmp::Reverse((l.score, l.buchholz, l.sonneborn_berger)),
            l.bot,
        )
    });
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn plan(bots: usize, format: Drawn) -> DrawPlan {
        DrawPlan {
            bots,
            format,
            games_per_pairing: 2,
            openings: Openings::RandomPlies(2),
            rules: Rules::STANDARD,
            seed: 7,
        }
    }

    /// Plays the event to its end with `result` deciding each game (X's
    /// half-points from the bots' indices), returning the final draw and results.
    fn play_out(
        plan: &DrawPlan,
        result: impl Fn(usize, usize) -> u8,
    ) -> (Draw, HashMap<String, Finished>) {
        play_out_absent(plan, |x, o| (result(x, o), (false, false)))
    }

    /// [`play_out`], `result` also saying whether X, and O, could not be
    /// started.
    fn play_out_absent(
        plan: &DrawPlan,
        result: impl Fn(usize, usize) -> (u8, (bool, bool)),
    ) -> (Draw, HashMap<String, Finished>) {
        let mut finished = HashMap::new();
        for _ in 0..1000 {
            let d = draw(plan, &finished);
            let mut new = false;
            for g in &d.games {
                finished.entry(g.meta.id.clone()).or_insert_with(|| {
                    new = true;
                    let (x_half_points, absent) = result(g.x, g.o);
                    Finished {
                        x: g.x,
                        o: g.o,
                        x_half_points,
                        absent,
                    }
                });
            }
            if !new {
                assert!(!d.more, "a draw with nothing to play must be over");
                return (d, finished);
            }
        }
        panic!("the event never ended");
    }

    /// The stronger bot (lower index) always wins.
    fn by_index(x: usize, o: usize) -> u8 {
        if x < o { 2 } else { 0 }
    }

    /// Bot `broken` cannot be started: it loses every game by a failed
    /// handshake (a draw, both absent, against another broken one); the others
    /// by index.
    fn unless_broken(broken: &[usize]) -> impl Fn(usize, usize) -> (u8, (bool, bool)) {
        move |x, o| match (broken.contains(&x), broken.contains(&o)) {
            (true, true) => (1, (true, true)),
            (true, false) => (0, (true, false)),
            (false, true) => (2, (false, true)),
            (false, false) => (by_index(x, o), (false, false)),
        }
    }

    #[test]
    fn a_bot_that_cannot_be_started_never_gets_a_swiss_bye_and_a_bye_is_a_pairings_worth() {
        // Bot 1 ranks second in round 1, so the first bye (drawn before any
        // game) goes to bot 4; from round 2 on bot 1 is last and known broken.
        let plan = plan(5, Drawn::Swiss { rounds: 4 });
        let (d, finished) = play_out_absent(&plan, unless_broken(&[1]));
        let byes: Vec<usize> = d.rounds.iter().flat_map(|r| r.byes.clone()).collect();
        assert_eq!(byes.len(), 4, "one bye a round");
        assert!(!byes.contains(&1), "byes: {byes:?}");
        // The bye is worth what winning every game of a pairing is, no more.
        let table = swiss_table(5, plan.games_per_pairing, &d, &finished);
        let line = |bot: usize| table.iter().find(|l| l.bot == bot).unwrap().clone();
        let games_points: u32 = d
            .games
            .iter()
            .filter_map(|g| finished.get(&g.meta.id))
            .map(|f| match (f.x, f.o) {
                (4, _) => u32::from(f.x_half_points),
                (_, 4) => 2 - u32::from(f.x_half_points),
                _ => 0,
            })
            .sum();
        let four = line(4);
        assert_eq!(
            four.score,
            games_points + four.byes * 2 * plan.games_per_pairing
        );
        assert_eq!(line(1).score, 0, "the broken bot scores nothing");
    }

    #[test]
    fn in_a_knockout_a_match_of_two_broken_bots_sends_nobody_through() {
        // A bracket of 4: 0 v 3 and 1 v 2 in round 1; 1 and 2 cannot start.
        let plan = plan(4, Drawn::Knockout { tiebreak_pairs: 1 });
        let (d, finished) = play_out_absent(&plan, unless_broken(&[1, 2]));
        let first = &d.rounds[0];
        let broken = first.matches.iter().find(|m| m.a == 1).unwrap();
        assert_eq!(
            broken.winner, None,
            "tied, but the seed rule does not apply"
        );
        assert!(broken.finished);
        let last = d.rounds.last().unwrap();
        assert_eq!(last.number, 2);
        assert!(last.matches.is_empty());
        assert_eq!(last.byes, [0], "the other winner has a bye in the final");
        assert!(!finished.is_empty());
    }

    #[test]
    fn a_knockout_match_is_over_once_decided_even_while_another_plays_its_tiebreak() {
        // A bracket of 4: 0 v 3 is won 2-0; 1 v 2 is tied 1-1 and plays a
        // tie-break pair, not finished yet.
        let plan = plan(4, Drawn::Knockout { tiebreak_pairs: 1 });
        let mut finished = HashMap::new();
        let first = draw(&plan, &finished);
        for g in &first.games {
            let x_half_points = match (g.x, g.o) {
                (0, _) => 2,
                (_, 0) => 0,
                _ => 2,
            };
            finished.insert(
                g.meta.id.clone(),
                Finished {
                    x: g.x,
                    o: g.o,
                    x_half_points,
                    absent: (false, false),
                },
            );
        }
        let names = ["ann", "bo", "cy", "dee"];
        let d = draw(&plan, &finished);
        assert!(d.more, "the tie-break pair is to play");
        let round = &d.rounds[0];
        let won = round.matches.iter().find(|m| m.a == 0).unwrap();
        assert!(won.decided && won.winner == Some((0, false)), "{won:?}");
        let tied = round.matches.iter().find(|m| m.a == 1).unwrap();
        assert!(!tied.decided && tied.winner.is_none(), "{tied:?}");
        // The terminal and knockout.csv say so, and nothing false.
        let table = table_of(&plan, &names, &finished);
        assert!(table.text.contains("ann 2-0 dee -> ann"), "{}", table.text);
        assert!(table.text.contains("bo 1-1 cy (in play)"), "{}", table.text);
        assert!(!table.text.contains("nobody"), "{}", table.text);
        let event::EventTable::Knockout(rows) = table.table else {
            panic!("a knockout's table is a bracket");
        };
        let by: Vec<&str> = rows.iter().map(|r| r.decided_by.as_str()).collect();
        assert_eq!(by, ["games", ""]);
    }

    #[test]
    fn the_bracket_keeps_the_top_seeds_apart() {
        assert_eq!(bracket_order(4), [0, 3, 1, 2]);
        assert_eq!(bracket_order(8), [0, 7, 3, 4, 1, 6, 2, 5]);
    }

    #[test]
    fn a_knockout_of_six_gives_byes_to_the_top_seeds_and_the_best_wins() {
        let (d, _) = play_out(&plan(6, Drawn::Knockout { tiebreak_pairs: 2 }), by_index);
        assert_eq!(d.rounds.len(), 3);
        // Round 1 of a bracket of 8: seeds 1 and 2 sit out, 3v6 and 4v5 play.
        let first: Vec<(usize, usize)> = d.rounds[0].matches.iter().map(|m| (m.a, m.b)).collect();
        assert_eq!(first, [(3, 4), (2, 5)]);
        let final_match = &d.rounds[2].matches[0];
        assert_eq!((final_match.a, final_match.b), (0, 1));
        assert_eq!(final_match.winner, Some((0, false)));
        assert_eq!(d.games.len(), 5 * 2, "n - 1 matches of 2 games");
    }

    #[test]
    fn a_tied_knockout_match_plays_tiebreak_pairs_then_the_higher_seed_goes_through() {
        // Every game won by X: each pair is 1-1, so every match stays tied.
        let (d, _) = play_out(&plan(2, Drawn::Knockout { tiebreak_pairs: 2 }), |_, _| 2);
        assert_eq!(d.games.len(), 2 + 2 * 2);
        let m = &d.rounds[0].matches[0];
        assert_eq!(m.half_points, (6, 6));
        assert_eq!(m.winner, Some((0, true)));
        // Each tie-break pair has an opening of its own.
        assert_ne!(d.games[2].opening, d.games[4].opening);
    }

    #[test]
    fn swiss_ranks_bots_of_known_strength_in_order() {
        let p = plan(8, Drawn::Swiss { rounds: 5 });
        let (d, finished) = play_out(&p, by_index);
        let table = swiss_table(8, 2, &d, &finished);
        assert_eq!(table[0].bot, 0);
        assert_eq!(table[0].score, 5 * 4);
        assert_eq!(d.games.len(), 5 * 4 * 2);
    }

    #[test]
    fn an_unfinished_round_stops_the_draw_and_a_resume_draws_the_same() {
        let p = plan(5, Drawn::Swiss { rounds: 3 });
        let first = draw(&p, &HashMap::new());
        assert!(first.more);
        assert_eq!(
            first.games.len(),
            2 * 2,
            "round 1 only: two pairings, a bye"
        );
        assert_eq!(first.rounds[0].byes, [4]);
        assert_eq!(draw(&p, &HashMap::new()).games, first.games);
    }

    /// Spearman's rank correlation between a ranking (best first) and the true
    /// order (`strength[bot]`: 0 the strongest), without ties.
    fn spearman(ranking: &[usize], strength: &[usize]) -> f64 {
        let n = ranking.len() as f64;
        let d2: f64 = ranking
            .iter()
            .enumerate()
            .map(|(rank, &bot)| (rank as f64 - strength[bot] as f64).powi(2))
            .sum();
        1.0 - 6.0 * d2 / (n * (n * n - 1.0))
    }

    /// The first `rounds` rounds of a round robin by the circle method: bot 0
    /// fixed, the others rotating. `n` even.
    fn circle_rounds(n: usize, rounds: usize) -> Vec<Vec<(usize, usize)>> {
        (0..rounds)
            .map(|r| {
                let ring: Vec<usize> = std::iter::once(0)
                    .chain((0..n - 1).map(|k| 1 + (k + r) % (n - 1)))
                    .collect();
                (0..n / 2).map(|i| (ring[i], ring[n - 1 - i])).collect()
            })
            .collect()
    }

    /// The benchmark of BENCHMARKS.md ("Swiss against round robin"): 32 bots 40
    /// Elo apart (Bradley–Terry, no draws) listed in random order (the config
    /// order tells the Swiss nothing), 2 games a pairing, ⌈log2 32⌉ + 2 = 7
    /// rounds: the Swiss ranking's Spearman correlation with the true order,
    /// against the first 7 rounds of a round robin (the same 224 games) and the
    /// whole round robin (992 games), averaged over 100 seeds. Run with
    /// `cargo test -p arena --lib swiss_against_round_robin -- --nocapture`.
    #[test]
    fn swiss_against_round_robin() {
        use rand::{Rng as _, SeedableRng as _, rngs::StdRng};
        const N: usize = 32;
        const ROUNDS: u32 = 7;
        const TRIALS: u64 = 100;
        // strength[bot]: 0 the strongest, 40 Elo between neighbours.
        let p_win =
            |a: usize, b: usize| 1.0 / (1.0 + 10f64.powf((a as f64 - b as f64) * 40.0 / 400.0));
        let ranking = |half_points: &[u32], rng: &mut StdRng| {
            // Ties in random order: the simulation knows no tie-breaks.
            let keys: Vec<(u32, u64)> = half_points.iter().map(|&h| (h, rng.random())).collect();
            let mut order: Vec<usize> = (0..N).collect();
            order.sort_by(|&a, &b| keys[b].cmp(&keys[a]));
            order
        };
        let (mut swiss, mut partial, mut full) = (0.0, 0.0, 0.0);
        for trial in 0..TRIALS {
            let mut rng = StdRng::seed_from_u64(trial);
            let mut strength: Vec<usize> = (0..N).collect();
            for i in (1..N).rev() {
                strength.swap(i, rng.random_range(0..=i));
            }
            let strength = &strength;
            let game = |x: usize, o: usize, rng: &mut StdRng| -> u8 {
                if rng.random::<f64>() < p_win(strength[x], strength[o]) {
                    2
                } else {
                    0
                }
            };
            let p = DrawPlan {
                seed: trial,
                ..plan(N, Drawn::Swiss { rounds: ROUNDS })
            };
            let (d, finished) = play_out(&p, |x, o| {
                // Seeded by the game's bots and the trial: play_out may ask again.
                let mut r =
                    StdRng::seed_from_u64(trial * 1_000_003 + (x * N + o) as u64 * 7919 + 1);
                game(x, o, &mut r)
            });
            let table = swiss_table(N, 2, &d, &finished);
            swiss += spearman(&table.iter().map(|l| l.bot).collect::<Vec<_>>(), strength);
            for (rounds, total) in [(ROUNDS as usize, &mut partial), (N - 1, &mut full)] {
                let mut half = vec![0u32; N];
                for round in circle_rounds(N, rounds) {
                    for (a, b) in round {
                        for (x, o) in [(a, b), (b, a)] {
                            let h = u32::from(game(x, o, &mut rng));
                            half[x] += h;
                            half[o] += 2 - h;
                        }
                    }
                }
                *total += spearman(&ranking(&half, &mut rng), strength);
            }
        }
        let t = TRIALS as f64;
        let (swiss, partial, full) = (swiss / t, partial / t, full / t);
        println!(
            "Spearman vs the true order, {N} bots, mean of {TRIALS}: swiss {ROUNDS} rounds {swiss:.3}, round robin {ROUNDS} rounds (same games) {partial:.3}, full round robin {full:.3}"
        );
        assert!(
            swiss > partial,
            "swiss {swiss} should beat the same games of a round robin {partial}"
        );
        assert!(full > swiss);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Over a whole Swiss with random results: two bots meet again only
        /// when no pairing of that round's bots avoids it, every bot has at
        /// most one bye (rounds < bots), each round seats every bot once.
        #[test]
        fn swiss_repeats_a_pairing_only_when_unavoidable_and_gives_at_most_one_bye(
            bots in 2usize..11,
            rounds_wanted in 1u32..10,
            results in proptest::collection::vec(0u8..3, 400),
        ) {
            let rounds = rounds_wanted.min(u32::try_from(bots).unwrap() - 1);
            let p = plan(bots, Drawn::Swiss { rounds });
            let next = std::cell::Cell::new(0usize);
            let (d, _) = play_out(&p, |_, _| {
                let r = results[next.get() % results.len()];
                next.set(next.get() + 1);
                r
            });
            prop_assert_eq!(d.rounds.len(), rounds as usize);
            let mut met = BTreeSet::new();
            let mut byes = vec![0; bots];
            for round in &d.rounds {
                let mut seen = vec![0; bots];
                let players: Vec<usize> = round.matches.iter().flat_map(|m| [m.a, m.b]).collect();
                let mut budget = u32::MAX;
                let avoidable = match_down(&players, &|a, b| !met.contains(&(a.min(b), a.max(b))), &mut budget).is_some();
                for m in &round.matches {
                    let fresh = !met.contains(&(m.a.min(m.b), m.a.max(m.b)));
                    prop_assert!(fresh || !avoidable, "avoidable rematch {:?} in round {}", (m.a, m.b), round.number);
                    seen[m.a] += 1;
                    seen[m.b] += 1;
                }
                for m in &round.matches {
                    met.insert((m.a.min(m.b), m.a.max(m.b)));
                }
                for &b in &round.byes {
                    byes[b] += 1;
                    seen[b] += 1;
                }
                prop_assert!(seen.iter().all(|&s| s == 1));
            }
            prop_assert!(byes.iter().all(|&b| b <= 1));
        }

        /// Whatever the results, nobody meets anyone twice in the first two
        /// rounds (a second round without rematches always exists).
        #[test]
        fn swiss_has_no_rematch_in_its_first_two_rounds(
            bots in 3usize..16,
            results in proptest::collection::vec(0u8..3, 200),
        ) {
            let p = plan(bots, Drawn::Swiss { rounds: 2 });
            let next = std::cell::Cell::new(0usize);
            let (d, _) = play_out(&p, |_, _| {
                let r = results[next.get() % results.len()];
                next.set(next.get() + 1);
                r
            });
            let pairs: Vec<(usize, usize)> = d.rounds.iter().flat_map(|r| r.matches.iter().map(|m| (m.a.min(m.b), m.a.max(m.b)))).collect();
            let unique: BTreeSet<_> = pairs.iter().collect();
            prop_assert_eq!(unique.len(), pairs.len());
        }

        /// A knockout of any size ends with one winner after n - 1 matches.
        #[test]
        fn a_knockout_has_n_minus_1_matches_and_one_winner(bots in 2usize..20, seed in any::<u64>()) {
            let p = DrawPlan { seed, ..plan(bots, Drawn::Knockout { tiebreak_pairs: 1 }) };
            let (d, _) = play_out(&p, |x, o| u8::try_from((x * 7 + o * 3 + (seed as usize)) % 3).unwrap());
            let matches: usize = d.rounds.iter().map(|r| r.matches.len()).sum();
            prop_assert_eq!(matches, bots - 1);
            let last = &d.rounds[d.rounds.len() - 1];
            prop_assert_eq!(last.matches.len(), 1);
            prop_assert!(last.matches[0].winner.is_some());
        }
    }
}
