//! Submissions written by students the teacher does not trust, end to end
//! through the real binary (issue 32, items 1–5): a submission closed to other
//! users runs under a uid of its own and reads no secret; one that reaches
//! outside its folder (paths in `args`, `../alice/bot.py`, a built-in engine,
//! a link) is left out and named; build copies belong to the build alone and a
//! swapped binary is never run; folder names that clash leave out every folder
//! whose name had to change, each named; Ctrl-C during a build exits 130; and
//! the whole class of them played under `auto`. The snooping submission is
//! `tests/bots/submissions/snoop.py`. Needs python3 and g++ (installed by
//! .ci/run).

use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use uttt_tests::{
    arena, arena_bin, assert_exit, read_csv, repo_root, stderr_text as stderr,
    stdout_text as stdout, test_bot,
};

/// A class: a directory other users may enter (as a teacher's usually is),
/// holding a secret only root may read and a tournament file with the built-in
/// `random` and a glob over `students/`.
struct Class {
    dir: tempfile::TempDir,
    secret: PathBuf,
    secret_text: String,
}

impl Class {
    fn new(header: &str) -> Class {
        let dir = tempfile::tempdir().expect("temp dir");
        chmod(dir.path(), 0o755);
        let secret = dir.path().join("secret.txt");
        let secret_text = format!("TOPSECRET-{}", std::process::id());
        std::fs::write(&secret, format!("{secret_text}\n")).expect("write the secret");
        chmod(&secret, 0o600);
        std::fs::write(
            dir.path().join("class.toml"),
            format!(
                "name = \"class\"\nseed = 7\ngames = 2\n{header}\n[time]\nmove-ms = 500\nfirst-move-ms = 3000\n\n[[bot]]\ncommand = \"random\"\n\n[[bot]]\nglob = \"students/*\"\n"
            ),
        )
        .expect("write the config");
        Class {
            dir,
            secret,
            secret_text,
        }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    /// A student's folder, as the run's messages name it.
    fn folder(&self, student: &str) -> String {
        self.path(&format!("students/{student}"))
            .display()
            .to_string()
    }

    /// A student's folder holding the snooping bot as `bot.py`, and `files`.
    fn snoop(&self, student: &str, files: &[(&str, &str)]) -> PathBuf {
        let folder = self.path(&format!("students/{student}"));
        std::fs::create_dir_all(&folder).expect("mkdir");
        std::fs::copy(test_bot("submissions/snoop.py"), folder.join("bot.py")).expect("copy");
        chmod(&folder.join("bot.py"), 0o644);
        write(&folder, files);
        folder
    }

    /// A student's folder holding the C++ starter kit as `main.cpp`.
    fn cpp(&self, student: &str) -> PathBuf {
        let folder = self.path(&format!("students/{student}"));
        std::fs::create_dir_all(&folder).expect("mkdir");
        std::fs::copy(
            repo_root().join("bots/starters/cpp/starter.cpp"),
            folder.join("main.cpp"),
        )
        .expect("copy the starter");
        folder
    }

    fn config(&self) -> String {
        self.path("class.toml").display().to_string()
    }

    fn tournament(&self, out: &str, extra: &[&str]) -> Output {
        let out = self.path(out).display().to_string();
        let mut args = vec!["tournament", "--quiet", "--out", &out];
        let config = self.config();
        args.insert(1, &config);
        args.extend_from_slice(extra);
        arena(&args)
    }

    fn check(&self, feedback: &str) -> Output {
        let feedback = self.path(feedback).display().to_string();
        arena(&["check", "--config", &self.config(), "--feedback", &feedback])
    }
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
}

/// Every file below `dir`, read as text (lossy), with its path.
fn every_file(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => pending.push(path),
                Ok(t) if t.is_file() => {
                    let bytes = std::fs::read(&path).unwrap_or_default();
                    found.push((path, String::from_utf8_lossy(&bytes).into_owned()));
                }
                _ => {}
            }
        }
    }
    found
}

#[track_caller]
fn assert_no_secret(class: &Class, dir: &Path) {
    for (path, text) in every_file(dir) {
        assert!(
            !text.contains(&class.secret_text),
            "the secret reached {}",
            path.display()
        );
    }
}

/// The snoop reports of `bot` in moves.csv.
fn reports(results: &Path, bot: &str) -> Vec<String> {
    read_csv(&results.join("moves.csv"))
        .into_iter()
        .filter(|m| m["bot"] == bot && m["info"].contains("uid="))
        .map(|m| m["info"].clone())
        .collect()
}

/// The file names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Issue 32, item 1: a `bot.py` of mode 600 (as a zip unpacked by root keeps
/// it) made `auto` run the submission as root, which read the teacher's
/// secrets and wrote into its own folder. It now runs from a copy its own uid
/// can read, and neither reads the secret nor writes anywhere, its folder least
/// of all; nothing it prints carries a secret into the results or feedback.
#[test]
fn a_submission_closed_to_other_users_runs_under_its_own_uid_and_reads_no_secret() {
    let class = Class::new("");
    let targets = format!("{}\n/etc/shadow\n", class.secret.display());
    let closed = class.snoop("closed", &[("targets.txt", &targets)]);
    chmod(&closed.join("bot.py"), 0o600);
    chmod(&closed.join("targets.txt"), 0o600);
    chmod(&closed, 0o700);
    let before = listing(&closed);
    let out = class.tournament("r", &[]);
    assert_exit(&out, 0);
    let results = class.path("r");
    let said = reports(&results, "closed");
    assert!(!said.is_empty(), "{}", stdout(&out));
    for line in &said {
        assert!(!line.contains("uid=0 "), "it ran as root: {line}");
        assert!(!line.contains("=GOT:"), "it read a secret: {line}");
        assert!(!line.contains("=OK"), "it wrote: {line}");
    }
    assert!(
        said[0].contains(&format!("read:{}=", class.secret.display())),
        "{}",
        said[0]
    );
    assert_eq!(listing(&closed), before, "its folder is never written");
    let mode = std::fs::metadata(closed.join("bot.py"))
        .expect("bot.py")
        .mode();
    assert_eq!(mode & 0o777, 0o600, "its own files are left as they were");
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(results.join("tournament.json")).expect("tournament.json"),
    )
    .expect("JSON");
    let bot = &json["sandbox"]["bots"]["closed"];
    assert!(bot["runs_as_root"].is_null(), "{bot}");
    assert_no_secret(&class, &results);

    let feedback = class.check("feedback");
    assert_exit(&feedback, 0);
    assert_no_secret(&class, &class.path("feedback"));
    assert_eq!(listing(&closed), before);

    // `arena doctor` plans it from a copy too: a uid of its own, not a refusal.
    let doctor = arena(&["doctor", "--config", &class.config()]);
    assert_exit(&doctor, 0);
    let line = stdout(&doctor)
        .lines()
        .find(|l| l.trim_start().starts_with("closed  "))
        .map(str::to_string)
        .unwrap_or_default();
    assert!(
        !line.contains("refused") && !line.contains("runs as root"),
        "{line}"
    );
    if nix_uid() == 0 {
        assert!(line.contains("own uid: yes"), "{line}");
    }
}

/// Issue 32, item 2: a submission's command line reached a classmate's code
/// (`../alice/bot.py`), the teacher's files (`args = ["/etc/shadow", …]`) and
/// the strongest built-in engine (`command = "mcts"`), and a folder that is a
/// link, or holds one leading out, was read through it. Each is left out now,
/// named with why, in the run's output and in its feedback file; a folder named
/// like a built-in bot is left out rather than pass for it in the tables;
/// `allow-builtin = true` lets a submission be a built-in bot.
#[test]
fn a_submission_reaching_outside_its_folder_is_left_out_and_named() {
    let class = Class::new("");
    class.snoop("alice", &[]);
    let secret = class.secret.display().to_string();
    class.snoop(
        "paths",
        &[(
            "bot.toml",
            &format!("command = \"python3 bot.py\"\nargs = [\"{secret}\", \"/root\"]\n"),
        )],
    );
    class.snoop(
        "copycat",
        &[("bot.toml", "command = \"python3 ../alice/bot.py\"\n")],
    );
    class.snoop(
        "option",
        &[(
            "bot.toml",
            &format!("command = \"python3 bot.py\"\nargs = [\"--model={secret}\"]\n"),
        )],
    );
    class.snoop("engine", &[("bot.toml", "command = \"mcts\"\n")]);
    class.snoop(
        "itself",
        &[(
            "bot.toml",
            &format!("command = \"{} bot mcts\"\n", arena_bin().display()),
        )],
    );
    class.snoop("mcts", &[]);
    let smuggler = class.snoop("smuggler", &[]);
    std::os::unix::fs::symlink(&class.secret, smuggler.join("notes.txt")).expect("link");
    std::os::unix::fs::symlink(class.path("students/alice"), class.path("students/linked"))
        .expect("link");
    let out = class.tournament("r", &["--dry-run"]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    let expected = [
        (
            "paths",
            format!("its command names {secret}, outside its folder"),
        ),
        (
            "copycat",
            "its command names ../alice/bot.py, outside its folder".to_string(),
        ),
        (
            "option",
            format!("its command names {secret}, outside its folder"),
        ),
        (
            "engine",
            "its command runs the built-in bot 'mcts', not code of its own: a submission may not play a built-in bot (allow-builtin = true in the tournament file lets submissions use them)".to_string(),
        ),
        (
            "itself",
            "its command runs the arena program itself".to_string(),
        ),
        (
            "mcts",
            "its name 'mcts' is that of the built-in bot 'mcts', so the tables could not tell them apart: rename the folder".to_string(),
        ),
        (
            "smuggler",
            "it holds a symbolic link that leads outside it (notes.txt -> ".to_string(),
        ),
        ("linked", "it is a symbolic link (to ".to_string()),
    ];
    for (name, why) in &expected {
        let line = format!("left out {name}: {}: {why}", class.folder(name));
        assert!(text.contains(&line), "{line}\n{text}");
    }
    assert!(
        text.contains("Dry run of 'class': 2 bots (random, alice)"),
        "{text}"
    );
    // `arena doctor --config` predicts every one of them.
    let doctor = arena(&["doctor", "--config", &class.config()]);
    assert_exit(&doctor, 0);
    for (name, why) in &expected {
        let line = format!("left out {name}: {}: {why}", class.folder(name));
        assert!(
            stdout(&doctor).contains(&line),
            "{line}\n{}",
            stdout(&doctor)
        );
    }

    let check = class.check("feedback");
    assert_exit(&check, 1);
    for (name, why) in &expected {
        let file = std::fs::read_to_string(class.path(&format!("feedback/{name}.txt")))
            .unwrap_or_else(|e| panic!("{name}.txt: {e}"));
        assert!(
            file.contains("RESULT: FAIL") && file.contains(why.as_str()),
            "{file}"
        );
    }
    assert!(
        std::fs::read_to_string(class.path("feedback/alice.txt"))
            .expect("alice.txt")
            .contains("RESULT: PASS")
    );
    assert_no_secret(&class, &class.path("feedback"));

    // The teacher may allow built-in bots in submissions.
    let allowed = Class::new("allow-builtin = true");
    allowed.snoop("alice", &[]);
    allowed.snoop("engine", &[("bot.toml", "command = \"mcts\"\n")]);
    let out = allowed.tournament("r", &["--dry-run"]);
    assert_exit(&out, 0);
    assert!(
        stdout(&out).contains("3 bots (random, alice, engine)"),
        "{}",
        stdout(&out)
    );
}

/// `class`'s C++ student `alice` (the starter kit, built by a bot.toml that also
/// records the uid the build ran as) and a Python student whose folder is
/// named like alice's old hash file, `alice.sha256`.
fn cpp_class() -> Class {
    let class = Class::new("build-seconds = 120");
    let alice = class.cpp("alice");
    write(
        &alice,
        &[(
            "bot.toml",
            "command = \"./bot\"\nbuild = \"id -u > built-by.txt && g++ -std=c++17 -O2 -o bot *.cpp\"\n",
        )],
    );
    class.snoop("alice.sha256", &[]);
    class
}

/// Runs `command` with `sh -c` as user `nobody` (uid and gid 65534, no groups).
fn as_nobody(command: &str) -> Output {
    Command::new("setpriv")
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "sh",
            "-c",
            command,
        ])
        .output()
        .expect("setpriv")
}

/// Issue 32, item 3: a build copy was mode 0777, so a local user replaced a
/// student's compiled binary and the next run said "up to date" and ran it; a
/// folder named `alice.sha256` made alice rebuild every run. The copy is now
/// lent to the build's own uid while it builds and belongs to the arena alone
/// afterwards; a copy that changed since is made again, never run; the records
/// live where no folder name reaches.
#[test]
fn a_build_copy_belongs_to_its_build_alone_and_a_swapped_binary_is_never_run() {
    let class = cpp_class();
    let out = class.tournament("r", &[]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    assert!(text.contains("built alice ("), "{text}");
    let copy = class.path("r/builds/alice");
    let me = nix_uid();
    let built_by = std::fs::read_to_string(copy.join("built-by.txt")).expect("built-by.txt");
    if me == 0 {
        assert_ne!(built_by.trim(), "0", "the build ran as root");
    }
    for (path, _) in every_file(&copy) {
        let meta = std::fs::metadata(&path).expect("metadata");
        assert_eq!(meta.uid(), me, "{}", path.display());
        assert_eq!(
            meta.mode() & 0o022,
            0,
            "{} is writable by others",
            path.display()
        );
    }
    let dir_mode = std::fs::metadata(&copy).expect("copy").mode() & 0o7777;
    assert_eq!(dir_mode, 0o755);
    if me == 0 {
        let bot = copy.join("bot").display().to_string();
        let tried = as_nobody(&format!("cp /bin/false {bot} || touch {bot}.new"));
        assert!(!tried.status.success(), "nobody wrote into the copy");
        assert!(!copy.join("bot.new").exists());
    }
    let games = read_csv(&class.path("r/games.csv"));
    assert!(games.iter().any(|g| g["x"] == "alice" || g["o"] == "alice"));

    // The same run again: nothing changed, and alice.sha256 is a bot like any.
    let again = class.tournament("r", &[]);
    assert_exit(&again, 0);
    assert!(
        stdout(&again).contains("built alice: up to date (its sources have not changed)"),
        "{}",
        stdout(&again)
    );

    // Something swaps the compiled bot, and the games are to be played again
    // (a deleted row is a game played again): the bot is built again first.
    let original = std::fs::read(copy.join("bot")).expect("the bot");
    std::fs::copy("/bin/false", copy.join("bot")).expect("swap the binary");
    let games_file = class.path("r/games.csv");
    let header = std::fs::read_to_string(&games_file)
        .expect("games.csv")
        .lines()
        .next()
        .map(|h| format!("{h}\n"))
        .expect("a header");
    std::fs::write(&games_file, header).expect("truncate games.csv");
    let swapped = class.tournament("r", &[]);
    assert_exit(&swapped, 0);
    assert!(
        stdout(&swapped).contains(
            "(its copy had changed since it was made, by something other than its build: made again)"
        ),
        "{}",
        stdout(&swapped)
    );
    assert_eq!(
        std::fs::read(copy.join("bot")).expect("the bot").len(),
        original.len(),
        "the bot is the build's again"
    );
    let replayed = read_csv(&games_file);
    assert!(
        replayed
            .iter()
            .any(|g| g["x"] == "alice" || g["o"] == "alice")
    );
    for game in replayed {
        assert!(
            !["crash", "handshake-failure"].contains(&game["reason"].as_str()),
            "{game:?}"
        );
    }
}

fn nix_uid() -> u32 {
    std::fs::metadata("/proc/self").map_or(u32::MAX, |m| m.uid())
}

/// Issue 32, item 4: folder names were normalised and the first in sort order
/// kept the name: `-alice` became bot `alice` and the real alice was left out
/// ("another bot is already named 'alice'", naming neither folder); `c c`,
/// `c-c` and `c?c` left two students out with one feedback file saying PASS; a
/// `.hidden` folder was skipped silently. A folder already named so keeps its
/// name; each folder whose name had to change to clash is left out, naming the
/// other folders, with a feedback file of its own; hidden folders are reported.
#[test]
fn clashing_folder_names_leave_out_each_renamed_folder_and_name_the_others() {
    let class = Class::new("");
    for student in ["alice", "-alice", "c c", "c-c", "c?c", ".hidden"] {
        class.snoop(student, &[]);
    }
    let out = class.tournament("r", &["--dry-run"]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    let expected = [
        ("-alice", "-alice", "alice", "alice"),
        ("c%20c", "c c", "c-c", "c-c"),
        ("c%3Fc", "c?c", "c-c", "c-c"),
    ];
    for (shown, raw, name, keeper) in expected {
        let line = format!(
            "left out {shown}: {}: its name '{raw}' becomes the bot name '{name}', which the folder {} already has",
            class.folder(raw),
            class.folder(keeper)
        );
        assert!(text.contains(&line), "{line}\n{text}");
    }
    assert!(
        text.contains(&format!(
            "skipped the hidden folder {} (a glob's * does not match a name starting with '.'): rename it to take part",
            class.folder(".hidden")
        )),
        "{text}"
    );
    assert!(
        text.contains("Dry run of 'class': 3 bots (random, alice, c-c)"),
        "{text}"
    );

    let check = class.check("feedback");
    assert_exit(&check, 1);
    let read = |name: &str| {
        std::fs::read_to_string(class.path(&format!("feedback/{name}.txt")))
            .unwrap_or_else(|e| panic!("{name}.txt: {e}"))
    };
    assert!(read("alice").contains("RESULT: PASS"));
    assert!(read("c-c").contains("RESULT: PASS"));
    for (shown, raw, _, keeper) in expected {
        let file = read(shown);
        assert!(
            file.contains("RESULT: FAIL")
                && file.contains(&class.folder(raw))
                && file.contains(&class.folder(keeper)),
            "{file}"
        );
    }
    assert!(
        stdout(&check).contains("skipped the hidden folder "),
        "{}",
        stdout(&check)
    );
}

/// The pids of processes whose command line contains `needle`.
fn processes_with(needle: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline)
            .replace('\0', " ")
            .contains(needle)
        {
            found.push(pid);
        }
    }
    found
}

/// Issue 32, item 5: SIGINT two seconds into a build that sleeps waited out
/// `build-seconds`, played every game and exited 0 (the arena had been started
/// with SIGINT ignored, as a shell's background job is). The builds stop and
/// the run exits 130 (SIGTERM: 143), having played nothing.
#[test]
fn ctrl_c_during_a_build_stops_the_builds_and_exits_130() {
    for (signal, code) in [("INT", 130), ("TERM", 143)] {
        let class = Class::new("build-seconds = 60");
        let pause = format!("sleep 47.{}", std::process::id() % 1000);
        class.snoop("alice", &[]);
        class.snoop(
            "slow",
            &[(
                "bot.toml",
                &format!("command = \"python3 bot.py\"\nbuild = \"{pause}\"\n"),
            )],
        );
        let results = class.path("r");
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "trap '' INT; exec '{}' tournament '{}' --quiet --out '{}'",
                arena_bin().display(),
                class.config(),
                results.display()
            ))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start arena");
        let started = Instant::now();
        while processes_with(&pause).is_empty() {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the build never started"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let signalled = Instant::now();
        let kill = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .expect("kill");
        assert!(kill.success());
        loop {
            if child.try_wait().expect("wait").is_some() {
                break;
            }
            if signalled.elapsed() > Duration::from_secs(20) {
                let _ = child.kill();
                panic!("SIG{signal} did not stop the builds");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let out = child.wait_with_output().expect("output");
        assert_exit(&out, code);
        let words = if signal == "INT" {
            "Interrupted (Ctrl-C) during the builds: nothing was played."
        } else {
            "Stopped by SIGTERM during the builds: nothing was played."
        };
        assert!(stderr(&out).contains(words), "{}", stderr(&out));
        assert!(!results.join("games.csv").exists(), "nothing was played");
        let gone = Instant::now();
        while !processes_with(&pause).is_empty() {
            assert!(
                gone.elapsed() < Duration::from_secs(5),
                "the build's sleep outlived the arena"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Issue 32, "done when": a class holding the submissions that used to get
/// out (paths in `args`, a `bot.py` of mode 600, `../alice/bot.py`, `command =
/// "mcts"`, `-alice` next to `alice`) and a C++ build runs under `auto` with no
/// bot as root, no submission reading outside its folder or playing another's
/// code, and each refusal named in the run's output and in the feedback files.
#[test]
fn a_class_of_hostile_submissions_plays_under_auto_with_no_bot_as_root() {
    let class = Class::new("");
    let targets = format!("{}\n", class.secret.display());
    class.snoop("alice", &[("targets.txt", &targets)]);
    class.snoop("-alice", &[]);
    class.snoop(
        "paths",
        &[(
            "bot.toml",
            &format!(
                "command = \"python3 bot.py\"\nargs = [\"{}\", \"/root\"]\n",
                class.secret.display()
            ),
        )],
    );
    let closed = class.snoop("closed", &[("targets.txt", &targets)]);
    chmod(&closed.join("bot.py"), 0o600);
    class.snoop(
        "copycat",
        &[("bot.toml", "command = \"python3 ../alice/bot.py\"\n")],
    );
    class.snoop("builtin", &[("bot.toml", "command = \"mcts\"\n")]);
    class.cpp("cpp");
    let refusals = [
        (
            "-alice",
            format!(
                "its name '-alice' becomes the bot name 'alice', which the folder {} already has",
                class.folder("alice")
            ),
        ),
        (
            "paths",
            format!(
                "its command names {}, outside its folder",
                class.secret.display()
            ),
        ),
        (
            "copycat",
            "its command names ../alice/bot.py, outside its folder".to_string(),
        ),
        (
            "builtin",
            "its command runs the built-in bot 'mcts', not code of its own".to_string(),
        ),
    ];

    let out = class.tournament("r", &[]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    assert!(
        text.contains("built cpp (g++ -std=c++17 -O2 -o bot *.cpp) in "),
        "{text}"
    );
    for (name, why) in &refusals {
        let line = format!("left out {name}: {}: {why}", class.folder(name));
        assert!(text.contains(&line), "{line}\n{text}");
    }
    let results = class.path("r");
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(results.join("tournament.json")).expect("tournament.json"),
    )
    .expect("JSON");
    let bots = json["sandbox"]["bots"].as_object().expect("bots");
    let mut names: Vec<&str> = bots.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["alice", "closed", "cpp", "random"], "{json}");
    for (name, bot) in bots {
        assert!(bot["runs_as_root"].is_null(), "{name}: {bot}");
        if nix_uid() == 0 {
            assert_eq!(bot["own_uid"], true, "{name}: {bot}");
        }
    }
    for name in ["alice", "closed"] {
        let said = reports(&results, name);
        assert!(!said.is_empty(), "{name} played");
        for line in said {
            assert!(
                !line.starts_with("uid=0 ") && !line.contains("=GOT:") && !line.contains("=OK"),
                "{name}: {line}"
            );
        }
    }
    assert_no_secret(&class, &results);

    let check = class.check("feedback");
    assert_exit(&check, 1);
    let table = stdout(&check);
    for name in ["random", "alice", "closed", "cpp"] {
        assert!(
            table
                .lines()
                .any(|l| l.split_whitespace().collect::<Vec<_>>() == [name, "PASS"]),
            "{name}: {table}"
        );
    }
    for (name, why) in &refusals {
        let file = std::fs::read_to_string(class.path(&format!("feedback/{name}.txt")))
            .unwrap_or_else(|e| panic!("{name}.txt: {e}"));
        assert!(
            file.contains("RESULT: FAIL") && file.contains(why.as_str()),
            "{file}"
        );
    }
    assert_no_secret(&class, &class.path("feedback"));
}
