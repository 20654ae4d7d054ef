# Other tools' profiles in (docs/profile.md, "Other tools' profiles"): `report` reads
# folded stacks and perf script's output, told apart by their content, and diffs them
# against pmcbench's. Fixtures: tests/data/profile/README.md.

DATA="$PMC_SRCDIR/tests/data/profile"

# perf script's output recorded here: the shares perf saw (115 and 30 of 145 samples),
# and matched against pmcbench's own profile of the same program.
test_report_reads_perf_script() {
	expect_exit 0 "$PMCBENCH" report "$DATA/perf_script_work.txt" || return 1
	expect_grep '^Profile: cpu-clock \(ns\), sampled' "$TMP/out" || return 1
	expect_grep '^Samples: 145, lost: not known \(the input does not say\)$' "$TMP/out" || return 1
	expect_grep '^ *79\.3% +79\.3% .* prof_hot ' "$TMP/out" || return 1
	expect_grep '^ *20\.7% +20\.7% .* prof_cold ' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" record -o p.json -- "$PMC_PROF_WORK" 100000 25000 10 || return 1
	expect_exit 0 "$PMCBENCH" report --diff --svg d.svg "$DATA/perf_script_work.txt" p.json ||
		return 1
	# Both functions have a share on both sides: the same names, not "-".
	for fn in prof_hot prof_cold; do
		awk -v fn="$fn" '$NF == fn && $1 != "-" && $2 != "-" { found = 1 } END { exit !found }' \
			"$TMP/out" || { cat "$TMP/out" >&2; fail "$fn is not matched across the tools"; return 1; }
	done
	expect_no_grep 'different events' "$TMP/out" || return 1
	[ -s d.svg ] || fail "no differential flame graph"
}

# perf as a user has it: record and script here, the output given as a file and as a pipe.
test_report_reads_live_perf_script() {
	command -v perf >/dev/null || skip "no perf"
	perf record -q -e cpu-clock -g -o perf.data -- "$PMC_PROF_WORK" 100000 25000 10 \
		>/dev/null 2>perf.err || skip "perf record fails here: $(head -1 perf.err)"
	perf script -i perf.data >p.txt 2>/dev/null || skip "perf script fails here"
	expect_exit 0 "$PMCBENCH" report --folded p.txt || return 1
	expect_grep '^\(below main\);main;prof_hot [0-9]+$' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" report <(perf script -i perf.data 2>/dev/null) || return 1
	expect_grep ' prof_hot ' "$TMP/out" || return 1
}

# Folded stacks: by hand, and pmcbench's own, which read back into the same stacks.
test_report_reads_folded() {
	expect_exit 0 "$PMCBENCH" report --folded "$DATA/hand.folded" || return 1
	expect_grep '^main;shapes::Mixer::spin\(unsigned long\) 25$' "$TMP/out" || return 1
	expect_grep '^\(below main\);main;emit 20$' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" record -o p.json -- "$PMC_PROF_WORK" 100000 25000 || return 1
	"$PMCBENCH" report --folded p.json >p.folded 2>/dev/null || fail "report --folded failed"
	expect_exit 0 "$PMCBENCH" report --folded p.folded || return 1
	cmp -s p.folded "$TMP/out" || { diff p.folded "$TMP/out" >&2; fail "the folded stacks changed on the way back"; }
}

# perf's C++ names (perf script --no-demangle) against valgrind's: one function.
test_perf_cxx_matches_valgrind() {
	[ -n "${PMC_PROF_CXX:-}" ] || skip "no C++ compiler: pmc-prof-cxx was not built"
	command -v valgrind >/dev/null || skip "no valgrind"
	expect_exit 0 "$PMCBENCH" record --backend valgrind -o e.json -- "$PMC_PROF_CXX" 300 || return 1
	expect_exit 0 "$PMCBENCH" report --diff "$DATA/perf_script_cxx.txt" e.json || return 1
	awk 'index($0, "shapes::Mixer::spin(unsigned long)") && $1 != "-" && $2 != "-" { found = 1 }
		END { exit !found }' "$TMP/out" || { cat "$TMP/out" >&2; fail "spin is not matched"; }
}

# Bad input: one line naming the file and the line, and the fix; exit 2.
test_report_import_errors() {
	printf 'main;parse 3\nmain;scan\n' >bad.folded
	expect_exit 2 "$PMCBENCH" report bad.folded || return 1
	expect_one_line "$TMP/err" '^pmcbench: bad\.folded:2: no count at the end of the line; give folded stacks' || return 1
	printf 'prog 1 1.5: 10 cpu-clock: \n\tzz f+0x1 (x)\n' >bad.txt
	expect_exit 2 "$PMCBENCH" report --diff bad.txt "$DATA/hand.folded" || return 1
	expect_one_line "$TMP/err" '^pmcbench: bad\.txt:2: a call chain line that does not start with an address; give the output of perf script' || return 1
	printf 'hello\n' >junk
	expect_exit 2 "$PMCBENCH" report junk || return 1
	expect_one_line "$TMP/err" "^pmcbench: junk:1: not a profile pmcbench reads" || return 1
}
