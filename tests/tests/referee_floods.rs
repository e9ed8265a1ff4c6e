//! Bots that flood the referee: a 100 MB line with no newline, and 1 GB on stderr.
//! The referee's memory stays bounded (asserted with the peak resident size of the
//! `arena` process, from getrusage of the waited-for children of this test process),
//! and the stderr log on disk is capped.
//!
//! The children of this process also include the harness's `cargo build` of the
//! arena binary (a no-op build of this workspace peaks near 64 MiB itself), so the
//! peak is read once before the match, after that build: a match whose processes
//! pass both that peak and the bound raises it.

use nix::sys::resource::{UsageWho, getrusage};
use uttt_tests::{Tag, assert_no_leftovers, good, hostile, run_match};

/// Peak resident memory any child of this test binary has reached, in bytes.
fn peak_child_rss() -> u64 {
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN).expect("getrusage");
    u64::try_from(usage.max_rss()).unwrap_or(0) * 1024
}

/// Far below the flood sizes, far above what the arena needs.
const RSS_BOUND: u64 = 64 * 1024 * 1024;

/// The peak of this process's children before a match: the harness's build of the
/// arena binary, done first.
fn peak_before_the_match() -> u64 {
    uttt_tests::arena_bin();
    peak_child_rss()
}

/// Asserts that no process of the match passed the bound (nor the build's own peak).
fn assert_bounded(before: u64) {
    let peak = peak_child_rss();
    assert!(
        peak <= before.max(RSS_BOUND),
        "a child reached {} MiB (the bound is {} MiB; the arena's own build peaked at {} MiB)",
        peak / (1024 * 1024),
        RSS_BOUND / (1024 * 1024),
        before / (1024 * 1024)
    );
}

#[test]
fn a_100_mb_line_without_newline_is_malformed_and_memory_stays_bounded() {
    let tag = Tag::new();
    let before = peak_before_the_match();
    let run = run_match(
        &hostile("huge-line", &["--bytes", "100000000"], &tag),
        &good(&tag),
        &["--games", "1", "--time", "2000", "--first-time", "2000"],
    );
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let row = &run.games[0];
    assert_eq!(row["reason"], "malformed-output");
    assert!(
        row["detail"].contains("longer than 4096 bytes, starting 'xxxx"),
        "{row:?}"
    );
    assert_no_leftovers(&tag);
    assert_bounded(before);
}

#[test]
fn a_1_gb_stderr_flood_is_drained_the_game_completes_and_the_log_is_capped() {
    let tag = Tag::new();
    let before = peak_before_the_match();
    let run = run_match(
        &hostile("stderr-flood", &["--bytes", "1000000000"], &tag),
        &good(&tag),
        &["--games", "1", "--handshake-time", "60000"],
    );
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let row = &run.games[0];
    assert!(
        ["three-in-a-row", "no-moves"].contains(&row["reason"].as_str()),
        "{row:?}"
    );
    assert_no_leftovers(&tag);
    let log = run.dir.path().join("logs").join("hostile.stderr.log");
    let size = std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0);
    assert!(
        size > 0 && size <= 1024 * 1024 + 4096,
        "stderr log is {size} bytes"
    );
    assert_bounded(before);
}
