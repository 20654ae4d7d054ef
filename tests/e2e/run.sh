#!/bin/bash
# Runs the test_* functions of tests/e2e/t_*.sh against the built pmcbench and reports
# each case on a line of its own in TAP, which meson reads (`protocol : 'tap'`):
#
#   ok 3 - t_run test_input_and_output
#   not ok 4 - t_run test_timeout_kills_run
#   ok 5 - t_run test_write_failure_is_an_error # SKIP no writable /dev/full
#
# Usage: run.sh PMCBENCH WORK [t_FILE.sh...] [PATTERN...]
#   t_FILE.sh   run only the cases of these files (meson runs one file per test)
#   PATTERN     run only the cases whose name contains one of the patterns
#   --listed t_FILE.sh...   check that the files named are all of tests/e2e/t_*.sh
#
# Each case runs in a bash of its own, in a fresh temporary directory ($TMP), under a
# timeout (PMC_E2E_TIMEOUT seconds, 300 by default). A case fails when it returns
# non-zero or when any check in it called `fail` (lib.sh), even one whose status was
# ignored; it is skipped, and counted apart, when it calls `skip REASON`. Each case's
# output goes to stderr, with its time; stdout is TAP only.
set -u
here=$(cd "$(dirname "$0")" && pwd)

if [ "${1:-}" = --listed ]; then
	shift
	status=0
	for f in "$here"/t_*.sh; do
		name=$(basename "$f")
		case " $* " in *" $name "*) ;; *)
			echo "run.sh: tests/e2e/$name is not listed in tests/meson.build (e2e_files): its cases never run" >&2
			status=1 ;;
		esac
	done
	for name; do
		[ -e "$here/$name" ] || { echo "run.sh: tests/meson.build lists $name, which tests/e2e/ does not have" >&2; status=1; }
	done
	exit $status
fi

if [ $# -lt 2 ]; then
	echo "usage: run.sh PMCBENCH WORK [t_FILE.sh...] [PATTERN...]" >&2
	exit 2
fi
export PMCBENCH=$1 WORK=$2
shift 2
files=() patterns=()
for a; do
	case $a in
	*.sh)
		[ -f "$here/$(basename "$a")" ] || { echo "Bail out! no tests/e2e/$(basename "$a")"; exit 1; }
		files+=("$here/$(basename "$a")") ;;
	*) patterns+=("$a") ;;
	esac
done
[ ${#files[@]} -gt 0 ] || files=("$here"/t_*.sh)

# The cases, file by file, each file's in name order (declare -F), as FILE:FUNCTION.
cases=()
for file in "${files[@]}"; do
	fns=$(bash -c 'source "$1" && source "$2" && declare -F' bash "$here/lib.sh" "$file" | awk '$3 ~ /^test_/ {print $3}') ||
		{ echo "Bail out! $(basename "$file") does not load"; exit 1; }
	for fn in $fns; do
		if [ ${#patterns[@]} -gt 0 ]; then
			hit=no
			for p in "${patterns[@]}"; do [[ $fn == *"$p"* ]] && hit=yes; done
			[ $hit = yes ] || continue
		fi
		cases+=("$file:$fn")
	done
done
if [ ${#cases[@]} -eq 0 ]; then
	echo "Bail out! no test case matches: ${patterns[*]:-}"
	exit 1
fi

echo "1..${#cases[@]}"
passed=0 failed=0 skipped=0 n=0 failures=() skips=() times=()
for c in "${cases[@]}"; do
	file=${c%:*} fn=${c##*:} n=$((n + 1))
	name="$(basename "$file" .sh) $fn"
	base=$(mktemp -d)
	mkdir "$base/tmp"
	# As for a bare mktemp -d: a case may open its $TMP to another user.
	chmod 711 "$base"
	start=$(date +%s.%N)
	echo "=== $name" >&2
	# A bash of its own: a case that calls exit (skip does) ends only itself, and the
	# timeout stops it with everything it started (timeout signals its process group).
	TMP=$base/tmp PMC_E2E_FAILED=$base/failed PMC_E2E_SKIP=$base/skip \
		timeout -k 10 "${PMC_E2E_TIMEOUT:-300}" bash -c \
		'cd "$TMP" && source "$1" && source "$2" && set -o pipefail && "$3"' \
		bash "$here/lib.sh" "$file" "$fn" </dev/null 1>&2
	rc=$?
	secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
	times+=("$secs $name")
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		echo "    FAIL: timed out after ${PMC_E2E_TIMEOUT:-300} s (PMC_E2E_TIMEOUT)" >&2
		rc=1
	fi
	if [ -e "$base/failed" ] && [ $rc = 0 ]; then
		echo "    FAIL: a check failed although the case went on and returned 0 (add || return 1)" >&2
		rc=1
	fi
	if [ $rc = 77 ] && [ -s "$base/skip" ] && [ ! -e "$base/failed" ]; then
		reason=$(head -n 1 "$base/skip")
		echo "ok $n - $name # SKIP $reason"
		echo "--- skipped in $secs s: $reason" >&2
		skipped=$((skipped + 1))
		skips+=("$name: $reason")
	elif [ $rc = 0 ]; then
		echo "ok $n - $name"
		echo "--- ok in $secs s" >&2
		passed=$((passed + 1))
	else
		echo "not ok $n - $name"
		echo "--- FAIL in $secs s (status $rc)" >&2
		failed=$((failed + 1))
		failures+=("$name")
	fi
	rm -rf "$base"
done

# The summary, as TAP comments.
for s in "${skips[@]+"${skips[@]}"}"; do echo "# skipped: $s"; done
for f in "${failures[@]+"${failures[@]}"}"; do echo "# failed: $f"; done
echo "# slowest: $(printf '%s\n' "${times[@]}" | sort -rn | head -n 3 | awk '{ printf "%s%s %s %s s", sep, $2, $3, $1; sep = ", " }')"
echo "# $passed passed, $skipped skipped, $failed failed"
[ "$failed" -eq 0 ]
