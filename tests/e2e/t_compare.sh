# End-to-end tests of `pmcbench compare` and `pmcbench gate`: verdicts, exit codes,
# reports, and every kind of bad input. Result files are written by mkresult (lib.sh) in
# the schema of docs/result-schema.md; test_real_runs_* use `pmcbench run` itself.

# A baseline of three benchmarks and two metrics, and variants of it.
base() {
	mkresult "$1" 'sort::task-clock=2e6,0.01' 'hash::task-clock=5e5,0.01' \
		'parse::task-clock=1e6,0.01' 'sort::instructions=1e6,0' \
		'hash::instructions=3e6,0' 'parse::instructions=1e5,0'
}


test_compare_aa_passes() {
	base a.json
	expect_exit 0 "$PMCBENCH" compare a.json a.json || return 1
	# Nothing changed: each metric's rows fold into one line.
	expect_grep '^3 benchmarks without change \(~\); --all shows them$' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" compare --all a.json a.json || return 1
	expect_grep '^sort +2ms ± .* ~ +q=1\.000 n=10\+10 .* no change$' "$TMP/out" || return 1
	expect_grep '^0 regressions, 0 improvements, 6 no change, 0 inconclusive$' "$TMP/out" ||
		return 1
	expect_exit 0 "$PMCBENCH" gate --baseline a.json a.json || return 1
	expect_grep '^gate: PASS; 0 regressions' "$TMP/out"
}

# The default table folds the rows without change (docs/compare.md, "Folded rows");
# whatever draws attention stays: a verdict of change, a gated row in a gate, a row whose
# limit was asked for, a row with a note. JSON and CSV keep every row.
test_compare_folds_unchanged_rows() {
	base a.json
	mkresult b.json 'sort::task-clock=2.4e6,0.01' 'hash::task-clock=4.5e5,0.01' \
		'parse::task-clock=1e6,0.01' 'sort::instructions=1e6,0' \
		'hash::instructions=3e6,0' 'parse::instructions=1e5,0' 'tiny::task-clock=1e6,0.01,3'
	mkresult a2.json 'sort::task-clock=2e6,0.01' 'hash::task-clock=5e5,0.01' \
		'parse::task-clock=1e6,0.01' 'sort::instructions=1e6,0' \
		'hash::instructions=3e6,0' 'parse::instructions=1e5,0' 'tiny::task-clock=1e6,0.01,3'
	expect_exit 0 "$PMCBENCH" compare a2.json b.json || return 1
	expect_grep '^sort .* regression$' "$TMP/out" || return 1
	expect_grep '^hash .* improvement$' "$TMP/out" || return 1
	# Too few runs for the test: its note keeps it.
	expect_grep '^tiny .*\(need >= ' "$TMP/out" || return 1
	expect_no_grep '^parse ' "$TMP/out" || return 1
	expect_grep '^1 benchmark without change \(~\); --all shows it$' "$TMP/out" || return 1
	expect_grep '^3 benchmarks without change \(~\); --all shows them$' "$TMP/out" || return 1
	# The counts still count every row.
	expect_grep '^1 regression, 1 improvement, 4 no change, 1 inconclusive$' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" compare --all a2.json b.json || return 1
	expect_grep '^parse .* no change$' "$TMP/out" || return 1
	expect_no_grep 'without change' "$TMP/out" || return 1
	# A limit asked for keeps its rows, unchanged or not.
	expect_exit 0 "$PMCBENCH" compare --threshold instructions=+1% a.json b.json || return 1
	expect_grep '^parse .* +\+1% +no change$' "$TMP/out" || return 1
	# A gate shows every row it judges (task-clock and instructions are gated by default).
	expect_exit 1 "$PMCBENCH" gate --baseline a.json b.json || return 1
	expect_grep '^parse .* no change$' "$TMP/out" || return 1
	expect_no_grep 'without change' "$TMP/out" || return 1
	# Markdown folds the same rows into a collapsed section, --all into the table.
	expect_exit 0 "$PMCBENCH" compare --format markdown a.json b.json || return 1
	expect_grep '^<details><summary>1 benchmark without change</summary>$' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" compare --format markdown --all a.json b.json || return 1
	expect_no_grep '<details>' "$TMP/out" || return 1
	expect_grep '^\| parse \| .* no change \|$' "$TMP/out" || return 1
	# The machine formats keep every row.
	expect_exit 0 "$PMCBENCH" compare --format json a.json b.json || return 1
	[ "$(json_get "$TMP/out" 'sum(len(m["rows"]) for m in d["metrics"])')" = 6 ] ||
		{ fail "the JSON report lost rows"; return 1; }
	expect_exit 0 "$PMCBENCH" compare --format csv a.json b.json || return 1
	expect_lines 7 "$TMP/out"
}

# compare A B C: each later file against the first, with the statistics of two files.
test_compare_three_files() {
	base a.json
	mkresult b.json 'sort::task-clock=2.4e6,0.01' 'hash::task-clock=5e5,0.01' \
		'parse::task-clock=1e6,0.01' 'sort::instructions=1e6,0' \
		'hash::instructions=3e6,0' 'parse::instructions=1e5,0'
	mkresult c.json 'sort::task-clock=2e6,0.01' 'hash::task-clock=4e5,0.01' \
		'parse::task-clock=1e6,0.01' 'sort::instructions=1e6,0' \
		'hash::instructions=3e6,0' 'parse::instructions=1.5e5,0'
	expect_exit 0 "$PMCBENCH" compare --format json a.json b.json c.json || return 1
	cp "$TMP/out" set.json
	local q='{(c["new"], m["id"], r["benchmark"]): r["verdict"] for c in d["comparisons"] for m in c["metrics"] for r in m["rows"]}'
	[ "$(json_get set.json 'd["schema"], d["base"], len(d["comparisons"])')" = \
		"('pmcbench-compare-set/1', 'a.json', 2)" ] || { fail "not a set of two"; return 1; }
	[ "$(json_get set.json 'all(c["schema"] == "pmcbench-compare/1" and c["old"] == "a.json" for c in d["comparisons"])')" = True ] ||
		{ fail "each comparison is a two-file report against a.json"; return 1; }
	[ "$(json_get set.json "$q"'[("b.json", "task-clock", "sort")]')" = regression ] || return 1
	[ "$(json_get set.json "$q"'[("b.json", "task-clock", "hash")]')" = "no change" ] || return 1
	[ "$(json_get set.json "$q"'[("c.json", "task-clock", "hash")]')" = improvement ] || return 1
	[ "$(json_get set.json "$q"'[("c.json", "task-clock", "sort")]')" = "no change" ] || return 1
	[ "$(json_get set.json "$q"'[("c.json", "instructions", "parse")]')" = regression ] || return 1
	# The same verdicts as two files give, pair by pair.
	expect_exit 0 "$PMCBENCH" compare --format json a.json c.json || return 1
	[ "$(json_get "$TMP/out" 'd["counts"]')" = "$(json_get set.json 'd["comparisons"][1]["counts"]')" ] ||
		{ fail "a.json c.json differs from the set's second comparison"; return 1; }
	expect_exit 0 "$PMCBENCH" compare a.json b.json c.json || return 1
	expect_grep '^== 1 of 2: a\.json -> b\.json ==$' "$TMP/out" || return 1
	expect_grep '^== 2 of 2: a\.json -> c\.json ==$' "$TMP/out" || return 1
	expect_grep '^benchmark +a\.json +c\.json +change' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" compare --format csv a.json b.json c.json || return 1
	expect_grep ',verdict,why,old_file,new_file$' "$TMP/out" || return 1
	expect_lines 13 "$TMP/out" || return 1
	expect_grep '^"hash","hash","task-clock",.*,"improvement",,"a\.json","c\.json"$' "$TMP/out" || return 1
	# Go's benchmark format holds two sides.
	expect_exit 2 "$PMCBENCH" compare --format gobench a.json b.json c.json || return 1
	expect_one_line "$TMP/err" "^pmcbench: --format gobench writes two files' samples" || return 1
	expect_exit 2 "$PMCBENCH" compare --export x.txt a.json b.json c.json || return 1
	expect_one_line "$TMP/err" "^pmcbench: --export 'x\.txt': Go's benchmark format" || return 1
	# --export and --report write the whole set.
	expect_exit 0 "$PMCBENCH" compare --export set2.json --report rep.md --format markdown \
		a.json b.json c.json || return 1
	[ "$(json_get set2.json 'len(d["comparisons"])')" = 2 ] || return 1
	[ "$(grep -c '^## pmcbench compare$' rep.md)" = 2 ] || { fail "rep.md: not two reports"; return 1; }
	# A gate judges one file against its baseline.
	expect_exit 2 "$PMCBENCH" gate --baseline a.json b.json c.json || return 1
	expect_one_line "$TMP/err" "^pmcbench: gate judges one result against its baseline, got 2 files"
}

# --filter selects benchmarks and metrics before the comparison; --row metric gives a
# table per benchmark.
test_compare_filter_and_rows() {
	base a.json
	mkresult b.json 'sort::task-clock=2.4e6,0.01' 'hash::task-clock=5e5,0.01' \
		'parse::task-clock=1e6,0.01' 'sort::instructions=1e6,0' \
		'hash::instructions=3e6,0' 'parse::instructions=1e5,0'
	local rows='[(r["benchmark"], m["id"]) for m in d["metrics"] for r in m["rows"]]'
	expect_exit 0 "$PMCBENCH" compare --format json --filter 'name:s*' a.json b.json || return 1
	[ "$(json_get "$TMP/out" "sorted($rows)")" = "[('sort', 'instructions'), ('sort', 'task-clock')]" ] ||
		{ fail "name:s* selected $(json_get "$TMP/out" "$rows")"; return 1; }
	expect_exit 0 "$PMCBENCH" compare --format json --filter metric:task-clock a.json b.json || return 1
	[ "$(json_get "$TMP/out" "sorted($rows)")" = "[('hash', 'task-clock'), ('parse', 'task-clock'), ('sort', 'task-clock')]" ] ||
		return 1
	# Several filters: all of them hold; '-' leaves out; a plain glob is over names.
	expect_exit 0 "$PMCBENCH" compare --format json --filter '*a*' --filter -name:hash \
		--filter 'metric:instr*' a.json b.json || return 1
	[ "$(json_get "$TMP/out" "sorted($rows)")" = "[('parse', 'instructions')]" ] ||
		{ fail "selected $(json_get "$TMP/out" "$rows")"; return 1; }
	local -a bad=(
		"--filter foo:bar|--filter: filter 'foo:bar': unknown key 'foo'"
		"--filter=|--filter: filter '': empty"
		"--filter name:|--filter: filter 'name:': no pattern after 'name:'"
		"--filter name:nothing*|filter selects no benchmark of a\.json \(it has 'sort', 'hash', 'parse'\)"
		"--filter metric:cycles|filter selects no metric of a\.json"
		"--row file|--row 'file': rows are 'benchmark'"
		"--col metric|--col 'metric': only --col file is supported"
	)
	for c in "${bad[@]}"; do
		# shellcheck disable=SC2086
		expect_exit 2 "$PMCBENCH" compare ${c%%|*} a.json b.json || return 1
		expect_one_line "$TMP/err" "^pmcbench: ${c#*|}" || return 1
	done
	# --row metric: a table per benchmark, a row per metric; benchstat's names work.
	expect_exit 0 "$PMCBENCH" compare --row metric --col .file --all a.json b.json || return 1
	expect_grep '^sort$' "$TMP/out" || return 1
	expect_grep '^metric +a\.json +b\.json +change \(HL\)' "$TMP/out" || return 1
	expect_grep '^task-clock \[ns\] .* regression$' "$TMP/out" || return 1
	expect_grep '^instructions \[count\] .* no change$' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" compare --row .unit a.json b.json || return 1
	expect_grep '^2 metrics without change \(~\); --all shows them$' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" compare --row metric --format markdown a.json b.json || return 1
	expect_grep '^### sort$' "$TMP/out" || return 1
	expect_grep '^\| metric \| ' "$TMP/out"
}

test_compare_reports_regression_but_exits_0() {
	base a.json
	mkresult b.json 'sort::task-clock=2.4e6,0.01' 'hash::task-clock=4.5e5,0.01' \
		'parse::task-clock=1e6,0.012' 'sort::instructions=1e6,0' \
		'hash::instructions=3e6,0' 'parse::instructions=1e5,0'
	expect_exit 0 "$PMCBENCH" compare a.json b.json || return 1
	expect_grep '^sort .* \+20\.0% \[\+1[0-9]\.[0-9]%, \+2[0-9]\.[0-9]%\] +q<0\.001 n=10\+10 +5% +regression$' \
		"$TMP/out" || return 1
	expect_grep '^hash .* -10\.0% .* improvement$' "$TMP/out" || return 1
	expect_grep '^geomean ' "$TMP/out" || return 1
	# gate decides: the same pair fails it.
	expect_exit 1 "$PMCBENCH" gate --baseline a.json b.json || return 1
	expect_grep '^gate: FAIL \(regression\); 1 regression, 1 improvement' "$TMP/out"
}

test_gate_improvement_passes() {
	base a.json
	mkresult b.json 'sort::task-clock=1.5e6,0.01' 'hash::task-clock=5e5,0.01' \
		'parse::task-clock=1e6,0.01' 'sort::instructions=0.9e6,0' \
		'hash::instructions=3e6,0' 'parse::instructions=1e5,0'
	expect_exit 0 "$PMCBENCH" gate --baseline a.json b.json || return 1
	expect_grep '^gate: PASS; 0 regressions, 2 improvements' "$TMP/out"
}

test_gate_inconclusive_only_when_asked() {
	# x: +5% with a CI of about +-1% crosses the 5% limit: inconclusive. y is unchanged.
	mkresult a.json 'x::task-clock=1e6,0.01' 'y::task-clock=1e6,0.01'
	mkresult b.json 'x::task-clock=1.05e6,0.01' 'y::task-clock=1e6,0.01'
	expect_exit 0 "$PMCBENCH" gate --baseline a.json b.json || return 1
	expect_grep '^x .*inconclusive \(confidence interval crosses the threshold\)$' "$TMP/out" ||
		return 1
	expect_exit 3 "$PMCBENCH" gate --fail-on-inconclusive --baseline a.json b.json || return 1
	expect_grep '^gate: FAIL \(inconclusive\)' "$TMP/out" || return 1
	# A regression outranks an inconclusive row.
	mkresult c.json 'x::task-clock=1.05e6,0.01' 'y::task-clock=2e6,0.01'
	expect_exit 1 "$PMCBENCH" gate --fail-on-inconclusive --baseline a.json c.json
}

# Three runs per side cannot reach p < 0.05 (2 / C(6,3) = 0.1): a gate on them could
# never fail, which is an error saying how many runs are needed (issue 8, case 6).
test_gate_undetectable_design_exit_2() {
	mkresult a.json 'x::wall-time=1e9,0.01,3' 'y::task-clock=1e6,0.01,10'
	mkresult b.json 'x::wall-time=1.68e9,0.01,3' 'y::task-clock=1e6,0.01,10'
	expect_exit 2 "$PMCBENCH" gate --baseline a.json b.json || return 1
	# Among the 2 gated tests a lone change needs p * 2 < 0.05: 5 runs a side (issue 18).
	expect_one_line "$TMP/err" "^pmcbench: metric 'wall-time' of 'x' has 3\+3 runs: too few for any difference to be significant at alpha=0\.05 among the 2 gated tests; need >= 5 runs per side: record more, e\.g\. 'pmcbench run -r 10', or gate fewer metrics \(--metric\)$" ||
		return 1
	# The row says so itself, benchstat-style, instead of a counted warning.
	expect_grep '^x .*inconclusive \(need >= 5 runs per side to detect a difference at alpha=0\.05 among 2 gated tests\)$' \
		"$TMP/out" || return 1
	expect_no_grep '^warning: too few' "$TMP/out" || return 1
	# compare reports the same and exits 0; at alpha 0.2, 3 runs can detect it.
	expect_exit 0 "$PMCBENCH" compare a.json b.json || return 1
	expect_exit 1 "$PMCBENCH" gate --no-fdr --alpha 0.2 --confidence 0.8 --baseline a.json b.json
}

test_gate_thresholds() {
	# instructions +0.2% exactly: beyond +0.1%, inside the default 5%.
	mkresult a.json 'x::instructions=1000000,0' 'x::max-rss=100e6,0.001' \
		'x::task-clock=1e6,0.01'
	mkresult b.json 'x::instructions=1002000,0' 'x::max-rss=103e6,0.001' \
		'x::task-clock=1.04e6,0.002'
	expect_exit 0 "$PMCBENCH" gate --baseline a.json b.json || return 1
	expect_exit 1 "$PMCBENCH" gate --threshold instructions=+0.1% --baseline a.json b.json ||
		return 1
	# Equal hardware readings are ties, tested like any sample (issue 8, case 1).
	expect_grep '^x .* \+0\.20% \[\+0\.20%, \+0\.20%\] +q<0\.001 n=10\+10 +\+0\.1% +regression$' "$TMP/out" ||
		return 1
	# +3 MB of max-rss is 3%: inside 5%, beyond +2MiB.
	expect_exit 1 "$PMCBENCH" gate --threshold max-rss=+2MiB --baseline a.json b.json ||
		return 1
	expect_grep '^x .*\(\+2\.861MiB\) .* \+2MiB +regression$' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" gate --threshold max-rss=+4MiB --baseline a.json b.json ||
		return 1
	# The default for every metric, and a two-sided limit on task-clock.
	expect_exit 1 "$PMCBENCH" gate --threshold '*=2%' --baseline a.json b.json || return 1
	expect_exit 0 "$PMCBENCH" gate --threshold '*=2%' --threshold max-rss=5% \
		--threshold task-clock=5% --baseline a.json b.json || return 1
	# A thresholds file with a per-benchmark pattern.
	cat >th.json <<'EOF'
{"schema": "pmcbench-thresholds/1", "default": "10%",
 "benchmarks": [{"match": "x*", "metrics": {"instructions": "+0.1%"}}]}
EOF
	expect_exit 1 "$PMCBENCH" gate --thresholds th.json --baseline a.json b.json || return 1
	expect_grep '^x .* \+0\.1% +regression$' "$TMP/out"
}

test_gate_higher_is_better() {
	mkresult a.json 'x::ipc=1.5,0.01'
	mkresult b.json 'x::ipc=1.2,0.01'
	# ipc is not gated by default (docs/metrics.md): name it.
	expect_exit 1 "$PMCBENCH" gate --threshold ipc=5% --baseline a.json b.json || return 1
	expect_grep 'higher is better' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" gate --threshold ipc=5% --baseline b.json a.json
}

test_gate_simulated_single_run() {
	mkresult a.json backend=valgrind 'x::instructions=5000000,0,1@sim'
	mkresult b.json backend=valgrind 'x::instructions=5010000,0,1@sim'
	expect_exit 1 "$PMCBENCH" gate --threshold instructions=+0.1% --baseline a.json b.json ||
		return 1
	expect_grep '^instructions \[count, lower is better\] \(simulated\)$' "$TMP/out" || return 1
	expect_grep 'exact n=1\+1' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" gate --threshold instructions=+0.1% --baseline a.json a.json
}

test_markdown_report_written_on_success_and_failure() {
	base a.json
	mkresult b.json 'sort::task-clock=2.4e6,0.01' 'hash::task-clock=5e5,0.01' \
		'parse::task-clock=1e6,0.01' 'sort::instructions=1e6,0' \
		'hash::instructions=3e6,0' 'parse::instructions=1e5,0'
	expect_exit 1 "$PMCBENCH" gate --format markdown --output report.md --baseline a.json b.json ||
		return 1
	cmp -s "$TMP/out" report.md || fail "stdout and report.md differ" || return 1
	expect_grep '^## pmcbench gate: FAIL \(regression\)$' report.md || return 1
	expect_grep '^\*\*1 regression\*\*, 0 improvements, 5 no change, 0 inconclusive' report.md ||
		return 1
	expect_grep '^\| sort \| 2ms ± .* \| \*\*\+20\.0% .*\*\* \| q<0\.001 n=10\+10 \| 5% \| \*\*regression\*\* \|$' \
		report.md || return 1
	expect_grep '^\| \*\*geomean\*\* \|' report.md || return 1
	! ls report.md.tmp.* >/dev/null 2>&1 || fail "temporary file left behind" || return 1
	# A failure replaces the report with one that says why.
	head -c 100 a.json >trunc.json
	expect_exit 2 "$PMCBENCH" gate --format markdown --output report.md --baseline trunc.json b.json ||
		return 1
	expect_grep '^## pmcbench gate: ERROR$' report.md || return 1
	expect_grep '^\*\*Error:\*\* trunc\.json' report.md || return 1
	expect_one_line "$TMP/err" 'trunc\.json'
}

test_json_report() {
	# Simulated instructions: exact rows (equal hardware readings would be tested).
	mkresult a.json 'sort::task-clock=2e6,0.01' 'hash::task-clock=5e5,0.01' \
		'parse::task-clock=1e6,0.01' 'sort::instructions=1e6,0@sim' \
		'hash::instructions=3e6,0@sim' 'parse::instructions=1e5,0@sim'
	mkresult b.json 'sort::task-clock=2.4e6,0.01' 'hash::task-clock=5e5,0.01' \
		'parse::task-clock=1e6,0.01' 'sort::instructions=1e6,0@sim' \
		'hash::instructions=3e6,0@sim' 'parse::instructions=0,0@sim'
	expect_exit 1 "$PMCBENCH" gate --format json --output r.json --baseline a.json b.json ||
		return 1
	expect_no_grep 'NaN|Infinity|nan|inf' r.json || return 1
	[ "$(json_get r.json 'd["schema"]')" = pmcbench-compare/1 ] || fail "schema" || return 1
	[ "$(json_get r.json 'd["outcome"]')" = regression ] || fail "outcome" || return 1
	[ "$(json_get r.json 'd["counts"]["regression"]')" = 1 ] || fail "regressions" || return 1
	[ "$(json_get r.json 'd["counts"]["improvement"]')" = 1 ] || fail "improvements" || return 1
	[ "$(json_get r.json '[r["verdict"] for m in d["metrics"] for r in m["rows"] if r["benchmark"] == "sort" and m["id"] == "task-clock"][0]')" = regression ] ||
		fail "sort verdict" || return 1
	# The exact row from 1e5 to 0: no p-value, a ratio of 0.
	[ "$(json_get r.json '[(r["p"], r["ratio"], r["kind"]) for m in d["metrics"] for r in m["rows"] if r["benchmark"] == "parse" and m["id"] == "instructions"][0]')" = "(None, 0, 'exact')" ] ||
		fail "exact row" || return 1
	[ "$(json_get r.json 'd["metrics"][0]["geomean"]["n"]')" = 3 ]
}

# Files that must be refused with exit 2 and one line naming the file.
bad_files() {
	base good.json
	head -c 300 good.json >truncated.json
	printf '{"schema": "pmcbench-result/1", "benchmarks": [,]}\n' >malformed.json
	sed 's#pmcbench-result/1#pmcbench-result/2#' good.json >future.json
	mkdir directory.json
	: >empty.json
	python3 - <<'EOF'
import json
d = json.load(open("good.json"))
d["benchmarks"][1]["metrics"]["task-clock"]["samples"][3] = float("nan")
json.dump(d, open("nan.json", "w"))  # Python writes the NaN token JSON does not have
d = json.load(open("good.json"))
d["benchmarks"][0]["metrics"]["instructions"]["samples"][0] = -5
json.dump(d, open("negative.json", "w"))
EOF
	printf '\x89PNG\r\n' >binary.json
}

test_bad_input_files_exit_2_with_one_line() {
	bad_files
	for f in truncated.json malformed.json future.json directory.json empty.json nan.json \
		negative.json binary.json missing.json; do
		expect_exit 2 "$PMCBENCH" compare good.json "$f" || return 1
		expect_one_line "$TMP/err" "^pmcbench: $f" || return 1
		expect_exit 2 "$PMCBENCH" gate --baseline "$f" good.json || return 1
		expect_one_line "$TMP/err" "^pmcbench: $f" || return 1
		[ ! -s "$TMP/out" ] || fail "stdout not empty for $f" || return 1
	done
	expect_exit 2 "$PMCBENCH" compare good.json future.json || return 1
	expect_grep 'pmcbench-result/2' "$TMP/err" || return 1
	expect_exit 2 "$PMCBENCH" compare good.json negative.json || return 1
	expect_grep 'negative' "$TMP/err"
}

test_unit_mismatch_exit_2() {
	mkresult a.json 'x::max-rss=100e6,0.01'
	mkresult b.json 'x::max-rss=100e3,0.01@unit=KiB'
	expect_exit 2 "$PMCBENCH" compare a.json b.json || return 1
	expect_one_line "$TMP/err" "max-rss.*bytes.*KiB" || return 1
	expect_exit 2 "$PMCBENCH" gate --baseline a.json b.json
}

test_simulated_against_hardware_refused_unless_forced() {
	mkresult a.json 'x::instructions=1e6,0.01'
	mkresult b.json backend=valgrind 'x::instructions=1e6,0,1@sim'
	expect_exit 2 "$PMCBENCH" gate --baseline a.json b.json || return 1
	expect_one_line "$TMP/err" 'a\.json .*perf backend.*b\.json .*valgrind backend.*simulated.*--force' ||
		return 1
	# One backend, a simulated metric on one side only: refused per metric.
	mkresult c.json 'x::instructions=1e6,0,1@sim'
	expect_exit 2 "$PMCBENCH" gate --baseline a.json c.json || return 1
	expect_one_line "$TMP/err" "metric 'instructions' .*simulated.*--force" || return 1
	expect_exit 0 "$PMCBENCH" compare --force a.json b.json || return 1
	expect_grep "warning: metric 'instructions' is simulated on one side" "$TMP/out" || return 1
	expect_grep "warning: environments differ \(backend 'perf' vs 'valgrind'\)" "$TMP/out"
}

test_nothing_in_common_exit_2() {
	mkresult a.json 'a1::task-clock=1e6,0.01' 'a2::task-clock=1e6,0.01'
	mkresult b.json 'b1::task-clock=1e6,0.01' 'b2::task-clock=1e6,0.01'
	expect_exit 2 "$PMCBENCH" compare a.json b.json || return 1
	expect_one_line "$TMP/err" 'nothing to compare: no benchmark is in both' || return 1
	expect_exit 2 "$PMCBENCH" gate --baseline a.json b.json || return 1
	expect_exit 2 "$PMCBENCH" gate --metric cycles --baseline a.json a.json || return 1
	expect_one_line "$TMP/err" 'nothing to compare.*--metric'
}

test_one_benchmark_each_pairs_across_names() {
	mkresult a.json './old-prog::task-clock=1e6,0.01'
	mkresult b.json './new-prog::task-clock=1.5e6,0.01'
	# Two different programs: an error naming both, unless --force.
	expect_exit 2 "$PMCBENCH" gate --baseline a.json b.json || return 1
	expect_one_line "$TMP/err" "a\.json and b\.json measure different benchmarks \('\./old-prog' and '\./new-prog'\).*give both runs one name \('pmcbench run -n NAME .*--force" ||
		return 1
	expect_exit 1 "$PMCBENCH" gate --force --baseline a.json b.json || return 1
	expect_grep "warning: comparing the only benchmark of each result: './old-prog' with './new-prog'" \
		"$TMP/out"
}

test_unsupported_on_one_side() {
	mkresult a.json 'x::task-clock=1e6,0.01' 'x::cycles=2e6,0.01'
	mkresult b.json 'x::task-clock=1e6,0.01' 'x::cycles=0,0@unsup'
	# compare warns; gate cannot check cycles, which is an error, not a pass.
	expect_exit 0 "$PMCBENCH" compare a.json b.json || return 1
	expect_grep "warning: 1 row has no value in the new result \(e\.g\. 'cycles': unsupported\)" \
		"$TMP/out" || return 1
	expect_exit 2 "$PMCBENCH" gate --baseline a.json b.json || return 1
	expect_one_line "$TMP/err" "metric 'cycles' of 'x' in the new result" || return 1
	expect_grep '^gate: ERROR' "$TMP/out" || return 1
	# Leaving it out makes a gate again.
	expect_exit 0 "$PMCBENCH" gate --metric task-clock --baseline a.json b.json
}

test_metric_filter_and_fdr_options() {
	mkresult a.json 'x::task-clock=1e6,0.01' 'x::page-faults=100,0'
	mkresult b.json 'x::task-clock=1e6,0.01' 'x::page-faults=200,0'
	expect_exit 1 "$PMCBENCH" gate --baseline a.json b.json || return 1
	expect_exit 0 "$PMCBENCH" gate --metric 'task-*' --baseline a.json b.json || return 1
	expect_no_grep 'page-faults' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" gate --no-fdr --confidence 99% --alpha=0.01 --metric task-clock \
		--baseline=a.json b.json || return 1
	expect_grep 'alpha=0\.01' "$TMP/out" || return 1
	expect_grep '99% CI' "$TMP/out"
}

test_bad_options_exit_2_with_one_line() {
	base a.json
	local -a cases=(
		"compare --alpha 2 a.json a.json|--alpha '2'"
		"compare --alpha a.json a.json|--alpha 'a.json'"
		"compare --confidence 0 a.json a.json|--confidence '0'"
		"compare --confidence 1.5 a.json a.json|--confidence '1\\.5': must lie strictly between 0 and 1; use 0\\.95 or 95%"
		"compare --confidence 95 a.json a.json|--confidence '95'.*use 0\\.95 or 95%"
		"gate --alpha 5 --baseline a.json a.json|--alpha '5'.*use 0\\.05 or 5%"
		"gate --alpha=1 --baseline a.json a.json|--alpha '1'"
		"compare --thresholds . a.json a.json|\\.: is a directory"
		"gate --baseline a.json --baseline b.json a.json|--baseline given twice \\('a\\.json' and 'b\\.json'\\)"
		"gate -b a.json --baseline=a.json a.json|--baseline given twice"
		"compare --format html a.json a.json|--format 'html': unknown format"
		"compare --threshold instructions a.json a.json|--threshold 'instructions': column 13: expected METRIC=LIMIT"
		"compare --threshold x=+2MB a.json a.json|--threshold 'x=\+2MB': column 5: unknown unit 'MB'"
		"compare --thresholds nofile.json a.json a.json|nofile.json: cannot open"
		"compare --bogus a.json a.json|unknown option '--bogus'"
		"compare a.json|needs two result files or more"
		"gate a.json|gate needs --baseline"
		"gate --baseline a.json a.json a.json|gate judges one result against its baseline, got 2 files"
		"gate --baseline a.json|needs one result file"
		"compare --threshold|'--threshold' needs a value"
		"gate --threshold task-clock=5MiB --baseline a.json a.json|threshold task-clock=5MiB is a size in bytes, but metric 'task-clock' is in ns"
	)
	for c in "${cases[@]}"; do
		# shellcheck disable=SC2086
		expect_exit 2 "$PMCBENCH" ${c%%|*} || return 1
		expect_one_line "$TMP/err" "^pmcbench: .*${c#*|}" || return 1
	done
}

test_help() {
	expect_exit 0 "$PMCBENCH" compare --help || return 1
	expect_grep '^Usage: pmcbench compare \[OPTION\]\.\.\. OLD\.json NEW\.json \[NEW2\.json\]\.\.\.$' "$TMP/out" ||
		return 1
	expect_grep '^Exit status: 0 when compared' "$TMP/out" || return 1
	expect_grep 'threshold METRIC=LIMIT' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" help gate || return 1
	expect_grep '^Usage: pmcbench gate \[OPTION\]\.\.\. --baseline BASE\.json NEW\.json$' \
		"$TMP/out" || return 1
	expect_grep '3 inconclusive, with --fail-on-inconclusive only' "$TMP/out"
}

# Real measurements: `pmc-work loop N` against twice the work, and against itself.
# real_runs: a.json and c.json (loop 20000000) and b.json (loop 40000000), each one
# command's runs from a single interleaved `run`, so that a change of the machine's load
# hits all three alike and no verdict below depends on it.
real_runs() {
	"$PMCBENCH" run -r 10 -e task-clock -n a -c "$WORK loop 20000000" -n b \
		-c "$WORK loop 40000000" -n c -c "$WORK loop 20000000" -o all.json \
		>/dev/null 2>"$TMP/run.err" || return 1
	python3 - all.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
del d["design"]
for b in d["benchmarks"]:
    for r in b["runs"]:
        del r["round"]
    one = dict(d, benchmarks=[dict(b, name="loop")])
    json.dump(one, open(b["name"] + ".json", "w"))
PY
}

test_real_runs_ab_and_aa() {
	real_runs || { cat "$TMP/run.err" >&2; fail "pmcbench run failed"; return 1; }
	# Two commands (loop 20000000 and 40000000), each measured by its own invocation:
	# their runs share its conditions, so task-clock is shown, not tested, and the gate
	# refuses it, naming the designs that can judge it (docs/statistics.md).
	expect_exit 2 "$PMCBENCH" gate --force --metric task-clock --baseline a.json b.json || return 1
	expect_one_line "$TMP/err" "metric 'task-clock' of .* cannot be gated against a single invocation.*pmcbench run -c OLD -c NEW" || return 1
	expect_exit 0 "$PMCBENCH" compare --force --metric task-clock a.json b.json || return 1
	expect_grep '^task-clock ' "$TMP/out" || return 1
	expect_grep ' not tested .*inconclusive' "$TMP/out" || return 1
	# The headline says so first, with the ratio and no verdict.
	head -n 1 "$TMP/out" | grep -Eq '^not tested: b\.json or a\.json is one invocation, and task-clock drifts between invocations: [0-9.]+x \(ratio of medians\)$' ||
		fail "headline: $(head -n 1 "$TMP/out")" || return 1
	# A/A: the same program twice: no verdict either way, never a regression.
	expect_exit 2 "$PMCBENCH" gate --metric task-clock --threshold task-clock=25% \
		--baseline a.json c.json
}

test_gate_with_nothing_judged_is_an_error() {
	# One perf run per side: no row can be tested, none is exact. Not a pass.
	mkresult a.json 'x::task-clock=1e6,0.01,1' 'x::wall-time=1e6,0.01,1' 'y::task-clock=1e6,0.01,1'
	mkresult b.json 'x::task-clock=2e6,0.01,1' 'x::wall-time=1e6,0.01,1' 'y::task-clock=1e6,0.01,1'
	expect_exit 2 "$PMCBENCH" gate --baseline a.json b.json || return 1
	expect_one_line "$TMP/err" "^pmcbench: metric 'task-clock' of 'x' has 1\+1 runs \(and 2 more gated rows\): too few for any difference to be significant at alpha=0\.05 among the 3 gated tests; need >= 5 runs per side" ||
		return 1
	expect_grep '^gate: ERROR; 0 regressions, 0 improvements, 0 no change, 3 inconclusive' \
		"$TMP/out" || return 1
	# At alpha 0.2 the test needs 3 runs: the message follows --alpha.
	mkresult c.json 'x::task-clock=1e6,0.01,2'
	expect_exit 2 "$PMCBENCH" gate --alpha 0.2 --baseline c.json c.json || return 1
	expect_grep 'need >= 3 runs per side' "$TMP/err" || return 1
	# compare reports the same rows and exits 0.
	expect_exit 0 "$PMCBENCH" compare a.json b.json || return 1
	# Exact counts are judged with one run each (valgrind): that gate passes.
	mkresult s.json backend=valgrind 'x::instructions=5e6,0,1@sim' 'x::wall-time=1e6,0.01,1'
	expect_exit 0 "$PMCBENCH" gate --baseline s.json s.json
}

test_gate_threshold_or_metric_that_checked_nothing() {
	# No PMU: instructions is unsupported on both sides.
	mkresult a.json 'x::task-clock=1e6,0.01' 'x::instructions=0,0@unsup' \
		'y::task-clock=2e6,0.01' 'y::instructions=0,0@unsup'
	expect_exit 2 "$PMCBENCH" gate --baseline a.json a.json --threshold instructions=+1% || return 1
	expect_one_line "$TMP/err" "^pmcbench: threshold 'instructions=\+1%' checked nothing: 'instructions' has no measured values in either result \(unsupported\); remove it or measure it$" ||
		return 1
	expect_grep '^gate: ERROR' "$TMP/out" || return 1
	# A misspelt id, with the near one suggested.
	expect_exit 2 "$PMCBENCH" gate --baseline a.json a.json --threshold instrucions=+1% || return 1
	expect_one_line "$TMP/err" "threshold 'instrucions=\+1%' checked nothing: no benchmark in both results has a metric 'instrucions' \(did you mean 'instructions'\?\)" ||
		return 1
	# --metric filters: one that matches nothing, one whose metric has no values.
	expect_exit 2 "$PMCBENCH" gate --baseline a.json a.json --metric task-clock --metric tsak-clock ||
		return 1
	expect_one_line "$TMP/err" "^pmcbench: --metric 'tsak-clock' selected nothing to compare: no metric .* matches it \(did you mean 'task-clock'\?\)" ||
		return 1
	expect_exit 2 "$PMCBENCH" gate --baseline a.json a.json --metric 'task-*' --metric 'instr*' ||
		return 1
	expect_one_line "$TMP/err" "--metric 'instr\*' selected nothing to compare: 'instructions' has no measured values" ||
		return 1
	# A threshold on a metric that --metric leaves out.
	expect_exit 2 "$PMCBENCH" gate --baseline a.json a.json --metric task-clock --threshold instructions=+1% ||
		return 1
	expect_one_line "$TMP/err" "'instructions' is left out by --metric" || return 1
	# Several at once: the first is named, the rest counted; the JSON report holds all.
	expect_exit 2 "$PMCBENCH" gate --format json --baseline a.json a.json --threshold foo=1% \
		--threshold bar=1% || return 1
	expect_grep "threshold 'foo=1%' checked nothing.*\(and 1 more: see the warnings\)$" "$TMP/err" ||
		return 1
	[ "$(json_get "$TMP/out" 'd["outcome"]')" = error ] || fail "outcome" || return 1
	[ "$(json_get "$TMP/out" 'len([w for w in d["warnings"] if "checked nothing" in w])')" = 2 ] ||
		fail "warnings" || return 1
	# compare warns instead, and exits 0.
	expect_exit 0 "$PMCBENCH" compare --threshold instrucions=+1% --metric task-clock \
		--metric 'nope*' a.json a.json || return 1
	expect_grep "^warning: threshold 'instrucions=\+1%' checked nothing" "$TMP/out" || return 1
	expect_grep "^warning: --metric 'nope\*' selected nothing to compare" "$TMP/out" || return 1
	[ ! -s "$TMP/err" ] || fail "compare wrote to stderr" || return 1
	# The '*' default is not a metric: it never "checks nothing"; a real limit passes.
	expect_exit 0 "$PMCBENCH" gate --threshold '*=3%' --threshold task-clock=5% --metric task-clock \
		--baseline a.json a.json
}

test_write_failure_exits_2() {
	[ -w /dev/full ] || skip "no writable /dev/full"
	base a.json
	local c
	for c in "compare a.json a.json" "compare --format json a.json a.json" \
		"compare --format markdown a.json a.json" "gate --baseline a.json a.json" \
		"compare --help" "gate --help" "list -n" "list --help" "doctor" "doctor --help"; do
		# shellcheck disable=SC2086
		"$PMCBENCH" $c >/dev/full 2>"$TMP/err"
		[ $? = 2 ] || fail "'$c' >/dev/full did not exit 2" || return 1
		expect_one_line "$TMP/err" '^pmcbench: .*cannot write .*standard output' || return 1
	done
}

test_valgrind_tool_or_version_difference_warns() {
	mkresult a.json backend=valgrind env:valgrind-tool=callgrind env:valgrind-version=valgrind-3.19.0 \
		'x::instructions=5e6,0,1@sim'
	mkresult b.json backend=valgrind env:valgrind-tool=cachegrind env:valgrind-version=valgrind-3.19.0 \
		'x::instructions=5e6,0,1@sim'
	expect_exit 0 "$PMCBENCH" compare a.json b.json || return 1
	expect_grep "^warning: environments differ \(valgrind-tool 'callgrind' vs 'cachegrind'\)" \
		"$TMP/out" || return 1
	mkresult c.json backend=valgrind env:valgrind-tool=callgrind env:valgrind-version=valgrind-3.22.0 \
		'x::instructions=5e6,0,1@sim'
	expect_exit 0 "$PMCBENCH" gate --baseline a.json c.json || return 1
	expect_grep "^warning: environments differ \(valgrind-version 'valgrind-3\.19\.0' vs 'valgrind-3\.22\.0'\)" \
		"$TMP/out"
}

test_overflow_names_file_benchmark_and_metric() {
	mkresult ok.json 'x::instructions=1e6,0.01' 'x::task-clock=1e6,0.01'
	python3 - <<'EOF'
import json
d = json.load(open("ok.json"))
d["benchmarks"][0]["metrics"]["instructions"]["samples"] = [1.7e308, 1.0] * 5
json.dump(d, open("big.json", "w"))
EOF
	expect_exit 2 "$PMCBENCH" compare ok.json big.json || return 1
	expect_one_line "$TMP/err" "^pmcbench: big\.json: metric 'instructions' of benchmark 'x': its samples \(up to 1\.7e\+308\) overflow" ||
		return 1
	expect_exit 2 "$PMCBENCH" gate --baseline big.json ok.json || return 1
	expect_one_line "$TMP/err" "^pmcbench: big\.json: metric 'instructions' of benchmark 'x'"
}

test_change_column_says_hodges_lehmann() {
	base a.json
	expect_exit 0 "$PMCBENCH" compare a.json a.json || return 1
	expect_grep '^benchmark +a\.json +a\.json +change \(HL\) +test +limit +verdict$' "$TMP/out" ||
		return 1
	expect_exit 0 "$PMCBENCH" compare --format markdown a.json a.json || return 1
	expect_grep '^\| benchmark \| a\.json \| a\.json \| change \(HL\) \| test \| limit \| verdict \|$' \
		"$TMP/out"
}

# ---- Other tools' results (docs/import.md) ----------------------------------------------
# Files written by Google Benchmark, hyperfine and perf stat on the development VM, and Go
# benchmark text written by hand (tests/data/import/README.md). scale FILE OUT FACTOR
# writes a copy whose times are FACTOR times longer.
import_data=$(cd "$(dirname "${BASH_SOURCE[0]}")/../data/import" && pwd)

scale() {
	python3 - "$@" <<'PY'
import json, re, sys
src, out, k = sys.argv[1], sys.argv[2], float(sys.argv[3])
text = open(src).read()
if src.endswith(".txt"):  # Go: ns/op values
    text = re.sub(r"([0-9.]+) ns/op", lambda m: "%.1f ns/op" % (float(m.group(1)) * k), text)
elif src.endswith(".csv"):  # perf stat -x,: msec values
    text = re.sub(r"^([0-9.]+),msec,", lambda m: "%.2f,msec," % (float(m.group(1)) * k),
                  text, flags=re.M)
elif "counter-value" in text:  # perf stat -j
    text = re.sub(r'"counter-value" : "([0-9.]+)", "unit" : "msec"',
                  lambda m: '"counter-value" : "%f", "unit" : "msec"' % (float(m.group(1)) * k),
                  text)
elif '"results"' in text:  # hyperfine
    d = json.loads(text)
    for r in d["results"]:
        r["times"] = [t * k for t in r["times"]]
    text = json.dumps(d, indent=2)
else:  # Google Benchmark (Python's json reads and writes its bare NaN and Infinity)
    d = json.loads(text)
    for b in d["benchmarks"]:
        for key in ("real_time", "cpu_time"):
            if key in b:
                b[key] *= k
    text = json.dumps(d, indent=2)
open(out, "w").write(text)
PY
}

# compare and gate on two files of one format (import_ab A B [work]: the format also counts
# work, page faults), compare exiting 0 whatever the change.
import_ab() {
	local a=$1 b=$2 ext=${1##*.}
	scale "$import_data/$a" "slow.$ext" 2 || return 1
	expect_exit 0 "$PMCBENCH" compare "$import_data/$a" "$import_data/$b" || return 1
	# Each file is one invocation of the other tool: its times are shown, not tested,
	# and a gate is refused, never passed (docs/statistics.md): the page faults a perf
	# stat file also counts do not say whether the command got slower (every time here
	# doubled, the page faults did not move).
	expect_exit 2 "$PMCBENCH" gate --baseline "$import_data/$a" "$import_data/$a" || return 1
	expect_grep 'cannot be gated against a single invocation' "$TMP/err" || return 1
	expect_exit 0 "$PMCBENCH" compare "$import_data/$a" "slow.$ext" || return 1
	expect_grep ' not tested ' "$TMP/out" || return 1
	expect_exit 2 "$PMCBENCH" gate --baseline "$import_data/$a" "slow.$ext" || return 1
	expect_grep 'cannot be gated against a single invocation' "$TMP/err"
}

test_import_google_benchmark() {
	import_ab gbench_a.json gbench_b.json || return 1
	expect_grep '^wall-time/op \[ns, lower is better\]$' "$TMP/out" || return 1
	expect_grep '^cpu-time/op \[ns, lower is better\]$' "$TMP/out" || return 1
	# A user counter has no direction: shown, never a regression; a limit must be signed.
	expect_grep '^widgets \[count, no direction\]$' "$TMP/out" || return 1
	expect_exit 2 "$PMCBENCH" gate --threshold widgets=5% --baseline \
		"$import_data/gbench_a.json" "$import_data/gbench_b.json" || return 1
	expect_one_line "$TMP/err" "metric 'widgets' has no direction" || return 1
	# Aggregates alone cannot be tested.
	expect_exit 2 "$PMCBENCH" compare "$import_data/gbench_aggregates.json" \
		"$import_data/gbench_a.json" || return 1
	expect_one_line "$TMP/err" "gbench_aggregates\.json: benchmarks\[0\]: benchmark 'BM_sum/64' has only aggregates .*cannot be tested"
}

test_import_hyperfine() {
	import_ab hyperfine_a.json hyperfine_b.json || return 1
	expect_grep '^sleep 0\.01 ' "$TMP/out" || return 1
	expect_exit 2 "$PMCBENCH" gate --baseline "$import_data/bad_hyperfine_no_times.json" \
		"$import_data/hyperfine_a.json" || return 1
	expect_one_line "$TMP/err" 'bad_hyperfine_no_times\.json: results\[1\]: no "times"'
}

test_import_perf_stat_csv() {
	import_ab perf_a.csv perf_b.csv || return 1
	expect_grep '^perf stat .* not tested ' "$TMP/out" || return 1
	expect_exit 2 "$PMCBENCH" compare "$import_data/perf_r3.csv" "$import_data/perf_a.csv" ||
		return 1
	expect_one_line "$TMP/err" 'perf_r3\.csv:1: perf stat -r printed the mean of its runs .*cannot be tested'
}

test_import_perf_stat_json() {
	import_ab perf_a.json perf_b.json || return 1
	# -x, prints ms with 2 decimals, -j with 6: comparing the two says so.
	expect_exit 0 "$PMCBENCH" compare "$import_data/perf_a.csv" "$import_data/perf_b.json" ||
		return 1
	expect_grep "^warning: environments differ \(imported-from 'perf-stat-csv' vs 'perf-stat-json'\)" \
		"$TMP/out" || return 1
	expect_exit 2 "$PMCBENCH" gate --baseline "$import_data/perf_a.json" \
		"$import_data/perf_r3.json" || return 1
	expect_one_line "$TMP/err" 'perf_r3\.json:1: perf stat -r printed the mean'
}

test_import_go() {
	import_ab go_a.txt go_b.txt || return 1
	expect_grep '^allocs/op \[count, lower is better\]$' "$TMP/out" || return 1
	expect_exit 2 "$PMCBENCH" compare "$import_data/go_a.txt" "$import_data/bad_go_value.txt" ||
		return 1
	expect_one_line "$TMP/err" "bad_go_value\.txt:8: 'BenchmarkSum/n=64-2': '128\.0x' \(of ns/op\) is not a number"
}

# By content, not by name; from pipes; another tool's result against pmcbench's is
# refused like a result of another backend.
test_import_by_content_pipes_and_backends() {
	cp "$import_data/gbench_a.json" gbench.csv
	expect_exit 0 "$PMCBENCH" compare gbench.csv "$import_data/gbench_b.json" || return 1
	expect_exit 0 "$PMCBENCH" compare <(cat "$import_data/hyperfine_a.json") \
		<(cat "$import_data/hyperfine_b.json") || return 1
	expect_grep '^true ' "$TMP/out" || return 1
	mkresult p.json 'true::wall-time=7e5,0.01'
	expect_exit 2 "$PMCBENCH" compare p.json "$import_data/hyperfine_a.json" || return 1
	expect_one_line "$TMP/err" 'perf backend .* hyperfine backend' || return 1
	expect_exit 0 "$PMCBENCH" compare --force p.json "$import_data/hyperfine_a.json"
}

# The headline: one line first, on the primary time metric, from the ratio's interval.
test_compare_headline_first() {
	mkresult a.json 'sort::task-clock=2e6,0.01' 'sort::wall-time=3e6,0.01'
	mkresult b.json 'sort::task-clock=1.2e7,0.01' 'sort::wall-time=3e6,0.01'
	expect_exit 0 "$PMCBENCH" compare a.json b.json || return 1
	[ "$(head -n 1 "$TMP/out")" != "" ] || { fail "the first line is empty"; return 1; }
	head -n 1 "$TMP/out" >"$TMP/first"
	expect_grep '^b\.json ran 6\.0[0-9]x slower than a\.json \[5\.[89][0-9]x, 6\.[01][0-9]x\] \(task-clock\)$' \
		"$TMP/first" || return 1
	# The other way round: faster, its interval inverted too.
	expect_exit 0 "$PMCBENCH" compare b.json a.json || return 1
	head -n 1 "$TMP/out" >"$TMP/first"
	expect_grep '^a\.json ran 6\.0[0-9]x faster than b\.json \[5\.[89][0-9]x, 6\.[01][0-9]x\] \(task-clock\)$' \
		"$TMP/first"
}

test_compare_headline_wall_time_and_no_difference() {
	mkresult a.json 'sort::wall-time=3e6,0.01'
	mkresult b.json 'sort::wall-time=3e6,0.011'
	expect_exit 0 "$PMCBENCH" compare a.json b.json || return 1
	head -n 1 "$TMP/out" >"$TMP/first"
	expect_grep '^no significant difference between b\.json and a\.json: 1\.00x \[0\.99x, 1\.01x\] \(wall-time\)$' \
		"$TMP/first" || return 1
	# Several benchmarks: no one line answers, so none is printed.
	mkresult c.json 'sort::wall-time=3e6,0.01' 'hash::wall-time=1e6,0.01'
	expect_exit 0 "$PMCBENCH" compare c.json c.json || return 1
	expect_no_grep 'ran .* than|no significant difference' "$TMP/out"
}

# Colour on the verdicts only when asked or on a terminal; never with NO_COLOR, never in
# a pipe, never in the --report file.
test_compare_color() {
	mkresult a.json 'sort::task-clock=2e6,0.01'
	mkresult b.json 'sort::task-clock=2.4e6,0.01'
	expect_exit 1 "$PMCBENCH" gate --color=always --report rep.txt --baseline a.json b.json ||
		return 1
	expect_grep $'^sort .* \033\\[1;31mregression\033\\[0m$' "$TMP/out" || return 1
	expect_grep $'^gate: \033\\[1;31mFAIL \\(regression\\)\033\\[0m; ' "$TMP/out" || return 1
	expect_no_grep $'\033' rep.txt || return 1
	# Not a terminal: none by default.
	expect_exit 1 "$PMCBENCH" gate --baseline a.json b.json || return 1
	expect_no_grep $'\033' "$TMP/out" || return 1
	expect_exit 2 "$PMCBENCH" compare --color=sometimes a.json b.json &&
	expect_grep "--color: 'sometimes' is not auto, always or never" "$TMP/err" || return 1
	# A terminal (a pseudo-terminal through script): colour, unless NO_COLOR says no.
	command -v script >/dev/null || skip "no script(1): colour on a terminal is not tested"
	script -qec "'$PMCBENCH' compare a.json b.json" /dev/null >tty.txt </dev/null
	expect_grep $'\033\\[1;31mregression' tty.txt || return 1
	NO_COLOR=1 script -qec "'$PMCBENCH' compare a.json b.json" /dev/null >tty.txt </dev/null
	expect_no_grep $'\033\\[' tty.txt
}

# Plain ASCII when the locale's character set is not UTF-8; documents untouched.
test_compare_ascii_in_the_c_locale() {
	mkresult a.json 'sort::task-clock=2e6,0.01'
	mkresult b.json 'sort::task-clock=2.4e6,0.01'
	LC_ALL=C "$PMCBENCH" compare a.json b.json >c.txt || fail "compare failed" || return 1
	LC_ALL=C grep -qP '[^\x00-\x7F]' c.txt && { fail "non-ASCII bytes in the C locale"; return 1; }
	expect_grep '^sort +2ms \+- 0\.78%' c.txt || return 1
	LC_ALL=C.UTF-8 "$PMCBENCH" compare a.json b.json >u.txt || fail "compare failed" || return 1
	expect_grep '^sort +2ms ± 0\.78%' u.txt
}

# issue 19, item 3: an input that never ends (a device such as /dev/zero) is refused at
# once, one line naming it; an endless pipe stops at 1 GiB (not tested: it takes a
# gigabyte), never read forever.
test_devices_are_not_inputs() {
	base a.json
	expect_exit 2 timeout 20 "$PMCBENCH" compare /dev/zero a.json || return 1
	expect_one_line "$TMP/err" "^pmcbench: /dev/zero: is not a regular file or a pipe \(a device\?\)" || return 1
	expect_exit 2 timeout 20 "$PMCBENCH" gate --baseline /dev/zero a.json || return 1
	expect_one_line "$TMP/err" "^pmcbench: /dev/zero: is not a regular file or a pipe" || return 1
	expect_exit 2 timeout 20 "$PMCBENCH" report /dev/zero || return 1
	expect_grep '/dev/zero: is not a regular file or a pipe' "$TMP/err" || return 1
	# A pipe is an input: the result comes through it.
	expect_exit 0 sh -c "cat a.json | '$PMCBENCH' compare /dev/stdin a.json" || return 1
}

# issue 19, item 5: no message lets an escape sequence from the user's text (a file name,
# an event list) reach the terminal.
test_messages_escape_control_bytes() {
	base a.json
	expect_exit 2 "$PMCBENCH" compare "$(printf 'x\033[2J.json')" a.json || return 1
	if LC_ALL=C grep -q "$(printf '\033')" "$TMP/err"; then
		fail "an ESC byte reached stderr"
		return 1
	fi
	expect_grep 'x \[2J\.json' "$TMP/err" || return 1
	expect_exit 2 "$PMCBENCH" run -e "$(printf 'cyc\033[2J')" -- true || return 1
	if LC_ALL=C grep -q "$(printf '\033')" "$TMP/err"; then
		fail "an ESC byte of --events reached stderr"
		return 1
	fi
}

# issue 19, item 6: a full disk is said as such, not as "Input/output error".
test_a_full_disk_is_named() {
	base a.json
	[ -w /dev/full ] || skip "no writable /dev/full"
	expect_exit 2 sh -c "'$PMCBENCH' compare a.json a.json >/dev/full" || return 1
	expect_grep 'No space left on device' "$TMP/err" || return 1
	expect_exit 2 sh -c "'$PMCBENCH' compare --format json a.json a.json >/dev/full" || return 1
	expect_grep 'No space left on device' "$TMP/err"
}

# The headline's metric, one rule (docs/compare.md, "The headline"): the CPU time
# (task-clock, else user+system as cpu-time) unless it is under a fifth of the wall-time,
# when the commands mostly wait and the wall-time answers "which is faster" - unless the
# runs' context switches say they were preempted more often than they blocked.
test_headline_metric_follows_cpu_use() {
	# Sleeps: 0.1 ms of CPU in 10 ms and in 50 ms.
	mkresult a.json 'x::task-clock=1e5,0.01' 'x::wall-time=1e7,0.01'
	mkresult b.json 'x::task-clock=1e5,0.01' 'x::wall-time=5e7,0.01'
	expect_exit 0 "$PMCBENCH" compare a.json b.json || return 1
	expect_grep '^b\.json ran 5\.00x slower than a\.json .*\(wall-time; the commands mostly wait: CPU time < 20%\)$' \
		"$TMP/out" || return 1
	# Busy: 9 ms of CPU in 10 ms.
	mkresult c.json 'x::task-clock=9e6,0.01' 'x::wall-time=1e7,0.01'
	mkresult d.json 'x::task-clock=1.8e7,0.01' 'x::wall-time=5e7,0.01'
	expect_exit 0 "$PMCBENCH" compare c.json d.json || return 1
	expect_grep '^d\.json ran 2\.00x slower than c\.json .*\(task-clock\)$' "$TMP/out" || return 1
	# task-clock denied: cpu-time, not the wall-time.
	mkresult e.json 'x::cpu-time=9e6,0.01@unit=ns' 'x::wall-time=1e7,0.01'
	mkresult f.json 'x::cpu-time=2.7e7,0.01@unit=ns' 'x::wall-time=5e7,0.01'
	expect_exit 0 "$PMCBENCH" compare e.json f.json || return 1
	expect_grep '^f\.json ran 3\.00x slower than e\.json .*\(cpu-time\)$' "$TMP/out" || return 1
	# Busy on a loaded machine: a tenth of a CPU, preempted 30 times a run and blocked
	# once (its exit). The CPU time, which the load does not stretch.
	mkresult g.json switches=1/30 'x::task-clock=1e6,0.01' 'x::wall-time=1e7,0.01'
	mkresult h.json switches=1/30 'x::task-clock=2e6,0.01' 'x::wall-time=2e7,0.01'
	expect_exit 0 "$PMCBENCH" compare g.json h.json || return 1
	expect_grep '^h\.json ran 2\.00x slower than g\.json .*\(task-clock\)$' "$TMP/out" || return 1
	# Sleeps with their counts: blocked twice a run (the sleep, the exit), preempted once.
	mkresult i.json switches=2/1 'x::task-clock=1e5,0.01' 'x::wall-time=1e7,0.01'
	mkresult j.json switches=2/1 'x::task-clock=1e5,0.01' 'x::wall-time=5e7,0.01'
	expect_exit 0 "$PMCBENCH" compare i.json j.json || return 1
	expect_grep '^j\.json ran 5\.00x slower than i\.json .*\(wall-time; the commands mostly wait: CPU time < 20%\)$' \
		"$TMP/out"
}

# The warning of rows without a log scale names them (issue 31).
test_nonpositive_rows_are_named() {
	mkresult a.json 'x::task-clock=2e6,0.01' 'x::system-time=0,0' 'x::cpu-migrations=0,0'
	mkresult b.json 'x::task-clock=2e6,0.01' 'x::system-time=0,0' 'x::cpu-migrations=0,0'
	expect_exit 0 "$PMCBENCH" compare a.json b.json || return 1
	expect_grep '^warning: 2 rows hold zero or negative values \((system-time of x, cpu-migrations of x|cpu-migrations of x, system-time of x)\): ' \
		"$TMP/out"
}
