#!/usr/bin/env python3
"""Runs a benchmark program of bench/examples/ briefly and checks what it saved.

Usage: check_example.py PROGRAM [--fit=NAME]... NAME[=METRIC,...]...

The program runs with -r 2 and a tiny --min-time; it must exit 0 and its result JSON
must hold exactly the named benchmarks, each with two runs, a wall-time/op sample per
run, and the metrics listed after its name and '=' (items/s, bytes/s; a name may hold ':',
as Google Benchmark's named arguments do: copy/bytes:64), and exactly the complexity
fits named by --fit= (which fit is not checked: it comes from times). Nothing about the
figures themselves is checked: tests never assert on time."""
import json
import os
import subprocess
import sys
import tempfile

RUNS = 2
BIG_O = ["O(1)", "O(log n)", "O(n)", "O(n log n)", "O(n^2)", "O(n^3)", "O(f(n))"]


def fail(msg):
    print("check_example: " + msg, file=sys.stderr)
    sys.exit(1)


def main():
    if len(sys.argv) < 3:
        fail("usage: check_example.py PROGRAM NAME[=METRIC,...]...")
    prog = sys.argv[1]
    want = {}
    fits = []
    for spec in sys.argv[2:]:
        if spec.startswith("--fit="):
            fits.append(spec[len("--fit="):])
            continue
        name, _, metrics = spec.partition("=")
        want[name] = [m for m in metrics.split(",") if m]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        cmd = [prog, "-r", str(RUNS), "--min-time", "0.001", "-q", "-o", out]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        sys.stdout.write(p.stdout)
        sys.stderr.write(p.stderr)
        if p.returncode != 0:
            fail("%s exited %d, expected 0" % (" ".join(cmd), p.returncode))
        with open(out, encoding="utf-8") as f:
            res = json.load(f)
    if res.get("schema") != "pmcbench-result/1":
        fail("schema %r, expected 'pmcbench-result/1'" % res.get("schema"))
    got = {b["name"]: b for b in res["benchmarks"]}
    if sorted(got) != sorted(want):
        fail("benchmarks %s, expected %s" % (sorted(got), sorted(want)))
    for name, metrics in want.items():
        b = got[name]
        if len(b["runs"]) != RUNS:
            fail("%s: %d runs, expected %d" % (name, len(b["runs"]), RUNS))
        wall = b["metrics"].get("wall-time/op")
        if not wall or wall["unit"] != "ns":
            fail("%s: no wall-time/op in ns: %r" % (name, wall))
        s = wall["samples"]
        if len(s) != RUNS or not all(isinstance(v, (int, float)) and v >= 0 for v in s):
            fail("%s: wall-time/op samples %r, expected %d numbers >= 0" % (name, s, RUNS))
        for m in metrics:
            if m not in b["metrics"] or len(b["metrics"][m]["samples"]) != RUNS:
                fail("%s: no %s with %d samples; it has %s" % (name, m, RUNS,
                                                               sorted(b["metrics"])))
    got_fits = {f["name"]: f for f in res.get("complexity", [])}
    if sorted(got_fits) != sorted(fits):
        fail("complexity fits of %s, expected %s" % (sorted(got_fits), sorted(fits)))
    for name, f in got_fits.items():
        if f["big_o"] not in BIG_O or f["rms"] < 0 or f["points"] < 2:
            fail("%s: a fit that is not one: %r" % (name, f))
    print("ok: %s: %d benchmarks, %d runs each, %d fits" % (os.path.basename(prog), len(want),
                                                            RUNS, len(fits)))


if __name__ == "__main__":
    main()
