//! A run's own cost, end to end through the real binary: the whole-run benchmark
//! (`arena bench tournament`) plays 20,000 instant games and reports them window by
//! window; the default concurrency follows the cores this process may use (CPU
//! affinity here) and `arena doctor` says so; asking for far more games at once
//! than cores warns; `arena serve` follows a directory that grows by what it
//! appended and opens any game of it, not only those it shows.
//!
//! The figures themselves are benchmarks, not assertions (BENCHMARKS.md).

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use uttt_tests::{arena, arena_bin};

/// `arena ARGS` pinned to one CPU with `taskset`.
fn on_one_cpu(args: &[&str]) -> std::process::Output {
    Command::new("taskset")
        .args(["-c", "0"])
        .arg(arena_bin())
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("running taskset arena {args:?}: {e}"))
}

#[test]
fn the_whole_run_benchmark_plays_20000_instant_games_and_reports_each_window() {
    let output = arena(&[
        "bench",
        "tournament",
        "--games",
        "20000",
        "--bots",
        "2",
        "--processes",
        "reuse",
        "--window",
        "10000",
    ]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        text.contains("2 instant bots (random), round robin, 20000 games per pairing: 20000 games"),
        "{text}"
    );
    assert!(
        text.contains(
            "processes reused: floor (`arena bench games`: random vs random through the runner \
             alone, nothing recorded, 4000 games): "
        ),
        "{text}"
    );
    assert!(
        text.contains("processes reused: the runner alone with the run's 2 bots, sandboxed as it sandboxes them (4000 games): "),
        "{text}"
    );
    let windows: Vec<&str> = text.lines().filter(|l| l.contains(": games ")).collect();
    assert_eq!(windows.len(), 2, "{text}");
    assert!(windows[0].contains("games        0 to "), "{text}");
    for window in &windows {
        assert!(
            window.contains(" games/s, arena CPU ") && window.contains(" ms per game (load "),
            "{window}"
        );
    }
    let whole = text
        .lines()
        .find(|l| l.contains("the whole run: 20000 games in "))
        .unwrap_or_else(|| panic!("no whole-run line: {text}"));
    assert!(
        whole.contains("x the runner alone with its bots), arena CPU ")
            && whole.contains(" MB while playing, "),
        "{whole}"
    );
    assert!(
        text.contains("arena CPU per game, last window / first: "),
        "{text}"
    );
}

#[test]
fn the_default_concurrency_follows_the_cpu_affinity_and_doctor_says_so() {
    let output = on_one_cpu(&["doctor"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}");
    let line = text
        .lines()
        .find(|l| l.starts_with("games at once by default: "))
        .unwrap_or_else(|| panic!("no concurrency line: {text}"));
    assert!(
        line.starts_with("games at once by default: 1 (")
            && line.contains(", 1 in this process's CPU affinity, "),
        "{line}"
    );
    let json = on_one_cpu(&["doctor", "--json"]);
    let value: Value = serde_json::from_slice(&json.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(value["concurrency"]["default"], 1, "{value}");
    assert_eq!(value["concurrency"]["affinity"], 1, "{value}");
}

#[test]
fn asking_for_many_more_games_at_once_than_cores_warns_and_why() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("many");
    let many = on_one_cpu(&[
        "match",
        "random",
        "random",
        "-n",
        "2",
        "--concurrency",
        "3",
        "--out",
        &out.to_string_lossy(),
    ]);
    let said = String::from_utf8_lossy(&many.stderr);
    assert!(many.status.success(), "{said}");
    assert!(
        said.contains("warning: 3 games at once on 1 usable core(s): games beyond the cores wait for one another"),
        "{said}"
    );
    assert!(said.contains("arena doctor"), "{said}");
    let out = dir.path().join("two");
    let two = on_one_cpu(&[
        "match",
        "random",
        "random",
        "-n",
        "2",
        "--concurrency",
        "2",
        "--out",
        &out.to_string_lossy(),
    ]);
    assert!(two.status.success());
    // No warning about the games at once (the clock may still say the one CPU
    // was busy: that is another warning, about the machine).
    assert!(
        !String::from_utf8_lossy(&two.stderr).contains("games at once on"),
        "{two:?}"
    );
}

/// `arena serve` as a child, killed when dropped.
struct Server {
    child: Child,
    base: String,
}

impl Server {
    fn start(dir: &std::path::Path) -> Server {
        let mut child = Command::new(arena_bin())
            .args(["serve", &dir.to_string_lossy(), "--addr", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("starting arena serve: {e}"));
        let mut stdout = child.stdout.take().unwrap_or_else(|| panic!("stdout"));
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut text = String::new();
            let mut buf = [0u8; 256];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 {
                    break;
                }
                text.push_str(&String::from_utf8_lossy(&buf[..n]));
                if let Some(at) = text.find("http://")
                    && let Some(end) = text[at..].find(char::is_whitespace)
                {
                    let _ = tx.send(text[at..at + end].to_string());
                }
            }
        });
        let base = rx
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|e| panic!("no address printed: {e}"));
        Server { child, base }
    }

    /// GET `path`: the status and the body.
    fn get(&self, path: &str) -> (u16, String) {
        let host = self
            .base
            .trim_start_matches("http://")
            .trim_end_matches('/');
        let mut stream = TcpStream::connect(host).unwrap_or_else(|e| panic!("connect: {e}"));
        let _ = stream.set_read_timeout(Some(Duration::from_secs(20)));
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
        )
        .unwrap_or_else(|e| panic!("send: {e}"));
        let mut text = String::new();
        let _ = stream.read_to_string(&mut text);
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        (status, body.to_string())
    }

    fn json(&self, path: &str) -> Value {
        let (status, body) = self.get(path);
        assert_eq!(status, 200, "{path}: {body}");
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn serve_follows_a_growing_directory_and_opens_any_game_of_it() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    // A match of 260 games, shown first as a directory holding its first 240: the
    // last 20 rows of games.csv are appended while the server watches, as the run
    // would append them.
    let full = dir.path().join("full");
    let output = arena(&[
        "match",
        "random",
        "random",
        "-n",
        "260",
        "--seed",
        "5",
        "--time",
        "1000",
        "--out",
        &full.to_string_lossy(),
    ]);
    assert!(output.status.success(), "{output:?}");
    let out = dir.path().join("run");
    std::fs::create_dir_all(&out).unwrap_or_else(|e| panic!("{e}"));
    for file in ["moves.csv", "tournament.json"] {
        std::fs::copy(full.join(file), out.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    }
    let games = std::fs::read_to_string(full.join("games.csv")).unwrap_or_else(|e| panic!("{e}"));
    let lines: Vec<&str> = games.lines().collect();
    assert_eq!(lines.len(), 261);
    std::fs::write(out.join("games.csv"), lines[..241].join("\n") + "\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let server = Server::start(&out);
    let state = server.json("/run/0/state");
    assert_eq!(state["done"], 240, "{state}");
    assert_eq!(state["feed"].as_array().map(Vec::len), Some(30));
    // More than a bot page lists (200): the first game is in neither, and opens.
    let bot = server.json("/run/0/bot/random");
    assert_eq!(bot["games"], 240, "{bot}");
    assert_eq!(bot["shown"].as_array().map(Vec::len), Some(200));
    let shown: Vec<&str> = bot["shown"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|g| g["id"].as_str())
        .collect();
    let oldest = (1..=240)
        .map(|n| format!("G{n:04}"))
        .find(|id| !shown.contains(&id.as_str()))
        .unwrap_or_else(|| panic!("every game shown: {shown:?}"));
    let game = server.json(&format!("/run/0/game/{oldest}"));
    assert_eq!(game["id"], oldest.as_str(), "{game}");
    assert!(game["problem"].is_null(), "{game}");
    let plies = std::fs::read_to_string(out.join("games.csv"))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with(&format!("{oldest},")))
        .and_then(|l| l.split(',').nth(10).map(str::to_string))
        .unwrap_or_default();
    assert!(!plies.is_empty());
    // The run goes on: the server counts what was appended.
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(out.join("games.csv"))
        .unwrap_or_else(|e| panic!("{e}"));
    file.write_all((lines[241..].join("\n") + "\n").as_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let state = server.json("/run/0/state");
        if state["done"] == 260 {
            let standings = state["standings"].as_array().cloned().unwrap_or_default();
            let games: u64 = standings.iter().filter_map(|s| s["games"].as_u64()).sum();
            assert_eq!(games, 520, "{state}");
            break;
        }
        assert!(Instant::now() < deadline, "never saw 260 games: {state}");
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(server.json("/run/0/bot/random")["games"], 260);
    let (status, _) = server.get("/run/0/game/G9999");
    assert_eq!(status, 404);
}
