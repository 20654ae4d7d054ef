#!/bin/bash
# Times `pmcbench compare` and `pmcbench gate` on a synthetic pair of results with
# 10,000 benchmarks x 10 metrics x 10 runs (bench/gen_results.py; 1% of the benchmarks
# 10% slower in the new one), median of 5 runs each, with the peak RSS of each command
# (from wait4), against the targets of issue 3: under 0.5 s and under 200 MB.
#
# Usage: bench/compare_speed.sh [PMCBENCH] [BENCHMARKS]
#   PMCBENCH    the binary (default: build/pmcbench beside this script's directory)
#   BENCHMARKS  benchmarks per file (default 10000)
# The generated files are kept in ${PMC_SPEED_DIR:-/tmp/pmcbench-compare-speed} and reused.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pmcbench=${1:-$here/../build/pmcbench}
nbench=${2:-10000}
dir=${PMC_SPEED_DIR:-/tmp/pmcbench-compare-speed}

[ -x "$pmcbench" ] || { echo "compare_speed: $pmcbench is not executable; build it first" >&2; exit 2; }
mkdir -p "$dir"
old=$dir/old-$nbench.json new=$dir/new-$nbench.json
if [ ! -s "$old" ] || [ ! -s "$new" ]; then
	echo "generating $nbench benchmarks x 10 metrics x 10 runs in $dir ..."
	python3 "$here/gen_results.py" "$old" --benchmarks "$nbench" --seed 1
	python3 "$here/gen_results.py" "$new" --benchmarks "$nbench" --seed 2 --shift 10
fi

python3 - "$pmcbench" "$old" "$new" <<'EOF'
import os, statistics, subprocess, sys, time

pmcbench, old, new = sys.argv[1:4]
print("files: %s, %s (%.0f MB each); %d CPUs, load average %.2f" %
      (old, new, os.path.getsize(old) / 1e6, os.cpu_count(), os.getloadavg()[0]))

def measure(args, expect):
    walls, cpus, rss = [], [], []
    for _ in range(5):
        with open(os.devnull, "w") as null:
            t0 = time.perf_counter()
            p = subprocess.Popen([pmcbench] + args, stdout=null)
            _, status, ru = os.wait4(p.pid, 0)
            walls.append(time.perf_counter() - t0)
        code = os.waitstatus_to_exitcode(status)
        if code != expect:
            sys.exit("%s exited %d, expected %d" % (" ".join(args), code, expect))
        rss.append(ru.ru_maxrss / 1024.0)  # KiB -> MiB
        cpus.append(ru.ru_utime + ru.ru_stime)
    return statistics.median(walls), statistics.median(cpus), max(rss)

ok = True
for name, args, expect in [("compare", ["compare", old, new], 0),
                           ("gate", ["gate", "--baseline", old, new], 1),
                           ("gate --format json", ["gate", "--format", "json", "--baseline", old, new], 1)]:
    wall, cpu, rss = measure(args, expect)
    good = wall < 0.5 and rss < 200
    ok = ok and (good or "json" in name)
    print("%-20s median %.3f s of 5 (target < 0.5 s; CPU %.3f s)   peak RSS %.0f MiB "
          "(target < 200 MB)   %s" % (name, wall, cpu, rss, "ok" if good else "OVER"))
print("the JSON report is not part of the target; it is shown for reference.")
print("Loading and the rows' statistics run on two threads each: with other jobs on the "
      "CPUs the wall time rises towards the CPU time.")
sys.exit(0 if ok else 1)
EOF
