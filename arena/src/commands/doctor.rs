//! `arena doctor`: what this machine supports for isolating bots, and why not;
//! with bots (`arena doctor "python3 bot.py" …` or `--config FILE`), how each of
//! them would run here, above all whether it gets a uid of its own.
//!
//! Text output, one line per layer (stable, for people and `grep`):
//!
//! ```text
//! sandbox layers on this machine (uid 0, Linux 6.18.44):
//!   yes  rlimits   memory of the whole process tree (…), CPU seconds (soft = hard), file size, open files; no core dumps
//!   no   cgroup    no cgroup v2 here (…)
//! auto uses: rlimits,user,landlock,seccomp,bwrap
//! strict needs: rlimits,user,landlock,seccomp,bwrap: available
//! bots under their sandbox modes here:
//!   alice  auto: rlimits,user,landlock,seccomp,bwrap; own uid: yes; strict: ok
//!   carol  auto: refused: bot 'carol': sandbox auto needs user, but the bot's uid could not run it: …; strict: refused: …
//! left out bob: /class/students/bob: its command names ../alice/bot.py, outside its folder: …
//! skipped the hidden folder /class/students/.old (…): rename it to take part
//! games at once by default: 2 (2 CPUs online, 2 in this process's CPU affinity, no cgroup CPU quota)
//! ```
//!
//! With `--config`, the submissions (bots from a glob) are planned as they run:
//! from copies of their folders, made here in a temporary directory, and the
//! submissions the tournament would leave out before any game (their folder,
//! their command or their name) are listed with why, as are hidden folders.
//!
//! `--json` prints `{"uid", "kernel", "layers": [{"layer", "available", "detail"}],
//! "auto": [...], "strict_ready": bool, "strict_missing": [...], "bots": [{"name",
//! "mode", "layers", "own_uid", "runs_as_root", "refusal", "strict_refusal"}],
//! "left_out": [{"name", "why"}], "hidden": [path…], "concurrency": {"default",
//! "online", "affinity", "quota"}}` (`bots` empty without bots).

use anyhow::Context as _;
use referee::bot::sandbox::{HostSupport, LayerSet, SandboxMode, SandboxRequest, plan};
use serde::Serialize;

use crate::cli::DoctorArgs;
use crate::exit_codes::{self, Code};
use crate::results::manifest::LayerReport;
use crate::tournament::bot_spec::{BotSpec, Resolver};
use crate::tournament::build::{LeftOut, hidden_line, stage_copies};
use crate::tournament::isolation::{self, bot_isolation, host_report, strict_layers};

#[derive(Debug, Serialize)]
struct Doctor {
    uid: u32,
    kernel: String,
    layers: Vec<LayerReport>,
    auto: Vec<String>,
    strict_ready: bool,
    strict_missing: Vec<String>,
    bots: Vec<BotDoctor>,
    left_out: Vec<LeftOutDoctor>,
    hidden: Vec<String>,
    concurrency: Concurrency,
    clock: ClockDoctor,
}

/// What this machine gives the clocks, and what the clock `auto` uses
/// guarantees here.
#[derive(Debug, Serialize)]
struct ClockDoctor {
    per_task_schedstat: bool,
    /// A cgroup v2 group per bot whose `cpu.stat` counts every process a bot
    /// starts, exited and escaped ones included.
    cgroup_per_bot: bool,
    /// Why there is none, with the fix.
    cgroup_per_bot_missing: Option<String>,
    cpu_pressure: bool,
    auto: String,
    /// What `auto`'s clock guarantees here, in words.
    guarantee: String,
}

impl ClockDoctor {
    fn detect() -> ClockDoctor {
        let signals = referee::bot::schedstat::Signals::detect();
        let support = referee::bot::charge::ClockSupport::detect();
        ClockDoctor {
            per_task_schedstat: support.waits,
            cgroup_per_bot: support.whole_cpu.is_ok(),
            cgroup_per_bot_missing: support.whole_cpu.clone().err(),
            cpu_pressure: signals.pressure,
            auto: support.auto().to_string(),
            guarantee: support.guarantee(),
        }
    }

    /// "clock: per-task schedstat yes, a cgroup per bot yes, /proc/pressure/cpu
    /// yes; --clock auto uses the fair clock: …".
    fn line(&self) -> String {
        let yes = |b: bool| if b { "yes" } else { "no" };
        format!(
            "clock: per-task schedstat {}, a cgroup per bot {}, /proc/pressure/cpu {}; --clock auto uses the {} clock: {}",
            yes(self.per_task_schedstat),
            yes(self.cgroup_per_bot),
            yes(self.cpu_pressure),
            self.auto,
            self.guarantee
                .split_once(": ")
                .map_or(self.guarantee.as_str(), |(_, words)| words),
        )
    }
}

/// The games a run plays at once by default here, and why.
#[derive(Debug, Serialize)]
struct Concurrency {
    default: usize,
    online: usize,
    affinity: Option<usize>,
    /// The cgroup CPU quota in CPUs.
    quota: Option<f64>,
}

/// A submission a tournament would leave out before any game.
#[derive(Debug, Serialize)]
struct LeftOutDoctor {
    name: String,
    why: String,
}

/// The bots to check, what a tournament file leaves out, and the copies its
/// submissions are planned against (removed when dropped).
struct Lineup {
    specs: Vec<BotSpec>,
    left_out: Vec<LeftOut>,
    hidden: Vec<std::path::PathBuf>,
    _copies: Option<tempfile::TempDir>,
}

/// How one bot would run here.
#[derive(Debug, Serialize)]
struct BotDoctor {
    name: String,
    mode: String,
    /// The layers, or empty when its mode refuses to start it here.
    layers: Vec<String>,
    /// Whether it gets a uid of its own.
    own_uid: bool,
    /// Why it would run as root, and the fix.
    runs_as_root: Option<String>,
    /// Why its own mode refuses to start it here.
    refusal: Option<String>,
    /// Why `strict` would refuse it (`null`: strict runs it).
    strict_refusal: Option<String>,
}

fn kernel() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}

/// The bots named on the command line or in `--config`, each with its mode;
/// a file's bots that run from copies pointed at copies made now.
fn bots(args: &DoctorArgs, exe: &std::path::Path) -> Result<Lineup, String> {
    let mut lineup = match &args.config {
        Some(path) => {
            let mut tournament =
                crate::tournament::config::load(path, exe).map_err(|e| e.to_string())?;
            let copies = tempfile::Builder::new()
                .prefix("arena-doctor-")
                .tempdir()
                .map_err(|e| format!("cannot make a directory for the copies: {e}"))?;
            // Where the bots' uids can reach it, as a results directory must be.
            let _ = std::fs::set_permissions(
                copies.path(),
                std::os::unix::fs::PermissionsExt::from_mode(0o755),
            );
            stage_copies(&mut tournament, copies.path())?;
            Lineup {
                specs: tournament.entrants.into_iter().map(|e| e.spec).collect(),
                left_out: tournament.left_out,
                hidden: tournament.hidden,
                _copies: Some(copies),
            }
        }
        None => {
            let resolver = Resolver::from_env()
                .map_err(|e| format!("cannot find the arena executable: {e}"))?;
            Lineup {
                specs: args
                    .bots
                    .iter()
                    .map(|raw| resolver.resolve(raw).map_err(|e| e.to_string()))
                    .collect::<Result<_, _>>()?,
                left_out: Vec::new(),
                hidden: Vec::new(),
                _copies: None,
            }
        }
    };
    if let Some(mode) = args.sandbox {
        for spec in &mut lineup.specs {
            spec.command.sandbox.mode = mode;
        }
    }
    Ok(lineup)
}

fn check_bot(host: &HostSupport, spec: &BotSpec) -> BotDoctor {
    let command = &spec.command;
    let strict = SandboxRequest {
        mode: SandboxMode::Strict,
        ..command.sandbox.clone()
    };
    let strict_refusal = plan(host, &strict, command, &spec.name)
        .err()
        .map(|e| e.to_string());
    let mode = command.sandbox.mode;
    match plan(host, &command.sandbox, command, &spec.name) {
        Ok(planned) => {
            let report = bot_isolation(mode, &planned);
            BotDoctor {
                name: spec.name.clone(),
                mode: report.mode,
                layers: report.layers,
                own_uid: report.own_uid,
                runs_as_root: report.runs_as_root,
                refusal: None,
                strict_refusal,
            }
        }
        Err(e) => BotDoctor {
            name: spec.name.clone(),
            mode: mode.to_string(),
            layers: Vec::new(),
            own_uid: false,
            runs_as_root: None,
            refusal: Some(e.to_string()),
            strict_refusal,
        },
    }
}

/// Runs `arena doctor`. Exit code 0 whatever it finds: a missing layer is
/// information, not a failure (`strict` is where it becomes one). A bot spec or
/// file that cannot be read is a usage error (2).
///
/// # Errors
/// The arena executable cannot be located.
pub fn run(args: &DoctorArgs) -> anyhow::Result<Code> {
    let exe = std::env::current_exe().context("locating the arena executable")?;
    let lineup = match bots(args, &exe) {
        Ok(lineup) => lineup,
        Err(message) => return Ok(super::usage(&message)),
    };
    let host = isolation::detect(&exe);
    let cores = crate::cores::Cores::detect();
    let strict = strict_layers(&host);
    let available = host.available();
    let doctor = Doctor {
        uid: nix::unistd::geteuid().as_raw(),
        kernel: kernel(),
        layers: host_report(&host),
        auto: available.iter().map(|l| l.name().to_string()).collect(),
        strict_ready: strict.iter().all(|l| available.contains(l)),
        strict_missing: strict
            .iter()
            .filter(|l| !available.contains(*l))
            .map(|l| l.name().to_string())
            .collect(),
        bots: lineup.specs.iter().map(|s| check_bot(&host, s)).collect(),
        left_out: lineup
            .left_out
            .iter()
            .map(|l| LeftOutDoctor {
                name: l.name.clone(),
                why: l.why.clone(),
            })
            .collect(),
        hidden: lineup
            .hidden
            .iter()
            .map(|d| d.display().to_string())
            .collect(),
        concurrency: Concurrency {
            default: cores.usable(),
            online: cores.online,
            affinity: cores.affinity,
            quota: cores.quota,
        },
        clock: ClockDoctor::detect(),
    };
    if args.json {
        crate::say!("{}", serde_json::to_string_pretty(&doctor)?);
    } else {
        print_text(&doctor, available, strict);
        crate::say!("games at once by default: {}", cores.reckoning());
    }
    Ok(exit_codes::OK)
}

/// The text form (see the module's documentation).
fn print_text(doctor: &Doctor, available: LayerSet, strict: LayerSet) {
    crate::say!(
        "sandbox layers on this machine (uid {}, Linux {}):",
        doctor.uid,
        doctor.kernel
    );
    crate::say!(
        "  always   own process group, clean environment, private scratch directory removed after, group killed and reaped, no capabilities, no inherited descriptors"
    );
    for l in &doctor.layers {
        crate::say!(
            "  {:<4} {:<9} {}",
            if l.available { "yes" } else { "no" },
            l.layer,
            l.detail
        );
    }
    crate::say!("auto uses: {}", available.names());
    crate::say!("{}", doctor.clock.line());
    if doctor.strict_ready {
        crate::say!("strict needs: {}: available", strict.names());
    } else {
        crate::say!(
            "strict needs: {}: missing {}",
            strict.names(),
            doctor.strict_missing.join(", ")
        );
    }
    if !doctor.bots.is_empty() {
        crate::say!("bots under their sandbox modes here:");
    }
    for bot in &doctor.bots {
        crate::say!("  {}", bot_line(bot));
    }
    for left in &doctor.left_out {
        crate::say!("left out {}: {}", left.name, left.why);
    }
    for dir in &doctor.hidden {
        crate::say!("{}", hidden_line(std::path::Path::new(dir)));
    }
}

/// "alice  auto: rlimits,user; own uid: yes; strict: ok".
fn bot_line(bot: &BotDoctor) -> String {
    let how = match &bot.refusal {
        Some(why) => format!("{}: refused: {why}", bot.mode),
        None => {
            let layers = if bot.layers.is_empty() {
                "no layers".to_string()
            } else {
                bot.layers.join(",")
            };
            let uid = match (&bot.runs_as_root, bot.own_uid) {
                (Some(why), _) => format!("own uid: NO, runs as root: {why}"),
                (None, true) => "own uid: yes".to_string(),
                (None, false) => "own uid: no (runs under your uid)".to_string(),
            };
            format!("{}: {layers}; {uid}", bot.mode)
        }
    };
    let strict = match &bot.strict_refusal {
        Some(why) => format!("strict: refused: {why}"),
        None => "strict: ok".to_string(),
    };
    format!("{}  {how}; {strict}", bot.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bot_line_says_whether_it_gets_its_own_uid_and_why_not() {
        let bot = BotDoctor {
            name: "carol".into(),
            mode: "auto".into(),
            layers: vec!["rlimits".into(), "landlock".into()],
            own_uid: false,
            runs_as_root: Some(
                "its files are closed to other uids: /root is not searchable".into(),
            ),
            refusal: None,
            strict_refusal: Some("bot 'carol': sandbox strict needs user, but …".into()),
        };
        assert_eq!(
            bot_line(&bot),
            "carol  auto: rlimits,landlock; own uid: NO, runs as root: its files are closed to other uids: /root is not searchable; strict: refused: bot 'carol': sandbox strict needs user, but …"
        );
        let fine = BotDoctor {
            name: "alice".into(),
            layers: vec!["rlimits".into(), "user".into()],
            own_uid: true,
            runs_as_root: None,
            strict_refusal: None,
            ..bot
        };
        assert_eq!(
            bot_line(&fine),
            "alice  auto: rlimits,user; own uid: yes; strict: ok"
        );
    }
}
