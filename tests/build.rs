//! Probes what some tests need (`src/prerequisites.rs`) and sets a cfg for each
//! prerequisite present, so a test whose prerequisite is missing is reported as
//! ignored, with the fix, instead of passing without having run.
//!
//! Cargo runs this again when what it probed may have changed: `PATH` or
//! `UTTT_CHROMIUM` set differently, or a program installed into or removed from a
//! directory of `PATH` (the directory's modification time changes). Only
//! directories that exist are watched: Cargo reruns a build script on every build
//! while a path it watches is missing.

#[allow(dead_code)]
#[path = "src/prerequisites.rs"]
mod prerequisites;

use std::path::PathBuf;

use prerequisites::{PREREQUISITES, SYSTEM_DIRS};

fn main() {
    let mut probed = Vec::new();
    for prerequisite in &PREREQUISITES {
        println!("cargo::rustc-check-cfg=cfg({})", prerequisite.cfg);
        let present = (prerequisite.probe)().is_ok();
        if present {
            println!("cargo::rustc-cfg={}", prerequisite.cfg);
        }
        probed.push(format!("{}={present}", prerequisite.cfg));
    }
    // What was found, for the test that checks the probes still hold at run time.
    println!("cargo::rustc-env=UTTT_TESTS_PROBED={}", probed.join(","));

    println!("cargo::rerun-if-env-changed=PATH");
    println!("cargo::rerun-if-env-changed=UTTT_CHROMIUM");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = std::env::split_paths(&path)
        .chain(SYSTEM_DIRS.map(PathBuf::from))
        .filter(|dir| dir.is_absolute() && dir.is_dir())
        .collect();
    dirs.sort();
    dirs.dedup();
    for dir in dirs {
        println!("cargo::rerun-if-changed={}", dir.display());
    }
}
