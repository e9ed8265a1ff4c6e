#!/usr/bin/env bash
# Each clock cheat of tests/bots/clock against the honest bot at --time 100, two
# games each, under auto, --clock cpu and --sandbox none, for every arena binary
# given: what BENCHMARKS.md's "The clock charges every process a bot starts"
# compares (an old binary against a new one).
#   tools/clock_cheats.sh OLD_ARENA NEW_ARENA
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bots="$(mktemp -d)"; chmod 755 "$bots"
out="$(mktemp -d)"
trap 'rm -rf "$bots" "$out"' EXIT
for b in honest escape children; do cc -O2 -o "$bots/$b" "$root/tests/bots/clock/$b.c"; done
for arena in "$@"; do
  for mode in "auto:" "cpu:--clock cpu" "none:--sandbox none"; do
    name=${mode%%:*}; extra=${mode#*:}
    for cheat in "escape 2 1500 steady" "children 4 1500 3" "escape 2 5 ponder"; do
      dir="$out/run"; rm -rf "$dir"
      # shellcheck disable=SC2086
      "$arena" match "honest=$bots/honest" "cheat=$bots/$cheat" -n 2 --time 100 \
        --concurrency 1 --seed 1 --out "$dir" $extra >/dev/null 2>&1 || true
      python3 - "$dir" "$arena" "$name" "$cheat" <<'PY'
import csv, sys
d, arena, mode, cheat = sys.argv[1:]
rows = list(csv.DictReader(open(d + '/moves.csv')))
games = list(csv.DictReader(open(d + '/games.csv')))
def work(bot):
    seen, w = set(), []
    for r in rows:
        if r['bot'] != bot:
            continue
        if r['game'] not in seen:
            seen.add(r['game'])
            continue
        if r['nodes']:
            w.append(int(r['nodes']))
    return sum(w) / len(w) if w else None
h, c = work('honest'), work('cheat')
lost = sum(1 for g in games if g['reason'] == 'timeout' and g['winner_name'] == 'honest')
ratio = f"{c / h:.1f}x" if h and c else "-"
print(f"{arena} {mode:5} {cheat:22} timed out in {lost} of {len(games)}; work a move {c and round(c)} against {h and round(h)} ({ratio})")
PY
    done
  done
done
