#!/bin/bash
# Per-run overhead of `pmcbench run`: `pmcbench run -q -r N -w 0 -- CMD` against a plain
# spawn-and-wait loop of the same N runs (build/bench/spawn-loop), with `hyperfine -N` and
# `perf stat -r` on the same work in the same run, where installed. PAIRS rounds, each
# timing every tool once, in an order drawn at random for each round (PMC_OVERHEAD_SEED,
# default 1), so drift, load and what ran before hit all of them alike; every tool's time
# is divided by the loop's of the same round (paired ratios). Printed per workload
# (`true`, and a command that burns 1 ms of CPU: pmc-work spin 1, when the tests are
# built): the median of each tool's ratios with a distribution-free 95% interval for it
# (order statistics of the binomial, Conover, "Practical Nonparametric Statistics", 1999,
# sec. 3.2), and pmcbench's ratio to hyperfine's; for the wall time and for the CPU time
# of each tool and its children (the latter less moved by other load on the machine).
# OTHER: another pmcbench (an older build) timed the same way, as "other".
# Target (issue 37): pmcbench <= 1.05x the loop and below hyperfine -N.
# Usage: bench/run_overhead.sh [BUILDDIR] [N] [PAIRS] [OTHER]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
n=${2:-200}
pairs=${3:-21}
other=${4:-}
pmcbench=$build/pmcbench
loop=$build/bench/spawn-loop
work=$build/tests/targets/pmc-work
[ -x "$pmcbench" ] && [ -x "$loop" ] || { echo "build first: sh ci/build.sh plain $build" >&2; exit 2; }
command -v python3 >/dev/null || { echo "run_overhead.sh needs python3 for the summary" >&2; exit 2; }

tools=(loop pmcbench)
[ -z "$other" ] || tools+=(other)
command -v hyperfine >/dev/null && tools+=(hyperfine) ||
	echo "(hyperfine not installed: apt-get install hyperfine)" >&2
if command -v perf >/dev/null && perf stat -r 1 true >/dev/null 2>&1; then tools+=(perf-stat); fi

# The wall time and the CPU time (user and system, of it and its children) of one
# command, in microseconds; its output is dropped.
timed() {
	local t
	t=$( { TIMEFORMAT='%3R %3U %3S'; time "$@" >/dev/null 2>&1; } 2>&1) || { echo "failed: $*" >&2; exit 1; }
	awk -v t="$t" 'BEGIN {split(t, a, " "); printf "%d %d\n", a[1] * 1e6, (a[2] + a[3]) * 1e6}'
}

# One timing of tool $1 on the command "${@:2}".
time_one() { timed one "$@"; }

one() {
	local tool=$1
	shift
	case $tool in
	loop) "$loop" "$n" "$@" ;;
	pmcbench) "$pmcbench" run -q -r "$n" -w 0 -- "$@" ;;
	other) "$other" run -q -r "$n" -w 0 -- "$@" ;;
	hyperfine) hyperfine -N --runs "$n" --warmup 0 --style none "$*" ;;
	perf-stat) perf stat -r "$n" "$@" ;;
	esac >/dev/null 2>&1
}

# Prints the summary of a workload from lines "round tool wall-us cpu-us" on stdin.
summary_py=$(cat <<'PY'
import sys
from median_ci import median_interval
label, n = sys.argv[1], int(sys.argv[2])
wall, cpu = {}, {}
for line in sys.stdin:
    r, tool, w, c = line.split()
    wall.setdefault(tool, {})[int(r)] = int(w)
    cpu.setdefault(tool, {})[int(r)] = int(c)
rounds = sorted(wall["loop"])
def med(v):
    v = sorted(v); m = len(v)
    return v[m // 2] if m % 2 else (v[m // 2 - 1] + v[m // 2]) / 2
def row(t, num, den):
    m, lo, hi, covers = median_interval([t[num][r] / max(t[den][r], 1) for r in rounds])
    return "%.3fx (%s %.3f-%.3f)" % (m, "95% CI" if covers else "range", lo, hi)
print("%s: %d runs per timing, %d rounds" % (label, n, len(rounds)))
for what, t in (("wall time", wall), ("CPU time", cpu)):
    floor = med([t["loop"][r] for r in rounds]) / 1000
    print(" %s" % what)
    print("  %-22s %9.1f ms  1.00x (floor)" % ("spawn loop", floor))
    for tool in [x for x in ("pmcbench", "other", "hyperfine", "perf-stat") if x in t]:
        ms = med([t[tool][r] for r in rounds]) / 1000
        note = "  target <= 1.05x" if tool == "pmcbench" and t is wall else ""
        print("  %-22s %9.1f ms  %s%s" % (tool, ms, row(t, tool, "loop"), note))
    if "hyperfine" in t:
        print("  %-22s %12s  %s%s" % ("pmcbench / hyperfine", "", row(t, "pmcbench", "hyperfine"),
                                     "  target < 1" if t is wall else ""))
    if "other" in t:
        print("  %-22s %12s  %s" % ("pmcbench / other", "", row(t, "pmcbench", "other")))
PY
)
summary() { PYTHONPATH="$here" python3 -c "$summary_py" "$@"; }

# The order of the tools in a round: a random permutation (Fisher-Yates on bash's
# RANDOM, seeded below so that a run can be repeated). A rotation gave every tool each
# place equally often but the same predecessor in most rounds, and what ran just before
# moves a timing: one binary timed as two tools ("pmcbench" after the loop, "other" after
# it) read 1.4-1.8% apart in wall time.
round_order() {
	local i j t
	order=("${tools[@]}")
	for ((i = ${#order[@]} - 1; i > 0; i--)); do
		j=$((RANDOM % (i + 1)))
		t=${order[i]}
		order[i]=${order[j]}
		order[j]=$t
	done
}

# Runs the rounds of one workload and prints its summary.
workload() {
	local label=$1 tool
	shift
	for ((r = 0; r < pairs; r++)); do
		round_order
		for tool in "${order[@]}"; do
			echo "$r $tool $(time_one "$tool" "$@")"
		done
	done | summary "$label" "$n"
}

RANDOM=${PMC_OVERHEAD_SEED:-1}
echo "$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) before; $(date -u +%FT%TZ)"
workload "true" "$(command -v true)"
if [ -x "$work" ]; then
	workload "pmc-work spin 1 (1 ms of CPU)" "$work" spin 1
else
	echo "(no $work: build the tests for the 1 ms workload)"
fi
# What an invocation pays once, before its first run: the first counter attached to a task
# on the whole machine turns on the scheduler's perf hooks and waits for an RCU grace
# period (kernel/events/core.c, account_event()); they stay on until a second after the
# last such counter closes. The rounds above are warm: of the tools, only the loop and
# hyperfine open no counters, and the two take well under a second. Here `pmcbench run -r
# 1 -- true` is timed PMC_OVERHEAD_COLD (5) times after 1.5 s without counters (cold), each
# beside one right after it (warm). Where another process holds such a counter meanwhile,
# the cold start is warm too and the two agree.
cold=${PMC_OVERHEAD_COLD:-5}
if ((cold > 0)); then
	for ((i = 0; i < cold; i++)); do
		sleep 1.5
		echo "cold $(timed "$pmcbench" run -q -r 1 -w 0 -- "$(command -v true)")"
		echo "warm $(timed "$pmcbench" run -q -r 1 -w 0 -- "$(command -v true)")"
	done | python3 -c '
import sys, statistics
t = {"cold": [], "warm": []}
for line in sys.stdin:
    k, wall_us, _ = line.split()
    t[k].append(int(wall_us) / 1000)
c, w = statistics.median(t["cold"]), statistics.median(t["warm"])
print("first counter of an invocation (run -r 1 -- true, %d times each): cold %.1f ms, "
      "warm %.1f ms; cold - warm %.1f ms, the RCU grace period (docs/events.md)"
      % (len(t["cold"]), c, w, c - w))'
fi
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) after"
