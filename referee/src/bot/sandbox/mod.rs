//! Isolation layers for untrusted bots, each detected at start-up, used when
//! available, and reported.
//!
//! Always (no layer needed): an own process group, a clean environment, a private
//! scratch directory removed after the game, kill-then-reap of the whole group,
//! socket pairs for the standard streams, no descriptor the referee inherited; in
//! every mode but `none`, no capability ([`privileges`]).
//! On top of that, in the order a bot process meets them:
//!
//! | [`Layer`] | what it does | applied by |
//! |---|---|---|
//! | `rlimits` | memory (of the whole process tree), CPU seconds, file size, open files, no core dumps | launcher + referee |
//! | `user` | a dedicated uid per running bot (root only), groups dropped, `RLIMIT_NPROC`, leftovers of that uid swept (processes and IPC objects) | launcher + referee |
//! | `landlock` | read-only system and bot directories, write only the scratch directory (no device nodes, FIFOs or sockets), no TCP, no signals out of the sandbox | launcher |
//! | `seccomp` | no sockets (socket pairs only), no changing another process's limits or scheduling, no System V IPC or memfd, no ptrace, mount, namespaces, io_uring, keyring, bpf… | launcher |
//! | `bwrap` | PID, network, IPC and UTS namespaces, a minimal filesystem view, die-with-parent | bubblewrap |
//! | `cgroup` | a cgroup v2 group per bot process tree: `cgroup.kill` at the end, `memory.max` and `pids.max` where delegated | launcher + referee |
//!
//! - [`detect`]: what this machine supports, and why not ([`HostSupport`]).
//! - [`plan`](plan::plan): a [`SandboxMode`] and a bot's command become the
//!   [`SandboxPlan`] its process is started with, or a refusal naming the fix.
//! - [`launch`]: the single-threaded launcher (`arena __launch …`) that applies the
//!   in-process layers and then becomes the bot.
//! - [`bwrap`], [`cgroup`], [`landlock`], [`seccomp`], [`uids`], [`paths`],
//!   [`expose`], [`privileges`]: one layer or helper each.
//!
//! Nothing here decides games; a bot stopped by a layer simply fails in a way the
//! session already reports (crash, timeout, a move it could not compute).

pub mod bwrap;
pub mod cgroup;
pub mod detect;
pub mod expose;
pub mod landlock;
pub mod launch;
pub mod paths;
pub mod plan;
pub mod privileges;
pub mod seccomp;
pub(crate) mod start;
pub mod uids;

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

pub use detect::{HostSupport, LayerSupport};
pub use plan::{SandboxError, plan};
pub use uids::UidRange;

/// One isolation layer on top of the always-on basics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Layer {
    /// Resource limits set by the launcher before exec.
    Rlimits,
    /// A dedicated unprivileged uid per running bot (needs root).
    User,
    /// Landlock filesystem, network and scope rules.
    Landlock,
    /// A seccomp filter denying dangerous system calls.
    Seccomp,
    /// bubblewrap namespaces.
    Bwrap,
    /// A cgroup v2 group per bot process tree.
    Cgroup,
}

impl Layer {
    /// Every layer, weakest first.
    pub const ALL: [Layer; 6] = [
        Layer::Rlimits,
        Layer::User,
        Layer::Landlock,
        Layer::Seccomp,
        Layer::Bwrap,
        Layer::Cgroup,
    ];

    /// The name used in configs, flags and reports.
    pub const fn name(self) -> &'static str {
        match self {
            Layer::Rlimits => "rlimits",
            Layer::User => "user",
            Layer::Landlock => "landlock",
            Layer::Seccomp => "seccomp",
            Layer::Bwrap => "bwrap",
            Layer::Cgroup => "cgroup",
        }
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Layer {
    type Err = String;
    fn from_str(s: &str) -> Result<Layer, String> {
        Layer::ALL
            .into_iter()
            .find(|l| l.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown sandbox layer '{s}': use {}",
                    Layer::ALL.map(Layer::name).join(", ")
                )
            })
    }
}

/// A set of layers (small, `Copy`, ordered weakest first when listed).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct LayerSet(u8);

impl LayerSet {
    /// No layer.
    pub const EMPTY: LayerSet = LayerSet(0);

    const fn bit(layer: Layer) -> u8 {
        1 << layer as u8
    }

    /// Whether `layer` is in the set.
    pub const fn contains(self, layer: Layer) -> bool {
        self.0 & LayerSet::bit(layer) != 0
    }

    /// The set with `layer` added.
    #[must_use]
    pub const fn with(self, layer: Layer) -> LayerSet {
        LayerSet(self.0 | LayerSet::bit(layer))
    }

    /// The set with `layer` removed.
    #[must_use]
    pub const fn without(self, layer: Layer) -> LayerSet {
        LayerSet(self.0 & !LayerSet::bit(layer))
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The layers, weakest first.
    pub fn iter(self) -> impl Iterator<Item = Layer> {
        Layer::ALL.into_iter().filter(move |l| self.contains(*l))
    }

    /// Layer names joined by `,` (`-` when empty).
    pub fn names(self) -> String {
        if self.is_empty() {
            return "-".into();
        }
        self.iter().map(Layer::name).collect::<Vec<_>>().join(",")
    }
}

impl FromIterator<Layer> for LayerSet {
    fn from_iter<I: IntoIterator<Item = Layer>>(iter: I) -> LayerSet {
        iter.into_iter().fold(LayerSet::EMPTY, LayerSet::with)
    }
}

impl fmt::Debug for LayerSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LayerSet({})", self.names())
    }
}

/// How much isolation a bot gets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SandboxMode {
    /// Only the always-on basics: no launcher, no limits.
    None,
    /// Every layer this machine supports; missing ones are reported, not fatal.
    #[default]
    Auto,
    /// The full set ([`SandboxMode::STRICT_LAYERS`], plus `user` when running as
    /// root); refuse to start if one is missing.
    Strict,
    /// Exactly these layers, each required (`rlimits,landlock`): for benchmarks,
    /// tests and machines where one layer misbehaves.
    Exactly(LayerSet),
}

impl SandboxMode {
    /// What `strict` requires everywhere (and `user` too when running as root).
    pub const STRICT_LAYERS: [Layer; 4] = [
        Layer::Rlimits,
        Layer::Landlock,
        Layer::Seccomp,
        Layer::Bwrap,
    ];
}

impl fmt::Display for SandboxMode {
    /// `none`, `auto`, `strict`, or the layer list.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SandboxMode::None => f.write_str("none"),
            SandboxMode::Auto => f.write_str("auto"),
            SandboxMode::Strict => f.write_str("strict"),
            SandboxMode::Exactly(set) => f.write_str(&set.names()),
        }
    }
}

impl FromStr for SandboxMode {
    type Err = String;
    /// `auto`, `none`, `strict`, or a comma-separated list of layers.
    fn from_str(s: &str) -> Result<SandboxMode, String> {
        match s.trim() {
            "none" => Ok(SandboxMode::None),
            "auto" => Ok(SandboxMode::Auto),
            "strict" => Ok(SandboxMode::Strict),
            "" => Err("empty sandbox mode: use auto, none, strict or a list of layers".into()),
            list => list
                .split(',')
                .map(|l| l.trim().parse::<Layer>())
                .collect::<Result<LayerSet, String>>()
                .map(SandboxMode::Exactly)
                .map_err(|e| format!("{e} (or auto, none, strict)")),
        }
    }
}

/// What a bot asks for: its mode and the extra paths it needs to read (an
/// interpreter's libraries, a model file). Turned into a [`SandboxPlan`] at start-up.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SandboxRequest {
    /// The mode.
    pub mode: SandboxMode,
    /// Extra files or directories the bot may read (absolute).
    pub read_only: Vec<PathBuf>,
}

/// How one bot's processes are isolated: decided once at start-up by
/// [`plan()`](plan::plan), used by every start of the bot.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SandboxPlan {
    /// The layers in force.
    pub layers: LayerSet,
    /// Whether the referee runs as root (bwrap then makes no user namespace).
    pub as_root: bool,
    /// The program actually executed (a version-manager shim resolved to the real
    /// interpreter), when it differs from the command's.
    pub program: Option<PathBuf>,
    /// Files and directories the bot may read and execute, besides the system ones.
    pub read_only: Vec<PathBuf>,
    /// The bubblewrap executable, with [`Layer::Bwrap`].
    pub bwrap: Option<PathBuf>,
    /// Where dedicated uids come from, with [`Layer::User`].
    pub uids: Option<UidRange>,
    /// Directories the launcher shows the bot's uid below a private ancestor
    /// ([`expose`]), with [`Layer::User`] and without bwrap.
    pub expose: Vec<PathBuf>,
    /// What Landlock can enforce on this kernel, with [`Layer::Landlock`].
    pub landlock: landlock::Features,
    /// Where bot groups are created, with [`Layer::Cgroup`].
    pub cgroup: Option<cgroup::CgroupBase>,
    /// Why an available layer is not used for this bot (e.g. its interpreter is not
    /// readable by other users, so it cannot run under a dedicated uid).
    pub notes: Vec<String>,
    /// Set when the bot runs under the referee's own uid (root, when the referee
    /// is root: without capabilities, but owning whatever root owns): why, and
    /// the fix. `None` in mode `none` too, where nothing is promised.
    pub shared_uid: Option<String>,
    /// Whether the working directory (a build's copy) is lent to the bot's uid
    /// for the life of the process: handed over, tree and all, before it starts
    /// ([`uids::lend_tree`]); the caller takes it back afterwards. Without it a
    /// dedicated uid can write only where anyone may.
    pub lend_working_dir: bool,
}

impl SandboxPlan {
    /// Whether the bot runs as root: the referee is root and the bot has no uid
    /// of its own. Worth a warning wherever the plan is shown.
    pub fn runs_as_root(&self) -> bool {
        self.as_root && self.shared_uid.is_some()
    }
}

impl SandboxPlan {
    /// A plan with no layers: the bot is started directly.
    pub fn none() -> SandboxPlan {
        SandboxPlan::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_and_print_back() {
        for text in ["none", "auto", "strict", "rlimits,landlock", "bwrap"] {
            let mode: SandboxMode = text.parse().unwrap();
            assert_eq!(mode.to_string(), text);
        }
        let mode: SandboxMode = "seccomp, rlimits".parse().unwrap();
        assert_eq!(mode.to_string(), "rlimits,seccomp", "listed weakest first");
        let err = "firejail".parse::<SandboxMode>().unwrap_err();
        assert_eq!(
            err,
            "unknown sandbox layer 'firejail': use rlimits, user, landlock, seccomp, bwrap, cgroup (or auto, none, strict)"
        );
    }

    #[test]
    fn layer_sets_add_and_remove() {
        let set = LayerSet::EMPTY.with(Layer::Bwrap).with(Layer::Rlimits);
        assert!(set.contains(Layer::Bwrap) && !set.contains(Layer::User));
        assert_eq!(set.names(), "rlimits,bwrap");
        assert_eq!(set.without(Layer::Bwrap).names(), "rlimits");
        assert_eq!(LayerSet::EMPTY.names(), "-");
    }
}
