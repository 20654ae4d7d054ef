#!/usr/bin/env python3
"""Reference values for E-Divisive's statistic (tests/test_changepoint.c).

Q(tau, kappa) of Matteson and James (JASA 2014, eq. 4-6) with alpha = 1, straight from
its definition in exact rational arithmetic (fractions.Fraction), with no running sums:
for X = z[0:tau] and Y = z[tau:kappa],

    E = 2/(n1 n2) sum |x - y| - sum_{i<j} |x_i - x_j| / C(n1, 2) - sum_{i<j} |y_i - y_j| / C(n2, 2)
    Q = n1 n2 / (n1 + n2) * E

maximized over min_size <= tau and tau + min_size <= kappa <= m (kappa = m when fixed).
The C code computes the same sums incrementally in O(m^2); printed here are the best
(tau, kappa, Q) of the series the test uses. Run: python3 tests/changepoint_reference.py
"""
from fractions import Fraction
from itertools import combinations


def q(z, tau, kappa):
    x, y = z[:tau], z[tau:kappa]
    n1, n2 = len(x), len(y)
    between = sum(abs(a - b) for a in x for b in y)
    wx = sum(abs(a - b) for a, b in combinations(x, 2))
    wy = sum(abs(a - b) for a, b in combinations(y, 2))
    e = (Fraction(2, n1 * n2) * between - wx / Fraction(n1 * (n1 - 1), 2)
         - wy / Fraction(n2 * (n2 - 1), 2))
    return Fraction(n1 * n2, n1 + n2) * e


def best(z, min_size, fixed):
    m = len(z)
    top = None
    for kappa in range(2 * min_size, m + 1):
        if fixed and kappa != m:
            continue
        for tau in range(min_size, kappa - min_size + 1):
            v = q(z, tau, kappa)
            # Ties go to the first found in the C code's order: kappa, then tau.
            if top is None or v > top[2]:
                top = (tau, kappa, v)
    return top


SERIES = {
    "step": [Fraction(v) for v in (3, 1, 4, 1, 5, 9, 2, 6, 15, 13, 18, 12, 14, 17, 16, 11)],
    "blip": [Fraction(v) for v in (5, 4, 6, 5, 4, 20, 21, 19, 22, 5, 6, 4, 5, 6, 4, 5)],
}

if __name__ == "__main__":
    for name, z in SERIES.items():
        for fixed in (False, True):
            tau, kappa, v = best(z, 2, fixed)
            print(f"{name} fixed={fixed}: tau={tau} kappa={kappa} Q={float(v)!r} ({v})")
