//! What a recorded game's bot was started under, read back for `arena repro`:
//! its limits, its sandbox mode and the clock its moves were charged by. From
//! the game's failure bundle first (what that game was played under), else from
//! `tournament.json` (the latest run on the directory). A results directory may
//! come from anyone, so every recorded limit is checked against the range a
//! tournament file accepts; whatever was not recorded (a directory from an
//! older arena) gets the default a run would, and a line that says so.

use std::ops::RangeInclusive;
use std::path::Path;

use referee::bot::charge::ClockSupport;
use referee::bot::{ClockMode, ResourceLimits};

use crate::defaults;
use crate::results::bundle::{self, FAILURES_DIR};
use crate::results::manifest::{Conditions, LimitsRecord, Manifest};
use crate::tournament::bot_spec::mib_to_bytes;

/// What the replay restores, and the header's lines about it.
#[derive(Debug)]
pub struct Recorded {
    /// The limits to start the bot with.
    pub limits: ResourceLimits,
    /// The sandbox mode the run recorded, as written, if it recorded one.
    pub sandbox: Option<String>,
    /// The clock to charge its moves by.
    pub clock: ClockMode,
    /// What was restored and what was not recorded, in words.
    pub lines: Vec<String>,
}

/// What bot `name` of game `game` in `dir` was started under.
///
/// # Errors
/// A recorded limit out of range, or a recorded clock that names none.
pub fn read(
    dir: &Path,
    game: &str,
    name: &str,
    manifest: Option<&Manifest>,
) -> Result<Recorded, String> {
    let bundle_file = format!("{FAILURES_DIR}/{game}/{}", bundle::BUNDLE_JSON);
    let in_bundle = bundle::load(&dir.join(FAILURES_DIR).join(game))
        .ok()
        .and_then(|info| info.bots.into_iter().find(|b| b.name == name))
        .and_then(|seat| seat.started);
    let (conditions, file): (Option<Conditions>, &str) = match in_bundle {
        Some(c) => (Some(c), &bundle_file),
        None => (
            manifest.and_then(|m| m.conditions(name)),
            crate::results::manifest::MANIFEST_FILE,
        ),
    };
    let mut lines = Vec::new();
    let limits = match &conditions {
        Some(c) => {
            let limits = checked(&c.limits, file, name)?;
            lines.push(format!(
                "  limits as recorded: {}",
                LimitsRecord::from(limits)
            ));
            limits
        }
        None => {
            let limits = ResourceLimits::default();
            lines.push(format!(
                "  limits: not recorded (a directory from an older arena): the defaults, {}",
                LimitsRecord::from(limits)
            ));
            limits
        }
    };
    let clock_word = conditions
        .as_ref()
        .map(|c| c.clock.clone())
        .or_else(|| manifest.map(|m| m.schedule.clock.clone()));
    let clock = match clock_word {
        Some(word) => {
            let mode: ClockMode = word
                .parse()
                .map_err(|e| format!("{file}'s clock for {name}: {e}"))?;
            if let Some(why) = ClockSupport::detect().refusal(mode) {
                lines.push(format!(
                    "  clock: wall, though the run charged moves by the {mode} clock, which \
                     this machine cannot measure: {why} (see arena doctor)"
                ));
                ClockMode::Wall
            } else {
                lines.push(format!("  clock: {mode}, as recorded"));
                mode
            }
        }
        None => {
            let auto = ClockMode::auto();
            lines.push(format!(
                "  clock: not recorded: {auto}, as auto chooses here"
            ));
            auto
        }
    };
    let sandbox = conditions.and_then(|c| c.sandbox).or_else(|| {
        manifest
            .and_then(|m| m.sandbox.as_ref())
            .and_then(|s| s.bots.get(name))
            .map(|b| b.mode.clone())
    });
    Ok(Recorded {
        limits,
        sandbox,
        clock,
        lines,
    })
}

/// `record` as limits, each in the range a tournament file accepts for it; a
/// limit recorded as none where a run always sets one gets the default.
fn checked(record: &LimitsRecord, file: &str, name: &str) -> Result<ResourceLimits, String> {
    let in_mib = |r: &RangeInclusive<u64>| mib_to_bytes(*r.start())..=mib_to_bytes(*r.end());
    let check = |key: &str, value: Option<u64>, range: RangeInclusive<u64>| match value {
        Some(v) if !range.contains(&v) => Err(format!(
            "{file}'s {key} for {name} is {v}, outside what a tournament file accepts ({} to \
             {}): the directory was edited, or written by another arena",
            range.start(),
            range.end()
        )),
        v => Ok(v),
    };
    let defaults = ResourceLimits::default();
    Ok(ResourceLimits {
        memory: check(
            "memory_bytes",
            record.memory_bytes,
            in_mib(&defaults::MEMORY_MB),
        )?
        .or(defaults.memory),
        address_space: check(
            "address_space_bytes",
            record.address_space_bytes,
            in_mib(&defaults::MEMORY_MB),
        )?,
        cpu_seconds: check("cpu_seconds", record.cpu_seconds, defaults::CPU_SECONDS)?,
        file_size: check(
            "file_size_bytes",
            record.file_size_bytes,
            in_mib(&defaults::FILE_SIZE_MB),
        )?
        .or(defaults.file_size),
        open_files: check("open_files", record.open_files, defaults::OPEN_FILES)?
            .or(defaults.open_files),
        processes: check("processes", record.processes, defaults::PROCESSES)?
            .or(defaults.processes),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_limits_come_back_as_they_were_and_out_of_range_ones_are_refused() {
        let run = ResourceLimits {
            cpu_seconds: Some(3),
            open_files: Some(32),
            processes: Some(16),
            ..ResourceLimits::default().with_memory(64 * 1024 * 1024)
        };
        let record = LimitsRecord::from(run);
        assert_eq!(checked(&record, "tournament.json", "bot"), Ok(run));
        let unlimited = LimitsRecord {
            memory_bytes: None,
            file_size_bytes: None,
            open_files: None,
            processes: None,
            ..record
        };
        let back = checked(&unlimited, "tournament.json", "bot").expect("in range");
        assert_eq!(back.memory, ResourceLimits::default().memory);
        assert_eq!(back.open_files, ResourceLimits::default().open_files);
        let few = LimitsRecord {
            open_files: Some(3),
            ..record
        };
        assert_eq!(
            checked(&few, "tournament.json", "bot"),
            Err(
                "tournament.json's open_files for bot is 3, outside what a tournament file \
                 accepts (16 to 1048576): the directory was edited, or written by another arena"
                    .to_string()
            )
        );
    }
}
