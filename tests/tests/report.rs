//! `arena report` end to end: a real tournament of Python test bots (one of them
//! writes hostile `info` text and stderr, one crashes), the report `arena
//! tournament` writes at its end, and `arena report` on a copy whose results were
//! edited to carry a hostile bot name. The real file is then driven in headless
//! Chromium (see `report/browser.rs`): the boards drawn at a ply are checked square
//! by square against the rules engine (gold frame, claimed and drawn boards, last
//! move), the arrow keys, Home and End step the game, the phone layout shows the
//! boards in play large, and the page logs no error and requests nothing.
//!
//! Screenshots at desktop (1280×900) and phone (390×844) sizes are saved under
//! `target/test-artifacts/report/` for people to look at.

#[path = "report/browser.rs"]
mod browser;
#[path = "report/readable.rs"]
mod readable;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use browser::Browser;
use rand::{Rng as _, SeedableRng as _, rngs::StdRng};
use serde_json::json;
use uttt::rules::{BoardIndex, BoardState, Cell, Mark, Position, Rules, Square};
use uttt_tests::{Row, arena, read_csv, test_bot};

/// A bot name a results file might carry (edited by hand, or written by another
/// tool): markup that would run script if the page pasted it in.
const HOSTILE_NAME: &str = "</script><img src=x onerror=window.pwned=1>";
/// What the chatty bot says in every `info` line and on stderr.
const HOSTILE_INFO: &str = "</script><img src=y onerror=window.pwned=2> & 'single' \"double\"";
/// The gold of the frame around the boards in play (CSS `--gold`).
const GOLD: &str = "rgb(184, 134, 11)";
/// The slate wash over a drawn board (CSS `--slate`).
const SLATE: &str = "rgba(71, 85, 105, 0.45)";

/// An opening found by seeded random play with the rules engine, so that every game
/// shows what the viewer must draw: on the way a free move after a board was
/// claimed, and at the end a player sent to one board while one board is claimed
/// and another drawn (drawn boards are rare in random games).
fn opening() -> Vec<Square> {
    let mut rng = StdRng::seed_from_u64(5);
    loop {
        let mut p = Position::new(Rules::STANDARD);
        let mut moves = Vec::new();
        let mut free_after_claim = false;
        while !p.is_over() {
            let legal = p.legal_moves();
            let sq = legal
                .nth(rng.random_range(0..legal.len()))
                .expect("a legal move");
            p = p.play(sq).expect("legal");
            moves.push(sq);
            let (claimed, drawn) = claimed_and_drawn(&p);
            if p.is_over() {
                break;
            }
            free_after_claim |= claimed && p.required_board().is_none();
            if free_after_claim && claimed && drawn && p.required_board().is_some() {
                return moves;
            }
        }
    }
}

/// Four bots, two games per pairing (12 games) from one opening, a fixed seed:
/// `alpha` and `beta` play seeded random moves, `chatty` talks, `crasher` dies on
/// its 7th move.
fn play_tournament(dir: &Path) -> PathBuf {
    let book = uttt::notation::format_move_list(&opening());
    std::fs::write(dir.join("opening.txt"), format!("{book}\n")).expect("write opening");
    let good = test_bot("good.py");
    let hostile = test_bot("hostile.py");
    let config = format!(
        "name = \"report-test\"\nseed = 11\ngames = 2\n\
         [time]\nmove-ms = 2000\nfirst-move-ms = 5000\nmargin-ms = 500\n\
         [openings]\nfile = \"opening.txt\"\n\
         [[bot]]\nname = \"alpha\"\ncommand = \"python3 {good} --random\"\n\
         [[bot]]\nname = \"beta\"\ncommand = \"python3 {good} --random\"\n\
         [[bot]]\nname = \"chatty\"\ncommand = \"python3 {good} --last --info {info} --stderr {stderr}\"\n\
         [[bot]]\nname = \"crasher\"\ncommand = \"python3 {hostile} crash-signal --after 6\"\n",
        good = good.display(),
        hostile = hostile.display(),
        info = toml_quoted_arg(&format!("depth 2 score 0.5 string {HOSTILE_INFO}")),
        stderr = toml_quoted_arg(&format!("chatty starting: {HOSTILE_INFO}")),
    );
    let path = dir.join("t.toml");
    std::fs::write(&path, config).expect("write config");
    let out = dir.join("results");
    let output = arena(&[
        "tournament",
        &path.to_string_lossy(),
        "--out",
        &out.to_string_lossy(),
        "--quiet",
        "--concurrency",
        "2",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "tournament failed: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains(&format!("Report: {}", out.join("report.html").display())),
        "{stdout}"
    );
    out
}

/// `text` as one shell-quoted word inside a TOML basic string.
fn toml_quoted_arg(text: &str) -> String {
    let shell = format!("'{}'", text.replace('\'', "'\\''"));
    shell.replace('\\', "\\\\").replace('"', "\\\"")
}

/// A copy of the results in which `beta` is called [`HOSTILE_NAME`] everywhere.
fn with_hostile_name(results: &Path, dir: &Path) -> PathBuf {
    let copy = dir.join("hostile");
    std::fs::create_dir_all(&copy).expect("copy dir");
    for file in ["games.csv", "moves.csv", "tournament.json"] {
        let text = std::fs::read_to_string(results.join(file)).expect("read results");
        std::fs::write(copy.join(file), text.replace("beta", HOSTILE_NAME)).expect("write copy");
    }
    for sub in ["logs", "transcripts"] {
        let Ok(entries) = std::fs::read_dir(results.join(sub)) else {
            continue;
        };
        std::fs::create_dir_all(copy.join(sub)).expect("copy dir");
        for entry in entries.flatten() {
            std::fs::copy(entry.path(), copy.join(sub).join(entry.file_name())).expect("copy");
        }
    }
    copy
}

/// Every game's squares in ply order, from moves.csv.
fn games_moves(results: &Path) -> BTreeMap<String, Vec<Square>> {
    let mut games: BTreeMap<String, Vec<(u32, Square)>> = BTreeMap::new();
    for row in read_csv(&results.join("moves.csv")) {
        let ply: u32 = row["ply"].parse().expect("ply");
        let square: Square = row["square"].parse().expect("square");
        games
            .entry(row["game"].clone())
            .or_default()
            .push((ply, square));
    }
    games
        .into_iter()
        .map(|(id, mut moves)| {
            moves.sort_by_key(|m| m.0);
            (id, moves.into_iter().map(|m| m.1).collect())
        })
        .collect()
}

fn position(moves: &[Square]) -> Position {
    Position::from_moves(Rules::STANDARD, moves.iter().copied()).expect("moves.csv replays")
}

/// The boards the next mark may go in, by the engine.
fn playable(p: &Position) -> Vec<u8> {
    let legal = p.legal_moves();
    BoardIndex::ALL
        .into_iter()
        .filter(|&b| legal.iter().any(|sq| sq.board() == b))
        .map(BoardIndex::number)
        .collect()
}

/// The viewer's boards as drawn: classes, computed frame, overlay and wash, marks.
const READ_BOARDS: &str = r#"(() => Array.from(document.querySelectorAll('#v-grid .board')).map(b => ({
  board: Number(b.dataset.board),
  classes: Array.from(b.classList),
  outline: getComputedStyle(b).outlineColor,
  owner: getComputedStyle(b.querySelector('.owner')).display,
  ownerOpacity: Number(getComputedStyle(b.querySelector('.owner'), '::before').opacity),
  wash: getComputedStyle(b, '::after').backgroundColor,
  cells: Array.from(b.querySelectorAll('.cell')).map(c =>
    (c.classList.contains('x') ? 'X' : c.classList.contains('o') ? 'O' : '.') +
    (c.classList.contains('last') ? '*' : '')).join('')
})))()"#;

/// Checks the viewer shows game `id` after `k` of `moves`, as the engine has it.
fn assert_step(browser: &mut Browser, id: &str, moves: &[Square], k: usize) {
    let shown = browser.eval("[document.getElementById('viewer').dataset.game, document.getElementById('v-ply').textContent]");
    assert_eq!(
        shown,
        json!([id, k.to_string()]),
        "the viewer's game and ply"
    );
    let p = position(&moves[..k]);
    let in_play = playable(&p);
    let last = k.checked_sub(1).map(|i| moves[i]);
    let boards = browser.eval(READ_BOARDS);
    let boards = boards.as_array().expect("nine boards");
    assert_eq!(boards.len(), 9);
    for (b, drawn) in BoardIndex::ALL.into_iter().zip(boards) {
        let at = format!("{id} ply {k}, board {}", b.number());
        let has = |class: &str| {
            drawn["classes"]
                .as_array()
                .is_some_and(|c| c.contains(&json!(class)))
        };
        let playing = in_play.contains(&b.number());
        assert_eq!(has("in-play"), playing, "{at}: gold frame");
        if playing {
            assert_eq!(drawn["outline"], GOLD, "{at}: the frame is gold");
        } else {
            assert_ne!(drawn["outline"], GOLD, "{at}: no gold frame");
        }
        let state = p.board_state(b);
        assert_eq!(
            has("won-x"),
            state == BoardState::Won(Mark::X),
            "{at}: claimed by X"
        );
        assert_eq!(
            has("won-o"),
            state == BoardState::Won(Mark::O),
            "{at}: claimed by O"
        );
        let claimed = matches!(state, BoardState::Won(_));
        assert_eq!(
            drawn["owner"] == "block",
            claimed,
            "{at}: the owner's large mark"
        );
        if claimed {
            let opacity = drawn["ownerOpacity"].as_f64().expect("opacity");
            assert!(
                opacity < 0.9,
                "{at}: small marks show through the large one"
            );
        }
        assert_eq!(has("drawn"), state == BoardState::Drawn, "{at}: drawn");
        assert_eq!(
            drawn["wash"] == SLATE,
            state == BoardState::Drawn,
            "{at}: slate wash"
        );
        let expected: String = Cell::ALL
            .into_iter()
            .map(|c| {
                let sq = Square::new(b, c);
                let mark = match p.mark_at(sq) {
                    Some(Mark::X) => "X",
                    Some(Mark::O) => "O",
                    None => ".",
                };
                format!("{mark}{}", if Some(sq) == last { "*" } else { "" })
            })
            .collect();
        assert_eq!(drawn["cells"], expected, "{at}: marks and last move");
    }
}

/// A ply of some game where the player is sent to one board while at least one
/// board is claimed and one drawn; and a later free move (not the first ply).
fn interesting(games: &BTreeMap<String, Vec<Square>>) -> ((String, usize), (String, usize)) {
    let mut sent = None;
    let mut free = None;
    for (id, moves) in games {
        for k in 1..moves.len() {
            let p = position(&moves[..k]);
            let (claimed, drawn) = claimed_and_drawn(&p);
            if sent.is_none() && claimed && drawn && p.required_board().is_some() {
                sent = Some((id.clone(), k));
            }
            if free.is_none() && claimed && p.required_board().is_none() && !p.is_over() {
                free = Some((id.clone(), k));
            }
        }
    }
    (
        sent.expect("the opening ends with a claimed and a drawn board, a player sent"),
        free.expect("the opening has a free move after a board was claimed"),
    )
}

fn games_rows(results: &Path) -> Vec<Row> {
    read_csv(&results.join("games.csv"))
}

/// Whether `p` has a claimed board, and whether it has a drawn one.
fn claimed_and_drawn(p: &Position) -> (bool, bool) {
    let states = BoardIndex::ALL.map(|b| p.board_state(b));
    (
        states.iter().any(|s| matches!(s, BoardState::Won(_))),
        states.contains(&BoardState::Drawn),
    )
}

#[test]
#[cfg_attr(
    not(has_chromium),
    ignore = "needs headless Chromium: apt-get install chromium, or set UTTT_CHROMIUM"
)]
fn report_of_a_real_tournament_in_headless_chromium() {
    browser::chromium(); // fails at once, naming the package, when it is missing
    let dir = tempfile::tempdir().expect("temp dir");
    let results = play_tournament(dir.path());
    let rows = games_rows(&results);
    assert_eq!(rows.len(), 12);
    assert!(
        rows.iter().any(|r| r["reason"] == "crash"),
        "crasher crashed"
    );
    let games = games_moves(&results);
    let ((sent_id, k), (free_id, k_free)) = interesting(&games);

    // `arena report` on the edited copy, to another file name.
    let hostile = with_hostile_name(&results, dir.path());
    let page = hostile.join("hostile.html");
    let output = arena(&[
        "report",
        &hostile.to_string_lossy(),
        "-o",
        &page.to_string_lossy(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let html = std::fs::read_to_string(&page).expect("report written");
    assert!(
        !html.contains(HOSTILE_NAME) && !html.contains("<img"),
        "raw bot text in the page"
    );

    let shots = browser::artifacts("report");
    let mut browser = Browser::launch();

    // The tournament's own report: tables and chart, also without JavaScript.
    let own = results.join("report.html");
    browser.open(&own, "");
    let standings = browser.eval("document.querySelectorAll('#standings tbody tr').length");
    assert_eq!(standings, json!(4));
    assert_eq!(
        browser.eval("document.querySelectorAll('svg.elo-chart circle').length"),
        json!(4)
    );
    browser.call(
        "Emulation.setScriptExecutionDisabled",
        json!({ "value": true }),
    );
    browser.open(&own, "");
    let no_js = browser.eval(
        "[document.querySelectorAll('#crosstable td').length > 0, \
          document.querySelectorAll('#game-table tbody tr').length, \
          getComputedStyle(document.getElementById('viewer')).display]",
    );
    assert_eq!(
        no_js,
        json!([true, 12, "none"]),
        "tables without JavaScript, no empty viewer"
    );
    browser.call(
        "Emulation.setScriptExecutionDisabled",
        json!({ "value": false }),
    );

    // Desktop.
    browser.viewport(1280, 900, false);
    let url = browser.open(&page, "");
    browser.screenshot(&shots.join("desktop-top.png"), None);
    // A section link survives the viewer opening its first game.
    browser.open(&page, "#los");
    let anchored = browser.eval(
        "[location.hash, scrollY > 0, document.getElementById('viewer').dataset.game === 'G0001']",
    );
    assert_eq!(anchored, json!(["#los", true, true]));
    let name_cells = browser.eval(&format!(
        "Array.from(document.querySelectorAll('#game-table td, #standings th')).filter(e => e.textContent === {}).length",
        json!(HOSTILE_NAME)
    ));
    assert!(
        name_cells.as_u64().unwrap_or(0) > 6,
        "the hostile name shown as text: {name_cells}"
    );

    // A real click on the game's row opens it at its end; keys step it.
    browser.click(&format!(
        "#game-table tr[data-id=\"{sent_id}\"] td:nth-child(2)"
    ));
    browser.wait_for(&format!(
        "document.getElementById('viewer').dataset.game === '{sent_id}'"
    ));
    let moves = &games[&sent_id];
    assert_step(&mut browser, &sent_id, moves, moves.len());
    browser.key("Home");
    assert_step(&mut browser, &sent_id, moves, 0);
    for _ in 0..k {
        browser.key("ArrowRight");
    }
    assert_step(&mut browser, &sent_id, moves, k);
    browser.key("ArrowLeft");
    assert_step(&mut browser, &sent_id, moves, k - 1);
    browser.key("ArrowRight");
    assert_step(&mut browser, &sent_id, moves, k);
    let narrative = browser.eval("document.getElementById('v-lines').textContent");
    let words =
        uttt::notation::move_words(if k % 2 == 1 { Mark::X } else { Mark::O }, moves[k - 1]);
    assert!(
        narrative.as_str().is_some_and(|t| t.starts_with(&words)),
        "{narrative} / {words}"
    );
    browser.eval("document.getElementById('viewer').scrollIntoView()");
    browser.screenshot(&shots.join("desktop-viewer.png"), None);
    browser.key("End");
    assert_step(&mut browser, &sent_id, moves, moves.len());
    let slider = browser.eval(
        "(() => { const s = document.getElementById('v-slider'); s.value = '3'; \
          s.dispatchEvent(new Event('input')); return document.getElementById('v-ply').textContent; })()",
    );
    assert_eq!(slider, json!("3"));

    // Hostile info text, shown as text on the chatty bot's move; its stderr too.
    let (chatty_game, chatty_ply) = read_csv(&results.join("moves.csv"))
        .into_iter()
        .find(|m| m["bot"] == "chatty")
        .map(|m| (m["game"].clone(), m["ply"].clone()))
        .expect("chatty moved");
    browser.eval(&format!("location.hash = '{chatty_game}/{chatty_ply}'"));
    browser.wait_for(&format!(
        "document.getElementById('viewer').dataset.game === '{chatty_game}' && \
         document.getElementById('v-ply').textContent === '{chatty_ply}'"
    ));
    let info = browser.eval("document.getElementById('v-info').textContent");
    assert_eq!(info, json!(format!("depth 2 · score 0.5 · {HOSTILE_INFO}")));
    let log = browser.eval(&format!(
        "Array.from(document.querySelectorAll('details.log pre')).some(p => p.textContent.includes({}))",
        json!(HOSTILE_INFO)
    ));
    assert_eq!(log, json!(true), "the chatty bot's stderr, as text");

    // A crashed game carries its protocol transcript.
    let crashed = rows
        .iter()
        .find(|r| r["reason"] == "crash")
        .map(|r| r["id"].clone())
        .expect("a crash");
    browser.eval(&format!("location.hash = '{crashed}'"));
    browser.wait_for(&format!(
        "document.getElementById('viewer').dataset.game === '{crashed}'"
    ));
    let transcript = browser.eval(
        "(() => { const t = document.getElementById('v-transcript');           return [t.hidden, t.querySelector('pre').textContent.startsWith('game ')]; })()",
    );
    assert_eq!(
        transcript,
        json!([false, true]),
        "the transcript of {crashed}"
    );

    // Filters.
    let crashes = rows.iter().filter(|r| r["reason"] == "crash").count();
    let filtered = browser.eval(
        "(() => { const s = document.getElementById('f-reason'); s.value = 'crash'; \
          s.dispatchEvent(new Event('change')); \
          const shown = Array.from(document.querySelectorAll('#game-table tbody tr')).filter(r => !r.hidden); \
          return [shown.length, shown.every(r => r.dataset.reason === 'crash'), document.getElementById('f-count').textContent]; })()",
    );
    assert_eq!(
        filtered,
        json!([crashes, true, format!("{crashes} of 12 games")])
    );
    let won = browser.eval(
        "(() => { document.getElementById('f-reason').value = ''; \
          const b = document.getElementById('f-bot'); b.value = 'alpha'; \
          const r = document.getElementById('f-result'); r.value = 'win'; \
          r.dispatchEvent(new Event('change')); \
          return Array.from(document.querySelectorAll('#game-table tbody tr')).filter(r => !r.hidden).map(r => r.dataset.id); })()",
    );
    let alpha_wins: Vec<&str> = rows
        .iter()
        .filter(|r| r["winner_name"] == "alpha")
        .map(|r| r["id"].as_str())
        .collect();
    assert_eq!(won, json!(alpha_wins));

    // Phone: the nine boards as a small overview, the boards in play large.
    browser.viewport(390, 844, true);
    browser.open(&page, &format!("#{free_id}/{k_free}"));
    browser.screenshot(&shots.join("phone-top.png"), None);
    let free_moves = &games[&free_id];
    assert_step(&mut browser, &free_id, free_moves, k_free);
    let layout = browser.eval(
        "(() => { const grid = document.getElementById('v-grid').getBoundingClientRect(); \
          const boards = Array.from(document.querySelectorAll('#v-grid .board')).map(b => b.getBoundingClientRect()); \
          const focus = Array.from(document.querySelectorAll('#v-focus-boards .board')); \
          return { grid: grid.width, inside: boards.every(r => r.left >= 0 && r.right <= innerWidth && r.width > 20), \
            focus: focus.map(b => Number(b.dataset.board)), \
            cell: Math.min(...focus.map(b => b.querySelector('.cell').getBoundingClientRect().width)), \
            scrolls: document.scrollingElement.scrollHeight > innerHeight }; })()",
    );
    let open_boards = playable(&position(&free_moves[..k_free]));
    assert!(
        layout["grid"].as_f64().is_some_and(|w| w <= 200.0),
        "small overview: {layout}"
    );
    assert_eq!(
        layout["inside"],
        json!(true),
        "all nine boards visible: {layout}"
    );
    assert_eq!(
        layout["focus"],
        json!(open_boards),
        "every open board enlarged: {layout}"
    );
    assert!(
        layout["cell"].as_f64().is_some_and(|w| w >= 44.0),
        "cells big enough to tap: {layout}"
    );
    assert_eq!(layout["scrolls"], json!(true));
    browser.screenshot(&shots.join("phone-free-move-whole.png"), Some("#viewer"));
    browser.eval("document.getElementById('v-focus').scrollIntoView()");
    browser.screenshot(&shots.join("phone-free-move.png"), None);
    browser.eval(&format!("location.hash = '{sent_id}/{k}'"));
    browser.wait_for(&format!(
        "document.getElementById('viewer').dataset.game === '{sent_id}' && \
         document.getElementById('v-ply').textContent === '{k}'"
    ));
    assert_step(&mut browser, &sent_id, moves, k);
    let focus = browser.eval("Array.from(document.querySelectorAll('#v-focus-boards .board')).map(b => Number(b.dataset.board))");
    assert_eq!(
        focus,
        json!(playable(&position(&moves[..k]))),
        "the one board in play, large"
    );
    browser.eval("document.getElementById('viewer').scrollIntoView()");
    browser.screenshot(&shots.join("phone-viewer.png"), None);
    // Tapping a board of the overview shows it large.
    let other = (1..=9u8)
        .find(|b| !playable(&position(&moves[..k])).contains(b))
        .expect("a board not in play");
    browser.click(&format!("#v-grid .board[data-board=\"{other}\"]"));
    let picked = browser.eval("Array.from(document.querySelectorAll('#v-focus-boards .board')).map(b => Number(b.dataset.board))");
    assert_eq!(picked, json!([other]));

    // Nothing ran that should not have, nothing was fetched, nothing went wrong.
    assert_eq!(
        browser.eval("[document.querySelectorAll('img').length, typeof window.pwned]"),
        json!([0, "undefined"])
    );
    assert!(
        browser.errors.is_empty(),
        "console errors: {:#?}",
        browser.errors
    );
    let own_url = format!("file://{}", own.display());
    let foreign: Vec<&String> = browser
        .requests
        .iter()
        .filter(|r| **r != url && **r != own_url)
        .collect();
    assert!(foreign.is_empty(), "network requests: {foreign:?}");
}

#[test]
fn report_refuses_a_directory_without_games_with_the_fix() {
    let dir = tempfile::tempdir().expect("temp dir");
    let output = arena(&["report", &dir.path().to_string_lossy()]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("has no games.csv"), "{stderr}");
    assert!(stderr.contains("arena tournament"), "{stderr}");
    let missing = dir.path().join("nope");
    let output = arena(&["report", &missing.to_string_lossy()]);
    assert_eq!(output.status.code(), Some(2));
}

/// Benchmark (issue 25): how fast big reports open in headless Chromium. Not a
/// test: it needs reports of tens of thousands of games (BENCHMARKS.md, "Report
/// size at scale", has the commands that make them). For each `report.html` in
/// `UTTT_BENCH_REPORTS` (separated by `:`), in turns, three times: the time from
/// navigation to the load event (the page's script has run by then: the list, the
/// filters and the first game are drawn), then opening a game from the list's
/// second page, and filtering by a bot.
#[test]
#[ignore = "benchmark: run by name with --ignored --nocapture and UTTT_BENCH_REPORTS set"]
fn report_opening_time() {
    let pages: Vec<PathBuf> = std::env::var_os("UTTT_BENCH_REPORTS")
        .map(|v| std::env::split_paths(&v).collect())
        .unwrap_or_default();
    assert!(
        !pages.is_empty(),
        "set UTTT_BENCH_REPORTS to report.html paths"
    );
    let mut browser = Browser::launch();
    println!("| report | size | load event | open a game | filter by bot |");
    println!("|---|---|---|---|---|");
    for _ in 0..3 {
        for page in &pages {
            let size = std::fs::metadata(page).map(|m| m.len()).unwrap_or(0);
            browser.open(page, "");
            let timing = browser.eval(
                "(() => { const n = performance.getEntriesByType('navigation')[0]; \
                  const t0 = performance.now(); \
                  const next = document.getElementById('g-next'); if (next && !next.disabled) next.click(); \
                  const rows = document.querySelectorAll('#game-table tbody tr'); \
                  const id = rows[rows.length - 1].dataset.id; \
                  history.replaceState(null, '', '#' + id); \
                  window.dispatchEvent(new HashChangeEvent('hashchange')); \
                  const opened = document.getElementById('viewer').dataset.game === id; \
                  const t1 = performance.now(); \
                  const bot = document.getElementById('f-bot'); bot.value = bot.options[1].value; \
                  bot.dispatchEvent(new Event('change')); \
                  const t2 = performance.now(); \
                  return [n.loadEventEnd, opened ? t1 - t0 : -1, t2 - t1]; })()",
            );
            let ms = |k: usize| timing[k].as_f64().unwrap_or(f64::NAN);
            println!(
                "| {} | {:.1} MB | {:.0} ms | {:.0} ms | {:.0} ms |",
                page.display(),
                size as f64 / 1e6,
                ms(0),
                ms(1),
                ms(2),
            );
        }
    }
    assert!(
        browser.errors.is_empty(),
        "console errors: {:#?}",
        browser.errors
    );
}

/// A report of more games than one page of the list: the page's HTML lists the
/// first hundred (and says so without JavaScript); the script lists them all a
/// page at a time, filters across every page, and a game from a later page opens
/// with its positions exactly as the engine has them.
#[test]
#[cfg_attr(
    not(has_chromium),
    ignore = "needs headless Chromium: apt-get install chromium, or set UTTT_CHROMIUM"
)]
fn a_long_report_lists_its_games_a_page_at_a_time() {
    let dir = tempfile::tempdir().expect("temp dir");
    let results = dir.path().join("many");
    let output = arena(&[
        "match",
        "random",
        "greedy",
        "--games",
        "250",
        "--concurrency",
        "2",
        "--out",
        &results.to_string_lossy(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let output = arena(&["report", &results.to_string_lossy()]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let page = results.join("report.html");
    let html = std::fs::read_to_string(&page).expect("report written");
    assert!(
        html.contains("The first 100 of 250 games."),
        "the no-script note"
    );
    let games = games_moves(&results);
    assert_eq!(games.len(), 250);

    let mut browser = Browser::launch();
    browser.call(
        "Emulation.setScriptExecutionDisabled",
        json!({ "value": true }),
    );
    browser.open(&page, "");
    assert_eq!(
        browser.eval("document.querySelectorAll('#game-table tbody tr').length"),
        json!(100),
        "without JavaScript: the first page"
    );
    browser.call(
        "Emulation.setScriptExecutionDisabled",
        json!({ "value": false }),
    );
    browser.open(&page, "");
    let list = "[document.getElementById('g-range').textContent, \
        Array.from(document.querySelectorAll('#game-table tbody tr')).map(r => r.dataset.id), \
        document.getElementById('f-count').textContent]";
    let ids: Vec<&String> = games.keys().collect();
    let first = browser.eval(list);
    assert_eq!(first[0], "1–100 of 250");
    assert_eq!(first[1], json!(ids[..100]));
    assert_eq!(first[2], "250 of 250 games");
    browser.click("#g-next");
    browser.click("#g-next");
    let third = browser.eval(list);
    assert_eq!(third[0], "201–250 of 250");
    assert_eq!(third[1], json!(ids[200..]));
    assert_eq!(
        browser.eval("document.getElementById('g-next').disabled"),
        json!(true)
    );

    // Opened from the address, a game turns the list to its page.
    browser.open(&page, &format!("#{}", ids[150]));
    assert_eq!(browser.eval(list)[0], "101–200 of 250");
    assert_eq!(
        browser.eval("document.querySelector('#game-table tr.current').dataset.id"),
        json!(ids[150])
    );
    browser.click("#g-next");

    // A game of the third page, stepped through: every position is the engine's.
    let id = ids[230].clone();
    browser.click(&format!("#game-table tr[data-id=\"{id}\"] td:nth-child(2)"));
    browser.wait_for(&format!(
        "document.getElementById('viewer').dataset.game === '{id}'"
    ));
    let moves = &games[&id];
    browser.key("Home");
    for k in 0..=moves.len() {
        assert_step(&mut browser, &id, moves, k);
        browser.key("ArrowRight");
    }

    // Filters reach every page: greedy's wins, counted from games.csv.
    let mut greedy_wins: Vec<String> = games_rows(&results)
        .into_iter()
        .filter(|r| r["winner_name"] == "greedy")
        .map(|r| r["id"].clone())
        .collect();
    greedy_wins.sort(); // the list is in schedule order, games.csv in finishing order
    assert!(
        greedy_wins.len() > 100,
        "greedy beats random: {}",
        greedy_wins.len()
    );
    let filtered = browser.eval(
        "(() => { const b = document.getElementById('f-bot'); b.value = 'greedy'; \
          const r = document.getElementById('f-result'); r.value = 'win'; \
          r.dispatchEvent(new Event('change')); \
          return [document.getElementById('f-count').textContent, \
                  Array.from(document.querySelectorAll('#game-table tbody tr')).map(r => r.dataset.id)]; })()",
    );
    assert_eq!(
        filtered[0],
        json!(format!("{} of 250 games", greedy_wins.len()))
    );
    assert_eq!(filtered[1], json!(greedy_wins[..100]));
    assert!(
        browser.errors.is_empty(),
        "console errors: {:#?}",
        browser.errors
    );
}

/// Ten bots of long names (built-in random players) and a student whose bot
/// has a syntax error, playing `format`; the results directory.
fn class_event(dir: &Path, format: &str) -> PathBuf {
    const NAMES: [&str; 10] = [
        "alexandra_k",
        "bartholomew",
        "constantine",
        "wilhelmina",
        "maximilian_b",
        "evangeline_c",
        "theodora_v",
        "sebastian_x",
        "anastasia",
        "florentina",
    ];
    let mut text = format!(
        "name = \"class {format}\"\nformat = \"{format}\"\nseed = 3\ngames = 2\n{}\
         [time]\nmove-ms = 1000\nfirst-move-ms = 5000\n",
        if format == "swiss" {
            "rounds = 4\n"
        } else {
            ""
        }
    );
    for name in NAMES {
        text.push_str(&format!(
            "[[bot]]\nname = \"{name}\"\ncommand = \"random\"\n"
        ));
    }
    text.push_str("[[bot]]\nglob = \"students/*\"\n");
    uttt_tests::classes::write(
        dir,
        &[
            ("event.toml", &text),
            ("students/zoe/bot.py", "import sys\ndef x(:\n"),
        ],
    );
    let out = dir.join(format!("results-{format}"));
    let output = uttt_tests::classes::tournament(&dir.join("event.toml"), &out, &["--quiet"]);
    assert!(output.status.success(), "{output:?}");
    out
}

/// Every cell of every table of the report's main sections, each scrolled
/// into view as a reader would (its card scrolls sideways when the table is
/// wider): the cell readable and, beside it, its row's name; the game list's
/// headings and names whole. At most `limit` failures, in words.
const TABLES_READ_JS: &str = r#"(() => {
  const bad = [];
  const tables = Array.from(document.querySelectorAll('main section table'))
    .filter((t) => t.closest('section').id !== 'config' && t.offsetParent !== null);
  for (const t of tables) {
    const where = t.closest('section').id;
    for (const th of t.querySelectorAll('thead th')) {
      th.scrollIntoView({ block: 'center', inline: 'nearest' });
      const why = window.__readable(th, 10);
      if (why) bad.push(where + ' heading ' + th.textContent + ': ' + why);
    }
    for (const tr of t.querySelectorAll('tbody tr')) {
      if (tr.offsetParent === null) continue;
      const name = tr.querySelector('th.name') || tr.cells[0];
      for (const cell of tr.cells) {
        cell.scrollIntoView({ block: 'center', inline: 'nearest' });
        for (const [what, e] of [['cell', cell], ['its name', name]]) {
          const why = window.__readable(e, 10);
          if (why) bad.push(where + ' row ' + name.textContent + ', ' + what + ' ' + cell.textContent.slice(0, 20) + ': ' + why);
        }
      }
      if (bad.length > 20) return bad;
    }
  }
  return bad;
})()"#;

#[test]
fn a_class_report_reads_whole_at_1366_names_its_winner_and_its_left_out_student() {
    browser::chromium();
    let dir = tempfile::tempdir().expect("tempdir");
    let mut browser = Browser::launch();
    let shots = browser::artifacts("report");
    for format in ["round-robin", "swiss"] {
        let out = class_event(dir.path(), format);
        browser.viewport(1366, 768, false);
        browser.open(&out.join("report.html"), "");
        browser.eval(readable::PROBE_JS);
        let bad = browser.eval(TABLES_READ_JS);
        assert_eq!(bad, json!([]), "{format}: what a reader cannot read");
        // Who won leads, as a person says it.
        let banner = browser.eval("document.querySelector('.winner-banner').textContent");
        let banner = banner.as_str().unwrap_or_default();
        assert!(banner.starts_with("Winner: "), "{format}: {banner}");
        assert!(
            banner.contains(" point") && !banner.contains("00000"),
            "{format}: {banner}"
        );
        // The student left out is named in the ranking's place for them, in
        // a student's words, without this machine's paths.
        let left = browser.eval(
            "Array.from(document.querySelectorAll('tr.left-out')).map((tr) => [tr.querySelector('th.name').textContent, tr.querySelector('.why').textContent])",
        );
        let why = left[0][1].as_str().unwrap_or_default();
        assert_eq!(left[0][0], json!("zoe"), "{format}: {left}");
        assert!(
            why.starts_with("not playing: its bot could not start")
                && why.contains("SyntaxError")
                && !why.contains(&dir.path().to_string_lossy().to_string()),
            "{format}: {why}"
        );
        browser.eval("document.getElementById('crosstable').scrollIntoView()");
        browser.screenshot(&shots.join(format!("class-{format}-1366.png")), None);
    }
    assert!(browser.errors.is_empty(), "{:#?}", browser.errors);
}
