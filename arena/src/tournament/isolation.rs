//! The arena's side of bot isolation: detect what the machine supports once per
//! run, plan every bot under its mode (`--sandbox` overrides the file), refuse
//! before the first game when `strict` cannot be met, and describe the result for
//! the banner line and `tournament.json`.
//!
//! The layers themselves (rlimits, user, landlock, seccomp, bwrap, cgroup) are
//! `referee::bot::sandbox`, the one thing called sandbox; this module only plans
//! and reports, and starts no process.

use std::collections::BTreeMap;
use std::path::Path;

use referee::bot::sandbox::{
    HostSupport, Layer, LayerSet, SandboxMode, SandboxPlan, SandboxRequest, plan,
};

use super::config::Tournament;
use super::entrant::Entrant;
use crate::results::manifest::{BotIsolation, IsolationReport, LayerReport};

/// How `plan` runs a bot asked to run under `mode`, as the manifest records it.
pub fn bot_isolation(mode: SandboxMode, plan: &SandboxPlan) -> BotIsolation {
    BotIsolation {
        mode: mode.to_string(),
        layers: plan.layers.iter().map(|l| l.name().to_string()).collect(),
        program: plan.program.as_ref().map(|p| p.display().to_string()),
        read_only: plan
            .read_only
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        notes: plan.notes.clone(),
        own_uid: plan.layers.contains(Layer::User),
        runs_as_root: plan
            .runs_as_root()
            .then(|| plan.shared_uid.clone())
            .flatten(),
    }
}

/// The machine's layers as report rows.
pub fn host_report(host: &HostSupport) -> Vec<LayerReport> {
    host.layers
        .iter()
        .map(|l| LayerReport {
            layer: l.layer.name().into(),
            available: l.status.is_ok(),
            detail: match &l.status {
                Ok(d) | Err(d) => d.clone(),
            },
        })
        .collect()
}

/// Detects the machine's layers (a few milliseconds: each layer is tried once).
pub fn detect(arena_exe: &Path) -> HostSupport {
    HostSupport::detect(arena_exe)
}

/// Plans every entrant: `flag` (from `--sandbox`) overrides each bot's own mode.
///
/// # Errors
/// A bot's mode needs a layer this machine lacks: the message names the bot, the
/// layer, and the package or kernel feature to install.
pub fn apply(
    entrants: &mut [Entrant],
    host: &HostSupport,
    flag: Option<SandboxMode>,
) -> Result<IsolationReport, String> {
    let mut report = IsolationReport {
        host: host_report(host),
        bots: BTreeMap::new(),
    };
    for entrant in entrants.iter_mut() {
        let command = &mut entrant.spec.command;
        if let Some(mode) = flag {
            command.sandbox.mode = mode;
        }
        let planned =
            plan(host, &command.sandbox, command, &entrant.spec.name).map_err(|e| e.to_string())?;
        report.bots.insert(
            entrant.spec.name.clone(),
            bot_isolation(command.sandbox.mode, &planned),
        );
        command.plan = Some(planned);
    }
    Ok(report)
}

/// [`apply`] to the bots of a tournament file, where a submission its sandbox
/// refuses (as root, `auto` and `strict` never run a bot as root) is left out
/// with the refusal instead of stopping the event.
///
/// # Errors
/// A bot the file names itself (not from a glob) is refused.
pub fn apply_leaving_out(
    tournament: &mut Tournament,
    host: &HostSupport,
    flag: Option<SandboxMode>,
) -> Result<IsolationReport, String> {
    let mut refused = Vec::new();
    for entrant in &tournament.entrants {
        let submitted = tournament
            .builds
            .get(&entrant.spec.name)
            .is_some_and(|b| b.submitted);
        let command = &entrant.spec.command;
        let mode = flag.unwrap_or(command.sandbox.mode);
        let request = SandboxRequest {
            mode,
            ..command.sandbox.clone()
        };
        match plan(host, &request, command, &entrant.spec.name) {
            Err(e) if submitted => refused.push((entrant.spec.name.clone(), e.to_string())),
            Err(e) => return Err(e.to_string()),
            Ok(_) => {}
        }
    }
    for (name, why) in refused {
        tournament.leave_out(&name, format!("its sandbox refused it: {why}"))?;
    }
    apply(&mut tournament.entrants, host, flag)
}

/// The banner line: "sandbox: auto: rlimits,user,landlock,seccomp,bwrap (not
/// available here: cgroup)", with per-bot differences after it.
pub fn banner(report: &IsolationReport) -> String {
    let mut groups: BTreeMap<(String, String), Vec<&str>> = BTreeMap::new();
    for (name, bot) in &report.bots {
        let layers = if bot.layers.is_empty() {
            "no layers".to_string()
        } else {
            bot.layers.join(",")
        };
        groups
            .entry((bot.mode.clone(), layers))
            .or_default()
            .push(name);
    }
    let missing: Vec<&str> = report
        .host
        .iter()
        .filter(|l| !l.available)
        .map(|l| l.layer.as_str())
        .collect();
    let mut line = String::from("sandbox: ");
    let parts: Vec<String> = groups
        .iter()
        .map(|((mode, layers), names)| {
            if groups.len() == 1 {
                format!("{mode}: {layers}")
            } else {
                format!("{} {mode}: {layers}", names.join(", "))
            }
        })
        .collect();
    line.push_str(&parts.join("; "));
    if !missing.is_empty() {
        line.push_str(&format!(
            " (not available here: {}; see arena doctor)",
            missing.join(", ")
        ));
    }
    for (name, bot) in &report.bots {
        for note in &bot.notes {
            line.push_str(&format!("\n  sandbox note for {name}: {note}"));
        }
        if let Some(warning) = bot.root_warning(name) {
            line.push_str(&format!("\n  {warning}"));
        }
    }
    line
}

/// The layers `strict` would require here (for `arena doctor`).
pub fn strict_layers(host: &HostSupport) -> LayerSet {
    let set: LayerSet = SandboxMode::STRICT_LAYERS.into_iter().collect();
    if host.as_root {
        set.with(Layer::User)
    } else {
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bot(mode: &str, layers: &[&str], notes: &[&str]) -> BotIsolation {
        BotIsolation {
            mode: mode.into(),
            layers: layers.iter().map(|l| (*l).to_string()).collect(),
            program: None,
            read_only: Vec::new(),
            notes: notes.iter().map(|n| (*n).to_string()).collect(),
            own_uid: layers.contains(&"user"),
            runs_as_root: None,
        }
    }

    #[test]
    fn the_banner_names_the_layers_the_gaps_and_each_bots_notes() {
        let host = vec![
            LayerReport {
                layer: "rlimits".into(),
                available: true,
                detail: String::new(),
            },
            LayerReport {
                layer: "cgroup".into(),
                available: false,
                detail: String::new(),
            },
        ];
        let same = IsolationReport {
            host: host.clone(),
            bots: [
                ("a".to_string(), bot("auto", &["rlimits", "bwrap"], &[])),
                ("b".to_string(), bot("auto", &["rlimits", "bwrap"], &[])),
            ]
            .into(),
        };
        assert_eq!(
            banner(&same),
            "sandbox: auto: rlimits,bwrap (not available here: cgroup; see arena doctor)"
        );
        let mixed = IsolationReport {
            host,
            bots: [
                (
                    "a".to_string(),
                    BotIsolation {
                        runs_as_root: Some(
                            "its files are closed to other uids: /srv/a is not readable".into(),
                        ),
                        ..bot("auto", &["rlimits"], &["landlock: x"])
                    },
                ),
                ("b".to_string(), bot("none", &[], &[])),
            ]
            .into(),
        };
        assert_eq!(
            banner(&mixed),
            "sandbox: a auto: rlimits; b none: no layers (not available here: cgroup; see arena doctor)\n  sandbox note for a: landlock: x\n  WARNING: bot 'a' runs as root, without a uid of its own: its files are closed to other uids: /srv/a is not readable. Its capabilities are dropped, but whatever root owns that the other layers leave in view is its own; `--sandbox strict` refuses it"
        );
    }
}
