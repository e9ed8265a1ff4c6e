//! The cores this process may use, and why that many: the CPUs online, the ones
//! its CPU affinity allows (`taskset`, a Slurm or container cpuset), and the CPU
//! quota of its cgroup (`docker --cpus`, Kubernetes limits, systemd `CPUQuota`).
//! A quota of 1.5 CPUs is one usable core, as Rust's standard library counts it:
//! two busy games would share one and a half cores and lose time to each other.
//!
//! The default concurrency is one game per usable core ([`crate::defaults`]);
//! `arena doctor` prints the reckoning.

use std::path::{Path, PathBuf};

/// What limits the cores this process may use.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cores {
    /// CPUs online.
    pub online: usize,
    /// CPUs in this process's affinity mask, if it could be read.
    pub affinity: Option<usize>,
    /// The cgroup CPU quota in CPUs (quota / period), if there is one.
    pub quota: Option<f64>,
}

impl Cores {
    /// This process's cores, read from the system.
    pub fn detect() -> Cores {
        let online = nix::unistd::sysconf(nix::unistd::SysconfVar::_NPROCESSORS_ONLN)
            .ok()
            .flatten()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n > 0)
            .unwrap_or(1);
        Cores {
            online,
            affinity: affinity(),
            quota: cgroup_quota(Path::new("/proc/self/cgroup"), Path::new("/sys/fs/cgroup")),
        }
    }

    /// The cores a run may keep busy: the fewest of the three, at least one.
    pub fn usable(&self) -> usize {
        let mut cores = self.affinity.unwrap_or(self.online);
        if let Some(quota) = self.quota {
            cores = cores.min(quota.floor() as usize);
        }
        cores.max(1)
    }

    /// "2 (2 CPUs online, 2 in this process's affinity, no cgroup CPU quota)".
    pub fn reckoning(&self) -> String {
        let affinity = self.affinity.map_or_else(
            || "affinity unknown".to_string(),
            |n| format!("{n} in this process's CPU affinity"),
        );
        let quota = self.quota.map_or_else(
            || "no cgroup CPU quota".to_string(),
            |q| format!("a cgroup CPU quota of {q:.2} CPUs"),
        );
        format!(
            "{} ({} CPUs online, {affinity}, {quota})",
            self.usable(),
            self.online
        )
    }
}

/// CPUs in this process's affinity mask.
fn affinity() -> Option<usize> {
    let set = nix::sched::sched_getaffinity(nix::unistd::Pid::from_raw(0)).ok()?;
    let count = (0..nix::sched::CpuSet::count())
        .filter(|&cpu| set.is_set(cpu).unwrap_or(false))
        .count();
    (count > 0).then_some(count)
}

/// The tightest CPU quota on the way from this process's cgroup up to the root,
/// in CPUs: cgroup v2 (`cpu.max`) or v1 (`cpu.cfs_quota_us` / `cpu.cfs_period_us`).
/// `membership` is `/proc/self/cgroup`, `root` where the hierarchies are mounted.
fn cgroup_quota(membership: &Path, root: &Path) -> Option<f64> {
    let text = std::fs::read_to_string(membership).ok()?;
    let mut tightest: Option<f64> = None;
    for line in text.lines() {
        // "0::/path" (v2) or "4:cpu,cpuacct:/path" (v1).
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let found = if controllers.is_empty() {
            walk_up(root, path, |dir| read_v2(&dir.join("cpu.max")))
        } else if controllers.split(',').any(|c| c == "cpu") {
            let mount = [controllers, "cpu", "cpu,cpuacct", "cpuacct,cpu"]
                .iter()
                .map(|m| root.join(m))
                .find(|m| m.join("cpu.cfs_quota_us").exists());
            mount.and_then(|m| walk_up(&m, path, read_v1))
        } else {
            None
        };
        if let Some(q) = found {
            tightest = Some(tightest.map_or(q, |t| t.min(q)));
        }
    }
    tightest
}

/// The smallest quota of the cgroup at `path` under `mount` and its ancestors.
/// A path that is not there (the process sees its cgroup namespace's root as
/// `mount`) is looked at from the mount down only.
fn walk_up(mount: &Path, path: &str, read: impl Fn(&Path) -> Option<f64>) -> Option<f64> {
    let mut dir: PathBuf = mount.join(path.trim_start_matches('/'));
    if !dir.exists() {
        dir = mount.to_path_buf();
    }
    let mut tightest: Option<f64> = None;
    loop {
        if let Some(q) = read(&dir) {
            tightest = Some(tightest.map_or(q, |t| t.min(q)));
        }
        if dir == mount {
            return tightest;
        }
        match dir.parent() {
            Some(parent) if parent.starts_with(mount) => dir = parent.to_path_buf(),
            _ => return tightest,
        }
    }
}

/// `cpu.max`: "max 100000" (none) or "150000 100000" (1.5 CPUs).
fn read_v2(file: &Path) -> Option<f64> {
    let text = std::fs::read_to_string(file).ok()?;
    let mut words = text.split_whitespace();
    let quota: f64 = words.next()?.parse().ok()?;
    let period: f64 = words.next()?.parse().ok()?;
    (quota > 0.0 && period > 0.0).then(|| quota / period)
}

/// `cpu.cfs_quota_us` (-1: none) over `cpu.cfs_period_us`.
fn read_v1(dir: &Path) -> Option<f64> {
    let read = |name: &str| -> Option<f64> {
        std::fs::read_to_string(dir.join(name))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    let (quota, period) = (read("cpu.cfs_quota_us")?, read("cpu.cfs_period_us")?);
    (quota > 0.0 && period > 0.0).then(|| quota / period)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn the_fewest_of_online_affinity_and_quota_is_usable_and_at_least_one() {
        let cores = |online, affinity, quota| Cores {
            online,
            affinity,
            quota,
        };
        assert_eq!(cores(8, Some(8), None).usable(), 8);
        assert_eq!(cores(8, Some(3), None).usable(), 3);
        assert_eq!(cores(8, None, Some(2.5)).usable(), 2);
        assert_eq!(cores(8, Some(4), Some(0.5)).usable(), 1);
        assert_eq!(
            cores(8, Some(4), Some(2.0)).reckoning(),
            "2 (8 CPUs online, 4 in this process's CPU affinity, a cgroup CPU quota of 2.00 CPUs)"
        );
        let here = Cores::detect();
        assert!(here.usable() >= 1 && here.usable() <= here.online);
    }

    #[test]
    fn a_cgroup_v2_quota_is_the_tightest_on_the_way_up() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("fs");
        write(&root.join("cpu.max"), "max 100000\n");
        write(&root.join("job/cpu.max"), "300000 100000\n");
        write(&root.join("job/step/cpu.max"), "max 100000\n");
        let membership = dir.path().join("cgroup");
        write(&membership, "0::/job/step\n");
        assert_eq!(cgroup_quota(&membership, &root), Some(3.0));
        write(&membership, "0::/\n");
        assert_eq!(cgroup_quota(&membership, &root), None);
        // A namespace whose root is the process's own cgroup.
        write(&membership, "0::/elsewhere\n");
        write(&root.join("cpu.max"), "150000 100000\n");
        assert_eq!(cgroup_quota(&membership, &root), Some(1.5));
    }

    #[test]
    fn a_cgroup_v1_quota_is_read_from_the_cpu_hierarchy() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("fs");
        let mount = root.join("cpu,cpuacct");
        write(&mount.join("cpu.cfs_quota_us"), "-1\n");
        write(&mount.join("cpu.cfs_period_us"), "100000\n");
        write(&mount.join("box/cpu.cfs_quota_us"), "200000\n");
        write(&mount.join("box/cpu.cfs_period_us"), "100000\n");
        let membership = dir.path().join("cgroup");
        write(&membership, "4:memory:/box\n3:cpu,cpuacct:/box\n");
        assert_eq!(cgroup_quota(&membership, &root), Some(2.0));
        write(&membership, "3:cpu,cpuacct:/\n");
        assert_eq!(cgroup_quota(&membership, &root), None);
    }
}
