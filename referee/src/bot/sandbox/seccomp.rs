//! The seccomp layer: a deny-list filter the launcher installs just before it
//! becomes the bot. Denied calls fail with `EPERM` rather than killing the bot, so a
//! runtime that merely probes (say, for io_uring) keeps working, and a bot that
//! tries something forbidden fails in its own code, visibly.
//!
//! This is defence in depth, not a complete sandbox: isolation comes from the
//! namespaces (bwrap), Landlock and the dedicated uid. What it closes on its own:
//! every socket family but `AF_UNIX` (UDP and raw sockets included, which Landlock
//! does not cover), tracing or reading other processes, mounting, new namespaces
//! (including `clone` with namespace flags; `clone3` reports `ENOSYS` so libc falls
//! back to `clone`), io_uring (which could open sockets behind the filter's back),
//! kernel keyrings, bpf, perf events, userfaultfd, module loading, reboot, swap,
//! and file handles (`open_by_handle_at`).

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// System calls denied outright.
const DENIED: &[(i64, &str)] = &[
    (libc::SYS_ptrace, "ptrace"),
    (libc::SYS_process_vm_readv, "process_vm_readv"),
    (libc::SYS_process_vm_writev, "process_vm_writev"),
    (libc::SYS_pidfd_getfd, "pidfd_getfd"),
    (libc::SYS_mount, "mount"),
    (libc::SYS_umount2, "umount2"),
    (libc::SYS_pivot_root, "pivot_root"),
    (libc::SYS_move_mount, "move_mount"),
    (libc::SYS_open_tree, "open_tree"),
    (libc::SYS_fsopen, "fsopen"),
    (libc::SYS_fsmount, "fsmount"),
    (libc::SYS_fsconfig, "fsconfig"),
    (libc::SYS_fspick, "fspick"),
    (libc::SYS_mount_setattr, "mount_setattr"),
    (libc::SYS_unshare, "unshare"),
    (libc::SYS_setns, "setns"),
    (libc::SYS_keyctl, "keyctl"),
    (libc::SYS_add_key, "add_key"),
    (libc::SYS_request_key, "request_key"),
    (libc::SYS_bpf, "bpf"),
    (libc::SYS_perf_event_open, "perf_event_open"),
    (libc::SYS_userfaultfd, "userfaultfd"),
    (libc::SYS_io_uring_setup, "io_uring_setup"),
    (libc::SYS_io_uring_enter, "io_uring_enter"),
    (libc::SYS_io_uring_register, "io_uring_register"),
    (libc::SYS_kexec_load, "kexec_load"),
    (libc::SYS_kexec_file_load, "kexec_file_load"),
    (libc::SYS_init_module, "init_module"),
    (libc::SYS_finit_module, "finit_module"),
    (libc::SYS_delete_module, "delete_module"),
    (libc::SYS_reboot, "reboot"),
    (libc::SYS_swapon, "swapon"),
    (libc::SYS_swapoff, "swapoff"),
    (libc::SYS_open_by_handle_at, "open_by_handle_at"),
    (libc::SYS_name_to_handle_at, "name_to_handle_at"),
];

/// `clone` flags that create namespaces.
const NAMESPACE_FLAGS: &[libc::c_int] = &[
    libc::CLONE_NEWNS,
    libc::CLONE_NEWCGROUP,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWNET,
];

/// The names of the denied calls, for `arena doctor` and the README.
pub fn denied_names() -> Vec<&'static str> {
    let mut names: Vec<&str> = DENIED.iter().map(|(_, n)| *n).collect();
    names.extend([
        "socket (except AF_UNIX)",
        "clone (namespace flags)",
        "clone3",
    ]);
    names
}

/// The architecture seccomp filters are built for, if this one is supported.
pub fn target_arch() -> Option<TargetArch> {
    TargetArch::try_from(std::env::consts::ARCH).ok()
}

fn cond(op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, String> {
    SeccompCondition::new(0, SeccompCmpArgLen::Dword, op, value).map_err(|e| e.to_string())
}

fn rule(conditions: Vec<SeccompCondition>) -> Result<SeccompRule, String> {
    SeccompRule::new(conditions).map_err(|e| e.to_string())
}

/// The two filters: calls denied with `EPERM`, and `clone3` with `ENOSYS`.
///
/// # Errors
/// The architecture is not supported, or a filter does not compile.
pub fn filters() -> Result<[BpfProgram; 2], String> {
    let arch = target_arch().ok_or_else(|| {
        format!(
            "seccomp filters are not supported on {}",
            std::env::consts::ARCH
        )
    })?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
        DENIED.iter().map(|(nr, _)| (*nr, Vec::new())).collect();
    let af_unix = u64::try_from(libc::AF_UNIX).map_err(|e| e.to_string())?;
    rules.insert(
        libc::SYS_socket,
        vec![rule(vec![cond(SeccompCmpOp::Ne, af_unix)?])?],
    );
    let mut clone_rules = Vec::new();
    for flag in NAMESPACE_FLAGS {
        let flag = u64::from(flag.unsigned_abs());
        clone_rules.push(rule(vec![cond(SeccompCmpOp::MaskedEq(flag), flag)?])?);
    }
    rules.insert(libc::SYS_clone, clone_rules);
    let eperm = u32::try_from(libc::EPERM).map_err(|e| e.to_string())?;
    let enosys = u32::try_from(libc::ENOSYS).map_err(|e| e.to_string())?;
    let compile = |rules, errno| -> Result<BpfProgram, String> {
        let filter = SeccompFilter::new(
            rules,
            SeccompAction::Allow,
            SeccompAction::Errno(errno),
            arch,
        )
        .map_err(|e| e.to_string())?;
        BpfProgram::try_from(filter).map_err(|e| e.to_string())
    };
    Ok([
        compile(rules, eperm)?,
        compile(
            [(libc::SYS_clone3, Vec::new())].into_iter().collect(),
            enosys,
        )?,
    ])
}

/// Installs the filters on the calling thread (the launcher is single-threaded),
/// which keeps them across `exec`. Sets `no_new_privs`.
///
/// # Errors
/// The filters could not be built or installed.
pub fn install() -> Result<(), String> {
    for filter in filters()? {
        seccompiler::apply_filter(&filter).map_err(|e| format!("seccomp: {e}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_compile_here() {
        if target_arch().is_some() {
            let [main, clone3] = filters().unwrap();
            assert!(
                main.len() > DENIED.len(),
                "one check per denied call at least"
            );
            assert!(!clone3.is_empty());
        }
    }
}
