# Two builds of a benchmark program, `./new --against ./old` (docs/microbench.md,
# "Comparing two builds"): tests/targets/buildlib.c's benchmarks as a program built with
# WORK=1 and with WORK=4 ($PMC_BUILDPROG_W1, $PMC_BUILDPROG_W4), 'extra' in the second
# alone.

# The programs are built only where valgrind can run them (not in sanitized builds).
need_programs() {
	[ -n "${PMC_BUILDPROG_W1:-}" ] || { skip "the two builds' programs are not built in a sanitized build"; return 1; }
}

need_valgrind() {
	need_programs || return 1
	command -v valgrind >/dev/null || { skip "no valgrind"; return 1; }
}

# Under the valgrind backend, whose counts are exact: the second build does 4 times the
# work per operation, its processes ran from its own executable and the first's from the
# other; the comparison says it regressed, and --gate exits 1.
test_against_two_builds_valgrind() {
	need_valgrind || return 0
	expect_exit 0 "$PMC_BUILDPROG_W4" --against "$PMC_BUILDPROG_W1" --backend valgrind -q \
		-o ab.json || return 1
	local a=pmc-buildprog-w1 b=pmc-buildprog-w4
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
	# The gate, with the user's labels: -n before --against names that build.
	expect_exit 1 "$PMC_BUILDPROG_W4" -n before --against "$PMC_BUILDPROG_W1" -n after \
		--backend valgrind -q --gate || return 1
	expect_grep '^after:steps' "$TMP/out" && expect_grep '^before:steps' "$TMP/out" || return 1
	expect_grep 'gate: FAIL \(regression\)' "$TMP/out"
}

# The other way round: the other program has a benchmark this one does not ('extra'),
# which it measures itself, named from its list; the new build is 4 times faster.
test_against_benchmark_of_the_other_build_only() {
	need_valgrind || return 0
	expect_exit 0 "$PMC_BUILDPROG_W1" --against "$PMC_BUILDPROG_W4" --backend valgrind -q \
		--gate -o ba.json || return 1
	local a=pmc-buildprog-w4 b=pmc-buildprog-w1
	[ "$(json_get ba.json '" ".join(x["name"] for x in d["benchmarks"])')" = "$a:steps $b:steps $a:extra" ] ||
		fail "the other build's own benchmark is measured" || return 1
	[ "$(json_get ba.json 'd["benchmarks"][2]["metrics"]["instructions/op"]["status"]')" = exact ] ||
		fail "'extra' counted exactly by the other build's program" || return 1
	expect_grep '^steps .* improvement' "$TMP/out" || return 1
	expect_grep "1 benchmark only in build '$a', not compared: 'extra'" "$TMP/out" || return 1
	expect_grep '^gate: PASS' "$TMP/out"
}

# One build against itself (the same program twice, labelled A and B): no regression,
# and --gate passes.
test_against_itself_passes() {
	need_valgrind || return 0
	expect_exit 0 "$PMC_BUILDPROG_W1" --against "$PMC_BUILDPROG_W1" --backend valgrind -q \
		--gate || return 1
	expect_grep '^A:steps' "$TMP/out" && expect_grep '^B:steps' "$TMP/out" || return 1
	expect_grep '^gate: PASS' "$TMP/out" || return 1
	expect_no_grep 'regression$' "$TMP/out"
}

# Under perf, each round is one process of every benchmark, the builds in turn: the runs
# record it, and the comparison pairs them (no figure asserted: times move with the load).
test_against_rounds() {
	need_programs || return 0
	expect_exit 0 "$PMC_BUILDPROG_W4" --against "$PMC_BUILDPROG_W1" --filter steps -r 4 \
		--min-time 0.001 -e task-clock -q -o ab.json || return 1
	[ "$(json_get ab.json '[[r["round"] for r in x["runs"]] for x in d["benchmarks"]]')" = \
		'[[1, 2, 3, 4], [1, 2, 3, 4]]' ] || fail "runs in rounds 1..4 on both sides" || return 1
	[ "$(json_get ab.json 'd["design"]["rounds"]')" = 4 ] || fail "4 rounds" || return 1
	expect_grep '^steps .* 4 pairs ' "$TMP/out" || return 1
	expect_exit 0 "$PMC_BUILDPROG_W4" -n old --against "$PMC_BUILDPROG_W1" --list || return 1
	[ "$(tr '\n' ' ' <"$TMP/out")" = 'old:steps pmc-buildprog-w4:steps pmc-buildprog-w4:extra ' ] ||
		fail "--list names both builds' benchmarks" || return 1
}

# A program asked for a benchmark it does not have answers so, through the child
# protocol: to the pipe of a process, in the report of the valgrind child.
test_against_child_not_in_build() {
	need_programs || return 0
	"$PMC_BUILDPROG_W1" --build-label old --process-child old:extra --process-fd 3 \
		--process-samples 1 3>pipe.bin >out.txt 2>err.txt
	grep -aq "'old:extra' is not in this build ($PMC_BUILDPROG_W1)" pipe.bin ||
		fail "no 'not in this build' answer in the pipe" || return 1
	expect_exit 0 "$PMC_BUILDPROG_W1" --valgrind-child B:extra --valgrind-report report \
		--valgrind-iters 1 || return 1
	[ "$(cat report)" = "error 'B:extra' is not in this build ($PMC_BUILDPROG_W1)" ] ||
		fail "report: $(cat report)"
}

# A program that is no build of a benchmark program of this library is refused before
# anything runs: one line, exit 2.
test_against_bad_programs_exit_2() {
	need_programs || return 0
	local p=$PMC_BUILDPROG_W4
	expect_exit 2 "$p" --against missing || return 1
	expect_one_line "$TMP/err" '--against missing: No such file or directory' || return 1
	expect_exit 2 "$p" --against . || return 1
	expect_one_line "$TMP/err" '--against \.: not an executable file' || return 1
	echo data >plain
	expect_exit 2 "$p" --against ./plain || return 1
	expect_one_line "$TMP/err" 'not an executable file' || return 1
	# Not a benchmark program: it answers nothing, or fails on the option.
	expect_exit 2 "$p" --against "$WORK" || return 1
	expect_one_line "$TMP/err" "not a benchmark program of this libpmcbench" || return 1
	printf '#!/bin/sh\necho "unrecognized option $1" >&2\nexit 2\n' >older
	chmod +x older
	expect_exit 2 "$p" --against ./older || return 1
	expect_one_line "$TMP/err" "exited with status 2 \('unrecognized option --process-list'\); rebuild it" || return 1
	# Linked with a library of another child protocol.
	printf '#!/bin/sh\necho "pmcbench-child 0 h1"\necho steps\n' >other
	chmod +x other
	expect_exit 2 "$p" --against ./other || return 1
	expect_one_line "$TMP/err" "speaks another child protocol \('pmcbench-child 0 h1'" || return 1
	expect_exit 2 "$p" -n x --list || return 1
	expect_one_line "$TMP/err" '-n x: a label names one of two builds' || return 1
	expect_exit 2 "$p" -n x --against "$PMC_BUILDPROG_W1" -n x || return 1
	expect_one_line "$TMP/err" "both builds are labelled 'x'" || return 1
	expect_exit 2 "$p" --against "$PMC_BUILDPROG_W1" --no-fork || return 1
	expect_one_line "$TMP/err" 'drop --no-fork' || return 1
	expect_exit 2 "$p" --against "$PMC_BUILDPROG_W1" --baseline x.json || return 1
	expect_one_line "$TMP/err" 'two builds are compared with each other'
}
