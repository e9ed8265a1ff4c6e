//! The numbers of the rating fit on small tournaments of every kind, pinned as the
//! dense implementation (Newton's method with a Cholesky factorisation at every
//! step, the full inverse of the information) gave them, before the fit learned to
//! scale with the number of bots. Whatever the fit does inside, these must not
//! move: each bot's rating and error, the X advantage, the dispersion, the prior,
//! the notes, and every covariance within a group.
//!
//! `testdata/pinned_fits.txt` holds one block per tournament; numbers are compared
//! to 1e-6 (Elo, Elo²), far below what any table shows (0.01 Elo).

use super::bradley_terry::{Anchor, FitOptions, FixedRating, Prior, Standings, VirtualDraws};
use super::model::{Decision, GameResult, PairKey};
use super::simulation::{Simulator, game};

/// True ratings, spread over 600 Elo.
fn truth(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| -300.0 + 600.0 * i as f64 / (n - 1) as f64)
        .collect()
}

/// The tournaments, by name, with the options they are fitted with.
fn scenarios() -> Vec<(&'static str, Vec<GameResult>, FitOptions)> {
    let default = FitOptions::default;
    let mut out = vec![(
        "round-robin",
        Simulator::new(1, 0.3).round_robin(&truth(6), 40.0, 3),
        default(),
    )];
    out.push((
        "random-pairs",
        Simulator::new(2, 0.25).random_pairs(&truth(15), 30.0, 60),
        default(),
    ));
    out.push((
        "anchored-bots",
        Simulator::new(3, 0.2).random_pairs(&truth(10), 30.0, 50),
        FitOptions {
            anchor: Anchor::Bots(vec![
                FixedRating {
                    name: "b0".into(),
                    elo: 0.0,
                },
                FixedRating {
                    name: "b3".into(),
                    elo: 300.0,
                },
            ]),
            ..FitOptions::default()
        },
    ));
    out.push((
        "anchored-bot",
        Simulator::new(4, 0.2).random_pairs(&truth(8), 30.0, 40),
        FitOptions {
            anchor: Anchor::Bot {
                name: "b5".into(),
                elo: 1500.0,
            },
            ..FitOptions::default()
        },
    ));
    out.push((
        "requested-prior",
        Simulator::new(5, 0.3).random_pairs(&truth(9), 30.0, 30),
        FitOptions {
            prior: Prior::VirtualDraws(VirtualDraws::new(2.0).unwrap()),
            ..FitOptions::default()
        },
    ));
    // Each pairing with one colour only: the X advantage cannot be told from the
    // ratings.
    let one_colour: Vec<GameResult> = Simulator::new(6, 0.3)
        .random_pairs(&truth(7), 30.0, 25)
        .into_iter()
        .filter(|g| g.x() < g.o())
        .collect();
    out.push(("one-colour-random", one_colour, default()));
    // A chain of bots, each pairing with one colour only: X's edge and the
    // ratings' gaps cannot be told apart.
    let mut sim = Simulator::new(10, 0.3);
    let chain: Vec<GameResult> = (0..4)
        .flat_map(|i| (0..6).map(move |_| i))
        .map(|i| {
            let decision = sim.decision(40.0 - 50.0 * i as f64);
            game(&format!("b{i}"), &format!("b{}", i + 1), decision)
        })
        .collect();
    out.push(("one-colour-chain", chain, default()));
    // A bot that won every game: no finite maximum.
    let mut won_all = Simulator::new(7, 0.3).random_pairs(&truth(6), 30.0, 20);
    for (k, opponent) in ["b0", "b2", "b4"].into_iter().enumerate() {
        let key = PairKey(1000 + k as u64);
        won_all.push(game("top", opponent, Decision::Win(uttt::rules::Mark::X)).with_pair(key));
        won_all.push(game(opponent, "top", Decision::Win(uttt::rules::Mark::O)).with_pair(key));
    }
    out.push(("won-all", won_all, default()));
    // Two groups that never met.
    let mut apart = Simulator::new(8, 0.3).round_robin(&truth(4), 40.0, 2);
    let other: Vec<GameResult> = Simulator::new(9, 0.3)
        .round_robin(&truth(3), 40.0, 2)
        .into_iter()
        .map(|g| rename(&g, "c"))
        .collect();
    apart.extend(other);
    out.push(("disconnected", apart, default()));
    out
}

/// `g` with its bots `b…` renamed `prefix…`.
fn rename(g: &GameResult, prefix: &str) -> GameResult {
    let swap = |name: &str| name.replacen('b', prefix, 1);
    let renamed = GameResult::new(swap(g.x()), swap(g.o()), g.ending().clone()).unwrap();
    match g.pair() {
        Some(key) => renamed.with_pair(key),
        None => renamed,
    }
}

/// Every number of a fit, one per line, as `label value`.
fn digest(s: &Standings) -> Vec<(String, String)> {
    let mut lines = vec![
        ("prior".to_owned(), format!("{:?}", s.prior())),
        ("dispersion".to_owned(), format!("{:.9}", s.dispersion())),
    ];
    for note in s.notes() {
        lines.push(("note".to_owned(), note.to_string()));
    }
    if let Some(h) = s.x_advantage() {
        lines.push(("x".to_owned(), format!("{:.9} {:.9}", h.elo, h.std_error)));
    }
    for (i, bot) in s.bots().iter().enumerate() {
        lines.push((
            format!("bot {} {}", i, bot.name()),
            format!(
                "{:.9} {:.9} {}",
                bot.rating.elo, bot.rating.std_error, bot.component
            ),
        ));
        for j in 0..s.bots().len() {
            if let Some(c) = s.covariance(i, j) {
                lines.push((format!("cov {i} {j}"), format!("{c:.9}")));
            }
        }
    }
    lines
}

fn text(name: &str, s: &Standings) -> String {
    let mut out = format!("== {name}\n");
    for (label, value) in digest(s) {
        out.push_str(&format!("{label}: {value}\n"));
    }
    out
}

/// Whether two values of a line agree: equal text, or numbers within 1e-6.
fn agree(expected: &str, got: &str) -> bool {
    if expected == got {
        return true;
    }
    let numbers =
        |t: &str| -> Option<Vec<f64>> { t.split(' ').map(|w| w.parse::<f64>().ok()).collect() };
    match (numbers(expected), numbers(got)) {
        (Some(e), Some(g)) if e.len() == g.len() => e
            .iter()
            .zip(&g)
            .all(|(e, g)| (e - g).abs() <= 1e-6 * e.abs().max(1.0)),
        _ => false,
    }
}

#[test]
fn the_fit_gives_the_pinned_numbers() {
    let pinned = include_str!("testdata/pinned_fits.txt");
    let mut got = String::new();
    for (name, games, options) in scenarios() {
        let s = Standings::fit(&games, &options).unwrap();
        got.push_str(&text(name, &s));
    }
    if std::env::var_os("RATINGS_PRINT_PINNED").is_some() {
        print!("{got}");
    }
    let expected: Vec<&str> = pinned.lines().collect();
    let lines: Vec<&str> = got.lines().collect();
    assert_eq!(expected.len(), lines.len(), "the number of pinned lines");
    for (e, g) in expected.iter().zip(&lines) {
        let (e_label, e_value) = e.split_once(": ").unwrap_or((e, ""));
        let (g_label, g_value) = g.split_once(": ").unwrap_or((g, ""));
        assert_eq!(e_label, g_label);
        assert!(
            agree(e_value, g_value),
            "{e_label}: pinned {e_value}, got {g_value}"
        );
    }
}
