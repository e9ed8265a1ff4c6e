//! Schedules far larger than anything that will be played — a billion-game match, a
//! round robin of 10,000 bots — start at once and play in memory that does not grow
//! with the games still to play: the arena runs under an address-space limit
//! (`prlimit --as`) far below what a list of the whole schedule takes, plays two
//! games, and is interrupted as with Ctrl-C. Resuming such a run, and playing one
//! shard of it, stay within the same limit.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use uttt_tests::{arena_bin, read_csv};

/// The address space the arena (and the bots it starts) may map. A normal run maps a
/// few hundred MiB (thread stacks and malloc arenas are mostly reservations); a
/// listed schedule of 10^8 games needs about 10 GiB. In bytes.
const ADDRESS_SPACE: u64 = 2 << 30;

/// Only a guard against a hung run: the runs here take seconds.
const HANG_GUARD: Duration = Duration::from_secs(300);

/// Runs `arena ARGS…` under [`ADDRESS_SPACE`] until `games.csv` in `out` holds
/// `rows` rows, then interrupts it (SIGINT, as Ctrl-C) and returns its output. A run
/// that ends before is returned as it ended.
fn play_until(args: &[&str], out: &Path, rows: usize) -> Output {
    // The output goes to files, not pipes: nobody reads a pipe until the run ends,
    // and a 10,000-bot banner alone would fill one.
    let logs = tempfile::tempdir().expect("a directory for the output");
    let (stdout, stderr) = (logs.path().join("stdout"), logs.path().join("stderr"));
    let file = |path: &Path| std::fs::File::create(path).expect("an output file");
    let child = Command::new("prlimit")
        .arg(format!("--as={ADDRESS_SPACE}"))
        .arg("--")
        .arg(arena_bin())
        .args(args)
        .stdout(Stdio::from(file(&stdout)))
        .stderr(Stdio::from(file(&stderr)))
        .spawn()
        .expect("prlimit (util-linux) runs the arena");
    let pid = Pid::from_raw(i32::try_from(child.id()).expect("a pid"));
    let started = Instant::now();
    let mut child = child;
    loop {
        if child.try_wait().expect("waiting for the arena").is_some() {
            break;
        }
        if read_csv(&out.join("games.csv")).len() >= rows {
            kill(pid, Signal::SIGINT).expect("interrupting the arena");
            break;
        }
        if started.elapsed() > HANG_GUARD {
            let _ = child.kill();
            panic!("the arena did not play {rows} games in {HANG_GUARD:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = child.wait().expect("waiting for the arena");
    Output {
        status,
        stdout: std::fs::read(&stdout).expect("the arena's stdout"),
        stderr: std::fs::read(&stderr).expect("the arena's stderr"),
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[track_caller]
fn assert_interrupted_after_playing(output: &Output, out: &Path, rows: usize) {
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    let played = read_csv(&out.join("games.csv")).len();
    assert!(
        played >= rows,
        "{played} games played before the arena ended ({:?}):\n{stdout}\n{stderr}",
        output.status
    );
    assert_eq!(
        output.status.code(),
        Some(130),
        "interrupted:\n{stdout}\n{stderr}"
    );
}

fn games_total(out: &Path) -> u64 {
    let manifest = std::fs::read_to_string(out.join("tournament.json")).expect("tournament.json");
    let json: serde_json::Value = serde_json::from_str(&manifest).expect("JSON");
    json["games_total"].as_u64().expect("games_total")
}

#[test]
fn a_billion_game_match_starts_at_once_and_resumes_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let out_arg = out.to_string_lossy().into_owned();
    let args = [
        "match",
        "random",
        "greedy",
        "--games",
        "1000000000",
        "--seed",
        "7",
        "--out",
        &out_arg,
    ];
    let first = play_until(&args, &out, 2);
    assert_interrupted_after_playing(&first, &out, 2);
    assert!(
        text(&first.stdout).contains("Game 1/1000000000 (G0001)"),
        "{}",
        text(&first.stdout)
    );
    assert_eq!(games_total(&out), 1_000_000_000);

    let played = read_csv(&out.join("games.csv")).len();
    let resumed = play_until(&args, &out, played + 2);
    assert_interrupted_after_playing(&resumed, &out, played + 2);
    let stdout = text(&resumed.stdout);
    assert!(
        stdout.contains(&format!("Resuming: {played} games already played")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("Game {}/1000000000", played + 1)),
        "{stdout}"
    );
}

/// A config of `bots` built-in random bots, two games per pairing.
fn many_bots_config(dir: &Path, bots: usize) -> std::path::PathBuf {
    let mut text = String::from("name = \"huge\"\nseed = 5\ngames = 2\n");
    for i in 0..bots {
        text.push_str(&format!("[[bot]]\nname = \"r{i}\"\ncommand = \"random\"\n"));
    }
    let path = dir.join("huge.toml");
    std::fs::write(&path, text).expect("writing the config");
    path
}

#[test]
fn a_round_robin_of_10000_bots_and_one_shard_of_it_start_at_once_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let config = many_bots_config(dir.path(), 10_000);
    let config = config.to_string_lossy().into_owned();
    // 10,000 · 9,999 / 2 = 49,995,000 pairings, one colour-swapped pair each.
    let out = dir.path().join("all");
    let out_arg = out.to_string_lossy().into_owned();
    let run = play_until(
        &[
            "tournament",
            &config,
            "--out",
            &out_arg,
            "--quiet",
            "--concurrency",
            "1",
        ],
        &out,
        2,
    );
    assert_interrupted_after_playing(&run, &out, 2);
    assert!(
        text(&run.stderr).contains("of 99990000 games"),
        "{}",
        text(&run.stderr)
    );
    assert_eq!(games_total(&out), 99_990_000);
    let games = read_csv(&out.join("games.csv"));
    assert_eq!(
        (games[0]["id"].as_str(), games[0]["x"].as_str()),
        ("G0001", "r0")
    );
    assert_eq!(games[1]["x"], "r1");

    // Shard 2 of 1000: the pairs numbered 2, 1002, 2002, … (49,995 of them).
    let out = dir.path().join("shard");
    let out_arg = out.to_string_lossy().into_owned();
    let run = play_until(
        &[
            "tournament",
            &config,
            "--out",
            &out_arg,
            "--quiet",
            "--concurrency",
            "1",
            "--shard",
            "2/1000",
        ],
        &out,
        2,
    );
    assert_interrupted_after_playing(&run, &out, 2);
    assert_eq!(games_total(&out), 99_990);
    let games = read_csv(&out.join("games.csv"));
    assert_eq!(
        (games[0]["id"].as_str(), games[0]["pair"].as_str()),
        ("G0003", "2")
    );
    assert_eq!(
        (games[0]["x"].as_str(), games[0]["o"].as_str()),
        ("r0", "r2")
    );
}
