#!/bin/bash
# What a DWARF call graph costs (docs/profile.md, "DWARF call graphs"): the same command
# (tests/targets/prof_dwarf.c: -O2 without frame pointers, about 0.5 s) recorded by
# `pmcbench record --call-graph dwarf` and by `perf record --call-graph dwarf`, both on
# cpu-clock at the same frequency with perf's default 8192-byte stack copies. perf record
# only writes the stacks to perf.data and unwinds them in `perf report`; pmcbench record
# unwinds, names and folds before it exits, so it is compared with perf record alone and
# with perf record + perf report --stdio. Each is run REPS times, alternating; the medians
# of the wall times and of each recorder's peak RSS (GNU time's %M: the largest of the
# recorder and the command it runs, the command's own being ~9 MB) and their ratios are
# printed. Usage: bench/profile_dwarf.sh [BUILDDIR] [REPS] [ROUNDS] [FREQ]
set -euo pipefail
build=${1:-build}
reps=${2:-5}
rounds=${3:-200}
freq=${4:-4000}
pmcbench=$build/pmcbench
prog=$build/tests/targets/pmc-prof-dwarf
[ -x "$pmcbench" ] && [ -x "$prog" ] || { echo "build first: meson setup $build && ninja -C $build" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "needs GNU time (/usr/bin/time; Debian: apt-get install time)" >&2; exit 2; }
command -v perf >/dev/null || { echo "needs perf (Debian: apt-get install linux-perf)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
perf record -q -e cpu-clock --call-graph dwarf -o "$tmp/probe.data" -- true >/dev/null 2>&1 ||
	{ echo "perf record --call-graph dwarf does not work here: nothing to compare with" >&2; exit 2; }

declare -A t m
# One run of the command: appends its wall time (ms) to t[$1] and its peak RSS (KiB) to m[$1].
measure() {
	local name=$1 s e
	shift
	s=$(date +%s%N)
	/usr/bin/time -f %M -o "$tmp/rss" "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
	e=$(date +%s%N)
	t[$name]+="$(((e - s) / 1000)) "
	m[$name]+="$(tail -1 "$tmp/rss") "
}
median() { printf '%s\n' $1 | sort -n | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; print m}'; }
ms() { awk -v v="$(median "$1")" 'BEGIN {printf "%.1f", v / 1000}'; }
mb() { awk -v v="$(median "$1")" 'BEGIN {printf "%.1f", v / 1024}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

for ((i = 0; i < reps; i++)); do
	measure plain "$prog" "$rounds"
	measure pmc "$pmcbench" record -e cpu-clock -F "$freq" --call-graph dwarf -o "$tmp/p.json" -- "$prog" "$rounds"
	measure perf_record perf record -q -e cpu-clock -F "$freq" --call-graph dwarf -o "$tmp/perf.data" -- "$prog" "$rounds"
	measure perf_report perf report --stdio -i "$tmp/perf.data"
done
samples=$("$pmcbench" record -e cpu-clock -F "$freq" --call-graph dwarf -o "$tmp/p.json" -- "$prog" "$rounds" 2>&1 >/dev/null | grep -Eo 'recorded [0-9]+ samples' || true)
plain=$(ms "${t[plain]}")
pmc=$(ms "${t[pmc]}")
pr=$(ms "${t[perf_record]}")
pp=$(ms "${t[perf_report]}")
both=$(awk -v a="$pr" -v b="$pp" 'BEGIN {print a + b}')
echo "command: pmc-prof-dwarf $rounds, cpu-clock at $freq Hz, --call-graph dwarf (8192 bytes), $reps reps (medians); pmcbench $samples"
printf '%-42s %9s ms %8s MB\n' "plain run" "$plain" "$(mb "${m[plain]}")"
printf '%-42s %9s ms %8s MB\n' "pmcbench record --call-graph dwarf" "$pmc" "$(mb "${m[pmc]}")"
printf '%-42s %9s ms %8s MB\n' "perf record --call-graph dwarf" "$pr" "$(mb "${m[perf_record]}")"
printf '%-42s %9s ms %8s MB\n' "perf report --stdio (unwinds)" "$pp" "$(mb "${m[perf_report]}")"
echo "ratios (pmcbench / perf):"
printf '  %-40s %sx\n' "wall, record / perf record" "$(ratio "$pmc" "$pr")"
printf '  %-40s %sx\n' "wall, record / perf record + perf report" "$(ratio "$pmc" "$both")"
printf '  %-40s %sx\n' "peak RSS, record / perf record" "$(ratio "$(median "${m[pmc]}")" "$(median "${m[perf_record]}")")"
printf '  %-40s %sx\n' "peak RSS, record / perf report" "$(ratio "$(median "${m[pmc]}")" "$(median "${m[perf_report]}")")"
