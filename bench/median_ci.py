"""The median and its distribution-free 95% interval, for the bench scripts' summaries
(run_overhead.sh, vs_gbench.sh): the narrowest pair of order statistics (k-th,
(n+1-k)-th) that covers the median with probability at least 95%, 1 - 2 P(Binomial(n,
1/2) < k) (Conover, "Practical Nonparametric Statistics", 1999, sec. 3.2)."""
import statistics
from math import comb


def median_interval(v):
    """(median, lo, hi, covers): covers is False when v has too few values (under 6) for a
    95% interval, and lo, hi are then its extremes."""
    v = sorted(v)
    n, k = len(v), 0
    while k + 1 <= n // 2 and 1 - 2 * sum(comb(n, i) for i in range(k + 1)) / 2**n >= 0.95:
        k += 1
    lo, hi = (v[k - 1], v[n - k]) if k else (v[0], v[-1])
    return statistics.median(v), lo, hi, k > 0
