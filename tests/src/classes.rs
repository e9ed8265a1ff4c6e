//! A class of submissions in a temporary directory, for the classroom tests
//! (classroom.rs, class_run.rs): files written under it, the Python starter kit
//! as a student's bot, and `arena tournament` run on it.

use std::path::Path;
use std::process::Output;

use crate::{arena, repo_root};

/// Writes `files` (path, text) under `dir`, making the folders.
#[allow(clippy::expect_used)]
pub fn write(dir: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
}

/// A student's Python bot that always answers a1, legal or not.
pub const ALWAYS_A1: &str = "import sys\nfor line in sys.stdin:\n    if line.startswith('uttt'):\n        print('ready', flush=True)\n    elif line.startswith('go'):\n        print('a1', flush=True)\n    elif line.startswith('quit'):\n        break\n";

/// A Python student bot: the Python starter kit.
#[allow(clippy::expect_used)]
pub fn python_bot() -> String {
    std::fs::read_to_string(repo_root().join("bots/starters/python/starter.py"))
        .expect("the starter")
}

/// `arena tournament CONFIG --out RESULTS` with `extra` arguments.
#[allow(clippy::expect_used)]
pub fn tournament(config: &Path, results: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "tournament",
        config.to_str().expect("utf-8"),
        "--out",
        results.to_str().expect("utf-8"),
    ];
    args.extend_from_slice(extra);
    arena(&args)
}
