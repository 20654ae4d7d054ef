#!/usr/bin/env python3
"""Writes a synthetic pmcbench result file (schema pmcbench-result/1, docs/result-schema.md)
of many benchmarks, for timing `pmcbench compare` and `pmcbench gate` on large inputs.

Usage: gen_results.py OUT.json [--benchmarks N] [--runs R] [--seed S] [--shift PCT]
                               [--shifted FRACTION]

Every benchmark gets ten metrics: five counters with per-run status and raw readings
(instructions, cycles, task-clock, page-faults, context-switches), four from wait4
(wall-time, user-time, system-time, max-rss) and the derived ipc. --shift makes the
first FRACTION of the benchmarks PCT percent slower, so that a pair of files has
regressions to report. The text is laid out as pmcbench writes it: compact, with a line
per top-level member, benchmark head and metric. Only the Python standard library is used.
"""
import argparse
import json
import random

COUNTERS = [("instructions", "count", 2e6), ("cycles", "count", 1.5e6),
            ("task-clock", "ns", 1e6), ("page-faults", "count", 120),
            ("context-switches", "count", 3)]
RUSAGE = [("wall-time", "ns", 1.2e6), ("user-time", "ns", 8e5),
          ("system-time", "ns", 2e5), ("max-rss", "bytes", 4e6)]


def dumps(v):
    return json.dumps(v, separators=(",", ":"))


def metric(unit, better, samples, derived=False, raw=None):
    # Members holding their default (false) are left out, as pmcbench does.
    m = {"unit": unit, "better": better}
    if derived:
        m["derived"] = True
    m["samples"] = samples
    if raw is not None:
        # Every run counted: one status for all, and the raw readings as parallel arrays.
        m["status"] = "counted"
        m["raw"] = raw
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
        raw = {"value": vals, "time_enabled": enabled, "time_running": enabled}
        metrics[name] = metric(unit, "lower", vals, raw=raw)
        per_run[name] = vals
    for name, unit, base in RUSAGE:
        vals = [round(base * scale * factor * (1 + abs(rng.gauss(0, 0.02)))) for _ in range(runs)]
        metrics[name] = metric(unit, "lower", vals)
    ipc = [ins / cyc for ins, cyc in zip(per_run["instructions"], per_run["cycles"])]
    metrics["ipc"] = metric("ratio", "higher", ipc, derived=True)
    return {"name": "bench/%05d" % i, "command": "./bench --case %d" % i, "build_id": None,
            "runs": [{"exit_code": 0}] * runs,
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
        f.write("{" + ",\n".join(dumps(k) + ":" + dumps(v) for k, v in head.items()))
        f.write(',\n"benchmarks":[')
        for i in range(a.benchmarks):
            factor = 1 + a.shift / 100.0 if i < nshift else 1.0
            b = benchmark(i, rng, a.runs, factor)
            metrics = b.pop("metrics")
            f.write((",\n" if i else "\n") + dumps(b)[:-1] + ',"metrics":{')
            f.write(",".join("\n" + dumps(k) + ":" + dumps(v) for k, v in metrics.items()))
            f.write("}}")
        f.write("\n]}\n" if a.benchmarks else "]}\n")


if __name__ == "__main__":
    main()
