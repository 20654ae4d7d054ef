#!/bin/bash
# What one benchmark's process costs as a benchmark program's count of benchmarks grows
# (issue 35, item 9): the same one-line benchmark registered 20 and 2,000 times
# (many_benchmarks.py), built against BUILD's libpmcbench (and OTHER's, an older build,
# to compare), each program's child run as the parent starts it (--process-child b1
# --process-samples 1 --process-iters 1), REPS (40) times, the programs alternating.
# Per program: the median CPU time (user + system, from wait4) and wall time of one
# child, and of `PROG --help` (the floor: loading a program of that size, which any
# program pays); the ratios 2,000 / 20 of the child, and of the child above its floor
# (target: about 1, a child's own work independent of the count).
# Usage: bench/child_cost.sh [BUILD] [REPS] [OTHER]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build}" && pwd)
reps=${2:-40}
other=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
progs=()
for b in "$build" ${other:+"$other"}; do
	tag=build${#progs[@]}
	for n in 20 2000; do
		python3 "$here/many_benchmarks.py" "$n" "$tmp/many_$n.c"
		"${CC:-cc}" -O2 -I"$here/../include" "$tmp/many_$n.c" -o "$tmp/$tag-$n" \
			-L"$b/harness" -lpmcbench -Wl,-rpath,"$b/harness"
		progs+=("$tmp/$tag-$n")
	done
done
python3 - "$reps" "${progs[@]}" <<'PY'
import os, statistics, sys, time
reps, progs = int(sys.argv[1]), sys.argv[2:]
child = ["--process-child", "b1", "--process-fd", "3", "--process-samples", "1",
         "--process-iters", "1"]
kinds = {"child": child, "floor": ["--help"]}
cpu = {(p, k): [] for p in progs for k in kinds}
wall = {(p, k): [] for p in progs for k in kinds}
devnull = os.open(os.devnull, os.O_WRONLY)
for r in range(reps):
    for p in progs if r % 2 == 0 else reversed(progs):
        for k, args in kinds.items():
            t = time.monotonic()
            pid = os.posix_spawn(p, [p] + args, os.environ,
                                 file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 3),
                                               (os.POSIX_SPAWN_DUP2, devnull, 1)])
            _, status, ru = os.wait4(pid, 0)
            wall[p, k].append(time.monotonic() - t)
            if os.waitstatus_to_exitcode(status) != 0:
                sys.exit("%s %s exited %d" % (p, args[0], os.waitstatus_to_exitcode(status)))
            cpu[p, k].append(ru.ru_utime + ru.ru_stime)
print("%d of each, alternating; load average %.2f" % (reps, os.getloadavg()[0]))
med = lambda d, p, k: statistics.median(d[p, k]) * 1e3
for i in range(0, len(progs), 2):
    name = "BUILD" if i == 0 else "OTHER"
    row = []
    for p in progs[i:i + 2]:
        c, f = med(cpu, p, "child"), med(cpu, p, "floor")
        row.append((c, f, c - f, med(wall, p, "child")))
    (c1, f1, o1, w1), (c2, f2, o2, w2) = row
    print("%s  child cpu %.2f ms at 20 benchmarks, %.2f ms at 2000: %.2fx; wall %.2fx" %
          (name, c1, c2, c2 / c1, w2 / w1))
    print("%s  above --help (loading the program: %.2f / %.2f ms): %.2f ms at 20, %.2f ms"
          " at 2000: %.2fx" % (name, f1, f2, o1, o2, o2 / o1))
PY
