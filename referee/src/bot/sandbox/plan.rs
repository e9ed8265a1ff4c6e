//! From a mode and a bot's command to the plan its processes start with: which
//! layers, which program (shims resolved), which paths it may read. `strict` and
//! explicit layer lists refuse here, before any game, naming the fix; so does
//! `auto` as root when the bot cannot get a uid of its own (its files are closed
//! to other users, or the `user` layer is missing here): no bot runs as root
//! under `auto` or `strict`, since root without capabilities still owns every
//! file root owns.

use std::path::{Path, PathBuf};

use super::detect::HostSupport;
use super::paths::{Access, check_other_access, read_paths, resolve_shim};
use super::{Layer, LayerSet, SandboxMode, SandboxPlan, SandboxRequest, expose};
use crate::bot::command::BotCommand;

/// Why `auto` and `strict` refuse a bot that would otherwise run as root, and
/// the ways out.
const NEVER_ROOT: &str = "under auto and strict no bot runs as root: fix that, run the arena as an ordinary user (bots then run under your uid), or name the layers you accept (e.g. --sandbox rlimits,landlock,seccomp,bwrap) to run bots as root without capabilities";

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
    // As root, `auto` and `strict` never fall back to running a bot as root: a
    // bot without capabilities still owns every file root owns.
    let never_root =
        host.as_root && matches!(request.mode, SandboxMode::Auto | SandboxMode::Strict);
    if never_root
        && !wanted.contains(Layer::User)
        && let Some(why) = host.missing(Layer::User)
    {
        return Err(refuse(Layer::User, format!("{why}; {NEVER_ROOT}")));
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
        .then(|| user_can_run(&exec, command, &request.read_only, &shown));
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
        if required.contains(Layer::User) || never_root {
            let never = if required.contains(Layer::User) {
                ""
            } else {
                " (under auto no bot runs as root)"
            };
            return Err(refuse(
                Layer::User,
                format!("the bot's uid could not run it: {why}{or_bwrap}{never}"),
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

/// Whether another uid can execute the program and read every file and
/// directory the operator named for the bot (on its command line and in
/// `read-only`). Below a directory in `shown` only the part from that directory
/// on counts (bwrap, or [`expose`](super::expose), shows the bot's uid the
/// directories above it).
fn user_can_run(
    exec: &Path,
    command: &BotCommand,
    extra: &[PathBuf],
    shown: &[PathBuf],
) -> Result<(), String> {
    let from = |path: &Path| -> PathBuf {
        shown
            .iter()
            .find(|r| path.starts_with(r))
            .cloned()
            .unwrap_or_else(|| PathBuf::from("/"))
    };
    let real = std::fs::canonicalize(exec).unwrap_or_else(|_| exec.to_path_buf());
    check_other_access(&real, &from(&real), Access::Execute)?;
    let named = command
        .args
        .iter()
        .map(Path::new)
        .filter(|p| p.is_absolute())
        .chain(extra.iter().map(PathBuf::as_path));
    for path in named {
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => check_other_access(path, &from(path), Access::List)?,
            Ok(_) => check_other_access(path, &from(path), Access::Read)?,
            // What does not exist is not the bot's: an option that looks like a path.
            Err(_) => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use super::super::LayerSupport;
    use super::super::landlock::Features;
    use super::*;

    /// A root host where every layer in `working` works and the others do not.
    fn root_host(working: &[Layer]) -> HostSupport {
        HostSupport {
            layers: Layer::ALL
                .into_iter()
                .map(|layer| LayerSupport {
                    layer,
                    status: if working.contains(&layer) {
                        Ok("works".into())
                    } else {
                        Err(format!("no {layer} here"))
                    },
                })
                .collect(),
            as_root: true,
            landlock: Features::default(),
            bwrap: None,
            uids: working
                .contains(&Layer::User)
                .then_some(super::super::UidRange::DEFAULT),
            private_mounts: false,
            cgroup: None,
        }
    }

    fn request(mode: &str) -> SandboxRequest {
        SandboxRequest {
            mode: mode.parse().unwrap(),
            read_only: Vec::new(),
        }
    }

    /// `python3 <dir>/bot.py` with the script of `mode`, in a directory others may enter.
    fn script_bot(mode: u32) -> (tempfile::TempDir, BotCommand) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let script = dir.path().join("bot.py");
        std::fs::write(&script, "").unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(mode)).unwrap();
        let mut command = BotCommand::new("/bin/sh");
        command.args = vec![script.into_os_string()];
        (dir, command)
    }

    #[test]
    fn as_root_auto_refuses_what_its_uid_cannot_read_instead_of_running_it_as_root() {
        let host = root_host(&[Layer::Rlimits, Layer::User]);
        let (_dir, closed) = script_bot(0o600);
        let err = plan(&host, &request("auto"), &closed, "alice").unwrap_err();
        assert_eq!(err.layer, Layer::User);
        let text = err.to_string();
        assert!(
            text.starts_with(
                "bot 'alice': sandbox auto needs user, but the bot's uid could not run it: "
            ) && text.contains("(mode 600): `chmod o+r ")
                && text.ends_with("(under auto no bot runs as root)"),
            "{text}"
        );
        let (_dir, open) = script_bot(0o644);
        let planned = plan(&host, &request("auto"), &open, "alice").unwrap();
        assert!(planned.layers.contains(Layer::User) && !planned.runs_as_root());
        // Named layers without `user` are the operator's explicit choice.
        let planned = plan(&host, &request("rlimits"), &closed, "alice").unwrap();
        assert!(planned.runs_as_root());
    }

    #[test]
    fn as_root_auto_refuses_when_the_user_layer_is_missing_here() {
        let host = root_host(&[Layer::Rlimits]);
        let (_dir, open) = script_bot(0o644);
        let text = plan(&host, &request("auto"), &open, "bob")
            .unwrap_err()
            .to_string();
        assert!(
            text.starts_with("bot 'bob': sandbox auto needs user, but no user here; under auto and strict no bot runs as root: "),
            "{text}"
        );
        assert!(plan(&host, &request("none"), &open, "bob").is_ok());
    }

    #[test]
    fn a_directory_named_on_the_command_line_must_be_listable_by_the_bots_uid() {
        let host = root_host(&[Layer::Rlimits, Layer::User]);
        let (dir, mut command) = script_bot(0o644);
        let private = dir.path().join("private");
        std::fs::create_dir(&private).unwrap();
        std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
        command.args.push(private.clone().into_os_string());
        let text = plan(&host, &request("auto"), &command, "carol")
            .unwrap_err()
            .to_string();
        assert!(
            text.contains(&format!(
                "{} is not listable by other users (mode 700): `chmod o+rx {}`",
                private.display(),
                private.display()
            )),
            "{text}"
        );
    }
}
