//! Placing one bot on the reference levels' Elo scale (`arena rate`): its games
//! against the levels read into pairs, the placement ([`ratings::place`]) and its
//! interval, the level of the next pair ([`ratings::next_opponent`]) until the
//! stop rule ([`ratings::StopRule`]) says the interval is precise enough, and
//! the verdict summary.json holds. The games themselves come from
//! [`super::adaptive`], which asks this state for each pair's level.

use std::collections::BTreeMap;

use ratings::{AnchoredPair, Confidence, Placement, Progress, StopRule, next_opponent, place};
use uttt::result::{Decision, EndReason};

use super::runner::RunEnd;
use crate::results::store::GameRow;
use crate::results::summary::{LevelGames, LevelRef, RateVerdict};

/// A placement in progress, shared by the game source (which asks it for the
/// next level) and the command's watcher (which tells it every finished game).
#[derive(Debug)]
pub struct Placing {
    /// The bot's name in the results.
    pub bot: String,
    /// The levels' names in the results, weakest first.
    levels: Vec<String>,
    /// Their ratings.
    scale: Vec<f64>,
    rule: StopRule,
    confidence: Confidence,
    /// The placement from every game so far.
    pub placement: Option<Placement>,
    /// Precise, or out of games: start no more pairs.
    pub progress: Progress,
    /// The bot could not be started: the run says nothing about its strength.
    pub infrastructure: Option<String>,
    /// Games per level and the bot's points there, from the rows.
    per_level: Vec<(u32, f64)>,
    /// The bot's losses by its own fault, by reason.
    faults: BTreeMap<EndReason, u32>,
    games: u32,
    /// Every finished game of the run (at most `--max-games` against each level,
    /// so few): the placement is refitted from all of them after each.
    rows: Vec<GameRow>,
}

impl Placing {
    /// The placement of the first of `names` (the others: the levels, weakest
    /// first, rated `scale`) before any game, stopping by `rule`.
    pub fn new(names: Vec<String>, scale: Vec<f64>, rule: StopRule) -> Placing {
        let mut names = names.into_iter();
        let bot = names.next().unwrap_or_default();
        let mut gauntlet = Placing {
            bot,
            levels: names.collect(),
            per_level: vec![(0, 0.0); scale.len()],
            scale,
            rule,
            confidence: Confidence::default(),
            placement: None,
            progress: Progress::Continue,
            infrastructure: None,
            faults: BTreeMap::new(),
            games: 0,
            rows: Vec::new(),
        };
        gauntlet.update();
        gauntlet
    }

    /// Starts from the games of an earlier run on the same directory (`rows`,
    /// read back once when the run is bound to it).
    pub fn resume(&mut self, rows: Vec<GameRow>) {
        self.rows = rows;
        self.update();
    }

    /// Counts one more finished game.
    pub fn add(&mut self, row: &GameRow) {
        self.rows.push(row.clone());
        self.update();
    }

    /// The ids of the games counted so far.
    pub fn finished(&self) -> impl Iterator<Item = &str> {
        self.rows.iter().map(|r| r.id.as_str())
    }

    /// Recomputes everything from the rows: the pairs, the placement, the faults.
    fn update(&mut self) {
        let mut pairs: BTreeMap<u32, (usize, AnchoredPair)> = BTreeMap::new();
        self.per_level = vec![(0, 0.0); self.scale.len()];
        self.faults.clear();
        self.games = 0;
        for row in &self.rows {
            let Some(seat) = row.seat_of(&self.bot) else {
                continue;
            };
            let Some(level) = self.levels.iter().position(|l| l == row.bot(!seat)) else {
                continue;
            };
            let points = match row.winner {
                Decision::Win(w) if w == seat => 1.0,
                Decision::Win(_) => 0.0,
                Decision::Draw => 0.5,
            };
            if row.loser() == Some(seat) && !row.reason.on_the_board() {
                *self.faults.entry(row.reason).or_default() += 1;
            }
            self.games += 1;
            self.per_level[level].0 += 1;
            self.per_level[level].1 += points;
            let entry = pairs.entry(row.pair).or_insert((
                level,
                AnchoredPair {
                    opponent: self.scale[level],
                    points: 0.0,
                    games: 0,
                },
            ));
            entry.1.points += points;
            entry.1.games += 1;
        }
        let pairs: Vec<AnchoredPair> = pairs.into_values().map(|(_, p)| p).collect();
        self.placement = place(&pairs, self.confidence);
        if self.progress == Progress::Continue {
            self.progress = self.rule.progress(self.placement.as_ref());
        }
    }

    /// The number of levels.
    pub fn levels(&self) -> usize {
        self.scale.len()
    }

    /// The level of the next pair, or `None` when the gauntlet is over.
    pub fn next_level(&self, started: &[u32]) -> Option<usize> {
        let scheduled: u32 = started.iter().sum::<u32>() * 2;
        if self.progress != Progress::Continue
            || self.infrastructure.is_some()
            || scheduled >= self.rule.max_games
        {
            return None;
        }
        Some(next_opponent(&self.scale, self.placement.as_ref(), started))
    }

    /// The placement as summary.json says it, for a run that ended with `end`.
    pub fn verdict(&self, end: RunEnd) -> RateVerdict {
        let p = self.placement;
        let finite = |x: f64| x.is_finite().then_some(x.round());
        let (elo, low, high) = p.map_or((None, None, None), |p| {
            (
                finite(p.elo),
                finite(p.interval.low),
                finite(p.interval.high),
            )
        });
        // The levels around the estimate (or around the open interval's one end).
        let point = p.map(|p| {
            if p.elo.is_finite() {
                p.elo
            } else if p.elo > 0.0 {
                p.interval.low
            } else {
                p.interval.high
            }
        });
        let level = |i: usize| LevelRef {
            name: self.levels[i].clone(),
            elo: self.scale[i],
        };
        let below = point.and_then(|x| self.scale.iter().rposition(|&r| r <= x).map(level));
        let above = point.and_then(|x| self.scale.iter().position(|&r| r > x).map(level));
        let stopped = if self.infrastructure.is_some() {
            "bot-failed"
        } else if matches!(end, RunEnd::Interrupted(_)) {
            "interrupted"
        } else {
            match self.progress {
                Progress::Precise => "precise",
                Progress::MaxGames | Progress::Continue => "max-games",
            }
        };
        RateVerdict {
            bot: self.bot.clone(),
            elo,
            low,
            high,
            half_width: p.map(|p| p.interval.half_width()).and_then(finite),
            confidence: self.confidence.level(),
            precision: self.rule.precision,
            stopped: stopped.into(),
            games: self.games,
            points: p.map_or(0.0, |p| p.points),
            level_below: below,
            level_above: above,
            faults: self
                .faults
                .iter()
                .map(|(r, n)| (r.name().to_string(), *n))
                .collect(),
            levels: (0..self.scale.len())
                .filter(|&i| self.per_level[i].0 > 0)
                .map(|i| LevelGames {
                    name: self.levels[i].clone(),
                    elo: self.scale[i],
                    games: self.per_level[i].0,
                    points: self.per_level[i].1,
                })
                .collect(),
        }
    }
}

/// The placement in words: "1234 ± 48 (95%: 1186 to 1282)"; an interval with
/// one end not yet bounded by the games says which ("95%: at most 213"), and a
/// bot that won or lost every game so far has only a bound: "at most 1178
/// (95%; every game lost so far)".
pub fn line(p: &Placement) -> String {
    let (low, high) = (p.interval.low, p.interval.high);
    let interval = match (low.is_finite(), high.is_finite()) {
        (true, true) => format!("95%: {low:.0} to {high:.0}"),
        (true, false) => format!("95%: at least {low:.0}"),
        (false, true) => format!("95%: at most {high:.0}"),
        (false, false) => "95%: not bounded yet".to_string(),
    };
    let half = p.interval.half_width();
    if p.elo.is_finite() && half.is_finite() {
        format!("{:.0} ± {half:.0} ({interval})", p.elo)
    } else if p.elo.is_finite() {
        format!("{:.0} ({interval})", p.elo)
    } else if p.elo > 0.0 && low.is_finite() {
        format!("at least {low:.0} (95%; every game won so far)")
    } else if p.elo < 0.0 && high.is_finite() {
        format!("at most {high:.0} (95%; every game lost so far)")
    } else {
        "not placed yet".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratings::estimate::Interval;

    fn placed(elo: f64, low: f64, high: f64) -> Placement {
        Placement {
            elo,
            interval: Interval { low, high },
            dispersion: 1.0,
            pairs: 1,
            games: 2,
            points: 1.0,
        }
    }

    #[test]
    fn a_placement_says_its_interval_and_what_the_games_left_unbounded_in_words() {
        assert_eq!(
            line(&placed(-30.4, -176.2, 109.0)),
            "-30 ± 143 (95%: -176 to 109)"
        );
        assert_eq!(
            line(&placed(120.0, f64::NEG_INFINITY, 213.0)),
            "120 (95%: at most 213)"
        );
        assert_eq!(
            line(&placed(f64::NEG_INFINITY, f64::NEG_INFINITY, 1178.0)),
            "at most 1178 (95%; every game lost so far)"
        );
        assert_eq!(
            line(&placed(f64::INFINITY, 2300.0, f64::INFINITY)),
            "at least 2300 (95%; every game won so far)"
        );
        assert!(
            !line(&placed(f64::NEG_INFINITY, f64::NEG_INFINITY, f64::INFINITY)).contains("inf")
        );
    }
}
