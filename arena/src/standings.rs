//! Standings from finished games: the leader for the progress line, and the end-of-run
//! report (terminal table, standings.csv, crosstable.csv).

use std::collections::BTreeMap;
use std::path::Path;

use crate::store::GameRow;

/// Points (win 1, draw ½) per bot.
fn points(rows: &[GameRow]) -> BTreeMap<String, (f64, u32)> {
    let mut table: BTreeMap<String, (f64, u32)> = BTreeMap::new();
    for row in rows {
        let (px, po) = match row.winner.as_str() {
            "X" => (1.0, 0.0),
            "O" => (0.0, 1.0),
            _ => (0.5, 0.5),
        };
        let x = table.entry(row.x.clone()).or_default();
        x.0 += px;
        x.1 += 1;
        let o = table.entry(row.o.clone()).or_default();
        o.0 += po;
        o.1 += 1;
    }
    table
}

/// "mcts 7.5/8" for the bot with the most points so far.
pub fn leader(rows: &[GameRow]) -> String {
    points(rows)
        .into_iter()
        .max_by(|a, b| a.1.0.total_cmp(&b.1.0))
        .map_or_else(
            || "-".to_string(),
            |(name, (p, n))| format!("{name} {p}/{n}"),
        )
}

/// Prints the standings (if `print`) and writes standings.csv and crosstable.csv.
///
/// # Errors
/// Writing the files failed.
pub fn report(rows: &[GameRow], names: &[String], out: &Path, print: bool) -> anyhow::Result<()> {
    let table = points(rows);
    let mut order: Vec<&String> = names.iter().collect();
    order.sort_by(|a, b| {
        let pa = table.get(*a).map_or(0.0, |t| t.0);
        let pb = table.get(*b).map_or(0.0, |t| t.0);
        pb.total_cmp(&pa)
    });
    let mut csv = String::from("rank,bot,games,points\n");
    if print {
        println!(
            "\n{:>4}  {:<20} {:>6} {:>7}",
            "rank", "bot", "games", "points"
        );
    }
    for (i, name) in order.iter().enumerate() {
        let (p, n) = table.get(*name).copied().unwrap_or_default();
        if print {
            println!("{:>4}  {:<20} {:>6} {:>7}", i + 1, name, n, p);
        }
        csv.push_str(&format!("{},{},{},{}\n", i + 1, name, n, p));
    }
    crate::manifest::write_atomic(&out.join("standings.csv"), csv.as_bytes())
}
