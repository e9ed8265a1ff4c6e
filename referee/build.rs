//! Sets `has_schedstat` where this kernel gives the scheduler's per-task counters,
//! so the unit tests that measure with them are reported as ignored, saying why,
//! on a kernel without them, instead of passing without having run. The same test
//! as `bot::schedstat::available`, which the referee itself asks at run time; the
//! kernel does not change under a build, so this runs once.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rustc-check-cfg=cfg(has_schedstat)");
    if schedstat() {
        println!("cargo::rustc-cfg=has_schedstat");
    }
}

/// The calling thread's `schedstat` parses, and the process's has counted CPU time
/// (it is added up at a tick or a switch: a sleep is a switch).
fn schedstat() -> bool {
    let cpu_ns = |path: &str| -> Option<u64> {
        let text = std::fs::read_to_string(path).ok()?;
        let fields: Vec<u64> = text
            .split_ascii_whitespace()
            .map(str::parse)
            .collect::<Result<_, _>>()
            .ok()?;
        (fields.len() >= 3).then(|| fields[0])
    };
    cpu_ns("/proc/thread-self/schedstat").is_some()
        && (0..5).any(|attempt| {
            if attempt > 0 {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            cpu_ns("/proc/self/schedstat").is_some_and(|ns| ns > 0)
        })
}
