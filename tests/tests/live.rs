//! The live page (`arena serve`, `--serve`) end to end: a real tournament of
//! Python test bots that think about 200 ms a move (one says something hostile in
//! every `info` line), watched in headless Chromium (see `report/browser.rs`).
//!
//! - a move shows on the page's board within a second of the runner writing it to
//!   its live file; the standings change when a game ends; the bot's HTML stays text;
//! - the page recovers by itself when `arena serve` is stopped and started again;
//! - no console errors, no request outside the server, desktop and phone widths,
//!   projector mode;
//! - `arena serve` on a finished directory and on the directory of a killed run (its
//!   live files shown as unfinished, not running); only the pages are served (path
//!   traversal attempts get 404).
//!
//! Screenshots go to `target/test-artifacts/live/`; with `UTTT_UPDATE_SCREENSHOTS` set,
//! the desktop one replaces the README's (`docs/live-page.png`).

#[path = "report/browser.rs"]
mod browser;

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use browser::Browser;
use serde_json::Value;
use uttt_tests::serving::{Running, http};
use uttt_tests::{arena, test_bot};

/// What the chatty bot says in every `info` line.
const HOSTILE_INFO: &str = "<img src=x onerror=window.pwned=1><script>window.pwned=2</script>";

/// A tournament file: `alpha` and `beta` play random moves after 200 ms, `chatty`
/// talks; two games per pairing (six games).
fn config(dir: &Path) -> PathBuf {
    let good = test_bot("good.py");
    let text = format!(
        "name = \"live-test\"\nseed = 3\ngames = 2\n\
         [time]\nmove-ms = 3000\nfirst-move-ms = 5000\nmargin-ms = 500\n\
         [[bot]]\nname = \"alpha\"\ncommand = \"python3 {good} --random --delay 200\"\n\
         [[bot]]\nname = \"beta\"\ncommand = \"python3 {good} --random --delay 200\"\n\
         [[bot]]\nname = \"chatty\"\ncommand = \"python3 {good} --last --delay 200 --info 'depth 1 string {HOSTILE_INFO}'\"\n",
        good = good.display(),
    );
    let path = dir.join("live.toml");
    std::fs::write(&path, text).expect("write config");
    path
}

fn state(base: &str, run: usize) -> Value {
    let (status, _, body) = http(base, &format!("/run/{run}/state"));
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).expect("state is JSON")
}

/// Complete lines of a file (a live moves file's header and rows).
fn complete_lines(path: &Path) -> usize {
    std::fs::read(path).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count())
}

fn games_done(out: &Path) -> usize {
    complete_lines(&out.join("games.csv")).saturating_sub(1)
}

/// A live moves file with at least one mark, and its marks.
fn a_live_game(out: &Path) -> Option<(String, PathBuf)> {
    let dir = out.join("live");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .collect();
    files.sort();
    let path = files.into_iter().next()?;
    let id = path.file_stem()?.to_string_lossy().into_owned();
    Some((id, path))
}

fn wait_until(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A port free a moment ago.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

fn standings_text(browser: &mut Browser) -> String {
    browser
        .eval("document.getElementById('standings-body').textContent")
        .as_str()
        .unwrap_or("")
        .to_string()
}

#[test]
#[cfg_attr(
    not(has_chromium),
    ignore = "needs headless Chromium: apt-get install chromium, or set UTTT_CHROMIUM"
)]
fn live_page_of_a_running_tournament_in_headless_chromium() {
    browser::chromium(); // fails at once, naming the package, when it is missing
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("results");
    let cfg = config(dir.path());
    let mut run = Running::start(&[
        "tournament",
        &cfg.to_string_lossy(),
        "--out",
        &out.to_string_lossy(),
        "--quiet",
        "--concurrency",
        "2",
        "--serve",
        "127.0.0.1:0",
    ]);
    let url = run.url();
    let mut browser = Browser::launch();
    browser.viewport(1280, 900, false);
    browser.goto(&url);
    browser.wait_for("Number(document.body.dataset.updates || 0) > 0");
    assert_eq!(
        browser.eval("document.getElementById('name').textContent"),
        "live-test"
    );

    // A move on the page within a second of the runner writing it.
    let mut delays = Vec::new();
    let enough = Instant::now() + Duration::from_secs(60);
    while delays.len() < 6 {
        assert!(
            Instant::now() < enough,
            "only {delays:?} moves seen on live files within a minute"
        );
        let Some((id, path)) = a_live_game(&out) else {
            std::thread::sleep(Duration::from_millis(20));
            continue;
        };
        let before = complete_lines(&path);
        if before == 0 {
            std::thread::sleep(Duration::from_millis(2));
            continue;
        }
        // Wait for the next mark in the file (or the game's end).
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut now = before;
        while now == before && path.exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(2));
            now = complete_lines(&path);
        }
        if now == before {
            continue;
        }
        let written = Instant::now();
        let ply = now - 1; // the header is the first line
        let shown = format!(
            "(() => {{ const c = document.querySelector('.live-card[data-id=\"{id}\"]'); \
             return !!c && Number(c.dataset.ply) >= {ply}; }})()"
        );
        browser.wait_for(&shown);
        delays.push(written.elapsed());
    }
    let slowest = delays.iter().max().copied().unwrap_or_default();
    assert!(
        slowest < Duration::from_secs(1),
        "moves reached the page after {delays:?}"
    );
    println!("a written move was on the page after {delays:?}");

    // The chatty bot's HTML is shown as text, never run or parsed.
    browser.wait_for_within(
        &format!(
            "Array.from(document.querySelectorAll('.live-card .info')).some((p) => p.textContent.includes({}))",
            serde_json::json!(HOSTILE_INFO)
        ),
        Duration::from_secs(60),
    );
    assert_eq!(browser.eval("typeof window.pwned"), "undefined");
    assert_eq!(
        browser.eval("document.querySelectorAll('img, main script').length"),
        0
    );

    // The standings change when a game ends.
    let done = games_done(&out);
    let before = standings_text(&mut browser);
    wait_until("a game to end", Duration::from_secs(90), || {
        games_done(&out) > done
    });
    let ended = Instant::now();
    let now_done = games_done(&out);
    browser.wait_for(&format!(
        "Number(document.getElementById('progress').textContent.split(' ')[0]) >= {now_done}"
    ));
    assert!(
        ended.elapsed() < Duration::from_secs(2),
        "the page took {:?} to count the game",
        ended.elapsed()
    );
    let after = standings_text(&mut browser);
    assert_ne!(before, after, "the standings did not change");
    assert!(
        browser
            .eval("document.getElementById('feed-list').children.length")
            .as_u64()
            .unwrap_or(0)
            >= 1
    );
    // A bot's page: its games, faults in words, no command line without --show-logs.
    let first = browser.eval("document.querySelector('#standings-body a.bot').textContent");
    browser.click("#standings-body a.bot");
    browser.wait_for("!document.getElementById('bot').hidden");
    assert_eq!(
        browser.eval("document.getElementById('bot-name').textContent"),
        first
    );
    assert_eq!(
        browser.eval("document.getElementById('bot-logs').hidden"),
        true
    );
    assert!(
        browser
            .eval("document.getElementById('bot-games').children.length")
            .as_u64()
            .unwrap_or(0)
            >= 1
    );
    browser.eval("location.hash = ''");
    browser.wait_for("document.getElementById('bot').hidden");

    browser.eval("window.scrollTo(0, 0)");
    browser.screenshot(&browser::artifacts("live").join("desktop.png"), None);
    if std::env::var_os("UTTT_UPDATE_SCREENSHOTS").is_some() {
        let readme = uttt_tests::repo_root().join("docs").join("live-page.png");
        std::fs::copy(browser::artifacts("live").join("desktop.png"), readme)
            .expect("update the README's screenshot");
    }
    // Phone width: nothing wider than the screen.
    browser.viewport(390, 844, true);
    browser.wait_for("document.documentElement.scrollWidth <= 391");
    browser.screenshot(&browser::artifacts("live").join("phone.png"), None);
    browser.viewport(1280, 900, false);
    // Projector mode: one game in progress at a time, large.
    browser.click("#projector");
    browser.wait_for("document.body.classList.contains('projector')");
    browser.wait_for(
        "document.querySelectorAll('.live-card').length === 0 || \
         Array.from(document.querySelectorAll('.live-card')).filter((c) => c.offsetParent !== null).length === 1",
    );
    browser.screenshot(&browser::artifacts("live").join("projector.png"), None);
    browser.click("#projector");

    assert!(browser.errors.is_empty(), "{:#?}", browser.errors);

    // The page recovers when `arena serve` restarts.
    let port = free_port();
    let addr = format!("127.0.0.1:{port}");
    let mut server = Running::start(&["serve", &out.to_string_lossy(), "--addr", &addr]);
    let served = server.url();
    assert_eq!(served, format!("http://{addr}/"));
    browser.goto(&served);
    browser.wait_for("document.body.dataset.connected === 'yes'");
    server.kill();
    browser.wait_for("document.body.dataset.connected === 'no'");
    assert_eq!(
        browser.eval("document.getElementById('conn').hidden"),
        false
    );
    let updates = browser.eval("Number(document.body.dataset.updates)");
    let mut server = Running::start(&["serve", &out.to_string_lossy(), "--addr", &addr]);
    server.url();
    browser.wait_for(&format!(
        "document.body.dataset.connected === 'yes' && Number(document.body.dataset.updates) > {updates}"
    ));
    assert_eq!(browser.eval("document.getElementById('conn').hidden"), true);
    // Only the stream cut by the kill and the refused reconnections while the
    // server was down are logged.
    let unexpected: Vec<&String> = browser
        .errors
        .iter()
        .filter(|e| {
            !e.contains("ERR_CONNECTION_REFUSED") && !e.contains("ERR_INCOMPLETE_CHUNKED_ENCODING")
        })
        .collect();
    assert!(unexpected.is_empty(), "{unexpected:#?}");
    let outside: Vec<&String> = browser
        .requests
        .iter()
        .filter(|r| !r.starts_with("http://127.0.0.1:") && *r != "about:blank")
        .collect();
    assert!(
        outside.is_empty(),
        "requests outside the server: {outside:#?}"
    );
    server.kill();
    run.interrupt();
}

#[test]
#[cfg_attr(
    not(has_chromium),
    ignore = "needs headless Chromium: apt-get install chromium, or set UTTT_CHROMIUM"
)]
fn serve_shows_a_finished_run_and_a_killed_one_and_nothing_else() {
    browser::chromium();
    let dir = tempfile::tempdir().expect("tempdir");
    // A finished run.
    let finished = dir.path().join("finished");
    let output = arena(&[
        "match",
        "random",
        "random",
        "--games",
        "2",
        "--seed",
        "1",
        "--out",
        &finished.to_string_lossy(),
    ]);
    assert!(output.status.success(), "{output:?}");
    // A run killed while its games were being played.
    let killed = dir.path().join("killed");
    let cfg = config(dir.path());
    let mut run = Running::start(&[
        "tournament",
        &cfg.to_string_lossy(),
        "--out",
        &killed.to_string_lossy(),
        "--quiet",
        "--concurrency",
        "2",
    ]);
    wait_until("marks in a live file", Duration::from_secs(60), || {
        a_live_game(&killed).is_some_and(|(_, p)| complete_lines(&p) >= 4)
    });
    run.kill();

    let server = Running::start(&[
        "serve",
        &finished.to_string_lossy(),
        &killed.to_string_lossy(),
        "--addr",
        "127.0.0.1:0",
    ]);
    let base = server.url();
    let done = state(&base, 0);
    assert_eq!(done["status"], "finished", "{done}");
    assert_eq!(done["done"], 2);
    assert_eq!(done["live"].as_array().map(Vec::len), Some(0));
    assert_eq!(done["feed"].as_array().map(Vec::len), Some(2));
    let stopped = state(&base, 1);
    assert_eq!(stopped["status"], "stopped", "{stopped}");
    let live = stopped["live"].as_array().expect("live games");
    assert!(!live.is_empty());
    assert!(live.iter().all(|g| g["running"] == false), "{stopped}");
    // [opening, moves, …]: one symbol per mark written before the kill.
    assert!(
        live[0]["play"][1].as_str().map_or(0, str::len) >= 3,
        "{stopped}"
    );
    assert_eq!(stopped["eta_s"], Value::Null);

    // The index lists both runs.
    let (status, _, index) = http(&base, "/");
    assert_eq!(status, 200);
    assert!(index.contains("/run/0/") && index.contains("/run/1/") && index.contains("live-test"));

    // Only the pages: nothing of the directories or the machine is served.
    let secret = std::fs::read_to_string(finished.join("games.csv")).expect("games.csv");
    for path in [
        "/run/0/games.csv",
        "/run/0/../games.csv",
        "/run/0/%2e%2e/%2e%2e/etc/passwd",
        "/assets/..%2f..%2fCargo.toml",
        "/assets/../../../../etc/passwd",
        "/run/1/live/",
        "/run/0/bot/..%2f..%2fgames.csv",
        "/run/0/bot/..%2F..%2F..%2Fetc%2Fpasswd",
        "/run/0/game/..%2f..%2fgames.csv",
        "/run/0/game/G9999",
        "/run/2/",
        "/run/-1/state",
        "//etc/passwd",
        "/tournament.json",
    ] {
        let (status, head, body) = http(&base, path);
        assert!(matches!(status, 400 | 404), "{path}: {status} {body}");
        assert!(
            !body.contains("root:") && !body.contains(secret.lines().next().unwrap_or("?")),
            "{path}: {body}"
        );
        assert!(
            head.contains("content-security-policy: default-src 'none'"),
            "{path}: {head}"
        );
    }

    // A page elsewhere that rebinds its name to this machine gets nothing.
    let host = base.trim_start_matches("http://").trim_end_matches('/');
    let mut stream = TcpStream::connect(host).expect("connect");
    write!(
        stream,
        "GET /run/0/state HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("read");
    assert!(answer.starts_with("HTTP/1.1 421"), "{answer}");
    assert!(!answer.contains("\"standings\""), "{answer}");

    // Bot command lines only with --show-logs.
    let (status, _, page) = http(&base, "/run/0/bot/random");
    assert_eq!(status, 200, "{page}");
    assert!(
        !page.contains("\"command\"") && !page.contains(" bot random"),
        "{page}"
    );
    let logs = Running::start(&[
        "serve",
        &finished.to_string_lossy(),
        "--addr",
        "127.0.0.1:0",
        "--show-logs",
    ]);
    let (status, _, page) = http(&logs.url(), "/run/0/bot/random");
    assert_eq!(status, 200, "{page}");
    let page: Value = serde_json::from_str(&page).expect("JSON");
    assert!(
        page["command"]
            .as_str()
            .is_some_and(|c| c.ends_with(" bot random")),
        "{page}"
    );
    drop(logs);

    // In the browser the killed run's games show as unfinished.
    let mut browser = Browser::launch();
    browser.viewport(1280, 900, false);
    browser.goto(&format!("{base}run/1/"));
    browser.wait_for("document.querySelectorAll('.live-card.stale').length > 0");
    let badge = browser.eval("document.querySelector('.live-card.stale .badge').textContent");
    assert_eq!(badge, "Unfinished: the run playing it stopped");
    assert_eq!(
        browser.eval("document.getElementById('status').textContent"),
        "Stopped (not finished)"
    );

    // A finished game opens from the feed in the report's viewer, fetched on its
    // own: its marks are those of moves.csv; the first position is empty.
    browser.goto(&format!("{base}run/0/"));
    browser.wait_for("document.querySelector('#feed-list a[href=\"#game/G0001\"]') !== null");
    browser.click("#feed-list a[href=\"#game/G0001\"]");
    browser.wait_for("document.getElementById('viewer').dataset.game === 'G0001' && !document.getElementById('game').hidden");
    let mut expected = vec!['.'; 81];
    let moves = std::fs::read_to_string(finished.join("moves.csv")).expect("moves.csv");
    let mut plies = 0;
    for line in moves.lines().skip(1).filter(|l| l.starts_with("G0001,")) {
        let cells: Vec<&str> = line.split(',').collect();
        let square = uttt::notation::parse_square_lenient(cells[4]).expect("a square");
        expected[square.index()] = cells[2].chars().next().expect("a mark");
        plies += 1;
    }
    let marks = "Array.from(document.querySelectorAll('#v-grid .cell')).map(c => \
        c.classList.contains('x') ? 'X' : c.classList.contains('o') ? 'O' : '.').join('')";
    assert_eq!(browser.eval(marks), expected.iter().collect::<String>());
    assert_eq!(
        browser.eval("document.getElementById('v-ply').textContent"),
        plies.to_string()
    );
    assert_ne!(
        browser.eval("document.getElementById('v-think').textContent"),
        "—"
    );
    browser.click("#v-first");
    assert_eq!(browser.eval(marks), ".".repeat(81));
    assert!(browser.errors.is_empty(), "{:#?}", browser.errors);

    // A directory that is not there is a usage error with the fix.
    let output = arena(&["serve", &dir.path().join("nowhere").to_string_lossy()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("is not a directory"));
    // Listening beyond this machine says so.
    let wide = Running::start(&["serve", &finished.to_string_lossy(), "--addr", "0.0.0.0:0"]);
    // (stdout's address and stderr's warning arrive in either order)
    let lines: Vec<String> = (0..2)
        .map(|_| {
            wide.lines
                .recv_timeout(Duration::from_secs(20))
                .expect("a line")
        })
        .collect();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("warning: the live page listens on 0.0.0.0")),
        "{lines:#?}"
    );
}
