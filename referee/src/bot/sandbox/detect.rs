//! What this machine supports, found once at start-up: static checks (root? which
//! Landlock ABI? is bwrap installed? which cgroup hierarchy?) confirmed by running
//! each layer for real on `/usr/bin/true` through the launcher, so a layer reported
//! as available has just worked here. Each missing layer says why and how to get it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::cgroup::CgroupBase;
use super::landlock::Features;
use super::launch::{LAUNCH_ARG, LaunchSpec};
use super::uids::{self, UidRange};
use super::{Layer, LayerSet, bwrap, seccomp};
use crate::bot::limits::ResourceLimits;

/// One layer on this machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerSupport {
    /// The layer.
    pub layer: Layer,
    /// `Ok(what it does here)` or `Err(why not, and the fix)`.
    pub status: Result<String, String>,
}

/// Everything detected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostSupport {
    /// One entry per [`Layer::ALL`], in that order.
    pub layers: Vec<LayerSupport>,
    /// Whether the referee runs as root.
    pub as_root: bool,
    /// Landlock features (all off when unavailable).
    pub landlock: Features,
    /// The working bwrap, if any.
    pub bwrap: Option<PathBuf>,
    /// The uid range, when the `user` layer is available.
    pub uids: Option<UidRange>,
    /// Whether the launcher can show a bot's uid directories below a private
    /// one ([`expose`](super::expose)): root, with mount namespaces.
    pub private_mounts: bool,
    /// Where bot cgroups go, when the `cgroup` layer is available.
    pub cgroup: Option<CgroupBase>,
}

const TRUE: &str = "/usr/bin/true";

fn run_probe(launcher: &Path, spec: &LaunchSpec) -> Result<(), String> {
    run_probe_of(launcher, spec, &[TRUE])
}

/// Runs `program` (with its arguments) through the launcher under `spec`.
fn run_probe_of(launcher: &Path, spec: &LaunchSpec, program: &[&str]) -> Result<(), String> {
    let output = Command::new(launcher)
        .arg(LAUNCH_ARG)
        .args(spec.to_args())
        .arg("--")
        .args(program)
        .stdin(Stdio::null())
        .current_dir("/")
        .output()
        .map_err(|e| format!("cannot run the launcher {}: {e}", launcher.display()))?;
    if output.status.success() {
        Ok(())
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        Err(stderr
            .lines()
            .next()
            .unwrap_or("the probe failed without a message")
            .trim_start_matches("arena launcher: ")
            .to_string())
    }
}

/// Whether a launcher becoming `uid` reaches a directory below a private (0700)
/// one once [`expose`](super::expose) has shown it.
fn probe_private_mounts(launcher: &Path, uid: u32) -> bool {
    const TEST: &str = "/usr/bin/test";
    let Ok(private) = tempfile::Builder::new()
        .prefix("uttt-expose-probe-")
        .tempdir()
    else {
        return false;
    };
    let shown = private.path().join("shown");
    if std::fs::create_dir(&shown).is_err() || !Path::new(TEST).is_file() {
        return false;
    }
    let Some(shown_text) = shown.to_str() else {
        return false;
    };
    let spec = LaunchSpec {
        user: Some(uid),
        expose: vec![shown.clone()],
        ..LaunchSpec::default()
    };
    run_probe_of(launcher, &spec, &[TEST, "-x", shown_text]).is_ok()
}

impl HostSupport {
    /// Detects every layer; `launcher` is the executable that serves `__launch`.
    pub fn detect(launcher: &Path) -> HostSupport {
        let as_root = nix::unistd::geteuid().is_root();
        let have_true = Path::new(TRUE).is_file();
        let probe = |spec: LaunchSpec| {
            if have_true {
                run_probe(launcher, &spec)
            } else {
                Err(format!("{TRUE} is missing, so layers cannot be probed"))
            }
        };

        let rlimits = probe(LaunchSpec {
            limits: Some(crate::bot::ResourceLimits::default()),
            ..LaunchSpec::default()
        })
        .map(|()| {
            "memory of the whole process tree (memory.max or the referee's count), CPU seconds (soft = hard), file size, open files; no core dumps".to_string()
        });

        let mut uid_range = None;
        let mut private_mounts = false;
        let user = if as_root {
            match UidRange::from_env() {
                Err(e) => Err(e),
                Ok(range) => match uids::lease(range) {
                    Err(e) => Err(format!("cannot reserve a uid: {e}")),
                    Ok(lease) => {
                        let spec = LaunchSpec {
                            user: Some(lease.uid()),
                            ..LaunchSpec::default()
                        };
                        probe(spec).map(|()| {
                            uid_range = Some(range);
                            private_mounts = probe_private_mounts(launcher, lease.uid());
                            format!(
                                "one uid per running bot from {range} (gid the same, no supplementary groups); RLIMIT_NPROC; leftovers of the uid killed after the bot{}",
                                if private_mounts {
                                    "; its directories below a private one (pyenv under /root) shown to it in a mount namespace of its own"
                                } else {
                                    ""
                                }
                            )
                        })
                    }
                },
            }
        } else {
            Err("not running as root: bots run under your own uid, so they can signal each other and RLIMIT_NPROC cannot be used (run the arena as root for a uid per bot)".into())
        };

        let features = Features::detect();
        let landlock = if features.available() {
            probe(LaunchSpec {
                landlock: Some(features),
                ..LaunchSpec::default()
            })
            .map(|()| features.describe())
        } else {
            Err("this kernel has no Landlock: it needs Linux >= 5.13 built with CONFIG_SECURITY_LANDLOCK and 'landlock' in the lsm= boot parameter".into())
        };
        let features = if landlock.is_ok() {
            features
        } else {
            Features::default()
        };

        let seccomp = match seccomp::target_arch() {
            None => Err(format!(
                "seccomp filters are not built for {}",
                std::env::consts::ARCH
            )),
            Some(_) => probe(LaunchSpec {
                seccomp: true,
                ..LaunchSpec::default()
            })
            .map(|()| format!("denies {}", seccomp::denied_names().join(", "))),
        };

        let mut bwrap_path = None;
        let bwrap = match bwrap::find() {
            None => Err("bubblewrap is not installed: apt-get install bubblewrap".into()),
            Some(path) => match bwrap::probe(&path, as_root) {
                Ok(version) => {
                    bwrap_path = Some(path);
                    Ok(format!(
                        "{version}: PID, network, IPC and UTS namespaces, minimal read-only filesystem, die-with-parent"
                    ))
                }
                Err(why) => Err(format!(
                    "bwrap cannot create its sandbox here: {why} (it needs user namespaces when not root; on Ubuntu >= 23.10 AppArmor restricts them: sysctl kernel.apparmor_restrict_unprivileged_userns=0)"
                )),
            },
        };

        // Found, and a launcher really joins a group made there.
        let cgroup_base = CgroupBase::find().and_then(|base| {
            let group = base
                .create(&ResourceLimits::NONE)
                .map_err(|e| format!("cannot create a bot cgroup: {e}"))?;
            probe(LaunchSpec {
                cgroup: Some(group.path().to_path_buf()),
                ..LaunchSpec::default()
            })?;
            Ok(base)
        });
        let cgroup = cgroup_base
            .as_ref()
            .map(CgroupBase::describe)
            .map_err(Clone::clone);

        let layers = [
            (Layer::Rlimits, rlimits),
            (Layer::User, user),
            (Layer::Landlock, landlock),
            (Layer::Seccomp, seccomp),
            (Layer::Bwrap, bwrap),
            (Layer::Cgroup, cgroup),
        ]
        .into_iter()
        .map(|(layer, status)| LayerSupport { layer, status })
        .collect();
        HostSupport {
            layers,
            as_root,
            landlock: features,
            bwrap: bwrap_path,
            uids: uid_range,
            private_mounts,
            cgroup: cgroup_base.ok(),
        }
    }

    /// The layers that work here.
    pub fn available(&self) -> LayerSet {
        self.layers
            .iter()
            .filter(|l| l.status.is_ok())
            .map(|l| l.layer)
            .collect()
    }

    /// Why `layer` is missing, if it is.
    pub fn missing(&self, layer: Layer) -> Option<&str> {
        self.layers
            .iter()
            .find(|l| l.layer == layer)
            .and_then(|l| l.status.as_ref().err())
            .map(String::as_str)
    }
}
