//! Stamps the git commit into `arena --version` when the arena is built from a
//! checkout; a build from a source archive, or on a machine without git, gets the
//! package version alone. Nothing here can fail the build.

use std::path::Path;
use std::process::Command;

fn main() {
    let version = env!("CARGO_PKG_VERSION");
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let dir = Path::new(&manifest_dir);
    let stamped = match git(dir, &["rev-parse", "--short=12", "HEAD"]) {
        Some(commit) => {
            watch_head(dir);
            format!("{version} (commit {commit})")
        }
        None => version.to_owned(),
    };
    println!("cargo:rustc-env=ARENA_VERSION={stamped}");
    println!("cargo:rerun-if-env-changed=GIT_DIR");
}

/// Rebuild when the commit changes: HEAD itself, the branch it points at, and the
/// packed refs (where a branch lives after `git gc`).
fn watch_head(dir: &Path) {
    let mut watched = vec!["HEAD".to_owned(), "packed-refs".to_owned()];
    if let Some(branch) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        watched.push(branch);
    }
    for name in watched {
        let path = git(
            dir,
            &["rev-parse", "--path-format=absolute", "--git-path", &name],
        );
        if let Some(path) = path.filter(|p| Path::new(p).exists()) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
}

/// One line of git's output, or `None` when git is missing, fails, or this is not a
/// checkout.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8(output.stdout).ok()?;
    let line = text.trim();
    (!line.is_empty()).then(|| line.to_owned())
}
