#!/usr/bin/env python3
"""The table of the governor's benchmark (BENCHMARKS.md, "The governor"): one row per
run of tools/governor_bench.sh in OUT_DIR, with the wall times from its log.

    tools/governor_table.py OUT_DIR LOG
"""
import csv, json, math, os, sys
out = sys.argv[1]
def load(path):
    try:
        return json.load(open(path))
    except Exception:
        return None
print(f"{'run':8} {'match: mcts score (95%)':28} {'share min/med/max':17} {'replays':8} {'match wall':11} {'rate: Elo (95%)':24} {'rate games':10} {'rate wall':10} exit m/r")
import re
walls = {}
cur = None
for line in open(sys.argv[2]) if len(sys.argv) > 2 else []:
    m = re.match(r"== load (\d+) a core, governor (\w+)", line)
    if m:
        cur = f"{m.group(1)}x-{m.group(2)}"; walls[cur] = {}
    m = re.match(r"(match|rate): exit (\d+) in (\d+) s", line)
    if m and cur:
        walls[cur][m.group(1)] = m.group(3) + " s"
def order(tag):
    load, gov = tag.split('-')
    return (int(load[:-1]), gov != 'on')
for tag in sorted((t[6:] for t in os.listdir(out) if t.startswith('match-') and os.path.isdir(os.path.join(out, t))), key=order):
    games = list(csv.DictReader(open(f"{out}/match-{tag}/games.csv")))
    pts = [1.0 if g['winner_name'] == 'mcts' else 0.5 if g['winner'] == 'draw' else 0.0 for g in games]
    n = len(pts)
    if n < 2:
        continue
    m = sum(pts) / n
    sd = math.sqrt(sum((p - m) ** 2 for p in pts) / (n - 1))
    shares = sorted(float(g['x_cpu_share'] if g['x'] == 'mcts' else g['o_cpu_share']) for g in games
              if (g['x_cpu_share'] if g['x'] == 'mcts' else g['o_cpu_share']))
    s = load(f"{out}/match-{tag}/summary.json") or {}
    gov = s.get('governor') or {}
    wall = sum(int(g['duration_ms']) for g in games) / 1000
    r = load(f"{out}/rate-{tag}/summary.json") or {}
    rv = r.get('rate') or r
    if rv.get('elo') is not None:
        rate = f"{rv['elo']:.0f} ({rv['low']:.0f} to {rv['high']:.0f})"
    else:
        rate = "-"
    times = walls.get(tag, {})
    times.setdefault('match', '-'); times.setdefault('rate', '-')
    share = f"{shares[0]:.2f}/{shares[len(shares)//2]:.2f}/{shares[-1]:.2f}" if shares else "-"
    print(f"{tag:8} {100*m:5.1f}% ± {196*sd/math.sqrt(n):4.1f} (n={n:3})      {share:17} {str(gov.get('replays', '-')) + ' c' + str(gov.get('concurrency_lowest', '-')):8} {times['match']:11} {rate:24} {str(rv.get('games','-')):10} {times['rate']:10} {s.get('exit_code','-')}/{r.get('exit_code','-')}")
