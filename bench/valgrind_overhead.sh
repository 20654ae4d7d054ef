#!/bin/sh
# The valgrind backend's cost against plain valgrind on the same command.
#
#   bench/valgrind_overhead.sh PMCBENCH [RUNS] [-- CMD [ARGS...]]
#
# Times RUNS (default 7) invocations of `PMCBENCH run --backend valgrind -r 1 -w 0 -- CMD`
# and as many of valgrind with the options the backend passes (docs/valgrind.md, "What a
# run looks like"), interleaved so that drift hits both alike, and prints the medians and
# their ratio. Target: at most 1.05x. CMD defaults to `pmc-work loop 5000000` from the
# build directory PMCBENCH is in. Exits 77 (skipped) when valgrind is missing or the
# backend is not wired into `pmcbench run` yet.
set -eu

usage() {
	echo "usage: $0 PMCBENCH [RUNS] [-- CMD [ARGS...]]" >&2
	exit 2
}

[ $# -ge 1 ] || usage
pmcbench=$1
shift
runs=7
if [ $# -ge 1 ] && [ "$1" != "--" ]; then
	runs=$1
	shift
fi
case $runs in '' | *[!0-9]* | 0) usage ;; esac
if [ $# -ge 1 ]; then
	[ "$1" = "--" ] || usage
	shift
fi
if [ $# -eq 0 ]; then
	work=$(dirname "$pmcbench")/tests/targets/pmc-work
	[ -x "$work" ] || { echo "$0: no CMD given and no $work" >&2; exit 2; }
	set -- "$work" loop 5000000
fi

[ -x "$pmcbench" ] || { echo "$0: $pmcbench is not an executable" >&2; exit 2; }
if ! command -v valgrind >/dev/null 2>&1; then
	echo "SKIP: valgrind is not installed; install it with: apt-get install valgrind"
	exit 77
fi
if ! msg=$("$pmcbench" run --backend valgrind -r 1 -w 0 -- true 2>&1 >/dev/null); then
	echo "SKIP: \`pmcbench run --backend valgrind\` does not work yet:"
	printf '%s\n' "$msg" | head -n 3 | sed 's/^/  /'
	exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now_ns() { date +%s%N; }

plain() {
	rm -rf "$tmp/vg" && mkdir "$tmp/vg"
	valgrind --tool=callgrind --log-file="$tmp/vg/valgrind.log.%p" \
		--callgrind-out-file="$tmp/vg/callgrind.out.%p" \
		--cache-sim=yes --branch-sim=yes --trace-children=yes \
		--I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64 \
		--dump-before=fork --dump-before=_Fork -- "$@" >/dev/null 2>&1 </dev/null
}

backend() {
	"$pmcbench" run --backend valgrind -r 1 -w 0 -- "$@" >/dev/null 2>&1 </dev/null
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# One untimed run of each, so that both start with warm page caches.
plain "$@" || { echo "$0: plain valgrind failed on: $*" >&2; exit 2; }
backend "$@" || { echo "$0: pmcbench failed on: $*" >&2; exit 2; }

: >"$tmp/plain"
: >"$tmp/backend"
i=0
while [ "$i" -lt "$runs" ]; do
	t0=$(now_ns); plain "$@"; t1=$(now_ns)
	echo $((t1 - t0)) >>"$tmp/plain"
	t0=$(now_ns); backend "$@"; t1=$(now_ns)
	echo $((t1 - t0)) >>"$tmp/backend"
	i=$((i + 1))
done

p=$(median <"$tmp/plain")
b=$(median <"$tmp/backend")
awk -v p="$p" -v b="$b" -v n="$runs" -v cmd="$*" 'BEGIN {
	printf "command:                  %s\n", cmd
	printf "plain valgrind (median):  %8.1f ms  (%d runs)\n", p / 1e6, n
	printf "pmcbench valgrind:        %8.1f ms  (%d runs)\n", b / 1e6, n
	r = b / p
	printf "ratio:                    %8.3fx  (target <= 1.05x: %s)\n", r, r <= 1.05 ? "met" : "NOT met"
}'

# How many runs a stable gate needs: two separate one-run results must give identical
# counts for every simulated metric, so one run is enough.
"$pmcbench" run --backend valgrind -r 1 -w 0 -o "$tmp/one.json" -- "$@" >/dev/null 2>&1 </dev/null
"$pmcbench" run --backend valgrind -r 1 -w 0 -o "$tmp/two.json" -- "$@" >/dev/null 2>&1 </dev/null
if python3 - "$tmp/one.json" "$tmp/two.json" <<'PY'
import json, sys
a, b = (json.load(open(p))["benchmarks"][0]["metrics"] for p in sys.argv[1:])
same = {k: a[k]["samples"] == b[k]["samples"] for k in a}
print("identical counts in two separate runs: %d of %d metrics" % (sum(same.values()), len(same)))
sys.exit(0 if all(same.values()) else 1)
PY
then
	echo "runs needed for a stable gate: 1"
else
	echo "runs needed for a stable gate: more than 1 (counts differ between runs)"
fi
