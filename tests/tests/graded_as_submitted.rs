//! A submission is graded as what it is (issue 46, section 2), end to end
//! through the real binary: a student's folder is read once per run, by its
//! copy, so the version a league records is always the code that played, and
//! the similarity check reads that code too, however the folder is rewritten
//! between the copy and the rest (by a build that writes its own source, or by
//! a loop flipping it while the league runs); a folder over its cap (a sparse
//! file of 3 GiB, too many files) is left out at once, without the arena
//! reading it, with why in its grades.csv row and feedback file; a folder named
//! like a level, a built-in bot or another entrant has a left-out row and a
//! feedback file of its own and borrows nothing of the other bot.
//! Needs python3.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use uttt_tests::classes::{ALWAYS_A1, python_bot, write};
use uttt_tests::{Row, arena, arena_bin, assert_exit, read_csv, stdout_text};

/// A league over `students/*` against level1 alone, two games each (and no
/// more: `max-games = 2`, so every count below is exact), with `extra`
/// top-level keys and the `[league]` table's `levels`.
fn league_file(dir: &Path, extra: &str, levels: &str) {
    write(
        dir,
        &[(
            "league.toml",
            &format!(
                "name = \"season\"\ngames = 2\nconcurrency = 2\nseed = 5\n{extra}\n\n[time]\n\
                 move-ms = 200\nfirst-move-ms = 3000\n\n[league]\nmode = \"levels\"\n\
                 levels = [{levels}]\nmax-games = 2\n\n[[bot]]\nglob = \"students/*\"\n"
            ),
        )],
    );
}

/// A student's own program (not a starter kit, whose code the similarity
/// check leaves out): the test bot that plays the first legal square.
fn own_bot() -> String {
    std::fs::read_to_string(uttt_tests::repo_root().join("tests/bots/good.py"))
        .expect("tests/bots/good.py")
}

/// `arena league` on the season in `dir` (quiet, `extra` flags).
fn league(dir: &Path, extra: &[&str]) -> Output {
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
    arena(&args)
}

/// The games the run played, from its words.
fn played(run: &Output) -> usize {
    let stdout = stdout_text(run);
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("Played "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no 'Played' line in:\n{stdout}"))
}

/// A file of the season.
fn season(dir: &Path, file: &str) -> PathBuf {
    dir.join("season").join(file)
}

/// The current version of `name` in versions.csv.
fn current(dir: &Path, name: &str) -> String {
    read_csv(&season(dir, "versions.csv"))
        .into_iter()
        .find(|r| r["name"] == name && r["status"] == "current")
        .map(|r| r["version"].clone())
        .unwrap_or_else(|| panic!("no current version of {name}"))
}

/// `name`'s row of grades.csv.
fn grade_row(dir: &Path, name: &str) -> Row {
    read_csv(&season(dir, "grades.csv"))
        .into_iter()
        .find(|r| r["student"] == name)
        .unwrap_or_else(|| panic!("no row for {name} in grades.csv"))
}

/// How a side of a game played: the always-a1 bot loses every game by an
/// illegal move (its second a1 at the latest); the student's own bot
/// ([`own_bot`]) never plays one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Played {
    Starter,
    AlwaysA1,
}

/// Each version of games.csv with how every game of it was played, by version
/// (whoever's name it played under).
fn behaviour_by_version(dir: &Path) -> BTreeMap<String, Vec<(String, Played)>> {
    let mut seen: BTreeMap<String, Vec<(String, Played)>> = BTreeMap::new();
    for row in read_csv(&season(dir, "games.csv")) {
        for (name, version) in [
            (&row["x"], &row["x_version"]),
            (&row["o"], &row["o_version"]),
        ] {
            if name.starts_with("level") {
                continue;
            }
            let lost_illegally = row["reason"] == "illegal-move" && &row["winner_name"] != name;
            let how = if lost_illegally {
                Played::AlwaysA1
            } else {
                Played::Starter
            };
            seen.entry(version.clone())
                .or_default()
                .push((name.clone(), how));
        }
    }
    seen
}

/// Asserts that every game recorded under the starter's version (`starter`) was
/// played by the starter, and every one under the always-a1 bot's version
/// (`always`) by that bot, whatever the student's name: a version is the code
/// that played it.
#[track_caller]
fn assert_each_version_is_the_code_that_played(dir: &Path, starter: &str, always: &str) {
    let seen = behaviour_by_version(dir);
    for (version, games) in &seen {
        let expected = if version == starter {
            Played::Starter
        } else if version == always {
            Played::AlwaysA1
        } else {
            panic!("version {version} is neither variant's: {seen:#?}");
        };
        for (name, how) in games {
            assert_eq!(
                *how, expected,
                "{name} played as {how:?} under version {version}, the version of {expected:?}: \
                 {seen:#?}"
            );
        }
    }
}

/// The class of the swap tests: `ada` holds [`own_bot`] and a build step that,
/// run in ada's copy only, rewrites ada's own folder to the always-a1 bot;
/// `twin-a` and `twin-b` hold the same files byte for byte (so the same build
/// step, which does nothing in their copies), with the starter and the
/// always-a1 bot: their versions are the two variants' versions. No sandbox,
/// so that the build can reach the student's folder, as the student can.
fn swapping_class(dir: &Path) {
    league_file(dir, "sandbox = \"none\"", "\"level1\"");
    let flip = format!(
        "case \"$PWD\" in */builds/ada) cp '{}' '{}' ;; esac\n",
        dir.join("variants/always_a1.py").display(),
        dir.join("students/ada/bot.py").display()
    );
    let toml = "build = \"sh flip.sh\"\n";
    let starter = own_bot();
    write(
        dir,
        &[
            ("variants/always_a1.py", ALWAYS_A1),
            ("students/ada/bot.py", &starter),
            ("students/ada/bot.toml", toml),
            ("students/ada/flip.sh", &flip),
            ("students/twin-a/bot.py", &starter),
            ("students/twin-a/bot.toml", toml),
            ("students/twin-a/flip.sh", &flip),
            ("students/twin-b/bot.py", ALWAYS_A1),
            ("students/twin-b/bot.toml", toml),
            ("students/twin-b/flip.sh", &flip),
        ],
    );
}

#[test]
fn a_folder_rewritten_after_its_copy_is_versioned_played_and_compared_as_the_copy() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    swapping_class(dir);

    // Run 1: ada's build rewrites ada's folder after the copy was made.
    let first = league(dir, &[]);
    assert_exit(&first, 0);
    assert_eq!(
        std::fs::read_to_string(dir.join("students/ada/bot.py")).expect("ada's bot"),
        ALWAYS_A1,
        "the build did rewrite the folder"
    );
    let (starter, always) = (current(dir, "twin-a"), current(dir, "twin-b"));
    assert_ne!(starter, always);
    assert_eq!(
        current(dir, "ada"),
        starter,
        "ada is versioned as the copy that played, not as her folder after it"
    );
    assert_eq!(
        std::fs::read_to_string(season(dir, "builds/ada/bot.py")).expect("ada's copy"),
        own_bot()
    );
    assert_each_version_is_the_code_that_played(dir, &starter, &always);
    // The similarity check read the copy that played: ada's is twin-a's code.
    let pairs = read_csv(&season(dir, "similarity.csv"));
    let pair = |a: &str, b: &str| {
        pairs
            .iter()
            .find(|p| (p["a"] == a && p["b"] == b) || (p["a"] == b && p["b"] == a))
            .unwrap_or_else(|| panic!("no pair {a} ~ {b}: {pairs:#?}"))
    };
    assert_eq!(pair("ada", "twin-a")["flagged"], "yes", "{pairs:#?}");
    assert_eq!(pair("ada", "twin-a")["score"], "1.0", "{pairs:#?}");
    assert_eq!(pair("ada", "twin-b")["flagged"], "no", "{pairs:#?}");

    // Run 2: the folder as the build left it is a new version, and plays.
    let second = league(dir, &["--no-similarity"]);
    assert_exit(&second, 0);
    assert_eq!(current(dir, "ada"), always);
    assert_eq!(played(&second), 2, "ada's new version plays its games");
    assert_each_version_is_the_code_that_played(dir, &starter, &always);
    let ada = grade_row(dir, "ada");
    assert_eq!(
        (ada["version"].as_str(), ada["games"].as_str()),
        (&always[..], "2")
    );
    assert_eq!(ada["detail"], "illegal-move:2", "{ada:?}");
}

#[test]
fn a_folder_flipped_in_a_loop_while_the_league_runs_is_graded_as_the_code_that_played() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path().to_path_buf();
    swapping_class(&dir);
    // No build step flips anything here: a loop does, all along.
    write(&dir, &[("students/ada/flip.sh", "")]);
    write(&dir, &[("students/twin-a/flip.sh", "")]);
    write(&dir, &[("students/twin-b/flip.sh", "")]);
    let stop = Arc::new(AtomicBool::new(false));
    let flipper = {
        let (stop, dir) = (Arc::clone(&stop), dir.clone());
        std::thread::spawn(move || {
            // The next variant is written beside the class, never in the folder.
            let (bot, next) = (dir.join("students/ada/bot.py"), dir.join("next.py"));
            let variants = [own_bot(), ALWAYS_A1.to_string()];
            let mut flips = 0usize;
            while !stop.load(Ordering::Relaxed) {
                // Whole files, swapped in by a rename: every read sees one variant.
                std::fs::write(&next, &variants[flips % 2]).expect("write");
                std::fs::rename(&next, &bot).expect("rename");
                flips += 1;
                std::thread::sleep(Duration::from_millis(1));
            }
            flips
        })
    };
    // After every run, ada's copy (the code that played) is one variant, whole,
    // and her current version is that variant's.
    let mut copies = Vec::new();
    for i in 0..5 {
        let run = league(&dir, if i == 0 { &[] } else { &["--no-similarity"] });
        assert_exit(&run, 0);
        let copy = std::fs::read_to_string(season(&dir, "builds/ada/bot.py")).expect("ada's copy");
        copies.push((copy, current(&dir, "ada")));
    }
    stop.store(true, Ordering::Relaxed);
    let flips = flipper.join().expect("the flipping loop");
    assert!(
        flips > 100,
        "the folder was flipped all along ({flips} times)"
    );
    let (starter, always) = (current(&dir, "twin-a"), current(&dir, "twin-b"));
    for (i, (copy, version)) in copies.iter().enumerate() {
        let expected = match copy.as_str() {
            ALWAYS_A1 => &always,
            c if *c == own_bot() => &starter,
            _ => panic!("run {i}: ada's copy is neither variant: {copy}"),
        };
        assert_eq!(
            version, expected,
            "run {i}: ada's version is not her copy's"
        );
    }
    let ada_versions: Vec<String> = read_csv(&season(&dir, "versions.csv"))
        .into_iter()
        .filter(|r| r["name"] == "ada")
        .map(|r| r["version"].clone())
        .collect();
    assert!(
        ada_versions.iter().all(|v| *v == starter || *v == always),
        "ada's versions are those of the two variants: {ada_versions:?}"
    );
    assert_each_version_is_the_code_that_played(&dir, &starter, &always);
}

/// `arena ARGS…` run by python3, which says the peak resident memory of the
/// arena and everything it ran (`RUSAGE_CHILDREN`, in KiB) on its last line of
/// standard error: the arena's own peak, whatever else the tests run meanwhile.
fn arena_with_peak_memory(args: &[&str]) -> (Output, u64) {
    const SCRIPT: &str = "import resource, subprocess, sys\n\
        run = subprocess.run(sys.argv[1:], capture_output=True)\n\
        sys.stdout.buffer.write(run.stdout)\n\
        sys.stderr.buffer.write(run.stderr)\n\
        print('peak-kib', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n\
        sys.exit(run.returncode)\n";
    let mut output = std::process::Command::new("python3")
        .arg("-c")
        .arg(SCRIPT)
        .arg(arena_bin())
        .args(args)
        .output()
        .expect("python3 runs the arena");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let (rest, last) = stderr
        .trim_end()
        .rsplit_once('\n')
        .unwrap_or(("", stderr.trim_end()));
    let peak = last
        .strip_prefix("peak-kib ")
        .and_then(|k| k.parse().ok())
        .unwrap_or_else(|| panic!("no peak in: {stderr}"));
    output.stderr = rest.as_bytes().to_vec();
    (output, peak)
}

/// Bytes the files below `dir` take on disk (their blocks, not their lengths).
fn disk_use(dir: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt as _;
    let mut total = 0;
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let Ok(meta) = entry.metadata() else { continue };
            total += meta.blocks() * 512;
            if meta.is_dir() {
                pending.push(entry.path());
            }
        }
    }
    total
}

#[test]
fn a_sparse_file_of_3_gib_leaves_its_submission_out_without_costing_the_arena_memory_or_disk() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    league_file(dir, "", "\"level1\"");
    write(
        dir,
        &[
            ("students/ada/bot.py", &python_bot()),
            ("students/bo/bot.py", &python_bot()),
        ],
    );
    // `truncate -s 3G`: no disk of the student's used.
    let big = std::fs::File::create(dir.join("students/bo/big.bin")).expect("create");
    big.set_len(3 << 30).expect("truncate");
    drop(big);
    let file = dir.join("league.toml");
    let out = dir.join("season");
    let (run, peak_kib) = arena_with_peak_memory(&[
        "league",
        file.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
        "-q",
    ]);
    assert_exit(&run, 0);
    assert!(
        peak_kib < 200 * 1024,
        "the arena's peak memory was {peak_kib} KiB: the file was read"
    );
    assert!(
        disk_use(&out) < 20 << 20,
        "the results take {} bytes: the file was copied",
        disk_use(&out)
    );
    assert!(!out.join("builds/bo").exists(), "bo has no copy");
    let why = "it holds more than 50 MiB (its file big.bin alone is 3.0 GiB): a submission may \
               hold at most 50 MiB and 5000 files and folders (submission-max-mb and \
               submission-max-files in the tournament file)";
    let bo = grade_row(dir, "bo");
    assert_eq!(bo["status"], "left-out");
    assert!(bo["detail"].contains(why), "{bo:?}");
    assert_eq!((bo["version"].as_str(), bo["games"].as_str()), ("", "0"));
    assert_eq!(bo["feedback"], "feedback/bo.txt");
    let feedback = std::fs::read_to_string(out.join("feedback/bo.txt")).expect("bo's feedback");
    assert!(
        feedback.starts_with("bo: LEFT OUT of this run") && feedback.contains(why),
        "{feedback}"
    );
    let said = stdout_text(&run);
    assert!(
        said.contains(&format!(
            "left out bo: {}: {why}",
            dir.join("students/bo").display()
        )),
        "{said}"
    );
    // The class played on.
    assert_eq!(grade_row(dir, "ada")["games"], "2");
    assert_eq!(played(&run), 2);
}

#[test]
fn the_caps_set_in_the_file_leave_out_a_folder_of_too_many_files_or_bytes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    league_file(
        dir,
        "submission-max-mb = 1\nsubmission-max-files = 20",
        "\"level1\"",
    );
    let starter = python_bot();
    let mut files: Vec<(String, String)> = vec![
        ("students/ada/bot.py".into(), starter.clone()),
        ("students/cy/bot.py".into(), starter.clone()),
        ("students/dee/bot.py".into(), starter.clone()),
        // 2 MiB of data in a file of its own.
        ("students/dee/data/weights.txt".into(), "0".repeat(2 << 20)),
    ];
    for i in 0..30 {
        files.push((format!("students/cy/lib/m{i:02}.py"), String::new()));
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    write(dir, &files);
    let run = league(dir, &["--no-similarity"]);
    assert_exit(&run, 0);
    let cy = grade_row(dir, "cy");
    assert_eq!(cy["status"], "left-out");
    assert!(
        cy["detail"].contains("it holds more than 20 files and folders: a submission may hold at most 1 MiB and 20 files and folders"),
        "{cy:?}"
    );
    let dee = grade_row(dir, "dee");
    assert_eq!(dee["status"], "left-out");
    assert!(
        dee["detail"]
            .contains("it holds more than 1 MiB (its file data/weights.txt alone is 2 MiB)"),
        "{dee:?}"
    );
    for name in ["cy", "dee"] {
        let feedback = std::fs::read_to_string(season(dir, &format!("feedback/{name}.txt")))
            .expect("feedback");
        assert!(
            feedback.contains("remove what the bot does not need"),
            "{feedback}"
        );
    }
    assert_eq!(grade_row(dir, "ada")["status"], "current");
    // A value out of range names the key, the line and the range.
    league_file(dir, "submission-max-files = 0", "\"level1\"");
    let refused = league(dir, &[]);
    assert_exit(&refused, 2);
    let said = uttt_tests::stderr_text(&refused);
    assert!(
        said.contains(
            "league.toml:5: submission-max-files = 0 is out of range: use a whole number from 1 to"
        ),
        "{said}"
    );
}

#[test]
fn a_folder_named_like_a_level_or_another_bot_has_its_own_left_out_row_and_borrows_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    league_file(dir, "", "\"level1\", \"level2\"");
    // The teacher's own bot, graded beside the students.
    let mut text = std::fs::read_to_string(dir.join("league.toml")).expect("the file");
    text.push_str("\n[[bot]]\nname = \"coach\"\ncommand = \"random\"\n");
    write(dir, &[("league.toml", &text)]);
    let starter = python_bot();
    write(
        dir,
        &[
            ("students/ada/bot.py", &starter),
            ("students/level2/bot.py", &starter),
            ("students/mcts/bot.py", &starter),
            ("students/coach/bot.py", &starter),
        ],
    );
    let run = league(dir, &["--no-similarity"]);
    assert_exit(&run, 0);
    let levels_version = current(dir, "level2");
    let coach_version = current(dir, "coach");
    let grades = read_csv(&season(dir, "grades.csv"));
    for (name, why, feedback) in [
        (
            "level2",
            "is that of the built-in bot 'level2'",
            "feedback/level2.txt",
        ),
        (
            "mcts",
            "is that of the built-in bot 'mcts'",
            "feedback/mcts.txt",
        ),
        (
            "coach",
            "the tournament file names another bot 'coach'",
            "feedback/left-out/coach.txt",
        ),
    ] {
        let rows: Vec<&Row> = grades
            .iter()
            .filter(|r| r["student"] == name && r["status"] == "left-out")
            .collect();
        assert_eq!(rows.len(), 1, "{name}: {grades:#?}");
        let row = rows[0];
        assert_eq!(
            (
                row["version"].as_str(),
                row["versions"].as_str(),
                row["games"].as_str(),
                row["rating"].as_str(),
                row["result"].as_str()
            ),
            ("", "0", "0", "", ""),
            "{name} borrows nothing: {row:?}"
        );
        assert!(
            row["detail"].contains(why) && row["detail"].contains("rename the folder"),
            "{row:?}"
        );
        assert_eq!(row["feedback"], feedback);
        let text = std::fs::read_to_string(season(dir, feedback)).expect("its feedback");
        assert!(
            text.starts_with(&format!("{name}: LEFT OUT of this run"))
                && text.contains(why)
                && text.contains("rename the folder"),
            "{text}"
        );
        assert!(
            !text.contains(&levels_version) && !text.contains(&coach_version),
            "{text}"
        );
    }
    // The teacher's bot keeps its own row and feedback, its games its own.
    let coach = grades
        .iter()
        .find(|r| r["student"] == "coach" && r["status"] == "current")
        .expect("the teacher's bot");
    assert_eq!(
        (coach["version"].as_str(), coach["games"].as_str()),
        (&coach_version[..], "4")
    );
    let coach_feedback =
        std::fs::read_to_string(season(dir, "feedback/coach.txt")).expect("coach's feedback");
    assert!(coach_feedback.contains(&coach_version), "{coach_feedback}");
    // The printed table: the level-named folder with no games of the level's.
    let stdout = stdout_text(&run);
    let line = stdout
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some("level2"))
        .unwrap_or_else(|| panic!("no table line for level2: {stdout}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(words[2], "0", "no versions: {line}");
    assert_eq!(
        words[words.len() - 2..],
        ["0", "0"],
        "no games, no faults: {line}"
    );
}
