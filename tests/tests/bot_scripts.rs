//! The scripted bots the end-to-end tests run (tests/bots/) and the starter bots
//! students copy (bots/starters/) are code too: `tests/bots/selftest.py` checks each
//! one against what its documentation promises. This runs it as part of `cargo test`.

use std::path::Path;
use std::process::Command;

#[test]
fn test_bots_and_starter_bots_behave_as_documented() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("bots/selftest.py");
    let output = Command::new("python3")
        .arg(&script)
        .output()
        .unwrap_or_else(|e| panic!("cannot run python3 {}: {e}", script.display()));
    assert!(
        output.status.success(),
        "{} failed:\n{}{}",
        script.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
