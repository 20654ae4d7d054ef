# pmcbench run --library: benchmarks in a shared object without a main
# (tests/targets/benchlib.c; docs/microbench.md, "Benchmarks in a shared object").

test_library_lists_its_benchmarks() {
	expect_exit 0 "$PMCBENCH" run --library "$PMC_BENCHLIB" --list || return 1
	expect_lines 3 "$TMP/out" || return 1
	expect_grep '^lcg$' "$TMP/out" && expect_grep '^sum/64$' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" run --library="$PMC_BENCHLIB" --filter '^sum' --list || return 1
	expect_lines 2 "$TMP/out"
}

test_library_runs_and_compares() {
	expect_exit 0 "$PMCBENCH" run --library "$PMC_BENCHLIB" --filter lcg -r 3 \
		--min-time 0.001 -e task-clock -q -o a.json || return 1
	[ "$(json_get a.json 'len(d["benchmarks"])')" = 1 ] || fail "one benchmark expected" || return 1
	[ "$(json_get a.json 'len(d["benchmarks"][0]["runs"])')" = 3 ] || fail "3 runs expected" || return 1
	expect_grep 'wall-time/op' a.json || return 1
	expect_exit 0 "$PMCBENCH" compare a.json a.json || return 1
	expect_grep 'lcg' "$TMP/out"
}

test_library_bad_input_exits_2() {
	echo 'not ELF' >notelf.so
	expect_exit 2 "$PMCBENCH" run --library notelf.so || return 1
	expect_one_line "$TMP/err" 'not an ELF file' || return 1
	# An ELF object without benchmarks.
	expect_exit 2 "$PMCBENCH" run --library "$WORK" || return 1
	expect_one_line "$TMP/err" 'no benchmarks' || return 1
	expect_exit 2 "$PMCBENCH" run --library missing.so || return 1
	expect_one_line "$TMP/err" 'No such file' || return 1
	expect_exit 2 "$PMCBENCH" run --library . || return 1
	expect_one_line "$TMP/err" 'not a regular file' || return 1
	expect_exit 2 "$PMCBENCH" run --library "$PMC_BENCHLIB" --filter nothing || return 1
	expect_one_line "$TMP/err" "matches no benchmark" || return 1
	expect_exit 2 "$PMCBENCH" run --library "$PMC_BENCHLIB" --no-such-option || return 1
	expect_one_line "$TMP/err" 'no-such-option' || return 1
	expect_exit 2 "$PMCBENCH" run --library "$PMC_BENCHLIB" --timeout 0 || return 1
	expect_one_line "$TMP/err" "--timeout: '0' is not a positive number of seconds" || return 1
	expect_exit 2 "$PMCBENCH" run --library "$PMC_BENCHLIB" --timeout 1 --no-fork || return 1
	expect_one_line "$TMP/err" '--timeout cannot be enforced with --no-fork'
}

# A timeout that every benchmark keeps to changes nothing.
test_library_timeout_kept() {
	expect_exit 0 "$PMCBENCH" run --library "$PMC_BENCHLIB" --filter lcg -r 2 \
		--min-time 0.001 -e task-clock -q --timeout 60 -o a.json || return 1
	[ "$(json_get a.json 'len(d["benchmarks"][0]["runs"])')" = 2 ] || fail "2 runs expected"
}
