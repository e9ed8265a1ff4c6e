#!/usr/bin/env bash
# One tournament split over several machines with GNU parallel: shard K of N runs on
# whichever host is free, its results directory is copied back here (--return), and
# the shards are merged here at the end.
#
#   configs/cluster/parallel.sh host1,host2,host3,host4   # ssh logins, as for parallel -S
#   configs/cluster/parallel.sh 2/host1,4/host2           # at most 2 and 4 shards at once
#   configs/cluster/parallel.sh :                         # this machine only
#
# Settings (environment variables):
#   ARENA              the arena binary on every host      [arena, from PATH]
#   ARENA_CONFIG       the tournament file                 [configs/default.toml]
#   ARENA_SEED         the tournament seed, the same for every shard          [42]
#   ARENA_SHARDS       N, the number of shards             [8]
#   ARENA_OUT          where shard-K/ and merged/ go       [results]
#   ARENA_JOBS         shards at once per host (parallel's --jobs)            [1]
#   ARENA_CONCURRENCY  games at once per shard             [the host's cores]
# Remote hosts need ssh access without a password, rsync, and the arena; the
# tournament file is copied to each (--basefile) under the login directory, at the
# same relative path, and the results come back from there. Bots that are not built
# in must be at the same paths on every host. Running the script again resumes every
# shard that did not finish.
set -euo pipefail

hosts=${1:?usage: parallel.sh HOSTS (e.g. host1,host2, or : for this machine)}
arena=${ARENA:-arena}
config=${ARENA_CONFIG:-configs/default.toml}
seed=${ARENA_SEED:-42}
shards=${ARENA_SHARDS:-8}
out=${ARENA_OUT:-results}
concurrency=()
[ -n "${ARENA_CONCURRENCY:-}" ] && concurrency=(--concurrency "$ARENA_CONCURRENCY")

seq 1 "$shards" | parallel --will-cite --halt soon,fail=1 -S "$hosts" \
  --jobs "${ARENA_JOBS:-1}" --basefile "$config" --return "$out/shard-{}" -q \
  "$arena" tournament "$config" --seed "$seed" --shard "{}/$shards" \
  "${concurrency[@]}" --out "$out/shard-{}" --quiet

shard_games=()
for k in $(seq 1 "$shards"); do shard_games+=("$out/shard-$k/games.csv"); done
"$arena" ratings "${shard_games[@]}" --out "$out/merged"
