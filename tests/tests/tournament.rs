//! `arena tournament` end to end: resume after `kill -9` at random moments, identical
//! results from the same seed, config errors that name the file and line, and a
//! tournament split into shards that merges back into the single-run standings.

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use rand::{Rng as _, SeedableRng as _, rngs::StdRng};
use uttt_tests::{Row, Tag, arena, arena_bin, assert_no_leftovers, read_csv, test_bot};

/// A config's `[[bot]]` entry for tests/bots/good.py with `flags`.
fn good_bot(name: &str, flags: &str, tag: &Tag) -> String {
    format!(
        "[[bot]]\nname = \"{name}\"\ncommand = \"python3 {} {flags} --name {name} --tag {}\"\n",
        test_bot("good.py").display(),
        tag.0
    )
}

/// Three deterministic bots (seeded random moves), 6 games per pairing, 2 random
/// opening plies: 18 games.
fn config(dir: &Path, tag: &Tag, extra: &str) -> std::path::PathBuf {
    let bot = |name: &str| good_bot(name, "--random", tag);
    let text = format!(
        "name = \"t\"\nseed = 99\ngames = 6\n{extra}\n[time]\nmove-ms = 500\n[openings]\nrandom-plies = 2\n{}{}{}",
        bot("alpha"),
        bot("beta"),
        bot("gamma")
    );
    let path = dir.join("t.toml");
    std::fs::write(&path, text).expect("write config");
    path
}

/// Asserts that an arena run exited 0, showing its stderr if not.
#[track_caller]
fn assert_succeeded(out: &std::process::Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// games.csv rows sorted by id, without the timing column.
fn games_without_timing(dir: &Path) -> Vec<Row> {
    let mut rows = read_csv(&dir.join("games.csv"));
    for row in &mut rows {
        row.remove("duration_ms");
    }
    rows.sort_by(|a, b| a["id"].cmp(&b["id"]));
    rows
}

/// `arena tournament CONFIG --out OUT --quiet --concurrency 2`, to run or spawn.
fn tournament_command(config: &Path, out: &Path) -> Command {
    let mut command = Command::new(arena_bin());
    command
        .arg("tournament")
        .arg(config)
        .arg("--out")
        .arg(out)
        .args(["--quiet", "--concurrency", "2"]);
    command
}

fn run_tournament(config: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    tournament_command(config, out)
        .args(extra)
        .output()
        .expect("running arena")
}

#[test]
fn same_seed_same_games_and_resume_after_kill_9_loses_nothing() {
    let tag = Tag::new();
    let work = tempfile::tempdir().unwrap();
    let cfg = config(work.path(), &tag, "");

    let reference = work.path().join("reference");
    let out = run_tournament(&cfg, &reference, &[]);
    assert_succeeded(&out);
    let expected = games_without_timing(&reference);
    assert_eq!(expected.len(), 18);

    // A second uninterrupted run gives the same games.
    let again = work.path().join("again");
    run_tournament(&cfg, &again, &[]);
    assert_eq!(
        games_without_timing(&again),
        expected,
        "same seed, same games"
    );

    // Killed with SIGKILL at random moments, then resumed until done. The runs get
    // a temporary directory of their own (world-writable and sticky like /tmp, as
    // bots may run as a dedicated user) to count the scratch directories left.
    let tmp = tempfile::Builder::new()
        .prefix("uttt-test-tmp-")
        .tempdir()
        .unwrap();
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
    let scratch_dirs = || {
        std::fs::read_dir(tmp.path())
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                name.to_string_lossy().starts_with("uttt-bot-")
            })
            .count()
    };
    let mut left_by_kills = 0;
    let resumed = work.path().join("resumed");
    let mut rng = StdRng::seed_from_u64(7);
    let mut kills = 0;
    for attempt in 0..40 {
        let mut child = tournament_command(&cfg, &resumed)
            .env("TMPDIR", tmp.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let wait = Duration::from_millis(rng.random_range(50..700));
        std::thread::sleep(wait);
        match child.try_wait().unwrap() {
            Some(status) => {
                assert_eq!(status.code(), Some(0), "attempt {attempt}");
                break;
            }
            None => {
                child.kill().unwrap();
                child.wait().unwrap();
                kills += 1;
                left_by_kills = left_by_kills.max(scratch_dirs());
            }
        }
    }
    assert!(
        kills >= 2,
        "the run should have been killed a few times, was {kills}"
    );
    // Whatever happened, one more run completes it, and removes the scratch
    // directories the killed referees could not.
    let out = tournament_command(&cfg, &resumed)
        .env("TMPDIR", tmp.path())
        .output()
        .unwrap();
    assert_succeeded(&out);
    let got = games_without_timing(&resumed);
    assert_eq!(got, expected, "resumed run equals the uninterrupted one");
    // moves.csv holds exactly the moves of the recorded games, once each.
    let moves = read_csv(&resumed.join("moves.csv"));
    let plies: u32 = got.iter().map(|g| g["plies"].parse::<u32>().unwrap()).sum();
    assert_eq!(moves.len() as u32, plies);
    // The bots died with the killed referee (parent-death signal).
    assert_no_leftovers(&tag);
    assert_eq!(
        scratch_dirs(),
        0,
        "scratch directories left (up to {left_by_kills} after a kill)"
    );
}

/// A referee killed after its last game but before its exit leaves its bots'
/// scratch directories; the resumed run finds nothing to play and starts no bot,
/// yet removes them (and leaves alone one that a live referee holds).
#[test]
fn a_resumed_run_with_nothing_left_to_play_still_removes_abandoned_scratch_directories() {
    let tag = Tag::new();
    let work = tempfile::tempdir().unwrap();
    let cfg = config(work.path(), &tag, "");
    let out_dir = work.path().join("out");
    let tmp = work.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let run = || {
        tournament_command(&cfg, &out_dir)
            .args(["--shard", "1/9"])
            .env("TMPDIR", &tmp)
            .output()
            .unwrap()
    };
    assert_succeeded(&run());
    assert_eq!(games_without_timing(&out_dir).len(), 2);

    let abandoned = tmp.join("uttt-bot-abandoned");
    std::fs::create_dir(&abandoned).unwrap();
    std::fs::write(abandoned.join("left"), "by a killed referee").unwrap();
    let held = tmp.join("uttt-bot-held");
    std::fs::create_dir(&held).unwrap();
    let holder = std::fs::File::open(&held).unwrap();
    holder.try_lock().unwrap();

    let again = run();
    assert_succeeded(&again);
    assert_eq!(games_without_timing(&out_dir).len(), 2, "nothing replayed");
    assert!(!abandoned.exists(), "the abandoned directory was swept");
    assert!(held.is_dir(), "a held directory belongs to a live referee");
}

#[test]
fn resuming_into_a_directory_of_another_tournament_is_refused() {
    let tag = Tag::new();
    let work = tempfile::tempdir().unwrap();
    let cfg = config(work.path(), &tag, "");
    let out_dir = work.path().join("out");
    let first = run_tournament(&cfg, &out_dir, &["--shard", "1/9"]);
    assert_succeeded(&first);
    let other = run_tournament(&cfg, &out_dir, &["--seed", "5"]);
    assert_eq!(other.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&other.stderr);
    assert!(
        stderr.contains("holds results of a different run (seed 99 there, 5 here)"),
        "{stderr}"
    );
}

#[test]
fn a_second_run_into_a_directory_in_use_is_refused_and_nothing_is_played_twice() {
    let tag = Tag::new();
    let work = tempfile::tempdir().unwrap();
    // Two slow bots (50 ms a move): the first run is still going when the second starts.
    let bot = |name: &str| good_bot(name, "--delay 50", &tag);
    let cfg = work.path().join("slow.toml");
    std::fs::write(
        &cfg,
        format!(
            "name = \"slow\"\nseed = 3\ngames = 2\n{}{}",
            bot("a"),
            bot("b")
        ),
    )
    .unwrap();
    let out_dir = work.path().join("out");
    let first = tournament_command(&cfg, &out_dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The manifest is written once the first run holds the directory.
    let manifest = out_dir.join("tournament.json");
    let waited = std::time::Instant::now();
    while !manifest.exists() {
        assert!(waited.elapsed() < Duration::from_secs(20), "no manifest");
        std::thread::sleep(Duration::from_millis(10));
    }
    let second = run_tournament(&cfg, &out_dir, &[]);
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("is being written by another arena run that is still going"),
        "{stderr}"
    );
    let first = first.wait_with_output().unwrap();
    assert_succeeded(&first);
    let games = games_without_timing(&out_dir);
    assert_eq!(games.len(), 2, "each game once");
    // Once the first run is done, the directory is free again (nothing left to play).
    let again = run_tournament(&cfg, &out_dir, &[]);
    assert_succeeded(&again);
    assert_eq!(games_without_timing(&out_dir), games);
    assert_no_leftovers(&tag);
}

/// Compiles a shared library that makes every `flock` fail with ENOLCK, as on a
/// file system without locks (some NFS and FUSE mounts), for `LD_PRELOAD`.
fn no_locks_library(dir: &Path) -> std::path::PathBuf {
    let source = dir.join("nolock.cc");
    std::fs::write(
        &source,
        "#include <cerrno>\nextern \"C\" int flock(int, int) { errno = ENOLCK; return -1; }\n",
    )
    .expect("write the library's source");
    let library = dir.join("libnolock.so");
    let built = Command::new("g++")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&library)
        .arg(&source)
        .output()
        .expect("g++ (installed by .ci/run)");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    library
}

#[test]
fn on_a_file_system_without_locks_a_run_warns_and_plays_on() {
    let tag = Tag::new();
    let work = tempfile::tempdir().unwrap();
    let cfg = config(work.path(), &tag, "");
    let out_dir = work.path().join("out");
    // Every flock fails: the results directory's lock and the bots' scratch
    // directories' locks (no sandbox layers, which lease uids with locks too).
    let out = tournament_command(&cfg, &out_dir)
        .args(["--sandbox", "none"])
        .env("LD_PRELOAD", no_locks_library(work.path()))
        .output()
        .unwrap();
    assert_succeeded(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: cannot lock")
            && stderr.contains("make sure no other arena run writes to"),
        "{stderr}"
    );
    let games = games_without_timing(&out_dir);
    assert_eq!(games.len(), 18, "every game played");
    if let Some(failed) = games.iter().find(|g| g["reason"] == "handshake-failure") {
        panic!("a bot did not start: {}", failed["detail"]);
    }
    assert_no_leftovers(&tag);

    // The user layer cannot do without: a uid is leased by its lock. Refused
    // before any game, saying why (root only: elsewhere there is no such layer).
    if nix::unistd::geteuid().is_root() {
        let out = tournament_command(&cfg, &work.path().join("user"))
            .args(["--sandbox", "rlimits,user"])
            .env("LD_PRELOAD", no_locks_library(work.path()))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("it needs a file system with locks"),
            "{stderr}"
        );
    }
}

#[test]
fn shards_merge_into_the_single_run_standings() {
    let tag = Tag::new();
    let work = tempfile::tempdir().unwrap();
    let cfg = config(work.path(), &tag, "");
    let single = work.path().join("single");
    run_tournament(&cfg, &single, &[]);
    let mut files = Vec::new();
    for k in 1..=3 {
        let dir = work.path().join(format!("shard{k}"));
        let out = run_tournament(&cfg, &dir, &["--shard", &format!("{k}/3")]);
        assert_eq!(out.status.code(), Some(0));
        files.push(dir.join("games.csv"));
    }
    // Every game is in exactly one shard.
    let mut merged: Vec<Row> = files.iter().flat_map(|f| read_csv(f)).collect();
    for row in &mut merged {
        row.remove("duration_ms");
    }
    merged.sort_by(|a, b| a["id"].cmp(&b["id"]));
    assert_eq!(merged, games_without_timing(&single));

    let merged_dir = work.path().join("merged");
    let mut args = vec!["ratings".to_string()];
    args.extend(files.iter().map(|f| f.to_string_lossy().into_owned()));
    args.extend(["--out".into(), merged_dir.to_string_lossy().into_owned()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = arena(&args);
    assert_succeeded(&out);
    assert_eq!(
        std::fs::read_to_string(merged_dir.join("standings.csv")).unwrap(),
        std::fs::read_to_string(single.join("standings.csv")).unwrap(),
        "merged shards give the single run's standings"
    );

    // The same shard twice is a duplicate, named with both places.
    let twice = arena(&[
        "ratings",
        &files[0].to_string_lossy(),
        &files[0].to_string_lossy(),
    ]);
    assert_eq!(twice.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&twice.stderr).contains("appears twice"));
}

#[test]
fn config_errors_name_the_file_line_and_fix_and_nothing_runs() {
    let work = tempfile::tempdir().unwrap();
    let path = work.path().join("bad.toml");
    let cases = [
        (
            "gamez = 4\n[[bot]]\ncommand = \"random\"\n[[bot]]\ncommand = \"greedy\"\n",
            ":1: unknown field `gamez`",
        ),
        (
            "games = 5\n[[bot]]\ncommand = \"random\"\n[[bot]]\ncommand = \"greedy\"\n",
            ":1: games = 5 is odd",
        ),
        (
            "[[bot]]\ncommand = \"random\"\n[[bot]]\nname = \"x\"\n",
            ":4: this [[bot]] has no command",
        ),
        (
            "[[bot]]\ncommand = \"random\"\n[[bot]]\ncommand = \"./missing-bot\"\n",
            ":4: './missing-bot' does not exist",
        ),
        (
            "[[bot]]\ncommand = \"random\"\n[[bot]]\ncommand = \"no-such-program-anywhere\"\n",
            "program 'no-such-program-anywhere' not found on PATH",
        ),
    ];
    for (text, expected) in cases {
        std::fs::write(&path, text).unwrap();
        let out_dir = work.path().join("out");
        let out = arena(&[
            "tournament",
            &path.to_string_lossy(),
            "--out",
            &out_dir.to_string_lossy(),
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text}: {stderr}");
        assert!(
            stderr.contains(&format!("bad.toml{expected}")) || stderr.contains(expected),
            "{stderr} should contain {expected}"
        );
        assert!(
            !out_dir.exists(),
            "nothing is started or written on a config error"
        );
    }
}

/// Sends `signal` to a running tournament once a game is recorded: the run stops
/// with `code`, saying `said` and how to resume, keeps the finished games, leaves
/// no bot process, and the resume command finishes the rest.
fn stopped_by(signal: nix::sys::signal::Signal, code: i32, said: &str) {
    use nix::sys::signal::kill;
    use nix::unistd::Pid;
    let tag = Tag::new();
    let work = tempfile::tempdir().expect("test setup");
    let cfg = config(work.path(), &tag, "");
    let out = work.path().join("out");
    let child = Command::new(arena_bin())
        .args([
            "tournament",
            &cfg.to_string_lossy(),
            "--out",
            &out.to_string_lossy(),
            "--quiet",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("test setup");
    // Wait until at least one game is recorded, then interrupt.
    let games = out.join("games.csv");
    for _ in 0..200 {
        if !read_csv(&games).is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    kill(
        Pid::from_raw(i32::try_from(child.id()).expect("test setup")),
        signal,
    )
    .expect("test setup");
    let output = child.wait_with_output().expect("test setup");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(code), "{stderr}");
    assert!(stderr.contains(said), "{stderr}");
    assert!(stderr.contains("To resume, run:"), "{stderr}");
    assert!(
        stderr.contains(&format!("--out {}", out.display())),
        "{stderr}"
    );
    let recorded = read_csv(&games).len();
    assert!((1..18).contains(&recorded), "{recorded} games recorded");
    // summary.json says how the run ended.
    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("summary.json")).expect("summary.json"),
    )
    .expect("summary.json is JSON");
    assert_eq!(summary["exit_code"], code, "{summary}");
    assert_eq!(summary["games_played"], recorded, "{summary}");
    assert_no_leftovers(&tag);
    // The resume command finishes the rest.
    let resumed = run_tournament(&cfg, &out, &[]);
    assert_eq!(resumed.status.code(), Some(0));
    assert_eq!(read_csv(&games).len(), 18);
}

#[test]
fn ctrl_c_abandons_running_games_kills_the_bots_and_says_how_to_resume() {
    stopped_by(
        nix::sys::signal::Signal::SIGINT,
        130,
        "Interrupted (Ctrl-C)",
    );
}

/// What CI runners, Slurm, Kubernetes and systemd send: handled like Ctrl-C.
#[test]
fn sigterm_stops_a_tournament_like_ctrl_c_with_exit_143() {
    stopped_by(nix::sys::signal::Signal::SIGTERM, 143, "Stopped by SIGTERM");
}

#[test]
fn sighup_stops_a_tournament_like_ctrl_c_with_exit_129() {
    stopped_by(nix::sys::signal::Signal::SIGHUP, 129, "Stopped by SIGHUP");
}

/// Issue 49: configs/ci-regression.toml promised a job that fails when the
/// candidate's score drops, but `arena tournament` had no gate. A gauntlet's
/// `min-score` (or `--min-score`) is one: exit 1 below it, with FAIL and the
/// score said and in summary.json; exit 0 with PASS at or above; refused (exit 2,
/// naming the file and line) in another format, before anything is played.
#[test]
fn a_gauntlet_files_min_score_fails_the_run_below_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("gate.toml");
    std::fs::write(
        &file,
        "name = \"gate\"\nseed = 1\nformat = \"gauntlet\"\nchallenger = \"random\"\ngames = 4\n\
         min-score = 0.9\n[limits]\nnodes = 50\n[[bot]]\ncommand = \"random\"\n\
         [[bot]]\ncommand = \"greedy\"\n",
    )
    .expect("config");
    let run = |out: &str, extra: &[&str]| {
        let out = dir.path().join(out);
        let mut args = vec![
            "tournament".to_string(),
            file.display().to_string(),
            "--out".into(),
            out.display().to_string(),
            "--quiet".into(),
        ];
        args.extend(extra.iter().map(ToString::to_string));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let done = arena(&args);
        let summary: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(out.join("summary.json")).unwrap_or_default(),
        )
        .unwrap_or_default();
        (done, summary)
    };
    let (failed, summary) = run("fail", &[]);
    let said = String::from_utf8_lossy(&failed.stdout).into_owned();
    assert_eq!(failed.status.code(), Some(1), "{said}");
    assert!(
        said.contains("FAIL: below the minimum score of 90.0% (exit 1)"),
        "{said}"
    );
    assert!(said.contains("random scored "), "{said}");
    assert_eq!(summary["gauntlet"]["verdict"], "FAIL", "{summary}");
    assert_eq!(summary["exit_code"], 1, "{summary}");

    let (passed, summary) = run("pass", &["--min-score", "0"]);
    let said = String::from_utf8_lossy(&passed.stdout).into_owned();
    assert_eq!(passed.status.code(), Some(0), "{said}");
    assert!(
        said.contains("PASS: at least the minimum score of 0.0%"),
        "{said}"
    );
    assert_eq!(summary["gauntlet"]["verdict"], "PASS", "{summary}");

    let text = std::fs::read_to_string(&file).expect("config");
    std::fs::write(
        &file,
        text.replace("format = \"gauntlet\"\nchallenger = \"random\"\n", ""),
    )
    .expect("config");
    let (refused, _) = run("refused", &[]);
    let said = String::from_utf8_lossy(&refused.stderr).into_owned();
    assert_eq!(refused.status.code(), Some(2), "{said}");
    assert!(
        said.contains("gate.toml:4: min-score only applies to format = \"gauntlet\""),
        "{said}"
    );
    assert!(!dir.path().join("refused").join("games.csv").exists());
}
