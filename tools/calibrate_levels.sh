#!/usr/bin/env bash
# The calibration of the reference levels (bots/levels.toml) as it was last run
# (2026-12-01, second calibration, after levels 7-9 were redefined): colour-swapped
# pairs from 4-ply random openings between neighbouring levels and levels two apart,
# every match with its own fixed seed. The levels stop by their work, so the same
# build plays the same games on any machine; the time limits are only a safety net.
#
# The games are spent where they shrink level 10's interval most cheaply
# (bots/BENCHMARKS.md, "Reference levels"): level 10's rating relative to level 1 is
# level 9's plus the step 9 -> 10, so
#   cheap:  neighbours up to level 8, 12,000 games a pairing; two apart up to level 8,
#           6,000 (milliseconds a game: they make levels 1-8 precise for little);
#   top:    level 8 vs 9 4,000 and level 7 vs 9 2,000 (tens of milliseconds a game);
#   level9-10: level 9 vs 10 in chunks of 300 games, each with its own seed (about
#           1 s a game at two at a time: more than half of the time). A chunk is the
#           unit a run may stop after; CHUNKS says how many (the calibration of
#           2026-12-01 ran the default, 6).
# 127,800 games; 39 minutes on two shared cores (cheap 7, top 3, level 9 vs 10 29).
# Then:
#   cargo run --release -p arena --example levels_table -- results/levels-calibration/*/*/games.csv
# Usage: tools/calibrate_levels.sh [ARENA_BINARY] [OUT_DIR] [CHUNKS]
set -euo pipefail
A=${1:-./target/release/arena}
OUT=${2:-results/levels-calibration}
CHUNKS=${3:-6}
T=(--time 5000 --first-time 10000 --margin 1000 --random-plies 4 --concurrency 2)
# match LOW HIGH GAMES SEED DIR
match() {
  "$A" match "level$1" "level$2" -n "$3" "${T[@]}" --seed "$4" --out "$OUT/$5" > /dev/null
  echo "$(date -u +%H:%M:%S) level$1 vs level$2: $3 games -> $OUT/$5"
}
for k in 1 2 3 4 5 6 7; do match $k $((k + 1)) 12000 $((29000 + k)) cheap/n$k; done
for k in 1 2 3 4 5 6; do match $k $((k + 2)) 6000 $((29100 + k)) cheap/s$k; done
match 8 9 4000 29008 top/n8
match 7 9 2000 29107 top/s7
for c in $(seq 1 "$CHUNKS"); do match 9 10 300 $((29200 + c)) level9-10/c$c; done
