//! The standings a run keeps game by game ([`Scoreboard`]) against a fresh count
//! of every game so far, after every game, in every format: round robin,
//! gauntlet, a two-bot match (what `arena sprt` plays), Swiss and knockout (each
//! round drawn from the results of the last). Results are random, end reasons
//! too (faults included), and games finish out of schedule order, as they do
//! with several games at once.

use rand::rngs::StdRng;
use rand::seq::SliceRandom as _;
use rand::{Rng as _, SeedableRng as _};
use ratings::{Analysis, FitOptions, head_to_head};
use uttt::result::{Decision, EndReason};
use uttt::rules::{Mark, Rules};

use super::draw::{DrawPlan, draw, results_by_id};
use super::format::{Drawn, Format};
use super::openings::Openings;
use super::schedule::{Plan, Schedule, ScheduledGame};
use crate::results::standings::{self, Scoreboard, to_result};
use crate::results::store::GameRow;

/// A finished row for `game` between `names`, with a random result.
fn finish(game: &ScheduledGame, names: &[String], rng: &mut StdRng) -> GameRow {
    let winner = match rng.random_range(0..3) {
        0 => Decision::Win(Mark::X),
        1 => Decision::Draw,
        _ => Decision::Win(Mark::O),
    };
    let reason = match winner {
        Decision::Draw => EndReason::NoMoves,
        Decision::Win(_) => EndReason::ALL[rng.random_range(0..EndReason::ALL.len())],
    };
    let reason = if reason == EndReason::NoMoves {
        EndReason::ThreeInARow
    } else {
        reason
    };
    let winner_name = match winner {
        Decision::Win(Mark::X) => names[game.x].clone(),
        Decision::Win(Mark::O) => names[game.o].clone(),
        Decision::Draw => String::new(),
    };
    GameRow {
        id: game.meta.id.clone(),
        round: game.meta.round,
        pair: game.meta.pair,
        x: names[game.x].clone(),
        o: names[game.o].clone(),
        opening: Vec::new(),
        winner,
        winner_name,
        reason,
        detail: String::new(),
        plies: 30,
        boards_x: 0,
        boards_o: 0,
        rules: Rules::STANDARD,
        duration_ms: 5,
        seed: game.meta.seed,
        x_version: String::new(),
        o_version: String::new(),
        x_cpu_share: None,
        o_cpu_share: None,
    }
}

/// `games` in a completion order: each game finishes among the next few
/// scheduled (as with four games at once).
fn out_of_order(mut games: Vec<ScheduledGame>, rng: &mut StdRng) -> Vec<ScheduledGame> {
    for window in games.chunks_mut(4) {
        window.shuffle(rng);
    }
    games
}

/// Counts `rows` into a scoreboard one at a time and checks it against a fresh
/// count of the rows so far after each.
fn check(rows: &[GameRow]) {
    let mut board = Scoreboard::default();
    let options = FitOptions::default();
    for (n, row) in rows.iter().enumerate() {
        board.add(row).unwrap();
        let so_far = &rows[..=n];
        let fresh = standings::build(so_far, &options).unwrap();
        assert_eq!(
            board.analysis(&options).unwrap(),
            fresh,
            "after game {}",
            n + 1
        );
        let again = Scoreboard::of(so_far).unwrap();
        assert_eq!(board.leader(), again.leader());
        for bot in board.totals().names() {
            let counted = fresh.standings.bot(bot).map(|b| b.record.total);
            assert_eq!(Some(board.score(bot)), counted);
        }
        // What `arena sprt` follows: the first two bots head to head.
        let results: Vec<_> = so_far.iter().map(|r| to_result(r, 0).unwrap()).collect();
        assert_eq!(
            board.totals().pairing(&row.x, &row.o),
            head_to_head(&results, &row.x, &row.o)
        );
        let failures = so_far
            .iter()
            .filter(|r| r.reason == EndReason::HandshakeFailure)
            .count();
        assert_eq!(board.start_failures().map_or(0, |f| f.0), failures as u64);
    }
    // The whole run, once more, against the analysis of the games as a slice.
    let results: Vec<_> = rows.iter().map(|r| to_result(r, 0).unwrap()).collect();
    assert_eq!(
        board.analysis(&FitOptions::default()).unwrap(),
        Analysis::build(&results, &FitOptions::default()).unwrap()
    );
}

fn names(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("bot{i}")).collect()
}

fn fixed(format: Format, bots: usize, games_per_pairing: u32, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let names = names(bots);
    let schedule = Schedule::new(
        Plan {
            bots,
            format,
            games_per_pairing,
            openings: Openings::None,
            rules: Rules::STANDARD,
            seed,
        },
        None,
    )
    .unwrap();
    let games = out_of_order(schedule.games().collect(), &mut rng);
    let rows: Vec<GameRow> = games.iter().map(|g| finish(g, &names, &mut rng)).collect();
    check(&rows);
}

fn drawn(format: Drawn, bots: usize, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let names = names(bots);
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let plan = DrawPlan {
        bots,
        format,
        games_per_pairing: 2,
        openings: Openings::None,
        rules: Rules::STANDARD,
        seed,
    };
    let mut rows: Vec<GameRow> = Vec::new();
    loop {
        let so_far = draw(&plan, &results_by_id(&refs, &rows));
        let finished = results_by_id(&refs, &rows);
        let new: Vec<ScheduledGame> = so_far
            .games
            .into_iter()
            .filter(|g| !finished.contains_key(&g.meta.id))
            .collect();
        if new.is_empty() {
            break;
        }
        for game in out_of_order(new, &mut rng) {
            rows.push(finish(&game, &names, &mut rng));
        }
    }
    assert!(rows.len() >= bots, "{} games", rows.len());
    check(&rows);
}

#[test]
fn a_round_robin_gauntlet_and_match_keep_the_standings_a_fresh_count_gives() {
    for seed in 1..=3 {
        fixed(Format::RoundRobin, 5, 6, seed);
        fixed(Format::Gauntlet { challenger: 0 }, 4, 8, seed);
        // Odd games per pairing: each pairing's last pair stays open.
        fixed(Format::RoundRobin, 2, 41, seed);
    }
}

#[test]
fn a_swiss_and_a_knockout_keep_the_standings_a_fresh_count_gives() {
    for seed in 1..=3 {
        drawn(Drawn::Swiss { rounds: 4 }, 7, seed);
        drawn(Drawn::Knockout { tiebreak_pairs: 2 }, 6, seed);
    }
}
