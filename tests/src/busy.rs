//! Busy loops that load the machine for the clock and governor tests, killed
//! when dropped.

use std::process::{Child, Command, Stdio};

/// Busy loops (`sh -c 'while :; do :; done'`), killed and reaped when dropped.
#[derive(Debug)]
pub struct Spinners(Vec<Child>);

impl Spinners {
    /// `count` loops, each started by `program` with `args` in front of the
    /// loop's own words.
    #[allow(clippy::expect_used)]
    fn start(count: usize, program: &str, args: &[&str]) -> Spinners {
        Spinners(
            (0..count)
                .map(|_| {
                    Command::new(program)
                        .args(args)
                        .args(["sh", "-c", "while :; do :; done"])
                        .stdout(Stdio::null())
                        .spawn()
                        .unwrap_or_else(|e| panic!("{program} starts a busy loop: {e}"))
                })
                .collect(),
        )
    }

    /// `count` loops pinned to CPU `core`.
    pub fn pinned(core: usize, count: usize) -> Spinners {
        Spinners::start(count, "taskset", &["-c", &core.to_string()])
    }

    /// `count` loops the scheduler places where it likes.
    pub fn free(count: usize) -> Spinners {
        Spinners::start(count, "env", &[])
    }

    /// `per_core` loops for each CPU of the machine, each in a session (and so
    /// an autogroup) of its own, as other users' programs are.
    pub fn per_core(per_core: usize) -> Spinners {
        let cores = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
        Spinners::start(per_core * cores, "setsid", &[])
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
