#!/bin/sh
# Builds the libFuzzer targets (tests/fuzz/README.md) with clang, ASan and UBSan, and runs
# each for SECONDS (default 300) from its seed corpus. A crash, a leak, a sanitizer report
# or an input slower than 60 s (libFuzzer's -timeout, far above the 17-863 ms the slowest
# inputs take alone, so that a loaded machine cannot fail it) fails the run; libFuzzer
# leaves the input as crash-*/leak-*/timeout-* in the current directory (make it a
# regression test).
# With PMC_FUZZ_RUNS=N, each runs N inputs from seed 1 instead: the same inputs every time,
# as CI needs (a test must not depend on the machine's speed).
# With PMC_FUZZ_CORPUS=DIR, the corpus is kept: each target's in DIR/NAME (made from the
# seeds the first time, the seeds added again every run), grown by every run, with the
# findings (DIR/NAME-crash-*, ...) and each run's log (DIR/NAME.log) beside it; the way to
# run for hours on a schedule (tests/fuzz/README.md). Without it, a scratch copy of the
# seeds is used and thrown away.
# PMC_FUZZ_TARGETS="sysfs maps" runs only those (names without fuzz_).
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
keep=${PMC_FUZZ_CORPUS:-}
if [ -n "$keep" ]; then
	mkdir -p "$keep"
	keep=$(cd "$keep" && pwd)
fi
all="result load_any thresholds events reporters words profile elf maps sample jit_map sysfs"
all="$all history_samples cli_params"
for t in ${PMC_FUZZ_TARGETS:-$all}; do
	if [ ! -d "tests/fuzz/corpus/$t" ]; then
		echo "ci/fuzz.sh: no target fuzz_$t (PMC_FUZZ_TARGETS: one of $all)" >&2
		exit 2
	fi
	if [ -n "${PMC_FUZZ_RUNS:-}" ]; then
		limit="-runs=$PMC_FUZZ_RUNS -seed=1"
		echo "== fuzz_$t: $PMC_FUZZ_RUNS inputs from seed 1"
	else
		limit="-max_total_time=$secs"
		echo "== fuzz_$t: $secs s"
	fi
	if [ -n "$keep" ]; then
		# The kept corpus, with the seeds (new ones too) in it.
		corpus=$keep/$t
		log=$keep/$t.log
		artifacts=$keep/$t-
		mkdir -p "$corpus"
	else
		# A copy of the seeds: new inputs go to the scratch corpus, not into the tree.
		corpus=$work/$t
		log=$work/$t.log
		artifacts=./
		mkdir "$corpus"
	fi
	cp tests/fuzz/corpus/"$t"/* "$corpus/"
	# libFuzzer names a finding crash-*, leak-* or timeout-* after the prefix. (A comment
	# between the options and the command once ended the command there: the options
	# never reached the fuzzer, and UBSan reported and carried on.)
	# shellcheck disable=SC2086 # limit is two options or one
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$dir/tests/fuzz/fuzz_$t" $limit -timeout=60 -rss_limit_mb=2048 \
		-artifact_prefix="$artifacts" -print_final_stats=1 "$corpus" 2>"$log" || {
		tail -60 "$log" >&2
		echo "ci/fuzz.sh: fuzz_$t failed (log above)" >&2
		exit 1
	}
	grep -E "^stat::number_of_executed_units|^#[0-9]+ *DONE" "$log" | tail -1
done
