#!/bin/bash
# Do pmcbench and `perf stat -r` agree? Both measure task-clock and page-faults of the
# same command over N runs; the means are printed side by side with the run-to-run
# spread of each, and "agree" when the difference is within the larger spread
# (perf's "+- x%" is the standard error of the mean; pmcbench's is computed the same
# way here from its raw samples).
# Usage: bench/perf_agreement.sh [BUILDDIR] [N] [COMMAND...]   (default: gzip -c of a file)
set -euo pipefail
build=${1:-build}
n=${2:-30}
shift 2 2>/dev/null || shift $#
if [ $# -eq 0 ]; then
	set -- gzip -c -6 "$build/pmcbench"
fi
command -v perf >/dev/null || { echo "perf is not installed (apt-get install linux-perf); nothing to compare" >&2; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

perf stat -r "$n" -x, -e task-clock,page-faults -- "$@" >/dev/null 2>"$tmp/perf.csv"
"$build/pmcbench" run -q -r "$n" -w 1 -e task-clock,page-faults -o "$tmp/pmc.json" -- "$@" >/dev/null

python3 - "$tmp/perf.csv" "$tmp/pmc.json" <<'PY'
import json, math, sys
perf = {}
for line in open(sys.argv[1]):
    f = line.strip().split(",")
    if len(f) >= 4 and f[2] in ("task-clock", "page-faults"):
        value = float(f[0]) * (1e6 if f[1] == "msec" else 1)  # task-clock to ns
        rel = float(f[3].rstrip("%")) / 100 if f[3] else 0.0
        perf[f[2]] = (value, value * rel)
d = json.load(open(sys.argv[2]))
print(f"{'metric':<12} {'perf stat mean':>16} {'+- sem':>10} {'pmcbench mean':>16} {'+- sem':>10}  verdict")
for m in ("task-clock", "page-faults"):
    xs = [x for x in d["benchmarks"][0]["metrics"][m]["samples"] if x is not None]
    mean = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else 0
    sem = sd / math.sqrt(len(xs))
    pm, ps = perf[m]
    # Within the run-to-run spread: the difference is below 3 combined standard errors.
    ok = abs(mean - pm) <= 3 * math.hypot(sem, ps) or abs(mean - pm) <= 1
    print(f"{m:<12} {pm:>16.1f} {ps:>10.1f} {mean:>16.1f} {sem:>10.1f}  {'agree' if ok else 'DIFFER'}"
          f" ({(mean / pm - 1) * 100:+.1f}%)")
PY
