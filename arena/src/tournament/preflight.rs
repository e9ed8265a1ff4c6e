//! Starting every bot once before the first game, so a run never "plays" games a
//! bot could not start: a missing script, a program that exits at once or a bot
//! that never says `ready` is reported in words, all of them together, and the run
//! stops before any game (exit 4) instead of recording a column of handshake
//! failures and a score that means nothing.
//!
//! Every distinct bot is started at the same time, so the check costs one
//! handshake limit at most. Protocol bots must reach `ready`; bots of dialects
//! without a handshake must start and still be running after [`FOREIGN_GRACE`].

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use referee::bot::{BotCommand, BotSession, Fault};
use tokio::task::JoinSet;

use super::entrant::Entrant;

/// How long a bot without a handshake must keep running to count as started.
pub const FOREIGN_GRACE: Duration = Duration::from_millis(300);

/// A bot that cannot play, and why, in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Broken {
    /// Its name in the run.
    pub name: String,
    /// What happened when it was started, with a hint when one is known.
    pub problem: String,
}

/// Every bot the preflight found broken: the run stops before its first game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotsBroken(pub Vec<Broken>);

impl std::error::Error for BotsBroken {}

impl fmt::Display for BotsBroken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0.len();
        writeln!(
            f,
            "{} could not be started, so no game was played:",
            if n == 1 {
                "a bot".to_string()
            } else {
                format!("{n} bots")
            }
        )?;
        for broken in &self.0 {
            writeln!(f, "  - {}: {}", broken.name, broken.problem)?;
        }
        write!(
            f,
            "Fix {} and run the same command again (exit 4; --no-preflight skips this check, and \
             the games of a bot that cannot start are then lost by handshake failure).",
            if n == 1 { "it" } else { "them" }
        )
    }
}

/// Starts every distinct bot of `entrants` once, all at once, and returns those
/// that could not be started. Relative paths in hints are shown against
/// `base_dir`, the directory the user ran the command from.
pub async fn check(
    entrants: &[Entrant],
    handshake_limit: Duration,
    base_dir: &Path,
) -> Vec<Broken> {
    let mut distinct: Vec<&Entrant> = Vec::new();
    for entrant in entrants {
        if !distinct.iter().any(|d| {
            d.spec.command == entrant.spec.command && d.spec.dialect == entrant.spec.dialect
        }) {
            distinct.push(entrant);
        }
    }
    let mut set = JoinSet::new();
    for (index, entrant) in distinct.iter().enumerate() {
        let command = entrant.spec.command.clone();
        let dialect = entrant.spec.dialect;
        set.spawn(async move {
            let started = BotSession::start_dialect(&command, dialect, handshake_limit).await;
            let result = match started {
                Ok(mut session) => {
                    let alive = if dialect.has_handshake() {
                        Ok(())
                    } else {
                        session.still_running_after(FOREIGN_GRACE).await
                    };
                    let _ = session.close(true).await;
                    alive
                }
                Err(fault) => Err(fault),
            };
            (index, result)
        });
    }
    let mut broken = Vec::new();
    while let Some(joined) = set.join_next().await {
        let Ok((index, Err(fault))) = joined else {
            continue;
        };
        let entrant = distinct[index];
        broken.push((
            index,
            Broken {
                name: entrant.spec.name.clone(),
                problem: describe(&fault, &entrant.spec.command, base_dir),
            },
        ));
    }
    broken.sort_by_key(|(index, _)| *index);
    broken.into_iter().map(|(_, b)| b).collect()
}

/// The fault in words, with a hint for a script argument that does not exist.
fn describe(fault: &Fault, command: &BotCommand, base_dir: &Path) -> String {
    let text = match fault {
        Fault::HandshakeFailure { detail } => detail.clone(),
        other => other.to_string(),
    };
    if let Some((written, full)) = missing_file(command, base_dir) {
        return format!(
            "{text}. The file '{written}' does not exist (looked for {}; relative paths are taken \
             from the directory you run arena in)",
            full.display()
        );
    }
    if let Some(interpreter) = missing_interpreter(&command.program) {
        return format!(
            "{text}. The program exists, but its first line '#!{interpreter}' names an \
             interpreter that does not: fix that line (e.g. '#!/usr/bin/env python3')"
        );
    }
    text
}

/// The interpreter a script's `#!` line names, when that program does not exist
/// (the kernel then reports the script itself as missing).
fn missing_interpreter(program: &Path) -> Option<String> {
    use std::io::Read as _;
    let mut head = [0u8; 256];
    let n = std::fs::File::open(program).ok()?.read(&mut head).ok()?;
    let first = head[..n].split(|&b| b == b'\n').next()?;
    let line = std::str::from_utf8(first.strip_prefix(b"#!")?).ok()?.trim();
    let interpreter = line.split_whitespace().next()?;
    (!Path::new(interpreter).exists()).then(|| line.to_string())
}

/// The first argument of `command` that names a file under `base_dir` that does not
/// exist (the resolver makes a script argument absolute even when it is missing),
/// as the user wrote it and in full.
fn missing_file(command: &BotCommand, base_dir: &Path) -> Option<(String, PathBuf)> {
    command.args.iter().find_map(|arg| {
        let path = Path::new(arg);
        let relative = path.strip_prefix(base_dir).ok()?;
        (path.is_absolute() && !path.exists())
            .then(|| (relative.display().to_string(), path.to_path_buf()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_lists_every_bot_and_the_way_out() {
        let text = BotsBroken(vec![
            Broken {
                name: "a".into(),
                problem: "it exited (exit code 2) before 'ready'".into(),
            },
            Broken {
                name: "b".into(),
                problem: "no 'ready' within 100 ms".into(),
            },
        ])
        .to_string();
        assert!(text.starts_with("2 bots could not be started"), "{text}");
        assert!(text.contains("  - a: it exited (exit code 2)"), "{text}");
        assert!(text.contains("  - b: no 'ready'"), "{text}");
        assert!(text.contains("--no-preflight"), "{text}");
    }
}
