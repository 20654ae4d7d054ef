#!/bin/sh
# Builds the libFuzzer targets (tests/fuzz/README.md) with clang, ASan and UBSan, and runs
# each from its seed corpus: every target that has one (tests/fuzz/corpus/NAME). A crash,
# a leak, a sanitizer report or an input slower than 60 s (libFuzzer's -timeout, far above
# the 17-863 ms the slowest inputs take alone, so that a loaded machine cannot fail it)
# fails the run; libFuzzer leaves the input as crash-*/leak-*/timeout-* in the current
# directory, or beside the kept corpus (make it a regression test).
#
# Usage: ci/fuzz.sh [--time SECONDS | --runs N] [--corpus-out DIR] [--targets "A B"]
#                   [SECONDS] [BUILDDIR]
#   --time SECONDS   each target for SECONDS (default 300; the positional SECONDS too)
#   --runs N         each target on N inputs from seed 1 instead: the same inputs every
#                    time, as CI needs (a test must not depend on the machine's speed)
#   --corpus-out DIR keep the corpus in DIR between runs: each target starts from its seeds
#                    and DIR/NAME, and DIR/NAME is then replaced by the merge of both and
#                    of the inputs found (libFuzzer -merge=1: the fewest inputs that reach
#                    all the code they reached), with the run's log (DIR/NAME.log) and its
#                    findings (DIR/NAME-crash-*, ...) beside it; the way to fuzz for hours
#                    on a schedule (ci/examples/github-actions-fuzz.yml). Without it, a
#                    scratch copy of the seeds is used and thrown away.
#   --targets "A B"  only those (names without fuzz_)
# PMC_FUZZ_RUNS, PMC_FUZZ_CORPUS and PMC_FUZZ_TARGETS are the same as --runs, --corpus-out
# and --targets. PMC_FUZZ_JOBS targets run at once (default 2).
set -eu
cd "$(dirname "$0")/.."
usage() {
	echo "usage: ci/fuzz.sh [--time SECONDS | --runs N] [--corpus-out DIR] [--targets \"A B\"] [SECONDS] [BUILDDIR]" >&2
	exit 2
}
number() {
	case $2 in
	'' | *[!0-9]*)
		echo "ci/fuzz.sh: $1 '$2': a whole number" >&2
		exit 2
		;;
	esac
}
secs=300
runs=${PMC_FUZZ_RUNS:-}
keep=${PMC_FUZZ_CORPUS:-}
targets=${PMC_FUZZ_TARGETS:-}
npos=0
dir=build-fuzz
while [ $# -gt 0 ]; do
	case $1 in
	--time | --runs | --corpus-out | --targets) [ $# -ge 2 ] || usage ;;
	esac
	case $1 in
	--time)
		number --time "$2"
		secs=$2
		runs=
		shift 2
		;;
	--runs)
		number --runs "$2"
		runs=$2
		shift 2
		;;
	--corpus-out)
		keep=$2
		shift 2
		;;
	--targets)
		targets=$2
		shift 2
		;;
	-*) usage ;;
	*)
		npos=$((npos + 1))
		if [ $npos = 1 ]; then
			number SECONDS "$1"
			secs=$1
		elif [ $npos = 2 ]; then
			dir=$1
		else
			usage
		fi
		shift
		;;
	esac
done
[ -z "$runs" ] || number PMC_FUZZ_RUNS "$runs"
if [ -f "$dir/build.ninja" ]; then
	meson configure "$dir" -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
else
	CC=clang meson setup "$dir" -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
		-Dtests=disabled >/dev/null
fi
ninja -C "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "$keep" ]; then
	mkdir -p "$keep"
	keep=$(cd "$keep" && pwd)
fi
# Every target has a seed corpus (tests/fuzz/meson.build and README.md list them), so a new
# one is run without being named here.
all=$(cd tests/fuzz/corpus && ls)
for t in ${targets:-$all}; do
	if [ ! -d "tests/fuzz/corpus/$t" ] || [ ! -x "$dir/tests/fuzz/fuzz_$t" ]; then
		echo "ci/fuzz.sh: no target fuzz_$t (one of:" $all")" >&2
		exit 2
	fi
done
# One target: its lines go to stdout, its failure (the log's tail) to stderr.
fuzz_one() {
	t=$1
	if [ -n "$runs" ]; then
		limit="-runs=$runs -seed=1"
		echo "== fuzz_$t: $runs inputs from seed 1"
	else
		limit="-max_total_time=$secs"
		echo "== fuzz_$t: $secs s"
	fi
	# A copy of the seeds (and of the kept corpus): new inputs go there, not into the tree.
	corpus=$work/$t
	mkdir "$corpus"
	cp tests/fuzz/corpus/"$t"/* "$corpus/"
	if [ -n "$keep" ]; then
		log=$keep/$t.log
		artifacts=$keep/$t-
		[ ! -d "$keep/$t" ] || cp -R "$keep/$t/." "$corpus/"
	else
		log=$work/$t.log
		artifacts=./
	fi
	# libFuzzer names a finding crash-*, leak-* or timeout-* after the prefix. (A comment
	# between the options and the command once ended the command there: the options
	# never reached the fuzzer, and UBSan reported and carried on.)
	# shellcheck disable=SC2086 # limit is two options or one
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$dir/tests/fuzz/fuzz_$t" $limit -timeout=60 -rss_limit_mb=2048 \
		-artifact_prefix="$artifacts" -print_final_stats=1 "$corpus" 2>"$log" || {
		tail -60 "$log" >&2
		echo "ci/fuzz.sh: fuzz_$t failed (log above)" >&2
		return 1
	}
	grep -E "^stat::number_of_executed_units|^#[0-9]+ *DONE" "$log" | tail -1
	if [ -n "$keep" ]; then
		# The kept corpus becomes the fewest inputs that reach what all of them reached;
		# it is replaced only once the merge is whole.
		rm -rf "$keep/$t.new"
		mkdir "$keep/$t.new"
		ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
			"$dir/tests/fuzz/fuzz_$t" -merge=1 -timeout=60 -rss_limit_mb=2048 \
			-artifact_prefix="$artifacts" "$keep/$t.new" "$corpus" 2>>"$log" || {
			tail -30 "$log" >&2
			echo "ci/fuzz.sh: fuzz_$t: merging the corpus into $keep/$t failed (log above)" >&2
			return 1
		}
		rm -rf "$keep/$t"
		mv "$keep/$t.new" "$keep/$t"
		echo "   corpus $keep/$t: $(ls "$keep/$t" | wc -l) inputs"
	fi
}
# Two targets at a time (the CI machine's CPUs; PMC_FUZZ_JOBS), each one's output
# printed whole once it ends, in the targets' order; the first failure fails the run.
jobs=${PMC_FUZZ_JOBS:-2}
number PMC_FUZZ_JOBS "$jobs"
[ "$jobs" -gt 0 ] || jobs=1
set -- ${targets:-$all}
failed=0
while [ $# -gt 0 ] && [ $failed = 0 ]; do
	batch=
	n=0
	while [ $# -gt 0 ] && [ $n -lt "$jobs" ]; do
		(fuzz_one "$1" >"$work/$1.out" 2>"$work/$1.err") &
		batch="$batch $1:$!"
		n=$((n + 1))
		shift
	done
	for job in $batch; do
		wait "${job#*:}" || failed=1
		cat "$work/${job%%:*}.out"
		cat "$work/${job%%:*}.err" >&2
	done
done
exit $failed
