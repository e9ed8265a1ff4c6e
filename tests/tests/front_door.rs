//! One front door (issue 33): the command line and a tournament file make the
//! same settings from the same values, by one set of rules — the time control
//! first of all, whose first-move default once differed between the two — and
//! fixed work without a written time gets a safety net, not the default move
//! time, as its deadline. What a run was played under is read back from its
//! `tournament.json`.

use std::path::Path;

use serde_json::Value;
use uttt_tests::arena_text;

/// The time control of each bot, as `tournament.json` records it: move, first
/// move, margin, clock, increment and nodes.
fn times(dir: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join("tournament.json"))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let manifest: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    manifest["schedule"]["bots"]
        .as_array()
        .unwrap_or_else(|| panic!("no bots: {manifest}"))
        .iter()
        .map(|b| {
            serde_json::json!([
                b["move_ms"],
                b["first_move_ms"],
                b["margin_ms"],
                b["clock_ms"],
                b["increment_ms"],
                b["nodes"]
            ])
        })
        .collect()
}

/// `arena match random greedy` with `flags`, two games into `out`; must succeed.
fn from_flags(out: &Path, flags: &[&str]) -> Vec<Value> {
    let out_text = out.to_string_lossy();
    let mut args = vec!["match", "random", "greedy", "--games", "2", "--seed", "5"];
    args.extend_from_slice(&["--out", &out_text]);
    args.extend_from_slice(flags);
    let (code, stdout, stderr) = arena_text(&args);
    assert_eq!(code, Some(0), "{args:?}\n{stdout}\n{stderr}");
    times(out)
}

/// The same two bots in a tournament file with `time` as its `[time]` table and
/// `limits` as its `[limits]`; must succeed.
fn from_file(dir: &Path, time: &str, limits: &str) -> Vec<Value> {
    let file = dir.join("t.toml");
    std::fs::write(
        &file,
        format!(
            "seed = 5\ngames = 2\n[time]\n{time}\n[limits]\n{limits}\n\
             [[bot]]\ncommand = \"random\"\n[[bot]]\ncommand = \"greedy\"\n"
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = dir.join("out");
    let (file, out_text) = (file.to_string_lossy(), out.to_string_lossy());
    let args = ["tournament", &file, "--out", &out_text, "--quiet"];
    let (code, stdout, stderr) = arena_text(&args);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    times(&out)
}

#[test]
fn the_command_line_and_a_file_give_the_same_time_control_for_the_same_values() {
    let cases: [(&[&str], &str, &str); 4] = [
        // The move time alone: the first move gets the larger of it and 1000 ms,
        // from the command line and from a file alike.
        (&["--time", "100"], "move-ms = 100", ""),
        (&["--time", "1500"], "move-ms = 1500", ""),
        (
            &["--time", "80", "--first-time", "300", "--margin", "20"],
            "move-ms = 80\nfirst-move-ms = 300\nmargin-ms = 20",
            "",
        ),
        (
            &[
                "--time",
                "200",
                "--clock",
                "60000",
                "--increment",
                "50",
                "--nodes",
                "300",
            ],
            "move-ms = 200\nclock-ms = 60000\nincrement-ms = 50",
            "nodes = 300",
        ),
    ];
    for (flags, time, limits) in cases {
        let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let by_flags = from_flags(&work.path().join("flags"), flags);
        let by_file = from_file(work.path(), time, limits);
        assert_eq!(by_flags, by_file, "{flags:?} against [time] {time}");
    }
    // And the first case says what the one rule is.
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let by_file = from_file(work.path(), "move-ms = 100", "");
    assert_eq!(by_file[0][0], 100);
    assert_eq!(by_file[0][1], 1000, "the first move's floor");
    assert_eq!(by_file[0][2], 50, "the default margin");
}

#[test]
fn fixed_work_without_a_written_time_gets_a_safety_net_for_a_deadline() {
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let net = from_flags(&work.path().join("net"), &["--nodes", "200"]);
    assert_eq!(net[0][0], 5000, "{net:?}");
    assert_eq!(net[0][1], 10_000, "{net:?}");
    assert_eq!(net[0][5], 200, "{net:?}");
    // A file's nodes without a move time: the same net.
    assert_eq!(from_file(work.path(), "", "nodes = 200"), net);
    // A time written beside the nodes is the user's choice, and is kept.
    let chosen = from_flags(
        &work.path().join("chosen"),
        &["--nodes", "200", "--time", "100"],
    );
    assert_eq!(chosen[0][0], 100, "{chosen:?}");
    assert_eq!(chosen[0][1], 1000, "{chosen:?}");
}
