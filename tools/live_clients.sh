#!/usr/bin/env bash
# The live page with 50 clients (BENCHMARKS.md, "The live page with 50 clients"):
# 1. a run's wall time per move with `--serve`, without and with 50 event-stream clients;
# 2. `arena bench overhead` and `arena bench timing` beside `arena serve` of a directory
#    being written, without and with 50 clients.
# Usage: tools/live_clients.sh [path/to/arena]   (default: target/release/arena)
set -u
A=${1:-target/release/arena}
W=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$W"' EXIT
pids=()
clients() { pids=(); for _ in $(seq 1 "$2"); do curl -sN "$1run/0/events" > /dev/null & pids+=($!); done; }
stopclients() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; pids=(); }
for round in 1 2 3; do
  for n in 0 50; do
    d=$W/run-$round-$n
    port=$((18100 + round * 10 + n / 50))
    start=$(date +%s.%N)
    "$A" match random random --games 600 --concurrency 1 --out "$d" --serve 127.0.0.1:$port > /dev/null 2>&1 &
    run=$!
    sleep 0.3
    [ "$n" -gt 0 ] && clients "http://127.0.0.1:$port/" "$n"
    wait $run
    end=$(date +%s.%N)
    stopclients
    moves=$(($(wc -l < "$d/moves.csv") - 1))
    echo "round $round, $n clients: $moves moves, $(echo "scale=1; ($end - $start) * 1000000 / $moves" | bc) us per move"
  done
done
"$A" match random random --games 1000000 --concurrency 1 --out "$W/bg" > /dev/null 2>&1 &
sleep 1
"$A" serve "$W/bg" --addr 127.0.0.1:18200 > /dev/null 2>&1 &
sleep 0.5
for round in 1 2; do
  for n in 0 50; do
    [ "$n" -gt 0 ] && clients "http://127.0.0.1:18200/" "$n"
    sleep 0.5
    echo "round $round, $n clients beside arena serve:"
    "$A" bench overhead | grep -E "floor:|referee:"
    "$A" bench timing --games 5 | tail -2
    stopclients
  done
done
