#!/bin/bash
# Installs the dependencies, then builds and runs every test in four builds: gcc and
# clang, each plain and with ASan+UBSan, warnings as errors; builds README's first command's
# lean build with each. Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
sh ci/install-deps.sh --tests

# clang's sanitizers need its runtime (libclang-rt-*-dev on newer Debian releases).
clang_san=yes
if ! echo 'int main(void){return 0;}' |
	clang -fsanitize=address,undefined -x c - -o /tmp/pmcbench-ci-san.$$ 2>/dev/null; then
	clang_san=no
fi
rm -f /tmp/pmcbench-ci-san.$$

# The slowest tests of a build (meson's testlog.json) and the slowest e2e cases (the
# "# slowest:" lines run.sh ends its TAP with), so that a test that grows shows itself;
# and the e2e cases skipped, by reason ("# skipped:" lines).
slowest() {
	python3 - "$1/meson-logs/testlog.json" <<'EOF_PY'
import json, sys
tests = [json.loads(line) for line in open(sys.argv[1])]
tests.sort(key=lambda t: -t["duration"])
print("   slowest tests: " + ", ".join("%s %.0f s" % (t["name"].split(":", 1)[-1], t["duration"]) for t in tests[:5]))
cases = []  # (seconds, "t_file test_name") from "# slowest: t_run test_a 3.1 s, ..."
skips = {}  # reason: number of cases, from "# skipped: t_run test_a: REASON"
for t in tests:
    for line in (t.get("stdout") or "").splitlines():
        if line.startswith("# skipped: "):
            reason = line.split(": ", 2)[-1]
            skips[reason] = skips.get(reason, 0) + 1
        if line.startswith("# slowest: "):
            for c in line[len("# slowest: "):].split(", "):
                name, secs, _ = c.rsplit(" ", 2)
                cases.append((float(secs), name))
cases.sort(reverse=True)
if cases:
    print("   slowest e2e cases: " + ", ".join("%s %.0f s" % (n, s) for s, n in cases[:5]))
if skips:
    print("   skipped e2e cases: " + "; ".join("%d: %s" % (n, r) for r, n in sorted(skips.items())))
EOF_PY
}

passed=0
builds=0
timings=()
for cc in gcc clang; do
	for kind in plain sanitize; do
		dir=build-ci-$cc-$kind
		if [ "$cc-$kind" = clang-sanitize ] && [ $clang_san = no ]; then
			echo "== $cc $kind: SKIPPED, clang cannot link -fsanitize=address,undefined here (install libclang-rt-dev)"
			continue
		fi
		echo "== $cc $kind build ($dir)"
		start=$SECONDS
		CC=$cc sh ci/build.sh "$kind" "$dir" werror
		built=$SECONDS
		# Sanitizers: fail on the first report; leaks count as errors.
		ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
			meson test -C "$dir" --print-errorlogs --num-processes 2 | tee "$dir/test-summary.txt"
		ok=$(awk '/^Ok:/ {print $2}' "$dir/test-summary.txt")
		passed=$((passed + ${ok:-0}))
		builds=$((builds + 1))
		timings+=("$cc $kind: build $((built - start)) s, tests $((SECONDS - built)) s|$dir")
	done
done

# README's first command: the lean kind (a unity build without tests, which the four builds
# above do not compile) builds without a warning with gcc and clang and runs, and stays
# under a third of the full build's steps (docs/testing.md, "What the first command builds").
for cc in gcc clang; do
	echo "== $cc lean build (build-ci-$cc-lean), README's first command"
	CC=$cc sh ci/build.sh lean "build-ci-$cc-lean" werror
	"build-ci-$cc-lean/pmcbench" run -r 3 -- true >/dev/null 2>&1
done
sh ci/first-command.sh

# The arm64 guest (docs/testing.md, "Against a real PMU"): pmcbench cross-built and
# tested under Debian's arm64 kernel and its armv8_pmuv3 driver in qemu-system-aarch64,
# the counters read from a real PMU driver. Its packages are cached between runs
# (PMC_GUEST_CACHE); it installs its host tools itself.
echo "== arm64 guest against a real PMU driver (build-guest-arm64)"
start=$SECONDS
sh ci/guest/run.sh build-guest-arm64
guest_time=$((SECONDS - start))
echo "== arm64 guest: ${guest_time} s"

# The libFuzzer targets (tests/fuzz/README.md), each on a fixed number of inputs from a
# fixed seed (the same inputs on every machine): a crash, a leak or a hang fails CI.
# ci/fuzz.sh --time SECONDS runs them longer, --corpus-out DIR keeping the corpus (nightly).
clang_fuzz=yes
if ! echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n){(void)d;(void)n;return 0;}' |
	clang -fsanitize=fuzzer,address,undefined -x c - -o /tmp/pmcbench-ci-fuzz.$$ 2>/dev/null; then
	clang_fuzz=no
fi
rm -f /tmp/pmcbench-ci-fuzz.$$
if [ $clang_fuzz = yes ]; then
	echo "== fuzz targets, ${PMC_FUZZ_RUNS:-20000} inputs each from a fixed seed (build-ci-fuzz)"
	start=$SECONDS
	PMC_FUZZ_RUNS=${PMC_FUZZ_RUNS:-20000} sh ci/fuzz.sh 0 build-ci-fuzz
	echo "== fuzz targets: $((SECONDS - start)) s"
else
	echo "== fuzz targets: SKIPPED, clang cannot link -fsanitize=fuzzer here (install libclang-rt-dev)"
fi
for t in "${timings[@]}"; do
	echo "== ${t%|*}"
	slowest "${t#*|}"
done
echo "== arm64 guest: $guest_time s"
echo "all tests passed in $builds builds (gcc, clang; plain, ASan+UBSan) and the arm64 guest in $((SECONDS / 60)) min $((SECONDS % 60)) s"
echo "$passed passed, 0 failed"
