#!/bin/bash
# An SPRT on a Slurm cluster, in rounds of batches until it is decided: each round
# submits the next ARENA_WIDTH batches as one job array (sprt-batch.sbatch, beside
# this file), waits for them, and decides over every batch played so far, in batch
# order. Exit 0 H1 accepted, 1 H0 accepted, 3 undecided after ARENA_ROUNDS rounds,
# anything else an error (a batch that failed for good, a refused directory).
#
#   ARENA_NEW="./new-engine" ARENA_BASE="./old-engine" ARENA_SEED=7 \
#     ARENA_SPRT_ARGS="--elo0 0 --elo1 5 --time 100" configs/cluster/sprt-batches.sh
#
# Settings: as sprt-batch.sbatch (ARENA, ARENA_NEW, ARENA_BASE, ARENA_SEED,
# ARENA_PAIRS, ARENA_OUT, ARENA_SPRT_ARGS), plus
#   ARENA_WIDTH    batches submitted per round (how many tasks may run at once)  [4]
#   ARENA_ROUNDS   rounds before giving up undecided                            [25]
#   ARENA_SBATCH   more sbatch flags, e.g. "--partition=cpu --time=1:00:00"      [none]
# Run it again with the same settings to go on: batches already in ARENA_OUT are
# counted, and the next round starts after the highest one there.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=${ARENA_OUT:-results/sprt}
width=${ARENA_WIDTH:-4}
rounds=${ARENA_ROUNDS:-25}
: "${ARENA_SEED:?set ARENA_SEED, the same for every batch}"
export ARENA_OUT=$out

# The next batch: one after the highest already in $out.
next=1
for dir in "$out"/batch-*; do
  [ -d "$dir" ] || continue
  k=${dir##*/batch-}
  [ "$k" -ge "$next" ] && next=$((k + 1))
done

for ((round = 1; round <= rounds; round++)); do
  last=$((next + width - 1))
  echo "round $round: batches $next-$last"
  # shellcheck disable=SC2086
  if ! sbatch --wait --array="$next-$last" ${ARENA_SBATCH:-} "$here/sprt-batch.sbatch"; then
    echo "a batch of $next-$last failed; see its slurm-*.out, and what is counted with:" >&2
    echo "  ${ARENA:-arena} sprt --decide $out/batch-*" >&2
    exit 2
  fi
  next=$((last + 1))
  set +e
  "${ARENA:-arena}" sprt --decide "$out"/batch-*
  code=$?
  set -e
  [ "$code" -ne 3 ] && exit "$code"
done
echo "undecided after $rounds rounds; run this again to play more" >&2
exit 3
