//! `arena doctor`: what this machine supports for isolating bots, and why not.
//!
//! Text output, one line per layer (stable, for people and `grep`):
//!
//! ```text
//! sandbox layers on this machine (uid 0, Linux 6.18.44):
//!   yes  rlimits   memory, CPU seconds (soft = hard), file size, open files; no core dumps
//!   no   cgroup    no cgroup v2 here (…)
//! auto uses: rlimits,user,landlock,seccomp,bwrap
//! strict needs: rlimits,user,landlock,seccomp,bwrap: available
//! ```
//!
//! `--json` prints `{"uid", "kernel", "layers": [{"layer", "available", "detail"}],
//! "auto": [...], "strict_ready": bool, "strict_missing": [...]}`.

use anyhow::Context as _;
use referee::bot::sandbox::HostSupport;
use serde::Serialize;

use crate::cli::DoctorArgs;
use crate::exit_codes::{self, Code};
use crate::sandbox::{LayerReport, host_report, strict_layers};

#[derive(Debug, Serialize)]
struct Doctor {
    uid: u32,
    kernel: String,
    layers: Vec<LayerReport>,
    auto: Vec<String>,
    strict_ready: bool,
    strict_missing: Vec<String>,
}

fn kernel() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}

/// Runs `arena doctor`. Exit code 0 either way: a missing layer is information,
/// not a failure (`strict` is where it becomes one).
///
/// # Errors
/// The arena executable cannot be located.
pub fn run(args: &DoctorArgs) -> anyhow::Result<Code> {
    let exe = std::env::current_exe().context("locating the arena executable")?;
    let host = HostSupport::detect(&exe);
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
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&doctor)?);
        return Ok(exit_codes::OK);
    }
    println!(
        "sandbox layers on this machine (uid {}, Linux {}):",
        doctor.uid, doctor.kernel
    );
    println!(
        "  always   own process group, clean environment, private scratch directory removed after, group killed and reaped"
    );
    for l in &doctor.layers {
        println!(
            "  {:<4} {:<9} {}",
            if l.available { "yes" } else { "no" },
            l.layer,
            l.detail
        );
    }
    println!("auto uses: {}", available.names());
    if doctor.strict_ready {
        println!("strict needs: {}: available", strict.names());
    } else {
        println!(
            "strict needs: {}: missing {}",
            strict.names(),
            doctor.strict_missing.join(", ")
        );
    }
    Ok(exit_codes::OK)
}
