//! `arena bench tournament`: the whole run, measured from outside. A round robin
//! of instant bots (`random`) is played by a real `arena tournament` process, as a
//! user runs it (results directory, recording, standings, `--quiet`), and watched
//! while it plays: every window of games, how many games a second it finished and
//! how much CPU the arena process itself spent per game (its own threads, not its
//! bots'; CPU time, not wall time, so other work on the machine does not blur the
//! figure); at the end its peak memory. Before it, in the same run, two floors:
//! `random` vs `random` through the runner alone, nothing recorded (what `arena
//! bench games` measures), and the runner alone with the run's own bots,
//! sandboxed as the tournament sandboxes them; the run's rate reads as a share
//! of each (the second tells the arena's own work from what its bot processes
//! cost).
//!
//! A flat run has the same CPU per game in its last window as in its first: the
//! arena's work per game does not grow with the games already played.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context as _;

use crate::cli::{BenchArgs, BenchProcesses};
use crate::defaults;
use crate::results::manifest::ProcessPolicy;
use crate::results::store::GAMES_FILE;

/// How often the running tournament is looked at.
const SAMPLE: Duration = Duration::from_millis(100);

/// The most games the floor plays (it is a rate, not a run).
const FLOOR_GAMES: u32 = 4000;

/// Runs the benchmark: for each process policy asked for, the floor, then the
/// whole run.
///
/// # Errors
/// The tournament could not be started or failed, or the floor's runner failed.
pub fn run(exe: &Path, args: &BenchArgs) -> anyhow::Result<()> {
    let games = args.games.unwrap_or(100_000);
    let concurrency = args.concurrency.unwrap_or_else(defaults::concurrency);
    let policies: &[ProcessPolicy] = match args.processes {
        BenchProcesses::Reuse => &[ProcessPolicy::Reuse],
        BenchProcesses::PerGame => &[ProcessPolicy::PerGame],
        BenchProcesses::Both => &[ProcessPolicy::Reuse, ProcessPolicy::PerGame],
    };
    let plan = Plan::new(args.bots, games);
    crate::say!(
        "{} instant bots (random), round robin, {} games per pairing: {} games, {concurrency} at once; \
         a line every {} games (load: the machine's 1-minute load average)",
        plan.bots,
        plan.per_pairing,
        plan.games(),
        args.window
    );
    for &policy in policies {
        let label = policy_words(policy);
        let floor_games = FLOOR_GAMES.min(games);
        let floor = super::runner_rate(None, 2, floor_games, concurrency, policy)?;
        crate::say!(
            "\n{label}: floor (`arena bench games`: random vs random through the runner alone, \
             nothing recorded, {} games): {:.1} games/s, {:.3} ms CPU per game",
            floor.games,
            floor.per_second(),
            floor.cpu_per_game_ms()
        );
        let same = super::runner_rate(Some(exe), plan.bots, floor_games, concurrency, policy)?;
        crate::say!(
            "{label}: the runner alone with the run's {} bots, sandboxed as it sandboxes them \
             ({} games): {:.1} games/s, {:.3} ms CPU per game",
            plan.bots,
            same.games,
            same.per_second(),
            same.cpu_per_game_ms()
        );
        let run = whole_run(exe, &plan, concurrency, policy, args.window)?;
        run.report(&floor, &same);
    }
    Ok(())
}

fn policy_words(policy: ProcessPolicy) -> &'static str {
    match policy {
        ProcessPolicy::Reuse => "processes reused",
        ProcessPolicy::PerGame => "a process per game",
    }
}

/// The round robin that plays about the games asked for.
#[derive(Clone, Copy, Debug)]
struct Plan {
    bots: u32,
    /// Even: colour-swapped pairs.
    per_pairing: u64,
}

impl Plan {
    fn new(bots: u32, games: u32) -> Plan {
        let pairings = u64::from(bots) * u64::from(bots - 1) / 2;
        let per_pairing = u64::from(games).div_ceil(pairings).max(1);
        Plan {
            bots,
            per_pairing: per_pairing + per_pairing % 2,
        }
    }

    fn pairings(self) -> u64 {
        u64::from(self.bots) * u64::from(self.bots - 1) / 2
    }

    fn games(self) -> u64 {
        self.pairings() * self.per_pairing
    }

    /// The tournament file.
    fn config(self, policy: ProcessPolicy) -> String {
        let mut text = format!(
            "name = \"bench\"\nseed = 1\nformat = \"round-robin\"\ngames = {}\n\
             processes = \"{}\"\n\n[time]\nmove-ms = 1000\nfirst-move-ms = 1000\n\
             margin-ms = 100\n",
            self.per_pairing,
            match policy {
                ProcessPolicy::Reuse => "reuse",
                ProcessPolicy::PerGame => "per-game",
            }
        );
        for bot in 1..=self.bots {
            text.push_str(&format!(
                "\n[[bot]]\nname = \"random-{bot:03}\"\ncommand = \"random\"\n"
            ));
        }
        text
    }
}

/// One window of games of the whole run.
#[derive(Clone, Copy, Debug)]
struct Window {
    /// Games finished when it began and ended.
    from: u64,
    to: u64,
    wall: Duration,
    /// The arena process's own CPU time in it.
    cpu: Duration,
    /// The machine's 1-minute load average at its end.
    load: f64,
}

impl Window {
    fn games(&self) -> u64 {
        self.to - self.from
    }

    fn per_second(&self) -> f64 {
        self.games() as f64 / self.wall.as_secs_f64().max(1e-9)
    }

    fn cpu_per_game_ms(&self) -> f64 {
        self.cpu.as_secs_f64() * 1e3 / self.games().max(1) as f64
    }
}

/// What a whole run measured.
#[derive(Debug)]
struct WholeRun {
    label: &'static str,
    windows: Vec<Window>,
    games: u64,
    wall: Duration,
    cpu: Duration,
    /// The arena process's peak resident memory, in KiB.
    peak_kib: u64,
    /// Its peak while games were being played (before the end: standings, the
    /// report).
    playing_kib: u64,
}

impl WholeRun {
    fn report(&self, floor: &Rate, same: &Rate) {
        let rate = self.games as f64 / self.wall.as_secs_f64().max(1e-9);
        crate::say!(
            "{}: the whole run: {} games in {:.1} s = {rate:.1} games/s ({:.2}x the floor, {:.2}x \
             the runner alone with its bots), \
             arena CPU {:.3} ms per game, peak RSS {:.1} MB while playing, {:.1} MB in all \
             (the end of the run included: standings, report.html up to {} games)",
            self.label,
            self.games,
            self.wall.as_secs_f64(),
            rate / floor.per_second().max(1e-9),
            rate / same.per_second().max(1e-9),
            self.cpu.as_secs_f64() * 1e3 / self.games.max(1) as f64,
            self.playing_kib as f64 / 1024.0,
            self.peak_kib as f64 / 1024.0,
            defaults::REPORT_MAX_GAMES
        );
        if let (Some(first), Some(last)) = (self.windows.first(), self.windows.last()) {
            crate::say!(
                "{}: arena CPU per game, last window / first: {:.3} / {:.3} ms = {:.2}x",
                self.label,
                last.cpu_per_game_ms(),
                first.cpu_per_game_ms(),
                last.cpu_per_game_ms() / first.cpu_per_game_ms().max(1e-9)
            );
        }
    }
}

/// Plays `plan` with a real `arena tournament` and watches it.
fn whole_run(
    exe: &Path,
    plan: &Plan,
    concurrency: usize,
    policy: ProcessPolicy,
    window: u32,
) -> anyhow::Result<WholeRun> {
    let dir = Scratch::new()?;
    let config = dir.path.join("bench.toml");
    std::fs::write(&config, plan.config(policy)).context("writing the tournament file")?;
    let out = dir.path.join("results");
    let stderr_path = dir.path.join("stderr.txt");
    let stderr = std::fs::File::create(&stderr_path).context("creating the error log")?;
    let started = Instant::now();
    let mut child = Command::new(exe)
        .arg("tournament")
        .arg(&config)
        .arg("--out")
        .arg(&out)
        .arg("--concurrency")
        .arg(concurrency.to_string())
        .arg("--quiet")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .context("starting arena tournament")?;
    let pid = child.id();
    let label = policy_words(policy);
    let mut rows = RowCounter::new(out.join(GAMES_FILE));
    let mut windows: Vec<Window> = Vec::new();
    let mut mark = (0u64, started, Duration::ZERO);
    let mut peak_kib = 0;
    let mut playing_kib = 0;
    let mut cpu = Duration::ZERO;
    loop {
        std::thread::sleep(SAMPLE);
        // Read before the process is reaped: an exited one (a zombie) still has
        // its CPU time, no longer its memory.
        let Some(sample) = process_sample(pid) else {
            break;
        };
        cpu = sample.cpu;
        let rss = peak_rss_kib(pid).unwrap_or(0);
        peak_kib = peak_kib.max(rss);
        let done = rows.count();
        if done < plan.games() {
            playing_kib = playing_kib.max(rss);
        }
        // The last window is whatever is left once the run ends, if it is at
        // least half a window.
        let last = sample.exited && done > mark.0 && done - mark.0 >= u64::from(window).div_ceil(2);
        if done >= mark.0 + u64::from(window) || last {
            let now = Instant::now();
            let w = Window {
                from: mark.0,
                to: done,
                wall: now - mark.1,
                cpu: cpu.saturating_sub(mark.2),
                load: load_average(),
            };
            crate::say!(
                "{label}: games {:>8} to {:>8}: {:7.1} games/s, arena CPU {:.3} ms per game (load {:.1})",
                w.from,
                w.to,
                w.per_second(),
                w.cpu_per_game_ms(),
                w.load
            );
            windows.push(w);
            mark = (done, now, cpu);
        }
        if sample.exited {
            break;
        }
    }
    let status = child.wait()?;
    let wall = started.elapsed();
    if !status.success() {
        let mut text = String::new();
        let _ = std::fs::File::open(&stderr_path).and_then(|mut f| f.read_to_string(&mut text));
        anyhow::bail!("arena tournament failed ({status}): {}", text.trim());
    }
    Ok(WholeRun {
        label,
        windows,
        games: rows.count(),
        wall,
        cpu,
        peak_kib,
        playing_kib,
    })
}

/// Games of a `games.csv` being written, counted from the bytes appended since
/// the last look (its first line is the header).
#[derive(Debug)]
struct RowCounter {
    path: PathBuf,
    read: u64,
    lines: u64,
}

impl RowCounter {
    fn new(path: PathBuf) -> RowCounter {
        RowCounter {
            path,
            read: 0,
            lines: 0,
        }
    }

    fn count(&mut self) -> u64 {
        use std::io::{Seek as _, SeekFrom};
        if let Ok(mut file) = std::fs::File::open(&self.path)
            && file.seek(SeekFrom::Start(self.read)).is_ok()
        {
            let mut buf = vec![0u8; 1 << 16];
            while let Ok(n) = file.read(&mut buf) {
                if n == 0 {
                    break;
                }
                self.read += n as u64;
                self.lines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
            }
        }
        self.lines.saturating_sub(1)
    }
}

/// What `/proc/PID/stat` says of a process: its own CPU time (user + system, all
/// its threads, not its children) and whether it has exited (a zombie, not yet
/// reaped). `None` once it is gone.
#[derive(Clone, Copy, Debug)]
struct Sample {
    cpu: Duration,
    exited: bool,
}

fn process_sample(pid: u32) -> Option<Sample> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let exited = matches!(fields.first(), Some(&"Z" | &"X"));
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    let per_second = nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
        .ok()
        .flatten()
        .and_then(|t| u64::try_from(t).ok())
        .filter(|&t| t > 0)
        .unwrap_or(100);
    Some(Sample {
        cpu: Duration::from_secs_f64(ticks as f64 / per_second as f64),
        exited,
    })
}

/// A process's peak resident memory so far (`VmHWM`), in KiB.
fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The machine's 1-minute load average (0 if unknown).
fn load_average() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|t| t.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0)
}

/// Games per second and CPU per game of a process's own work.
#[derive(Clone, Copy, Debug)]
pub struct Rate {
    /// Games played.
    pub games: u64,
    /// Wall time.
    pub wall: Duration,
    /// This process's CPU time (user + system).
    pub cpu: Duration,
    /// Moves played.
    pub plies: u64,
}

impl Rate {
    fn per_second(&self) -> f64 {
        self.games as f64 / self.wall.as_secs_f64().max(1e-9)
    }

    fn cpu_per_game_ms(&self) -> f64 {
        self.cpu.as_secs_f64() * 1e3 / self.games.max(1) as f64
    }
}

/// A directory of the benchmark's own, removed when dropped.
#[derive(Debug)]
struct Scratch {
    path: PathBuf,
}

impl Scratch {
    fn new() -> anyhow::Result<Scratch> {
        let path = std::env::temp_dir().join(format!(
            "arena-bench-tournament-{}-{}",
            std::process::id(),
            crate::results::atomic::now().replace([':', '.'], "")
        ));
        std::fs::create_dir_all(&path).with_context(|| format!("creating {}", path.display()))?;
        Ok(Scratch { path })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_plays_at_least_the_games_asked_in_colour_swapped_pairs() {
        let plan = Plan::new(20, 100_000);
        assert_eq!(plan.pairings(), 190);
        assert_eq!(plan.per_pairing, 528);
        assert_eq!(plan.games(), 100_320);
        let two = Plan::new(2, 3);
        assert_eq!((two.per_pairing, two.games()), (4, 4));
        let config = plan.config(ProcessPolicy::PerGame);
        assert!(config.contains("processes = \"per-game\""));
        assert_eq!(config.matches("[[bot]]").count(), 20);
    }

    #[test]
    fn rows_are_counted_from_what_was_appended() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(GAMES_FILE);
        let mut rows = RowCounter::new(path.clone());
        assert_eq!(rows.count(), 0);
        std::fs::write(&path, "id,x\nG1,a\nG2,b").unwrap();
        assert_eq!(rows.count(), 1);
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        std::io::Write::write_all(&mut file, b"\nG3,c\n").unwrap();
        assert_eq!(rows.count(), 3);
        let me = process_sample(std::process::id()).unwrap();
        assert!(!me.exited);
        assert!(peak_rss_kib(std::process::id()).unwrap() > 0);
    }
}
