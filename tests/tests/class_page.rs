//! The page a class watches, end to end: a Swiss and a knockout of five Python
//! bots played with `--serve`, watched in headless Chromium at 1366×768,
//! 1920×1080 (desktop and projector) and 390×844 (a phone), while they run and
//! after they finish.
//!
//! - the event's own ranking: the Swiss table with the round and its pairings, the
//!   knockout's bracket with scores; the Elo table unnumbered beside it;
//! - projector mode is one screen: the board inside the viewport and every bot
//!   readable in the ranking (on one of its pages: `report/readable.rs`), nothing
//!   to scroll, no engine `info` in sight; `/?projector` survives the redirect to
//!   `/run/0/`;
//! - the end of the run: the page stays (the terminal says so) on "Finished" with
//!   the winner, until Ctrl-C;
//! - `arena serve DIR…`'s index lists name, format, status, games and winner;
//!   `report.html#G0009` opens with that game's viewer at the top of the screen.
//!
//! Screenshots go to `target/test-artifacts/class-page/`; with
//! `UTTT_UPDATE_SCREENSHOTS` set, the projector one replaces `docs/projector.png`.

#[path = "report/browser.rs"]
mod browser;
#[path = "report/readable.rs"]
mod readable;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use browser::Browser;
use serde_json::{Value, json};
use uttt_tests::serving::{Running, http};
use uttt_tests::test_bot;

/// The five bots of the class, playing random moves a little slowly, so that a
/// game stays on the board for a few seconds.
const CLASS: [&str; 5] = ["ada", "bjarne", "grace", "linus", "margaret"];

fn config(dir: &Path, format: &str) -> PathBuf {
    let good = test_bot("good.py");
    let mut text = format!(
        "name = \"class-{format}\"\nseed = 5\ngames = 2\nformat = \"{format}\"\n{}\
         [time]\nmove-ms = 3000\nfirst-move-ms = 5000\n",
        if format == "swiss" {
            "rounds = 3\n"
        } else {
            ""
        }
    );
    for name in CLASS {
        text.push_str(&format!(
            "[[bot]]\nname = \"{name}\"\ncommand = \"python3 {} --random --delay 70 --info 'depth 9 pv e5 a1 b2 nodes 123456'\"\n",
            good.display()
        ));
    }
    let path = dir.join(format!("{format}.toml"));
    std::fs::write(&path, text).expect("write config");
    path
}

/// The box of the first element `selector` matches, as [left, top, right, bottom],
/// and the viewport's [width, height].
fn boxes(browser: &mut Browser, selector: &str) -> (Vec<f64>, Vec<f64>) {
    let value = browser.eval(&format!(
        "(() => {{ const e = document.querySelector({sel}); if (!e) return null; \
         const r = e.getBoundingClientRect(); \
         return [[r.left, r.top, r.right, r.bottom], [innerWidth, innerHeight]]; }})()",
        sel = json!(selector)
    ));
    let nums = |v: &Value| -> Vec<f64> {
        v.as_array()
            .unwrap_or_else(|| panic!("no element {selector}"))
            .iter()
            .map(|n| n.as_f64().expect("a number"))
            .collect()
    };
    (nums(&value[0]), nums(&value[1]))
}

/// The element is on the screen, whole, and not an empty box.
fn assert_inside(browser: &mut Browser, selector: &str, at: &str) {
    let (r, view) = boxes(browser, selector);
    assert!(
        r[0] >= -0.5 && r[1] >= -0.5 && r[2] <= view[0] + 0.5 && r[3] <= view[1] + 0.5,
        "{at}: {selector} at {r:?} is not inside the {view:?} viewport"
    );
    assert!(
        r[2] - r[0] > 20.0 && r[3] - r[1] > 10.0,
        "{at}: {selector} is {r:?}"
    );
}

/// The page does not scroll, either way.
fn assert_one_screen(browser: &mut Browser, at: &str) {
    let sizes = browser.eval(
        "[document.documentElement.scrollWidth, document.documentElement.scrollHeight, innerWidth, innerHeight]",
    );
    let n = |i: usize| sizes[i].as_f64().unwrap_or(0.0);
    assert!(
        n(0) <= n(2) + 1.0 && n(1) <= n(3) + 1.0,
        "{at}: the page is {}×{} on a {}×{} screen",
        n(0),
        n(1),
        n(2),
        n(3)
    );
}

/// Where the top of the event's ranking is: the Swiss table's first row, the
/// bracket's first round.
fn ranking_top(format: &str) -> &'static str {
    if format == "swiss" {
        "#event table tbody tr"
    } else {
        "#event .bracket-round .match"
    }
}

/// Every bot of the class is readable in the projector's ranking, on one of
/// its pages: a row of the Swiss table, a slot of the bracket.
fn assert_every_bot_read(browser: &mut Browser, format: &str, width: u32, at: &str) {
    let seen = readable::over_the_pages(browser, f64::from(width) / 96.0);
    let read: Vec<String> = if format == "swiss" {
        seen.rows.iter().map(|r| r.0.clone()).collect()
    } else {
        seen.matches
            .iter()
            .flat_map(|m| [m.0.clone(), m.1.clone()])
            .collect()
    };
    for name in CLASS {
        assert!(
            read.iter().any(|r| r == name),
            "{at}: {name} is not readable in the ranking: {seen:?}"
        );
    }
}

const SIZES: [(u32, u32); 2] = [(1366, 768), (1920, 1080)];

/// A game on the board (the projector's featured one, when in projector mode).
fn wait_for_a_game(browser: &mut Browser) {
    browser.wait_for_within(
        "Array.from(document.querySelectorAll('.live-card')).some((c) => c.offsetParent !== null && Number(c.dataset.ply) > 2)",
        Duration::from_secs(60),
    );
}

fn check_running(browser: &mut Browser, format: &str, shots: &Path) {
    for (w, h) in SIZES {
        let at = format!("{format} running, {w}×{h}");
        browser.viewport(w, h, false);
        // Desktop: the games beside the ranking, both on the first screen.
        browser.eval("document.body.classList.contains('projector') && document.getElementById('projector').click()");
        browser.wait_for("!document.body.classList.contains('projector')");
        browser.eval("window.scrollTo(0, 0)");
        wait_for_a_game(browser);
        assert_inside(browser, ".live-card .grid", &at);
        assert_inside(browser, ranking_top(format), &at);
        browser.screenshot(&shots.join(format!("{format}-desktop-{w}x{h}.png")), None);
        // Projector: one screen, the featured game large and the ranking beside it.
        browser.click("#projector");
        browser.wait_for("document.body.classList.contains('projector')");
        wait_for_a_game(browser);
        let at = format!("{at}, projector");
        assert_inside(browser, ".live-card.featured .grid", &at);
        assert_every_bot_read(browser, format, w, &at);
        assert_inside(browser, "#ranking h2", &at);
        assert_one_screen(browser, &at);
        let (board, view) = boxes(browser, ".live-card.featured .grid");
        assert!(
            board[3] - board[1] > 0.55 * view[1],
            "{at}: the board is {board:?}, small on a {view:?} screen"
        );
        // The engine's pv and tree are not shown to the room.
        assert_eq!(
            browser.eval(
                "getComputedStyle(document.querySelector('.live-card.featured .info')).display"
            ),
            "none",
            "{at}"
        );
        browser.screenshot(&shots.join(format!("{format}-projector-{w}x{h}.png")), None);
    }
    browser.click("#projector");
    browser.wait_for("!document.body.classList.contains('projector')");
}

fn check_phone(browser: &mut Browser, at: &str) {
    browser.viewport(390, 844, true);
    browser.wait_for_within(
        "document.querySelector('#standings-body th.name') !== null",
        Duration::from_secs(120),
    );
    browser.wait_for("document.documentElement.scrollWidth <= 391");
    // The Elo table fits or scrolls inside its card, names kept.
    let (table, _) = boxes(browser, "#standings .table-wrap");
    let (card, _) = boxes(browser, "#standings");
    assert!(
        table[2] <= card[2] + 0.5,
        "{at}: {table:?} outside {card:?}"
    );
    let (name, _) = boxes(browser, "#standings-body th.name");
    assert!(
        name[2] - name[0] >= 48.0,
        "{at}: names squeezed to {name:?}"
    );
    assert!(name[0] >= card[0], "{at}: the name column left its card");
}

/// Plays `format` with `--serve` and checks its page while it runs and after.
fn class_event(format: &str) {
    browser::chromium();
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("results");
    let cfg = config(dir.path(), format);
    let mut run = Running::start(&[
        "tournament",
        &cfg.to_string_lossy(),
        "--out",
        &out.to_string_lossy(),
        "--concurrency",
        "2",
        "--serve",
        "127.0.0.1:0",
    ]);
    let url = run.url();
    let shots = browser::artifacts("class-page");
    let mut browser = Browser::launch();
    browser.viewport(1366, 768, false);
    // `?projector` survives the redirect to the run's page.
    browser.goto(&format!("{url}?projector"));
    browser.wait_for("Number(document.body.dataset.updates || 0) > 0");
    assert_eq!(
        browser.eval("location.pathname + location.search"),
        "/run/0/?projector"
    );
    assert_eq!(
        browser.eval("document.body.classList.contains('projector')"),
        true
    );
    browser.wait_for_within(
        "document.getElementById('event').children.length > 0",
        Duration::from_secs(30),
    );
    if format == "swiss" {
        browser.wait_for("/Round \\d of 3/.test(document.getElementById('round').textContent)");
        browser.eval("document.getElementById('projector').click()");
        browser.wait_for("!document.getElementById('pairings').hidden && document.querySelectorAll('#pairings-list li').length === 3");
        browser.eval("document.getElementById('projector').click()");
    } else {
        assert!(
            browser
                .eval("document.querySelectorAll('#event .bracket-round').length")
                .as_u64()
                .unwrap_or(0)
                == 3,
            "five bots: three rounds"
        );
    }
    // The Elo table is a second view: not numbered, and it says why.
    assert_eq!(
        browser.eval("document.body.classList.contains('elo-unranked')"),
        true
    );
    assert!(
        browser
            .eval("document.getElementById('standings-hint').textContent")
            .as_str()
            .is_some_and(|t| t.contains("not a ranking"))
    );
    check_running(&mut browser, format, &shots);
    if std::env::var_os("UTTT_UPDATE_SCREENSHOTS").is_some() && format == "swiss" {
        // The guide's picture: a later round, points on the table.
        browser.viewport(1366, 768, false);
        browser.click("#projector");
        browser.wait_for_within(
            "/Round [23] of 3/.test(document.getElementById('round').textContent)",
            Duration::from_secs(120),
        );
        wait_for_a_game(&mut browser);
        browser.screenshot(
            &uttt_tests::repo_root().join("docs").join("projector.png"),
            None,
        );
        browser.click("#projector");
    }
    check_phone(&mut browser, &format!("{format} running, phone"));
    browser.viewport(1366, 768, false);

    // The end: the run stays served, says so, and the page shows the winner.
    let deadline = Instant::now() + Duration::from_secs(240);
    let mut said = Vec::new();
    loop {
        if let Ok(line) = run.lines.recv_timeout(Duration::from_millis(200)) {
            let done = line.contains("live page stays up");
            said.push(line);
            if done {
                break;
            }
        }
        assert!(Instant::now() < deadline, "the run did not end: {said:#?}");
        assert!(
            run.child.try_wait().ok().flatten().is_none(),
            "the run stopped serving: {said:#?}"
        );
    }
    browser.wait_for("document.getElementById('status').textContent === 'Finished'");
    browser.wait_for("!document.getElementById('result').hidden");
    let winner = browser.eval("document.getElementById('winner-name').textContent");
    let expected = file_winner(&out, format);
    assert_eq!(winner, json!(expected), "{said:#?}");
    // Finished runs lead with the result, not an empty "Games in progress".
    assert_eq!(
        browser.eval("document.getElementById('stage').classList.contains('no-live')"),
        true
    );
    for (w, h) in SIZES {
        browser.viewport(w, h, false);
        browser.eval("window.scrollTo(0, 0)");
        let at = format!("{format} finished, {w}×{h}");
        assert_inside(&mut browser, "#result", &at);
        assert_inside(&mut browser, ranking_top(format), &at);
        browser.click("#projector");
        browser.wait_for("document.body.classList.contains('projector')");
        let at = format!("{at}, projector");
        assert_inside(&mut browser, "#result", &at);
        assert_every_bot_read(&mut browser, format, w, &at);
        assert_one_screen(&mut browser, &at);
        browser.screenshot(
            &shots.join(format!("{format}-finished-projector-{w}x{h}.png")),
            None,
        );
        browser.click("#projector");
        browser.wait_for("!document.body.classList.contains('projector')");
    }
    check_phone(&mut browser, &format!("{format} finished, phone"));
    if format == "knockout" {
        // The final, drawn with its score, names the winner.
        assert_eq!(
            browser.eval("document.querySelector('#event .bracket-round:last-child .match .won .who').textContent"),
            json!(expected)
        );
    }
    assert!(browser.errors.is_empty(), "{:#?}", browser.errors);

    // Ctrl-C ends it, with the run's own exit code.
    run.interrupt();
    let status = run.child.wait().expect("wait");
    assert_eq!(status.code(), Some(0), "{said:#?}");

    if format == "swiss" {
        report_fragment_scrolls_to_its_game(&mut browser, &out);
    }
}

/// The winner as the run's files say: the Swiss table's first line, the final's
/// winner.
fn file_winner(out: &Path, format: &str) -> String {
    let rows = uttt_tests::read_csv(&out.join(format!("{format}.csv")));
    let row = if format == "swiss" {
        rows.iter().find(|r| r["rank"] == "1")
    } else {
        rows.iter()
            .max_by_key(|r| r["round"].parse::<u32>().unwrap_or(0))
    };
    let row = row.expect("a row");
    row[if format == "swiss" { "bot" } else { "winner" }].clone()
}

/// `report.html#G0009` opens with the viewer of G0009 at the top of the screen.
fn report_fragment_scrolls_to_its_game(browser: &mut Browser, out: &Path) {
    browser.viewport(1366, 768, false);
    browser.open(&out.join("report.html"), "#G0009");
    browser.wait_for("document.getElementById('viewer').dataset.game === 'G0009'");
    browser.wait_for("Math.abs(document.getElementById('viewer').getBoundingClientRect().top) < 40 && scrollY > 200");
    // And the report leads with the Swiss table, its Elo table unnumbered.
    let order = browser.eval("['swiss', 'standings'].map((id) => document.getElementById(id).getBoundingClientRect().top)");
    assert!(order[0].as_f64() < order[1].as_f64(), "{order}");
    assert_eq!(
        browser.eval("Array.from(document.querySelectorAll('#standings thead th')).some((t) => t.textContent === '#')"),
        false
    );
}

#[test]
#[cfg_attr(
    not(has_chromium),
    ignore = "needs headless Chromium: apt-get install chromium, or set UTTT_CHROMIUM"
)]
fn a_swiss_is_watched_by_its_table_and_pairings_and_stays_on_screen_with_its_winner() {
    class_event("swiss");
}

#[test]
#[cfg_attr(
    not(has_chromium),
    ignore = "needs headless Chromium: apt-get install chromium, or set UTTT_CHROMIUM"
)]
fn a_knockout_is_watched_by_its_bracket_and_stays_on_screen_with_its_winner() {
    class_event("knockout");
}

#[test]
fn serve_lists_runs_with_format_status_games_and_winner_and_keeps_the_projector_flag() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut dirs = Vec::new();
    for name in ["first", "second"] {
        let out = dir.path().join(name);
        let output = uttt_tests::arena(&[
            "match",
            "random",
            "greedy",
            "--games",
            "2",
            "--seed",
            "3",
            "--out",
            &out.to_string_lossy(),
        ]);
        assert!(output.status.success(), "{output:?}");
        dirs.push(out);
    }
    let single = Running::start(&["serve", &dirs[0].to_string_lossy(), "--addr", "127.0.0.1:0"]);
    let base = single.url();
    let (status, head, _) = http(&base, "/?projector");
    assert_eq!(status, 303, "{head}");
    assert!(head.contains("location: /run/0/?projector"), "{head}");
    let (_, head, _) = http(&base, "/");
    assert!(head.contains("location: /run/0/\r\n"), "{head}");
    drop(single);

    let both = Running::start(&[
        "serve",
        &dirs[0].to_string_lossy(),
        &dirs[1].to_string_lossy(),
        "--addr",
        "127.0.0.1:0",
    ]);
    let (status, _, index) = http(&both.url(), "/");
    assert_eq!(status, 200, "{index}");
    for words in [
        "Round robin",
        "Finished",
        "2 of 2",
        "<th scope=\"col\">Winner</th>",
    ] {
        assert!(index.contains(words), "{words}: {index}");
    }
    drop(both);

    // Bound to every address, the printed one is one a student can type.
    let wide = Running::start(&["serve", &dirs[0].to_string_lossy(), "--addr", "0.0.0.0:0"]);
    let url = wide.url();
    assert!(!url.contains("0.0.0.0"), "{url}");
    let (status, _, _) = http(&url, "/run/0/state");
    assert_eq!(status, 200, "{url}");
}
