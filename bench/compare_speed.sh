#!/bin/bash
# Times `pmcbench compare` on a synthetic pair of results of 10,000 benchmarks x 10
# metrics x 10 runs (bench/gen_results.py; 1% of the benchmarks 10% slower in the new
# one) against the floor of its design: a bare jansson load of the same two files, one
# thread per file, as compare loads them (jansson-floor, bench/jansson_floor.c). The two
# commands alternate, REPS times each, so that both see the same machine; printed are
# the medians, their ratio (target <= 1.5x) and the peak RSS of each (target < 150 MiB
# for compare). `gate` is shown for reference.
#
# Usage: bench/compare_speed.sh [BUILD] [BENCHMARKS] [REPS]
#   BUILD       the meson build directory (default: build beside this script's directory)
#   BENCHMARKS  benchmarks per file (default 10000)
#   REPS        runs of each command (default 7)
# The generated files are kept in ${PMC_SPEED_DIR:-/tmp/pmcbench-compare-speed} and reused.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
nbench=${2:-10000}
reps=${3:-7}
dir=${PMC_SPEED_DIR:-/tmp/pmcbench-compare-speed}
pmcbench=$build/harness/7-cli/pmcbench
floor=$build/bench/jansson-floor

for exe in "$pmcbench" "$floor"; do
	[ -x "$exe" ] || { echo "compare_speed: $exe is not executable; build first (ninja -C $build)" >&2; exit 2; }
done
mkdir -p "$dir"
old=$dir/old-$nbench.json new=$dir/new-$nbench.json
if [ ! -s "$old" ] || [ ! -s "$new" ]; then
	echo "generating $nbench benchmarks x 10 metrics x 10 runs in $dir ..."
	python3 "$here/gen_results.py" "$old" --benchmarks "$nbench" --seed 1
	python3 "$here/gen_results.py" "$new" --benchmarks "$nbench" --seed 2 --shift 10
fi

python3 - "$pmcbench" "$floor" "$old" "$new" "$reps" <<'EOF'
import os, statistics, subprocess, sys, time

pmcbench, floor, old, new, reps = sys.argv[1:6]
reps = int(reps)
print("files: %s, %s (%.0f MB each); %d CPUs, load average %.2f; %d runs each" %
      (old, new, os.path.getsize(old) / 1e6, os.cpu_count(), os.getloadavg()[0], reps))

cmds = {
    "compare": ([pmcbench, "compare", old, new], 0),
    "jansson floor": ([floor, old, new], 0),
    "gate": ([pmcbench, "gate", "--baseline", old, new], 1),
}
walls = {k: [] for k in cmds}
cpus = {k: [] for k in cmds}
rss = {k: 0.0 for k in cmds}

def once(name):
    args, expect = cmds[name]
    with open(os.devnull, "w") as null:
        t0 = time.perf_counter()
        p = subprocess.Popen(args, stdout=null, stderr=null)
        _, status, ru = os.wait4(p.pid, 0)
        walls[name].append(time.perf_counter() - t0)
    code = os.waitstatus_to_exitcode(status)
    if code != expect:
        sys.exit("%s exited %d, expected %d" % (" ".join(args), code, expect))
    cpus[name].append(ru.ru_utime + ru.ru_stime)
    rss[name] = max(rss[name], ru.ru_maxrss / 1024.0)  # KiB -> MiB

for _ in range(reps):
    for name in cmds:
        once(name)

med = {k: statistics.median(v) for k, v in walls.items()}
for name in cmds:
    print("%-14s median %.3f s (min %.3f, max %.3f; CPU %.3f s)   peak RSS %4.0f MiB" %
          (name, med[name], min(walls[name]), max(walls[name]), statistics.median(cpus[name]),
           rss[name]))
ratio = med["compare"] / med["jansson floor"]
ok = ratio <= 1.5 and rss["compare"] < 150
print("compare / floor: %.2fx (target <= 1.5x); compare peak RSS %.0f MiB (target < 150 MiB)"
      "   %s" % (ratio, rss["compare"], "ok" if ok else "OVER"))
print("The floor parses each file into one jansson tree; compare decodes a benchmark at a "
      "time, checks and converts it, then computes the rows' statistics.")
sys.exit(0 if ok else 1)
EOF
