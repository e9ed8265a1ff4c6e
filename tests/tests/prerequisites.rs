//! What the tests need beyond the Rust toolchain is said in three places that must
//! agree (the README naming every package `.ci/run` installs): the probes that ignore a test where a prerequisite is missing
//! (`tests/build.rs` over `tests/src/prerequisites.rs`), the script that installs
//! them on CI (`.ci/run`), and the README. And a probe made when the tests were
//! built still holds when they run.

use std::collections::BTreeSet;
use std::path::Path;

use uttt_tests::prerequisites::PREREQUISITES;
use uttt_tests::repo_root;

/// `name=true|false` for each prerequisite, as `tests/build.rs` found them.
const PROBED: &str = env!("UTTT_TESTS_PROBED");

#[test]
fn what_the_build_found_is_still_so_when_the_tests_run() {
    let mut stale = Vec::new();
    for prerequisite in &PREREQUISITES {
        let built = PROBED
            .split(',')
            .find_map(|entry| entry.strip_prefix(prerequisite.cfg)?.strip_prefix('='))
            .unwrap_or_else(|| panic!("{} was not probed: {PROBED}", prerequisite.cfg));
        let now = (prerequisite.probe)();
        if built != now.is_ok().to_string() {
            stale.push(format!(
                "{}: {} when the tests were built, {} now",
                prerequisite.cfg,
                if built == "true" {
                    "present"
                } else {
                    "missing"
                },
                now.err().unwrap_or_else(|| "present".into())
            ));
        }
    }
    assert!(
        stale.is_empty(),
        "the tests were built on a machine unlike this one, so they ignore or run the \
         wrong tests (probe again: touch tests/build.rs):\n{}",
        stale.join("\n")
    );
}

/// The packages `.ci/run` installs: the last word of each `"check:package"` entry.
fn ci_packages() -> BTreeSet<String> {
    let ci = std::fs::read_to_string(repo_root().join(".ci/run")).unwrap_or_default();
    let packages: BTreeSet<String> = ci
        .lines()
        .map(str::trim)
        .filter_map(|line| line.strip_prefix('"')?.strip_suffix('"'))
        .filter_map(|entry| entry.rsplit_once(':'))
        .map(|(_, package)| package.to_owned())
        .collect();
    assert!(
        packages.len() >= 5,
        "no list of packages found in .ci/run: {packages:?}"
    );
    packages
}

#[test]
fn ci_installs_and_the_readme_names_every_package_a_test_may_be_ignored_without() {
    let ci = ci_packages();
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap_or_default();
    for prerequisite in &PREREQUISITES {
        for package in prerequisite.packages {
            assert!(
                ci.contains(*package),
                ".ci/run does not install {package} ({}): {ci:?}",
                prerequisite.cfg
            );
            assert!(
                readme.contains(&format!("`{package}`")),
                "README.md does not name {package} ({}) among what the tests need",
                prerequisite.cfg
            );
        }
    }
}

/// Issue 49: the README's list of what the tests need lacked packages `.ci/run`
/// installs. It names every one, so a reader without `.ci/run` (not on Debian)
/// knows what to install.
#[test]
fn the_readme_names_every_package_ci_installs() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap_or_default();
    let unnamed: Vec<String> = ci_packages()
        .into_iter()
        .filter(|package| !readme.contains(&format!("`{package}`")))
        .collect();
    assert!(
        unnamed.is_empty(),
        "README.md does not name these packages .ci/run installs: {unnamed:?}"
    );
}

/// The `apt-get install …` commands in what the tests say when something is
/// missing (ignore reasons, skip and failure messages), in the Rust files under `dir`:
/// (file, package).
fn install_commands(dir: &Path, found: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            install_commands(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            const COMMAND: &str = "apt-get install ";
            for (at, _) in text.match_indices(COMMAND) {
                let packages: String = text[at + COMMAND.len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || " -+.".contains(*c))
                    .collect();
                for package in packages.split_whitespace() {
                    if !package.starts_with('-') {
                        let file = path.strip_prefix(repo_root()).unwrap_or(&path);
                        found.push((file.display().to_string(), package.to_owned()));
                    }
                }
            }
        }
    }
}

#[test]
fn every_package_a_test_tells_to_install_is_one_ci_installs() {
    let ci = ci_packages();
    let root = repo_root();
    let mut found = Vec::new();
    for dir in ["tests/src", "tests/tests", "referee/src"] {
        install_commands(&root.join(dir), &mut found);
    }
    assert!(
        found.iter().any(|(_, p)| p == "slurm-wlm"),
        "the scan found no install command: {found:?}"
    );
    let unknown: Vec<String> = found
        .iter()
        .filter(|(_, package)| !ci.contains(package))
        .map(|(file, package)| format!("{file}: apt-get install {package}"))
        .collect();
    assert!(
        unknown.is_empty(),
        "these install commands name packages .ci/run does not install, so CI would \
         not run what needs them:\n{}",
        unknown.join("\n")
    );
}
