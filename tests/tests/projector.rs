//! What the room reads on the projector, row by row: the live page of a round
//! robin, a Swiss, a knockout and a league of 8, 30 and 64 entrants (one of them
//! left out), while a round is being played and after the run, in headless
//! Chromium at 1366×768 and 1920×1080 in projector mode and on a 390×844 phone.
//!
//! A row is *readable* when the browser says so: its box is inside the screen and
//! inside every box that clips it, the element on top at its centre is the row's
//! own, its type is large enough for the room, and its text is not cut. On the
//! projector nothing scrolls: when the rows do not fit at a readable size the page
//! shows them a page at a time, so the test holds each page in turn (the page's
//! hook, `utttProjector.hold`) and asks which rows are readable on it; every row
//! must be readable on one of them, and the pages must go round within 30 s. On
//! the phone the page scrolls: each row is scrolled to and asked the same.
//!
//! The events are written by `uttt_tests::events` (the files a run leaves; a
//! round robin of 64 would take minutes to play); a Swiss of 9, a knockout of 16
//! and a league of 30 are also played for real, with a student left out.
//!
//! Screenshots go to `target/test-artifacts/projector/`; with
//! `UTTT_UPDATE_SCREENSHOTS` set, those the guide shows replace the ones in
//! `docs/projector/`.

#[path = "report/browser.rs"]
mod browser;
#[path = "report/readable.rs"]
mod readable;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use browser::Browser;
use readable::{PROBE_JS, Seen, pages};
use serde_json::{Value, json};
use uttt_tests::events::{self, Format, Moment, Written};
use uttt_tests::serving::Running;

/// The projector's screens.
const SIZES: [(u32, u32); 2] = [(1366, 768), (1920, 1080)];

/// The smallest type the room can read on a projector: a ninety-sixth of the
/// screen's width (14 px at 1366, 20 px at 1920).
fn room_type(width: u32) -> f64 {
    f64::from(width) / 96.0
}

/// The smallest type on a phone.
const PHONE_TYPE: f64 = 12.0;

/// What a reader scrolls to on the phone: every row of the ranking and the
/// league's tables, every pairing and match, the winner.
const PHONE_TARGETS: &str = "#ranking tbody tr, #league-wrap tbody tr, #pairings-list li, #event .match, #ranking li.left-out, #result";

/// How long the pages of a view may take to go round.
const CYCLE: Duration = Duration::from_secs(30);

/// Asserts that everything `w` says the page shows was readable, naming what was
/// not and why (`why` asks the page about a selector).
fn assert_all_read(seen: &Seen, w: &Written, at: &str, why: &mut dyn FnMut(&str) -> Value) {
    let missing = |what: &str, expected: Vec<String>, got: Vec<String>| -> Option<String> {
        let got: BTreeSet<String> = got.into_iter().collect();
        let lost: Vec<&String> = expected.iter().filter(|e| !got.contains(*e)).collect();
        (!lost.is_empty()).then(|| {
            format!(
                "{what}: {} of {} never readable, e.g. {:?}",
                lost.len(),
                expected.len(),
                &lost[..lost.len().min(5)]
            )
        })
    };
    let pair = |(a, b): &(String, String)| format!("{a} | {b}");
    let mut problems: Vec<String> = Vec::new();
    problems.extend(missing(
        "ranking rows (name | points)",
        w.ranking.iter().map(pair).collect(),
        seen.rows.iter().map(pair).collect(),
    ));
    problems.extend(missing(
        "left-out students",
        w.left_out.iter().map(|(n, _)| n.clone()).collect(),
        seen.left.iter().cloned().collect(),
    ));
    problems.extend(missing(
        "pairings",
        w.pairings.iter().map(pair).collect(),
        seen.pairs.iter().map(pair).collect(),
    ));
    problems.extend(missing(
        "byes",
        w.byes.clone(),
        seen.byes.iter().cloned().collect(),
    ));
    problems.extend(missing(
        "bracket matches",
        w.matches
            .iter()
            .map(|(a, b)| {
                if b.is_empty() {
                    a.clone()
                } else {
                    pair(&(a.clone(), b.clone()))
                }
            })
            .collect(),
        seen.matches
            .iter()
            .map(|(a, b)| {
                if b.is_empty() {
                    a.clone()
                } else {
                    pair(&(a.clone(), b.clone()))
                }
            })
            .collect(),
    ));
    problems.extend(missing(
        "levels",
        w.levels.clone(),
        seen.levels.iter().cloned().collect(),
    ));
    problems.extend(missing(
        "winner",
        w.winner.iter().cloned().collect(),
        seen.winner.iter().cloned().collect(),
    ));
    if !problems.is_empty() {
        let whys = json!({
            "ranking": why("#ranking tbody th.name, #ranking tbody .points, #ranking tbody .rating, #ranking .why"),
            "pairings": why("#pairings-list .who"),
            "bracket": why("#event .match .who"),
            "winner": why("#winner-name"),
        });
        panic!("{at}: {}\nwhy, for some: {whys:#}", problems.join("\n"));
    }
}

/// Looks at run `run` of the server at `base` on the projector at every size
/// and on the phone; `shots` names its screenshots.
fn look(browser: &mut Browser, base: &str, run: usize, w: &Written, shots: &Path, stem: &str) {
    browser.viewport(1366, 768, false);
    browser.goto(&format!("{base}run/{run}/?projector"));
    browser.wait_for_within(
        "Number(document.body.dataset.updates || 0) > 0",
        Duration::from_secs(30),
    );
    browser.eval(PROBE_JS);
    for (width, height) in SIZES {
        let at = format!("{stem}, projector {width}×{height}");
        browser.viewport(width, height, false);
        // Laid out again for the new size.
        std::thread::sleep(Duration::from_millis(300));
        let sizes = browser
            .eval("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]");
        assert!(
            sizes[0].as_f64() <= Some(f64::from(width) + 1.0)
                && sizes[1].as_f64() <= Some(f64::from(height) + 1.0),
            "{at}: the page scrolls ({sizes})"
        );
        let (n, cycle) = pages(browser);
        assert!(
            cycle <= CYCLE.as_millis() as f64,
            "{at}: {n} pages take {cycle} ms to go round"
        );
        let mut seen = Seen::default();
        for k in 0..n {
            if n > 1 {
                browser.eval(&format!("window.utttProjector.hold({k})"));
            }
            let font = room_type(width);
            seen.add(&browser.eval(&format!("window.__rows({font})")));
            let shot = if n > 1 {
                format!("{stem}-{width}x{height}-page{}.png", k + 1)
            } else {
                format!("{stem}-{width}x{height}.png")
            };
            browser.screenshot(&shots.join(shot), None);
        }
        if n > 1 {
            browser.eval("window.utttProjector.hold(null)");
        }
        let font = room_type(width);
        assert_all_read(&seen, w, &at, &mut |sel| {
            browser.eval(&format!("window.__why({}, {font})", json!(sel)))
        });
        if w.live.is_none() {
            continue;
        }
        // The game in progress keeps its board.
        let board = browser.eval(
            "(() => { const g = document.querySelector('.live-card.featured .grid'); if (!g) return 0; \
             const r = g.getBoundingClientRect(); return r.bottom <= innerHeight + 0.5 && r.top >= 0 ? r.height : 0; })()",
        );
        assert!(
            board.as_f64().unwrap_or(0.0) > 0.5 * f64::from(height),
            "{at}: the board is {board} px tall"
        );
    }
    // The phone: the normal view, scrolled to each row.
    browser.viewport(390, 844, true);
    browser.eval("document.body.classList.contains('projector') && document.getElementById('projector').click()");
    browser.wait_for("!document.body.classList.contains('projector')");
    browser.eval(PROBE_JS);
    let mut seen = Seen::default();
    let every = browser.eval(&format!(
        "document.querySelectorAll({}).length",
        json!(PHONE_TARGETS)
    ));
    for k in 0..every.as_u64().unwrap_or(0) {
        // Scrolled to, as a reader would: the row, then its value inside a card
        // that scrolls sideways.
        seen.add(&browser.eval(&format!(
            "(() => {{ const e = document.querySelectorAll({targets})[{k}]; \
             e.scrollIntoView({{ block: 'center', inline: 'nearest' }}); \
             const v = e.querySelector(e.classList.contains('left-out') ? '.why' : '.points, td.rating, .pts:last-of-type'); \
             if (v) v.scrollIntoView({{ block: 'center', inline: 'nearest' }}); \
             return window.__rows({PHONE_TYPE}); }})()",
            targets = json!(PHONE_TARGETS)
        )));
    }
    browser.eval(
        "document.querySelectorAll('.table-wrap, .bracket').forEach((w) => { w.scrollLeft = 0; }); \
         document.getElementById('ranking').scrollIntoView()",
    );
    browser.screenshot(&shots.join(format!("{stem}-phone.png")), None);
    publish(shots, stem);
    let at = format!("{stem}, phone");
    assert_all_read(&seen, w, &at, &mut |sel| {
        browser.eval(&format!("window.__why({}, {PHONE_TYPE})", json!(sel)))
    });
}

/// The screenshots the guide shows (docs/guide/classroom.md), by the names
/// this test gives them.
/// A view that pages is shown by its first page.
const IN_THE_GUIDE: [&str; 9] = [
    "swiss-30-running-1366x768",
    "swiss-64-finished-1920x1080",
    "knockout-30-running-1366x768",
    "knockout-64-finished-1366x768",
    "league-30-running-1366x768",
    "round-robin-30-finished-1366x768",
    "swiss-30-running-phone",
    "played-league-30-1920x1080",
    "played-knockout-16-1366x768",
];

/// With `UTTT_UPDATE_SCREENSHOTS` set, copies the guide's pictures of `stem`
/// to `docs/projector/`.
fn publish(shots: &Path, stem: &str) {
    if std::env::var_os("UTTT_UPDATE_SCREENSHOTS").is_none() {
        return;
    }
    let docs = uttt_tests::repo_root().join("docs").join("projector");
    std::fs::create_dir_all(&docs).expect("docs/projector");
    for name in IN_THE_GUIDE
        .iter()
        .filter(|n| n.starts_with(&format!("{stem}-")))
    {
        let first = shots.join(format!("{name}-page1.png"));
        let from = if first.exists() {
            first
        } else {
            shots.join(format!("{name}.png"))
        };
        std::fs::copy(&from, docs.join(format!("{name}.png")))
            .unwrap_or_else(|e| panic!("copying {}: {e}", from.display()));
    }
}

/// Nothing about similarity, on the public page, in any view (its style sheet
/// aside).
fn assert_no_similarity(browser: &mut Browser, w: &Written, at: &str) {
    let Some((a, b)) = &w.flagged else { return };
    let html = browser.eval("document.body.outerHTML");
    let html = html.as_str().unwrap_or_default();
    for words in [
        "imilarity".to_string(),
        format!("{a} ~ {b}"),
        w.evidence.clone(),
    ] {
        assert!(!html.contains(&words), "{at}: the page holds {words:?}");
    }
}

/// Writes every event of `format` (8, 30 and 64 entrants, running and
/// finished), serves them and reads each.
fn every_size(format: Format) {
    browser::chromium();
    let dir = tempfile::tempdir().expect("tempdir");
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut events: Vec<(String, Written)> = Vec::new();
    for entrants in [8, 30, 64] {
        for moment in [Moment::Running, Moment::Finished] {
            let stem = format!(
                "{}-{entrants}-{}",
                format.word(),
                if moment == Moment::Running {
                    "running"
                } else {
                    "finished"
                }
            );
            let path = dir.path().join(&stem);
            events.push((stem, events::write(&path, format, entrants, moment)));
            dirs.push(path);
        }
    }
    let mut args = vec!["serve".to_string()];
    args.extend(dirs.iter().map(|d| d.to_string_lossy().into_owned()));
    args.extend(["--addr".to_string(), "127.0.0.1:0".to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let server = Running::start(&args);
    let base = server.url();
    let shots = browser::artifacts("projector");
    // This format's pictures of an earlier run would mix with this one's pages.
    for entry in std::fs::read_dir(&shots).expect("artifacts").flatten() {
        if entry
            .file_name()
            .to_string_lossy()
            .starts_with(format.word())
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    let mut browser = Browser::launch();
    for (run, (stem, written)) in events.iter().enumerate() {
        look(&mut browser, &base, run, written, &shots, stem);
        assert_no_similarity(&mut browser, written, stem);
    }
    assert!(browser.errors.is_empty(), "{:#?}", browser.errors);
    drop(server);
}

#[test]
fn a_round_robin_of_8_30_or_64_is_read_row_by_row_on_the_projector_and_the_phone() {
    every_size(Format::RoundRobin);
}

#[test]
fn a_swiss_of_8_30_or_64_is_read_row_by_row_with_its_pairings_and_bye() {
    every_size(Format::Swiss);
}

#[test]
fn a_knockout_of_8_30_or_64_is_read_match_by_match_with_its_final_and_winner() {
    every_size(Format::Knockout);
}

#[test]
fn a_league_of_8_30_or_64_is_read_student_by_student_with_its_levels_and_no_similarity() {
    every_size(Format::League);
}

/// A class of `n` students (Python bots that play random moves), each a folder
/// under `dir/students/`, and one more whose bot has a syntax error (a league,
/// which plays a bot that cannot start: who handed in no bot at all).
fn class(dir: &Path, n: usize, league: bool) -> Vec<String> {
    let good = std::fs::read_to_string(uttt_tests::test_bot("good.py")).expect("good.py");
    let names = events::names(n + 1);
    for name in &names[..n] {
        uttt_tests::classes::write(
            dir,
            &[
                (&format!("students/{name}/bot.py"), &good),
                (
                    &format!("students/{name}/bot.toml"),
                    "command = \"python3 bot.py --random\"\n",
                ),
            ],
        );
    }
    // Two of them share a file nobody else has: a pair for the similarity
    // check to flag.
    for name in &names[1..3] {
        uttt_tests::classes::write(dir, &[(&format!("students/{name}/tactics.py"), TACTICS)]);
    }
    let (file, text) = if league {
        ("notes.txt", "my bot is coming\n")
    } else {
        ("bot.py", "import sys\ndef x(:\n")
    };
    uttt_tests::classes::write(dir, &[(&format!("students/{}/{file}", names[n]), text)]);
    names
}

/// A file two students hand in alike.
const TACTICS: &str = "def lines_through(cell):\n    rows = [(0, 1, 2), (3, 4, 5), (6, 7, 8)]\n    cols = [(0, 3, 6), (1, 4, 7), (2, 5, 8)]\n    diagonals = [(0, 4, 8), (2, 4, 6)]\n    return [line for line in rows + cols + diagonals if cell in line]\n\n\ndef threat(board, mark):\n    for line in lines_through(4):\n        values = [board[i] for i in line]\n        if values.count(mark) == 2 and values.count(None) == 1:\n            return line[values.index(None)]\n    return None\n\n\ndef score(board, mark, other):\n    total = 0\n    for cell in range(9):\n        if board[cell] == mark:\n            total += len(lines_through(cell)) * 3\n        elif board[cell] == other:\n            total -= len(lines_through(cell)) * 2\n    return total\n";

/// Points as the page writes them (swiss.csv's `3.0` is `3`).
fn points_of(text: &str) -> String {
    let points: f64 = text.parse().expect("points");
    format!("{points}")
}

/// The bots the run left out, from tournament.json.
fn left_out(out: &Path) -> Vec<(String, String)> {
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(out.join("tournament.json")).expect("manifest"))
            .expect("json");
    manifest["left_out"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|l| {
            (
                l["name"].as_str().unwrap_or_default().to_string(),
                l["why"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// Waits for the run to end and say that its page stays up; returns its lines.
fn until_the_page_stays(run: &Running) -> Vec<String> {
    let deadline = std::time::Instant::now() + Duration::from_secs(600);
    let mut said = Vec::new();
    loop {
        if let Ok(line) = run.lines.recv_timeout(Duration::from_millis(200)) {
            let done = line.contains("live page stays up");
            said.push(line);
            if done {
                return said;
            }
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the run did not end: {said:#?}"
        );
    }
}

/// Plays `format` with the class of `n` students and `--serve`, and reads the
/// finished event's page on the projector and the phone.
fn played(format: &str, n: usize, extra: &str) {
    browser::chromium();
    let dir = tempfile::tempdir().expect("tempdir");
    let league = format == "league";
    let names = class(dir.path(), n, league);
    let out = dir.path().join("results");
    let text = if league {
        "name = \"class league\"\ngames = 2\nseed = 5\n[time]\nmove-ms = 1000\nfirst-move-ms = 5000\n\
         [league]\nmode = \"levels\"\nlevels = [\"level1\", \"level2\"]\npass = \"level2\"\n\
         [[bot]]\nglob = \"students/*\"\n"
            .to_string()
    } else {
        format!(
            "name = \"class {format}\"\nformat = \"{format}\"\ngames = 2\nseed = 5\n{extra}\
             [time]\nmove-ms = 1000\nfirst-move-ms = 5000\n[[bot]]\nglob = \"students/*\"\n"
        )
    };
    let file = dir.path().join("event.toml");
    std::fs::write(&file, text).expect("event file");
    let command = if league { "league" } else { "tournament" };
    let mut run = Running::start(&[
        command,
        &file.to_string_lossy(),
        "--out",
        &out.to_string_lossy(),
        "--serve",
        "127.0.0.1:0",
    ]);
    let base = run.url();
    let said = until_the_page_stays(&run);
    // The page stays with the finished run, whatever the command.
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        run.child.try_wait().ok().flatten().is_none(),
        "the page went away: {said:#?}"
    );
    let mut w = Written {
        left_out: left_out(&out),
        ..Written::default()
    };
    assert_eq!(
        w.left_out.iter().map(|l| l.0.clone()).collect::<Vec<_>>(),
        [names[n].clone()],
        "{said:#?}"
    );
    match format {
        "swiss" => {
            let rows = uttt_tests::read_csv(&out.join("swiss.csv"));
            w.ranking = rows
                .iter()
                .map(|r| (r["bot"].clone(), points_of(&r["points"])))
                .collect();
            w.winner = Some(rows[0]["bot"].clone());
        }
        "knockout" => {
            let rows = uttt_tests::read_csv(&out.join("knockout.csv"));
            w.matches = rows
                .iter()
                .map(|r| (r["a"].clone(), r["b"].clone()))
                .collect();
            let last = rows
                .iter()
                .max_by_key(|r| r["round"].parse::<u32>().unwrap_or(0))
                .expect("a final");
            w.winner = Some(last["winner"].clone());
        }
        _ => {
            let grades = uttt_tests::read_csv(&out.join("grades.csv"));
            // A left-out student's row (its own, with no grade) is read as a
            // left-out student's, below the table (w.left_out).
            w.ranking = grades
                .iter()
                .filter(|g| g["status"] != "left-out")
                .map(|g| {
                    let rating = match g["rating"].as_str() {
                        "" => match (g["rating_low"].as_str(), g["rating_high"].as_str()) {
                            (low, "") if !low.is_empty() => format!("above {}", signed(low)),
                            ("", high) if !high.is_empty() => format!("below {}", signed(high)),
                            _ => "—".into(),
                        },
                        r => signed(r),
                    };
                    (g["student"].clone(), rating)
                })
                .collect();
            w.levels = vec!["level1".into(), "level2".into()];
            let pairs = uttt_tests::read_csv(&out.join("similarity.csv"));
            let flagged = pairs.iter().find(|p| p["flagged"] == "yes");
            let flagged = flagged.unwrap_or_else(|| panic!("a copied file is flagged: {pairs:#?}"));
            w.flagged = Some((flagged["a"].clone(), flagged["b"].clone()));
            w.evidence = flagged["evidence"]
                .split("; ")
                .next()
                .unwrap_or_default()
                .to_string();
            assert!(!w.evidence.is_empty(), "{flagged:?}");
        }
    }
    let shots = browser::artifacts("projector");
    let mut browser = Browser::launch();
    let stem = format!("played-{format}-{n}");
    look(&mut browser, &base, 0, &w, &shots, &stem);
    if let Some((a, b)) = &w.flagged {
        // Nothing of it on the page, in any view; the teacher's report has it.
        browser.goto(&format!("{base}run/0/"));
        browser.wait_for("Number(document.body.dataset.updates || 0) > 0");
        assert_no_similarity(&mut browser, &w, &stem);
        browser.open(&out.join("report.html"), "");
        assert_no_similarity(&mut browser, &w, &format!("{stem}, report.html"));
        let teacher = uttt_tests::arena(&["report", &out.to_string_lossy(), "--teacher"]);
        assert!(teacher.status.success(), "{teacher:?}");
        browser.open(&out.join("report-teacher.html"), "");
        let pairs = browser.eval(
            "Array.from(document.querySelectorAll('#league table.similarity tr.flagged th')).map((t) => t.textContent)",
        );
        assert!(
            pairs.to_string().contains(&format!("{a} ~ {b}")),
            "the teacher's report: {pairs}"
        );
    }
    assert!(browser.errors.is_empty(), "{:#?}", browser.errors);
    run.interrupt();
    assert_eq!(run.child.wait().expect("exit").code(), Some(0), "{said:#?}");
}

/// A rating as the page writes it, from grades.csv's integer.
fn signed(text: &str) -> String {
    match text.parse::<i64>().expect("a rating") {
        0 => "0".into(),
        r if r > 0 => format!("+{r}"),
        r => r.to_string(),
    }
}

#[test]
fn a_played_swiss_of_9_is_read_row_by_row_after_the_run_with_its_left_out_student() {
    played("swiss", 9, "rounds = 4\n");
}

#[test]
fn a_played_knockout_of_16_is_read_match_by_match_after_the_run_with_its_final() {
    played("knockout", 16, "");
}

#[test]
fn a_played_league_of_30_is_read_student_by_student_and_its_page_stays_until_ctrl_c() {
    played("league", 30, "");
}
