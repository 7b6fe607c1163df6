#!/usr/bin/env python3
"""Reference values for compare's pooled and corrected statistics (compare/datasets_test.go).

Written for those tests, independently of the Go code, with Python's standard library only
(python3 has no scipy here): exact binomial McNemar with math.comb and fractions, Tango's (1998)
score interval for a paired difference solved by bisection from its formula, the MOVER interval
of a weighted sum (Zou & Donner 2008, Stat Med 27:1693), and Holm's (1979) step-down adjustment.
Run it and compare its output with the values in the tests:

    python3 compare/testdata/reference_stats.py
"""

from fractions import Fraction
from math import comb, sqrt
from statistics import NormalDist


def mcnemar_exact(b, c):
    """Two-sided exact McNemar: 2·P(X ≤ min(b, c)), X ~ Binomial(b + c, 1/2), capped at 1."""
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = Fraction(sum(comb(n, i) for i in range(k + 1)), 2**n)
    return float(min(Fraction(1), 2 * tail))


def tango_score(gained, lost, n, d):
    """Tango's statistic for H0: difference = d (x12 = gained, x21 = lost)."""
    x12, x21 = float(gained), float(lost)
    w = -x12 - x21 + (2 * n - x12 + x21) * d
    q = (-w + sqrt(max(0.0, w * w + 8 * n * x21 * d * (1 - d)))) / (4 * n)
    v = n * (2 * q + d * (1 - d))
    num = x12 - x21 - n * d
    if v <= 0:
        return float("inf") if num > 0 else float("-inf") if num < 0 else 0.0
    return num / sqrt(v)


def tango_ci(gained, lost, n, level=0.95):
    z = NormalDist().inv_cdf(0.5 + level / 2)
    est = (gained - lost) / n

    def solve(target, a, b):
        # the score decreases in d
        for _ in range(300):
            mid = (a + b) / 2
            if tango_score(gained, lost, n, mid) > target:
                a = mid
            else:
                b = mid
        return (a + b) / 2

    lo = solve(z, -1.0, est) if tango_score(gained, lost, n, -1.0) > z else -1.0
    hi = solve(-z, est, 1.0) if tango_score(gained, lost, n, 1.0) < -z else 1.0
    return lo, hi


def mover(weights, estimates, lows, highs):
    s = sum(w * e for w, e in zip(weights, estimates))
    dl = sum((w * (e - l)) ** 2 for w, e, l in zip(weights, estimates, lows))
    dh = sum((w * (h - e)) ** 2 for w, e, h in zip(weights, estimates, highs))
    return s, max(-1.0, s - sqrt(dl)), min(1.0, s + sqrt(dh))


def holm(ps):
    m = len(ps)
    order = sorted(range(m), key=lambda k: ps[k])
    out, running = [0.0] * m, 0.0
    for j, k in enumerate(order):
        running = max(running, min(1.0, (m - j) * ps[k]))
        out[k] = running
    return out


def pooled(strata, level=0.95):
    """strata: (gained, lost, paired) per dataset."""
    n = sum(s[2] for s in strata)
    est = [(g - l) / p for g, l, p in strata]
    cis = [tango_ci(g, l, p, level) for g, l, p in strata]
    lows, highs = [c[0] for c in cis], [c[1] for c in cis]
    by_instance = mover([p / n for _, _, p in strata], est, lows, highs)
    macro = mover([1 / len(strata)] * len(strata), est, lows, highs)
    p = mcnemar_exact(sum(s[0] for s in strata), sum(s[1] for s in strata))
    return by_instance, macro, p


if __name__ == "__main__":
    cases = {
        # TestPooledAgainstReference
        "two datasets: 1 gained 7 lost of 20; 3 gained 1 lost of 10": [(1, 7, 20), (3, 1, 10)],
        "three datasets: 0/6 of 6; 2/0 of 5; 4/9 of 40": [(0, 6, 6), (2, 0, 5), (4, 9, 40)],
    }
    for name, strata in cases.items():
        (bi, bl, bh), (mi, ml, mh), p = pooled(strata)
        print(name)
        print(f"  by instance {bi!r} [{bl!r}, {bh!r}]")
        print(f"  macro       {mi!r} [{ml!r}, {mh!r}]")
        print(f"  McNemar p   {p!r}")
    # TestHolmAdjust and the gate's step-down
    for ps in ([0.01, 0.04, 0.03], [0.0078125, 0.015625, 0.03125], [0.03125, 1.0], [0.5]):
        print("holm", ps, "->", holm(ps))
