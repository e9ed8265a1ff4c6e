#!/usr/bin/env bash
# The governor's benchmark (issue 50, BENCHMARKS.md "The governor"): `mcts` at
# 100 ms in a 400-game match against level10 (fixed work) and rated by
# `arena rate`, on an idle machine and beside 2 and 4 busy loops a core (each
# loop in a session of its own, as other users' programs are), with the
# governor on and off. Run it as root (the governor raises priorities only
# where the arena may) on a machine with nothing else to do.
#   tools/governor_bench.sh ARENA OUT_DIR [GAMES] [CONCURRENCY] [RATE_MAX_GAMES]
set -uo pipefail
arena="$1"; out="$2"; games="${3:-400}"; conc="${4:-1}"; rate_max="${5:-600}"
mkdir -p "$out"
# The progress lines (with each run's wall time) also go to the table's log.
exec > >(tee -a "$out/log.txt") 2>&1
cores=$(nproc)
spinners=()
spin() { for _ in $(seq 1 $(( $1 * cores ))); do setsid sh -c 'while :; do :; done' & spinners+=($!); done; sleep 1; }
stop() { for p in "${spinners[@]}"; do kill "$p" 2>/dev/null; done; spinners=(); sleep 1; }
trap stop EXIT
run() { # load governor
  local tag="$1x-$2"
  echo "== load $1 a core, governor $2: $(cut -d' ' -f1-3 /proc/loadavg)"
  local t0=$SECONDS
  "$arena" match mcts level10 -n "$games" --time 100 --seed 1 --concurrency "$conc" \
    --governor "$2" --out "$out/match-$tag" > "$out/match-$tag.txt" 2>&1
  echo "match: exit $? in $(( SECONDS - t0 )) s"
  t0=$SECONDS
  "$arena" rate mcts --time 100 --seed 1 --concurrency "$conc" --max-games "$rate_max" --governor "$2" --out "$out/rate-$tag" \
    --quiet > "$out/rate-$tag.txt" 2>&1
  echo "rate: exit $? in $(( SECONDS - t0 )) s"
}
run 0 on
for load in 4 2; do
  spin "$load"; run "$load" on; stop
  spin "$load"; run "$load" off; stop
done
python3 "$(dirname "$0")/governor_table.py" "$out" "$out/log.txt"
