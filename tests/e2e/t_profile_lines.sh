# Source lines (docs/profile.md, "Source lines"): `report --lines FUNC` tells apart the
# work of helpers inlined into one function. $PMC_PROF_LINES is tests/targets/prof_lines.c
# built -O2 -g: inner_a and inner_b are inlined into outer, whose symbol is all the
# function tables show; $PMC_PROF_LINES_NODEBUG is the same without its debug info.

# Both helpers' lines, named, each with a share and samples; the shares add up to the
# function's total.
test_lines_tell_inlined_helpers_apart() {
	expect_exit 0 "$PMCBENCH" record -o p.json -- "$PMC_PROF_LINES" 30000 || return 1
	expect_exit 0 "$PMCBENCH" report --lines outer p.json || return 1
	expect_grep '^Source lines of outer: self [0-9.]+% of the profile' "$TMP/out" || return 1
	for fn in inner_a inner_b; do
		awk -v fn="$fn" '$0 ~ (" " fn " \\(inlined at prof_lines\\.c:[0-9]+\\)$") &&
			$1 ~ /^[0-9.]+%$/ && $1 + 0 > 0 && $3 + 0 > 0 && $4 ~ /^prof_lines\.c:[0-9]+$/ {
			found = 1 } END { exit !found }' "$TMP/out" ||
			{ cat "$TMP/out" >&2; fail "no line of $fn with a share and samples"; return 1; }
	done
	expect_grep '^ +100% .* total \([0-9]+ lines\)$' "$TMP/out" || return 1
	# The profile keeps the source files by absolute path: it answers without the tree.
	json_get p.json '[l["file"] for l in d["lines"] if l.get("inlined") == "inner_a"][0]' >file
	expect_grep '^/.*tests/targets/prof_lines\.c$' file
}

# Without debug information there is no line table: said in one line, nothing invented.
test_lines_without_debug_info_say_so() {
	if [ -z "${PMC_PROF_LINES_NODEBUG:-}" ]; then
		skip "no objcopy: no program without its debug info"
	fi
	expect_exit 0 "$PMCBENCH" record -o n.json -- "$PMC_PROF_LINES_NODEBUG" 30000 || return 1
	expect_exit 2 "$PMCBENCH" report --lines outer n.json || return 1
	expect_lines 0 "$TMP/out" || return 1
	expect_one_line "$TMP/err" "no line table covers the addresses of 'outer'.*-g"
}

# A profile without the table (written before it was kept, or another tool's) is refused
# in one line that says how to get one; an unknown function offers the close names.
test_lines_refused_where_they_cannot_be_shown() {
	expect_exit 0 "$PMCBENCH" record -o p.json -- "$PMC_PROF_LINES" 3000 || return 1
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); del d["lines"]
json.dump(d, open(sys.argv[2], "w"))' p.json old.json || return 1
	expect_exit 0 "$PMCBENCH" report old.json || return 1
	expect_exit 2 "$PMCBENCH" report --lines outer old.json || return 1
	expect_one_line "$TMP/err" "old.json keeps no source lines.*record it again" || return 1
	printf 'main;outer 10\n' >f.folded
	expect_exit 2 "$PMCBENCH" report --lines outer f.folded || return 1
	expect_one_line "$TMP/err" "keeps no source lines" || return 1
	expect_exit 2 "$PMCBENCH" report --lines outr p.json || return 1
	expect_one_line "$TMP/err" "no function 'outr' in p.json; did you mean 'outer'" || return 1
	expect_exit 2 "$PMCBENCH" report --lines outer --diff p.json p.json || return 1
	expect_one_line "$TMP/err" "--lines shows one function"
}
