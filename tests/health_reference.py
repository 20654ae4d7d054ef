#!/usr/bin/env python3
"""Reference values of the Mann-Kendall trend test for tests/test_health.c.

The exact p-values are counted by enumerating every distinct order of the values (their
multiset permutations, each equally likely under the null hypothesis of no trend), so
they do not depend on the q-multinomial recurrence harness/2-core/health.c uses. The normal
approximation follows Kendall (Rank Correlation Methods, 1975, ch. 4): tie-corrected
variance and a continuity correction of 1. Standard library only; runs in a few seconds:

    python3 tests/health_reference.py
"""
import math
from collections import Counter


def mk_s(x):
    """S: pairs i < j with x_j > x_i minus pairs with x_j < x_i."""
    n = len(x)
    return sum((x[j] > x[i]) - (x[j] < x[i]) for i in range(n) for j in range(i + 1, n))


def tau_b(x):
    n = len(x)
    pairs = n * (n - 1) // 2
    tied = sum(t * (t - 1) // 2 for t in Counter(x).values())
    return mk_s(x) / math.sqrt(pairs * (pairs - tied))


def multiset_permutations(counts, n):
    """Every distinct sequence of the multiset {value: count}, of length n."""
    seq = [None] * n

    def rec(pos):
        if pos == n:
            yield seq
            return
        for v in counts:
            if counts[v]:
                counts[v] -= 1
                seq[pos] = v
                yield from rec(pos + 1)
                counts[v] += 1

    yield from rec(0)


def exact_p(x):
    """Two-sided exact p: the share of orders whose |S| is at least the observed one."""
    s = abs(mk_s(x))
    extreme = total = 0
    for perm in multiset_permutations(Counter(x), len(x)):
        total += 1
        extreme += abs(mk_s(perm)) >= s
    return extreme / total


def normal_p(x):
    n = len(x)
    var = n * (n - 1) * (2 * n + 5)
    var -= sum(t * (t - 1) * (2 * t + 5) for t in Counter(x).values())
    var /= 18
    s = mk_s(x)
    if s == 0 or var == 0:
        return 1.0
    z = (abs(s) - 1) / math.sqrt(var)
    return min(1.0, math.erfc(z / math.sqrt(2)))


# The samples of test_mann_kendall_exact and test_mann_kendall_normal.
SAMPLES = {
    "rising8": [10.2, 10.0, 10.5, 10.4, 10.9, 10.6, 11.0, 10.8],
    "ties9": [5, 7, 5, 6, 7, 8, 6, 8, 9],
    "falling10": [30, 31, 29, 29, 28, 30, 27, 28, 27, 26],
    "flat10": [4, 2, 4, 1, 3, 3, 2, 1, 4, 2],
}


def long60():
    """60 values with many ties and a weak upward trend (normal approximation)."""
    return [(i * 7) % 13 + i // 12 for i in range(60)]


if __name__ == "__main__":
    for name, x in SAMPLES.items():
        print(f"{name}: S = {mk_s(x)}, tau_b = {tau_b(x):.15g}, exact p = {exact_p(x):.15g}")
    x = long60()
    print(f"long60: S = {mk_s(x)}, tau_b = {tau_b(x):.15g}, normal p = {normal_p(x):.15g}")
