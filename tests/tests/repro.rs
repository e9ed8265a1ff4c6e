//! `arena repro` and the failure bundles, end to end: a run with a failing bot
//! lists each failed game with the one command that reproduces it (terminal,
//! summary.json, report); the bundle holds the transcript, that game's stderr,
//! seeds, the position, the exit and the command; and the printed command replays
//! the game against the bot: exit 1 when the failure comes back, 0 when a fixed
//! version (`--command`) answers, 3 when it fails differently.

use std::path::Path;

use uttt_tests::{Tag, arena_text, assert_no_leftovers, hostile, run_match};

/// The command the end of the run printed for `game`, split into arguments for
/// the test's arena binary.
fn printed_command(stdout: &str, game: &str) -> Vec<String> {
    let line = stdout
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("arena repro ") && l.ends_with(&format!("--game {game}")))
        .unwrap_or_else(|| panic!("no repro command for {game} in:\n{stdout}"));
    shlex::split(line).expect("a command line")[1..].to_vec()
}

fn run(args: &[String]) -> (Option<i32>, String, String) {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    arena_text(&args)
}

#[test]
fn a_crash_is_bundled_listed_and_reproduced_by_the_printed_command() {
    let tag = Tag::new();
    // Crashes (exit 3) at its third move of each game, after 2 KiB of stderr
    // ending with its last words.
    let crashy = format!(
        "crashy={}",
        hostile(
            "last-words-exit",
            &["--after", "2", "--bytes", "2048"],
            &tag
        )
    );
    let m = run_match(&crashy, "random", &["-n", "2"]);
    assert_eq!(m.code, Some(0), "{}\n{}", m.stdout, m.stderr);
    let dir = m.dir.path();
    assert!(
        m.stdout
            .contains("Failures: 2 games ended by a bot's fault"),
        "{}",
        m.stdout
    );

    // The bundle.
    let bundle = dir.join("failures").join("G0001");
    let readme = std::fs::read_to_string(bundle.join("README.txt")).expect("README.txt");
    let command_line = format!("arena repro {} --game G0001", dir.display());
    assert!(readme.contains(&command_line), "{readme}");
    assert!(readme.contains("X crashy  <- at fault"), "{readme}");
    assert!(readme.contains("exit: exit code 3"), "{readme}");
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(bundle.join("game.json")).expect("game.json"),
    )
    .expect("JSON");
    assert_eq!(json["reason"], "crash");
    assert_eq!(json["culprit"], "X");
    assert_eq!(json["reproduce"], command_line.as_str());
    let games_row = &m.games[0];
    assert_eq!(json["game_seed"].to_string(), games_row["seed"]);
    let x = &json["bots"][0];
    assert_eq!(x["name"], "crashy");
    assert_eq!(x["game_in_process"], 1);
    let stderr_file = x["stderr_file"].as_str().expect("crashy wrote to stderr");
    let stderr = std::fs::read_to_string(bundle.join(stderr_file)).expect("stderr file");
    assert!(stderr.ends_with("last words: goodbye\n"), "{stderr}");
    let transcript = std::fs::read_to_string(bundle.join("transcript.txt")).expect("transcript");
    assert!(transcript.contains("== X (crashy) =="), "{transcript}");
    assert!(transcript.contains("> newgame mark X"), "{transcript}");
    let seed = x["seed"].as_u64().expect("seed");
    assert!(
        transcript.contains(&format!("seed {seed} ")),
        "the bundle's seed is the one sent:\n{transcript}"
    );
    // The position is the engine's after the recorded moves.
    let moves = json["moves"].as_str().expect("moves");
    let pos = uttt::notation::position_from_move_list(uttt::rules::Rules::STANDARD, moves)
        .expect("moves replay");
    assert_eq!(json["position"], pos.to_string().as_str());

    // summary.json lists both failures with the same command.
    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("summary.json")).expect("summary.json"),
    )
    .expect("JSON");
    let failures = summary["failures"].as_array().expect("failures");
    assert_eq!(failures.len(), 2);
    assert_eq!(failures[0]["game"], "G0001");
    assert_eq!(failures[0]["bot"], "crashy");
    assert_eq!(failures[0]["reproduce"], command_line.as_str());

    // The report lists them too.
    let (code, _, err) = arena_text(&["report", &dir.to_string_lossy()]);
    assert_eq!(code, Some(0), "{err}");
    let html = std::fs::read_to_string(dir.join("report.html")).expect("report");
    assert!(html.contains("<section id=\"failures\">"));
    assert!(html.contains(&command_line), "the report shows the command");

    // The printed command reproduces the crash: exit 1, then and now side by side.
    let args = printed_command(&m.stdout, "G0002");
    let (code, out, err) = run(&args);
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert!(
        out.contains("  then: O (crashy) crashed (exit code 3)"),
        "{out}"
    );
    assert!(out.contains("  now:  crashed (exit code 3)"), "{out}");
    assert!(out.contains("as the referee sent them"), "{out}");
    assert!(out.contains("last words: goodbye"), "its stderr now: {out}");
    assert!(out.contains("Reproduced: crash again (exit 1)."), "{out}");

    // A fixed version answers: not reproduced, exit 0.
    let mut fixed = args.clone();
    fixed.extend(["--command".into(), hostile("good", &[], &tag)]);
    let (code, out, err) = run(&fixed);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("Not reproduced"), "{out}");

    // A version that fails another way: exit 3.
    let mut other = args.clone();
    other.extend([
        "--command".into(),
        hostile("garbage", &["--after", "2"], &tag),
    ]);
    let (code, out, err) = run(&other);
    assert_eq!(code, Some(3), "{out}\n{err}");
    assert!(
        out.contains("A different failure: crash then, malformed-output now (exit 3)."),
        "{out}"
    );
    assert_no_leftovers(&tag);
}

#[test]
fn a_timeout_is_reproduced_from_the_recorded_time_control() {
    let tag = Tag::new();
    let slow = format!(
        "slow={}",
        hostile(
            "sleep-past-limit",
            &["--after", "1", "--delay-ms", "2000"],
            &tag
        )
    );
    let m = run_match(
        &slow,
        "random",
        &["-n", "2", "--time", "100", "--margin", "20"],
    );
    assert_eq!(m.code, Some(0), "{}\n{}", m.stdout, m.stderr);
    let (code, out, err) = run(&printed_command(&m.stdout, "G0001"));
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert!(
        out.contains("now:  ran out of time:") && out.contains("allowed 100 ms + 20 ms margin"),
        "the replay keeps the recorded time control: {out}"
    );
    assert_no_leftovers(&tag);
}

#[test]
fn a_normal_game_is_replayed_at_a_ply_with_the_bot_named() {
    let m = run_match("random", "greedy", &["-n", "2"]);
    assert_eq!(m.code, Some(0), "{}", m.stderr);
    assert!(!m.stdout.contains("Failures:"), "{}", m.stdout);
    let dir = m.dir.path().to_string_lossy().into_owned();
    // Nobody failed: the bot and the request must be named.
    let (code, _, err) = arena_text(&["repro", &dir, "--game", "G0001"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("ended normally"), "{err}");
    // Greedy is O in G0001: after 1 mark it is to move. It is deterministic given
    // the recorded seed, so it answers what it played then.
    let (code, out, err) = arena_text(&[
        "repro", &dir, "--game", "G0001", "--bot", "greedy", "--ply", "1",
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("rebuilt from moves.csv"), "{out}");
    let then_move = &m.moves[1]["square"];
    assert!(
        out.contains(&format!("  then: {then_move} in "))
            && out.contains(&format!("  now:  {then_move} in ")),
        "{out}"
    );
    // Not its turn: the error says whose it is.
    let (code, _, err) = arena_text(&[
        "repro", &dir, "--game", "G0001", "--bot", "greedy", "--ply", "2",
    ]);
    assert_eq!(code, Some(2));
    assert!(err.contains("it is random's turn, not greedy's"), "{err}");
}

#[test]
fn a_directory_without_the_game_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (code, _, err) = arena_text(&["repro", &dir.path().to_string_lossy(), "--game", "G0001"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("has no games.csv"), "{err}");
    assert!(Path::new(dir.path()).exists());
}

/// A results directory may come from anyone: a run recorded under `--sandbox none`
/// does not make `arena repro` start its command without the sandbox. It runs under
/// `auto` and says so; `--sandbox none` is the operator's own choice.
#[test]
fn a_recorded_weaker_sandbox_is_not_used_without_asking() {
    let tag = Tag::new();
    let bot = format!("leaky={}", hostile("uid-exit", &[], &tag));
    let m = run_match(&bot, "random", &["-n", "2", "--sandbox", "none"]);
    assert_eq!(m.code, Some(0), "{}\n{}", m.stdout, m.stderr);
    let args = printed_command(&m.stdout, "G0001");
    let (code, out, err) = run(&args);
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert!(
        out.contains("sandbox: auto, though the run recorded none"),
        "{out}"
    );
    let root = nix::unistd::geteuid().is_root();
    let auto_uid = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("uid="))
        .unwrap_or_else(|| panic!("the bot's stderr now: {out}"));
    if root {
        assert_ne!(
            auto_uid, "0",
            "under auto a root referee never runs a bot as root"
        );
    }
    // Asked for explicitly, the weaker mode is used, and no note is printed.
    let mut none = args.clone();
    none.extend(["--sandbox".into(), "none".into()]);
    let (code, out, err) = run(&none);
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert!(!out.contains("though the run recorded"), "{out}");
    let uid = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("uid="))
        .unwrap_or_else(|| panic!("the bot's stderr now: {out}"));
    assert_eq!(uid, nix::unistd::geteuid().to_string());
    assert_no_leftovers(&tag);
}

/// `arena repro` starts a recorded bot from the fields tournament.json keeps
/// (`launch`), never by reading its command text back: a word with a quote in it,
/// which the text form cannot carry, reaches the bot again intact.
#[test]
fn a_recorded_bot_is_started_from_its_fields_not_its_text() {
    let starter = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../bots/starters/python/starter.py")
        .canonicalize()
        .expect("the Python starter");
    let bot = format!("quoted=python3 {} \"it's\"", starter.display());
    let m = run_match(&bot, "random", &["-n", "2"]);
    assert_eq!(m.code, Some(0), "{}\n{}", m.stdout, m.stderr);
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(m.dir.path().join("tournament.json")).expect("tournament.json"),
    )
    .expect("JSON");
    let words = &manifest["launch"]["quoted"]["words"];
    assert_eq!(words[2], "it's", "{manifest}");
    assert_eq!(manifest["launch"]["random"]["builtin"], true, "{manifest}");
    assert_eq!(
        manifest["launch"]["random"]["words"][0], "random",
        "{manifest}"
    );
    let dir = m.dir.path().to_string_lossy().into_owned();
    let (code, out, err) = arena_text(&[
        "repro", &dir, "--game", "G0001", "--bot", "quoted", "--ply", "0",
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("  now:  "), "{out}");
    assert!(
        out.contains("it's"),
        "the command shown is the recorded one: {out}"
    );
}

/// `tests/bots/sandbox/attack.py ATTACK OPTS…` as a bot command.
fn attacker(attack: &str, opts: &[&str], tag: &Tag) -> String {
    format!(
        "python3 {} {attack} {} --tag {}",
        uttt_tests::test_bot("sandbox/attack.py").display(),
        opts.join(" "),
        tag.0
    )
}

/// The id of the one game `bot` lost by a crash whose words hold `what`.
fn crashed_game(games: &[uttt_tests::Row], bot: &str, what: &str) -> String {
    let game = games
        .iter()
        .find(|g| {
            g["reason"] == "crash" && g["winner_name"] != bot && (g["x"] == bot || g["o"] == bot)
        })
        .unwrap_or_else(|| panic!("{bot} lost no game by a crash: {games:?}"));
    assert!(game["detail"].contains(what), "{}", game["detail"]);
    game["id"].clone()
}

/// Issue 46 §3: a game lost over `--memory-mb 64` was replayed under the
/// default 1 GiB, where the same allocation succeeds, and said "not
/// reproduced". The replay starts the bot under the limits it lost under, and
/// says which; a directory that recorded none says so and uses the defaults.
#[test]
fn a_game_lost_over_the_memory_limit_is_reproduced_under_that_limit() {
    let tag = Tag::new();
    let hog = format!("hog={}", attacker("memory", &["--mb=200"], &tag));
    let m = run_match(
        &hog,
        "random",
        &["-n", "2", "--time", "3000", "--memory-mb", "64"],
    );
    assert_eq!(m.code, Some(0), "{}\n{}", m.stdout, m.stderr);
    let id = crashed_game(&m.games, "hog", "MemoryError");
    let args = printed_command(&m.stdout, &id);
    let (code, out, err) = run(&args);
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert!(
        out.contains("  limits as recorded: memory 64 MiB (each process 64 MiB)"),
        "{out}"
    );
    assert!(out.contains("MemoryError"), "its stderr now: {out}");
    assert!(out.contains("Reproduced: crash again (exit 1)."), "{out}");

    // The game's bundle keeps what it was played under, for people and for
    // the replay of a run resumed later with other limits.
    let bundle = m.dir.path().join("failures").join(&id);
    let readme = std::fs::read_to_string(bundle.join("README.txt")).expect("README.txt");
    assert!(readme.contains("  limits: memory 64 MiB"), "{readme}");

    // tournament.json holds the latest run's limits (a resumed run may have
    // changed them); the bundle's are the game's own, and come first.
    let manifest_path = m.dir.path().join("tournament.json");
    let mut manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest_path).expect("manifest"))
            .expect("JSON");
    assert_eq!(
        manifest["launch"]["hog"]["limits"]["memory_bytes"],
        64 * 1024 * 1024,
        "{manifest}"
    );
    for launch in manifest["launch"]
        .as_object_mut()
        .expect("launch")
        .values_mut()
    {
        launch.as_object_mut().expect("a bot").remove("limits");
    }
    std::fs::write(&manifest_path, manifest.to_string()).expect("write");
    let (code, out, err) = run(&args);
    assert_eq!(code, Some(1), "the bundle's limits: {out}\n{err}");

    // A directory from before limits were recorded: the defaults, said.
    let game_json = bundle.join("game.json");
    let mut info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&game_json).expect("game.json"))
            .expect("JSON");
    for seat in info["bots"].as_array_mut().expect("bots") {
        seat.as_object_mut().expect("a seat").remove("started");
    }
    std::fs::write(&game_json, info.to_string()).expect("write");
    let (code, out, err) = run(&args);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        out.contains("  limits: not recorded (a directory from an older arena): the defaults"),
        "{out}"
    );
    assert_no_leftovers(&tag);
}

/// The same for a limit only a tournament file sets: a bot that opens 64
/// descriptors under `open-files = 32` is reproduced with 32, not 1024.
#[test]
fn a_game_lost_over_the_open_files_limit_of_a_tournament_file_is_reproduced() {
    let tag = Tag::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("t.toml");
    std::fs::write(
        &file,
        format!(
            "games = 2\n[time]\nmove-ms = 3000\n[limits]\nopen-files = 32\n\n\
             [[bot]]\nname = \"opener\"\ncommand = \"{}\"\n\n[[bot]]\nname = \"random\"\ncommand = \"random\"\n",
            attacker("files", &["--count=64"], &tag)
        ),
    )
    .expect("write config");
    let out_dir = dir.path().join("out");
    let out = out_dir.to_string_lossy().into_owned();
    let (code, stdout, stderr) = arena_text(&[
        "tournament",
        &file.to_string_lossy(),
        "--out",
        &out,
        "--seed",
        "1",
    ]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let games = uttt_tests::read_csv(&out_dir.join("games.csv"));
    let id = crashed_game(&games, "opener", "in attack_files");
    let (code, now, err) = arena_text(&["repro", &out, "--game", &id]);
    assert_eq!(code, Some(1), "{now}\n{err}");
    assert!(now.contains("open files 32"), "{now}");
    assert!(now.contains("Reproduced: crash again (exit 1)."), "{now}");
    assert_no_leftovers(&tag);
}

/// Whether the scheduler's per-task counters are readable here (the CPU and
/// fair clocks need them).
fn schedstat_readable() -> bool {
    let tid = std::fs::read_link("/proc/thread-self")
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()));
    tid.is_some_and(|tid| {
        std::fs::read_to_string(format!("/proc/self/task/{tid}/schedstat"))
            .is_ok_and(|s| s.split_ascii_whitespace().count() >= 3)
    })
}

/// The clock is part of what a move is judged by: a bot that sleeps 200 ms of
/// a 100 ms move played in time under `--clock cpu` (sleeping costs no CPU),
/// and its replay charges it by the CPU clock again instead of the fair clock
/// `auto` picks, which would call the same answer a timeout.
#[test]
fn a_replay_charges_moves_by_the_recorded_clock() {
    if !schedstat_readable() {
        eprintln!("skipped: no per-task schedstat (/proc/PID/task/TID/schedstat) on this host");
        return;
    }
    let sleepy = format!(
        "sleepy={} __sleeper --delay-ms 200",
        uttt_tests::quote(&uttt_tests::arena_bin().to_string_lossy())
    );
    let m = run_match(
        &sleepy,
        "random",
        &[
            "-n", "1", "--time", "100", "--margin", "20", "--clock", "cpu",
        ],
    );
    assert_eq!(m.code, Some(0), "{}\n{}", m.stdout, m.stderr);
    assert_eq!(m.games[0]["x"], "sleepy", "{:?}", m.games);
    assert!(
        m.games[0]["reason"] != "timeout",
        "the CPU clock does not charge sleeping: {:?}",
        m.games
    );
    let dir = m.dir.path().to_string_lossy().into_owned();
    let (code, out, err) = arena_text(&[
        "repro", &dir, "--game", "G0001", "--bot", "sleepy", "--ply", "2",
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("  clock: cpu, as recorded"), "{out}");
    assert!(out.contains("Not reproduced"), "{out}");
}
