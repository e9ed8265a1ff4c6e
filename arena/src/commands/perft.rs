//! `arena perft`: count move sequences, one line per depth, with the speed.

use std::time::Instant;

use anyhow::Context as _;
use uttt::notation::{parse_position, position_from_move_list};
use uttt::rules::{Position, perft, perft_divide};

use crate::cli::PerftArgs;
use crate::exit_codes::{self, Code, UsageError};

/// The deepest depth accepted: perft(20) is already far beyond any machine.
const MAX_DEPTH: u32 = 20;

/// Runs `arena perft`.
///
/// # Errors
/// Only output failures; bad arguments print a message and return [`exit_codes::USAGE`].
pub fn run(args: &PerftArgs) -> anyhow::Result<Code> {
    let (depth, start) = match validate(args) {
        Ok(valid) => valid,
        Err(message) => {
            return Err(UsageError::of(message));
        }
    };
    if args.divide {
        let started = Instant::now();
        let mut total = 0;
        for (sq, nodes) in perft_divide(&start, depth) {
            crate::say!("{sq} {nodes}");
            total += nodes;
        }
        crate::say!("total {total} {:.3}", started.elapsed().as_secs_f64());
        return Ok(exit_codes::OK);
    }
    crate::say!("depth nodes seconds nodes_per_second");
    for d in 1..=depth {
        let started = Instant::now();
        let nodes = perft(&start, d);
        let seconds = started.elapsed().as_secs_f64();
        let rate = if seconds > 0.0 {
            nodes as f64 / seconds
        } else {
            0.0
        };
        crate::say!("{d} {nodes} {seconds:.6} {rate:.0}");
    }
    std::io::Write::flush(&mut std::io::stdout()).context("writing to stdout")?;
    Ok(exit_codes::OK)
}

fn validate(args: &PerftArgs) -> Result<(u32, Position), String> {
    let depth = match args.depth.parse::<u32>() {
        Ok(d) if (1..=MAX_DEPTH).contains(&d) => d,
        _ => {
            return Err(format!(
                "depth '{}' is not a whole number from 1 to {MAX_DEPTH}",
                args.depth
            ));
        }
    };
    let rules = args.rules;
    let start = match (&args.moves, &args.position) {
        (Some(moves), _) => {
            position_from_move_list(rules, moves).map_err(|e| format!("--moves: {e}"))?
        }
        (None, Some(text)) => {
            parse_position(text, rules).map_err(|e| format!("--position: {e}"))?
        }
        (None, None) => Position::new(rules),
    };
    Ok((depth, start))
}
