#!/usr/bin/env python3
"""Calibration of the outlier and two-modes thresholds of harness/2-core/health.c.

Draws clean unimodal samples (normal, lognormal with a CV of 3% and 30%, exponential,
uniform) with a fixed seed and prints, per n, how often each check would fire:
- outliers: some value more than OUTLIER_SEVERE robust sigmas (1.4826 MAD) from the median;
- two modes: the largest gap leaving >= 20% (and 3) values on each side spans at least
  MODE_GAP_K / n pooled standard deviations of the two sides;
and the 99.9% quantile of n * gap / sd, which is what MODE_GAP_K bounds. The 1% floor
relative to the median and the resolution rule of health.c are left out: they only
lower these rates. docs/statistics.md ("Sample health") quotes larger runs of the same
simulation; with the default 20,000 samples per row it takes about a minute:

    python3 tests/health_calibrate.py [samples] [n ...]
"""
import math
import random
import statistics
import sys

MODE_GAP_K = 60.0
OUTLIER_SEVERE = 10.0
MODE_MIN_SHARE = 0.2
MODE_MIN_GROUP = 3


def lognormal(rng, cv):
    s2 = math.log(1 + cv * cv)
    return math.exp(-s2 / 2 + math.sqrt(s2) * rng.gauss(0, 1))


DISTRIBUTIONS = {
    "normal": lambda rng: rng.gauss(0, 1),
    "lognormal CV 3%": lambda rng: lognormal(rng, 0.03),
    "lognormal CV 30%": lambda rng: lognormal(rng, 0.3),
    "exponential": lambda rng: rng.expovariate(1),
    "uniform": lambda rng: rng.random(),
}


def gap_statistic(x):
    """n * gap / pooled sd at the largest admissible gap of sorted x."""
    n = len(x)
    least = max(MODE_MIN_GROUP, math.ceil(MODE_MIN_SHARE * n))
    k = max(range(least, n - least + 1), key=lambda i: (x[i] - x[i - 1], -i))
    lo, hi = x[:k], x[k:]
    ss = sum((v - statistics.fmean(lo)) ** 2 for v in lo)
    ss += sum((v - statistics.fmean(hi)) ** 2 for v in hi)
    sd = math.sqrt(ss / (n - 2))
    return math.inf if sd == 0 else n * (x[k] - x[k - 1]) / sd


def severe_outlier(x):
    med = statistics.median(x)
    sigma = 1.4826 * statistics.median(abs(v - med) for v in x)
    return any(abs(v - med) > OUTLIER_SEVERE * sigma for v in x)


def main():
    samples = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    sizes = [int(a) for a in sys.argv[2:]] or [8, 10, 20, 50, 100]
    print(f"{samples} samples per row; rates in %")
    print(f"{'distribution':18} {'n':>4} {'outliers':>9} {'two modes':>10} {'n gap/sd q99.9':>15}")
    for name, draw in DISTRIBUTIONS.items():
        rng = random.Random(f"pmcbench health {name}")
        for n in sizes:
            outliers = modes = 0
            stats = []
            for _ in range(samples):
                x = sorted(draw(rng) for _ in range(n))
                outliers += severe_outlier(x)
                if n >= 10:
                    g = gap_statistic(x)
                    stats.append(g)
                    modes += g >= MODE_GAP_K
            q = sorted(stats)[int(0.999 * len(stats))] if stats else math.nan
            m = f"{100 * modes / samples:10.3f}" if stats else f"{'-':>10}"
            print(f"{name:18} {n:4} {100 * outliers / samples:9.3f} {m} {q:15.1f}")


if __name__ == "__main__":
    main()
