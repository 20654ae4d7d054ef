# Helpers for the end-to-end tests. Each tests/e2e/t_*.sh file defines functions named
# test_*; run.sh runs each in a fresh temporary directory and counts the results.
# Available: $PMCBENCH (the built binary), $WORK (tests/targets/pmc-work), $TMP.

fail() {
	echo "    FAIL: $*" >&2
	return 1
}

# expect_exit CODE CMD...: runs CMD, keeps stdout in $TMP/out and stderr in $TMP/err,
# and fails unless it exits with CODE.
expect_exit() {
	local want=$1 got
	shift
	"$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	got=$?
	if [ "$got" != "$want" ]; then
		echo "    command: $*" >&2
		echo "    --- stdout" >&2; head -c 3000 "$TMP/out" >&2
		echo "    --- stderr" >&2; head -c 3000 "$TMP/err" >&2
		fail "exit status $got, expected $want"
		return 1
	fi
}

# expect_grep PATTERN FILE: fails unless FILE has a line matching the extended regex.
expect_grep() {
	if ! grep -Eq -- "$1" "$2"; then
		echo "    --- $2" >&2; head -c 3000 "$2" >&2
		fail "no line matching '$1' in $2"
		return 1
	fi
}

# expect_no_grep PATTERN FILE
expect_no_grep() {
	if grep -Eq -- "$1" "$2"; then
		echo "    --- $2" >&2; head -c 3000 "$2" >&2
		fail "unexpected line matching '$1' in $2"
		return 1
	fi
}

# expect_lines N FILE: FILE has exactly N lines.
expect_lines() {
	local got
	got=$(wc -l <"$2")
	[ "$got" -eq "$1" ] || { cat "$2" >&2; fail "$2 has $got lines, expected $1"; }
}

# jq-free JSON queries through python3's json module: json_get FILE EXPR, where EXPR is
# a Python expression over the loaded document `d`.
json_get() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
