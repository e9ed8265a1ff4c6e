//! A results directory is input as much as output (shards from other machines, CI
//! artifacts, shared folders): a symbolic link planted in one is never followed.
//! A log linked to a file outside is not served by `arena serve --show-logs`, not
//! embedded by `arena report`, and a resumed run refuses the directory, naming the
//! link, before a bot's chosen stderr text could be appended through it.

use std::os::unix::fs::symlink;
use std::path::Path;

use uttt_tests::serving::{Running, http};
use uttt_tests::{Tag, arena_text, assert_no_leftovers, read_csv, test_bot};

/// What the target of a planted link holds; never to be shown or changed.
const SECRET: &str = "operator-secret-line";

/// A line a bot chose for its stderr, the kind that must never reach a crontab.
const BOT_LINE: &str = "* * * * * root touch /tmp/uttt-pwned";

/// `arena match LOUD random --games 2 --out OUT`, where LOUD writes [`BOT_LINE`]
/// to stderr: played, or resumed.
fn play(out: &Path, tag: &Tag) -> (Option<i32>, String, String) {
    let loud = format!(
        "python3 {} --name loud --stderr '{BOT_LINE}' --tag {}",
        test_bot("good.py").display(),
        tag.0
    );
    let out = out.to_string_lossy();
    arena_text(&[
        "match", &loud, "random", "--games", "2", "--seed", "1", "--out", &out,
    ])
}

/// Drops the last game of `games.csv`, so that a resumed run plays it again.
fn forget_last_game(out: &Path) {
    let path = out.join("games.csv");
    let text = std::fs::read_to_string(&path).expect("games.csv");
    let lines: Vec<&str> = text.lines().collect();
    let kept: String = lines[..lines.len() - 1]
        .iter()
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&path, kept).expect("write games.csv");
}

/// The one log file the run wrote (the loud bot's).
fn the_log(out: &Path) -> std::path::PathBuf {
    let logs: Vec<_> = std::fs::read_dir(out.join("logs"))
        .expect("a logs folder")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    assert_eq!(logs.len(), 1, "{logs:?}");
    let log = logs[0].clone();
    assert!(
        std::fs::read_to_string(&log)
            .expect("log")
            .contains(BOT_LINE)
    );
    log
}

#[test]
fn a_log_linked_outside_is_not_served_not_embedded_and_never_appended_to() {
    let work = tempfile::tempdir().expect("temp dir");
    let out = work.path().join("run");
    let tag = Tag::new();
    let (code, stdout, stderr) = play(&out, &tag);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let log = the_log(&out);
    forget_last_game(&out);
    let bot = log
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(".stderr.log"))
        .expect("a bot's log")
        .to_string();

    // The log becomes a link to a file of the operator's.
    let target = work.path().join("crontab");
    std::fs::write(&target, format!("{SECRET}\n")).expect("write target");
    std::fs::remove_file(&log).expect("rm log");
    symlink(&target, &log).expect("symlink");

    // `arena report`: the log is left out, with a warning in the page.
    let (code, stdout, stderr) = arena_text(&["report", &out.to_string_lossy()]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let html = std::fs::read_to_string(out.join("report.html")).expect("report.html");
    assert!(!html.contains(SECRET), "the linked file was embedded");
    assert!(
        html.contains("is a symbolic link"),
        "no warning in the report"
    );

    // `arena serve --show-logs`: the bot's page says why, and shows nothing of it.
    let server = Running::start(&[
        "serve",
        &out.to_string_lossy(),
        "--addr",
        "127.0.0.1:0",
        "--show-logs",
    ]);
    let base = server.url();
    let (status, _, page) = http(&base, &format!("/run/0/bot/{bot}"));
    assert_eq!(status, 200, "{page}");
    assert!(!page.contains(SECRET), "the linked file was served: {page}");
    assert!(page.contains("not shown"), "{page}");
    drop(server);

    // Resuming refuses the directory, naming the link; nothing is appended.
    let (code, stdout, stderr) = play(&out, &tag);
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert!(
        stderr.contains(&format!("{} is a symbolic link", log.display())),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(&target).expect("target"),
        format!("{SECRET}\n")
    );
    assert_eq!(read_csv(&out.join("games.csv")).len(), 1, "nothing played");

    // The same with the logs folder itself a link to a directory elsewhere.
    let elsewhere = work.path().join("cron.d");
    std::fs::create_dir(&elsewhere).expect("mkdir");
    std::fs::remove_dir_all(out.join("logs")).expect("rm logs");
    symlink(&elsewhere, out.join("logs")).expect("symlink");
    let (code, stdout, stderr) = play(&out, &tag);
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert!(
        stderr.contains(&format!(
            "{} is a symbolic link",
            out.join("logs").display()
        )),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_dir(&elsewhere).expect("list").count(),
        0,
        "nothing was written through the linked folder"
    );

    // Once the link is gone the run resumes, and the log is a file of its own.
    std::fs::remove_file(out.join("logs")).expect("rm link");
    let (code, stdout, stderr) = play(&out, &tag);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert_eq!(read_csv(&out.join("games.csv")).len(), 2);
    the_log(&out);
    assert_no_leftovers(&tag);
}

#[test]
fn results_files_that_are_links_are_refused_by_every_reader() {
    let work = tempfile::tempdir().expect("temp dir");
    let real = work.path().join("real");
    let (code, stdout, stderr) = arena_text(&[
        "match",
        "random",
        "random",
        "--games",
        "2",
        "--out",
        &real.to_string_lossy(),
    ]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    // A directory whose games.csv and moves.csv are links to another run's.
    let linked = work.path().join("linked");
    std::fs::create_dir(&linked).expect("mkdir");
    for file in ["games.csv", "moves.csv"] {
        symlink(real.join(file), linked.join(file)).expect("symlink");
    }
    let linked_games = linked.join("games.csv");
    let expected = format!("{} is a symbolic link", linked_games.display());
    let dir = linked.to_string_lossy();
    for args in [
        vec!["report", &dir],
        vec!["replay", &dir],
        vec!["ratings", &*linked_games.to_string_lossy()],
    ] {
        let (code, stdout, stderr) = arena_text(&args);
        assert_ne!(code, Some(0), "{args:?}: {stdout}");
        assert!(stderr.contains(&expected), "{args:?}: {stderr}");
    }
    // Resuming into it is the user's to fix (exit 2), and nothing is written.
    let before = std::fs::read(real.join("games.csv")).expect("games.csv");
    let (code, _, stderr) =
        arena_text(&["match", "random", "random", "--games", "4", "--out", &dir]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains(&expected), "{stderr}");
    assert_eq!(
        std::fs::read(real.join("games.csv")).expect("games.csv"),
        before
    );
}

/// `builds/<bot>/` is removed and rewritten by the build step: a link planted
/// there (to another folder, say the teacher's) refuses the run, naming it, and
/// what it points to is left as it was.
#[test]
fn a_build_copy_that_is_a_link_refuses_the_run_and_is_left_alone() {
    let work = tempfile::tempdir().expect("temp dir");
    let ada = work.path().join("students/ada");
    std::fs::create_dir_all(&ada).expect("mkdir");
    std::fs::copy(test_bot("good.py"), ada.join("bot.py")).expect("copy");
    std::fs::write(
        ada.join("bot.toml"),
        "command = \"python3 bot.py\"\nbuild = \"true\"\n",
    )
    .expect("bot.toml");
    let config = work.path().join("class.toml");
    std::fs::write(
        &config,
        "name = \"class\"\nseed = 5\ngames = 2\n\n[[bot]]\ncommand = \"random\"\n\n\
         [[bot]]\nglob = \"students/*\"\n",
    )
    .expect("class.toml");
    let elsewhere = work.path().join("teacher");
    std::fs::create_dir(&elsewhere).expect("mkdir");
    std::fs::write(elsewhere.join("grades.txt"), SECRET).expect("write");
    let out = work.path().join("out");
    std::fs::create_dir_all(out.join("builds")).expect("mkdir");
    let copy = out.join("builds/ada");
    symlink(&elsewhere, &copy).expect("symlink");

    let (code, stdout, stderr) = arena_text(&[
        "tournament",
        &config.to_string_lossy(),
        "--out",
        &out.to_string_lossy(),
        "--quiet",
    ]);
    assert_ne!(code, Some(0), "{stdout}{stderr}");
    assert!(
        stderr.contains(&format!("{} is a symbolic link", copy.display())),
        "{stdout}{stderr}"
    );
    let left: Vec<_> = std::fs::read_dir(&elsewhere)
        .expect("list")
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left, ["grades.txt"], "the linked folder was written");
    assert_eq!(
        std::fs::read_to_string(elsewhere.join("grades.txt")).expect("read"),
        SECRET
    );
    assert!(std::fs::symlink_metadata(&copy).expect("link").is_symlink());
}

/// A failure bundle is written inside the results directory only: a `failures/`
/// folder or a game's bundle folder that is a link refuses the run (naming it)
/// before a crashing bot's chosen stderr could be written through it.
#[test]
fn a_failure_bundle_is_never_written_through_a_link() {
    let tag = Tag::new();
    let crashy = format!(
        "crashy={}",
        uttt_tests::hostile("last-words-exit", &["--after", "1", "--bytes", "64"], &tag)
    );
    for planted in ["failures", "failures/G0001"] {
        let dir = tempfile::tempdir().expect("temp dir");
        let outside = tempfile::tempdir().expect("temp dir");
        let out = dir.path().join("run");
        let link = out.join(planted);
        std::fs::create_dir_all(link.parent().expect("a parent")).expect("mkdir");
        symlink(outside.path(), &link).expect("symlink");
        let (code, stdout, stderr) = arena_text(&[
            "match",
            &crashy,
            "random",
            "--games",
            "2",
            "--seed",
            "1",
            "--out",
            &out.to_string_lossy(),
        ]);
        assert_eq!(code, Some(2), "{planted}: {stdout}\n{stderr}");
        assert!(
            stderr.contains("is a symbolic link") && stderr.contains(planted),
            "{planted}: {stderr}"
        );
        let written: Vec<_> = std::fs::read_dir(outside.path())
            .expect("outside")
            .collect();
        assert!(written.is_empty(), "{planted}: wrote {written:?} outside");
    }
    assert_no_leftovers(&tag);
}
