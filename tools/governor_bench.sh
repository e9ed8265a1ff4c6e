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
python3 - "$out" <<'PY'
import csv, json, math, os, sys
out = sys.argv[1]
print(f"{'run':12} {'match score (95%)':24} {'mcts share min/mean':20} {'replays':8} {'rate Elo (95%)':22} exit")
for tag in sorted(t[6:] for t in os.listdir(out) if t.startswith('match-') and os.path.isdir(os.path.join(out, t))):
    games = list(csv.DictReader(open(f"{out}/match-{tag}/games.csv")))
    pts = [1.0 if g['winner_name'] == 'mcts' else 0.5 if g['winner'] == 'draw' else 0.0 for g in games]
    n = len(pts); m = sum(pts) / n
    sd = math.sqrt(sum((p - m) ** 2 for p in pts) / (n - 1)) if n > 1 else 0
    shares = [float(g['x_cpu_share'] if g['x'] == 'mcts' else g['o_cpu_share']) for g in games
              if (g['x_cpu_share'] if g['x'] == 'mcts' else g['o_cpu_share'])]
    s = json.load(open(f"{out}/match-{tag}/summary.json"))
    gov = s.get('governor') or {}
    try:
        r = json.load(open(f"{out}/rate-{tag}/summary.json"))
        rate = f"{r['elo']:.0f} ({r['low']:.0f} to {r['high']:.0f})"
        rexit = r['exit_code']
    except Exception as e:
        rate, rexit = f"? {e}", "?"
    share = f"{min(shares):.2f}/{sum(shares)/len(shares):.2f}" if shares else "-"
    print(f"{tag:12} {100*m:5.1f}% ± {196*sd/math.sqrt(n):4.1f} (n={n:3})  {share:20} {gov.get('replays', '-')!s:8} {rate:22} {s['exit_code']}/{rexit}")
PY
