//! `arena ratings FILE…`: standings from any set of games.csv files — one
//! tournament, the shards of one tournament, or several tournaments. A game id that
//! appears twice (the same game merged twice) is an error naming both places.
//! `--anchor NAME=ELO` fixes a bot's rating; given several times, it fixes each of
//! them and fits the others around them (a bot placed among reference levels).

use std::collections::HashMap;
use std::path::PathBuf;

use crate::cli::RatingsArgs;
use crate::exit_codes::{self, Code, UsageError};
use crate::results::standings;
use crate::results::store::{Numbered, read_games_numbered};
use ratings::{Analysis, Anchor, FitOptions, FixedRating};

/// Runs `arena ratings`.
///
/// # Errors
/// Output files could not be written.
pub fn run(args: &RatingsArgs) -> anyhow::Result<Code> {
    match build(args) {
        Ok(report) => {
            let every = match &args.out {
                Some(out) => standings::every_column(out),
                None => "--out DIR writes every column to DIR/standings.csv and crosstable.csv"
                    .to_string(),
            };
            standings::print_report(
                &report,
                standings::Shown::Everything,
                &every,
                crate::terminal::width::columns(),
            )?;
            if args.los {
                let mut text = Vec::new();
                ratings::table::write_los_table(&mut text, &report)?;
                crate::say!("\nLikelihood of superiority (row stronger than column), %");
                crate::say_raw!("{}", String::from_utf8_lossy(&text));
            }
            if let Some(out) = &args.out {
                std::fs::create_dir_all(out)?;
                standings::write_files(&report, out)?;
                crate::say!(
                    "Wrote standings.csv, crosstable.csv and reasons.csv to {}",
                    out.display()
                );
            }
            Ok(exit_codes::OK)
        }
        Err(message) => Err(UsageError::of(message.to_string())),
    }
}

fn build(args: &RatingsArgs) -> Result<Analysis, String> {
    let mut seen: HashMap<String, (PathBuf, u64)> = HashMap::new();
    let mut games = Vec::new();
    for (source, path) in args.files.iter().enumerate() {
        let rows = read_games_numbered(path).map_err(|e| format!("{e:#}"))?;
        for Numbered { line, row } in &rows {
            let line = *line;
            // Shards of one tournament share ids only if a game was played twice.
            let key = format!("{}/{}", row.id, row.seed);
            if let Some((first, first_line)) = seen.insert(key, (path.clone(), line)) {
                return Err(format!(
                    "game {} appears twice: {}:{first_line} and {}:{line}. Merge each shard's games.csv once",
                    row.id,
                    first.display(),
                    path.display()
                ));
            }
            let source = u32::try_from(source).unwrap_or(u32::MAX);
            games.push(
                standings::to_result(row, source)
                    .map_err(|e| format!("{}:{line}: {e}", path.display()))?,
            );
        }
    }
    if games.is_empty() {
        return Err("no games in the given files".into());
    }
    let mut fixed = args
        .anchor
        .iter()
        .map(|text| fixed_rating(text))
        .collect::<Result<Vec<FixedRating>, String>>()?;
    let anchor = match fixed.len() {
        0 => Anchor::Mean(0.0),
        1 => {
            let FixedRating { name, elo } = fixed.remove(0);
            Anchor::Bot { name, elo }
        }
        _ => Anchor::Bots(fixed),
    };
    let options = FitOptions {
        anchor,
        ..FitOptions::default()
    };
    Analysis::build(&games, &options).map_err(|e| e.to_string())
}

/// One `--anchor NAME=ELO`.
fn fixed_rating(text: &str) -> Result<FixedRating, String> {
    let (name, elo) = text
        .split_once('=')
        .ok_or_else(|| format!("--anchor '{text}' should be NAME=ELO, e.g. random=0"))?;
    let elo: f64 = elo
        .trim()
        .parse()
        .ok()
        .filter(|e: &f64| e.is_finite())
        .ok_or_else(|| format!("--anchor '{text}': '{elo}' is not a number"))?;
    Ok(FixedRating {
        name: name.trim().to_string(),
        elo,
    })
}
