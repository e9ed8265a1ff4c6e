#!/usr/bin/env python3
"""Predicted against observed head-to-head scores, for the predictions benchmark
(bots/BENCHMARKS.md, "Predictions of the scale").

    python3 tools/predict/compare.py RESULTS_DIR A-B [C-D ...]

RESULTS_DIR holds `rate-<bot>/summary.json` for every bot (what `arena rate`
wrote: the rating and its 95% interval on the levels' scale) and `h2h-<A>-<B>/
games.csv` for every pairing (what `arena match A B --out ...` wrote).

Predicted: the Elo expectation 1 / (1 + 10^(-(Ra - Rb) / 400)), with the range it
takes when the difference moves by the two intervals combined (sqrt(a^2 + b^2):
the two ratings come from separate runs). Observed: A's mean score with a 95%
interval from the spread of its colour-swapped pair scores (pairs share an
opening, so they are the independent unit, as in the pentanomial model). Prints
one Markdown row per pairing. Standard library only.
"""

import csv
import json
import math
import os
import sys


def rating(results, bot):
    with open(os.path.join(results, f"rate-{bot}", "summary.json")) as f:
        s = json.load(f)
    return s["elo"], (s["high"] - s["low"]) / 2


def expected(diff):
    return 1 / (1 + 10 ** (-diff / 400))


def observed(results, a, b):
    """A's score, its 95% half-width, the games and the draw share."""
    pairs, games, draws, points = {}, 0, 0, 0.0
    with open(os.path.join(results, f"h2h-{a}-{b}", "games.csv")) as f:
        for row in csv.DictReader(f):
            score = 0.5 if row["winner"] == "draw" else float(row["winner_name"] == a)
            pairs.setdefault(row["pair"], []).append(score)
            games += 1
            draws += row["winner"] == "draw"
            points += score
    mean = points / games
    sums = [sum(p) / len(p) for p in pairs.values()]
    n = len(sums)
    var = sum((x - mean) ** 2 for x in sums) / max(n - 1, 1)
    return mean, 1.96 * math.sqrt(var / n), games, draws / games


def main():
    results, pairings = sys.argv[1], sys.argv[2:]
    print("| A vs B | ratings (95%) | predicted score of A (95%) | observed (95%) | games, draws | observed − predicted |")
    print("|---|---|---|---|---|---|")
    for pairing in pairings:
        a, b = pairing.split("-", 1)
        (ra, ha), (rb, hb) = rating(results, a), rating(results, b)
        diff, half = ra - rb, math.hypot(ha, hb)
        pred = expected(diff)
        lo, hi = expected(diff - half), expected(diff + half)
        obs, obs_half, games, draws = observed(results, a, b)
        print(
            f"| {a} vs {b} | {ra:.0f} ± {ha:.0f} vs {rb:.0f} ± {hb:.0f} "
            f"| {100 * pred:.0f}% ({100 * lo:.0f}–{100 * hi:.0f}%) "
            f"| {100 * obs:.0f}% ± {100 * obs_half:.0f} | {games}, {100 * draws:.0f}% "
            f"| {100 * (obs - pred):+.0f} pp |"
        )


if __name__ == "__main__":
    main()
