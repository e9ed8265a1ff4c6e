//! A real single-node Slurm cluster for the tests: `munged`, `slurmctld -D` and
//! `slurmd -D` as child processes of the test, every file they read or write (config,
//! munge key and socket, state, spool, logs, pid files) in one temporary directory.
//! Clients find it through `SLURM_CONF` and the munge socket named in `AuthInfo`, so
//! nothing under /etc, /var or /run is read or changed, and two clusters can run side
//! by side on free ports.
//!
//! Every process of the cluster carries `UTTT_CLUSTER_TAG=<tag>` in its environment:
//! the daemons get it at start, `slurmstepd` inherits it from slurmd, and a job's
//! processes from the environment `sbatch` passes on. Slurm starts `slurmstepd` in a
//! session of its own, so killing the daemons' process groups would miss it; the tag
//! is how [`Cluster::shutdown`] finds whatever is left and proves nothing is.
//!
//! The helpers (submit, list an array's tasks, wait, cancel, requeue) are the pieces a
//! preemption test needs too: find a running task with [`Cluster::running_task`],
//! `scancel --signal=TERM` it with [`Cluster::scancel`], [`Cluster::requeue`] it and
//! wait again with [`Cluster::wait_for_array`].

use std::cell::RefCell;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::io::Read as _;
use std::os::unix::fs::PermissionsExt as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;

/// The environment variable that marks every process of one cluster.
pub const TAG_VAR: &str = "UTTT_CLUSTER_TAG";

/// The one node's name (slurmd is started with `-N` so the host name does not matter).
pub const NODE: &str = "uttt-node";

/// How long to wait for anything the cluster does before calling it hung. Only a hang
/// guard: nothing is asserted about how fast it goes.
pub const HANG_GUARD: Duration = Duration::from_secs(180);

/// Why a cluster could not be had.
#[derive(Debug)]
pub enum StartError {
    /// This machine cannot run one (a program is missing, or not root). The tests
    /// that start one are ignored where `tests/build.rs` found so; here it means the
    /// machine changed since they were built.
    Unavailable(String),
    /// It should have started and did not: the test fails with this (daemon logs
    /// included).
    Failed(String),
}

pub use crate::prerequisites::find_program;

/// Why this machine cannot run a test cluster, if it cannot.
pub fn unavailable() -> Option<String> {
    crate::prerequisites::slurm()
        .and_then(|()| {
            crate::prerequisites::root()
                .map_err(|why| format!("slurmd must run as root to start jobs: {why}"))
        })
        .err()
}

/// One daemon of the cluster.
#[derive(Debug)]
struct Daemon {
    name: &'static str,
    child: Child,
}

/// One record of `scontrol show job`: a job, or one task of a job array (a record
/// whose `array_task` is a range such as `3-4` stands for tasks not started yet).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Task {
    /// `JobId`: this task's own job id.
    pub job_id: u32,
    /// `ArrayTaskId`: its index in the array (`None` for a job that is no array).
    pub array_task: Option<String>,
    /// `JobState`, e.g. `PENDING`, `RUNNING`, `COMPLETED`.
    pub state: String,
    /// `ExitCode`, `status:signal`.
    pub exit_code: String,
    /// `Restarts`: how often it was requeued.
    pub restarts: u32,
    /// `Reason`.
    pub reason: String,
}

impl Task {
    /// Whether Slurm is done with it (it may still be requeued by hand).
    pub fn finished(&self) -> bool {
        matches!(
            self.state.as_str(),
            "COMPLETED"
                | "FAILED"
                | "CANCELLED"
                | "TIMEOUT"
                | "NODE_FAIL"
                | "PREEMPTED"
                | "OUT_OF_MEMORY"
                | "BOOT_FAIL"
                | "DEADLINE"
        )
    }

    /// The array index, if it is one task of an array.
    pub fn index(&self) -> Option<u32> {
        self.array_task.as_deref().and_then(|t| t.parse().ok())
    }
}

/// Parses `scontrol -o show job` output: one record per line, `Key=Value` words.
pub fn parse_jobs(text: &str) -> Vec<Task> {
    text.lines()
        .filter_map(|line| {
            let field = |key: &str| {
                line.split_whitespace()
                    .find_map(|word| word.strip_prefix(key)?.strip_prefix('='))
                    .map(str::to_string)
            };
            Some(Task {
                job_id: field("JobId")?.parse().ok()?,
                array_task: field("ArrayTaskId"),
                state: field("JobState")?,
                exit_code: field("ExitCode").unwrap_or_default(),
                restarts: field("Restarts").and_then(|r| r.parse().ok()).unwrap_or(0),
                reason: field("Reason").unwrap_or_default(),
            })
        })
        .collect()
}

/// A running single-node cluster. Dropping it kills everything it started; call
/// [`Cluster::shutdown`] to stop it in order and learn whether anything was left.
#[derive(Debug)]
pub struct Cluster {
    dir: tempfile::TempDir,
    conf: PathBuf,
    tag: String,
    daemons: RefCell<Vec<Daemon>>,
    cpus: usize,
}

impl Cluster {
    /// Starts munged, slurmctld and slurmd and waits until the node is idle.
    ///
    /// # Errors
    /// [`StartError::Unavailable`] if this machine cannot run a cluster,
    /// [`StartError::Failed`] (with the daemons' logs) if one did not start.
    pub fn start() -> Result<Cluster, StartError> {
        if let Some(why) = unavailable() {
            return Err(StartError::Unavailable(why));
        }
        let failed = |what: &str, e: &dyn std::fmt::Display| {
            StartError::Failed(format!("setting up the cluster: {what}: {e}"))
        };
        let dir = tempfile::Builder::new()
            .prefix("uttt-slurm-")
            .tempdir()
            .map_err(|e| failed("temporary directory", &e))?;
        // munged refuses a socket in a directory that not everyone may enter.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
            .map_err(|e| failed("chmod 755", &e))?;
        for (sub, mode) in [
            ("munge", 0o700),
            ("run", 0o755),
            ("state", 0o700),
            ("spool", 0o755),
            ("log", 0o755),
        ] {
            let path = dir.path().join(sub);
            std::fs::create_dir(&path).map_err(|e| failed(sub, &e))?;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))
                .map_err(|e| failed(sub, &e))?;
        }
        let cpus = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        let mut cluster = Cluster {
            conf: dir.path().join("slurm.conf"),
            tag: crate::Tag::new().0.replace("uttt-test", "uttt-slurm"),
            dir,
            daemons: RefCell::new(Vec::new()),
            cpus,
        };
        match cluster.boot() {
            Ok(()) => Ok(cluster),
            Err(e) => Err(StartError::Failed(format!("{e}\n{}", cluster.logs()))),
        }
    }

    fn boot(&mut self) -> Result<(), String> {
        let d = self.dir.path().to_path_buf();
        // A munge key is random bytes; mungekey is not in every munge release.
        let mut key = vec![0u8; 1024];
        std::fs::File::open("/dev/urandom")
            .and_then(|mut f| f.read_exact(&mut key))
            .map_err(|e| format!("reading /dev/urandom: {e}"))?;
        let key_file = d.join("munge/munge.key");
        std::fs::write(&key_file, &key).map_err(|e| format!("writing the munge key: {e}"))?;
        std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o400))
            .map_err(|e| format!("chmod of the munge key: {e}"))?;
        let socket = d.join("run/munge.sock");
        self.spawn(
            "munged",
            &[
                "-F".into(),
                format!("--socket={}", socket.display()),
                format!("--key-file={}", key_file.display()),
                format!("--log-file={}", d.join("log/munged.log").display()),
                format!("--pid-file={}", d.join("run/munged.pid").display()),
                format!("--seed-file={}", d.join("munge/seed").display()),
            ],
        )?;
        self.wait_until("munged to open its socket", Duration::from_secs(60), |_| {
            Ok(socket.exists().then_some(()))
        })?;

        let (ctld_port, slurmd_port) = (free_port()?, free_port()?);
        std::fs::write(&self.conf, self.config(&socket, ctld_port, slurmd_port))
            .map_err(|e| format!("writing slurm.conf: {e}"))?;
        self.spawn("slurmctld", &["-D".into()])?;
        self.spawn("slurmd", &["-D".into(), "-N".into(), NODE.into()])?;
        self.wait_until("the node to be idle", HANG_GUARD, |c| {
            let out = c.client("scontrol", &["-o", "show", "node", NODE])?;
            Ok(out.contains("State=IDLE").then_some(()))
        })
    }

    /// slurm.conf for one node on localhost with this machine's CPUs: processes tracked
    /// by their parent ids (no cgroups, which a container may not delegate), no
    /// accounting (so no slurmdbd: `sacct` does not work, `scontrol show job` does).
    fn config(&self, socket: &Path, ctld_port: u16, slurmd_port: u16) -> String {
        let d = self.dir.path().display();
        format!(
            "# A single-node test cluster (tests/src/slurm.rs); everything under {d}.
ClusterName=uttt-test
SlurmctldHost=localhost
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# A requeued job may start again once its old credential has expired: Slurm
# delays it by cred_expire (120 s by default); a few seconds are enough here.
AuthInfo=socket={socket},cred_expire=5
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/run/slurmctld.pid
SlurmdPidFile={d}/run/slurmd.pid
SlurmctldLogFile={d}/log/slurmctld.log
SlurmdLogFile={d}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
# Start a batch job as soon as a CPU is free (the default may wait 3 s).
SchedulerParameters=batch_sched_delay=0
# Keep finished jobs visible to scontrol for the whole test.
MinJobAge=3600
ReturnToService=2
# The node is what this file says, whatever slurmd detects.
SlurmdParameters=config_overrides
NodeName={NODE} NodeHostname=localhost NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=test Nodes={NODE} Default=YES MaxTime=INFINITE State=UP
",
            socket = socket.display(),
            cpus = self.cpus
        )
    }

    /// Starts a daemon in a process group of its own, killed with the test's thread if
    /// the test process dies without dropping the cluster (`setpriv --pdeathsig`).
    fn spawn(&mut self, name: &'static str, args: &[String]) -> Result<(), String> {
        let program = find_program(name).ok_or_else(|| format!("{name} not found"))?;
        let output = self.dir.path().join(format!("log/{name}.out"));
        let file = std::fs::File::create(&output).map_err(|e| format!("{name} log: {e}"))?;
        let err = file.try_clone().map_err(|e| format!("{name} log: {e}"))?;
        let mut command = match find_program("setpriv") {
            Some(setpriv) => {
                let mut c = Command::new(setpriv);
                c.args(["--pdeathsig", "KILL", "--"]).arg(&program);
                c
            }
            None => Command::new(&program),
        };
        command
            .args(args)
            .envs(self.env())
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .stdout(file)
            .stderr(err)
            .process_group(0);
        let child = command
            .spawn()
            .map_err(|e| format!("starting {name}: {e}"))?;
        self.daemons.borrow_mut().push(Daemon { name, child });
        Ok(())
    }

    /// The environment every client and daemon of this cluster gets.
    pub fn env(&self) -> Vec<(OsString, OsString)> {
        vec![
            ("SLURM_CONF".into(), self.conf.clone().into_os_string()),
            (TAG_VAR.into(), self.tag.clone().into()),
        ]
    }

    /// The cluster's directory (config, logs, state).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The tag in the environment of all its processes.
    pub fn tag(&self) -> &str {
        &self.tag
    }

    /// The CPUs of its one node.
    pub fn cpus(&self) -> usize {
        self.cpus
    }

    /// A client command (`sbatch`, `squeue`…) talking to this cluster.
    pub fn command(&self, program: &str) -> Command {
        let mut command = Command::new(find_program(program).unwrap_or_else(|| program.into()));
        command.envs(self.env()).stdin(Stdio::null());
        command
    }

    /// Runs a client and returns its standard output.
    ///
    /// # Errors
    /// It could not run or exited non-zero (its stderr in the message).
    pub fn client(&self, program: &str, args: &[&str]) -> Result<String, String> {
        let out = self
            .command(program)
            .args(args)
            .output()
            .map_err(|e| format!("running {program}: {e}"))?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(format!(
                "{program} {} failed ({}): {}{}",
                args.join(" "),
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    }

    /// `sbatch --parsable ARGS… SCRIPT` from `dir` with `env` added; the job id.
    ///
    /// # Errors
    /// sbatch failed or printed no job id.
    pub fn sbatch(
        &self,
        script: &Path,
        args: &[&str],
        env: &[(&str, OsString)],
        dir: &Path,
    ) -> Result<u32, String> {
        let out = self
            .command("sbatch")
            .arg("--parsable")
            .args(args)
            .arg(script)
            .envs(env.iter().map(|(k, v)| (*k, v)))
            .current_dir(dir)
            .output()
            .map_err(|e| format!("running sbatch: {e}"))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        // --parsable prints "JOBID" or "JOBID;CLUSTER".
        let id = stdout
            .trim()
            .split(';')
            .next()
            .and_then(|id| id.parse().ok());
        match id {
            Some(id) if out.status.success() => Ok(id),
            _ => Err(format!(
                "sbatch {} {} failed ({}): {stdout}{}",
                args.join(" "),
                script.display(),
                out.status,
                String::from_utf8_lossy(&out.stderr)
            )),
        }
    }

    /// The records of job `job` (an array job: one per task, plus one for the tasks
    /// not yet started).
    ///
    /// # Errors
    /// scontrol failed.
    pub fn tasks(&self, job: u32) -> Result<Vec<Task>, String> {
        self.client("scontrol", &["-o", "show", "job", &job.to_string()])
            .map(|text| parse_jobs(&text))
    }

    /// Waits until every task of array job `job` (`count` tasks) has finished;
    /// the tasks by index.
    ///
    /// # Errors
    /// It did not finish within [`HANG_GUARD`], or scontrol failed.
    pub fn wait_for_array(&self, job: u32, count: usize) -> Result<Vec<Task>, String> {
        self.wait_until(&format!("job array {job} to finish"), HANG_GUARD, |c| {
            let mut tasks = c.tasks(job)?;
            let done =
                tasks.len() == count && tasks.iter().all(|t| t.index().is_some() && t.finished());
            tasks.sort_by_key(Task::index);
            Ok(done.then_some(tasks))
        })
    }

    /// A task of array job `job` that is running, once one is.
    ///
    /// # Errors
    /// None ran within [`HANG_GUARD`].
    pub fn running_task(&self, job: u32) -> Result<Task, String> {
        self.wait_until(&format!("a task of job {job} to run"), HANG_GUARD, |c| {
            Ok(c.tasks(job)?.into_iter().find(|t| t.state == "RUNNING"))
        })
    }

    /// `scancel ARGS…`, e.g. `["--signal=TERM", "12"]`.
    ///
    /// # Errors
    /// scancel failed.
    pub fn scancel(&self, args: &[&str]) -> Result<(), String> {
        self.client("scancel", args).map(drop)
    }

    /// `scontrol requeue JOB` (a finished or cancelled task goes back to pending).
    ///
    /// # Errors
    /// scontrol failed.
    pub fn requeue(&self, job_id: u32) -> Result<(), String> {
        self.client("scontrol", &["requeue", &job_id.to_string()])
            .map(drop)
    }

    /// Polls `check` until it gives a value; an error names `what` after `limit`.
    ///
    /// # Errors
    /// `check` failed, or `limit` passed, or a daemon died meanwhile.
    pub fn wait_until<T>(
        &self,
        what: &str,
        limit: Duration,
        mut check: impl FnMut(&Cluster) -> Result<Option<T>, String>,
    ) -> Result<T, String> {
        let start = Instant::now();
        let mut last_error = String::new();
        loop {
            match check(self) {
                Ok(Some(value)) => return Ok(value),
                Ok(None) => {}
                // A client may fail while slurmctld starts: keep the message.
                Err(e) => last_error = e,
            }
            if let Some(dead) = self.dead_daemon() {
                return Err(format!("waiting for {what}: {dead}"));
            }
            if start.elapsed() > limit {
                return Err(format!(
                    "waiting for {what}: still not done after {} s (hang guard) {last_error}",
                    limit.as_secs()
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// A daemon that has exited, if one has.
    fn dead_daemon(&self) -> Option<String> {
        self.daemons
            .borrow_mut()
            .iter_mut()
            .find_map(|d| match d.child.try_wait() {
                Ok(Some(status)) => Some(format!("{} exited ({status})", d.name)),
                _ => None,
            })
    }

    /// The daemons' logs (the last lines of each), for failure messages.
    pub fn logs(&self) -> String {
        let mut text = String::new();
        let log = self.dir.path().join("log");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&log)
            .map(|entries| entries.filter_map(Result::ok).map(|e| e.path()).collect())
            .unwrap_or_default();
        files.sort();
        for file in files {
            let content = std::fs::read_to_string(&file).unwrap_or_default();
            let lines: Vec<&str> = content.lines().collect();
            let _ = writeln!(text, "---- {} (last 40 lines)", file.display());
            for line in &lines[lines.len().saturating_sub(40)..] {
                let _ = writeln!(text, "{line}");
            }
        }
        text
    }

    /// Live processes with this cluster's tag in their environment (pid, command).
    pub fn tagged_processes(&self) -> Vec<(i32, String)> {
        processes_with_env(&format!("{TAG_VAR}={}", self.tag))
    }

    /// Stops the cluster in order: cancels every job, waits for the queue to empty,
    /// `scontrol shutdown`, then SIGTERM to munged; whatever does not exit in time is
    /// killed. Then waits for every process of the cluster to be gone.
    ///
    /// # Errors
    /// A process was left behind (it is killed; the message lists it), or a daemon
    /// had to be killed, with the logs.
    pub fn shutdown(self) -> Result<(), String> {
        let mut problems = Vec::new();
        let queued = self
            .client("squeue", &["-h", "-o", "%A"])
            .unwrap_or_default();
        let jobs: Vec<&str> = queued.split_whitespace().collect();
        if !jobs.is_empty() {
            let _ = self.scancel(&jobs);
            let emptied = self.wait_until("the queue to empty", HANG_GUARD, |c| {
                let q = c.client("squeue", &["-h", "-o", "%A"])?;
                Ok(q.trim().is_empty().then_some(()))
            });
            if let Err(e) = emptied {
                problems.push(e);
            }
        }
        let _ = self.client("scontrol", &["shutdown"]);
        self.stop_daemons(&mut problems);
        // slurmstepd and the job's processes may take a moment to exit after slurmd.
        let deadline = Instant::now() + Duration::from_secs(10);
        while !self.tagged_processes().is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(100));
        }
        let left = self.tagged_processes();
        if !left.is_empty() {
            problems.push(format!("processes left behind: {left:?}"));
            kill_all(&left);
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(format!("{}\n{}", problems.join("\n"), self.logs()))
        }
    }

    /// Waits for slurmctld and slurmd to exit (after `scontrol shutdown`), ends munged
    /// with SIGTERM, and kills the process group of any daemon still running.
    fn stop_daemons(&self, problems: &mut Vec<String>) {
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut daemons = self.daemons.borrow_mut();
        for daemon in daemons.iter_mut() {
            if daemon.name == "munged" {
                let _ = killpg(pid_of(&daemon.child), Signal::SIGTERM);
            }
        }
        for daemon in daemons.iter_mut() {
            loop {
                if let Ok(Some(_)) = daemon.child.try_wait() {
                    break;
                }
                if Instant::now() > deadline {
                    problems.push(format!("{} did not exit: killed", daemon.name));
                    let _ = killpg(pid_of(&daemon.child), Signal::SIGKILL);
                    let _ = daemon.child.wait();
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            // Anything left in its process group goes with it.
            let _ = killpg(pid_of(&daemon.child), Signal::SIGKILL);
        }
        daemons.clear();
    }
}

impl Drop for Cluster {
    /// Without an orderly [`Cluster::shutdown`] (a failed test): kill everything.
    fn drop(&mut self) {
        for daemon in self.daemons.get_mut() {
            let _ = killpg(pid_of(&daemon.child), Signal::SIGKILL);
            let _ = daemon.child.wait();
        }
        kill_all(&self.tagged_processes());
    }
}

fn pid_of(child: &Child) -> Pid {
    Pid::from_raw(i32::try_from(child.id()).unwrap_or(i32::MAX))
}

fn kill_all(processes: &[(i32, String)]) {
    for (pid, _) in processes {
        let _ = kill(Pid::from_raw(*pid), Signal::SIGKILL);
    }
}

/// A TCP port on 127.0.0.1 that was free a moment ago.
fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("finding a free port: {e}"))
}

/// Live processes whose environment holds the entry `entry` (`NAME=value`), with
/// their command lines. Zombies have no environment and are not counted.
pub fn processes_with_env(entry: &str) -> Vec<(i32, String)> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<i32>().ok()))
        .filter(|pid| u32::try_from(*pid).is_ok_and(|p| p != std::process::id()))
        .filter_map(|pid| {
            let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
            let tagged = environ
                .split(|b| *b == 0)
                .any(|var| var == entry.as_bytes());
            tagged.then(|| {
                let raw = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                (pid, String::from_utf8_lossy(&raw).replace('\0', " "))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scontrol_records_parse_into_tasks() {
        let text = "JobId=7 ArrayJobId=5 ArrayTaskId=3 JobName=x UserId=root(0) JobState=COMPLETED Reason=None Requeue=1 Restarts=1 BatchFlag=1 ExitCode=0:0 Command=/a b\n\
                    JobId=5 ArrayJobId=5 ArrayTaskId=4-6 JobState=PENDING Reason=Resources Restarts=0 ExitCode=0:0\n";
        let tasks = parse_jobs(text);
        assert_eq!(
            tasks,
            vec![
                Task {
                    job_id: 7,
                    array_task: Some("3".into()),
                    state: "COMPLETED".into(),
                    exit_code: "0:0".into(),
                    restarts: 1,
                    reason: "None".into(),
                },
                Task {
                    job_id: 5,
                    array_task: Some("4-6".into()),
                    state: "PENDING".into(),
                    exit_code: "0:0".into(),
                    restarts: 0,
                    reason: "Resources".into(),
                },
            ]
        );
        assert!(tasks[0].finished() && !tasks[1].finished());
        assert_eq!((tasks[0].index(), tasks[1].index()), (Some(3), None));
    }
}
