//! The fair clock (issue 34): a bot is charged the time the machine gave it, not
//! the time it sat in the run queue beside busy neighbours; a bot that thinks or
//! sleeps past its limit is still timed out; `--clock wall` keeps the old rule and
//! `--clock cpu` charges CPU time alone. Each test that needs the scheduler's
//! per-task counters is ignored, saying why, on a host without them.
//!
//! The bots are the arena's own benchmark helpers: `__burner --cpu-ms N` spins
//! until its thread has used N ms of CPU before each move (an honest bot whose
//! search needs that much computing), `__sleeper --delay-ms N` sleeps N ms.

use std::process::Command;

use uttt_tests::busy::Spinners;
use uttt_tests::{MatchRun, Row, arena_bin, arena_text, quote, run_match};

/// Why the fair clock cannot be tested here, if it cannot.
fn unmeasurable() -> Option<String> {
    let tid = std::fs::read_link("/proc/thread-self")
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()));
    let readable = tid.is_some_and(|tid| {
        std::fs::read_to_string(format!("/proc/self/task/{tid}/schedstat"))
            .is_ok_and(|s| s.split_ascii_whitespace().count() >= 3)
    });
    (!readable).then(|| "no per-task schedstat (/proc/PID/task/TID/schedstat) on this host".into())
}

/// The tests that measure are ignored where `tests/build.rs` found no per-task
/// counters (`#[cfg_attr(not(has_schedstat), ignore = …)]`); this fails one run on a
/// host without them although they were there when it was built, rather than let it
/// pass unmeasured.
macro_rules! needs_schedstat {
    () => {
        if let Some(why) = unmeasurable() {
            panic!("{why}, although tests/build.rs found it when this test was built");
        }
        // The fair and CPU clocks also need a cgroup per bot (they are refused
        // where a bot could hide its work from them), which only the running
        // arena can tell.
        if let Some(why) = no_group_per_bot() {
            uttt_tests::prerequisites::say_skipped(&why);
            return;
        }
    };
}

/// Why the arena cannot make a cgroup per bot here, if it cannot: its
/// doctor's clock line.
fn no_group_per_bot() -> Option<String> {
    let (_, stdout, _) = arena_text(&["doctor"]);
    let line = stdout
        .lines()
        .find(|l| l.starts_with("clock:"))
        .unwrap_or_default()
        .to_string();
    (!line.contains("a cgroup per bot yes")).then(|| {
        format!("the fair and CPU clocks need a cgroup per bot, which this machine does not give: {line}")
    })
}

/// `arena HELPER ARGS…` as a bot spec.
fn helper(args: &str) -> String {
    format!("{} {args}", quote(&arena_bin().to_string_lossy()))
}

fn has_taskset() -> bool {
    Command::new("taskset")
        .args(["-c", "0", "true"])
        .status()
        .is_ok_and(|s| s.success())
}

/// The games `name` lost by a timeout.
fn timeouts_of(run: &MatchRun, name: &str) -> Vec<Row> {
    run.games
        .iter()
        .filter(|g| {
            g["reason"] == "timeout" && g["winner_name"] != name && !g["winner_name"].is_empty()
        })
        .filter(|g| g["x"] == name || g["o"] == name)
        .cloned()
        .collect()
}

fn millis(row: &Row, column: &str) -> Option<f64> {
    row.get(column).and_then(|v| v.parse().ok())
}

#[test]
#[cfg_attr(
    not(has_schedstat),
    ignore = "needs the kernel's per-task schedstat (/proc/PID/task/TID/schedstat)"
)]
fn a_bot_pinned_beside_spinners_wins_no_timeout_by_the_fair_clock_and_loses_by_the_wall_clock() {
    needs_schedstat!();
    assert!(
        has_taskset(),
        "no taskset to pin the bot and the busy loops to one core: apt-get install util-linux"
    );
    // 80 ms of CPU a move at 100 ms + 20 ms: four busy loops on its core leave it
    // about a fifth of it, so each move takes some 400 ms by the wall clock.
    let _spinners = Spinners::pinned(0, 4);
    let honest = format!("honest=taskset -c 0 {}", helper("__burner --cpu-ms 80"));
    let quick = format!("quick={}", helper("__instant"));
    // The clock is what is tested: the governor, which would raise the bot's
    // priority above the busy loops, stays off.
    let common = [
        "--time",
        "100",
        "--margin",
        "20",
        "--games",
        "2",
        "--sandbox",
        "none",
        "--governor",
        "off",
    ];

    let fair = run_match(
        &honest,
        &quick,
        &[&common[..], &["--clock", "fair"]].concat(),
    );
    assert_eq!(fair.code, Some(0), "{}", fair.stderr);
    assert!(
        fair.stderr
            .contains("warning: the machine was overloaded: bots waited for a CPU"),
        "{}",
        fair.stderr
    );
    assert!(
        fair.stdout.contains("Machine: bots waited for a CPU"),
        "{}",
        fair.stdout
    );
    let summary = std::fs::read_to_string(fair.dir.path().join("summary.json")).expect("summary");
    assert!(summary.contains("\"waited_share\""), "{summary}");
    assert!(
        timeouts_of(&fair, "honest").is_empty(),
        "the fair clock charged the machine's load to the bot: {:?}",
        fair.games
    );
    let moves: Vec<&Row> = fair.moves.iter().filter(|m| m["bot"] == "honest").collect();
    assert!(!moves.is_empty());
    for m in &moves {
        let (think, charged) = (millis(m, "think_ms"), millis(m, "charged_ms"));
        let (cpu, wait) = (millis(m, "cpu_ms"), millis(m, "wait_ms"));
        assert!(
            think.is_some() && charged.is_some() && cpu.is_some() && wait.is_some(),
            "the clock's columns are filled: {m:?}"
        );
        assert!(millis(m, "late_ms").is_some(), "{m:?}");
    }
    assert!(
        moves.iter().any(|m| millis(m, "wait_ms") > Some(100.0)),
        "the bot waited for its core: {moves:?}"
    );
    assert!(
        moves.iter().all(|m| millis(m, "charged_ms") <= Some(120.0)),
        "{moves:?}"
    );

    let wall = run_match(
        &honest,
        &quick,
        &[&common[..], &["--clock", "wall"]].concat(),
    );
    assert_eq!(wall.code, Some(0), "{}", wall.stderr);
    let lost = timeouts_of(&wall, "honest");
    assert_eq!(
        lost.len(),
        2,
        "the wall clock times it out: {:?}",
        wall.games
    );
    assert!(lost[0]["detail"].contains("ran out of time"), "{lost:?}");
}

#[test]
#[cfg_attr(
    not(has_schedstat),
    ignore = "needs the kernel's per-task schedstat (/proc/PID/task/TID/schedstat)"
)]
fn a_bot_that_burns_half_again_its_limit_is_timed_out_by_every_clock() {
    needs_schedstat!();
    let greedy = format!("greedy={}", helper("__burner --cpu-ms 150"));
    let quick = format!("quick={}", helper("__instant"));
    for clock in ["fair", "wall", "cpu"] {
        let run = run_match(
            &greedy,
            &quick,
            &[
                "--time", "100", "--margin", "20", "--games", "2", "--clock", clock,
            ],
        );
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        let lost = timeouts_of(&run, "greedy");
        assert_eq!(lost.len(), 2, "--clock {clock}: {:?}", run.games);
        if clock != "wall" {
            assert!(
                lost[0]["detail"].contains(&format!("by the {clock} clock")),
                "{lost:?}"
            );
        }
    }
}

#[test]
#[cfg_attr(
    not(has_schedstat),
    ignore = "needs the kernel's per-task schedstat (/proc/PID/task/TID/schedstat)"
)]
fn a_bot_that_sleeps_half_again_its_limit_is_timed_out_by_the_fair_and_wall_clocks_not_cpu() {
    needs_schedstat!();
    let sleepy = format!("sleepy={}", helper("__sleeper --delay-ms 150"));
    let quick = format!("quick={}", helper("__instant"));
    let common = ["--time", "100", "--margin", "20", "--games", "2", "--clock"];
    for clock in ["fair", "wall"] {
        let run = run_match(&sleepy, &quick, &[&common[..], &[clock]].concat());
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        assert_eq!(
            timeouts_of(&run, "sleepy").len(),
            2,
            "--clock {clock}: {:?}",
            run.games
        );
    }
    let run = run_match(&sleepy, &quick, &[&common[..], &["cpu"]].concat());
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        timeouts_of(&run, "sleepy").is_empty(),
        "the CPU clock does not charge sleeping: {:?}",
        run.games
    );
    let slept: Vec<&Row> = run.moves.iter().filter(|m| m["bot"] == "sleepy").collect();
    assert!(
        slept
            .iter()
            .all(|m| millis(m, "think_ms") >= Some(150.0) && millis(m, "charged_ms") < Some(50.0)),
        "{slept:?}"
    );
}

#[test]
#[cfg_attr(
    not(has_schedstat),
    ignore = "needs the kernel's per-task schedstat (/proc/PID/task/TID/schedstat)"
)]
fn a_sleeper_is_timed_out_by_the_fair_clock_while_busy_loops_load_every_core() {
    needs_schedstat!();
    // Four busy loops a core, free to run anywhere: the referee's threads wait
    // in the run queue too, so replies are read late. The lateness is measured
    // (the reading thread's own wait), never enough to excuse a sleep.
    let cores = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
    let _spinners = Spinners::free(4 * cores);
    let sleepy = format!("sleepy={}", helper("__sleeper --delay-ms 150"));
    let quick = format!("quick={}", helper("__instant"));
    let run = run_match(
        &sleepy,
        &quick,
        &[
            "--time",
            "100",
            "--margin",
            "20",
            "--games",
            "4",
            "--clock",
            "fair",
            "--governor",
            "off",
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let lost = timeouts_of(&run, "sleepy");
    assert_eq!(lost.len(), 4, "{:?}", run.games);
    for game in &lost {
        assert!(
            game["detail"].contains("by the fair clock"),
            "{}",
            game["detail"]
        );
    }
}

#[test]
#[cfg_attr(
    not(has_schedstat),
    ignore = "needs the kernel's per-task schedstat (/proc/PID/task/TID/schedstat)"
)]
fn resuming_with_another_clock_is_refused_and_names_the_flag_that_resumes() {
    needs_schedstat!();
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().to_string_lossy().into_owned();
    let args = |clock: &str| {
        vec![
            "match".to_string(),
            "random".into(),
            "greedy".into(),
            "--games".into(),
            "2".into(),
            "--seed".into(),
            "5".into(),
            "--out".into(),
            out.clone(),
            "--clock".into(),
            clock.into(),
        ]
    };
    let run = |clock: &str| {
        let owned = args(clock);
        let words: Vec<&str> = owned.iter().map(String::as_str).collect();
        arena_text(&words)
    };
    let (code, _, stderr) = run("wall");
    assert_eq!(code, Some(0), "{stderr}");
    let manifest = std::fs::read_to_string(dir.path().join("tournament.json")).expect("manifest");
    assert!(manifest.contains("\"clock\": \"wall\""), "{manifest}");
    let (code, _, stderr) = run("fair");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("the wall clock there, the fair clock here: resume with --clock wall"),
        "{stderr}"
    );
    let (code, _, stderr) = run("wall");
    assert_eq!(code, Some(0), "the same clock resumes: {stderr}");
}

#[test]
fn a_tournament_file_sets_the_clock_under_time_and_a_wrong_word_names_the_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("t.toml");
    let write = |clock: &str| {
        std::fs::write(
            &file,
            format!(
                "name = \"t\"\nseed = 3\ngames = 2\n[time]\nmove-ms = 200\nclock = \"{clock}\"\n[[bot]]\nname = \"a\"\ncommand = \"random\"\n[[bot]]\nname = \"b\"\ncommand = \"greedy\"\n"
            ),
        )
        .expect("write the file");
    };
    write("wal");
    let path = file.to_string_lossy().into_owned();
    let out = dir.path().join("out").to_string_lossy().into_owned();
    let (code, _, stderr) = arena_text(&["tournament", &path, "--out", &out, "--quiet"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("t.toml:6: clock = \"wal\""), "{stderr}");
    assert!(
        stderr.contains("\"auto\", \"fair\", \"wall\" or \"cpu\""),
        "{stderr}"
    );
    write("wall");
    let (code, _, stderr) = arena_text(&["tournament", &path, "--out", &out, "--quiet"]);
    assert_eq!(code, Some(0), "{stderr}");
    let manifest =
        std::fs::read_to_string(dir.path().join("out").join("tournament.json")).expect("manifest");
    assert!(manifest.contains("\"clock\": \"wall\""), "{manifest}");
}
