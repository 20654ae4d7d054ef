#!/bin/bash
# What a profile costs (docs/profile.md): the same command (tests/targets/prof_work.c,
# about 0.45 s of one function calling two) run plainly, under `pmcbench record` and
# under `perf record -g` at the same frequency, and the time from the recorded data to
# the answer: `pmcbench report` (top functions; folded stacks) against `perf report
# --stdio` on perf.data of the same command. Each is timed REPS times, alternating; the
# medians and their ratios are printed. pmcbench record symbolizes and folds before it
# exits, so its figure holds both the sampling and the symbolization.
# Targets: record <= 1.10x the plain run; record + report <= perf record + perf report.
# Then the same for DWARF call graphs (docs/profile.md, "DWARF call graphs"): a program
# without frame pointers (tests/targets/prof_dwarf.c, -O2, about 0.5 s) recorded by
# `pmcbench record --call-graph dwarf` and by `perf record --call-graph dwarf`, both on
# cpu-clock with perf's default 8192-byte stack copies, with each recorder's peak RSS
# (GNU time's %M: the largest of the recorder and the command it runs, the command's own
# being ~9 MB). perf record only writes the stacks and unwinds them in `perf report`;
# pmcbench record unwinds, names and folds before it exits, so it is compared with perf
# record alone and with perf record + perf report --stdio.
# Usage: bench/profile_overhead.sh [BUILDDIR] [REPS] [FREQ] [DWARF_ROUNDS]
set -euo pipefail
build=${1:-build}
reps=${2:-7}
freq=${3:-4000}
rounds=${4:-200}
pmcbench=$build/pmcbench
prog=$build/tests/targets/pmc-prof-work
args=(320000 80000)
[ -x "$pmcbench" ] && [ -x "$prog" ] || { echo "build first: meson setup $build && ninja -C $build" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
have_perf=0
if command -v perf >/dev/null && perf record -F "$freq" -o "$tmp/probe.data" -- true >/dev/null 2>&1; then
	have_perf=1
fi

declare -A t m
add() { t[$1]+="$2 "; }
# Appends the wall time in ms of one run of the command to the list named $1.
time_one() {
	local name=$1 s e
	shift
	s=$(date +%s%N)
	"$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
	e=$(date +%s%N)
	add "$name" "$(((e - s) / 1000))"
}
median() { printf '%s\n' $1 | sort -n | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.1f", m / 1000}'; }
# As time_one, and also appends the run's peak RSS (KiB, GNU time's %M) to m[$1] and its
# CPU time (user + system, ms, of the recorder and the command it runs) to c[$1].
declare -A c
time_rss() {
	local name=$1 s e
	shift
	s=$(date +%s%N)
	/usr/bin/time -f '%M %U %S' -o "$tmp/rss" "$@" >/dev/null 2>"$tmp/rss.err" || { cat "$tmp/rss.err" >&2; echo "failed: $*" >&2; exit 1; }
	e=$(date +%s%N)
	add "$name" "$(((e - s) / 1000))"
	read -r kb us ss < <(tail -1 "$tmp/rss")
	m[$name]+="${kb}000 "
	c[$name]+="$(awk -v u="$us" -v s="$ss" 'BEGIN {printf "%d", (u + s) * 1e6}') "
}
# The lost share (%) of a recording: pmcbench's profile, or perf's data.
lost_pmc() {
	"$pmcbench" report "$1" | sed -n 's/^Samples: \([0-9,]*\), lost: \([0-9,]*\).*/\1 \2/p' | tr -d , |
		awk '{printf "%.2f %d %d", ($1 + $2) ? 100 * $2 / ($1 + $2) : 0, $2, $1}'
}
# Each value x 1000, as median expects.
milli() { for v in $1; do awk -v v="$v" 'BEGIN {printf "%d ", v * 1000}'; done; }
lost_perf() {
	local lost samples
	lost=$(perf report --stdio -i "$1" 2>/dev/null | awk '/^# Total Lost Samples:/ {print $5; exit}')
	samples=$(perf report --stats -i "$1" 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
	awk -v l="${lost:-0}" -v n="${samples:-0}" 'BEGIN {printf "%.2f %d %d", (l + n) ? 100 * l / (l + n) : 0, l, n}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

for ((i = 0; i < reps; i++)); do
	time_one plain "$prog" "${args[@]}"
	time_rss record "$pmcbench" record -F "$freq" -o "$tmp/p.json" -- "$prog" "${args[@]}"
	time_one report "$pmcbench" report "$tmp/p.json"
	time_one folded "$pmcbench" report --folded "$tmp/p.json"
	if [ $have_perf = 1 ]; then
		time_rss perf_record perf record -q -g -F "$freq" -o "$tmp/perf.data" -- "$prog" "${args[@]}"
		time_one perf_report perf report --stdio -i "$tmp/perf.data"
	fi
done
plain=$(median "${t[plain]}")
rec=$(median "${t[record]}")
rep=$(median "${t[report]}")
fold=$(median "${t[folded]}")
samples=$("$pmcbench" record -F "$freq" -o "$tmp/p.json" -- "$prog" "${args[@]}" 2>&1 >/dev/null | grep -Eo 'recorded [0-9]+ samples' || true)
echo "command: pmc-prof-work ${args[*]}, $freq Hz, $reps reps (medians); pmcbench $samples"
printf '%-40s %9s ms  %s\n' "plain run" "$plain" "1.00x"
printf '%-40s %9s ms  %sx the plain run (target <= 1.10x)\n' "pmcbench record" "$rec" "$(ratio $rec $plain)"
printf '%-40s %9s ms\n' "pmcbench report (top functions)" "$rep"
printf '%-40s %9s ms\n' "pmcbench report --folded" "$fold"
if [ $have_perf = 1 ]; then
	pr=$(median "${t[perf_record]}")
	pp=$(median "${t[perf_report]}")
	printf '%-40s %9s ms  %sx the plain run\n' "perf record -g" "$pr" "$(ratio $pr $plain)"
	printf '%-40s %9s ms\n' "perf report --stdio" "$pp"
	printf '%-40s %9s    %sx (target <= 1.00x)\n' "record+report: pmcbench / perf" "" \
		"$(ratio "$(awk -v a=$rec -v b=$rep 'BEGIN{print a+b}')" "$(awk -v a=$pr -v b=$pp 'BEGIN{print a+b}')")"
	printf '%-40s %9s    %sx (target <= 1.05x)\n' "CPU time, record / perf record -g" "" \
		"$(ratio "$(median "${c[record]}")" "$(median "${c[perf_record]}")")"
	printf '%-40s %9s    %sx (target <= 1.20x; %s / %s MB)\n' "peak RSS, record / perf record -g" "" \
		"$(ratio "$(median "${m[record]}")" "$(median "${m[perf_record]}")")" \
		"$(awk -v v="$(median "${m[record]}")" 'BEGIN {printf "%.1f", v / 1024}')" \
		"$(awk -v v="$(median "${m[perf_record]}")" 'BEGIN {printf "%.1f", v / 1024}')"
	printf '%-40s %9s    %sx (target >= 5x)\n' "report speed, perf report / report" "" "$(ratio "$pp" "$rep")"
else
	echo "perf record is not usable here: no comparison with perf"
fi

# DWARF call graphs.
lp= lf=
dprog=$build/tests/targets/pmc-prof-dwarf
if [ ! -x "$dprog" ] || [ ! -x /usr/bin/time ] ||
	! perf record -q -e cpu-clock --call-graph dwarf -o "$tmp/probe.data" -- true >/dev/null 2>&1; then
	echo "DWARF call graphs: not compared (needs $dprog, GNU time and a working perf record --call-graph dwarf)"
	exit 0
fi
for ((i = 0; i < reps; i++)); do
	time_rss dplain "$dprog" "$rounds"
	time_rss dpmc "$pmcbench" record -e cpu-clock -F "$freq" --call-graph dwarf -o "$tmp/d.json" -- "$dprog" "$rounds"
	time_rss dperf_record perf record -q -e cpu-clock -F "$freq" --call-graph dwarf -o "$tmp/d.data" -- "$dprog" "$rounds"
	time_rss dperf_report perf report --stdio -i "$tmp/d.data"
	lp+="$(lost_pmc "$tmp/d.json" | cut -d' ' -f1) "
	lf+="$(lost_perf "$tmp/d.data" | cut -d' ' -f1) "
done
# m holds KiB x 1000, so that median's /1000 gives KiB; /1024 more gives MB.
mb() { awk -v v="$(median "$1")" 'BEGIN {printf "%.1f", v / 1024}'; }
samples=$("$pmcbench" record -e cpu-clock -F "$freq" --call-graph dwarf -o "$tmp/d.json" -- "$dprog" "$rounds" 2>&1 >/dev/null | grep -Eo 'recorded [0-9]+ samples' || true)
dplain=$(median "${t[dplain]}")
dpmc=$(median "${t[dpmc]}")
dpr=$(median "${t[dperf_record]}")
dpp=$(median "${t[dperf_report]}")
echo
echo "command: pmc-prof-dwarf $rounds, cpu-clock at $freq Hz, --call-graph dwarf (8192 bytes), $reps reps (medians); pmcbench $samples"
printf '%-42s %9s ms %8s MB\n' "plain run" "$dplain" "$(mb "${m[dplain]}")"
printf '%-42s %9s ms %8s MB\n' "pmcbench record --call-graph dwarf" "$dpmc" "$(mb "${m[dpmc]}")"
printf '%-42s %9s ms %8s MB\n' "perf record --call-graph dwarf" "$dpr" "$(mb "${m[dperf_record]}")"
printf '%-42s %9s ms %8s MB\n' "perf report --stdio (unwinds)" "$dpp" "$(mb "${m[dperf_report]}")"
echo "ratios (pmcbench / perf):"
printf '  %-40s %sx\n' "wall, record / perf record" "$(ratio "$dpmc" "$dpr")"
printf '  %-40s %sx\n' "wall, record / perf record + perf report" \
	"$(ratio "$dpmc" "$(awk -v a="$dpr" -v b="$dpp" 'BEGIN {print a + b}')")"
printf '  %-40s %sx\n' "peak RSS, record / perf record" "$(ratio "$(median "${m[dpmc]}")" "$(median "${m[dperf_record]}")")"
printf '  %-40s %sx\n' "peak RSS, record / perf report" "$(ratio "$(median "${m[dpmc]}")" "$(median "${m[dperf_report]}")")"
printf '  %-40s %sx (target <= 1.05x)\n' "CPU time, record / perf record" "$(ratio "$(median "${c[dpmc]}")" "$(median "${c[dperf_record]}")")"
echo "lost samples (% of those taken, each run): pmcbench record $lp; perf record $lf"
printf '  %-40s %s points (target <= 1)\n' "median lost %, pmcbench - perf" \
	"$(awk -v a="$(median "$(milli "$lp")")" -v b="$(median "$(milli "$lf")")" 'BEGIN {printf "%.2f", a - b}')"
