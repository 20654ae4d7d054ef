#!/bin/bash
# What `pmcbench compare` holds per sample (issue 35, item 9): peak RSS (GNU time's %M)
# of compare on two synthetic results of one benchmark with RUNS1 (50,000) and RUNS2
# (200,000) runs, ten metrics each (gen_results.py: five counters with status and raw
# readings, four from wait4, ipc), and the bytes per sample from the slope between the
# two sizes (both files' samples: 2 x runs x 10), which leaves out what does not grow
# (the program, its libraries). OTHER: another build (an older one) measured the same way.
# Usage: bench/compare_memory.sh [BUILD] [OTHER] [RUNS1] [RUNS2]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
other=${2:-}
r1=${3:-50000}
r2=${4:-200000}
dir=${TMPDIR:-/tmp}/pmcbench-compare-memory
mkdir -p "$dir"
for r in "$r1" "$r2"; do
	for s in 1 2; do
		f=$dir/$r-$s.json
		[ -s "$f" ] || python3 "$here/gen_results.py" "$f" --benchmarks 1 --runs "$r" --seed "$s"
	done
done
peak() { # BUILD RUNS: KiB
	/usr/bin/time -f %M -o "$dir/rss" "$1/harness/7-cli/pmcbench" compare "$dir/$2-1.json" \
		"$dir/$2-2.json" >/dev/null 2>&1 || [ $? -le 1 ]
	cat "$dir/rss"
}
for b in "$build" ${other:+"$other"}; do
	k1=$(peak "$b" "$r1")
	k2=$(peak "$b" "$r2")
	echo "$b: peak RSS $((k1 / 1024)) MiB at $r1 runs, $((k2 / 1024)) MiB at $r2 runs;" \
		"$(( (k2 - k1) * 1024 / ((r2 - r1) * 2 * 10) )) bytes per sample," \
		"$(( (k2 - k1) * 1024 / ((r2 - r1) * 2) )) per run of ten metrics"
done
