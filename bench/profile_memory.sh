#!/bin/bash
# What a recording's memory follows (docs/profile.md, "Recording"): the peak RSS of
# `pmcbench record` (GNU time's %M, the largest of the recorder and the command; the
# command, pmc-work spin, keeps ~1.5 MB) on the same steady loop for S and for 10 x S seconds
# of CPU time, with frame-pointer and with DWARF call graphs, at 4000 Hz of cpu-clock. A
# recording whose memory follows its distinct stacks takes about the same at both lengths
# (ratio ~1); one that keeps every sample grows with the run (ratio ~10 beyond the fixed
# part). Give another pmcbench (an older build) as OTHER to measure it the same way.
# perf record -g and --call-graph dwarf are measured the same way where perf can sample
# (target: pmcbench record within 1.2x perf record's peak RSS in fp mode).
# Usage: bench/profile_memory.sh [BUILDDIR] [S] [OTHER]
set -euo pipefail
build=${1:-build}
secs=${2:-1}
other=${3:-}
work=$build/tests/targets/pmc-work
[ -x "$build/pmcbench" ] && [ -x "$work" ] || { echo "build first: meson setup $build && ninja -C $build" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "needs GNU time (/usr/bin/time; Debian: apt-get install time)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# rss PMCBENCH MS ARGS...: peak RSS (KiB) of one recording of MS ms of CPU time, and its samples.
rss() {
	local pmc=$1 ms=$2
	shift 2
	/usr/bin/time -f %M -o "$tmp/rss" "$pmc" record -e cpu-clock -F 4000 "$@" -o "$tmp/p.json" \
		-- "$work" spin "$ms" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	echo "$(tail -1 "$tmp/rss") $(grep -Eo 'recorded [0-9]+' "$tmp/err" | grep -Eo '[0-9]+')"
}

# perf_rss MS ARGS...: the same of perf record (its samples from perf report --stats).
perf_rss() {
	local ms=$1
	shift
	/usr/bin/time -f %M -o "$tmp/rss" perf record -q -e cpu-clock -F 4000 "$@" -o "$tmp/p.data" \
		-- "$work" spin "$ms" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	echo "$(tail -1 "$tmp/rss") $(perf report --stats -i "$tmp/p.data" 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')"
}

echo "pmc-work spin: ${secs} s and $((10 * secs)) s of CPU time, cpu-clock at 4000 Hz; peak RSS (GNU time %M)"
printf '%-44s %16s %16s %8s\n' "recorder" "${secs}x: MB (samples)" "10x: MB (samples)" "ratio"
for who in "$build/pmcbench" ${other:+"$other"}; do
	for cg in fp dwarf; do
		[ "$cg" = fp ] || "$who" help record | grep -q call-graph || continue
		opt=()
		[ "$cg" = fp ] || opt=(--call-graph "$cg")
		read -r a na < <(rss "$who" $((secs * 1000)) "${opt[@]}")
		read -r b nb < <(rss "$who" $((secs * 10000)) "${opt[@]}")
		label="$who, $cg"
		printf '%-44s %9.1f (%5d) %9.1f (%5d) %8.2f\n' "$label" \
			"$(awk -v v="$a" 'BEGIN {print v / 1024}')" "$na" \
			"$(awk -v v="$b" 'BEGIN {print v / 1024}')" "$nb" \
			"$(awk -v a="$a" -v b="$b" 'BEGIN {print b / a}')"
	done
done
if command -v perf >/dev/null && perf record -q -e cpu-clock -o "$tmp/probe.data" -- true >/dev/null 2>&1; then
	for cg in fp dwarf; do
		opt=(-g)
		[ "$cg" = fp ] || opt=(--call-graph dwarf)
		read -r a na < <(perf_rss $((secs * 1000)) "${opt[@]}")
		read -r b nb < <(perf_rss $((secs * 10000)) "${opt[@]}")
		printf '%-44s %9.1f (%5d) %9.1f (%5d) %8.2f\n' "perf record, $cg" \
			"$(awk -v v="$a" 'BEGIN {print v / 1024}')" "$na" \
			"$(awk -v v="$b" 'BEGIN {print v / 1024}')" "$nb" \
			"$(awk -v a="$a" -v b="$b" 'BEGIN {print b / a}')"
	done
fi
