//! `arena bench sandbox`: what each isolation layer (`referee::bot::sandbox`) adds
//! to starting a bot, the
//! cost paid once per game with `processes = "per-game"` (and once per bot
//! otherwise). One start = spawn, handshake (`uttt 1` → `ready`), `quit`, reap and
//! (with a dedicated uid) the sweep, with the built-in instant bot (`arena
//! __instant`, a compiled program).
//!
//! Cases are cumulative stacks, measured in alternating rounds so a burst of load
//! on the machine hits all of them alike; medians are compared with `none`.

use std::path::Path;
use std::time::{Duration, Instant};

use referee::bot::sandbox::{HostSupport, Layer, LayerSet, SandboxMode, SandboxRequest, plan};
use referee::bot::{BotCommand, BotSession};

/// Rounds of alternating measurements.
const ROUNDS: usize = 5;

/// The stacks measured, weakest first: none, the launcher's limits alone, then with
/// a cgroup, a uid of its own, Landlock and seccomp, bwrap, and everything.
fn cases(available: LayerSet) -> Vec<(String, LayerSet)> {
    let user = if available.contains(Layer::User) {
        LayerSet::EMPTY.with(Layer::User)
    } else {
        LayerSet::EMPTY
    };
    let base = user.with(Layer::Rlimits);
    let confined = base.with(Layer::Landlock).with(Layer::Seccomp);
    let launcher_only = LayerSet::EMPTY.with(Layer::Rlimits);
    let mut cases: Vec<(String, LayerSet)> = vec![("none".into(), LayerSet::EMPTY)];
    if base != launcher_only {
        cases.push((launcher_only.names(), launcher_only));
    }
    let with_cgroup = launcher_only.with(Layer::Cgroup);
    let everything = confined.with(Layer::Bwrap).with(Layer::Cgroup);
    cases.extend([
        (with_cgroup.names(), with_cgroup),
        (base.names(), base),
        (confined.names(), confined),
        (
            confined.with(Layer::Bwrap).names(),
            confined.with(Layer::Bwrap),
        ),
        (everything.names(), everything),
    ]);
    cases
}

/// Runs the benchmark with `starts` starts per case and round.
///
/// # Errors
/// The runtime could not start or a bot failed to start.
pub fn run(exe: &Path, starts: u32) -> anyhow::Result<()> {
    let host = HostSupport::detect(exe);
    let available = host.available();
    let mut commands = Vec::new();
    for (label, layers) in &cases(available) {
        if let Some(missing) = layers.iter().find(|l| !available.contains(*l)) {
            crate::say!("{label}: skipped ({missing} is not available here; see arena doctor)");
            continue;
        }
        let mut command = BotCommand::new(exe);
        command.args = vec!["__instant".into()];
        command.launcher = Some(exe.to_path_buf());
        let mode = if layers.is_empty() {
            SandboxMode::None
        } else {
            SandboxMode::Exactly(*layers)
        };
        command.sandbox = SandboxRequest {
            mode,
            read_only: Vec::new(),
        };
        command.plan = Some(plan(&host, &command.sandbox, &command, "bench")?);
        commands.push((label.clone(), command, Vec::new()));
    }
    let runtime = tokio::runtime::Runtime::new()?;
    for _ in 0..ROUNDS {
        for (_, command, samples) in &mut commands {
            for _ in 0..starts {
                let started = Instant::now();
                let session =
                    runtime.block_on(BotSession::start(command, Duration::from_secs(10)))?;
                runtime.block_on(session.quit());
                samples.push(started.elapsed());
            }
        }
    }
    crate::say!(
        "bot start-up (spawn, handshake, quit, reap): medians of {} starts per case, {ROUNDS} alternating rounds",
        ROUNDS * starts as usize
    );
    let mut baseline = None;
    for (label, _, samples) in &mut commands {
        let ms = super::median(samples).as_secs_f64() * 1e3;
        let base = *baseline.get_or_insert(ms);
        crate::say!("  {label:<44} {ms:7.2} ms  ({:.2}x none)", ms / base);
    }
    Ok(())
}
