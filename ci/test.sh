#!/bin/bash
# Installs the dependencies, then builds and runs every test twice: a plain build and
# an ASan+UBSan build. Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
sh ci/install-deps.sh

passed=0
for kind in plain sanitize; do
	dir=build-ci-$kind
	echo "== $kind build ($dir)"
	sh ci/build.sh "$kind" "$dir"
	# Sanitizers: fail on the first report; leaks count as errors.
	ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		meson test -C "$dir" --print-errorlogs --num-processes 2 | tee "$dir/test-summary.txt"
	ok=$(awk '/^Ok:/ {print $2}' "$dir/test-summary.txt")
	passed=$((passed + ${ok:-0}))
done
echo "all tests passed in the plain and the ASan+UBSan build"
echo "$passed passed, 0 failed"
