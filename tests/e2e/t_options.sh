# End-to-end tests of the option rules every subcommand shares (docs/cli.md): "-oFILE",
# "-o FILE", "--opt=value", "--opt value", unambiguous abbreviations, "--" ends the
# options, and one error line with exit 2 for an unknown, ambiguous or value-less option.

ab() {
	mkresult a.json 'x::task-clock=1e6,0.01'
	mkresult b.json 'x::task-clock=1.5e6,0.01'
}

# Every spelling of a value option gives the same report file.
test_compare_and_gate_value_spellings() {
	ab
	local spelling
	for spelling in "-oR" "-o R" "--output=R" "--output R" "--out R" "--rep=R" "--report R"; do
		rm -f R
		# shellcheck disable=SC2086
		expect_exit 0 "$PMCBENCH" compare --format=json ${spelling} a.json b.json || return 1
		json_get R 'd["schema"]' | grep -q '^pmcbench-compare/1$' ||
			fail "compare $spelling: no JSON report in R" || return 1
	done
	for spelling in "-ba.json" "-b a.json" "--baseline=a.json" "--baseline a.json" "--base a.json"; do
		# shellcheck disable=SC2086
		expect_exit 1 "$PMCBENCH" gate ${spelling} b.json || return 1
		expect_grep 'regression' "$TMP/out" || return 1
	done
	# Abbreviated flags and values: --no-f is --no-fdr, --fail is --fail-on-inconclusive,
	# --conf is --confidence.
	expect_exit 0 "$PMCBENCH" compare --no-f --fail --conf 0.9 --alph=0.01 --form json a.json b.json &&
		[ "$(json_get "$TMP/out" 'd["settings"]')" = "{'alpha': 0.01, 'confidence': 0.9, 'fdr': False}" ] ||
		fail "abbreviated options were not taken" || return 1
	# Options after the files are options too.
	expect_exit 0 "$PMCBENCH" compare a.json b.json --format json &&
		json_get "$TMP/out" 'd["schema"]' >/dev/null
}

# "--" ends the options: a file whose name starts with "-" is a file after it.
test_double_dash_ends_options() {
	ab
	cp b.json ./-b.json
	expect_exit 0 "$PMCBENCH" compare a.json -- -b.json || return 1
	expect_grep 'regression' "$TMP/out" || return 1
	expect_exit 1 "$PMCBENCH" gate --baseline a.json -- -b.json || return 1
	# Without "--" it is an option, and an unknown one.
	expect_exit 2 "$PMCBENCH" compare a.json -b.json &&
		expect_one_line "$TMP/err" "^pmcbench: unknown option '-b'; see 'pmcbench help compare'$"
}

# The same error line, and exit 2, on every subcommand.
test_bad_options_on_every_subcommand() {
	ab
	local -a cases=(
		"compare --bogus a.json b.json|unknown option '--bogus'; see 'pmcbench help compare'"
		"compare -x a.json b.json|unknown option '-x'; see 'pmcbench help compare'"
		"compare --thr=5% a.json b.json|option '--thr' is ambiguous: it could be --threshold, --thresholds; see 'pmcbench help compare'"
		"compare a.json b.json -o|option '-o' needs a value; see 'pmcbench help compare'"
		"compare a.json b.json --output|option '--output' needs a value"
		"compare --no-fdr=1 a.json b.json|option '--no-fdr' takes no value"
		"gate --baseline|option '--baseline' needs a value; see 'pmcbench help gate'"
		"gate --bogus --baseline a.json b.json|unknown option '--bogus'; see 'pmcbench help gate'"
		"gate --thresh 5 --baseline a.json b.json|option '--thresh' is ambiguous"
		"run --frob -- true|unknown option '--frob'; see 'pmcbench help run'"
		"run -qx -- true|unknown option '-x'; see 'pmcbench help run'"
		"run --thr x=5% -- true|option '--thr' is ambiguous"
		"run --quiet=yes -- true|option '--quiet' takes no value; see 'pmcbench help run'"
		"run -r|option '-r' needs a value; see 'pmcbench help run'"
		"run --alpha|option '--alpha' needs a value; see 'pmcbench help run'"
		"list --bogus|unknown option '--bogus'; see 'pmcbench help list'"
		"list -nx|unknown option '-x'; see 'pmcbench help list'"
		"list --no-probe=1|option '--no-probe' takes no value"
		"list a b|list: unexpected argument 'b'"
		"doctor --bogus|unknown option '--bogus'; see 'pmcbench help doctor'"
		"doctor extra|doctor: unexpected argument 'extra'"
	)
	for c in "${cases[@]}"; do
		# shellcheck disable=SC2086
		expect_exit 2 "$PMCBENCH" ${c%%|*} || return 1
		expect_one_line "$TMP/err" "^pmcbench: .*${c#*|}" || return 1
	done
}

# Abbreviations and attached values on run, list and doctor.
test_run_list_doctor_spellings() {
	expect_exit 0 "$PMCBENCH" run -q -r4 -w0 -epage-faults -oR1 -- "$WORK" loop 1 || return 1
	[ "$(json_get R1 'len(d["benchmarks"][0]["metrics"]["page-faults"]["samples"])')" = 4 ] ||
		fail "-r4 did not give four runs" || return 1
	expect_exit 0 "$PMCBENCH" run --qui --run=5 --warm 0 --ev=page-faults --out=R2 -- "$WORK" loop 1 || return 1
	[ "$(json_get R2 'len(d["benchmarks"][0]["metrics"]["page-faults"]["samples"])')" = 5 ] ||
		fail "--run=5 did not give five runs" || return 1
	# Comparison options abbreviated in run too; an exact name beats the longer one it
	# is a prefix of (--threshold, --thresholds).
	expect_exit 0 "$PMCBENCH" run -q -r 4 -e page-faults --metr page-faults \
		--threshold=page-faults=+5000% --no-f --base R1 -- "$WORK" loop 1 || return 1
	expect_grep '^page-faults ' "$TMP/out" || return 1
	# run's options end at the command: its own options are not run's.
	expect_exit 0 "$PMCBENCH" run -q -r 1 -w 0 -e page-faults "$WORK" loop 1 || return 1
	expect_exit 0 "$PMCBENCH" list --no-p || return 1
	expect_grep '^Software events:' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" list -nh && expect_grep '^Usage: pmcbench list' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" doctor --he && expect_grep '^Usage: pmcbench doctor' "$TMP/out"
}

# issue 19: a mistyped command or option is answered with the names close to it.
test_typos_get_suggestions() {
	expect_exit 2 "$PMCBENCH" rn || return 1
	expect_one_line "$TMP/err" "^pmcbench: unknown command 'rn'; did you mean 'run'\?$" || return 1
	expect_exit 2 "$PMCBENCH" help comapre || return 1
	expect_one_line "$TMP/err" "did you mean 'compare'\?$" || return 1
	expect_exit 2 "$PMCBENCH" run --treshold task-clock=+5% -- true || return 1
	expect_one_line "$TMP/err" "^pmcbench: unknown option '--treshold'; did you mean '--threshold'" || return 1
	# Nothing close: where to look instead.
	expect_exit 2 "$PMCBENCH" run --zzzzzz -- true || return 1
	expect_one_line "$TMP/err" "^pmcbench: unknown option '--zzzzzz'; see 'pmcbench help run'$"
}
