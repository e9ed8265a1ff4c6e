#!/usr/bin/env python3
"""Independent reference values for the GSPRT log-likelihood ratios in sprt.rs.

Python standard library only. Run: python3 sprt_reference.py

The quantity is the generalized SPRT statistic of fishtest (server/fishtest/stats/
LLRcalc.py: LLR_logistic, LLR_normalized) and fastchess
(app/src/matchmaking/sprt/sprt.cpp):

    LLR = N * sum_i phat_i * ln(p1_i / p0_i)

where phat is the empirical distribution of the outcome scores a_i (after replacing
zero counts by 1e-3, as both tools do), N the regularised total, and p_j the
distribution closest to phat (maximum likelihood) under hypothesis j:

* logistic:   mean score = 1/(1 + 10^(-elo_j/400));
* normalized: (mean - 1/2)/sd = t_j, t_j = nelo_j/(800/ln 10), times sqrt(2) for
  pentanomial counts (the sd of a pair score is the per-game sd over sqrt 2).

This script deliberately does NOT use the tools' algorithms (a root of the secular
equation, a fixed-point iteration for the normalized model). Instead it maximises the
Lagrange dual directly:

* one linear constraint sum p_i a_i = s: max over p of sum phat ln p equals
  sum phat ln phat - max_theta sum phat ln(1 + theta (a_i - s)); the inner maximum
  is found by golden-section search on the concave function of theta;
* the normalized constraint is written as two linear constraints, mean = m and second
  moment = m^2 + ((m - 1/2)/t)^2, whose dual is maximised by damped 2-D Newton, and
  the outer maximum over m is a golden-section search over the feasible means.
"""

import math

A5 = [0.0, 0.25, 0.5, 0.75, 1.0]
A3 = [0.0, 0.5, 1.0]
NELO_PER_T = 800.0 / math.log(10.0)
GOLD = (math.sqrt(5.0) - 1.0) / 2.0


def golden_max(f, lo, hi, iterations=200):
    """Maximum of a unimodal f on [lo, hi]."""
    c, d = hi - GOLD * (hi - lo), lo + GOLD * (hi - lo)
    fc, fd = f(c), f(d)
    for _ in range(iterations):
        if fc > fd:
            hi, d, fd = d, c, fc
            c = hi - GOLD * (hi - lo)
            fc = f(c)
        else:
            lo, c, fc = c, d, fd
            d = lo + GOLD * (hi - lo)
            fd = f(d)
    x = (lo + hi) / 2.0
    return f(x)


def entropy_term(phat):
    return sum(p * math.log(p) for p in phat)


def max_loglik_mean(phat, a, s):
    """max sum phat ln p subject to sum p = 1, sum p a = s."""
    v = [ai - s for ai in a]
    lo, hi = -1.0 / max(v), -1.0 / min(v)
    eps = 1e-13 * (hi - lo)

    def dual(theta):
        return sum(p * math.log1p(theta * vi) for p, vi in zip(phat, v))

    return entropy_term(phat) - golden_max(dual, lo + eps, hi - eps)


def max_dual_2d(phat, u1, u2):
    """max over (x, y) of sum phat ln(1 + x u1 + y u2), by damped Newton."""
    x = y = 0.0

    def value(x, y):
        total = 0.0
        for p, a, b in zip(phat, u1, u2):
            z = 1.0 + x * a + y * b
            if z <= 0.0:
                return -math.inf
            total += p * math.log(z)
        return total

    current = value(x, y)
    for _ in range(500):
        gx = gy = hxx = hxy = hyy = 0.0
        for p, a, b in zip(phat, u1, u2):
            z = 1.0 + x * a + y * b
            gx += p * a / z
            gy += p * b / z
            hxx -= p * a * a / (z * z)
            hxy -= p * a * b / (z * z)
            hyy -= p * b * b / (z * z)
        det = hxx * hyy - hxy * hxy
        if det == 0.0:
            break
        dx = -(hyy * gx - hxy * gy) / det
        dy = -(-hxy * gx + hxx * gy) / det
        step = 1.0
        while step > 1e-20:
            candidate = value(x + step * dx, y + step * dy)
            if candidate >= current:
                break
            step /= 2.0
        x, y = x + step * dx, y + step * dy
        new = value(x, y)
        if abs(new - current) < 1e-18 and abs(step * dx) + abs(step * dy) < 1e-15:
            current = new
            break
        current = new
    return current


def min_variance(m, a):
    """Smallest variance of a distribution on the grid a with mean m."""
    for lo, hi in zip(a, a[1:]):
        if lo <= m <= hi:
            return (m - lo) * (hi - m)
    return math.inf


def max_loglik_normalized(phat, a, t):
    """max sum phat ln p subject to sum p = 1 and (mean - 1/2)/sd = t."""
    if t == 0.0:
        return max_loglik_mean(phat, a, 0.5)

    def feasible(m):
        var = ((m - 0.5) / t) ** 2
        return min_variance(m, a) < var < m * (1.0 - m)

    # The feasible means form an interval on the side of 1/2 that t points to.
    grid = [0.5 + math.copysign(k / 200000.0, t) * 0.5 for k in range(1, 200000)]
    ok = [m for m in grid if feasible(m)]
    lo, hi = min(ok), max(ok)

    def profile(m):
        var = ((m - 0.5) / t) ** 2
        second = var + m * m
        u1 = [ai - m for ai in a]
        u2 = [ai * ai - second for ai in a]
        return entropy_term(phat) - max_dual_2d(phat, u1, u2)

    return golden_max(profile, lo, hi)


def regularize(counts):
    counts = [c if c > 0 else 1e-3 for c in counts]
    total = sum(counts)
    return total, [c / total for c in counts]


def llr_logistic(counts, elo0, elo1):
    a = A5 if len(counts) == 5 else A3
    n, phat = regularize(counts)
    s0, s1 = (1.0 / (1.0 + 10.0 ** (-e / 400.0)) for e in (elo0, elo1))
    return n * (max_loglik_mean(phat, a, s1) - max_loglik_mean(phat, a, s0))


def llr_normalized(counts, nelo0, nelo1):
    a = A5 if len(counts) == 5 else A3
    scale = math.sqrt(2.0) if len(counts) == 5 else 1.0
    n, phat = regularize(counts)
    t0, t1 = (e / NELO_PER_T * scale for e in (nelo0, nelo1))
    return n * (max_loglik_normalized(phat, a, t1) - max_loglik_normalized(phat, a, t0))


CASES = [
    # (counts [LL, LD, WL+DD, WD, WW] or [L, D, W], elo0, elo1)
    ([10, 40, 100, 45, 5], 0.0, 5.0),
    ([10, 40, 100, 45, 5], -5.0, 0.0),
    ([48, 210, 480, 250, 62], 0.0, 2.0),
    ([3, 0, 11, 9, 2], 0.0, 10.0),
    ([120, 260, 125], 0.0, 5.0),
    ([0, 0, 7, 0, 0], 0.0, 5.0),
]

if __name__ == "__main__":
    for counts, e0, e1 in CASES:
        print(
            f"{counts} [{e0}, {e1}]: logistic {llr_logistic(counts, e0, e1):.10f}  "
            f"normalized {llr_normalized(counts, e0, e1):.10f}"
        )
