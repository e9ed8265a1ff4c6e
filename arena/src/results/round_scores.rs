//! Each pairing's points in a round, counted game by game: what the live page
//! shows of a Swiss round or a knockout match still in play. Kept for the two
//! newest rounds only, so a page beside a long run holds as much as a round has
//! pairings, however many games the directory holds (an event's rounds are
//! played one after another: an older round has nothing left in play).

use std::collections::HashMap;

use uttt::result::Decision;

use super::store::GameRow;

/// Points of the bot whose name sorts first, of the other, and games.
type Tally = (f64, f64, u32);

/// The pairings' points in the newest rounds.
#[derive(Debug, Default)]
pub struct RoundScores {
    /// (round, first name, second name) in name order.
    by_pair: HashMap<(u32, String, String), Tally>,
    /// The newest round counted.
    newest: u32,
}

impl RoundScores {
    /// The scores of `rows`, counted in order.
    pub fn of<'a>(rows: impl IntoIterator<Item = &'a GameRow>) -> RoundScores {
        let mut scores = RoundScores::default();
        for row in rows {
            scores.add(row);
        }
        scores
    }

    /// Counts one finished game (a game of a round older than the one before
    /// the newest is not kept).
    pub fn add(&mut self, row: &GameRow) {
        if row.round + 1 < self.newest {
            return;
        }
        if row.round > self.newest {
            self.newest = row.round;
            let keep_from = self.newest.saturating_sub(1);
            self.by_pair.retain(|(round, _, _), _| *round >= keep_from);
        }
        let x_first = row.x <= row.o;
        let (first, second) = if x_first {
            (&row.x, &row.o)
        } else {
            (&row.o, &row.x)
        };
        let tally = self
            .by_pair
            .entry((row.round, first.clone(), second.clone()))
            .or_default();
        tally.2 += 1;
        match row.winner {
            Decision::Draw => {
                tally.0 += 0.5;
                tally.1 += 0.5;
            }
            Decision::Win(w) => {
                let first_won = (w == uttt::rules::Mark::X) == x_first;
                if first_won {
                    tally.0 += 1.0;
                } else {
                    tally.1 += 1.0;
                }
            }
        }
    }

    /// `a`'s points, `b`'s points and the games between them in `round`
    /// (nothing counted: zeros).
    pub fn get(&self, round: u32, a: &str, b: &str) -> (f64, f64, u32) {
        let (first, second, swapped) = if a <= b { (a, b, false) } else { (b, a, true) };
        let (p, q, games) = self
            .by_pair
            .get(&(round, first.to_string(), second.to_string()))
            .copied()
            .unwrap_or_default();
        if swapped {
            (q, p, games)
        } else {
            (p, q, games)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use uttt::rules::Mark;

    fn row(round: u32, x: &str, o: &str, winner: Decision) -> GameRow {
        GameRow {
            id: format!("G{round}{x}{o}"),
            round,
            ..GameRow::sample(x, o, winner)
        }
    }

    /// What a scan of every row gives (the page's count before it was kept
    /// game by game).
    fn scanned(rows: &[GameRow], round: u32, a: &str, b: &str) -> (f64, f64, u32) {
        let (mut pa, mut pb, mut n) = (0.0, 0.0, 0);
        for g in rows.iter().filter(|g| g.round == round) {
            let (Some(sa), Some(_)) = (g.seat_of(a), g.seat_of(b)) else {
                continue;
            };
            n += 1;
            match g.winner {
                Decision::Draw => {
                    pa += 0.5;
                    pb += 0.5;
                }
                Decision::Win(w) if w == sa => pa += 1.0,
                Decision::Win(_) => pb += 1.0,
            }
        }
        (pa, pb, n)
    }

    proptest! {
        #[test]
        fn the_newest_rounds_count_as_a_scan_of_every_game(
            games in proptest::collection::vec((0u32..2, 0usize..4, 0usize..4, 0u8..3), 0..60)
        ) {
            let names = ["ada", "bob", "cyd", "dan"];
            let mut round = 1;
            let mut rows = Vec::new();
            for (step, a, b, w) in games {
                round += step;
                if a == b { continue; }
                let winner = match w { 0 => Decision::Draw, 1 => Decision::Win(Mark::X), _ => Decision::Win(Mark::O) };
                rows.push(row(round, names[a], names[b], winner));
            }
            let scores = RoundScores::of(&rows);
            for r in [round, round.saturating_sub(1)] {
                for a in names {
                    for b in names {
                        if a != b {
                            prop_assert_eq!(scores.get(r, a, b), scanned(&rows, r, a, b));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn older_rounds_are_let_go() {
        let rows = [
            row(1, "ada", "bob", Decision::Win(Mark::X)),
            row(2, "bob", "ada", Decision::Draw),
            row(3, "ada", "bob", Decision::Win(Mark::O)),
        ];
        let scores = RoundScores::of(&rows);
        assert_eq!(scores.get(1, "ada", "bob"), (0.0, 0.0, 0));
        assert_eq!(scores.get(2, "ada", "bob"), (0.5, 0.5, 1));
        assert_eq!(scores.get(3, "bob", "ada"), (1.0, 0.0, 1));
    }
}
