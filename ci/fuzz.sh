#!/bin/sh
# Builds the libFuzzer targets (tests/fuzz/README.md) with clang, ASan and UBSan, and runs
# each for SECONDS (default 300) from its seed corpus. A crash, a leak, a sanitizer report
# or an input slower than 60 s (libFuzzer's -timeout, far above the 17-863 ms the slowest
# inputs take alone, so that a loaded machine cannot fail it) fails the run; libFuzzer
# leaves the input as crash-*/leak-*/timeout-* in the current directory (make it a
# regression test).
# With PMC_FUZZ_RUNS=N, each runs N inputs from seed 1 instead: the same inputs every time,
# as CI needs (a test must not depend on the machine's speed).
# Usage: ci/fuzz.sh [SECONDS] [BUILDDIR]
set -eu
cd "$(dirname "$0")/.."
secs=${1:-300}
dir=${2:-build-fuzz}
if [ -f "$dir/build.ninja" ]; then
	meson configure "$dir" -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
else
	CC=clang meson setup "$dir" -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
		-Dtests=disabled >/dev/null
fi
ninja -C "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for t in result load_any thresholds events reporters words profile elf maps sample; do
	if [ -n "${PMC_FUZZ_RUNS:-}" ]; then
		limit="-runs=$PMC_FUZZ_RUNS -seed=1"
		echo "== fuzz_$t: $PMC_FUZZ_RUNS inputs from seed 1"
	else
		limit="-max_total_time=$secs"
		echo "== fuzz_$t: $secs s"
	fi
	# A copy of the seeds: new inputs go to the scratch corpus, not into the tree.
	mkdir "$work/$t"
	cp tests/fuzz/corpus/"$t"/* "$work/$t/"
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		# shellcheck disable=SC2086 # limit is two options or one
		"$dir/tests/fuzz/fuzz_$t" $limit -timeout=60 -rss_limit_mb=2048 \
		-print_final_stats=1 "$work/$t" 2>"$work/$t.log" || {
		tail -60 "$work/$t.log" >&2
		echo "ci/fuzz.sh: fuzz_$t failed (log above)" >&2
		exit 1
	}
	grep -E "^stat::number_of_executed_units|^#[0-9]+ *DONE" "$work/$t.log" | tail -1
done
