//! Who is in a bot's process tree, for the referee's count of its memory
//! ([`super::memwatch`]) where no cgroup lists them.
//!
//! The tree is the process the referee started, every process descending from
//! it, and every member of its process group (a grandchild whose parent exited
//! is re-parented out of the tree but keeps the group). Reading all of `/proc`
//! finds them all, but costs one file per process on the machine (hundreds),
//! and a run of twenty pooled bots looked at twenty trees fifty times a second:
//! that scan was half the arena's CPU. So the tree is found by walking down from
//! the root through `/proc/PID/task/TID/children` (one small file per thread of
//! a member), keeping the group members found earlier that left the tree, and
//! reading all of `/proc` only every [`FULL_LOOKUP_EVERY`], or where the kernel
//! has no `children` files. A grandchild born and orphaned between two full
//! lookups is counted at the next one: at most [`FULL_LOOKUP_EVERY`] late (a
//! pid namespace, as under bwrap, re-parents it to the namespace's first
//! process, in the tree, so there it is found at once).

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// How often the whole of `/proc` is read to find group members the walk down
/// from the root cannot reach.
pub(crate) const FULL_LOOKUP_EVERY: Duration = Duration::from_secs(2);

/// The members of one tree, as last found.
#[derive(Debug)]
pub(crate) struct Members {
    /// The process the referee started (pid and process group id).
    root: i32,
    /// Found at the last lookup.
    found: Vec<i32>,
    /// When all of `/proc` was last read.
    last_full: Option<Instant>,
}

impl Members {
    /// The tree of `root`, not looked up yet.
    pub(crate) fn of(root: i32) -> Members {
        Members {
            root,
            found: Vec::new(),
            last_full: None,
        }
    }

    /// The members now: walked down from the root (with the group members found
    /// before that are no longer below it), or read from all of `/proc` when a
    /// full lookup is due or the walk cannot be made.
    pub(crate) fn now(&mut self) -> &[i32] {
        let due = self
            .last_full
            .is_none_or(|at| at.elapsed() >= FULL_LOOKUP_EVERY);
        match (due, self.walk()) {
            (false, Some(found)) => self.found = found,
            _ => {
                self.found = descendants_and_group(self.root);
                self.last_full = Some(Instant::now());
            }
        }
        &self.found
    }

    /// The root, its descendants through the `children` files, and the group
    /// members of the last lookup that are no longer below it (with theirs);
    /// `None` when the root's `children` cannot be read.
    fn walk(&self) -> Option<Vec<i32>> {
        let mut members = vec![self.root];
        let mut stack = Vec::new();
        let below_root = children_of(self.root)?;
        add_new(&mut members, &mut stack, below_root);
        loop {
            while let Some(pid) = stack.pop() {
                add_new(
                    &mut members,
                    &mut stack,
                    children_of(pid).unwrap_or_default(),
                );
            }
            // Orphans of the group, found before: still members while they
            // keep the group (a reused pid in this group is a member too).
            let left: Vec<i32> = self
                .found
                .iter()
                .copied()
                .filter(|pid| !members.contains(pid) && group_of(*pid) == Some(self.root))
                .collect();
            if left.is_empty() {
                return Some(members);
            }
            add_new(&mut members, &mut stack, left);
        }
    }
}

/// Adds the pids of `found` not yet among `members`, and to `stack` to be
/// walked.
fn add_new(members: &mut Vec<i32>, stack: &mut Vec<i32>, found: Vec<i32>) {
    for pid in found {
        if !members.contains(&pid) {
            members.push(pid);
            stack.push(pid);
        }
    }
}

/// The children of every thread of `pid`; `None` when its task list or a
/// `children` file cannot be read (gone, or a kernel without them).
fn children_of(pid: i32) -> Option<Vec<i32>> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut children = Vec::new();
    for task in tasks.flatten() {
        let text = std::fs::read_to_string(task.path().join("children")).ok()?;
        children.extend(
            text.split_ascii_whitespace()
                .filter_map(|c| c.parse::<i32>().ok()),
        );
    }
    Some(children)
}

/// The process group of `pid`, if it is alive.
fn group_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parent_and_group(&stat).map(|(_, group)| group)
}

/// `root`, every process descending from it, and every member of its process
/// group, from one pass over `/proc/*/stat`.
pub(crate) fn descendants_and_group(root: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return vec![root];
    };
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    let mut members = vec![root];
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let Some((ppid, group)) = std::fs::read_to_string(entry.path().join("stat"))
            .ok()
            .as_deref()
            .and_then(parent_and_group)
        else {
            continue;
        };
        children.entry(ppid).or_default().push(pid);
        if group == root && pid != root {
            members.push(pid);
        }
    }
    let mut stack = vec![root];
    while let Some(pid) = stack.pop() {
        for &child in children.get(&pid).map_or(&[][..], Vec::as_slice) {
            if !members.contains(&child) {
                members.push(child);
            }
            stack.push(child);
        }
    }
    members
}

/// The parent and process group of a `/proc/PID/stat` line (fields after the
/// command name, which may hold spaces and parentheses).
fn parent_and_group(stat: &str) -> Option<(i32, i32)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_ascii_whitespace();
    let _state = fields.next()?;
    let ppid = fields.next()?.parse().ok()?;
    let group = fields.next()?.parse().ok()?;
    Some((ppid, group))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt as _;

    #[test]
    fn stat_lines_are_read() {
        assert_eq!(
            parent_and_group("4242 (py (x) thon) S 17 4200 4200 0"),
            Some((17, 4200))
        );
        assert_eq!(parent_and_group("4242 (x) S"), None);
    }

    fn sorted(mut pids: Vec<i32>) -> Vec<i32> {
        pids.sort_unstable();
        pids
    }

    /// A shell in a group of its own whose child sleeps, and whose grandchild
    /// is orphaned at once (its parent exits), keeping the group.
    #[test]
    fn the_walk_finds_the_tree_a_full_lookup_finds_and_keeps_orphans_of_the_group() {
        let mut shell = std::process::Command::new("sh")
            .args([
                "-c",
                "sleep 30 & (sleep 30 & exit 0); echo started; sleep 30",
            ])
            .stdout(std::process::Stdio::piped())
            .process_group(0)
            .spawn()
            .expect("sh starts");
        let mut line = String::new();
        let stdout = shell.stdout.take().expect("piped");
        std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line)
            .expect("the shell says it started");
        let root = i32::try_from(shell.id()).expect("pid fits");
        // The full lookup: the shell, its two sleeps and the orphan.
        let mut full = sorted(descendants_and_group(root));
        for _ in 0..50 {
            if full.len() >= 4 {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
            full = sorted(descendants_and_group(root));
        }
        assert_eq!(full.len(), 4, "{full:?}");
        let mut members = Members::of(root);
        assert_eq!(
            sorted(members.now().to_vec()),
            full,
            "a first lookup is full"
        );
        if children_of(root).is_some() {
            let walked = members.walk().expect("children files are readable");
            assert_eq!(
                sorted(walked),
                full,
                "the orphan is kept from the full lookup"
            );
            // Without the full lookup's findings, the walk sees what is below the root.
            let fresh = Members::of(root).walk().expect("readable");
            assert_eq!(fresh.len(), 3, "{fresh:?}");
        }
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(root),
            nix::sys::signal::Signal::SIGKILL,
        );
        let _ = shell.wait();
    }
}
