#!/usr/bin/env python3
"""The table of bench/ab_experiment.sh, from the measurements it left in TMPDIR.

Usage: ab_summary.py TMPDIR PMCBENCH REPS ROUNDS MAX_RUNS N N2 N5 LOAD_START LOAD_END
                     T_START T_END
"""
import json
import math
import os
import re
import statistics
import subprocess
import sys

(tmp, pmcbench, reps, rounds, max_runs, n, n2, n5, load0, load1, t_start, t_end) = sys.argv[1:]
reps, rounds, max_runs = int(reps), int(rounds), int(max_runs)

DESIGNS = ["unpaired", "separate", "paired", "duet", "seq", "duet-seq"]
SEQUENTIAL = {"seq", "duet-seq"}
CASES = ["aa", "p2", "p5"]
CASE_NAME = {"aa": "A/A", "p2": "+2%", "p5": "+5%"}


def task_clock(bench):
    """{round (or run index): task-clock} of one benchmark of a result."""
    xs = bench["metrics"]["task-clock"]["samples"]
    runs = bench.get("runs") or [{} for _ in xs]
    return {r.get("round", k + 1): x for k, (x, r) in enumerate(zip(xs, runs)) if x is not None}


def change_column(path):
    """'slower', 'faster' or '~' from the row B of a comparison table (`run --report`).

    `run` writes its comparison as a table or Markdown only, so the "change (HL)"
    column is read: '~' when not significant, else the signed estimate and its CI."""
    with open(path) as f:
        for line in f:
            if line.startswith("B "):
                m = re.search(r"\s(~|[+-][0-9.]+%)\s", line)
                if m:
                    return {"~": "~", "+": "slower", "-": "faster"}[m.group(1)[0]]
    raise SystemExit(f"ab_summary: no row B with a change in {path}")


def compare_json(path):
    """'slower', 'faster' or '~' from a `compare --format json` report."""
    with open(path) as f:
        row = json.load(f)["metrics"][0]["rows"][0]
    return "~" if not row.get("significant") else ("slower" if row["ratio"] > 1 else "faster")


def measurement(design, case, rep, start, end, code, asked):
    f = os.path.join(tmp, "m", f"{design}.{case}.{rep}")
    m = {"design": design, "case": case, "wall": float(end) - float(start), "gate": int(code),
         "asked": int(asked)}
    if design == "separate":
        with open(f + ".a.json") as fa, open(f + ".b.json") as fb:
            a, b = task_clock(json.load(fa)["benchmarks"][0]), task_clock(json.load(fb)["benchmarks"][0])
        m["rounds"] = rounds
        m["signif"] = compare_json(f + ".cmp.json")
    else:
        with open(f + ".json") as fr:
            r = json.load(fr)
        a, b = task_clock(r["benchmarks"][0]), task_clock(r["benchmarks"][1])
        m["rounds"] = r["design"]["rounds"]
        # After --runs auto the table is descriptive: the sequential rule decides (gate).
        m["signif"] = None if design in SEQUENTIAL else change_column(f + ".txt")
        # How much the two runs of a round move together: what pairing can cancel.
        ks = [k for k in a if k in b and a[k] > 0 and b[k] > 0]
        la, lb = [math.log(a[k]) for k in ks], [math.log(b[k]) for k in ks]
        try:
            m["corr"] = statistics.correlation(la, lb)
        except statistics.StatisticsError:  # fewer than 2 rounds, or no spread
            m["corr"] = None
    xa = list(a.values())
    ma = statistics.median(xa)
    m["cv"] = 100 * statistics.stdev(xa) / statistics.mean(xa)
    m["mad"] = 100 * statistics.median(abs(x - ma) for x in xa) / ma
    m["slow"] = [x > 1.1 * ma for x in xa]
    m["effect"] = statistics.median(b.values()) / statistics.median(xa) - 1
    m["file"] = f
    return m


with open(os.path.join(tmp, "records")) as f:
    # The calibration's measurements (calib-*) only set the duet's first rounds.
    ms = [measurement(*line.split()) for line in f if line.split()[0] in DESIGNS]

# Each interleaved or duet result split into one file per command and compared with
# `compare --format json`: Mann-Whitney U on the same runs. For the unpaired design that
# is the test `run --unpaired` made, which checks the reading of its table; for the
# paired and duet designs it separates what the test does from what the runs are.
def unpaired_on_same_runs(m):
    with open(m["file"] + ".json") as fr:
        r = json.load(fr)
    files = []
    for k, bench in enumerate(r["benchmarks"]):
        one = dict(r, benchmarks=[dict(bench, name="w")])
        one.pop("design", None)
        files.append(os.path.join(tmp, f"split{k}.json"))
        with open(files[-1], "w") as fo:
            json.dump(one, fo)
    out = subprocess.run([pmcbench, "compare", "--force", "--metric", "task-clock",
                          "--format", "json", *files], capture_output=True, text=True, check=True)
    row = json.loads(out.stdout)["metrics"][0]["rows"][0]
    return "~" if not row.get("significant") else ("slower" if row["ratio"] > 1 else "faster")


for m in ms:
    if m["design"] in ("unpaired", "paired", "duet"):
        m["mwu"] = unpaired_on_same_runs(m)
checked = [m for m in ms if m["design"] == "unpaired"]
agree = sum(1 for m in checked if m["mwu"] == m["signif"])
checked = len(checked)


def cell(sel, hit):
    """'k/n pct%' of the measurements sel for which hit holds."""
    if not sel:
        return "-"
    k = sum(1 for m in sel if hit(m))
    return f"{k}/{len(sel)} {100 * k / len(sel):.0f}%"


def med(xs, fmt):
    xs = [x for x in xs if x is not None]
    return fmt.format(statistics.median(xs)) if xs else "-"


def pick(design, case=None):
    return [m for m in ms if m["design"] == design and (case is None or m["case"] == case)]


def asked(design):
    """The rounds asked for (the cap of a sequential design): 'k', or 'mean (lo-hi)'."""
    xs = [m["asked"] for m in pick(design)]
    if min(xs) == max(xs):
        return f"{xs[0]}"
    return f"{statistics.mean(xs):.1f} ({min(xs)}-{max(xs)})"


def rounds_text(design):
    if design == "separate":
        return f"{rounds}+{rounds} runs"
    if design in SEQUENTIAL:
        return f"auto <= {asked(design)}"
    return asked(design)


def signif_any(m):
    return m["signif"] in ("slower", "faster")


print(f"ab_experiment: {reps} repetitions; each repetition measures A/A, +2% and +5% with every design")
print(f"A = pmc-work loop {n}; B = A (A/A), loop {n2} (+2%), loop {n5} (+5%); task-clock only;")
print("alpha 0.05; gate = --gate --threshold task-clock=+1% (exit 1); the duet's rounds are set before every")
print("  repetition for the wall time of R interleaved rounds (its sequential cap likewise)")
print(f"{os.cpu_count()} CPUs; load average {load0} at the start, {load1} at the end; "
      f"{float(t_end) - float(t_start):.0f} s in all")
print()
head = ["design", "rounds", "wall/meas", "wall total", "CV A", "MAD A", "slow A", "r(A,B)", "A/A signif", "A/A gate",
        "+2% slower", "+2% gate", "+5% slower", "+5% gate"]
rows = []
for d in DESIGNS:
    sel = pick(d)
    if not sel:
        continue
    fixed = d not in SEQUENTIAL
    rows.append([
        d, rounds_text(d), med([m["wall"] for m in sel], "{:.2f} s"), f"{sum(m['wall'] for m in sel):.0f} s",
        med([m["cv"] for m in sel], "{:.1f}%"), med([m["mad"] for m in sel], "{:.1f}%"),
        f"{100 * statistics.mean(x for m in sel for x in m['slow']):.0f}%",
        med([m.get("corr") for m in sel], "{:.2f}"),
        cell(pick(d, "aa"), signif_any) if fixed else "-",
        cell(pick(d, "aa"), lambda m: m["gate"] == 1),
        cell(pick(d, "p2"), lambda m: m["signif"] == "slower") if fixed else "-",
        cell(pick(d, "p2"), lambda m: m["gate"] == 1),
        cell(pick(d, "p5"), lambda m: m["signif"] == "slower") if fixed else "-",
        cell(pick(d, "p5"), lambda m: m["gate"] == 1),
    ])
widths = [max(len(r[k]) for r in rows + [head]) for k in range(len(head))]
for r in [head] + rows:
    print("  ".join(x.ljust(w) for x, w in zip(r, widths)).rstrip())
print()

# The sequential designs' decisions and the rounds they took, per case.
for d in [d for d in DESIGNS if d in SEQUENTIAL and pick(d)]:
    parts = []
    for c in CASES:
        sel = pick(d, c)
        rs = [m["rounds"] for m in sel]
        parts.append(f"{CASE_NAME[c]}: {cell(sel, lambda m: m['gate'] == 1).split()[0]} regression, "
                     f"{cell(sel, lambda m: m['gate'] == 0).split()[0]} no regression, "
                     f"{cell(sel, lambda m: m['gate'] == 3).split()[0]} undecided, "
                     f"rounds mean {statistics.mean(rs):.1f} ({min(rs)}-{max(rs)}), "
                     f"wall {statistics.mean(m['wall'] for m in sel):.2f} s")
    print(f"{d}:")
    for p in parts:
        print("  " + p)
print()

eff = {c: statistics.median(m["effect"] for m in ms if m["case"] == c and m["design"] not in ("duet", "duet-seq"))
       for c in CASES}
eff_duet = {c: statistics.median(m["effect"] for m in pick("duet", c)) if pick("duet", c) else None for c in CASES}
print("measured change of task-clock, median over the measurements of median(B)/median(A) - 1: "
      + ", ".join(f"{CASE_NAME[c]} {100 * eff[c]:+.2f}%" for c in CASES)
      + ("; in duets " + ", ".join(f"{CASE_NAME[c]} {100 * eff_duet[c]:+.2f}%" for c in CASES)
         if eff_duet["aa"] is not None else ""))
print(f"signif: the comparison calls task-clock significantly different (A/A, either way) or slower;")
print(f"  read from the report's change column (`run --report`) or `compare --format json` (separate);")
print(f"  the table reading agreed with `compare --format json` of the same runs in {agree}/{checked} unpaired measurements.")
print("CV A, MAD A: medians over the measurements of A's task-clock stddev/mean and median absolute")
print("  deviation/median; slow A: share of A's runs more than 10% above their measurement's median;")
print("  r(A,B): median over the measurements of the correlation of log task-clock of A and B within a")
print("  round (what pairing can cancel: 0 when the noise hits runs independently; - for separate files).")
print("wall/meas: median wall time of one measurement (all of its pmcbench commands); wall total: their sum.")
for d in ("paired", "duet"):
    if pick(d):
        print(f"{d}'s own runs tested unpaired (Mann-Whitney, `compare` of the two halves) instead: A/A signif "
              f"{cell(pick(d, 'aa'), lambda m: m['mwu'] != '~')}, +2% slower {cell(pick(d, 'p2'), lambda m: m['mwu'] == 'slower')}, "
              f"+5% slower {cell(pick(d, 'p5'), lambda m: m['mwu'] == 'slower')}")
print()


def rate(d, c, hit):
    sel = pick(d, c)
    return sum(1 for m in sel if hit(m)) / len(sel) if sel else float("nan")


def wilson(p, n):
    """The Wilson 95% interval of a rate p seen in n repetitions, as 'lo-hi%'."""
    z = 1.96
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return f"{100 * max(0, mid - half):.0f}-{100 * min(1, mid + half):.0f}%"


gate1 = lambda m: m["gate"] == 1  # noqa: E731
slower = lambda m: m["signif"] == "slower"  # noqa: E731
print("targets (issue 10):")
fa = {d: max(rate(d, "aa", gate1), rate(d, "aa", signif_any) if d not in SEQUENTIAL else 0)
      for d in DESIGNS if pick(d)}
print("  false alarms <= 5% for every design: " + ("met" if all(v <= 0.05 for v in fa.values()) else "NOT met")
      + " (" + ", ".join(f"{d} {100 * v:.0f}%" for d, v in fa.items()) + ";")
print(f"    the larger of signif and gate; {reps} repetitions: 0 alarms is 0-{wilson(0, reps).split('-')[1]}, "
      f"a true 5% is {wilson(0.05, reps)} (Wilson 95%))")
det = {d: rate(d, "p5", slower) for d in ("unpaired", "paired", "duet") if pick(d)}
best = max(det.get("paired", 0), det.get("duet", 0))
print(f"  +5% detected >= 90% by paired or duet: {'met' if best >= 0.9 else 'NOT met'} "
      f"(paired {100 * det.get('paired', float('nan')):.0f}%, duet {100 * det.get('duet', float('nan')):.0f}%; "
      f"unpaired {100 * det.get('unpaired', float('nan')):.0f}%, expected about 55-65%; "
      f"Wilson 95%: paired {wilson(det.get('paired', 0), reps)}, duet {wilson(det.get('duet', 0), reps)}, "
      f"unpaired {wilson(det.get('unpaired', 0), reps)})")
for d, fixed in (("seq", "paired"), ("duet-seq", "duet")):
    if not pick(d) or not pick(fixed):
        continue
    fixed_rounds = statistics.mean(m["asked"] for m in pick(fixed))
    r5 = statistics.mean(m["rounds"] for m in pick(d, "p5"))
    ok = (rate(d, "aa", gate1) <= 0.05 and rate(d, "p5", gate1) >= 0.9 and r5 <= fixed_rounds / 2)
    print(f"  {d}: <= 5% false alarms, >= 90% of +5% caught, in <= half of {fixed}'s {fixed_rounds:.3g} rounds: "
          f"{'met' if ok else 'NOT met'} (false alarms {100 * rate(d, 'aa', gate1):.0f}%, "
          f"+5% caught {100 * rate(d, 'p5', gate1):.0f}% in {r5:.1f} rounds on average"
          + ("; no decision is possible before round 8" if fixed_rounds / 2 < 8 else "") + ")")
