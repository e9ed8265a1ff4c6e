//! No bot can buy time (issue 46): a bot is charged the CPU time of every
//! process it starts — alive, exited, or escaped from its process tree — and
//! of what it does on its opponent's time, whatever its own process does
//! meanwhile. Each cheat below did 10–20× the work of an honest bot at the
//! same limit and was never timed out before the clock counted the bot's
//! cgroup; now it must be timed out, or get at most 1.5× the honest work.
//!
//! The bots are C programs in `tests/bots/clock/`, built here with `cc`; each
//! reports its work for a move as `info nodes N` (see its README).

use std::path::PathBuf;
use std::process::Command;

use uttt_tests::prerequisites::say_skipped;
use uttt_tests::{MatchRun, Row, Tag, arena_text, assert_no_leftovers, repo_root, run_match};

/// The most work a cheat may get, in honest moves' work.
const MAX_RATIO: f64 = 1.5;

/// The built bots, in a directory every uid may read (the `user` layer runs
/// each bot under a uid of its own).
struct Bots {
    dir: tempfile::TempDir,
}

impl Bots {
    /// Builds the clock test bots, or says why they cannot be built here.
    fn build() -> Result<Bots, String> {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
            .map_err(|e| e.to_string())?;
        let sources = repo_root().join("tests").join("bots").join("clock");
        for bot in ["honest", "escape", "children"] {
            let status = Command::new("cc")
                .args(["-O2", "-Wall", "-o"])
                .arg(dir.path().join(bot))
                .arg(sources.join(format!("{bot}.c")))
                .status()
                .map_err(|e| format!("no C compiler (cc), which comes with g++: {e}"))?;
            if !status.success() {
                return Err(format!("cc could not build {bot}.c"));
            }
        }
        Ok(Bots { dir })
    }

    fn path(&self, bot: &str) -> PathBuf {
        self.dir.path().join(bot)
    }
}

/// Why a clock that charges by counters cannot be run here, if it cannot:
/// `arena doctor`'s clock line (a cgroup per bot is known only to the
/// running arena).
fn unmeasurable() -> Option<String> {
    let (code, stdout, stderr) = arena_text(&["doctor"]);
    let line = stdout
        .lines()
        .find(|l| l.starts_with("clock:"))
        .unwrap_or_default()
        .to_string();
    (code != Some(0) || !line.contains("--clock auto uses the fair clock"))
        .then(|| format!("auto does not use the fair clock here: {line}{stderr}"))
}

/// Skips the calling test, saying why (`SKIPPED …`, which `.ci/run` lists),
/// where the clock cannot count a bot's every process; else the built bots.
macro_rules! prerequisites {
    () => {{
        if let Some(why) = unmeasurable() {
            say_skipped(&why);
            return;
        }
        match Bots::build() {
            Ok(bots) => bots,
            Err(why) => panic!("{why}"),
        }
    }};
}

/// The mean work of `bot`'s moves, its first move of each game left out
/// (it has the first move's longer limit).
fn mean_work(run: &MatchRun, bot: &str) -> Option<f64> {
    let mut seen_games: Vec<&str> = Vec::new();
    let mut work = Vec::new();
    for row in run.moves.iter().filter(|r| r["bot"] == bot) {
        let game = row["game"].as_str();
        if !seen_games.contains(&game) {
            seen_games.push(game);
            continue;
        }
        if let Ok(n) = row["nodes"].parse::<f64>() {
            work.push(n);
        }
    }
    (!work.is_empty()).then(|| work.iter().sum::<f64>() / work.len() as f64)
}

/// Whether every game `bot` played ended with its loss on time.
fn always_timed_out(games: &[Row], bot: &str) -> bool {
    !games.is_empty()
        && games.iter().all(|g| {
            g["reason"] == "timeout" && g["winner_name"] != bot && !g["winner_name"].is_empty()
        })
}

/// Plays `cheat` (named `cheat`) against the honest bot at 100 ms a move and
/// checks the verdict: every game lost on time, or at most [`MAX_RATIO`]
/// times the honest bot's work a move.
fn assert_no_time_bought(bots: &Bots, cheat: &str, extra: &[&str], tag: &Tag) {
    let honest = format!("honest={} {}", bots.path("honest").display(), tag.0);
    let cheat_spec = format!("cheat={cheat} {}", tag.0);
    let mut args = vec!["-n", "2", "--time", "100", "--concurrency", "1"];
    args.extend_from_slice(extra);
    let run = run_match(&honest, &cheat_spec, &args);
    assert!(
        matches!(run.code, Some(0) | Some(1)),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    assert_eq!(run.games.len(), 2, "{}\n{}", run.stdout, run.stderr);
    let timed_out = always_timed_out(&run.games, "cheat");
    let honest_work = mean_work(&run, "honest");
    let cheat_work = mean_work(&run, "cheat");
    let ratio = honest_work.zip(cheat_work).map(|(h, c)| c / h.max(1.0));
    assert!(
        timed_out || ratio.is_some_and(|r| r <= MAX_RATIO),
        "`{cheat}` ({extra:?}) bought time: timed out in every game: {timed_out}; work a move {cheat_work:?} against the honest bot's {honest_work:?} (ratio {ratio:?})\n{}\n{}",
        run.stdout,
        run.stderr
    );
    assert_no_leftovers(tag);
}

/// The two cheats of the issue, each with a main process that yields: helpers
/// that escaped its tree, and children that live 3 ms each.
fn cheats(bots: &Bots) -> [String; 2] {
    [
        format!("{} 2 1500 steady", bots.path("escape").display()),
        format!("{} 4 1500 3", bots.path("children").display()),
    ]
}

fn assert_cheats_caught(extra: &[&str]) {
    let bots = prerequisites!();
    let tag = Tag::new();
    for cheat in cheats(&bots) {
        assert_no_time_bought(&bots, &cheat, extra, &tag);
    }
}

#[test]
#[cfg_attr(
    not(has_schedstat),
    ignore = "needs the kernel's per-task schedstat (/proc/PID/task/TID/schedstat)"
)]
fn helpers_out_of_the_tree_and_3_ms_children_buy_no_time_under_auto() {
    assert_cheats_caught(&[]);
}

#[test]
#[cfg_attr(
    not(has_schedstat),
    ignore = "needs the kernel's per-task schedstat (/proc/PID/task/TID/schedstat)"
)]
fn helpers_out_of_the_tree_and_3_ms_children_buy_no_time_under_the_cpu_clock() {
    assert_cheats_caught(&["--clock", "cpu"]);
}

#[test]
#[cfg_attr(
    not(has_schedstat),
    ignore = "needs the kernel's per-task schedstat (/proc/PID/task/TID/schedstat)"
)]
fn helpers_out_of_the_tree_and_3_ms_children_buy_no_time_with_no_sandbox() {
    assert_cheats_caught(&["--sandbox", "none"]);
}

/// The layers `auto` uses here, from `arena doctor`.
fn auto_layers() -> Vec<String> {
    let (_, stdout, _) = arena_text(&["doctor"]);
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("auto uses: "))
        .map(|l| l.split(',').map(str::to_string).collect())
        .unwrap_or_default()
}

#[test]
#[cfg_attr(
    not(has_schedstat),
    ignore = "needs the kernel's per-task schedstat (/proc/PID/task/TID/schedstat)"
)]
fn helpers_out_of_the_tree_and_3_ms_children_buy_no_time_with_and_without_bubblewrap() {
    let layers = auto_layers();
    if !layers.iter().any(|l| l == "bwrap") {
        say_skipped("bubblewrap is not available here: apt-get install bubblewrap");
        return;
    }
    let with = layers.join(",");
    let without = layers
        .iter()
        .filter(|l| *l != "bwrap")
        .cloned()
        .collect::<Vec<_>>()
        .join(",");
    assert_cheats_caught(&["--sandbox", &with]);
    assert_cheats_caught(&["--sandbox", &without]);
}

#[test]
#[cfg_attr(
    not(has_schedstat),
    ignore = "needs the kernel's per-task schedstat (/proc/PID/task/TID/schedstat)"
)]
fn work_done_on_the_opponents_time_is_charged_to_the_next_move() {
    let bots = prerequisites!();
    let tag = Tag::new();
    // Helpers that work all the time; the main process answers in 5 ms.
    let ponder = format!("{} 2 5 ponder", bots.path("escape").display());
    assert_no_time_bought(&bots, &ponder, &[], &tag);
}

#[test]
#[cfg_attr(
    not(has_schedstat),
    ignore = "needs the kernel's per-task schedstat (/proc/PID/task/TID/schedstat)"
)]
fn an_honest_bot_is_charged_about_its_thinking() {
    let bots = prerequisites!();
    let tag = Tag::new();
    let honest = |name: &str| format!("{name}={} {}", bots.path("honest").display(), tag.0);
    let run = run_match(
        &honest("a"),
        &honest("b"),
        &["-n", "2", "--time", "100", "--concurrency", "1"],
    );
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.games.iter().all(|g| g["reason"] != "timeout"),
        "{}",
        run.stdout
    );
    // Each move thinks 80 ms by the wall clock in one thread: it is charged
    // at most its wall time and about its CPU time, never helpers it has not.
    for row in run.moves.iter().filter(|r| !r["charged_ms"].is_empty()) {
        let charged: f64 = row["charged_ms"].parse().unwrap_or(f64::MAX);
        let think: f64 = row["think_ms"].parse().unwrap_or(0.0);
        assert!(charged <= think + 1.0, "{row:?}");
    }
    assert_no_leftovers(&tag);
}
