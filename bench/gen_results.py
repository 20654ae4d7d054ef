#!/usr/bin/env python3
"""Writes a synthetic pmcbench result file (schema pmcbench-result/1, docs/result-schema.md)
of many benchmarks, for timing `pmcbench compare` and `pmcbench gate` on large inputs.

Usage: gen_results.py OUT.json [--benchmarks N] [--runs R] [--seed S] [--shift PCT]
                               [--shifted FRACTION]

Every benchmark gets ten metrics: five counters with per-run status and raw readings
(instructions, cycles, task-clock, page-faults, context-switches), four from wait4
(wall-time, user-time, system-time, max-rss) and the derived ipc. --shift makes the
first FRACTION of the benchmarks PCT percent slower, so that a pair of files has
regressions to report. Only the Python standard library is used.
"""
import argparse
import json
import random

COUNTERS = [("instructions", "count", 2e6), ("cycles", "count", 1.5e6),
            ("task-clock", "ns", 1e6), ("page-faults", "count", 120),
            ("context-switches", "count", 3)]
RUSAGE = [("wall-time", "ns", 1.2e6), ("user-time", "ns", 8e5),
          ("system-time", "ns", 2e5), ("max-rss", "bytes", 4e6)]


def metric(unit, better, samples, derived=False, raw=None):
    m = {"unit": unit, "better": better, "derived": derived, "simulated": False,
         "cross_group": False, "samples": samples}
    if raw is not None:
        m["status"] = ["counted"] * len(samples)
        m["raw"] = raw
        m["running_fraction"] = [1.0] * len(samples)
    return m


def benchmark(i, rng, runs, factor):
    scale = 1 + (i % 97) / 10.0
    metrics = {}
    per_run = {}
    for name, unit, base in COUNTERS:
        vals = [round(base * scale * factor * (1 + rng.gauss(0, 0.01))) for _ in range(runs)]
        if name == "context-switches":
            vals = [max(0, round(base + rng.gauss(0, 1))) for _ in range(runs)]
        enabled = [int(1e6 * scale * (1 + rng.random() * 0.01)) for _ in range(runs)]
        raw = [[v, e, e] for v, e in zip(vals, enabled)]
        metrics[name] = metric(unit, "lower", vals, raw=raw)
        per_run[name] = vals
    for name, unit, base in RUSAGE:
        vals = [round(base * scale * factor * (1 + abs(rng.gauss(0, 0.02)))) for _ in range(runs)]
        metrics[name] = metric(unit, "lower", vals)
    ipc = [ins / cyc for ins, cyc in zip(per_run["instructions"], per_run["cycles"])]
    metrics["ipc"] = metric("ratio", "higher", ipc, derived=True)
    return {"name": "bench/%05d" % i, "command": "./bench --case %d" % i, "build_id": None,
            "runs": [{"exit_code": 0, "signal": 0, "timed_out": False}] * runs,
            "metrics": metrics}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--benchmarks", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--shift", type=float, default=0.0, help="percent slower")
    ap.add_argument("--shifted", type=float, default=0.01, help="fraction of benchmarks")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    head = {"schema": "pmcbench-result/1", "tool": {"name": "pmcbench", "version": "0.1.0"},
            "created": "2026-01-01T00:00:00Z", "backend": "perf",
            "environment": {"kernel": "6.1.0-synthetic", "cpu-model": "Synthetic CPU",
                            "perf_event_paranoid": "2"}}
    nshift = int(a.benchmarks * a.shifted) if a.shift else 0
    # Written one benchmark at a time so that the generator's memory stays small.
    with open(a.out, "w") as f:
        f.write(json.dumps(head)[:-1] + ', "benchmarks": [\n')
        for i in range(a.benchmarks):
            factor = 1 + a.shift / 100.0 if i < nshift else 1.0
            f.write((",\n" if i else "") + json.dumps(benchmark(i, rng, a.runs, factor)))
        f.write("\n]}\n")


if __name__ == "__main__":
    main()
