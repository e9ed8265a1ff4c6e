//! The Landlock layer: what this kernel can enforce, and the rules the launcher
//! applies to itself just before it becomes the bot.
//!
//! Rules: read and execute the system directories (`/usr`, [`TOP_LEVEL_DIRS`],
//! [`ETC_FILES`], a few devices), the bot's own files and any extra read-only paths; everything in the scratch directory and
//! `/dev/null` but making device nodes, FIFOs and sockets; nothing else. With ABI 4 no TCP bind or connect at all; with ABI 6
//! no signals to processes outside the bot's own sandbox and no abstract UNIX
//! sockets created outside it.
//!
//! Landlock is a stackable LSM any unprivileged process may use; it never needs
//! root. The launcher requires exactly the features detected at start-up
//! (`CompatLevel::HardRequirement`), so a bot never silently runs with less.

use std::path::{Path, PathBuf};

use super::paths::{ETC_FILES, TOP_LEVEL_DIRS};

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope, path_beneath_rules,
};

/// Devices every bot may read, besides `/usr`, [`TOP_LEVEL_DIRS`] and
/// [`ETC_FILES`] (missing paths are skipped).
const SYSTEM_DEVICES: &[&str] = &["/dev/urandom", "/dev/random", "/dev/zero"];

/// System paths every bot may write.
pub const SYSTEM_WRITE: &[&str] = &["/dev/null"];

/// What Landlock can enforce here.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// The filesystem ABI (1-5) to use, 0 when Landlock is unavailable.
    pub fs_abi: u8,
    /// TCP bind and connect can be denied (ABI 4).
    pub net: bool,
    /// Signals and abstract UNIX sockets can be scoped (ABI 6).
    pub scope: bool,
}

impl Features {
    /// Whether Landlock works at all.
    pub const fn available(self) -> bool {
        self.fs_abi > 0
    }

    /// Probes the running kernel by creating (not enforcing) rulesets that require
    /// each feature. The calling process is not restricted.
    pub fn detect() -> Features {
        let fs_abi = (1..=5u8)
            .rev()
            .find(|&n| {
                abi(n).is_some_and(|abi| {
                    Ruleset::default()
                        .set_compatibility(CompatLevel::HardRequirement)
                        .handle_access(AccessFs::from_all(abi))
                        .and_then(Ruleset::create)
                        .is_ok()
                })
            })
            .unwrap_or(0);
        let net = Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(AccessNet::from_all(ABI::V4))
            .and_then(Ruleset::create)
            .is_ok();
        let scope = Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .scope(Scope::from_all(ABI::V6))
            .and_then(Ruleset::create)
            .is_ok();
        Features { fs_abi, net, scope }
    }

    /// "filesystem (ABI 5), TCP, signal and socket scoping".
    pub fn describe(self) -> String {
        let mut parts = vec![format!("filesystem (ABI {})", self.fs_abi)];
        if self.net {
            parts.push("TCP".into());
        }
        if self.scope {
            parts.push("signal and abstract-socket scoping".into());
        }
        parts.join(", ")
    }

    /// The launcher's flag value: `5`, `5+net`, `5+net+scope`.
    pub fn to_arg(self) -> String {
        let mut arg = self.fs_abi.to_string();
        if self.net {
            arg.push_str("+net");
        }
        if self.scope {
            arg.push_str("+scope");
        }
        arg
    }

    /// Parses [`Features::to_arg`].
    ///
    /// # Errors
    /// Not of that form.
    pub fn from_arg(arg: &str) -> Result<Features, String> {
        let mut parts = arg.split('+');
        let fs_abi = parts
            .next()
            .and_then(|n| n.parse::<u8>().ok())
            .filter(|n| abi(*n).is_some())
            .ok_or_else(|| format!("bad landlock features '{arg}'"))?;
        let mut features = Features {
            fs_abi,
            net: false,
            scope: false,
        };
        for part in parts {
            match part {
                "net" => features.net = true,
                "scope" => features.scope = true,
                _ => return Err(format!("bad landlock feature '{part}'")),
            }
        }
        Ok(features)
    }
}

fn abi(n: u8) -> Option<ABI> {
    Some(match n {
        1 => ABI::V1,
        2 => ABI::V2,
        3 => ABI::V3,
        4 => ABI::V4,
        5 => ABI::V5,
        _ => return None,
    })
}

/// What a bot may do below its writable paths: everything but creating device
/// nodes, FIFOs and UNIX sockets. A device node made in the scratch directory
/// would open whatever device it names (a disk, `/dev/kmsg`) to anyone with
/// the rights; a socket or FIFO there is a rendezvous with processes outside
/// the sandbox. Bots need none of them: their I/O is their standard streams.
fn write_access(abi: ABI) -> landlock::BitFlags<AccessFs> {
    AccessFs::from_all(abi)
        & !(AccessFs::MakeChar | AccessFs::MakeBlock | AccessFs::MakeFifo | AccessFs::MakeSock)
}

/// Restricts the calling process (and everything it executes) to reading
/// the system paths and `read_only`, and writing [`SYSTEM_WRITE`] and `read_write`,
/// with the network and scope restrictions of `features`.
///
/// # Errors
/// The ruleset could not be built or is not fully enforced.
pub fn restrict(
    features: Features,
    read_only: &[PathBuf],
    read_write: &[PathBuf],
) -> Result<(), String> {
    let abi = abi(features.fs_abi).ok_or("landlock is not available")?;
    let fail = |e: landlock::RulesetError| format!("landlock: {e}");
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(abi))
        .map_err(fail)?;
    if features.net {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(ABI::V4))
            .map_err(fail)?;
    }
    if features.scope {
        ruleset = ruleset.scope(Scope::from_all(ABI::V6)).map_err(fail)?;
    }
    let reads = ["/usr"]
        .iter()
        .chain(TOP_LEVEL_DIRS)
        .chain(ETC_FILES)
        .chain(SYSTEM_DEVICES)
        .map(Path::new)
        .chain(read_only.iter().map(PathBuf::as_path));
    let writes = SYSTEM_WRITE
        .iter()
        .map(Path::new)
        .chain(read_write.iter().map(PathBuf::as_path));
    let status = ruleset
        .create()
        .map_err(fail)?
        .add_rules(path_beneath_rules(reads, AccessFs::from_read(abi)))
        .map_err(fail)?
        .add_rules(path_beneath_rules(writes, write_access(abi)))
        .map_err(fail)?
        .restrict_self()
        .map_err(fail)?;
    match status.ruleset {
        RulesetStatus::FullyEnforced => Ok(()),
        other => Err(format!("landlock: ruleset {other:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_args_round_trip() {
        for features in [
            Features {
                fs_abi: 5,
                net: true,
                scope: true,
            },
            Features {
                fs_abi: 1,
                net: false,
                scope: false,
            },
            Features {
                fs_abi: 3,
                net: false,
                scope: true,
            },
        ] {
            assert_eq!(Features::from_arg(&features.to_arg()), Ok(features));
        }
        assert!(Features::from_arg("9").is_err());
        assert!(Features::from_arg("5+udp").is_err());
    }
}
