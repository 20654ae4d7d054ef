#!/bin/bash
# Do pmcbench and `perf stat -r` agree? Both measure task-clock and page-faults of the
# same command over N runs; the means are printed side by side with the run-to-run
# spread (standard deviation) of each, and "agree" when the difference of the means is
# within the run-to-run spread (two standard deviations of the noisier tool). perf's
# "+- x%" is the standard error of the mean, so its standard deviation is that times
# sqrt(N). The runs go in interleaved batches so that drift hits both tools alike.
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

# Interleaved batches, so that drift of a noisy machine hits both tools alike.
rounds=5
per=$(((n + rounds - 1) / rounds))
n=$((per * rounds))
: >"$tmp/perf.csv"
for ((i = 0; i < rounds; i++)); do
	perf stat -r "$per" -x, -e task-clock,page-faults -- "$@" >/dev/null 2>>"$tmp/perf.csv"
	"$build/pmcbench" run -q -r "$per" -w 1 -e task-clock,page-faults -o "$tmp/pmc$i.json" -- "$@" >/dev/null
done

python3 - "$tmp/perf.csv" "$tmp" "$rounds" <<'PY'
import json, math, sys
rounds = int(sys.argv[3])
# perf prints per batch the mean and its standard error ("+- x%"); pool the batches:
# the overall mean, and the standard deviation from the within-batch variances and the
# spread of the batch means.
batches = {"task-clock": [], "page-faults": []}
for line in open(sys.argv[1]):
    f = line.strip().split(",")
    if len(f) >= 4 and f[2] in batches:
        value = float(f[0]) * (1e6 if f[1] == "msec" else 1)  # task-clock to ns
        rel = float(f[3].rstrip("%")) / 100 if f[3] else 0.0
        batches[f[2]].append((value, value * rel))
pmc = {m: [] for m in batches}
for i in range(rounds):
    d = json.load(open(f"{sys.argv[2]}/pmc{i}.json"))
    for m in pmc:
        pmc[m] += [x for x in d["benchmarks"][0]["metrics"][m]["samples"] if x is not None]
n = len(pmc["task-clock"])
per = n // rounds
perf = {}
for m, bs in batches.items():
    mean = sum(b[0] for b in bs) / len(bs)
    within = sum((b[1] * math.sqrt(per)) ** 2 for b in bs) / len(bs)
    between = sum((b[0] - mean) ** 2 for b in bs) / max(len(bs) - 1, 1)
    perf[m] = (mean, math.sqrt(within + between))
print(f"{'metric':<12} {'perf stat mean':>16} {'stddev':>10} {'pmcbench mean':>16} {'stddev':>10}  verdict")
for m in ("task-clock", "page-faults"):
    xs = pmc[m]
    mean = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else 0
    pm, psd = perf[m]
    # Within the run-to-run spread: two standard deviations of the noisier tool.
    ok = abs(mean - pm) <= 2 * max(sd, psd)
    print(f"{m:<12} {pm:>16.1f} {psd:>10.1f} {mean:>16.1f} {sd:>10.1f}  {'agree' if ok else 'DIFFER'}"
          f" ({(mean / pm - 1) * 100:+.1f}%)")
PY
