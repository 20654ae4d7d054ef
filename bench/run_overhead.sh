#!/bin/bash
# Per-run overhead of `pmcbench run`: `pmcbench run -r N -w 0 -- true` against a plain
# spawn-and-wait loop of the same N runs (build/bench/spawn-loop), and, where installed,
# `hyperfine -N` and `perf stat -r` on the same work. Each is timed REPS times; the
# medians and their ratios to the spawn loop are printed. Target: pmcbench <= 1.10x.
# Usage: bench/run_overhead.sh [BUILDDIR] [N] [REPS]
set -euo pipefail
build=${1:-build}
n=${2:-200}
reps=${3:-7}
pmcbench=$build/pmcbench
loop=$build/bench/spawn-loop
target=$(command -v true)
[ -x "$pmcbench" ] && [ -x "$loop" ] || { echo "build first: meson setup $build && ninja -C $build" >&2; exit 2; }

# Prints the median wall time in ms of REPS runs of the command.
median_ms() {
	local t=()
	for ((i = 0; i < reps; i++)); do
		local s e
		s=$(date +%s%N)
		"$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
		e=$(date +%s%N)
		t+=($(((e - s) / 1000)))
	done
	printf '%s\n' "${t[@]}" | sort -n | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.1f", m / 1000}'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }

floor=$(median_ms "$loop" "$n" "$target")
ours=$(median_ms "$pmcbench" run -q -r "$n" -w 0 -- "$target")
printf '%-34s %10s ms  %s\n' "spawn loop ($n runs of true)" "$floor" "1.00x (floor)"
printf '%-34s %10s ms  %.2fx (target <= 1.10x)\n' "pmcbench run -r $n -w 0" "$ours" "$(ratio $ours $floor)"
if command -v hyperfine >/dev/null; then
	hf=$(median_ms hyperfine -N --runs "$n" --warmup 0 --style none "$target")
	printf '%-34s %10s ms  %.2fx\n' "hyperfine -N --runs $n" "$hf" "$(ratio $hf $floor)"
fi
if command -v perf >/dev/null && perf stat -r 1 true >/dev/null 2>&1; then
	ps=$(median_ms perf stat -r "$n" "$target")
	printf '%-34s %10s ms  %.2fx\n' "perf stat -r $n" "$ps" "$(ratio $ps $floor)"
fi
echo "(medians of $reps repetitions each, measured in this run)"
