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

# The valgrind backend runs pmcbench itself under valgrind, which cannot run a sanitized
# build: the benchmark programs are left out of those (tests/targets/meson.build), and so
# are these cases.
need_unsanitized_valgrind() {
	[ -n "${PMC_MB_LCG:-}" ] || { skip "valgrind cannot run a sanitized pmcbench"; return 1; }
	command -v valgrind >/dev/null || { skip "no valgrind"; return 1; }
}

# Two builds of one shared object (tests/targets/buildlib.c at WORK=1 and WORK=4) under
# the valgrind backend, whose counts are exact: the second does 4 times the work per
# operation, and the comparison, benchmark by benchmark, says it regressed; --gate exits
# 1. 'extra' is in the second build alone: listed as such, not compared.
test_library_two_builds_valgrind() {
	need_unsanitized_valgrind || return 0
	expect_exit 0 "$PMCBENCH" run --library "$PMC_BUILDLIB1" --library "$PMC_BUILDLIB4" \
		--backend valgrind -q -o ab.json || return 1
	local a=libpmc-buildlib-w1.so b=libpmc-buildlib-w4.so
	[ "$(json_get ab.json '" ".join(x["name"] for x in d["benchmarks"])')" = "$a:steps $b:steps $b:extra" ] ||
		fail "benchmarks named LABEL:name, each beside its namesake" || return 1
	[ "$(json_get ab.json 'd["design"]["mode"]')" = interleaved ] || fail "design interleaved" || return 1
	local ratio
	ratio=$(json_get ab.json '[x["metrics"]["instructions/op"]["samples"][0] for x in d["benchmarks"][:2]]')
	python3 -c "import sys; a, b = $ratio; sys.exit(not 3.9 < b / a < 4.1)" ||
		fail "instructions/op $ratio: expected B about 4 times A" || return 1
	expect_grep "Comparison of build '$b' against build '$a'" "$TMP/out" || return 1
	expect_grep '^steps .*\+29[0-9]% \(exact\).*regression' "$TMP/out" || return 1
	expect_grep "1 benchmark only in build '$b', not compared: 'extra'" "$TMP/out" || return 1
	# The gate, with labels of the user's: exit 1 on the regression.
	expect_exit 1 "$PMCBENCH" run -n before --library "$PMC_BUILDLIB1" -n after \
		--library "$PMC_BUILDLIB4" --backend valgrind -q --gate || return 1
	expect_grep '^after:steps' "$TMP/out" || return 1
	expect_grep 'gate: FAIL \(regression\)' "$TMP/out"
}

# One build against itself (the same object twice, labelled A and B): no regression,
# and --gate passes.
test_library_same_build_twice_passes() {
	need_unsanitized_valgrind || return 0
	expect_exit 0 "$PMCBENCH" run --library "$PMC_BUILDLIB1" --library "$PMC_BUILDLIB1" \
		--backend valgrind -q --gate || return 1
	expect_grep '^A:steps' "$TMP/out" && expect_grep '^B:steps' "$TMP/out" || return 1
	expect_grep '^gate: PASS' "$TMP/out" || return 1
	expect_no_grep 'regression$' "$TMP/out"
}

# Under perf, each round is one process of every benchmark, the builds in turn: the runs
# record it, and the comparison pairs them (no figure asserted: times move with the load).
test_library_two_builds_rounds() {
	expect_exit 0 "$PMCBENCH" run --library "$PMC_BUILDLIB1" --library "$PMC_BUILDLIB4" \
		--filter steps -r 4 --min-time 0.001 -e task-clock -q -o ab.json || return 1
	[ "$(json_get ab.json '[[r["round"] for r in x["runs"]] for x in d["benchmarks"]]')" = \
		'[[1, 2, 3, 4], [1, 2, 3, 4]]' ] || fail "runs in rounds 1..4 on both sides" || return 1
	[ "$(json_get ab.json 'd["design"]["rounds"]')" = 4 ] || fail "4 rounds" || return 1
	expect_grep '^steps .* 4 pairs ' "$TMP/out"
}

test_library_two_builds_bad_input() {
	expect_exit 2 "$PMCBENCH" run --library "$PMC_BUILDLIB1" --library "$PMC_BUILDLIB4" \
		--library "$PMC_BENCHLIB" || return 1
	expect_one_line "$TMP/err" 'give one shared object, or two builds' || return 1
	expect_exit 2 "$PMCBENCH" run --library "$PMC_BUILDLIB1" -n late || return 1
	expect_one_line "$TMP/err" 'no --library follows it' || return 1
	expect_exit 2 "$PMCBENCH" run -n x --library "$PMC_BUILDLIB1" -n x --library "$PMC_BUILDLIB4" || return 1
	expect_one_line "$TMP/err" "both builds are labelled 'x'" || return 1
	expect_exit 2 "$PMCBENCH" run -n a:b --library "$PMC_BUILDLIB1" --library "$PMC_BUILDLIB4" || return 1
	expect_one_line "$TMP/err" "must not be empty or hold ':'" || return 1
	expect_exit 2 "$PMCBENCH" run -n one --library "$PMC_BUILDLIB1" || return 1
	expect_one_line "$TMP/err" 'a label names one of two builds' || return 1
	expect_exit 2 "$PMCBENCH" run --library "$PMC_BUILDLIB1" --gate || return 1
	expect_one_line "$TMP/err" '--gate compares two builds' || return 1
	expect_exit 2 "$PMCBENCH" run --library "$PMC_BUILDLIB1" --library "$PMC_BUILDLIB4" \
		--baseline x.json || return 1
	expect_one_line "$TMP/err" 'two builds are compared with each other'
}
