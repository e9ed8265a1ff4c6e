//! The conventions of a command-line tool, through the real binary: shell
//! completions that a shell accepts, a manual page with every command that `man`
//! renders, and `--version` naming the commit of a build from a checkout.

use std::path::Path;
use std::process::Command;

use uttt_tests::{arena_bin, repo_root};

/// Every command a user may type (the hidden helpers are not documented).
const COMMANDS: &[&str] = &[
    "match",
    "tournament",
    "sprt",
    "gauntlet",
    "rate",
    "ratings",
    "check",
    "report",
    "serve",
    "replay",
    "repro",
    "suite",
    "play",
    "perft",
    "bench",
    "doctor",
    "completions",
    "man",
    "bot",
];

fn arena(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(arena_bin())
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("running arena {args:?}: {e}"));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn have(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Checks `script` with `shell`'s own parser (`-n`: read, do not run).
fn parses_in(shell: &str, flag: &str, script: &str, dir: &Path) {
    let file = dir.join(format!("arena.{shell}"));
    std::fs::write(&file, script).unwrap_or_else(|e| panic!("writing {}: {e}", file.display()));
    let out = Command::new(shell)
        .arg(flag)
        .arg(&file)
        .output()
        .unwrap_or_else(|e| panic!("running {shell}: {e}"));
    assert!(
        out.status.success(),
        "{shell} {flag} refused the completion script:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn completion_scripts_name_every_command_and_parse_in_their_shell() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("temp dir: {e}"));
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let (code, script, err) = arena(&["completions", shell]);
        assert_eq!(code, 0, "arena completions {shell}: {err}");
        for command in COMMANDS {
            assert!(
                script.contains(command),
                "the {shell} completions do not know `arena {command}`"
            );
        }
        assert!(script.contains("min-score"), "{shell}: flags of a command");
    }
    let (_, bash, _) = arena(&["completions", "bash"]);
    parses_in("bash", "-n", &bash, dir.path());
    // The other shells are checked where they are installed (CI has bash only).
    if !have("zsh") || !have("fish") {
        eprintln!(
            "note: zsh or fish not installed here; their scripts were checked for content only"
        );
    }
    if have("zsh") {
        let (_, zsh, _) = arena(&["completions", "zsh"]);
        parses_in("zsh", "-n", &zsh, dir.path());
    }
    if have("fish") {
        let (_, fish, _) = arena(&["completions", "fish"]);
        parses_in("fish", "--no-execute", &fish, dir.path());
    }
}

#[test]
fn bash_completes_a_subcommand_and_its_flags_as_the_guide_installs_it() {
    // As a shell does after the guide's install line: source the file, then ask
    // the completion function for `arena gaun<TAB>` and `arena gauntlet --min<TAB>`.
    let (code, script, _) = arena(&["completions", "bash"]);
    assert_eq!(code, 0);
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("temp dir: {e}"));
    let file = dir.path().join("arena");
    std::fs::write(&file, script).unwrap_or_else(|e| panic!("{e}"));
    let probe = r#"
        source "$1"
        complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=(); _arena arena "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"; printf '%s\n' "${COMPREPLY[@]}"; }
        complete_words arena gaun
        echo ---
        complete_words arena gauntlet --min
    "#;
    let out = Command::new("bash")
        .args(["-c", probe, "probe"])
        .arg(&file)
        .output()
        .unwrap_or_else(|e| panic!("bash: {e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    let (commands, flags) = text.split_once("---").unwrap_or((&text, ""));
    assert!(commands.lines().any(|l| l == "gauntlet"), "got {text:?}");
    assert!(flags.lines().any(|l| l == "--min-score"), "got {text:?}");
}

#[test]
fn the_manual_page_lists_every_command_and_renders() {
    let (code, page, err) = arena(&["man"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        page.starts_with(".ie") || page.contains(".TH arena 1"),
        "roff: {page:.200}"
    );
    for command in COMMANDS.iter().filter(|c| **c != "bot") {
        assert!(
            page.contains(&format!("arena\\-{command}")) || page.contains(command),
            "the manual page does not list `arena {command}`"
        );
    }
    if have("man") {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("temp dir: {e}"));
        let file = dir.path().join("arena.1");
        std::fs::write(&file, &page).unwrap_or_else(|e| panic!("{e}"));
        let out = Command::new("man")
            .arg("-l")
            .arg(&file)
            .env("MANPAGER", "cat")
            .env("PAGER", "cat")
            .env("MANWIDTH", "100")
            .output()
            .unwrap_or_else(|e| panic!("man: {e}"));
        let shown = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "man -l: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(shown.contains("tournament"), "man -l showed:\n{shown}");
        assert!(
            shown.contains("SUBCOMMANDS") || shown.contains("COMMANDS"),
            "{shown}"
        );
    }
}

#[test]
fn man_out_dir_writes_a_page_per_command() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("temp dir: {e}"));
    let pages = dir.path().join("man1");
    let target = pages.to_string_lossy().into_owned();
    let (code, said, err) = arena(&["man", "--out-dir", &target]);
    assert_eq!(code, 0, "{err}");
    assert!(said.contains("wrote arena.1"), "{said}");
    assert!(pages.join("arena.1").is_file());
    for command in COMMANDS {
        let page = pages.join(format!("arena-{command}.1"));
        assert!(page.is_file(), "no {}", page.display());
    }
    let match_page = std::fs::read_to_string(pages.join("arena-match.1")).unwrap_or_default();
    assert!(
        match_page.contains("\\-\\-games"),
        "the match page lists its flags"
    );
    // Installed as the guide says (a man1 directory under a man path), `man`
    // finds a command's page by name.
    if have("man") {
        let out = Command::new("man")
            .arg("-M")
            .arg(dir.path())
            .arg("arena-gauntlet")
            .env("MANPAGER", "cat")
            .env("PAGER", "cat")
            .output()
            .unwrap_or_else(|e| panic!("man: {e}"));
        let shown = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "man -M: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            shown.contains("min-score"),
            "man arena-gauntlet showed:\n{shown}"
        );
    } else {
        eprintln!("note: man is not installed here; the pages were checked as files only");
    }
    // No page for the hidden helpers.
    assert!(!pages.join("arena-__launch.1").exists());
    assert!(!pages.join("arena-__echo.1").exists());
}

#[test]
fn version_names_the_commit_of_a_checkout() {
    let (code, said, _) = arena(&["--version"]);
    assert_eq!(code, 0);
    assert!(said.starts_with("arena 0."), "{said}");
    let head = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(repo_root())
        .output();
    match head {
        Ok(out) if out.status.success() => {
            let commit = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            assert!(
                said.contains(&format!("(commit {commit})")),
                "built from commit {commit}, but --version says {said}"
            );
        }
        _ => assert!(!said.contains("commit"), "no checkout, yet: {said}"),
    }
    // Subcommands say the same.
    let (_, sub, _) = arena(&["match", "--version"]);
    assert_eq!(
        sub.trim().trim_start_matches("arena-match "),
        said.trim().trim_start_matches("arena ")
    );
}
