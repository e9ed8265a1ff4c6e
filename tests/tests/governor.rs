//! The governor (issue 50): a bot that thinks by the clock plays only when it
//! gets the CPU it was promised. Beside four busy programs a core (each in a
//! session of its own, as other users' programs are), `mcts` at 50 ms gets
//! almost all the CPU it asks for when the arena may raise its priority (root)
//! and a fraction of it with `--governor off`; where the arena may not, an
//! under-served game is played again and a verdict that would rest on it says
//! the machine was overloaded (exit 5) instead of passing or failing.

use std::process::Command;

use uttt_tests::busy::Spinners;
use uttt_tests::{Row, arena_bin, read_csv};

/// `arena ARGS…` (through `prefix`, e.g. `setpriv …`): exit code, stdout,
/// stderr, and the rows of `dir`'s games.csv.
#[allow(clippy::expect_used)]
fn arena_in(
    prefix: &[&str],
    args: &[&str],
    dir: &std::path::Path,
) -> (Option<i32>, String, String, Vec<Row>) {
    let mut command = match prefix.split_first() {
        Some((program, rest)) => {
            let mut c = Command::new(program);
            c.args(rest).arg(arena_bin());
            c
        }
        None => Command::new(arena_bin()),
    };
    let out = command
        .args(args)
        .arg("--out")
        .arg(dir)
        .output()
        .expect("arena runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        read_csv(&dir.join("games.csv")),
    )
}

/// `mcts`'s CPU shares in `games` (it plays every game).
fn mcts_shares(games: &[Row]) -> Vec<f64> {
    games
        .iter()
        .filter_map(|g| {
            let column = if g["x"] == "mcts" {
                "x_cpu_share"
            } else {
                "o_cpu_share"
            };
            g[column].parse().ok()
        })
        .collect()
}

#[allow(clippy::expect_used)]
fn summary(dir: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(
        &std::fs::read_to_string(dir.join("summary.json")).expect("summary.json is written"),
    )
    .expect("summary.json reads")
}

#[test]
#[cfg_attr(
    not(all(as_root, has_schedstat)),
    ignore = "needs root (only root may raise a bot's priority) and the kernel's per-task schedstat"
)]
fn a_timed_bot_beside_busy_programs_gets_its_cpu_with_the_governor_and_a_fraction_without() {
    let _busy = Spinners::per_core(4);
    let play = [
        "match",
        "mcts",
        "greedy",
        "-n",
        "2",
        "--time",
        "50",
        "--random-plies",
        "16",
        "--seed",
        "1",
    ];
    let on = tempfile::tempdir().expect("a directory");
    let (code, stdout, stderr, games) = arena_in(&[], &play, on.path());
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let shares = mcts_shares(&games);
    assert_eq!(shares.len(), 2, "{games:?}");
    assert!(
        shares.iter().all(|&s| s >= 0.8),
        "with the governor mcts gets its CPU: {shares:?}\n{stderr}"
    );
    // greedy plays at fixed work: its share decides nothing, so it is never
    // the reason a game is played again.
    assert!(!stderr.contains("greedy got"), "{stderr}");
    let governor = &summary(on.path())["governor"];
    assert_eq!(governor["priority_raised"], true, "{governor}");
    assert_eq!(governor["active"], true);

    let off = tempfile::tempdir().expect("a directory");
    let (code, stdout, stderr, games) = arena_in(
        &[],
        &[&play[..], &["--governor", "off"]].concat(),
        off.path(),
    );
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let shares = mcts_shares(&games);
    assert!(
        shares.iter().all(|&s| s < 0.8),
        "without it mcts shares the cores with the busy programs: {shares:?}"
    );
    assert_eq!(summary(off.path())["governor"]["active"], false);
}

#[test]
#[cfg_attr(
    not(all(as_root, has_schedstat)),
    ignore = "needs root (to run the arena without CAP_SYS_NICE through setpriv) and the kernel's per-task schedstat"
)]
fn where_priorities_cannot_be_raised_an_under_served_game_is_replayed_and_no_verdict_is_stated() {
    let _busy = Spinners::per_core(4);
    // Root without CAP_SYS_NICE: as an ordinary user, the arena may not raise
    // a bot's priority.
    let unprivileged = [
        "setpriv",
        "--bounding-set",
        "-sys_nice",
        "--inh-caps",
        "-sys_nice",
    ];
    let gauntlet = [
        "gauntlet",
        "mcts",
        "--against",
        "greedy",
        "-n",
        "2",
        "--time",
        "50",
        "--random-plies",
        "16",
        "--seed",
        "1",
        "--min-score",
        "0.5",
        "--governor-wait",
        "1",
    ];
    let dir = tempfile::tempdir().expect("a directory");
    let (code, stdout, stderr, games) = arena_in(&unprivileged, &gauntlet, dir.path());
    assert_eq!(code, Some(5), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("mcts got ")
            && stderr
                .contains("of the CPU it asked for (under 80%): playing the game again (1 of 3)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("inconclusive: the machine was overloaded: in ")
            && stderr.contains("run the arena as root"),
        "{stderr}"
    );
    assert!(
        !stdout.contains("PASS") && !stdout.contains("FAIL"),
        "{stdout}"
    );
    assert_eq!(games.len(), 2, "the replays are not recorded: {games:?}");
    let s = summary(dir.path());
    assert_eq!(s["exit_code"], 5);
    assert_eq!(s["governor"]["priority_raised"], false, "{}", s["governor"]);
    assert!(
        s["governor"]["replays"].as_u64().is_some_and(|r| r >= 3),
        "{}",
        s["governor"]
    );
    assert!(
        s["machine"]["games_under_served"]
            .as_u64()
            .is_some_and(|n| n >= 1)
    );

    // Without the governor nothing is replayed, and still no verdict is stated.
    let off = tempfile::tempdir().expect("a directory");
    let (code, stdout, stderr, _) = arena_in(
        &unprivileged,
        &[&gauntlet[..], &["--governor", "off"]].concat(),
        off.path(),
    );
    assert_eq!(code, Some(5), "{stdout}\n{stderr}");
    assert!(!stderr.contains("playing the game again"), "{stderr}");
    assert_eq!(summary(off.path())["governor"]["replays"], 0);
}
