#!/bin/bash
# Times `pmcbench history gate` of a result against a history of K results (the issue's
# target: under 2x a two-file gate) beside `pmcbench gate --baseline` of the same result
# against one of those results, alternating, REPS times each, so that both see the same
# machine; prints the median wall time of each and their ratio, measured in this run.
# The results are synthetic (bench/gen_results.py: BENCHMARKS benchmarks x 10 metrics x
# 10 runs, each of its own seed; the new one has 1% of its benchmarks 10% slower) and
# the history a SQLite file holding the K results. Both gate instructions at +5%.
#
# Usage: bench/history_gate.sh [BUILD] [BENCHMARKS] [K] [REPS]
#   BUILD       the meson build directory (default: build beside this script's directory)
#   BENCHMARKS  benchmarks per result (default 100)
#   K           results in the history, and the gate's --last (default 100)
#   REPS        runs of each command (default 11)
# The files are kept in ${PMC_HISTORY_GATE_DIR:-/tmp/pmcbench-history-gate} and reused.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
nbench=${2:-100}
k=${3:-100}
reps=${4:-11}
dir=${PMC_HISTORY_GATE_DIR:-/tmp/pmcbench-history-gate}/$nbench-$k
pmcbench=$build/harness/7-cli/pmcbench

[ -x "$pmcbench" ] || { echo "history_gate: $pmcbench is not executable; build first (ninja -C $build)" >&2; exit 2; }
mkdir -p "$dir"
if [ ! -s "$dir/history.db" ]; then
	echo "generating $k results of $nbench benchmarks and their history in $dir ..."
	for i in $(seq 1 "$k"); do
		python3 "$here/gen_results.py" "$dir/r$i.json" --benchmarks "$nbench" --seed "$i"
	done
	python3 "$here/gen_results.py" "$dir/new.json" --benchmarks "$nbench" --seed 0 --shift 10
	"$pmcbench" history add --db "$dir/history.db.tmp" --commit synthetic --branch main \
		"$dir"/r*.json >/dev/null
	mv "$dir/history.db.tmp" "$dir/history.db"
fi

python3 - "$pmcbench" "$dir" "$k" "$reps" <<'PY'
import os, statistics, subprocess, sys, time

pmcbench, d, k, reps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
new = os.path.join(d, "new.json")
# The gated metric is a count: times cannot be gated between two single invocations
# (docs/statistics.md), and both gates judge the same rows.
opts = ["--metric", "instructions", "--threshold", "instructions=+5%"]
cmds = {
    "gate (two files)": [pmcbench, "gate", *opts, "--baseline", os.path.join(d, "r%d.json" % k),
                         new],
    "history gate --last %d" % k: [pmcbench, "history", "gate", *opts, "--db",
                                   os.path.join(d, "history.db"), "--last", str(k), new],
}
print("%s: %d results in the history (%.1f MB), %.2f MB each; %d CPUs, load average %.2f; "
      "%d runs each" % (d, k, os.path.getsize(os.path.join(d, "history.db")) / 1e6,
                        os.path.getsize(new) / 1e6, os.cpu_count(), os.getloadavg()[0], reps))
walls = {name: [] for name in cmds}
for i in range(reps):
    for name in (list(cmds) if i % 2 == 0 else list(reversed(list(cmds)))):
        t0 = time.perf_counter()
        p = subprocess.run(cmds[name], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        walls[name].append(time.perf_counter() - t0)
        # 0 pass, 1 regression (the new result has some): both are a gate that judged.
        if p.returncode not in (0, 1):
            sys.exit("history_gate: %s exited %d: %s" % (name, p.returncode, p.stderr.decode()))
med = {name: statistics.median(v) for name, v in walls.items()}
for name, v in walls.items():
    print("%-26s median %.3f s  (min %.3f, max %.3f)" % (name, med[name], min(v), max(v)))
two, hist = list(med.values())
print("ratio: history gate / two-file gate = %.2fx (target < 2x)" % (hist / two))
PY
