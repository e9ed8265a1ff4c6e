#!/usr/bin/env bash
# The predictions benchmark as it was run (bots/BENCHMARKS.md, "Predictions of the
# scale"): five bots outside the level family rated by `arena rate` (to ±30 Elo, at
# most 600 games), then played head to head, 200 games a pairing from 4-ply random
# openings, then compared:
#   python3 tools/predict/compare.py results/predict tactics-centre tactics-pmcts pmcts-nega centre-pmcts nega-uct
# Usage: tools/predict/run.sh [ARENA_BINARY] [OUT_DIR]
set -euo pipefail
A=${1:-./target/release/arena}
R=${2:-results/predict}
mkdir -p "$R"
r() { "$A" rate "$1" --precision 30 --max-games 600 --time "$2" --seed "$3" --out "$R/rate-$4" -q > "$R/rate-$4.txt"; }
h() { "$A" match "$1" "$2" -n 200 --time "$3" --random-plies 4 --seed "$4" --out "$R/h2h-$5" > "$R/h2h-$5.txt"; }
TACT="tactics=python3 tools/predict/styles.py tactics"
CENT="centre=python3 tools/predict/styles.py centre"
PMCTS="pmcts=mcts --playouts 100 --rollout random --eval handmade --minimax 0 --select uct"
NEGA="nega=negamax --level hard --nodes 400"
UCT="uct=mcts --playouts 400 --select uct --eval handmade --minimax 0"
r "$TACT" 1000 4101 tactics
r "$CENT" 1000 4102 centre
r "$PMCTS" 1000 4104 pmcts
r "$NEGA" 1000 4105 nega
r "$UCT" 1000 4106 uct
h "$TACT" "$CENT" 1000 4201 tactics-centre
h "$TACT" "$PMCTS" 1000 4202 tactics-pmcts
h "$PMCTS" "$NEGA" 1000 4203 pmcts-nega
h "$CENT" "$PMCTS" 1000 4204 centre-pmcts
h "$NEGA" "$UCT" 1000 4205 nega-uct
