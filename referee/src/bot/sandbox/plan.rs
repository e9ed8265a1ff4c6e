//! From a mode and a bot's command to the plan its processes start with: which
//! layers, which program (shims resolved), which paths it may read. `strict` and
//! explicit layer lists refuse here, before any game, naming the fix.

use std::path::{Path, PathBuf};

use super::detect::HostSupport;
use super::paths::{check_other_access, read_paths, resolve_shim};
use super::{Layer, LayerSet, SandboxMode, SandboxPlan, SandboxRequest, expose};
use crate::bot::command::BotCommand;

/// A bot cannot be sandboxed as asked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bot '{bot}': sandbox {mode} needs {layer}, but {why}")]
pub struct SandboxError {
    /// The bot's name.
    pub bot: String,
    /// The mode asked for.
    pub mode: SandboxMode,
    /// The missing layer.
    pub layer: Layer,
    /// Why it is missing, with the fix.
    pub why: String,
}

/// Works out how `command` (the bot `name`) runs under `request` on `host`.
///
/// # Errors
/// [`SandboxError`] when the mode requires a layer that is missing here, or that
/// cannot work for this bot (its files are not readable by the dedicated uid).
pub fn plan(
    host: &HostSupport,
    request: &SandboxRequest,
    command: &BotCommand,
    name: &str,
) -> Result<SandboxPlan, SandboxError> {
    let available = host.available();
    let (mut wanted, required) = match request.mode {
        SandboxMode::None => return Ok(SandboxPlan::none()),
        SandboxMode::Auto => (available, LayerSet::EMPTY),
        SandboxMode::Strict => {
            let mut required: LayerSet = SandboxMode::STRICT_LAYERS.into_iter().collect();
            if host.as_root {
                required = required.with(Layer::User);
            }
            (required, required)
        }
        SandboxMode::Exactly(set) => (set, set),
    };
    let refuse = |layer: Layer, why: String| SandboxError {
        bot: name.to_string(),
        mode: request.mode,
        layer,
        why,
    };
    for layer in required.iter() {
        if let Some(why) = host.missing(layer) {
            return Err(refuse(layer, why.to_string()));
        }
    }
    if wanted.contains(Layer::User) && !wanted.contains(Layer::Rlimits) {
        // The uid change is carried by the launcher, which Rlimits implies.
        wanted = wanted.with(Layer::Rlimits);
    }
    let mut plan = SandboxPlan {
        layers: wanted,
        as_root: host.as_root,
        ..SandboxPlan::default()
    };
    let confines_files = [Layer::User, Layer::Landlock, Layer::Bwrap]
        .into_iter()
        .any(|l| wanted.contains(l));
    let program = if confines_files {
        let dir = command
            .working_dir
            .clone()
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("/"));
        resolve_shim(&command.program, &dir)
    } else {
        None
    };
    let exec = program.clone().unwrap_or_else(|| command.program.clone());
    plan.program = program;
    if confines_files {
        plan.read_only = read_paths(&exec, &command.args, &request.read_only);
    }
    // Without bwrap the launcher can still show the bot's uid the directories it
    // reads below a private one (pyenv under /root), when the host allows it.
    let exposable =
        if wanted.contains(Layer::User) && !wanted.contains(Layer::Bwrap) && host.private_mounts {
            exposable(&plan.read_only, command)
        } else {
            Vec::new()
        };
    let shown = if wanted.contains(Layer::Bwrap) {
        plan.read_only.clone()
    } else {
        exposable.clone()
    };
    let runnable = wanted
        .contains(Layer::User)
        .then(|| user_can_run(&exec, command, &shown));
    if let Some(Ok(())) = runnable
        && !exposable.is_empty()
    {
        plan.notes.push(format!(
            "user: {} shown to the bot's uid in a mount namespace of its own",
            exposable
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        plan.expose = exposable;
    }
    if let Some(Err(why)) = runnable {
        // Under bwrap only the bound directories count, so bwrap is a fix too.
        let or_bwrap = if wanted.contains(Layer::Bwrap) {
            ""
        } else {
            "; or install bubblewrap (apt-get install bubblewrap): under it only the directories the bot reads need to be open to other users"
        };
        if required.contains(Layer::User) {
            return Err(refuse(
                Layer::User,
                format!("the bot's uid could not run it: {why}{or_bwrap}"),
            ));
        }
        plan.layers = plan.layers.without(Layer::User);
        plan.shared_uid = Some(format!(
            "its files are closed to other uids: {why}{or_bwrap}"
        ));
    } else if !plan.layers.contains(Layer::User) {
        plan.shared_uid = Some(match host.missing(Layer::User) {
            Some(why) => format!("the user layer is not available here: {why}"),
            None => format!("sandbox {} leaves out the user layer", request.mode),
        });
    }
    if plan.layers.contains(Layer::User) {
        plan.uids = host.uids;
    }
    if plan.layers.contains(Layer::Landlock) {
        plan.landlock = host.landlock;
    }
    if plan.layers.contains(Layer::Bwrap) {
        plan.bwrap.clone_from(&host.bwrap);
    }
    if plan.layers.contains(Layer::Cgroup) {
        plan.cgroup.clone_from(&host.cgroup);
    }
    Ok(plan)
}

/// The bot's read-only paths below a directory other users cannot search,
/// which [`expose`](super::expose) can show its uid: all but those whose
/// covered directory also holds the temporary directory or the bot's working
/// directory (covering it would hide them).
fn exposable(read_only: &[PathBuf], command: &BotCommand) -> Vec<PathBuf> {
    let tmp = std::env::temp_dir();
    read_only
        .iter()
        .filter(|path| {
            expose::blocking_ancestor(path).is_some_and(|covered| {
                !tmp.starts_with(&covered)
                    && !command
                        .working_dir
                        .as_ref()
                        .is_some_and(|d| d.starts_with(&covered))
            })
        })
        .cloned()
        .collect()
}

/// Whether another uid can execute the program and read the bot's files. Below
/// a directory in `shown` only the part from that directory on counts (bwrap, or
/// [`expose`](super::expose), shows the bot's uid the directories above it).
fn user_can_run(exec: &Path, command: &BotCommand, shown: &[PathBuf]) -> Result<(), String> {
    let from = |path: &Path| -> PathBuf {
        shown
            .iter()
            .find(|r| path.starts_with(r))
            .cloned()
            .unwrap_or_else(|| PathBuf::from("/"))
    };
    let real = std::fs::canonicalize(exec).unwrap_or_else(|_| exec.to_path_buf());
    check_other_access(&real, &from(&real), true)?;
    for arg in &command.args {
        let path = Path::new(arg);
        if path.is_absolute() && path.is_file() {
            check_other_access(path, &from(path), false)?;
        }
    }
    Ok(())
}
