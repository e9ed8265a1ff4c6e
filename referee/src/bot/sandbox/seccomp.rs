//! The seccomp layer: a deny-list filter the launcher installs just before it
//! becomes the bot. Denied calls fail with `EPERM` rather than killing the bot, so a
//! runtime that merely probes (say, for io_uring) keeps working, and a bot that
//! tries something forbidden fails in its own code, visibly.
//!
//! This is defence in depth, not a complete sandbox: isolation comes from the
//! namespaces (bwrap), Landlock and the dedicated uid. What it closes on its own:
//! - every `socket` call, UNIX ones included: no network (UDP and raw sockets
//!   too, which Landlock does not cover) and no connecting to the host's UNIX
//!   sockets by path (a filter cannot read the path, and Landlock does not
//!   check `connect`); `socketpair` stays, for runtimes that talk to their own
//!   children;
//! - tracing or reading other processes, and changing another process's limits
//!   or scheduling: `prlimit64`, `setpriority`, `sched_set*`, `ioprio_set`,
//!   `migrate_pages` and `move_pages` work only on the bot itself (pid 0 or its
//!   own pid), so a bot sharing a uid with its opponent cannot set the
//!   opponent's CPU limit to one second or pin it to a busy core;
//!   `setpriority`/`ioprio_set` on a whole user are refused;
//! - System V IPC and POSIX message queues, which outlive the bot and are shared
//!   by every process of the uid on the machine (outside an IPC namespace);
//! - `memfd_create` and `memfd_secret`: memory held in a memfd belongs to no
//!   process's resident set, so it escapes the referee's count of a bot's memory;
//! - pushing input into a terminal: `ioctl` `TIOCSTI` (type keystrokes the
//!   operator's shell runs once the arena exits) and `TIOCLINUX` (the console's
//!   selection and paste), whatever terminal the descriptor is (the launcher's
//!   `setsid` already leaves the bot without a controlling one);
//! - mounting, new namespaces (including `clone` with namespace flags; `clone3`
//!   reports `ENOSYS` so libc falls back to `clone`), io_uring (which could open
//!   sockets behind the filter's back), kernel keyrings, bpf, perf events,
//!   userfaultfd, module loading, reboot, swap, and file handles
//!   (`open_by_handle_at`).

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
    (libc::SYS_socket, "socket"),
    (libc::SYS_process_madvise, "process_madvise"),
    (libc::SYS_process_mrelease, "process_mrelease"),
    (libc::SYS_memfd_create, "memfd_create"),
    (libc::SYS_memfd_secret, "memfd_secret"),
    (libc::SYS_shmget, "shmget"),
    (libc::SYS_shmat, "shmat"),
    (libc::SYS_shmctl, "shmctl"),
    (libc::SYS_msgget, "msgget"),
    (libc::SYS_msgsnd, "msgsnd"),
    (libc::SYS_msgrcv, "msgrcv"),
    (libc::SYS_msgctl, "msgctl"),
    (libc::SYS_semget, "semget"),
    (libc::SYS_semop, "semop"),
    (libc::SYS_semtimedop, "semtimedop"),
    (libc::SYS_semctl, "semctl"),
    (libc::SYS_mq_open, "mq_open"),
    (libc::SYS_mq_unlink, "mq_unlink"),
    (libc::SYS_mq_timedsend, "mq_timedsend"),
    (libc::SYS_mq_timedreceive, "mq_timedreceive"),
    (libc::SYS_mq_notify, "mq_notify"),
    (libc::SYS_mq_getsetattr, "mq_getsetattr"),
];

/// Calls whose first argument names the process they change: allowed only on
/// the caller itself (0, or its own pid).
const SELF_ONLY: &[(i64, &str)] = &[
    (libc::SYS_sched_setaffinity, "sched_setaffinity"),
    (libc::SYS_sched_setscheduler, "sched_setscheduler"),
    (libc::SYS_sched_setparam, "sched_setparam"),
    (libc::SYS_sched_setattr, "sched_setattr"),
    (libc::SYS_migrate_pages, "migrate_pages"),
    (libc::SYS_move_pages, "move_pages"),
];

/// `setpriority(PRIO_USER, …)` and `ioprio_set(IOPRIO_WHO_USER, …)`: every
/// process of a uid, the opponent's too when it shares the uid.
const PRIO_USER: u64 = 2;
const IOPRIO_WHO_USER: u64 = 3;

/// `ioctl` requests that push input into a terminal. The kernel reads the
/// request as a 32-bit number, so only its low 32 bits are compared: a request
/// with high bits set is the same request to the kernel.
const TERMINAL_INPUT: &[libc::Ioctl] = &[libc::TIOCSTI, libc::TIOCLINUX];

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
    names.extend(SELF_ONLY.iter().map(|(_, n)| *n));
    names.extend([
        "prlimit64, setpriority, ioprio_set (on other processes)",
        "clone (namespace flags)",
        "clone3",
    ]);
    names.push("ioctl TIOCSTI, TIOCLINUX (terminal input)");
    names
}

/// The architecture seccomp filters are built for, if this one is supported.
pub fn target_arch() -> Option<TargetArch> {
    TargetArch::try_from(std::env::consts::ARCH).ok()
}

fn cond(op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, String> {
    arg(0, SeccompCmpArgLen::Dword, op, value)
}

fn arg(
    index: u8,
    len: SeccompCmpArgLen,
    op: SeccompCmpOp,
    value: u64,
) -> Result<SeccompCondition, String> {
    SeccompCondition::new(index, len, op, value).map_err(|e| e.to_string())
}

/// Conditions that hold when argument `index` (a pid) names another process
/// than `own_pid` (0 means the caller).
fn other_process(index: u8, own_pid: u32) -> Result<Vec<SeccompCondition>, String> {
    Ok(vec![
        arg(index, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, 0)?,
        arg(
            index,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Ne,
            u64::from(own_pid),
        )?,
    ])
}

fn rule(conditions: Vec<SeccompCondition>) -> Result<SeccompRule, String> {
    SeccompRule::new(conditions).map_err(|e| e.to_string())
}

/// The two filters for a process whose pid is `own_pid`: calls denied with
/// `EPERM`, and `clone3` with `ENOSYS`.
///
/// # Errors
/// The architecture is not supported, or a filter does not compile.
pub fn filters(own_pid: u32) -> Result<[BpfProgram; 2], String> {
    let arch = target_arch().ok_or_else(|| {
        format!(
            "seccomp filters are not supported on {}",
            std::env::consts::ARCH
        )
    })?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
        DENIED.iter().map(|(nr, _)| (*nr, Vec::new())).collect();
    for (nr, _) in SELF_ONLY {
        rules.insert(*nr, vec![rule(other_process(0, own_pid)?)?]);
    }
    // prlimit64(pid, resource, new, old): reading another's limits is harmless.
    let mut set_other = other_process(0, own_pid)?;
    set_other.push(arg(2, SeccompCmpArgLen::Qword, SeccompCmpOp::Ne, 0)?);
    rules.insert(libc::SYS_prlimit64, vec![rule(set_other)?]);
    // setpriority(which, who, prio) and ioprio_set(which, who, prio): `who` 0 is
    // the caller, its process group or its uid, so a whole uid is refused first.
    for (nr, whole_user) in [
        (libc::SYS_setpriority, PRIO_USER),
        (libc::SYS_ioprio_set, IOPRIO_WHO_USER),
    ] {
        rules.insert(
            nr,
            vec![
                rule(vec![cond(SeccompCmpOp::Eq, whole_user)?])?,
                rule(other_process(1, own_pid)?)?,
            ],
        );
    }
    let mut ioctl_rules = Vec::new();
    for request in TERMINAL_INPUT {
        // `libc::Ioctl` is `c_ulong`: 64 bits on every target filters are built for.
        let request: u64 = *request;
        ioctl_rules.push(rule(vec![arg(
            1,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Eq,
            request,
        )?])?);
    }
    rules.insert(libc::SYS_ioctl, ioctl_rules);
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
    for filter in filters(std::process::id())? {
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
            let [main, clone3] = filters(4242).unwrap();
            assert!(
                main.len() > DENIED.len(),
                "one check per denied call at least"
            );
            assert!(!clone3.is_empty());
        }
    }
}
