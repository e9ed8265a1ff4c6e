//! A season, end to end through the real binary: `arena league` run again as
//! students resubmit (games kept, old versions retired, only the new versions'
//! games played), grades.csv checked against games.csv, `--watch` picking up a
//! change, and copied submissions (renamed, reordered, comments stripped)
//! flagged while honest bots are not, each student's rating history drawn in the
//! report and on the live page (headless Chromium), and `--watch` outliving a
//! broken league file. Needs python3, node, g++ and chromium.

#[path = "report/browser.rs"]
mod browser;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use browser::Browser;
use serde_json::json;
use uttt_tests::classes::{GREEDY, GREEDY_RENAMES, renamed, reordered, stripped};
use uttt_tests::serving::Running;
use uttt_tests::{Row, arena, assert_exit, read_csv, repo_root, stdout_text};

/// Writes `text` at `dir/path`.
fn write(dir: &Path, path: &str, text: &str) {
    let path = dir.join(path);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// A file of the repository.
fn repo_file(path: &str) -> String {
    std::fs::read_to_string(repo_root().join(path)).expect("a file of the repository")
}

/// The Python starter kit: a student's first bot.
fn python_starter() -> String {
    repo_file("bots/starters/python/starter.py")
}

/// A league file over `students/*` in `mode`, two levels, pass at level2,
/// two games against each level and no more (`max-games = 2`: the counts
/// below are exact; `league_grades.rs` tests the games a grade adds).
fn league_file(dir: &Path, mode: &str) -> PathBuf {
    write(
        dir,
        "league.toml",
        &format!(
            "name = \"season\"\ngames = 2\nconcurrency = 2\nseed = 5\n\n[time]\nmove-ms = 200\n\
             first-move-ms = 3000\n\n[league]\nmode = \"{mode}\"\nlevels = [\"level1\", \"level2\"]\n\
             pass = \"level2\"\npass-score = 0.5\nmax-games = 2\n\n[[bot]]\nglob = \"students/*\"\n"
        ),
    );
    dir.join("league.toml")
}

/// A student's own program: [`GREEDY`], which no starter kit holds.
fn own_program() -> String {
    GREEDY.to_string()
}

/// Runs the league once (quiet, no similarity unless asked); its stdout.
fn season_run(dir: &Path, extra: &[&str]) -> String {
    let file = dir.join("league.toml");
    let out = dir.join("season");
    let mut args = vec![
        "league",
        file.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
        "-q",
    ];
    args.extend_from_slice(extra);
    let run = arena(&args);
    assert_exit(&run, 0);
    stdout_text(&run)
}

/// The games a run played, from its words.
fn played(stdout: &str) -> usize {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("Played "))
        .unwrap_or_else(|| panic!("no 'Played' line in:\n{stdout}"));
    line.split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("a count")
}

fn games(dir: &Path) -> Vec<Row> {
    read_csv(&dir.join("season/games.csv"))
}

/// The raw lines of games.csv.
fn game_lines(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("season/games.csv"))
        .expect("games.csv")
        .lines()
        .map(str::to_string)
        .collect()
}

/// (name, version) → status, from versions.csv.
fn versions(dir: &Path) -> BTreeMap<(String, String), String> {
    read_csv(&dir.join("season/versions.csv"))
        .into_iter()
        .map(|r| {
            (
                (r["name"].clone(), r["version"].clone()),
                r["status"].clone(),
            )
        })
        .collect()
}

/// The current version of `name`.
fn current(dir: &Path, name: &str) -> String {
    versions(dir)
        .into_iter()
        .find(|((n, _), s)| n == name && s == "current")
        .map(|((_, v), _)| v)
        .expect("a current version")
}

/// Games in `rows` that `name`'s `version` played.
fn games_of<'a>(rows: &'a [Row], name: &str, version: &str) -> Vec<&'a Row> {
    rows.iter()
        .filter(|r| {
            (r["x"] == name && r["x_version"] == version)
                || (r["o"] == name && r["o_version"] == version)
        })
        .collect()
}

#[test]
fn a_season_of_three_runs_plays_only_the_new_versions_games_and_keeps_the_old_ones() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    league_file(dir, "mixed");
    write(dir, "students/ada/bot.py", &python_starter());
    write(dir, "students/bo/bot.py", &python_starter());

    // Run 1: ada–bo (2 games) and each against two levels (2 × 2 × 2).
    let first = season_run(dir, &["--no-similarity"]);
    assert_eq!(played(&first), 2 + 8, "{first}");
    let after_first = game_lines(dir);
    let bo_v1 = current(dir, "bo");

    // The same command again: nothing has changed, nothing is played.
    assert_eq!(played(&season_run(dir, &["--no-similarity"])), 0);

    // Run 2: bo resubmits. Only the new version's games: vs ada (2), vs the levels (4).
    write(
        dir,
        "students/bo/bot.py",
        &format!("{}\n# v2\n", python_starter()),
    );
    let second = season_run(dir, &["--no-similarity"]);
    assert_eq!(played(&second), 2 + 4, "{second}");
    let after_second = game_lines(dir);
    assert_eq!(
        after_second[..after_first.len()],
        after_first[..],
        "the games already played are kept as they were"
    );
    let bo_v2 = current(dir, "bo");
    assert_ne!(bo_v1, bo_v2);
    assert_eq!(versions(dir)[&("bo".to_string(), bo_v1.clone())], "retired");

    // Run 3: ada resubmits and cy joins. ada: vs bo, cy, two levels (8); cy: vs bo,
    // two levels (6).
    write(
        dir,
        "students/ada/bot.py",
        &format!("{}\n# v2\n", python_starter()),
    );
    write(dir, "students/cy/bot.py", &python_starter());
    let third = season_run(dir, &["--no-similarity"]);
    assert_eq!(played(&third), 8 + 6, "{third}");
    let rows = games(dir);
    assert_eq!(rows.len(), 10 + 6 + 14);
    // The retired version's games stay in the history, never replayed.
    assert_eq!(games_of(&rows, "bo", &bo_v1).len(), 2 + 4);
    assert_eq!(games_of(&rows, "bo", &bo_v2).len(), 2 + 4 + 2 + 2);
    // Every pairing of versions played exactly its two games.
    let mut pairings: BTreeMap<Vec<(String, String)>, usize> = BTreeMap::new();
    for r in &rows {
        let mut key = vec![
            (r["x"].clone(), r["x_version"].clone()),
            (r["o"].clone(), r["o_version"].clone()),
        ];
        key.sort();
        *pairings.entry(key).or_default() += 1;
    }
    assert!(pairings.values().all(|&n| n == 2), "{pairings:#?}");
    // Rounds are the runs that played.
    let rounds: std::collections::BTreeSet<&str> =
        rows.iter().map(|r| r["round"].as_str()).collect();
    assert_eq!(rounds.into_iter().collect::<Vec<_>>(), ["1", "2", "3"]);

    // grades.csv: one row per current student, every value consistent with games.csv.
    let grades = read_csv(&dir.join("season/grades.csv"));
    let students: Vec<&str> = grades.iter().map(|g| g["student"].as_str()).collect();
    assert_eq!(students.len(), 3, "{grades:#?}");
    for g in &grades {
        let (name, version) = (&g["student"], &g["version"]);
        assert_eq!(version, &current(dir, name));
        assert_eq!(g["status"], "current");
        let mine = games_of(&rows, name, version);
        assert_eq!(g["games"], mine.len().to_string(), "{name}");
        let score = |level: &str| {
            let (mut points, mut n) = (0.0, 0);
            for r in mine.iter().filter(|r| r["x"] == level || r["o"] == level) {
                n += 1;
                points += match r["winner_name"].as_str() {
                    w if w == name.as_str() => 1.0,
                    "" => 0.5,
                    _ => 0.0,
                };
            }
            assert_eq!(n, 2, "{name} played {level} twice");
            points / f64::from(n)
        };
        // A level is stated passed only when the games settle it, which
        // needs at least the pass mark in them; the result follows the
        // pass level's.
        match g["highest_level"].as_str() {
            "" => {}
            level => assert!(score(level) >= 0.5, "{name}: {g:?}"),
        }
        match g["result"].as_str() {
            "pass" => assert!(score("level2") >= 0.5, "{name}: {g:?}"),
            "fail" => assert!(score("level2") < 0.5, "{name}: {g:?}"),
            "undecided" => assert!(!g["undecided"].is_empty(), "{name}: {g:?}"),
            other => panic!("{name}: result '{other}'"),
        }
        assert!(g["grade"].parse::<f64>().is_ok(), "a numeric grade: {g:?}");
        if let (Ok(low), Ok(high)) = (
            g["rating_low"].parse::<i64>(),
            g["rating_high"].parse::<i64>(),
        ) {
            let rating: i64 = g["rating"]
                .parse()
                .expect("a rating inside a closed interval");
            assert!(low <= rating && rating <= high, "{g:?}");
        }
        assert_eq!(g["feedback"], format!("feedback/{name}.txt"));
        assert_eq!(g["graded_version"], *version);
        let feedback =
            std::fs::read_to_string(dir.join("season").join(&g["feedback"])).expect("feedback");
        assert!(feedback.contains(version.as_str()), "{feedback}");
    }
    assert_eq!(
        grades.iter().find(|g| g["student"] == "bo").expect("bo")["versions"],
        "2"
    );
    // The history keeps every student version's grade: ada 2, bo 2, cy 1.
    let history = read_csv(&dir.join("season/grades-history.csv"));
    assert_eq!(history.len(), 5, "{history:#?}");
    let retired: Vec<&str> = history
        .iter()
        .filter(|h| h["status"] == "retired")
        .map(|h| h["student"].as_str())
        .collect();
    assert_eq!(retired, ["ada", "bo"]);
}

#[test]
fn a_grade_against_the_levels_does_not_move_when_a_classmate_submits() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    league_file(dir, "levels");
    write(dir, "students/ada/bot.py", &python_starter());
    write(dir, "students/bo/bot.py", &python_starter());
    season_run(dir, &["--no-similarity"]);
    let before = read_csv(&dir.join("season/grades.csv"));
    write(dir, "students/zed/bot.py", &python_starter());
    let run = season_run(dir, &["--no-similarity"]);
    assert_eq!(played(&run), 4, "only zed's games against the two levels");
    let after = read_csv(&dir.join("season/grades.csv"));
    let ada = |rows: &[Row]| {
        rows.iter()
            .find(|r| r["student"] == "ada")
            .cloned()
            .expect("ada")
    };
    assert_eq!(ada(&before), ada(&after));
}

#[test]
fn a_file_without_a_league_table_is_refused_and_a_league_file_by_the_tournament() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    write(dir, "students/ada/bot.py", &python_starter());
    let file = league_file(dir, "levels");
    let out = arena(&["tournament", file.to_str().expect("utf-8"), "--dry-run"]);
    assert_exit(&out, 2);
    assert!(uttt_tests::stderr_text(&out).contains("play it with arena league FILE"));
    write(
        dir,
        "plain.toml",
        "games = 2\n[[bot]]\nglob = \"students/*\"\n[[bot]]\ncommand = \"random\"\n",
    );
    let out = arena(&["league", dir.join("plain.toml").to_str().expect("utf-8")]);
    assert_exit(&out, 2);
    assert!(uttt_tests::stderr_text(&out).contains("needs a [league] table"));
}

#[test]
fn watch_plays_a_resubmission_after_the_run_and_stops_on_ctrl_c() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    league_file(dir, "levels");
    write(dir, "students/ada/bot.py", &python_starter());
    let mut running = watching(dir);
    wait_for_line(&running, "Watching the submissions");
    assert_eq!(games(dir).len(), 4);
    write(
        dir,
        "students/ada/bot.py",
        &format!("{}\n# v2\n", python_starter()),
    );
    wait_for_line(&running, "Watching the submissions");
    assert_eq!(games(dir).len(), 8, "the new version's four games");
    assert_eq!(
        versions(dir).values().filter(|s| *s == "retired").count(),
        1
    );
    running.interrupt();
    assert_eq!(running.child.wait().expect("exit").code(), Some(130));
}

/// The first line of `running`'s output containing `what` (a minute at most).
fn wait_for_line(running: &Running, what: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        if let Ok(line) = running.lines.recv_timeout(Duration::from_millis(200)) {
            if line.contains(what) {
                return line;
            }
            seen.push(line);
        }
    }
    panic!("no line with '{what}' within a minute; output: {seen:#?}");
}

/// `arena league --watch` on the season in `dir`, looking every second.
fn watching(dir: &Path) -> Running {
    let file = dir.join("league.toml");
    let out = dir.join("season");
    Running::start(&[
        "league",
        file.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
        "-q",
        "--no-similarity",
        "--watch",
        "--poll-seconds",
        "1",
    ])
}

#[test]
fn watch_says_what_is_wrong_with_a_broken_league_file_and_plays_again_once_it_is_fixed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    league_file(dir, "levels");
    write(dir, "students/ada/bot.py", &python_starter());
    let mut running = watching(dir);
    wait_for_line(&running, "Watching the submissions");
    assert_eq!(games(dir).len(), 4);

    // Saved half-edited: a number written as a word on line 2.
    let good = std::fs::read_to_string(dir.join("league.toml")).expect("the file");
    write(
        dir,
        "league.toml",
        &good.replace("games = 2", "games = \"two\""),
    );
    let error = wait_for_line(&running, "league.toml:2");
    assert!(error.starts_with("error: "), "{error}");
    assert!(error.contains("\"two\""), "what is wrong: {error}");
    let fix = wait_for_line(&running, "Still watching");
    assert!(
        fix.contains("correct") && fix.contains("league.toml"),
        "{fix}"
    );

    // A resubmission while the file is broken waits for the fix: nothing is
    // played, nothing ends.
    write(
        dir,
        "students/ada/bot.py",
        &format!("{}\n# v2\n", python_starter()),
    );
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        running.child.try_wait().expect("the watch").is_none(),
        "the watch ended on a broken file"
    );
    assert_eq!(games(dir).len(), 4);

    write(dir, "league.toml", &good);
    wait_for_line(&running, "loads again");
    wait_for_line(&running, "Watching the submissions");
    assert_eq!(games(dir).len(), 8, "the new version's four games");
    running.interrupt();
    assert_eq!(running.child.wait().expect("exit").code(), Some(130));
}

/// Each student's row of the league table as the page draws it: name, the
/// versions column, the version marks of its chart, and the points of each of
/// its lines (read in the browser).
const HISTORY_JS: &str = "Array.from(document.querySelectorAll('#league tr[data-student]')).map(tr => \
    [tr.dataset.student, Number(tr.querySelector('td.versions').textContent), \
     tr.querySelectorAll('svg.history g.version').length, \
     Array.from(tr.querySelectorAll('svg.history polyline.history-line')).map(p => p.points.numberOfItems)])";

/// Whether every chart is drawn at a readable size with its points left to right.
const DRAWN_JS: &str = "Array.from(document.querySelectorAll('#league svg.history')).every(svg => \
    svg.getBoundingClientRect().width > 150 && \
    Array.from(svg.querySelector('polyline').points).every((p, i, all) => i === 0 || all[i - 1].x < p.x))";

/// A student's file named like markup.
const HOSTILE_FILE: &str = "<img src=x onerror=alert(1)>.py";

/// Whether the page shows the markup-named file as text, and made no element of it.
const FRAGMENT_SHOWN_JS: &str = "document.querySelectorAll('img').length === 0 && \
    Array.from(document.querySelectorAll('#league ul.fragments code')).some(c => \
    c.textContent.startsWith('<img src=x onerror=alert(1)>.py:'))";

/// Whether the page holds nothing of the similarity check: no flagged pair,
/// no fragment, not the word.
const NO_SIMILARITY_JS: &str = "document.querySelectorAll('table.similarity, ul.fragments, #similarity').length === 0 && \
    !document.body.textContent.includes('imilarity')";

/// What [`HISTORY_JS`] should read, from grades.csv and grades-history.csv: per
/// student, a mark per version and a line through each rated one.
fn expected_history(season: &Path) -> serde_json::Value {
    let history = read_csv(&season.join("grades-history.csv"));
    let rows: Vec<serde_json::Value> = read_csv(&season.join("grades.csv"))
        .iter()
        .map(|g| {
            let mine: Vec<&Row> = history
                .iter()
                .filter(|h| h["student"] == g["student"])
                .collect();
            let rated = mine.iter().filter(|h| !h["rating"].is_empty()).count();
            json!([g["student"], mine.len(), mine.len(), [rated]])
        })
        .collect();
    json!(rows)
}

#[test]
#[cfg_attr(
    not(has_chromium),
    ignore = "needs headless Chromium: apt-get install chromium, or set UTTT_CHROMIUM"
)]
fn the_rating_history_has_one_point_per_version_in_the_report_and_on_the_live_page() {
    browser::chromium(); // fails at once, naming the package, when it is missing
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    league_file(dir, "levels");
    write(dir, "students/ada/bot.py", &own_program());
    write(dir, "students/bo/bot.py", &own_program());
    let first = season_run(dir, &["--no-similarity"]);
    assert!(
        first.contains("Report: "),
        "the league writes its report: {first}"
    );
    // Version 2 holds a file whose name is markup: the similarity's evidence
    // names it.
    write(
        dir,
        "students/ada/bot.py",
        &format!("{}\n# v2\n", own_program()),
    );
    write(dir, &format!("students/ada/{HOSTILE_FILE}"), &own_program());
    let second = season_run(dir, &[]);
    let ada_line = second
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some("ada"))
        .unwrap_or_else(|| panic!("no table line for ada: {second}"));
    assert_eq!(ada_line.split_whitespace().nth(2), Some("2"), "{ada_line}");

    // grades-history.csv: one row per version the league has seen, each once.
    let season = dir.join("season");
    let history = read_csv(&season.join("grades-history.csv"));
    let mut graded: Vec<(String, String)> = history
        .iter()
        .map(|h| (h["student"].clone(), h["version"].clone()))
        .collect();
    graded.sort();
    let mut seen: Vec<(String, String)> = versions(dir).into_keys().collect();
    seen.retain(|(name, _)| name == "ada" || name == "bo");
    assert_eq!(graded, seen);
    assert_eq!(graded.len(), 3);
    for h in &history {
        let since = &h["version_since"];
        assert!(since.len() == 20 && since.ends_with('Z'), "{h:?}");
    }
    let expected = expected_history(&season);
    assert_eq!(expected[0][0], "ada", "{expected}");
    assert!(expected.as_array().expect("rows").len() == 2, "{expected}");

    let mut browser = Browser::launch();
    browser.open(&season.join("report.html"), "");
    assert_eq!(browser.eval(HISTORY_JS), expected);
    assert_eq!(browser.eval(DRAWN_JS), json!(true));
    // The report the class gets holds no similarity; the teacher's has the
    // flagged pair (bo's bot is ada's first) with its evidence.
    assert_eq!(browser.eval(NO_SIMILARITY_JS), json!(true));
    let teacher = arena(&["report", season.to_str().expect("utf-8"), "--teacher"]);
    assert_exit(&teacher, 0);
    browser.open(&season.join("report-teacher.html"), "");
    assert_eq!(browser.eval(HISTORY_JS), expected);
    let pairs = read_csv(&season.join("similarity.csv"));
    let flagged: Vec<&Row> = pairs.iter().filter(|p| p["flagged"] == "yes").collect();
    assert_eq!(flagged.len(), 1, "{pairs:#?}");
    assert_eq!(
        browser.eval(
            "Array.from(document.querySelectorAll('#league table.similarity tr.flagged')).map(tr => \
             [tr.querySelector('th').textContent, tr.querySelectorAll('ul.fragments li').length, \
              tr.querySelector('td.behaviour').textContent])"
        ),
        json!([[
            format!("{} ~ {}", flagged[0]["a"], flagged[0]["b"]),
            flagged[0]["evidence"].split("; ").count(),
            format!("100% of {} positions", flagged[0]["positions"])
        ]])
    );
    assert!(flagged[0]["evidence"].contains(HOSTILE_FILE), "{flagged:?}");
    assert_eq!(browser.eval(FRAGMENT_SHOWN_JS), json!(true));
    assert!(browser.errors.is_empty(), "{:#?}", browser.errors);

    // The live page draws the same history, and no similarity.
    let server = Running::start(&[
        "serve",
        season.to_str().expect("utf-8"),
        "--addr",
        "127.0.0.1:0",
    ]);
    browser.goto(&server.url());
    browser.wait_for("document.getElementById('league-wrap').hidden === false");
    assert_eq!(
        browser.eval("document.getElementById('result').hidden"),
        json!(true),
        "a league names no winner: the most points are a level's"
    );
    assert_eq!(browser.eval(HISTORY_JS), expected);
    assert_eq!(browser.eval(DRAWN_JS), json!(true));
    assert_eq!(browser.eval(NO_SIMILARITY_JS), json!(true));
    assert!(browser.errors.is_empty(), "{:#?}", browser.errors);
}

#[test]
fn copies_are_flagged_however_many_share_a_family_and_the_starter_kits_are_not() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    league_file(dir, "levels");
    // Honest bots: the starter kits of three languages (the Python one twice,
    // unchanged), and another Python bot.
    write(dir, "students/ada/bot.py", &python_starter());
    write(dir, "students/kit/bot.py", &python_starter());
    write(
        dir,
        "students/bjarne/main.cpp",
        &repo_file("bots/starters/cpp/starter.cpp"),
    );
    write(
        dir,
        "students/grace/bot.js",
        &repo_file("bots/starters/js/starter.js"),
    );
    write(dir, "students/dee/bot.py", &repo_file("tests/bots/good.py"));
    // One student's own program and three copies of it, most of the Python
    // family: renamed, reordered, stripped of comments.
    write(dir, "students/orig/bot.py", &own_program());
    write(
        dir,
        "students/ren/bot.py",
        &renamed(&own_program(), &GREEDY_RENAMES),
    );
    write(dir, "students/ord/bot.py", &reordered(&own_program()));
    write(dir, "students/nocom/bot.py", &stripped(&own_program()));
    let out = season_run(dir, &[]);
    let rows = read_csv(&dir.join("season/similarity.csv"));
    let flagged: Vec<(String, String)> = rows
        .iter()
        .filter(|r| r["flagged"] == "yes")
        .map(|r| {
            let mut pair = [r["a"].clone(), r["b"].clone()];
            pair.sort();
            (pair[0].clone(), pair[1].clone())
        })
        .collect();
    let copies = ["nocom", "ord", "orig", "ren"];
    for (i, a) in copies.iter().enumerate() {
        for b in &copies[i + 1..] {
            assert!(
                flagged.contains(&(a.to_string(), b.to_string())),
                "{a} ~ {b} not flagged: {rows:#?}"
            );
        }
    }
    assert_eq!(flagged.len(), 6, "only the copies: {flagged:?}");
    for r in rows.iter().filter(|r| r["flagged"] == "yes") {
        assert!(r["evidence"].contains("bot.py:"), "{r:?}");
        assert_eq!(
            r["behaviour"], "1.0",
            "the same program answers the same: {r:?}"
        );
        let score: f64 = r["score"].parse().expect("a score");
        assert!(score >= r["threshold"].parse::<f64>().expect("a threshold"));
    }
    let pair = |a: &str, b: &str| {
        rows.iter()
            .find(|r| (r["a"] == a && r["b"] == b) || (r["a"] == b && r["b"] == a))
            .unwrap_or_else(|| panic!("{a} and {b} are compared: {rows:#?}"))
    };
    assert_eq!(pair("ada", "dee")["flagged"], "no");
    // Two students who kept the starter kit unchanged share only the class's
    // code: nothing of theirs is left to compare.
    assert_eq!(
        pair("ada", "kit")["score"],
        "0.0",
        "{:?}",
        pair("ada", "kit")
    );
    // The score says "these two share", whichever is named first.
    assert!(
        out.contains("nocom and orig share") || out.contains("orig and nocom share"),
        "{out}"
    );
    // Flags change no grade: every student is graded.
    assert_eq!(read_csv(&dir.join("season/grades.csv")).len(), 9);
}

/// The seconds in a "Played N games in S s." line.
fn seconds(stdout: &str) -> f64 {
    stdout
        .lines()
        .find(|l| l.starts_with("Played "))
        .and_then(|l| l.split(" in ").nth(1))
        .and_then(|s| s.trim_end_matches(" s.").parse().ok())
        .unwrap_or(f64::NAN)
}

/// BENCHMARKS.md, "League": 30 submissions against three levels, then 3 of them
/// resubmitted: the games the rerun plays, its share of the first run's time,
/// and the similarity check of 30 bots (asked 30 positions each). Then the same
/// bot graded twice, once beside a CPU hog. Run with
/// `cargo test -p uttt-tests --test league -- --ignored --nocapture bench`.
#[test]
#[ignore = "a benchmark: minutes of games"]
fn bench_a_class_of_30_where_3_resubmit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    write(
        dir,
        "league.toml",
        "name = \"bench\"\ngames = 2\nconcurrency = 2\nseed = 9\n\n[time]\nmove-ms = 200\n\
         first-move-ms = 3000\n\n[league]\nmode = \"levels\"\nlevels = [\"level1\", \"level2\", \"level3\"]\n\
         pass = \"level2\"\n\n[[bot]]\nglob = \"students/*\"\n",
    );
    for i in 0..30 {
        write(
            dir,
            &format!("students/s{i:02}/bot.py"),
            &format!("{}\n# student {i}\n", python_starter()),
        );
    }
    let wall = Instant::now();
    let first = season_run(dir, &["--no-similarity"]);
    let first_wall = wall.elapsed().as_secs_f64();
    for i in [3, 14, 27] {
        write(
            dir,
            &format!("students/s{i:02}/bot.py"),
            &format!("{}\n# student {i}, v2\n", python_starter()),
        );
    }
    let wall = Instant::now();
    let second = season_run(dir, &["--no-similarity"]);
    let second_wall = wall.elapsed().as_secs_f64();
    let wall = Instant::now();
    let third = season_run(dir, &[]);
    let similarity_wall = wall.elapsed().as_secs_f64();
    let similarity_line = third
        .lines()
        .find(|l| l.starts_with("Similarity:"))
        .unwrap_or("")
        .to_string();
    println!(
        "first run: {} games, {:.1} s of games, {first_wall:.1} s wall\n\
         rerun after 3 resubmissions: {} games ({:.1}% of the first), {:.1} s of games \
         ({:.1}% of the first), {second_wall:.1} s wall ({:.1}%)\n\
         unchanged rerun with similarity: {} games, {similarity_wall:.1} s wall; {similarity_line}",
        played(&first),
        seconds(&first),
        played(&second),
        100.0 * played(&second) as f64 / played(&first) as f64,
        seconds(&second),
        100.0 * seconds(&second) / seconds(&first),
        100.0 * second_wall / first_wall,
        played(&third),
    );
    assert_eq!(played(&first), 30 * 3 * 2);
    assert_eq!(played(&second), 3 * 3 * 2);
}

/// BENCHMARKS.md, "League": the same bot (the built-in mcts, which thinks for
/// its move time, so load can change its play) graded twice against three
/// levels, once beside two busy loops; each grade should lie in the other's
/// interval. Run with
/// `cargo test -p uttt-tests --test league -- --ignored --nocapture bench_the_same`.
#[test]
#[ignore = "a benchmark: a minute or two of games"]
fn bench_the_same_bot_graded_twice_once_under_load() {
    let grade_once = |hogs: usize, limits: &str| {
        let dir = tempfile::tempdir().expect("temp dir");
        let dir = dir.path();
        write(
            dir,
            "league.toml",
            &format!(
                "name = \"twice\"\ngames = 10\nconcurrency = 2\nseed = 3\nallow-builtin = true\n\n\
             [league]\nlevels = [\"level7\", \"level8\", \"level9\"]\n\n\
             [[bot]]\nglob = \"students/*\"\n{limits}"
            ),
        );
        write(dir, "students/ada/bot.toml", "command = \"mcts\"\n");
        let mut busy: Vec<std::process::Child> = (0..hogs)
            .map(|_| {
                std::process::Command::new("sh")
                    .args(["-c", "while :; do :; done"])
                    .spawn()
                    .expect("a busy loop")
            })
            .collect();
        let out = season_run(dir, &["--no-similarity"]);
        for child in &mut busy {
            let _ = child.kill();
            let _ = child.wait();
        }
        let grades = read_csv(&dir.join("season/grades.csv"));
        let g = grades.first().cloned().expect("a grade");
        println!(
            "{} busy loops, {}: {} games in {:.1} s; rating {} ({} to {}), highest {}, faults {} {}",
            hogs,
            limits.trim().replace('\n', " "),
            played(&out),
            seconds(&out),
            g["rating"],
            g["rating_low"],
            g["rating_high"],
            g["highest_level"],
            g["faults"],
            g["detail"]
        );
        g
    };
    let within = |x: &Row, y: &Row| {
        let r: f64 = x["rating"].parse().unwrap_or(f64::NAN);
        let low: f64 = y["rating_low"].parse().unwrap_or(f64::NEG_INFINITY);
        let high: f64 = y["rating_high"].parse().unwrap_or(f64::INFINITY);
        low <= r && r <= high
    };
    // By its move time, then at fixed work ([limits] nodes): only the first
    // depends on how much CPU the bot gets.
    for limits in ["\n[time]\nmove-ms = 50\n", "\n[limits]\nnodes = 3000\n"] {
        let idle = grade_once(0, limits);
        let loaded = grade_once(2, limits);
        println!(
            "idle grade inside the loaded one's interval: {}; loaded inside idle's: {}",
            within(&idle, &loaded),
            within(&loaded, &idle)
        );
    }
}
