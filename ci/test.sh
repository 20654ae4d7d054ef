#!/bin/bash
# Installs the dependencies, then builds and runs every test in four builds: gcc and
# clang, each plain and with ASan+UBSan, warnings as errors. Exits non-zero on the first
# failure.
set -euo pipefail
cd "$(dirname "$0")/.."
sh ci/install-deps.sh

# clang's sanitizers need its runtime (libclang-rt-*-dev on newer Debian releases).
clang_san=yes
if ! echo 'int main(void){return 0;}' |
	clang -fsanitize=address,undefined -x c - -o /tmp/pmcbench-ci-san.$$ 2>/dev/null; then
	clang_san=no
fi
rm -f /tmp/pmcbench-ci-san.$$

passed=0
builds=0
for cc in gcc clang; do
	for kind in plain sanitize; do
		dir=build-ci-$cc-$kind
		if [ "$cc-$kind" = clang-sanitize ] && [ $clang_san = no ]; then
			echo "== $cc $kind: SKIPPED, clang cannot link -fsanitize=address,undefined here (install libclang-rt-dev)"
			continue
		fi
		echo "== $cc $kind build ($dir)"
		CC=$cc sh ci/build.sh "$kind" "$dir" werror
		# Sanitizers: fail on the first report; leaks count as errors.
		ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
			meson test -C "$dir" --print-errorlogs --num-processes 2 | tee "$dir/test-summary.txt"
		ok=$(awk '/^Ok:/ {print $2}' "$dir/test-summary.txt")
		passed=$((passed + ${ok:-0}))
		builds=$((builds + 1))
	done
done

# The libFuzzer targets (tests/fuzz/README.md), each on a fixed number of inputs from a
# fixed seed (the same inputs on every machine): a crash, a leak or a hang fails CI.
# ci/fuzz.sh SECONDS runs them longer.
clang_fuzz=yes
if ! echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n){(void)d;(void)n;return 0;}' |
	clang -fsanitize=fuzzer,address,undefined -x c - -o /tmp/pmcbench-ci-fuzz.$$ 2>/dev/null; then
	clang_fuzz=no
fi
rm -f /tmp/pmcbench-ci-fuzz.$$
if [ $clang_fuzz = yes ]; then
	echo "== fuzz targets, ${PMC_FUZZ_RUNS:-20000} inputs each from a fixed seed (build-ci-fuzz)"
	PMC_FUZZ_RUNS=${PMC_FUZZ_RUNS:-20000} sh ci/fuzz.sh 0 build-ci-fuzz
else
	echo "== fuzz targets: SKIPPED, clang cannot link -fsanitize=fuzzer here (install libclang-rt-dev)"
fi
echo "all tests passed in $builds builds (gcc, clang; plain, ASan+UBSan)"
echo "$passed passed, 0 failed"
