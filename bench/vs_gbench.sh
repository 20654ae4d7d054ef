#!/bin/bash
# pmcbench's microbenchmark library side by side with Google Benchmark 1.7 on the same
# bodies (issue targets P2 and P6). The bodies are one object file, bench/vs_gbench_bodies.c
# compiled once by cc and linked into both programs, bench/vs_gbench_pmc.c and
# bench/vs_gbench_gb.cc: an LCG of 1 step and of 1000 dependent steps per iteration,
# memcpy of 64 B, 4 KiB and 1 MiB, a lookup in a half-full open-addressing hash table of
# 2048 keys, and qsort of 1000 ints with the copy of the unsorted input included. Each
# tool puts only its own loop around a call of the body: pmcbench PMC_LOOP (its count in
# a register), Google Benchmark its range-for. So both time the same instructions on data
# at the same page offsets (an inlined body was laid out differently by gcc and g++
# around the two loops; bench/README.md, "vs_gbench.sh").
#
# Each repetition runs each tool's whole program, as its users run it, in three
# configurations:
#   pmcbench         its defaults: per benchmark -r 8 samples over --processes 8 new execs
#                    of the program, interleaved across the benchmarks, --min-time 0.01 s
#                    of CPU time per sample;
#   gbench default   its defaults: --benchmark_min_time 0.5 s per benchmark, one after
#                    the other in one process;
#   gbench matched   --benchmark_min_time T, T chosen so that Google Benchmark's program
#                    takes as long as pmcbench's (the same wall time).
# T comes from a pilot before the measurement (see "Pilot" below; the tries are
# printed). Then REPS repetitions (default 10), the order of the three reversed every
# other repetition. The library is copied first, so that a rebuild meanwhile does not
# change it. (Until 2026-12-04 each body ran in a program of its own per tool, with
# --filter: that took from pmcbench the spreading of each benchmark's processes over
# the whole run, which is what its defaults are for; bench/README.md.)
#
# The figure per benchmark and program run is the CPU time per operation: pmcbench's
# median over all its samples (all its processes pooled) of `task-clock/op` in its -o
# JSON; Google Benchmark's `cpu_time` in --benchmark_format=json. Neither subtracts
# anything: both are the whole timed loop over its iterations, the loop's bookkeeping
# included (pmcbench keeps the empty loop's own cost beside each metric,
# `loop_overhead`, which is printed for information and not subtracted;
# docs/microbench.md, "Overhead"). Per body and configuration the script prints the
# median over the repetitions and its spread (MAD/median, MAD unscaled, and
# (max-min)/median); per configuration the median wall time of the whole program (what
# it takes to get the answers); the ratios to Google Benchmark at its default, and the
# targets:
#   P2  per-op CPU time within 3% of Google Benchmark's cpu_time (at its default): the
#       median of the per-repetition ratios (the tools run next to each other in each
#       repetition, so the machine's drift cancels) with its 95% interval, and the ratio
#       of the two medians beside it;
#       spread no worse than Google Benchmark's at the same wall time (matched), and
#       against its default too; beside each MAD's ratio its bootstrap 95% interval,
#       which tells a difference from the noise of 30 or so repetitions (taking them as
#       independent: neighbouring ones can share a slow spell of the machine, so the
#       interval is if anything too narrow, and "better" or "worse" a little bold);
#   P6  program wall time at most 0.5x Google Benchmark's default, with the spread of P2;
#   floor: the 1-step LCG per op not below the 1000-step LCG's time per step.
#
# Usage: bench/vs_gbench.sh [BUILDDIR] [REPS]   (needs g++, libbenchmark-dev, python3)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build}" && pwd)
reps=${2:-10}
lib=$build/harness/libpmcbench.so.0
bodies=(lcg_1 lcg_1000 memcpy_64 memcpy_4k memcpy_1m hash_lookup qsort_1000)
[ -e "$lib" ] || { echo "vs_gbench: no $lib; build first: sh ci/build.sh plain build" >&2; exit 2; }
[ -e /usr/include/benchmark/benchmark.h ] ||
	{ echo "vs_gbench: no Google Benchmark; install libbenchmark-dev" >&2; exit 2; }
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "vs_gbench: REPS must be a whole number > 0, not '$reps'" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vs_gbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# A copy of the library, so that a rebuild of BUILDDIR during the run changes nothing.
mkdir "$tmp/lib"
cp -L "$build/harness/libpmcbench.so.0" "$tmp/lib/libpmcbench.so.0"
ln -s libpmcbench.so.0 "$tmp/lib/libpmcbench.so"
# The bodies: one object, the same machine code in both programs.
${CC:-cc} -O2 -I"$here/.." -c -o "$tmp/bodies.o" "$here/vs_gbench_bodies.c"
# Each tool's loop starts a 64-byte line, as the bodies do: where the linker put them
# otherwise moved the tiniest bodies by a fifth (a 1-step LCG +25%, memcpy of 64 B +20%,
# pmcbench's loop crossing a 32-byte boundary; bench/README.md).
${CC:-cc} -O2 -falign-loops=64 -I"$here/../include" -I"$here/.." -o "$tmp/pmc" "$here/vs_gbench_pmc.c" \
	"$tmp/bodies.o" -L"$tmp/lib" -lpmcbench -Wl,-rpath,"$tmp/lib"
${CXX:-g++} -O2 -falign-loops=64 -I"$here/.." -o "$tmp/gb" "$here/vs_gbench_gb.cc" "$tmp/bodies.o" \
	-lbenchmark -lpthread
cc_version=$(${CC:-cc} --version | head -1)
cxx_version=$(${CXX:-g++} --version | head -1)

# Runs one tool's whole program; saves its JSON as $tmp/OUT.json and appends
# "OUT WALL_NS" to $tmp/wall.txt. CONFIG: pmcbench, gbench or gbmatched (MIN_TIME).
run() { # CONFIG OUT [MIN_TIME]
	local out=$tmp/$2.json t0 t1
	t0=$(date +%s%N)
	case $1 in
	pmcbench) "$tmp/pmc" -q -o "$out" >/dev/null 2>"$tmp/err" ;;
	gbench) "$tmp/gb" --benchmark_format=json >"$out" 2>"$tmp/err" ;;
	gbmatched) "$tmp/gb" --benchmark_min_time="$3" --benchmark_format=json >"$out" 2>"$tmp/err" ;;
	esac || { cat "$tmp/err" >&2; echo "vs_gbench: $1 failed ($2)" >&2; exit 1; }
	t1=$(date +%s%N)
	echo "$2 $((t1 - t0))" >>"$tmp/wall.txt"
}
wall_of() { awk -v k="$1" '$1 == k { printf "%.6f\n", $2 / 1e9 }' "$tmp/wall.txt"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

load0=$(cat /proc/loadavg)
start=$(date +%s)

# Pilot: Google Benchmark's min_time for pmcbench's program wall time W, the median of 5
# pmcbench runs. Google Benchmark's wall time grows with min_time in steps
# (its calibration multiplies the iterations by up to 10), so: up to 4 tries, each the
# median of 3 runs, the first at 0.5 s x W / its wall time at 0.5 s (median of 3), the
# next ones on the line through the two points nearest W; stop within 5% of W; keep the
# closest.
cat >"$tmp/next.py" <<'EOF'
import sys
# argv: W, then the tried points "min_time,wall", the first Google Benchmark's default.
# Prints "done T" (the closest tried T) or "try T" (the next one to try).
wp = float(sys.argv[1])
pts = [tuple(map(float, p.split(","))) for p in sys.argv[2:]]
tried = pts[1:]
if tried:
    best = min(tried, key=lambda p: abs(p[1] - wp))
if not tried:
    print("try %.4f" % max(0.001, 0.5 * wp / pts[0][1]))
elif abs(best[1] / wp - 1) <= 0.05 or len(tried) >= 4:
    print("done %.4f" % best[0])
else:
    (t0, w0), (t1, w1) = sorted(pts, key=lambda p: abs(p[1] - wp))[:2]
    k = (w1 - w0) / (t1 - t0) if t1 != t0 else 0
    t = t0 + (wp - w0) / k if k > 0 else best[0] * wp / best[1]
    print("try %.4f" % min(5.0, max(0.001, best[0] / 4, min(4 * best[0], t))))
EOF
for i in 1 2 3 4 5; do run pmcbench "pilot-pmcbench-$i"; done
for i in 1 2 3; do run gbench "pilot-gbench-$i"; done
wp=$( (for i in 1 2 3 4 5; do wall_of "pilot-pmcbench-$i"; done) | median)
pts=("0.5,$( (for i in 1 2 3; do wall_of "pilot-gbench-$i"; done) | median)")
for try in 1 2 3 4 5; do
	next=$(python3 "$tmp/next.py" "$wp" "${pts[@]}")
	match=${next#* }
	[ "${next%% *}" = try ] || break
	for i in 1 2 3; do run gbmatched "pilot-gbmatched-$try-$i" "$match"; done
	pts+=("$match,$( (for i in 1 2 3; do wall_of "pilot-gbmatched-$try-$i"; done) | median)")
done
echo "$match $wp ${pts[*]}" >"$tmp/match.txt"

for ((i = 1; i <= reps; i++)); do
	if ((i % 2)); then order=(pmcbench gbench gbmatched); else order=(gbmatched gbench pmcbench); fi
	for c in "${order[@]}"; do
		run "$c" "$c-$i" "$match"
	done
done
load1=$(cat /proc/loadavg)
end=$(date +%s)

PYTHONPATH="$here" python3 - "$tmp" "$reps" "$load0" "$load1" "$((end - start))" "$cc_version" "$cxx_version" \
	"${bodies[@]}" <<'EOF'
import json
import math
import random
import statistics
import sys

from median_ci import median_interval

tmp, reps, load0, load1, secs, ccv, cxxv = sys.argv[1:8]
reps = int(reps)
bodies = sys.argv[8:]
configs = ("pmcbench", "gbench", "gbmatched")
LABEL = {"pmcbench": "pmcbench", "gbench": "gbench default", "gbmatched": "gbench matched"}
UNIT = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}

wall = {}
with open(tmp + "/wall.txt") as f:
    for line in f:
        k, ns = line.split()
        wall[k] = int(ns) / 1e9
with open(tmp + "/match.txt") as f:
    f_ = f.read().split()
    # the min_time kept, pmcbench's pilot wall time, the points "min_time,wall"
    match = (float(f_[0]), float(f_[1]), [tuple(map(float, p.split(","))) for p in f_[2:]])


def load(config, rep):
    """{body: (ns/op, samples or None, per-process medians or None, loop overhead or None)}"""
    with open("%s/%s-%d.json" % (tmp, config, rep)) as f:
        d = json.load(f)
    out = {}
    for b in d["benchmarks"]:
        name = b["name"]
        if name not in bodies:
            continue
        if config == "pmcbench":
            m = b["metrics"].get("task-clock/op")
            if not m or any(x is None for x in m["samples"]):
                sys.exit("vs_gbench: pmcbench's %s has no task-clock/op" % name)
            v = m["samples"]
            procs = {}
            for run, x in zip(b["runs"], v):
                procs.setdefault(run.get("process", 0), []).append(x)
            pm = [statistics.median(p) for p in procs.values()]
            out[name] = (statistics.median(v), v, pm, m.get("loop_overhead"))
        elif b.get("run_type", "iteration") == "iteration":
            out[name] = (b["cpu_time"] * UNIT[b["time_unit"]], None, None, None)
    for name in bodies:
        if name not in out:
            sys.exit("vs_gbench: %s's result %d has no benchmark %s" % (config, rep, name))
    return out


def mad_med(v):
    med = statistics.median(v)
    return statistics.median(abs(x - med) for x in v) / med


def spread(v):
    return mad_med(v), (max(v) - min(v)) / statistics.median(v)


def mad_ratio_interval(a, b, n=2000):
    """The ratio of a's MAD/median to b's with its percentile bootstrap 95% interval
    (Efron and Tibshirani, "An Introduction to the Bootstrap", 1993, ch. 13),
    resampling whole repetitions so that the two tools stay paired as they ran. The
    repetitions are taken as independent, which neighbouring ones are not quite (see the
    header). inf where b's MAD is 0."""
    rnd = random.Random(1)
    k = len(a)
    rs = []
    for _ in range(n):
        idx = [rnd.randrange(k) for _ in range(k)]
        mb = mad_med([b[i] for i in idx])
        rs.append(mad_med([a[i] for i in idx]) / mb if mb > 0 else math.inf)
    rs.sort()
    mb = mad_med(b)
    return mad_med(a) / mb if mb > 0 else math.inf, rs[int(0.025 * n)], rs[int(0.975 * n) - 1]


def pct(x):
    return "%.2f%%" % (100 * x)


def met(ok):
    return "met" if ok else "NOT met"


got = {(c, r): load(c, r) for c in configs for r in range(1, reps + 1)}
stat = {}
for b in bodies:
    for c in configs:
        v = [got[(c, r)][b][0] for r in range(1, reps + 1)]
        mad, rng = spread(v)
        stat[(c, b)] = {"med": statistics.median(v), "mad": mad, "rng": rng, "v": v}
progwall = {c: statistics.median(wall["%s-%d" % (c, r)] for r in range(1, reps + 1))
            for c in configs}

with open("%s/gbench-1.json" % tmp) as f:
    gb_build = json.load(f)["context"].get("library_build_type", "unknown")
print("vs_gbench: %d repetitions, each tool's whole program per configuration, the "
      "order reversed every other repetition; %s s in all" % (reps, secs))
print("load average %s at the start, %s at the end" % (
    " ".join(load0.split()[:3]), " ".join(load1.split()[:3])))
print("%s (pmcbench side, -O2); %s (Google Benchmark side, -O2); Google Benchmark "
      "library_build_type: %s" % (ccv, cxxv, gb_build))
print()
print("CPU ns/op: pmcbench, median over all its samples (its processes pooled) of task-clock/op;")
print("gbench, cpu_time. median, MAD/median, range/median over the %d repetitions; x GB:" % reps)
print("/ gbench default.")
print()
hdr = "%-11s %-14s %12s %9s %8s %10s"
print(hdr % ("body", "tool", "CPU ns/op", "x GB", "MAD/med", "range/med"))
for b in bodies:
    g = stat[("gbench", b)]
    for c in configs:
        s = stat[(c, b)]
        print(hdr % (b if c == "pmcbench" else "", LABEL[c], "%.4f" % s["med"],
                     "%.3fx" % (s["med"] / g["med"]), pct(s["mad"]), pct(s["rng"])))
print()
print("program wall time, median over the repetitions (min_time per benchmark):")
for c in configs:
    mt = {"pmcbench": "-", "gbench": "0.5 s", "gbmatched": "%.4g s" % match[0]}[c]
    print("  %-14s %7.3f s  %.2fx gbench default  (min_time %s)" % (
        LABEL[c], progwall[c], progwall[c] / progwall["gbench"], mt))
print("gbench matched: min_time from the pilot, for pmcbench's %.3f s (min_time tried -> "
      "Google Benchmark's wall time, median of 3): %s" % (match[1], ", ".join(
          "%g -> %.3f" % p for p in match[2])))
print()

# pmcbench: the other summary (median of per-process medians), and the loop's own cost.
print("pmcbench, other figures per body (medians over the repetitions):")
for b in bodies:
    ppm = [statistics.median(got[("pmcbench", r)][b][2]) for r in range(1, reps + 1)]
    lo = [got[("pmcbench", r)][b][3] for r in range(1, reps + 1)]
    lo = [x for x in lo if x is not None]
    mp = statistics.median(ppm)
    print("  %-11s median of per-process medians %.4f ns/op (%+.2f%% from the pooled "
          "median); loop_overhead %s ns/op (included, not subtracted)" % (
              b, mp, 100 * (mp / stat[("pmcbench", b)]["med"] - 1),
              "%.4f" % statistics.median(lo) if lo else "-"))
print()

print("targets:")
print("  P2 CPU time within 3% of gbench default's cpu_time: the median of the per-repetition")
print("     ratios (each repetition runs the tools next to each other, so the machine's drift")
print("     cancels, as in pmcbench's own rounds) with its 95% interval; beside it the ratio of")
print("     the two medians, which the drift moves:")
for b in bodies:
    r = stat[("pmcbench", b)]["med"] / stat[("gbench", b)]["med"]
    pr = [got[("pmcbench", i)][b][0] / got[("gbench", i)][b][0] for i in range(1, reps + 1)]
    m, lo, hi, covers = median_interval(pr)
    # What the interval adds to the median's verdict: "met" by a median whose interval
    # reaches past 3% is not shown, nor is a miss whose interval reaches inside.
    inside, straddles = lo >= 0.97 and hi <= 1.03, lo <= 1.03 and hi >= 0.97
    if not covers:
        why = "; the range, too few repetitions for a 95% interval"
    elif abs(m - 1) <= 0.03:
        why = "" if inside else "; the interval reaches past 3%%: not shown at %d repetitions" % reps
    else:
        why = ("; the interval reaches within 3%%: not told from the spread at %d "
               "repetitions" % reps if straddles else "; the interval lies beyond 3%")
    print("    %-11s %+.2f%% [%+.2f%%, %+.2f%%] %s%s; medians %+.2f%%" % (
        b, 100 * (m - 1), 100 * (lo - 1), 100 * (hi - 1), met(abs(m - 1) <= 0.03), why,
        100 * (r - 1)))
print("  P2 spread no worse than gbench's (pmcbench vs gbench matched; vs gbench default),")
print("     and the ratios of the MADs (pmcbench / gbench matched; / gbench default) with their")
print("     bootstrap 95% intervals (given at 10 repetitions or more):")
spread_ok = {}
verdicts = {"worse": 0, "better": 0, "not told apart": 0}
for b in bodies:
    p, m, d = stat[("pmcbench", b)], stat[("gbmatched", b)], stat[("gbench", b)]
    ok_m = p["mad"] <= m["mad"] and p["rng"] <= m["rng"]
    ok_d = p["mad"] <= d["mad"] and p["rng"] <= d["rng"]
    spread_ok[b] = ok_m and ok_d
    told = []
    for other in (m, d):
        r, lo, hi = mad_ratio_interval(p["v"], other["v"])
        # Under 10 repetitions a resample repeats a few values and the interval means
        # little.
        if reps < 10:
            told.append("%.2f" % r)
            continue
        v = "worse" if lo > 1 else "better" if hi < 1 else "not told apart"
        verdicts[v] += 1
        told.append("%.2f [%.2f, %.2f]: %s" % (r, lo, hi, v))
    print("    %-11s MAD/med %s vs %s; %s, range/med %s vs %s; %s: matched %s, "
          "default %s; MAD ratios %s; %s" % (b, pct(p["mad"]), pct(m["mad"]), pct(d["mad"]),
                                            pct(p["rng"]), pct(m["rng"]), pct(d["rng"]),
                                            met(ok_m), met(ok_d), told[0], told[1]))
if reps >= 10:
    # The point verdicts above flip between runs where the intervals span 1: this line
    # says how many of them the repetitions could decide.
    print("    MAD ratios of the %d comparisons: worse %d, better %d, not told apart %d" % (
        2 * len(bodies), verdicts["worse"], verdicts["better"], verdicts["not told apart"]))
r = progwall["pmcbench"] / progwall["gbench"]
ok = [b for b in bodies if spread_ok[b]]
print("  P6 program wall time <= 0.5x gbench default's: %.2fx %s; with the spread: %s (the "
      "spread met on %d of %d bodies%s)" % (
          r, met(r <= 0.5), met(r <= 0.5 and len(ok) == len(bodies)), len(ok), len(bodies),
          ": " + ", ".join(ok) if ok else ""))
print("  wall time matched: gbench matched / pmcbench program wall time: %.2fx" % (
    progwall["gbmatched"] / progwall["pmcbench"]))
if "lcg_1" in bodies and "lcg_1000" in bodies:
    print("  floor: 1-step LCG per op >= 1000-step LCG per step:")
    for c in configs:
        one, step = stat[(c, "lcg_1")]["med"], stat[(c, "lcg_1000")]["med"] / 1000
        line = "    %-14s medians %.4f vs %.4f ns (%.3fx): %s" % (
            LABEL[c], one, step, one / step, met(one >= step))
        if c == "pmcbench":
            # For information: the single samples scatter around their median.
            samples = [x for r in range(1, reps + 1) for x in got[(c, r)]["lcg_1"][1]]
            below = sum(x < step for x in samples)
            line += "; single samples: min %.4f ns, %d of %d below %.4f" % (
                min(samples), below, len(samples), step)
        print(line)
EOF
