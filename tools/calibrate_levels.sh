#!/usr/bin/env bash
# The calibration of the reference levels (bots/levels.toml) as it was last run:
# colour-swapped pairs from 4-ply random openings between neighbouring levels and
# levels two apart, every match with its own fixed seed. The levels stop by their
# work, so the same build plays the same games on any machine; the time limits are
# only a safety net. Two parts, fitted together:
#   part 1: neighbours 200 games a pairing, levels two apart 100;
#   part 2: neighbours below level 10 4,000, two apart below level 10 2,000,
#           level 9 vs 10 600.
# 49,200 games; about 40 minutes on two shared cores, most of it in level 10's games.
# (A part-2 match of level 8 vs 10 was stopped after 33 games for time; it is not in
# the fit nor here.)
# Then:
#   cargo run --release -p arena --example levels_table -- results/levels-calibration/*/*/games.csv
# Usage: tools/calibrate_levels.sh [ARENA_BINARY] [OUT_DIR]
set -euo pipefail
A=${1:-./target/release/arena}
OUT=${2:-results/levels-calibration}
T=(--time 5000 --first-time 10000 --margin 1000 --random-plies 4 --concurrency 2)
# match LOW HIGH GAMES SEED DIR
match() {
  "$A" match "level$1" "level$2" -n "$3" "${T[@]}" --seed "$4" --out "$OUT/$5" > /dev/null
  echo "level$1 vs level$2: $3 games -> $OUT/$5"
}
for k in 1 2 3 4 5 6 7 8 9; do match $k $((k + 1)) 200 $((27000 + k)) part1/n$k; done
for k in 1 2 3 4 5 6 7 8; do match $k $((k + 2)) 100 $((27100 + k)) part1/s$k; done
for k in 1 2 3 4 5 6 7 8; do match $k $((k + 1)) 4000 $((28000 + k)) part2/n$k; done
for k in 1 2 3 4 5 6 7; do match $k $((k + 2)) 2000 $((28100 + k)) part2/s$k; done
match 9 10 600 28009 part2/n9
