//! Grades a teacher can defend (issue 47), end to end through the real binary:
//! a class run twice from scratch gets the same gradebook, byte for byte, and
//! copies of one deterministic program (renamed, reordered, stripped: most of
//! the Python submissions) get the same grade; every student has a row with a
//! number and a feedback file that says why (a first build that fails
//! included, its compiler quoted); the copies are flagged and the independent
//! programs are not; the terminal says each student's faults once, with the
//! count, in paths of their folder. Then each student's feedback as they read
//! it (snapshots: a crashing, a slow, an illegal-move and a passing student),
//! the gradebook as Moodle's and Canvas's imports read it, a later build that
//! fails (the old grade kept and said to be the old one, one status vocabulary
//! across the three files), and `--watch` acting only on a change.
//! Needs python3 and g++.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use uttt_tests::classes::{
    ALWAYS_A1, CRASHING, GREEDY, GREEDY_RENAMES, SLOW, python_bot, renamed, reordered, stripped,
    write,
};
use uttt_tests::serving::Running;
use uttt_tests::{Row, arena, assert_exit, read_csv, repo_root, stdout_text};

/// A league file over `students/*`: `levels` (the `[league]` list's
/// contents), `pass`, the first `games` against each level and at most
/// `max_games`; generous move times (a deterministic bot never runs out of
/// time by the machine's load), the first move 2 s.
fn league_file(dir: &Path, levels: &str, pass: &str, (games, max_games): (u32, u32)) {
    write(
        dir,
        &[(
            "league.toml",
            &format!(
                "name = \"season\"\ngames = {games}\nconcurrency = 2\nseed = 7\n\n[time]\n\
                 move-ms = 1000\nfirst-move-ms = 2000\n\n[league]\nmode = \"levels\"\n\
                 levels = [{levels}]\npass = \"{pass}\"\nmax-games = {max_games}\n\n\
                 [[bot]]\nglob = \"students/*\"\n"
            ),
        )],
    );
}

/// `arena league` on the season in `dir`, with `extra` flags; exit 0.
fn league(dir: &Path, extra: &[&str]) -> String {
    let file = dir.join("league.toml");
    let out = dir.join("season");
    let mut args = vec![
        "league",
        file.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
    ];
    args.extend_from_slice(extra);
    let run = arena(&args);
    assert_exit(&run, 0);
    stdout_text(&run)
}

/// A file of the season.
fn season(dir: &Path, file: &str) -> PathBuf {
    dir.join("season").join(file)
}

/// grades.csv, by student.
fn gradebook(dir: &Path) -> BTreeMap<String, Row> {
    read_csv(&season(dir, "grades.csv"))
        .into_iter()
        .map(|r| (r["student"].clone(), r))
        .collect()
}

/// A student's feedback file.
fn feedback(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(season(dir, &format!("feedback/{name}.txt")))
        .unwrap_or_else(|e| panic!("{name}'s feedback: {e}"))
}

/// A C++ submission whose build fails.
const BROKEN_CPP: &str = "int main() { return missing_name; }\n";

/// The copies of [`GREEDY`] in the class: byte for byte, renamed, renamed and
/// stripped of comments, reordered.
const COPIES: [&str; 5] = ["orig", "twin", "ren", "ren-bare", "ord"];

/// The class of the first test: five copies of one deterministic program
/// (most of its Python submissions), a student who kept the Python starter
/// kit, one whose bot crashes, one too slow, one that plays illegally, and one
/// whose first build fails.
fn the_class(dir: &Path) {
    league_file(dir, "\"level1\", \"level2\"", "level2", (4, 8));
    let ren = renamed(GREEDY, &GREEDY_RENAMES);
    let bare = stripped(&ren);
    let ord = reordered(GREEDY);
    write(
        dir,
        &[
            ("students/orig/bot.py", GREEDY),
            ("students/twin/bot.py", GREEDY),
            ("students/ren/bot.py", &ren),
            ("students/ren-bare/bot.py", &bare),
            ("students/ord/bot.py", &ord),
            ("students/kit/bot.py", &python_bot()),
            ("students/crash/bot.py", CRASHING),
            ("students/slow/bot.py", SLOW),
            ("students/illegal/bot.py", ALWAYS_A1),
            ("students/broken/main.cpp", BROKEN_CPP),
        ],
    );
}

/// The columns of grades.csv that are a grade (all but the versions and the
/// feedback file's name).
const GRADE_FIELDS: [&str; 11] = [
    "status",
    "grade",
    "result",
    "highest_level",
    "undecided",
    "rating",
    "rating_low",
    "rating_high",
    "games",
    "faults",
    "detail",
];

#[test]
fn a_class_played_twice_from_scratch_gets_the_same_gradebook_and_copies_the_same_grade() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    the_class(dir);
    let said = league(dir, &[]);
    let first = std::fs::read(season(dir, "grades.csv")).expect("grades.csv");
    let rows = gradebook(dir);

    // Every student has a row, with a number, and a feedback file.
    let names: BTreeSet<&str> = rows.keys().map(String::as_str).collect();
    let expected: BTreeSet<&str> = COPIES
        .iter()
        .copied()
        .chain(["kit", "crash", "slow", "illegal", "broken"])
        .collect();
    assert_eq!(names, expected, "{rows:#?}");
    let order: Vec<String> = read_csv(&season(dir, "grades.csv"))
        .into_iter()
        .map(|r| r["student"].clone())
        .collect();
    let mut sorted = order.clone();
    sorted.sort_unstable();
    assert_eq!(order, sorted, "grades.csv is sorted by student");
    for (name, row) in &rows {
        assert!(row["grade"].parse::<f64>().is_ok(), "{name}: {row:?}");
        assert_eq!(row["feedback"], format!("feedback/{name}.txt"));
        let games: u32 = row["games"].parse().expect("games");
        assert!(games <= 2 * 8, "{name}: at most max-games a level: {row:?}");
    }

    // The copies: the same games, so the same grade, field for field.
    let orig = &rows["orig"];
    for copy in &COPIES[1..] {
        for field in GRADE_FIELDS {
            assert_eq!(
                rows[*copy][field], orig[field],
                "{copy}'s {field} differs from orig's: {:?} vs {orig:?}",
                rows[*copy]
            );
        }
    }
    assert_eq!(orig["status"], "current");
    assert_eq!(
        rows["twin"]["version"], orig["version"],
        "byte-identical copies are one version"
    );
    assert_ne!(rows["ren"]["version"], orig["version"]);

    // Each row says why, and so does each feedback file.
    let broken = &rows["broken"];
    assert_eq!(
        (broken["status"].as_str(), broken["grade"].as_str()),
        ("build-failed", "0")
    );
    assert!(broken["detail"].contains("error:"), "{broken:?}");
    assert!(
        broken["detail"].contains("missing_name"),
        "the compiler's words: {broken:?}"
    );
    let f = feedback(dir, "broken");
    assert!(f.starts_with("broken: BUILD FAILED"), "{f}");
    assert!(
        f.contains("main.cpp:1") && f.contains("missing_name"),
        "{f}"
    );
    assert_eq!(rows["crash"]["detail"], "crash:8");
    let f = feedback(dir, "crash");
    assert!(
        f.contains("your bot stopped running (exit code 1)")
            && f.contains("File \"bot.py\", line 7, in play")
            && f.contains("ValueError: my bot does not know what to play"),
        "{f}"
    );
    assert_eq!(rows["slow"]["detail"], "timeout:8");
    let f = feedback(dir, "slow");
    assert!(
        f.contains("no reply within 2000 ms") && f.contains("it had 2000 ms for its first move"),
        "{f}"
    );
    let f = feedback(dir, "illegal");
    assert!(
        f.contains("your bot played a1") && f.contains("(illegal) in this position"),
        "{f}"
    );
    let tmp = dir.display().to_string();
    for name in &names {
        let f = feedback(dir, name);
        assert!(
            !f.contains(&tmp),
            "{name}'s feedback names the teacher's folders: {f}"
        );
        assert!(
            !f.contains("games.csv") && !f.contains("failures/") && !f.contains("similar"),
            "{name}'s feedback points to the teacher's files: {f}"
        );
    }

    // The copies are flagged, whoever holds them; nothing else is.
    let flagged: BTreeSet<(String, String)> = read_csv(&season(dir, "similarity.csv"))
        .into_iter()
        .filter(|r| r["flagged"] == "yes")
        .map(|r| {
            let mut pair = [r["a"].clone(), r["b"].clone()];
            pair.sort();
            (pair[0].clone(), pair[1].clone())
        })
        .collect();
    let mut copy_pairs = BTreeSet::new();
    for (i, a) in COPIES.iter().enumerate() {
        for b in &COPIES[i + 1..] {
            let mut pair = [a.to_string(), b.to_string()];
            pair.sort();
            copy_pairs.insert((pair[0].clone(), pair[1].clone()));
        }
    }
    assert_eq!(flagged, copy_pairs);

    // The terminal: no line per game; each student's faults once, with the
    // count, in paths of their folder.
    assert!(!said.contains("[1/"), "a line per game: {said}");
    let fault_lines: Vec<&str> = said
        .lines()
        .filter(|l| l.starts_with("  ") && l.contains(" lost by "))
        .collect();
    assert_eq!(fault_lines.len(), 3, "crash, slow, illegal: {said}");
    assert!(
        fault_lines
            .iter()
            .any(|l| l.contains("crash: 8 games lost by crash") && l.contains("\"bot.py\"")),
        "{said}"
    );
    assert!(fault_lines.iter().all(|l| !l.contains(&tmp)), "{said}");

    // From scratch again: the same gradebook, byte for byte.
    std::fs::remove_dir_all(dir.join("season")).expect("remove the season");
    league(dir, &["--no-similarity"]);
    let second = std::fs::read(season(dir, "grades.csv")).expect("grades.csv");
    assert_eq!(
        String::from_utf8_lossy(&second),
        String::from_utf8_lossy(&first),
        "the same class twice from scratch"
    );
}

/// The class of the feedback and gradebook tests against level1 alone: a
/// student who passes, one whose bot crashes, one too slow, one that plays
/// illegally, and (for the gradebook) one whose build fails.
fn small_class(dir: &Path, with_broken: bool) {
    league_file(dir, "\"level1\"", "level1", (4, 20));
    let mut files = vec![
        ("students/pass/bot.py", GREEDY),
        ("students/crash/bot.py", CRASHING),
        ("students/slow/bot.py", SLOW),
        ("students/illegal/bot.py", ALWAYS_A1),
    ];
    if with_broken {
        files.push(("students/broken/main.cpp", BROKEN_CPP));
    }
    write(dir, &files);
}

#[test]
fn each_students_feedback_says_the_result_why_and_what_to_do_next() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    small_class(dir, false);
    league(dir, &["-q", "--no-similarity"]);
    // What the machine decides: a version's hash, when it was seen, the
    // milliseconds a timeout was measured at and by which clock.
    let filters = vec![
        (r"\b[0-9a-f]{12}\b", "[version]"),
        (r"\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC", "[time]"),
        (
            r"charged \d+ ms by the \w+ clock, \d+ ms passed",
            "charged [ms]",
        ),
        (r"measured \d+ ms", "charged [ms]"),
        (r"more than \d+ ms", "more than [ms]"),
    ];
    insta::with_settings!({ filters => filters }, {
        insta::assert_snapshot!("feedback_pass", feedback(dir, "pass"));
        insta::assert_snapshot!("feedback_crash", feedback(dir, "crash"));
        insta::assert_snapshot!("feedback_slow", feedback(dir, "slow"));
        insta::assert_snapshot!("feedback_illegal", feedback(dir, "illegal"));
    });
}

/// A CSV file's records, as a gradebook import reads them: every record, the
/// header first.
fn records(path: &Path) -> Vec<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_path(path)
        .expect("a CSV file");
    reader
        .records()
        .map(|r| r.expect("a record").iter().map(str::to_string).collect())
        .collect()
}

/// A grade as Moodle's importer takes it (`unformat_float`): empty or `-` for
/// none, else a plain decimal number.
fn moodle_number(cell: &str) -> Option<Option<f64>> {
    let cell = cell.trim();
    if cell.is_empty() || cell == "-" {
        return Some(None);
    }
    let plain = cell
        .trim_start_matches('-')
        .chars()
        .all(|c| c.is_ascii_digit() || c == '.')
        && cell.matches('.').count() <= 1;
    plain.then(|| cell.parse().ok()).flatten().map(Some)
}

#[test]
fn the_gradebook_exports_are_what_moodles_and_canvass_imports_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    small_class(dir, true);
    league(dir, &["-q", "--no-similarity"]);
    let grades = gradebook(dir);
    assert_eq!(grades.len(), 5);

    // Moodle (grade/import/csv: load_data.php): a header of distinct, named
    // columns; every record as long as it; a column to map the user from
    // (here the username), a grade column (a number, `-` or empty, at most
    // gradepointmax, 100 by default) and a feedback column.
    let moodle = records(&season(dir, "gradebook-moodle.csv"));
    let header = &moodle[0];
    assert_eq!(header, &["Username", "season", "Feedback"]);
    let distinct: BTreeSet<&String> = header.iter().collect();
    assert_eq!(distinct.len(), header.len());
    assert!(header.iter().all(|h| !h.trim().is_empty()));
    let mut users = BTreeSet::new();
    for record in &moodle[1..] {
        assert_eq!(record.len(), header.len(), "{record:?}");
        assert!(users.insert(record[0].clone()), "one row per user");
        let grade = moodle_number(&record[1])
            .unwrap_or_else(|| panic!("not a grade Moodle reads: {record:?}"))
            .expect("every student has a grade");
        assert!((0.0..=100.0).contains(&grade), "{record:?}");
        assert_eq!(Some(grade), grades[&record[0]]["grade"].parse().ok());
        assert!(!record[2].is_empty(), "a feedback line: {record:?}");
    }
    assert_eq!(users.len(), grades.len());

    // Canvas (Gradebook → Import): Student, ID, SIS User ID, SIS Login ID,
    // Section, then the assignment; a "Points Possible" row; each student
    // found by one of the ids (here the SIS Login ID, the folder's name).
    let canvas = records(&season(dir, "gradebook-canvas.csv"));
    assert_eq!(
        canvas[0],
        [
            "Student",
            "ID",
            "SIS User ID",
            "SIS Login ID",
            "Section",
            "season"
        ]
    );
    assert_eq!(canvas[1][0], "Points Possible");
    let possible: f64 = canvas[1][5].parse().expect("points possible");
    assert_eq!(possible, 100.0);
    for record in &canvas[2..] {
        assert_eq!(record.len(), 6, "{record:?}");
        assert!(
            record[1..4].iter().any(|id| !id.is_empty()),
            "a student Canvas can find: {record:?}"
        );
        assert_eq!(record[3], record[0]);
        let grade: f64 = record[5].parse().expect("a number");
        assert!(grade <= possible);
        assert_eq!(Some(grade), grades[&record[3]]["grade"].parse().ok());
    }
    assert_eq!(canvas.len() - 2, grades.len());
    assert_eq!(grades["broken"]["status"], "build-failed");
    // The class's report names the student whose code never built, unranked,
    // with the compiler's error line.
    let report = std::fs::read_to_string(season(dir, "report.html")).expect("report.html");
    assert!(
        report.contains("<tr class=\"left-out\" data-student=\"broken\">"),
        "broken is said as left out"
    );
    assert!(report.contains("missing_name"), "the compiler's error line");
}

/// The status words of every file, by (name, version).
fn statuses(dir: &Path, file: &str, name_column: &str) -> BTreeMap<(String, String), String> {
    read_csv(&season(dir, file))
        .into_iter()
        .map(|r| {
            (
                (r[name_column].clone(), r["version"].clone()),
                r["status"].clone(),
            )
        })
        .collect()
}

#[test]
fn a_later_build_failure_keeps_the_old_grade_says_so_and_every_file_says_it_alike() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    league_file(dir, "\"level1\"", "level1", (4, 4));
    write(dir, &[("students/ada/bot.py", GREEDY)]);
    league(dir, &["-q", "--no-similarity"]);
    let before = gradebook(dir)["ada"].clone();
    assert_eq!(before["status"], "current");

    // Her next submission does not build.
    write(
        dir,
        &[
            (
                "students/ada/bot.toml",
                "build = \"python3 -m py_compile bot.py\"\n",
            ),
            ("students/ada/bot.py", &format!("{GREEDY}\ndef broken(:\n")),
        ],
    );
    league(dir, &["-q", "--no-similarity"]);
    let after = gradebook(dir)["ada"].clone();
    assert_eq!(after["status"], "build-failed");
    assert_ne!(after["version"], before["version"]);
    assert_eq!(after["graded_version"], before["version"]);
    for field in ["grade", "result", "highest_level", "rating", "games"] {
        assert_eq!(
            after[field], before[field],
            "the old grade is kept: {field}"
        );
    }
    assert!(after["detail"].contains("SyntaxError"), "{after:?}");
    let report = std::fs::read_to_string(season(dir, "report.html")).expect("report.html");
    assert!(
        report.contains("<tr class=\"leader\" data-student=\"ada\">")
            && report.contains("the latest submission did not build"),
        "ada keeps her place on the old grade, said so"
    );
    let f = feedback(dir, "ada");
    assert!(f.starts_with("ada: BUILD FAILED"), "{f}");
    assert!(
        f.contains("SyntaxError")
            && f.contains("Your grade is still that of your last version that played"),
        "{f}"
    );

    // One vocabulary: each version has the same status in versions.csv and
    // grades-history.csv, and grades.csv says the newest's.
    let words = ["current", "retired", "build-failed", "left-out"];
    let versions = statuses(dir, "versions.csv", "name");
    let history = statuses(dir, "grades-history.csv", "student");
    for (key, status) in &history {
        assert!(words.contains(&status.as_str()), "{key:?}: {status}");
        assert_eq!(versions.get(key), Some(status), "{key:?}");
    }
    let key = |r: &Row| ("ada".to_string(), r["version"].clone());
    assert_eq!(history[&key(&before)], "retired");
    assert_eq!(history[&key(&after)], "build-failed");
    assert_eq!(versions[&key(&after)], after["status"]);

    // Fixed: played and graded again, and compared with the last version
    // that played (the one that did not build never did).
    write(dir, &[("students/ada/bot.py", GREEDY)]);
    league(dir, &["-q", "--no-similarity"]);
    let fixed = gradebook(dir)["ada"].clone();
    assert_eq!(fixed["status"], "current");
    assert_eq!(fixed["graded_version"], fixed["version"]);
    let f = feedback(dir, "ada");
    assert!(
        f.contains("Compared with your previous version")
            && f.contains("highest level:")
            && f.contains("(the same)"),
        "the same program plays the same games: {f}"
    );
}

/// The first line of `running`'s output containing `what` (a minute at most);
/// every line before it into `seen`.
fn wait_for_line(running: &Running, what: &str, seen: &mut Vec<String>) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if let Ok(line) = running.lines.recv_timeout(Duration::from_millis(200)) {
            let found = line.contains(what);
            seen.push(line);
            if found {
                return;
            }
        }
    }
    panic!("no line with '{what}' within a minute; output: {seen:#?}");
}

#[test]
fn watch_acts_only_on_a_change_and_builds_a_failed_submission_again_once_it_changes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    league_file(dir, "\"level1\"", "level1", (2, 2));
    write(
        dir,
        &[
            ("students/ada/bot.py", GREEDY),
            ("students/eve/main.cpp", BROKEN_CPP),
        ],
    );
    let file = dir.join("league.toml");
    let out = dir.join("season");
    let mut running = Running::start(&[
        "league",
        file.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
        "-q",
        "--no-similarity",
        "--watch",
        "--poll-seconds",
        "1",
        "--pace",
        "5",
    ]);
    let mut seen = Vec::new();
    wait_for_line(&running, "Watching the submissions", &mut seen);
    assert_eq!(gradebook(dir)["eve"]["status"], "build-failed");
    // Four looks at an unchanged class (a failed build in it): nothing is
    // built, played or said again.
    std::thread::sleep(Duration::from_secs(4));
    let mut later = Vec::new();
    while let Ok(line) = running.lines.try_recv() {
        later.push(line);
    }
    assert!(later.is_empty(), "the watch acted on no change: {later:#?}");
    // eve fixes her bot: it is built and played.
    write(
        dir,
        &[(
            "students/eve/main.cpp",
            &std::fs::read_to_string(repo_root().join("bots/starters/cpp/starter.cpp"))
                .expect("the C++ starter"),
        )],
    );
    let mut second = Vec::new();
    wait_for_line(&running, "Played ", &mut second);
    wait_for_line(&running, "Watching the submissions", &mut second);
    assert!(
        second.iter().any(|l| l.starts_with("built eve")),
        "{second:#?}"
    );
    assert_eq!(gradebook(dir)["eve"]["status"], "current");
    // The pace is how the run is shown: recorded for the pages.
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("tournament.json")).expect("tournament.json"),
    )
    .expect("json");
    assert_eq!(manifest["display"]["pace_ms"], 5, "{manifest}");
    running.interrupt();
    assert_eq!(running.child.wait().expect("exit").code(), Some(130));
}

/// The guide's league file (configs/league.toml) over `students/*`, with
/// `seed` and, when given, another `max-games` (4: no games beyond the first
/// four a level, as the league played before it settled claims).
fn guide_league(dir: &Path, seed: u64, max_games: Option<u32>) {
    let guide = std::fs::read_to_string(repo_root().join("configs/league.toml"))
        .expect("configs/league.toml");
    let mut text = guide
        .replace("glob = \"classroom/*\"", "glob = \"students/*\"")
        .replace(
            "name = \"season\"",
            &format!("name = \"season\"\nseed = {seed}"),
        );
    if let Some(max) = max_games {
        text = text
            .lines()
            .map(|l| {
                if l.starts_with("max-games") {
                    format!("max-games = {max}")
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        assert!(text.contains(&format!("max-games = {max}")), "{text}");
    }
    write(dir, &[("league.toml", &text)]);
}

/// The seconds of a "Played N games in S s." line, and N.
fn played(said: &str) -> (u64, f64) {
    let line = said
        .lines()
        .find(|l| l.starts_with("Played "))
        .unwrap_or_else(|| panic!("no 'Played' line: {said}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    (
        words[1].parse().expect("games"),
        words[4].parse().expect("seconds"),
    )
}

/// BENCHMARKS.md, "League: repeatable grades": a class of 30 at the guide's
/// settings (configs/league.toml: five levels, 4 first games, 200 ms a move),
/// 15 Python starter kits and 15 copies of one greedy bot (each a version of its
/// own), played once with the games a claim needs (up to 20 a level) and once
/// with the first four only: games, wall time, and how many grades are
/// settled. Run with
/// `cargo test -p uttt-tests --test league_grades -- --ignored --nocapture bench_a_class`.
#[test]
#[ignore = "a benchmark: minutes of games"]
fn bench_a_class_of_30_at_the_guides_settings() {
    for max_games in [None, Some(4)] {
        let dir = tempfile::tempdir().expect("temp dir");
        let dir = dir.path();
        guide_league(dir, 47, max_games);
        for i in 0..15 {
            write(
                dir,
                &[
                    (
                        &format!("students/kit{i:02}/bot.py"),
                        &format!("{}\n# student {i}\n", python_bot()),
                    ),
                    (
                        &format!("students/own{i:02}/bot.py"),
                        &format!("{GREEDY}\n# student {i}\n"),
                    ),
                ],
            );
        }
        let wall = Instant::now();
        let said = league(dir, &["-q", "--no-similarity"]);
        let wall = wall.elapsed().as_secs_f64();
        let (games, seconds) = played(&said);
        let rows = gradebook(dir);
        let open = rows.values().filter(|r| !r["undecided"].is_empty()).count();
        let results: BTreeMap<String, usize> = rows.values().fold(BTreeMap::new(), |mut m, r| {
            *m.entry(format!("{} {}", r["result"], r["highest_level"]))
                .or_default() += 1;
            m
        });
        println!(
            "max-games {}: {games} games, {seconds:.1} s of games, {wall:.1} s wall; {open} of 30 \
             with a level not settled; results {results:?}",
            max_games.map_or("20 (default)".to_string(), |m| m.to_string()),
        );
    }
}

/// The highest level by the rule the league had before it settled claims:
/// the strongest level `name` scored at least half the points against in its
/// first four games there (by game number).
fn four_game_highest(dir: &Path, name: &str) -> String {
    let mut rows = read_csv(&season(dir, "games.csv"));
    rows.sort_by_key(|r| r["id"].trim_start_matches('G').parse::<u64>().unwrap_or(0));
    let mut per_level: BTreeMap<String, (u32, f64)> = BTreeMap::new();
    for r in &rows {
        let level = if r["x"] == name { &r["o"] } else { &r["x"] };
        let entry = per_level.entry(level.clone()).or_default();
        if entry.0 == 4 {
            continue;
        }
        entry.0 += 1;
        entry.1 += match r["winner_name"].as_str() {
            w if w == name => 1.0,
            "" => 0.5,
            _ => 0.0,
        };
    }
    per_level
        .iter()
        .rev()
        .find(|(_, (n, points))| *n > 0 && points / f64::from(*n) >= 0.5)
        .map(|(level, _)| level.clone())
        .unwrap_or_else(|| "none".into())
}

/// BENCHMARKS.md, "League: repeatable grades": the Python starter kit (random
/// play) graded at the guide's settings under ten league seeds, with the games
/// a claim needs and with the first four a level only: how far its rating,
/// highest level and result move from one seed to the next. Run with
/// `cargo test -p uttt-tests --test league_grades -- --ignored --nocapture bench_the_grade`.
#[test]
#[ignore = "a benchmark: minutes of games"]
fn bench_the_grade_of_a_random_bot_under_ten_seeds() {
    for max_games in [None, Some(4)] {
        let mut ratings = Vec::new();
        let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
        let mut games = Vec::new();
        let mut four_game: BTreeMap<String, usize> = BTreeMap::new();
        for seed in 1..=10 {
            let dir = tempfile::tempdir().expect("temp dir");
            let dir = dir.path();
            guide_league(dir, seed, max_games);
            write(dir, &[("students/kit/bot.py", &python_bot())]);
            league(dir, &["-q", "--no-similarity"]);
            let row = gradebook(dir)["kit"].clone();
            *four_game.entry(four_game_highest(dir, "kit")).or_default() += 1;
            ratings.push(row["rating"].parse::<f64>().unwrap_or(f64::NAN));
            games.push(row["games"].parse::<u32>().unwrap_or(0));
            *outcomes
                .entry(format!(
                    "{} {} (open: {})",
                    row["result"], row["highest_level"], row["undecided"]
                ))
                .or_default() += 1;
        }
        let finite: Vec<f64> = ratings.iter().copied().filter(|r| r.is_finite()).collect();
        let mean = finite.iter().sum::<f64>() / finite.len().max(1) as f64;
        let sd = (finite.iter().map(|r| (r - mean).powi(2)).sum::<f64>()
            / (finite.len().max(2) - 1) as f64)
            .sqrt();
        println!(
            "max-games {}: games {games:?}; ratings {ratings:?} (mean {mean:.0}, sd {sd:.0}, \
             range {:.0} to {:.0}); outcomes {outcomes:?}; highest level by the first four \
             games a level: {four_game:?}",
            max_games.map_or("20 (default)".to_string(), |m| m.to_string()),
            finite.iter().copied().fold(f64::INFINITY, f64::min),
            finite.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        );
    }
}
