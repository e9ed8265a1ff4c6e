#!/usr/bin/env bash
# What a newcomer waits for (BENCHMARKS.md, "First run: what a newcomer waits
# for"): a fresh clone of this checkout's HEAD, an empty target directory, and
# the README's set-up timed step by step: the crates' download, the release
# build, the main job's tournament, `cargo install` of that build, and the
# build of the tests (their run is the suite itself: `cargo test --workspace`).
# The load average is sampled every 10 s into OUT/load.txt, since a shared
# machine's load changes every figure: read them with it.
#
#   tools/first_run.sh [OUT_DIR]        # default /tmp/uttt-first-run
#
# Each step prints `TIME step: W s wall, U s user, S s sys`; user + sys is the
# work, which the load does not change much; the wall time is what a person
# waits. The download uses an empty CARGO_HOME of its own (the builds then use
# yours, whose registry it does not touch).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-/tmp/uttt-first-run}
rm -rf "$out"
mkdir -p "$out"
(while true; do echo "$(date +%s) $(cut -d' ' -f1-3 /proc/loadavg)"; sleep 10; done) > "$out/load.txt" &
sampler=$!
trap 'kill $sampler' EXIT
timed() {
  local name=$1
  shift
  echo "=== $name: start at $(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg)"
  /usr/bin/time -f "TIME $name: %e s wall, %U s user, %S s sys" "$@"
  echo "=== $name: end at $(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg)"
}
git clone --quiet "$here" "$out/clone"
cd "$out/clone"
export CARGO_TARGET_DIR="$out/target"
timed download env CARGO_HOME="$out/cargo-home" cargo fetch --locked
rm -rf "$out/cargo-home"
timed release-build cargo build --release -p arena --locked
timed main-job cargo run --release -p arena -- tournament --out "$out/results" --quiet
timed install cargo install --locked --path arena --root "$out/installed"
timed test-build cargo test --workspace --no-run --locked
