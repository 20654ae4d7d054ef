#!/usr/bin/env python3
"""Writes ENTRIES synthetic pmcbench result files (schema pmcbench-result/1) that make a
history of SERIES series of ENTRIES one-sample points each, for timing `pmcbench history
changes` on a large store (bench/history_scale.sh).

Usage: gen_history.py DIR [--series N] [--entries M] [--metrics K] [--seed S]

Each file is one commit's result: N / K benchmarks x K metrics (instructions, cycles, ...),
one run each, created one hour after the one before; a tenth of the series step up by
5% at a point of their own, so that changes has change points to find. Files are
DIR/r00000.json, ...; only the Python standard library is used.
"""
import argparse
import json
import os
import random
import time

METRICS = ["instructions", "cycles", "task-clock", "page-faults", "wall-time",
           "user-time", "system-time", "max-rss", "branch-misses", "cache-misses"]
UNITS = {"task-clock": "ns", "wall-time": "ns", "user-time": "ns", "system-time": "ns",
         "max-rss": "bytes"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--series", type=int, default=1000)
    ap.add_argument("--entries", type=int, default=1000)
    ap.add_argument("--metrics", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    k = min(a.metrics, len(METRICS))
    nbench = max(1, a.series // k)
    rng = random.Random(a.seed)
    # Each series' base level and, for one in ten, the entry its step is at.
    base = [1e6 * (1 + rng.random()) for _ in range(nbench * k)]
    step = [rng.randrange(a.entries // 4, a.entries) if i % 10 == 0 else None
            for i in range(nbench * k)]
    os.makedirs(a.dir, exist_ok=True)
    for e in range(a.entries):
        t = 1767225600 + 3600 * e
        created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
        parts = []
        for b in range(nbench):
            ms = []
            for j in range(k):
                s = b * k + j
                f = 1.05 if step[s] is not None and e >= step[s] else 1.0
                v = round(base[s] * f * (1 + rng.gauss(0, 0.01)))
                ms.append('"%s":{"unit":"%s","better":"lower","samples":[%d]}' %
                          (METRICS[j], UNITS.get(METRICS[j], "count"), v))
            parts.append('{"name":"bench/%05d","runs":[{"exit_code":0}],"metrics":{%s}}' %
                         (b, ",".join(ms)))
        head = {"schema": "pmcbench-result/1", "tool": {"name": "pmcbench", "version": "0.1.0"},
                "created": created, "backend": "perf",
                "environment": {"kernel": "6.1.0-synthetic", "cpu-model": "Synthetic CPU",
                                "hostname": "gen"}}
        with open(os.path.join(a.dir, "r%05d.json" % e), "w") as out:
            out.write(json.dumps(head)[:-1] + ',"benchmarks":[\n' + ",\n".join(parts) + "\n]}\n")


if __name__ == "__main__":
    main()
