#!/usr/bin/env python3
"""Reference p-values for the exact Mann-Whitney test with ties (tests/test_stats.c).

The two-sided p of the rank-sum test under mid-ranks, from the permutation distribution:
every one of the C(n1 + n2, n1) ways to split the pooled values into a first sample of n1
and a second of n2 is equally likely under the null hypothesis, the tie pattern being
fixed; p = min(1, 2 min(P(S <= s), P(S >= s))) with S the first sample's mid-rank sum.
That is scipy.stats.permutation_test(..., permutation_type='independent',
alternative='two-sided') on the rank sum with every permutation enumerated (n_resamples
at least the number of splits), which scipy.stats.mannwhitneyu(method='exact') is not:
it assumes no ties.

Two independent computations, both in exact rational arithmetic:
  brute(): enumerates every split (itertools.combinations), for the small cases;
  count(): counts rank sums value by value (a knapsack over the pooled values, not over
           tie blocks as harness/2-core/stats.c does), for 25 + 25 where enumerating
           C(50, 25) = 1.3e14 splits is out of reach. Checked against brute() below.
Only the standard library is needed: python3 tests/mwu_ties_reference.py
"""
import itertools
import math
from collections import defaultdict
from fractions import Fraction


def midranks(pool):
    s = sorted(pool)
    r, i = {}, 0
    while i < len(s):
        j = i
        while j < len(s) and s[j] == s[i]:
            j += 1
        r[s[i]] = Fraction(i + 1 + j, 2)  # mean of ranks i+1 .. j
        i = j
    return [r[v] for v in pool]


def two_sided(le, ge, total):
    return min(Fraction(1), Fraction(2 * min(le, ge), total))


def brute(a, b):
    ranks = midranks(a + b)
    n1 = len(a)
    obs = sum(ranks[:n1])
    le = ge = total = 0
    for c in itertools.combinations(range(len(ranks)), n1):
        s = sum(ranks[i] for i in c)
        total += 1
        le += s <= obs
        ge += s >= obs
    return two_sided(le, ge, total)


def count(a, b):
    ranks = midranks(a + b)
    n1 = len(a)
    obs = sum(ranks[:n1])
    # dist[k][s]: ways to pick k of the values seen so far with rank sum s
    dist = [defaultdict(int) for _ in range(n1 + 1)]
    dist[0][Fraction(0)] = 1
    for r in ranks:
        for k in range(n1, 0, -1):
            for s, c in list(dist[k - 1].items()):
                dist[k][s + r] += c
    total = sum(dist[n1].values())
    assert total == math.comb(len(ranks), n1)
    le = sum(c for s, c in dist[n1].items() if s <= obs)
    ge = sum(c for s, c in dist[n1].items() if s >= obs)
    return two_sided(le, ge, total)


def u_of(a, b):
    ranks = midranks(a + b)
    return sum(ranks[: len(a)]) - Fraction(len(a) * (len(a) + 1), 2)


CASES = {
    # issue 8, case 2: the normal approximation gives 0.044
    "issue": ([101, 102, 100, 100, 100], [100, 99, 98, 99, 100]),
    "small": ([1, 2, 2, 3, 3, 3, 4], [3, 4, 4, 5, 5, 6]),
    "heavy": ([1, 1, 1, 2, 2, 2, 2, 3, 3, 3], [2, 2, 3, 3, 3, 3, 4, 4, 4, 5]),
    "counts2": ([2, 2], [3, 3]),
    "counts4": ([2, 2, 2, 2], [3, 3, 3, 3]),
    # unequal sizes and an asymmetric tie pattern (the null distribution is not
    # symmetric, so the two tails differ)
    "asym": ([1, 1, 1, 2], [2, 3, 4, 5, 6, 7]),
    # issue 8, case 3: significant, while the change's CI is [+0.00%, +2.04%]
    "interval": ([98, 98, 98, 99, 99, 99], [99, 99, 99, 100, 100, 100]),
}


def normal(a, b):
    """The tie- and continuity-corrected normal approximation, as
    scipy.stats.mannwhitneyu(method='asymptotic', use_continuity=True)."""
    n1, n2 = len(a), len(b)
    N = n1 + n2
    u = u_of(a, b)
    ties = sum(t ** 3 - t for t in (list(a + b).count(v) for v in set(a + b)))
    var = n1 * n2 / 12 * ((N + 1) - ties / (N * (N - 1)))
    z = (float(max(u, n1 * n2 - u)) - n1 * n2 / 2 - 0.5) / math.sqrt(var)
    return min(1.0, math.erfc(z / math.sqrt(2)))


def big(n=25):
    """n + n with ties: a_i = i mod 7, b_j = (j mod 8) + 1, i, j < n."""
    return [i % 7 for i in range(n)], [j % 8 + 1 for j in range(n)]


if __name__ == "__main__":
    for name, (a, b) in CASES.items():
        p = brute(a, b)
        assert p == count(a, b) == brute(b, a)
        print(f"{name}: U = {float(u_of(a, b))}, p = {p} = {float(p)!r}"
              f" (normal approximation {normal(a, b)!r})")
    a, b = big()
    p = count(a, b)
    print(f"big 25+25: U = {float(u_of(a, b))}, p = {p} = {float(p)!r}")
    a, b = big(26)
    print(f"big 26+26 (normal): U = {float(u_of(a, b))}, p = {normal(a, b)!r}")
