#!/bin/sh
# What counting every system call by name costs (docs/events.md, "Tracepoints"):
# `find DIR` run plainly, under `pmcbench run -r 1 -w 0 -e 'syscalls:sys_enter_*'` and under
# `perf stat -e 'syscalls:sys_enter_*'`, alternating, REPS times; median wall seconds of
# each and their ratios to the plain run. Both tools pay the kernel's floor: registering
# a perf probe on each of the ~360 tracepoints (and unregistering it after an RCU grace
# period), then the syscall-tracing slow path on every call. Also whether pmcbench's counts
# equal perf's for every system call. Needs root (tracefs, tracepoints).
#
# Usage: bench/syscall_overhead.sh [BUILD] [REPS] [DIR]
set -eu
build=${1:-build}
reps=${2:-5}
dir=${3:-/usr}
pmc=$build/harness/7-cli/pmcbench
[ -x "$pmc" ] || { echo "syscall_overhead.sh: build first: sh ci/build.sh plain build" >&2; exit 2; }
command -v perf >/dev/null || { echo "syscall_overhead.sh: needs perf" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
timed() { # timed NAME CMD...: appends the wall seconds of CMD to $tmp/NAME
	name=$1; shift
	t0=$(now); "$@" >/dev/null 2>&1; t1=$(now)
	echo "$t0 $t1" | awk '{printf "%.4f\n", $2 - $1}' >>"$tmp/$name"
}
for i in $(seq "$reps"); do
	timed plain env -i PATH="$PATH" LC_ALL=C find "$dir"
	timed pmcbench "$pmc" run -r 1 -w 0 -q -e 'syscalls:sys_enter_*' -o "$tmp/pmc.json" -- find "$dir"
	timed perf env -i PATH="$PATH" LC_ALL=C perf stat -x, -e 'syscalls:sys_enter_*' -o "$tmp/perf.csv" -- find "$dir"
done
med() { sort -n "$tmp/$1" | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
p=$(med plain); a=$(med pmcbench); b=$(med perf)
echo "find $dir, $reps alternating repetitions, median wall seconds:"
echo "  plain     $p"
echo "  pmcbench  $a  ($(echo "$a $p" | awk '{printf "%.2f", $1/$2}')x plain)"
echo "  perf stat $b  ($(echo "$b $p" | awk '{printf "%.2f", $1/$2}')x plain)"
echo "  pmcbench / perf stat: $(echo "$a $b" | awk '{printf "%.3f", $1/$2}')"
python3 - "$tmp/pmc.json" "$tmp/perf.csv" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["benchmarks"][0]["metrics"]
perf = {}
for line in open(sys.argv[2]):
    f = line.strip().split(",")
    if len(f) > 3 and f[2].startswith("syscalls:"):
        perf[f[2]] = int(f[0])
ours = {k: v["samples"][0] for k, v in m.items() if k.startswith("syscalls:sys_enter_")}
same = sum(1 for k in perf if ours.get(k) == perf[k])
print("  counts of the last repetition: %d of %d system calls equal to perf stat's; total %d (pmcbench) and %d (perf)"
      % (same, len(perf), m["syscalls:total"]["samples"][0], sum(perf.values())))
PY
