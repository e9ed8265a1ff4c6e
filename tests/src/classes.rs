//! A class of submissions in a temporary directory, for the classroom tests
//! (classroom.rs, class_run.rs, the league's): files written under it, the
//! Python starter kit and students' own bots (a deterministic greedy one, one
//! that crashes, one too slow, one that plays illegally), the copies a
//! student makes of another's (renamed, reordered, stripped of comments), and
//! `arena tournament` run on it.

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

/// A student's own bot, deterministic (no randomness, no clock): it wins a
/// small board when it can, else keeps the opponent from boards they could
/// win next, else plays the first legal square. Well above random play.
pub const GREEDY: &str = r#"#!/usr/bin/env python3
"""My bot: it wins a small board when it can, else it keeps the opponent away
from the boards they could win, else it plays the first legal square."""
import sys

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def board_and_cell(name):
    column = "abcdefghi".index(name[0])
    row = int(name[1]) - 1
    return (row // 3) * 3 + column // 3, (row % 3) * 3 + column % 3


def marks_of(history, first):
    # X made the even moves, O the odd ones.
    return [board_and_cell(name) for name in history[first::2]]


def completes_a_line(cells, cell):
    taken = set(cells)
    taken.add(cell)
    return any(all(c in taken for c in line) for line in LINES)


def could_win(marks, board):
    cells = [c for (b, c) in marks if b == board]
    for line in LINES:
        if sum(1 for c in line if c in cells) == 2:
            return True
    return False


def choose(legal, history, me):
    first = 0 if me == "X" else 1
    mine = marks_of(history, first)
    theirs = marks_of(history, 1 - first)
    for name in legal:
        board, cell = board_and_cell(name)
        if completes_a_line([c for (b, c) in mine if b == board], cell):
            return name
    safe = [name for name in legal if not could_win(theirs, board_and_cell(name)[1])]
    if safe:
        return safe[0]
    return legal[0]


def main():
    me = "X"
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        fields = dict(zip(words[1::2], words[2::2]))
        if words[0] == "uttt":
            print("ready", flush=True)
        elif words[0] == "newgame":
            me = fields.get("mark", "X")
        elif words[0] == "go":
            legal = fields.get("legal", "").split(",")
            moves = fields.get("moves", "none")
            history = [] if moves == "none" else moves.split(",")
            print(choose(legal, history, me), flush=True)
        elif words[0] == "quit":
            break


if __name__ == "__main__":
    main()
"#;

/// The names [`GREEDY`]'s author chose, and another student's for the same
/// things: a copy "made their own" by renaming (never a word the protocol's
/// lines hold, such as `legal`: the renamed copy still plays).
pub const GREEDY_RENAMES: [(&str, &str); 9] = [
    ("board_and_cell", "where"),
    ("marks_of", "stones"),
    ("completes_a_line", "finishes"),
    ("could_win", "danger"),
    ("choose", "pick_move"),
    ("mine", "ours"),
    ("theirs", "enemy"),
    ("history", "past"),
    ("safe", "calm"),
];

/// A student's bot that stops with an error on its first move, every game:
/// the traceback names its file and line (each failing statement a whole
/// line, so every Python writes the same traceback).
pub const CRASHING: &str = r#"import sys


def play(words):
    legal = words[-1].split(",")
    if len(legal) < 100:
        raise ValueError("my bot does not know what to play")
    print(legal[0], flush=True)


for line in sys.stdin:
    words = line.split()
    if words and words[0] == "uttt":
        print("ready", flush=True)
    elif words and words[0] == "go":
        play(words)
"#;

/// A student's bot that thinks for 3 s a move: past any limit the tests set.
/// Written its own way (not [`CRASHING`]'s loop: another student's code).
pub const SLOW: &str = r#"import sys
import time


def answer(request):
    fields = request.split()
    if fields[:1] == ["uttt"]:
        return "ready"
    if fields[:1] == ["go"]:
        time.sleep(3)
        return fields[-1].split(",")[0]
    return None


while True:
    request = sys.stdin.readline()
    if not request:
        break
    reply = answer(request)
    if reply is not None:
        sys.stdout.write(reply + "\n")
        sys.stdout.flush()
"#;

/// `text` with every whole word of `names` replaced.
pub fn renamed(text: &str, names: &[(&str, &str)]) -> String {
    let mut out = String::new();
    let mut word = String::new();
    for c in text.chars().chain(std::iter::once('\n')) {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        let replaced = names
            .iter()
            .find(|(a, _)| *a == word)
            .map_or(word.as_str(), |(_, b)| b);
        out.push_str(replaced);
        word.clear();
        out.push(c);
    }
    out.pop();
    out
}

/// `text` with its top-level functions in reverse order.
pub fn reordered(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let starts: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with("def "))
        .collect();
    let tail = lines
        .iter()
        .position(|l| l.starts_with("if __name__"))
        .unwrap_or(lines.len());
    let mut blocks: Vec<String> = Vec::new();
    for (k, &s) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(tail);
        blocks.push(lines[s..end].join("\n"));
    }
    blocks.reverse();
    let head = lines[..starts.first().copied().unwrap_or(0)].join("\n");
    format!(
        "{head}\n{}\n{}\n",
        blocks.join("\n\n"),
        lines[tail..].join("\n")
    )
}

/// `text` with its comments and docstrings removed.
pub fn stripped(text: &str) -> String {
    let mut out = Vec::new();
    let mut in_doc = false;
    for line in text.lines() {
        let quotes = line.matches("\"\"\"").count();
        if in_doc || quotes > 0 {
            if quotes % 2 == 1 {
                in_doc = !in_doc;
            }
            continue;
        }
        let code = match line
            .find(" #")
            .or_else(|| line.trim_start().starts_with('#').then_some(0))
        {
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        };
        if !code.trim().is_empty() {
            out.push(code.trim_end());
        }
    }
    out.join("\n") + "\n"
}
