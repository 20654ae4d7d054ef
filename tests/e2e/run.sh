#!/bin/bash
# Runs every test_* function of tests/e2e/t_*.sh against the built pmcbench.
# Usage: run.sh PMCBENCH WORK [PATTERN]
set -u
export PMCBENCH=$1 WORK=$2
pattern=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
passed=0 failed=0 failures=()

for file in "$here"/t_*.sh; do
	[ -e "$file" ] || continue
	for fn in $(bash -c "source '$here/lib.sh'; source '$file'; declare -F" | awk '{print $3}' | grep '^test_'); do
		[ -n "$pattern" ] && [[ $fn != *$pattern* ]] && continue
		TMP=$(mktemp -d)
		export TMP
		if (cd "$TMP" && source "$here/lib.sh" && source "$file" && set -o pipefail && "$fn"); then
			echo "ok   $(basename "$file" .sh) $fn"
			passed=$((passed + 1))
		else
			echo "FAIL $(basename "$file" .sh) $fn"
			failed=$((failed + 1))
			failures+=("$fn")
		fi
		rm -rf "$TMP"
	done
done
[ "$failed" -gt 0 ] && printf 'failed: %s\n' "${failures[@]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
