//! What a bot must not inherit from the referee: capabilities, a way to regain
//! them through `exec`, open descriptors, and access to the referee's own
//! `/proc` entries.
//!
//! A bot without a uid of its own (the referee is not root, or the operator
//! named layers without `user`: `auto` and `strict` refuse to run a bot as
//! root, see [`plan`](super::plan::plan)) runs under the referee's uid. As root
//! that used to mean every capability: `mknod` of block devices in its scratch
//! directory, `prlimit` of the referee, `chroot`, `sethostname`. So the launcher
//! ([`drop_all`]) ends with no capability in any set (bounding, permitted,
//! effective, inheritable, ambient), the securebits that keep uid 0 from
//! regaining them on `exec`, and `no_new_privs` (no set-uid or file
//! capabilities either), whatever the other layers are. It checks the result
//! and refuses to start the bot otherwise.
//!
//! Descriptors: the arena may itself have been started with descriptors open
//! (`arena … 7<secret`), which every child would inherit. The referee marks them
//! close-on-exec as it starts ([`shield_referee`]), which covers bots started
//! without the launcher (mode `none`), and the launcher marks every descriptor
//! above 2 close-on-exec again just before it becomes the bot ([`seal_descriptors`]).
//!
//! The referee also makes itself non-dumpable: a bot under the same uid but
//! without capabilities then cannot open `/proc/<referee>/fd/1` (and write into
//! the arena's own output) or `/proc/<referee>/mem`.

use rustix::thread::{
    CapabilitiesSecureBits, CapabilitySet, CapabilitySets, capabilities,
    capability_is_in_bounding_set, clear_ambient_capability_set, no_new_privs,
    remove_capability_from_bounding_set, set_capabilities, set_capabilities_secure_bits,
    set_no_new_privs,
};

/// The highest capability number this kernel knows (`cap_last_cap`), or the
/// highest a 64-bit set can hold when it cannot be read.
fn last_capability() -> u32 {
    std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok())
        .map_or(63, |n| n.min(63))
}

/// The securebits that keep a process of uid 0 from regaining capabilities:
/// no capabilities for root on `exec`, none kept or fixed up across a uid
/// change, no ambient raise; each locked.
fn root_without_powers() -> CapabilitiesSecureBits {
    CapabilitiesSecureBits::NO_ROOT
        | CapabilitiesSecureBits::NO_ROOT_LOCKED
        | CapabilitiesSecureBits::NO_SETUID_FIXUP
        | CapabilitiesSecureBits::NO_SETUID_FIXUP_LOCKED
        | CapabilitiesSecureBits::KEEP_CAPS_LOCKED
        | CapabilitiesSecureBits::NO_CAP_AMBIENT_RAISE
        | CapabilitiesSecureBits::NO_CAP_AMBIENT_RAISE_LOCKED
}

/// Leaves the calling (single-threaded) process with no capability in any set
/// and with `no_new_privs`, so neither it nor anything it executes has any. The
/// bounding set and securebits need `CAP_SETPCAP`; without it (an unprivileged
/// referee) they are left as they are: `no_new_privs` and an empty permitted set
/// already mean `exec` grants nothing.
///
/// # Errors
/// A step failed, or a capability is still there afterwards.
pub fn drop_all() -> Result<(), String> {
    let fail = |what: &str, e: rustix::io::Errno| format!("cannot {what}: {e}");
    let held = capabilities(None).map_err(|e| fail("read the capabilities", e))?;
    if held.effective.contains(CapabilitySet::SETPCAP) {
        set_capabilities_secure_bits(root_without_powers())
            .map_err(|e| fail("set the securebits", e))?;
        for n in 0..=last_capability() {
            let cap = CapabilitySet::from_bits_retain(1 << n);
            if capability_is_in_bounding_set(cap).unwrap_or(false) {
                remove_capability_from_bounding_set(cap)
                    .map_err(|e| fail(&format!("drop capability {n} from the bounding set"), e))?;
            }
        }
    }
    // EINVAL: a kernel older than 4.3 has no ambient set, so nothing to clear.
    match clear_ambient_capability_set() {
        Ok(()) | Err(rustix::io::Errno::INVAL) => {}
        Err(e) => return Err(fail("clear the ambient capabilities", e)),
    }
    let none = CapabilitySets {
        effective: CapabilitySet::empty(),
        permitted: CapabilitySet::empty(),
        inheritable: CapabilitySet::empty(),
    };
    set_capabilities(None, none).map_err(|e| fail("drop the capabilities", e))?;
    set_no_new_privs(true).map_err(|e| fail("set no_new_privs", e))?;
    verify_dropped()
}

/// Checks what [`drop_all`] promises, from the kernel's point of view.
fn verify_dropped() -> Result<(), String> {
    let left = capabilities(None).map_err(|e| format!("cannot read the capabilities: {e}"))?;
    let any = left.effective | left.permitted | left.inheritable;
    if !any.is_empty() {
        return Err(format!(
            "capabilities are left after dropping them all ({:#x})",
            any.bits()
        ));
    }
    if !no_new_privs().unwrap_or(false) {
        return Err("no_new_privs is not set".into());
    }
    Ok(())
}

/// Marks every descriptor above 2 close-on-exec, so the program the launcher
/// becomes gets only its standard input, output and error (`close_range` with
/// `CLOSE_RANGE_CLOEXEC`, or a walk of `/proc/self/fd` on kernels before 5.11).
/// Nothing is closed before the `exec`, so no open file of the launcher is
/// pulled from under it.
pub fn seal_descriptors() {
    close_fds::set_fds_cloexec(3, &[]);
}

/// Run by the referee first thing, while it is single-threaded: descriptors it
/// inherited (above 2) become close-on-exec, so no bot inherits them even when
/// started without the launcher; and the process becomes non-dumpable, so a bot
/// running under the same uid without capabilities cannot open the referee's
/// `/proc` entries (its descriptors, its memory).
pub fn shield_referee() {
    close_fds::set_fds_cloexec(3, &[]);
    let _ = nix::sys::prctl::set_dumpable(false);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernel_reports_a_capability_number_we_can_hold() {
        let last = last_capability();
        assert!((30..=63).contains(&last), "cap_last_cap {last}");
    }
}
