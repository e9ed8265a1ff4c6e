//! Viewers cannot starve the referee. Scaled down from what was seen: a run under a
//! descriptor limit of 300 (`ulimit -n 300`) with its live page (`--serve`), and
//! 400 connections to the page's event stream opened and left idle while bots are
//! started game after game. Every game is played and recorded as played; the
//! connections cost the referee no descriptor.

use std::io::Write as _;
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use uttt_tests::serving::Running;
use uttt_tests::{Tag, arena_bin, assert_no_leftovers, read_csv, test_bot};

/// Idle connections opened against the page.
const IDLE_CONNECTIONS: usize = 400;

/// Two bots that think 40 ms a move, a fresh process for every game, six games.
fn config(dir: &Path, tag: &Tag) -> std::path::PathBuf {
    let good = test_bot("good.py");
    let text = format!(
        "name = \"starved\"\nseed = 5\ngames = 6\nprocesses = \"per-game\"\n\
         [time]\nmove-ms = 3000\nfirst-move-ms = 5000\n\
         [[bot]]\nname = \"first\"\ncommand = \"python3 {good} --delay 40 --tag {tag}\"\n\
         [[bot]]\nname = \"second\"\ncommand = \"python3 {good} --last --delay 40 --tag {tag}\"\n",
        good = good.display(),
        tag = tag.0,
    );
    let path = dir.join("starved.toml");
    std::fs::write(&path, text).expect("write config");
    path
}

/// Opens `count` connections to `addr`, each sending a request for the event
/// stream and then nothing (8 threads; a connection the server's queue has no
/// room for is given up after a second).
fn idle_event_streams(addr: SocketAddr, count: usize) -> Vec<TcpStream> {
    let request =
        format!("GET /run/0/events HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n");
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let request = request.clone();
            std::thread::spawn(move || {
                (0..count / 8)
                    .filter_map(|_| {
                        let mut stream =
                            TcpStream::connect_timeout(&addr, Duration::from_secs(1)).ok()?;
                        stream.write_all(request.as_bytes()).ok()?;
                        Some(stream)
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    threads
        .into_iter()
        .flat_map(|t| t.join().unwrap_or_default())
        .collect()
}

/// Descriptors the process `pid` holds.
fn descriptors(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, Iterator::count)
}

#[test]
fn idle_page_connections_under_a_small_descriptor_limit_cost_no_game() {
    let work = tempfile::tempdir().expect("temp dir");
    let tag = Tag::new();
    let cfg = config(work.path(), &tag);
    let out = work.path().join("out");
    let mut command = Command::new("sh");
    command
        .args(["-c", "ulimit -n 300 && exec \"$0\" \"$@\""])
        .arg(arena_bin())
        .arg("tournament")
        .arg(&cfg)
        .arg("--out")
        .arg(&out)
        .args(["--serve", "127.0.0.1:0", "--quiet"]);
    let mut run = Running::spawn(command);
    let base = run.url();
    let addr: SocketAddr = base
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .expect("the page's address");

    let streams = idle_event_streams(addr, IDLE_CONNECTIONS);
    assert!(
        streams.len() >= 200,
        "only {} connections were opened",
        streams.len()
    );
    let held = descriptors(run.child.id());
    assert!(
        held < 100,
        "the referee holds {held} descriptors with the page's connections open"
    );

    let deadline = Instant::now() + Duration::from_secs(300);
    let status = loop {
        if let Ok(Some(status)) = run.child.try_wait() {
            break status;
        }
        assert!(Instant::now() < deadline, "the run did not finish");
        std::thread::sleep(Duration::from_millis(100));
    };
    let said: Vec<String> = run.lines.try_iter().collect();
    assert!(status.success(), "{status}: {said:#?}");
    let games = read_csv(&out.join("games.csv"));
    assert_eq!(games.len(), 6, "{said:#?}");
    for game in &games {
        assert!(
            ["three-in-a-row", "no-moves"].contains(&game["reason"].as_str()),
            "game {} lost to the page's connections: {} {}",
            game["id"],
            game["reason"],
            game["detail"]
        );
    }
    drop(streams);
    assert_no_leftovers(&tag);
}
