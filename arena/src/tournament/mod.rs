//! Running games between bots: who plays, under which conditions, in which order,
//! how many at once, and how a run starts, stops and resumes.
//!
//! The data flow, in module order:
//! - [`bot_spec`] turns what a user wrote for a bot into a command to start;
//!   [`entrant`] adds its time control ([`entrant::Lineup`]: from the command line),
//!   [`config`] does the same for a tournament file;
//! - [`openings`] reads opening books; [`schedule`] computes which games are played
//!   (pure, deterministic from the seed, shardable);
//! - [`isolation`] plans every bot under the sandbox layers this machine has;
//! - [`prepare`] binds the schedule to a results directory, resuming what an
//!   earlier run finished;
//! - [`adaptive`] hands out a gauntlet's pairs against opponents chosen as they
//!   start (`arena rate`) instead of in schedule order;
//! - [`run`] plays it ([`run::run_games`]) through [`runner`], which owns the bot
//!   processes and plays N games at once; [`local_engine`] seats a built-in
//!   engine in this process instead.
//!
//! Finished games are handed to `crate::results` (this module writes no file
//! itself); nothing here prints except what a command's [`run::Watcher`] asks for
//! and the interruption message. Results never import this module (see the test
//! below), and this module never imports the commands.

pub mod adaptive;
pub mod bot_spec;
pub mod build;
pub mod config;
pub mod draw;
pub mod entrant;
#[cfg(test)]
mod incremental_standings;
pub mod isolation;
pub mod local_engine;
pub mod openings;
pub mod preflight;
pub mod prepare;
pub mod run;
pub mod runner;
pub mod schedule;
pub mod submissions;

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    /// The `crate::…` modules the code of a folder of `arena/src` (or of a file at
    /// its top) names, comments left out.
    fn uses(relative: &str) -> Vec<(PathBuf, String)> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = vec![root.join(relative)];
        let mut found = Vec::new();
        while let Some(path) = files.pop() {
            if path.is_dir() {
                for entry in std::fs::read_dir(&path).unwrap() {
                    files.push(entry.unwrap().path());
                }
                continue;
            }
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let code = text.lines().filter(|l| !l.trim_start().starts_with("//"));
            for line in code {
                for (i, _) in line.match_indices("crate::") {
                    let name: String = line[i + "crate::".len()..]
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    found.push((path.clone(), name));
                }
            }
        }
        found
    }

    /// The layering of ARCHITECTURE.md: results under tournament and report, both
    /// under the commands; nothing but `lib.rs` under the commands.
    #[test]
    fn the_layers_import_only_downwards() {
        let rules: [(&str, &[&str]); 7] = [
            (
                "results",
                &[
                    "tournament",
                    "report",
                    "serve",
                    "terminal",
                    "commands",
                    "cli",
                ],
            ),
            ("tournament", &["report", "serve", "terminal", "commands"]),
            (
                "report",
                &["tournament", "serve", "terminal", "commands", "cli"],
            ),
            ("serve", &["tournament", "terminal", "commands", "cli"]),
            (
                "terminal",
                &["tournament", "report", "serve", "commands", "cli"],
            ),
            (
                "cli.rs",
                &["commands", "tournament", "results", "report", "serve"],
            ),
            (
                "defaults.rs",
                &["commands", "tournament", "results", "report", "serve"],
            ),
        ];
        let mut wrong = Vec::new();
        for (folder, forbidden) in rules {
            for (path, module) in uses(folder) {
                if forbidden.contains(&module.as_str()) {
                    wrong.push(format!("{} uses crate::{module}", path.display()));
                }
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
    }
}
