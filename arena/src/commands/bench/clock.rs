//! `arena bench clock`: false and missed time losses of the wall clock and the
//! fair clock, counted on the same moves.
//!
//! Each cell is one bot under one load: honest bots that need 60 or 90 ms of CPU
//! a move (busy, never sleeping), and dishonest ones that need 150 ms of CPU or
//! sleep 150 ms; beside 0, 1, 2 or 4 busy loops per core. The four bots of a
//! load play at once, each in its own session (as a tournament's games do), so
//! the three busy ones load the machine too: 1.5 busy tasks a core before any
//! loop. Every move is measured once (wall time, the bot's CPU time and
//! run-queue wait, the referee's measured lateness) with a limit far away, and
//! judged by both clocks' rules ([`Usage::charge`], [`ceiling`]): a false loss
//! is an honest move over the limit, a missed loss a dishonest move within it.
//! The referee's mid-move re-checks are not exercised here (each move runs to
//! its reply); the end-to-end tests cover them.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use referee::bot::charge::ceiling;
use referee::bot::{BotCommand, BotSession, ClockMode, Measured, Usage};
use uttt::protocol::{Go, NewGame};
use uttt::rules::{Mark, Position, Rules};

use crate::defaults;

/// The per-move limit and margin of every cell.
const MOVE: Duration = Duration::from_millis(100);
const MARGIN: Duration = Duration::from_millis(20);

/// One kind of bot in the table.
struct Kind {
    name: &'static str,
    args: &'static [&'static str],
    honest: bool,
}

const KINDS: [Kind; 4] = [
    Kind {
        name: "busy 60%",
        args: &["__burner", "--cpu-ms", "60"],
        honest: true,
    },
    Kind {
        name: "busy 90%",
        args: &["__burner", "--cpu-ms", "90"],
        honest: true,
    },
    Kind {
        name: "busy 150%",
        args: &["__burner", "--cpu-ms", "150"],
        honest: false,
    },
    Kind {
        name: "sleep 150%",
        args: &["__sleeper", "--delay-ms", "150"],
        honest: false,
    },
];

/// Busy loops beside the bots, killed when dropped.
struct Spinners(Vec<Child>);

impl Spinners {
    fn start(count: usize) -> anyhow::Result<Spinners> {
        let mut children = Vec::new();
        for _ in 0..count {
            let mut command = Command::new("sh");
            command
                .args(["-c", "while :; do :; done"])
                .stdin(Stdio::null())
                .stdout(Stdio::null());
            children.push(command.spawn()?);
        }
        Ok(Spinners(children))
    }
}

impl Drop for Spinners {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// What one cell counted.
#[derive(Default)]
struct Cell {
    moves: u32,
    wall_losses: u32,
    fair_losses: u32,
    waited: Duration,
    wall: Duration,
    /// The referee's measured lateness, summed, and its largest.
    late: Duration,
    late_max: Duration,
    /// The first move the fair clock judged over the limit: its wall time and
    /// what was measured (why it was charged so much).
    first_fair_loss: Option<(Duration, Measured)>,
}

/// Runs the benchmark: at most `moves` and `seconds` per cell.
///
/// # Errors
/// A helper could not be started.
pub fn run(exe: &Path, moves: u32, seconds: u64) -> anyhow::Result<()> {
    let cores = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
    let runtime = crate::tournament::runner::runtime(KINDS.len())?;
    let limit = MOVE + MARGIN;
    crate::say!(
        "clock bench: {} ms + {} ms margin a move, {cores} cores, the {} bots of a load at once, at most {moves} moves or {seconds} s a cell",
        MOVE.as_millis(),
        MARGIN.as_millis(),
        KINDS.len()
    );
    crate::say!(
        "clock here: {}",
        referee::bot::charge::ClockSupport::detect().guarantee()
    );
    crate::say!(
        "{:<10} {:<11} {:>6} {:>11} {:>11} {:>7} {:>15}",
        "load",
        "bot",
        "moves",
        "wall clock",
        "fair clock",
        "waited",
        "late mean/max"
    );
    let (mut false_wall, mut false_fair, mut missed_wall, mut missed_fair) = (0, 0, 0, 0);
    let (mut honest, mut dishonest) = (0, 0);
    for per_core in [0, 1, 2, 4] {
        crate::say!(
            "{per_core}x{cores} loops: load average before {}",
            load_average()
        );
        let _spinners = Spinners::start(per_core * cores)?;
        let budget = Duration::from_secs(seconds);
        let cells = runtime.block_on(async {
            let mut running = Vec::new();
            for kind in &KINDS {
                let mut command = BotCommand::new(exe);
                command.args = kind.args.iter().map(Into::into).collect();
                // Through the launcher, which puts it in a cgroup of its own
                // where one can be made: the fair clock counts the bot's
                // whole CPU time from it (see `referee::bot::charge`).
                command.launcher = Some(exe.to_path_buf());
                running.push(tokio::spawn(
                    async move { cell(&command, moves, budget).await },
                ));
            }
            let mut cells = Vec::new();
            for task in running {
                cells.push(task.await.map_err(|e| anyhow::anyhow!("{e}"))??);
            }
            anyhow::Ok(cells)
        })?;
        for (kind, cell) in KINDS.iter().zip(cells) {
            let (wall, fair) = if kind.honest {
                honest += cell.moves;
                false_wall += cell.wall_losses;
                false_fair += cell.fair_losses;
                ("false", "false")
            } else {
                dishonest += cell.moves;
                missed_wall += cell.moves - cell.wall_losses;
                missed_fair += cell.moves - cell.fair_losses;
                ("caught", "caught")
            };
            crate::say!(
                "{:<10} {:<11} {:>6} {:>5} {:<5} {:>5} {:<5} {:>6.0}% {:>7.2}/{:<7.1}",
                format!("{per_core}x{cores} loops"),
                kind.name,
                cell.moves,
                cell.wall_losses,
                wall,
                cell.fair_losses,
                fair,
                100.0 * cell.waited.as_secs_f64() / cell.wall.as_secs_f64().max(1e-9),
                cell.late.as_secs_f64() * 1000.0 / f64::from(cell.moves.max(1)),
                cell.late_max.as_secs_f64() * 1000.0
            );
            if let (true, Some((wall, m))) = (kind.honest, cell.first_fair_loss) {
                let ms = |d: Duration| d.as_secs_f64() * 1000.0;
                crate::say!(
                    "           first fair loss: wall {:.1} ms, cpu {:.1} ms, wait {:.1} ms, late {:.1} ms",
                    ms(wall),
                    ms(m.cpu),
                    ms(m.wait),
                    ms(m.late)
                );
            }
        }
    }
    crate::say!(
        "false time losses of {honest} honest moves: wall clock {false_wall}, fair clock {false_fair}; missed of {dishonest} dishonest moves (not over the limit): wall clock {missed_wall}, fair clock {missed_fair}"
    );
    crate::say!(
        "fair clock ceiling: {} ms; load average at the end: {}",
        ceiling(ClockMode::Fair, limit).as_millis(),
        load_average()
    );
    Ok(())
}

/// One bot's moves under the load running now.
async fn cell(command: &BotCommand, moves: u32, budget: Duration) -> anyhow::Result<Cell> {
    let limit = MOVE + MARGIN;
    let mut bot = BotSession::start(command, defaults::HANDSHAKE.duration())
        .await
        .map_err(|e| anyhow::anyhow!("{}: {e}", command.display()))?;
    // The fair clock's path (a move's start waits for a bot still runnable),
    // with a limit so far that no move is cut short: each is judged
    // afterwards by both rules.
    bot.set_clock(ClockMode::Fair);
    bot.new_game(&NewGame {
        mark: Mark::X,
        rules: Rules::STANDARD,
        opponent: "bench".into(),
        seed: 1,
        timing: uttt::protocol::Timing {
            move_time: Some(MOVE),
            first_move_time: Some(MOVE),
            margin: MARGIN,
            clock: None,
            nodes: None,
        },
    })
    .await
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    let position = Position::new(Rules::STANDARD);
    let go = Go::new(MOVE, &[], position.legal_moves());
    let far = Duration::from_secs(60);
    let started = Instant::now();
    let mut cell = Cell::default();
    while cell.moves < moves && started.elapsed() < budget {
        let answer = bot
            .ask(&go, far, Duration::ZERO)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let wall = answer.elapsed;
        let measured = answer.usage.measured;
        let fair = Usage::charge(ClockMode::Fair, wall, measured).charged;
        cell.moves += 1;
        cell.wall += wall;
        cell.waited += measured.map_or(Duration::ZERO, |m| m.wait);
        let late = measured.map_or(Duration::ZERO, |m| m.late);
        cell.late += late;
        cell.late_max = cell.late_max.max(late);
        cell.wall_losses += u32::from(wall > limit);
        let fair_loss = fair > limit || wall > ceiling(ClockMode::Fair, limit);
        cell.fair_losses += u32::from(fair_loss);
        if fair_loss && cell.first_fair_loss.is_none() {
            cell.first_fair_loss = measured.map(|m| (wall, m));
        }
    }
    bot.kill().await;
    Ok(cell)
}

/// `/proc/loadavg`'s three averages, for the table's caption.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".into())
}
