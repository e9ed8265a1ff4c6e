//! Time controls: the one place a [`TimeControl`] is made from what a user wrote
//! (flags, a tournament file's `[time]`, a command's own fixed times), so a first
//! move or a safety net cannot mean one thing on the command line and another in
//! a file.
//!
//! The rules, in order:
//! - a per-move time is the one written; without one, a game clock alone governs
//!   when one is written, else the bot gets [`defaults::MOVE_TIME`] — or, when it
//!   plays fixed work (`nodes`), the generous [`defaults::SAFETY_NET_MOVE_TIME`],
//!   so that the deadline is only a safety net a loaded machine cannot reach;
//! - the first move of a game gets the time written for it; without one, the
//!   larger of the move time and [`defaults::FIRST_MOVE_FLOOR`] (a bot may start
//!   an interpreter or load a book then), or the safety net's first move;
//! - the margin is the one written, else [`defaults::MARGIN`];
//! - the clock is the one written; `auto` (and nothing written) is the fair
//!   clock where this host can count every process a bot starts (a cgroup per
//!   bot) and its waits (per-task schedstat), else the wall clock; the fair
//!   and CPU clocks written on a host that cannot are refused
//!   ([`ClockSupport`]).

use std::time::Duration;

use referee::bot::ClockMode;
use referee::bot::charge::ClockSupport;
use referee::game::{GameClock, TimeControl};

use super::input::{ClockChoice, Given, Source, TimeInput};
use crate::defaults;
use crate::millis::MoveMs;

/// A time control that cannot be played, with the value to blame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeError {
    /// Where the value to change was written.
    pub source: Source,
    /// What is wrong and how to fix it.
    pub message: String,
}

/// The time control of `input`, by the rules of this module.
///
/// # Errors
/// An increment without a clock, or a time control the referee refuses.
pub fn time_control(input: &TimeInput) -> Result<TimeControl, TimeError> {
    let nodes = input.nodes.as_ref().map(|n| n.value);
    let safety_net = nodes.is_some() && input.move_ms.is_none() && input.clock_ms.is_none();
    let move_time = match (&input.move_ms, &input.clock_ms) {
        (Some(m), _) => Some(m.value),
        (None, Some(_)) => None,
        (None, None) if safety_net => Some(defaults::SAFETY_NET_MOVE_TIME),
        (None, None) => Some(defaults::MOVE_TIME),
    };
    let first_move_time = match (&input.first_move_ms, move_time) {
        (Some(first), _) => Some(first.value),
        (None, _) if safety_net => Some(defaults::SAFETY_NET_FIRST_MOVE_TIME),
        (None, Some(m)) => Some(m.max(defaults::FIRST_MOVE_FLOOR)),
        (None, None) => None,
    };
    let clock = match (&input.clock_ms, &input.increment_ms) {
        (Some(clock), increment) => Some(GameClock {
            initial: clock.value.duration(),
            increment: increment
                .as_ref()
                .map_or(Duration::ZERO, |i| i.value.duration()),
        }),
        (None, Some(increment)) => {
            return Err(TimeError {
                source: increment.source.clone(),
                message: match increment.source {
                    Source::Flag(_) => "--increment needs a game clock: add --clock".into(),
                    _ => "increment-ms needs a game clock: add clock-ms".into(),
                },
            });
        }
        (None, None) => None,
    };
    let clock_mode = clock_mode(input.clock_mode.as_ref(), &ClockSupport::detect())?;
    let time = TimeControl {
        move_time: move_time.map(MoveMs::duration),
        first_move_time: first_move_time.map(MoveMs::duration),
        margin: input
            .margin_ms
            .as_ref()
            .map_or(defaults::MARGIN, |m| m.value)
            .duration(),
        clock,
        nodes,
        clock_mode,
    };
    time.validate().map_err(|e| TimeError {
        source: input
            .move_ms
            .as_ref()
            .map_or(Source::Command, |m| m.source.clone()),
        message: format!("--time: {e}"),
    })?;
    Ok(time)
}

/// The clock `written` asks for, on a host that gives `support`.
///
/// # Errors
/// The fair or CPU clock asked for where it could be fooled.
pub fn clock_mode(
    written: Option<&Given<ClockChoice>>,
    support: &ClockSupport,
) -> Result<ClockMode, TimeError> {
    match written {
        None
        | Some(Given {
            value: ClockChoice::Auto,
            ..
        }) => Ok(support.auto()),
        Some(Given {
            value: ClockChoice::Mode(mode),
            source,
        }) => match support.refusal(*mode) {
            None => Ok(*mode),
            Some(why) => Err(TimeError {
                source: source.clone(),
                message: format!(
                    "{}: {why}: use {} (or auto, which falls back to the wall clock; see `arena doctor`)",
                    match source {
                        Source::Flag(_) => format!("--clock {mode}"),
                        _ => format!("clock = \"{mode}\""),
                    },
                    match source {
                        Source::Flag(_) => "--clock wall",
                        _ => "clock = \"wall\"",
                    },
                ),
            }),
        },
    }
}

/// `time` with every duration multiplied by `factor` (a bot's `time-odds`), the
/// margin and the fixed work unchanged; never below a millisecond.
pub fn scaled(time: TimeControl, factor: f64) -> TimeControl {
    let s = |d: Duration| Duration::from_secs_f64((d.as_secs_f64() * factor).max(0.001));
    TimeControl {
        move_time: time.move_time.map(s),
        first_move_time: time.first_move_time.map(s),
        margin: time.margin,
        clock: time.clock.map(|c| GameClock {
            initial: s(c.initial),
            increment: s(c.increment),
        }),
        nodes: time.nodes,
        clock_mode: time.clock_mode,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::millis::{ClockMs, IncrementMs, MarginMs};
    use crate::tournament::settings::input::Given;

    fn ms(n: u64) -> Option<Duration> {
        Some(Duration::from_millis(n))
    }

    fn flag<T>(value: T) -> Option<Given<T>> {
        Some(Given::new(value, Source::Flag("--time")))
    }

    fn line<T>(value: T) -> Option<Given<T>> {
        Some(Given::new(value, Source::Line(3)))
    }

    #[test]
    fn the_first_move_gets_at_least_the_floor_unless_written() {
        let t = time_control(&TimeInput {
            move_ms: flag(MoveMs::constant(100)),
            ..TimeInput::default()
        })
        .unwrap();
        assert_eq!((t.move_time, t.first_move_time), (ms(100), ms(1000)));
        let t = time_control(&TimeInput {
            move_ms: line(MoveMs::constant(2500)),
            ..TimeInput::default()
        })
        .unwrap();
        assert_eq!(
            t.first_move_time,
            ms(2500),
            "a long move time is its own floor"
        );
        let t = time_control(&TimeInput {
            move_ms: line(MoveMs::constant(100)),
            first_move_ms: line(MoveMs::constant(150)),
            ..TimeInput::default()
        })
        .unwrap();
        assert_eq!(t.first_move_time, ms(150), "a written first move wins");
        let t = time_control(&TimeInput::default()).unwrap();
        assert_eq!((t.move_time, t.first_move_time), (ms(100), ms(1000)));
    }

    #[test]
    fn the_same_values_give_the_same_time_control_from_flags_and_files() {
        for (moves, first, margin) in [(40, None, 50), (100, Some(400), 0), (5000, None, 7)] {
            let from = |g: fn(MoveMs) -> Option<Given<MoveMs>>| TimeInput {
                move_ms: g(MoveMs::constant(moves)),
                first_move_ms: first.and_then(|f| g(MoveMs::constant(f))),
                margin_ms: Some(Given::new(MarginMs::constant(margin), Source::Line(1))),
                ..TimeInput::default()
            };
            assert_eq!(
                time_control(&from(flag)).unwrap(),
                time_control(&from(line)).unwrap()
            );
        }
    }

    #[test]
    fn fixed_work_without_a_time_gets_the_safety_net() {
        let t = time_control(&TimeInput {
            nodes: flag(3000),
            ..TimeInput::default()
        })
        .unwrap();
        assert_eq!(t.nodes, Some(3000));
        assert_eq!(t.move_time, Some(defaults::SAFETY_NET_MOVE_TIME.duration()));
        assert_eq!(
            t.first_move_time,
            Some(defaults::SAFETY_NET_FIRST_MOVE_TIME.duration())
        );
        // A time written with the nodes is kept: the user chose it.
        let t = time_control(&TimeInput {
            nodes: flag(3000),
            move_ms: flag(MoveMs::constant(100)),
            ..TimeInput::default()
        })
        .unwrap();
        assert_eq!((t.move_time, t.first_move_time), (ms(100), ms(1000)));
    }

    #[test]
    fn a_clock_that_could_be_fooled_here_is_refused_naming_the_fix() {
        let no_group = ClockSupport {
            waits: true,
            whole_cpu: Err("no cgroup v2 hierarchy is mounted here".into()),
        };
        let flag = Given::flag(ClockChoice::Mode(ClockMode::Cpu), "--clock");
        let e = clock_mode(Some(&flag), &no_group).unwrap_err();
        assert_eq!(
            e.message,
            "--clock cpu: the cpu clock charges a bot the CPU time of every process it starts, which needs a cgroup v2 group per bot (its cpu.stat counts processes that have exited or left the bot's tree), and none can be made here: no cgroup v2 hierarchy is mounted here: use --clock wall (or auto, which falls back to the wall clock; see `arena doctor`)"
        );
        assert_eq!(clock_mode(None, &no_group).unwrap(), ClockMode::Wall);
        let whole = ClockSupport {
            waits: true,
            whole_cpu: Ok(()),
        };
        assert_eq!(clock_mode(None, &whole).unwrap(), ClockMode::Fair);
        assert_eq!(clock_mode(Some(&flag), &whole).unwrap(), ClockMode::Cpu);
    }

    #[test]
    fn a_clock_alone_governs_and_an_increment_needs_one() {
        let t = time_control(&TimeInput {
            clock_ms: line(ClockMs::constant(60_000)),
            increment_ms: line(IncrementMs::constant(100)),
            ..TimeInput::default()
        })
        .unwrap();
        assert_eq!((t.move_time, t.first_move_time), (None, None));
        assert_eq!(t.clock.map(|c| c.increment), ms(100));
        let e = time_control(&TimeInput {
            increment_ms: line(IncrementMs::constant(100)),
            ..TimeInput::default()
        })
        .unwrap_err();
        assert_eq!(e.source, Source::Line(3));
        assert_eq!(e.message, "increment-ms needs a game clock: add clock-ms");
    }

    #[test]
    fn odds_scale_the_times_but_not_the_margin() {
        let t = time_control(&TimeInput::fixed(
            MoveMs::constant(100),
            MoveMs::constant(1000),
            MarginMs::constant(50),
        ))
        .unwrap();
        let half = scaled(t, 0.5);
        assert_eq!((half.move_time, half.first_move_time), (ms(50), ms(500)));
        assert_eq!(half.margin, t.margin);
    }
}
