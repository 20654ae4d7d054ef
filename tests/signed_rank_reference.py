#!/usr/bin/env python3
"""Reference values for the paired statistics (tests/test_signed_rank.c, test_sequential.c).

Wilcoxon signed-rank test, zeros dropped (Wilcoxon's convention, scipy's default
zero_method='wilcox'), mid-ranks for tied |d|, two-sided p from the permutation
distribution of T+ given the |d|: each of the 2^n' sign patterns of the n' nonzero
differences is equally likely under the null hypothesis (d symmetric about 0), and
p = min(1, 2 min(P(T+ <= t), P(T+ >= t))). That is
scipy.stats.permutation_test((d,), T+, permutation_type='samples', alternative='two-sided')
with every pattern enumerated; without ties it equals scipy.stats.wilcoxon(d,
method='exact') and R's wilcox.test(d, exact=TRUE).

Two independent computations of the distribution, in exact rational arithmetic:
  brute(): enumerates every sign pattern (itertools.product), up to n' = 20;
  count(): a knapsack over the values with Fraction mid-ranks (harness/2-core/signed_rank.c
           counts over doubled integer ranks instead), checked against brute() below.
normal(): the tie- and continuity-corrected normal approximation, the formula of
scipy.stats.wilcoxon(d, zero_method='wilcox', correction=True, method='approx').

Hodges-Lehmann: the median of the n (n + 1) / 2 Walsh averages (d_i + d_j) / 2, i <= j,
by sorting them all; the interval [W_(k), W_(M-k+1)] with k the largest integer such
that P(T <= k - 1) <= (1 - conf) / 2 under the signed-rank distribution without ties for
all n differences (Hollander & Wolfe 1999, sec. 3.3), enumerated up to n = 20, counted
beyond, and k = floor(n (n + 1) / 4 + z sigma + 1/2) past 50.

Sequential rule: the order k(t) of the confidence sequence for the median after t
rounds, [d_(k), d_(t-k+1)], from the uniform-prior beta-binomial mixture: a count s of
values below the median is rejected when 2^t / ((t + 1) C(t, s)) >= 1 / alpha; k(t) is
the smallest s that is not rejected. Exact integer arithmetic here; the C code uses logs.

Only the standard library is needed: python3 tests/signed_rank_reference.py
"""
import itertools
import math
from collections import defaultdict
from fractions import Fraction
from statistics import NormalDist


def midranks_abs(d):
    """Mid-ranks of |d| for the nonzero d (zeros dropped), with their signs."""
    nz = [x for x in d if x != 0]
    order = sorted(abs(x) for x in nz)
    r, i = {}, 0
    while i < len(order):
        j = i
        while j < len(order) and order[j] == order[i]:
            j += 1
        r[order[i]] = Fraction(i + 1 + j, 2)  # mean of ranks i+1 .. j
        i = j
    return [(r[abs(x)], x > 0) for x in nz]


def t_plus(d):
    return sum(rk for rk, pos in midranks_abs(d) if pos)


def two_sided(le, ge, total):
    return min(Fraction(1), Fraction(2 * min(le, ge), total))


def brute(d):
    rs = midranks_abs(d)
    obs = t_plus(d)
    le = ge = total = 0
    for signs in itertools.product((False, True), repeat=len(rs)):
        s = sum(rk for (rk, _), pos in zip(rs, signs) if pos)
        total += 1
        le += s <= obs
        ge += s >= obs
    return two_sided(le, ge, total)


def count(d):
    rs = midranks_abs(d)
    obs = t_plus(d)
    dist = defaultdict(int)
    dist[Fraction(0)] = 1
    for rk, _ in rs:
        nxt = defaultdict(int)
        for s, c in dist.items():
            nxt[s] += c
            nxt[s + rk] += c
        dist = nxt
    total = sum(dist.values())
    assert total == 2 ** len(rs)
    le = sum(c for s, c in dist.items() if s <= obs)
    ge = sum(c for s, c in dist.items() if s >= obs)
    return two_sided(le, ge, total)


def normal(d):
    """scipy.stats.wilcoxon(method='approx', correction=True), zeros dropped."""
    rs = midranks_abs(d)
    n = len(rs)
    if n == 0:
        return 1.0  # every difference is zero: no evidence either way
    t = float(t_plus(d))
    mu = n * (n + 1) / 4
    ties = defaultdict(int)
    for rk, _ in rs:
        ties[rk] += 1
    var = n * (n + 1) * (2 * n + 1) / 24 - sum(c ** 3 - c for c in ties.values()) / 48
    z = max(0.0, abs(t - mu) - 0.5) / math.sqrt(var)
    return min(1.0, 2 * NormalDist().cdf(-z))


def untied_counts(n):
    """Counts of T = 0 .. n (n + 1) / 2 for ranks 1..n without ties."""
    f = [1] + [0] * (n * (n + 1) // 2)
    for r in range(1, n + 1):
        for v in range(len(f) - 1, r - 1, -1):
            f[v] += f[v - r]
    return f


def untied_counts_brute(n):
    f = [0] * (n * (n + 1) // 2 + 1)
    for signs in itertools.product((0, 1), repeat=n):
        f[sum(r for r, s in zip(range(1, n + 1), signs) if s)] += 1
    return f


def critical_k(n, conf):
    tail = Fraction(1 - Fraction(conf).limit_denominator(10 ** 6), 2)
    if n > 50:
        mu = n * (n + 1) / 4
        sigma = math.sqrt(n * (n + 1) * (2 * n + 1) / 24)
        return max(0, math.floor(mu + NormalDist().inv_cdf(float(tail)) * sigma + 0.5))
    f = untied_counts_brute(n) if n <= 20 else untied_counts(n)
    total, k, run = 2 ** n, 0, 0
    while k < len(f):
        run += f[k]
        if Fraction(run, total) > tail:
            break
        k += 1
    return min(k, (n * (n + 1) // 2 + 1) // 2)


def walsh(d):
    v = sorted(d)
    return sorted(v[i] / 2 + v[j] / 2 for i in range(len(v)) for j in range(i, len(v)))


def hodges_lehmann(d, conf):
    w = walsh(d)
    m = len(w)
    shift = w[m // 2] if m % 2 else w[m // 2 - 1] + (w[m // 2] - w[m // 2 - 1]) / 2
    k = critical_k(len(d), conf)
    if k == 0:
        return shift, k, None, None
    return shift, k, w[k - 1], w[m - k]


def seq_order(t, alpha):
    """Smallest s <= t/2 that the beta-binomial mixture does not reject, exactly:
    rejected when 2^t / ((t + 1) C(t, s)) >= 1 / alpha."""
    alpha = Fraction(alpha).limit_denominator(10 ** 6)
    s = 0
    while s <= t // 2 and Fraction(2 ** t, (t + 1) * math.comb(t, s)) >= 1 / alpha:
        s += 1
    return s


# Hollander & Wolfe (1999), Example 3.1: Hamilton depression scale factor IV of nine
# patients at the first (x) and second (y) visit after a tranquilizer (Salsburg 1970).
HW_X = [1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30]
HW_Y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29]

# Darwin's Zea mays, crossed minus self-fertilised heights of 15 pairs, in eighths of an
# inch (R. A. Fisher, The Design of Experiments, 1935, sec. 17).
DARWIN = [49, -67, 8, 16, 6, 23, 28, 41, 14, 29, 56, 24, 75, 60, -48]

CASES = {
    "hw31": [x - y for x, y in zip(HW_X, HW_Y)],
    "darwin": DARWIN,
    # zeros and tied |d| across signs
    "ties": [0, 0, 1.5, -1.5, 2, 2, 3, -0.5, 3, 4, 2, -2],
    # every nonzero difference positive, with zeros: the test rejects, the interval
    # (zeros are Walsh averages of 0) does not
    "zeros": [0, 0, 0, 0, 0.01, 0.02, 0.01, 0.03, 0.02, 0.04],
    # a discrete counter: +1 in most rounds
    "counter": [1, 1, 0, 1, 1, 2, 1, -1, 1, 1, 0, 1],
    "all_zero": [0, 0, 0],
}


def boundary(n_nonzero):
    """n_nonzero nonzero differences with heavy ties, plus two zeros:
    d_i = (i mod 9) - 3 for the nonzero ones, in a fixed order."""
    d = [0, 0]
    i = 0
    while len(d) < n_nonzero + 2:
        v = (i * 5) % 9 - 3
        i += 1
        if v != 0:
            d.append(v)
    return d


def log_ratio_case():
    """Per-round log ratios of a small paired A/B table."""
    a = [100.0, 102.0, 98.0, 101.0, 99.0, 103.0, 100.0, 97.0, 101.0, 100.0]
    b = [104.0, 103.0, 101.0, 105.0, 100.0, 108.0, 103.0, 99.0, 106.0, 102.0]
    return [math.log(y / x) for x, y in zip(a, b)]


def untied(n):
    """n distinct |d|: d_i = (-1)^(i mod 3 == 0) (i + 1) * 0.37 + i / 1000."""
    return [(-1 if i % 3 == 0 else 1) * ((i + 1) * 0.37 + i / 1000) for i in range(n)]


def mixed(n):
    """n distinct values around a small positive shift:
    d_i = ((7919 i) mod n - 0.48 n) / 100 + i / 10^7."""
    return [((7919 * i) % n - 0.48 * n) / 100 + i / 10 ** 7 for i in range(n)]


def show_test(name, d, exact=True):
    rs = midranks_abs(d)
    if exact:
        p = count(d)
        if len(rs) <= 20:
            assert p == brute(d), name
        print(f"{name}: n' = {len(rs)}, T+ = {float(t_plus(d))}, p = {p} = {float(p)!r}"
              f" (normal {normal(d)!r})")
    else:
        print(f"{name}: n' = {len(rs)}, T+ = {float(t_plus(d))}, normal p = {normal(d)!r}")


def show_hl(name, d, conf=0.95):
    shift, k, lo, hi = hodges_lehmann(d, conf)
    print(f"  HL {conf}: n = {len(d)}, k = {k}, shift = {shift!r}, CI [{lo!r}, {hi!r}]")


if __name__ == "__main__":
    for n in range(1, 17):
        assert untied_counts(n) == untied_counts_brute(n)
    for name, d in CASES.items():
        show_test(name, d)
        if len(d) >= 2:
            show_hl(name, d)
    show_hl("hw31", CASES["hw31"], 0.90)
    show_test("log_ratio", log_ratio_case())
    show_hl("log_ratio", log_ratio_case())
    d = boundary(50)
    show_test("boundary50", d)
    d = boundary(51)
    show_test("boundary51", d, exact=False)
    d = untied(50)
    show_test("untied50", d)
    show_hl("untied50", d)
    d = untied(60)
    show_test("untied60", d, exact=False)
    show_hl("untied60", d)
    d = mixed(1000)
    show_test("mixed1000", d, exact=False)
    show_hl("mixed1000", d)
    # The classical two-sided 0.05 critical values of T (largest T with
    # P(T <= T) <= 0.025), printed in most textbooks: 8, 25, 52, 137, 434.
    for n in (6, 10, 15, 20, 30, 50):
        print(f"critical T at n = {n}, two-sided 0.05: {critical_k(n, 0.95) - 1}")
    for t in (7, 8, 10, 20, 30, 50, 100, 1000):
        print(f"sequential order k({t}) at alpha 0.05: {seq_order(t, 0.05)}")
    print(f"sequential order k(100) at alpha 0.01: {seq_order(100, 0.01)}")
    print("sequential orders k(1..40) at alpha 0.05:", [seq_order(t, 0.05) for t in range(1, 41)])
    for alpha in (0.05, 0.01):
        t = 1
        while seq_order(t, alpha) == 0:
            t += 1
        print(f"first bounded round at alpha {alpha}: {t}")
