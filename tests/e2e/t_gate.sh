# End-to-end tests of what `pmcbench gate` judges and when it must refuse (issue 8): equal
# readings are ties, not exact counts; the gate judges the metrics asked for; a limit
# needs a unit and must be finite; mismatched inputs are errors. Result files come from
# mkresult (lib.sh).

# Sets a field of every benchmark ("command") or of the result ("created") in FILE.
set_field() {
	python3 - "$@" <<'EOF'
import json, sys
path, key, value = sys.argv[1:4]
d = json.load(open(path))
if key == "created":
    d["created"] = value
else:
    for b in d["benchmarks"]:
        b[key] = value
json.dump(d, open(path, "w"))
EOF
}

# context-switches 2,2 against 3,3 was "+50% (exact)", a regression: equal readings of a
# software counter are ties, and 2+2 runs can detect nothing.
test_equal_runs_are_not_exact() {
	mkresult a.json 'x::context-switches=2,0,2' 'x::instructions=5e6,0,2@sim'
	mkresult b.json 'x::context-switches=3,0,2' 'x::instructions=5e6,0,2@sim'
	# By default context-switches is not gated; the exact simulated count passes.
	expect_exit 0 "$PMCBENCH" gate --baseline a.json b.json || return 1
	expect_grep '^x .*q=[0-9.]+ n=2\+2 .*inconclusive \(not gated\) \(need >= 4 runs' "$TMP/out" ||
		return 1
	expect_grep '^x .*0% \(exact\) +exact n=2\+2 .*no change$' "$TMP/out" || return 1
	# Named, it is gated: 2+2 runs are too few to judge it, an error rather than a
	# "+50%" regression.
	expect_exit 2 "$PMCBENCH" gate --threshold context-switches=+5% --baseline a.json b.json ||
		return 1
	expect_one_line "$TMP/err" "metric 'context-switches' of 'x' has 2\+2 runs.*need >= 4 runs per side"
}

# A program 92% faster failed the gate through cpus-utilized, which has no direction.
test_gate_judges_what_was_asked() {
	mkresult a.json 'x::wall-time=1e9,0.01' 'x::cpus-utilized=0.5,0.01@unit=CPUs' \
		'x::system-time=1e6,0.01' 'x::task-clock=1e6,0.01'
	mkresult b.json 'x::wall-time=0.08e9,0.01' 'x::cpus-utilized=0.99,0.01@unit=CPUs' \
		'x::system-time=3e6,0.01' 'x::task-clock=1e6,0.01'
	expect_exit 0 "$PMCBENCH" gate --baseline a.json b.json || return 1
	expect_grep '^cpus-utilized \[CPUs, no direction\]' "$TMP/out" || return 1
	expect_grep '^x .* inconclusive \(not gated\) \(changed, but the metric has no direction' \
		"$TMP/out" || return 1
	expect_grep '^x .* regression \(not gated\)$' "$TMP/out" || return 1
	expect_grep '^gate: PASS; 0 regressions, 1 improvement, 1 no change, 0 inconclusive in 2 gated rows; not gated \(2 of 4 rows\): 1 changed, 0 no change, 1 inconclusive$' \
		"$TMP/out" || return 1
	# --threshold names what is gated: the others are reported only.
	mkresult c.json 'x::wall-time=1e9,0.01' 'x::cpus-utilized=0.5,0.01@unit=CPUs' \
		'x::system-time=3e6,0.01' 'x::task-clock=2e6,0.01'
	expect_exit 1 "$PMCBENCH" gate --baseline a.json c.json || return 1
	expect_exit 0 "$PMCBENCH" gate --threshold wall-time=+5% --baseline a.json c.json || return 1
	# Regressions are counted over the gated rows; the others are changes (issue 31).
	expect_grep '^gate: PASS; 0 regressions, 0 improvements, 1 no change, 0 inconclusive in 1 gated row; not gated \(3 of 4 rows\): 2 changed, 1 no change, 0 inconclusive$' \
		"$TMP/out" || return 1
	# A thresholds file that names metrics gates those (and its default the default set).
	printf '{"metrics": {"wall-time": "+5%%"}}\n' >th.json
	expect_exit 0 "$PMCBENCH" gate --thresholds th.json --baseline a.json c.json || return 1
	printf '{"default": "5%%", "metrics": {"wall-time": "+5%%"}}\n' >th2.json
	expect_exit 1 "$PMCBENCH" gate --thresholds th2.json --baseline a.json c.json || return 1
	# A metric without a direction is gated only with a sign that says which way is bad.
	expect_exit 1 "$PMCBENCH" gate --threshold cpus-utilized=+10% --baseline a.json b.json ||
		return 1
	expect_exit 2 "$PMCBENCH" gate --threshold cpus-utilized=10% --baseline a.json b.json ||
		return 1
	expect_one_line "$TMP/err" "cpus-utilized' has no direction.*write \+10% or -10%" || return 1
	# JSON says which rows were gated.
	expect_exit 0 "$PMCBENCH" gate --format json --baseline a.json b.json || return 1
	[ "$(json_get "$TMP/out" '[r["gated"] for m in d["metrics"] for r in m["rows"] if m["id"] == "system-time"][0]')" = False ] ||
		fail "system-time gated" || return 1
	[ "$(json_get "$TMP/out" '[m["better"] for m in d["metrics"] if m["id"] == "cpus-utilized"][0]')" = none ] ||
		fail "cpus-utilized direction"
}

test_only_ungated_metrics_is_an_error() {
	mkresult a.json 'x::context-switches=10,0.1'
	mkresult b.json 'x::context-switches=30,0.1'
	expect_exit 2 "$PMCBENCH" gate --baseline a.json b.json || return 1
	expect_one_line "$TMP/err" "nothing to gate.*--threshold context-switches=\+5%"
}

# task-clock=5 was 5 ns; an overflowing limit was infinite and accepted.
test_threshold_needs_a_unit_and_a_finite_value() {
	mkresult a.json 'x::task-clock=1e6,0.01'
	local c
	for c in "task-clock=5|column 12: '5' has no unit; write 5% for a relative limit, or give an absolute one its unit \(5ns, 5ms" \
		"task-clock=+0.5|'\+0\.5' has no unit; write 0\.5% " \
		"task-clock=1e308G|column 12: '1e308G' is too large" \
		"task-clock=5k|threshold task-clock=5k is a count, but metric 'task-clock' is in ns; give a limit in ns, us, ms or s"; do
		expect_exit 2 "$PMCBENCH" gate --threshold "${c%%|*}" --baseline a.json a.json || return 1
		expect_one_line "$TMP/err" "${c#*|}" || return 1
	done
	printf '{"metrics": {"task-clock": "5"}}\n' >th.json
	expect_exit 2 "$PMCBENCH" gate --thresholds th.json --baseline a.json a.json || return 1
	expect_one_line "$TMP/err" "th\.json: \"5\": column 1: '5' has no unit.*\(at metrics\.\"task-clock\"\)" ||
		return 1
	printf '{"default": "-1e308s"}\n' >th.json
	expect_exit 2 "$PMCBENCH" gate --thresholds th.json --baseline a.json a.json || return 1
	expect_one_line "$TMP/err" "th\.json: \"-1e308s\": column 1: '-1e308s' is too large.*\(at default\)" ||
		return 1
	# With a unit, both work.
	expect_exit 0 "$PMCBENCH" gate --threshold task-clock=5% --baseline a.json a.json || return 1
	expect_exit 0 "$PMCBENCH" gate --threshold task-clock=+5us --baseline a.json a.json
}

test_mismatched_inputs() {
	mkresult a.json 'x::task-clock=1e6,0.01'
	mkresult b.json 'x::task-clock=1e6,0.01'
	set_field a.json command './prog --size 10'
	set_field b.json command './prog --size 20'
	expect_exit 2 "$PMCBENCH" gate --baseline a.json b.json || return 1
	expect_one_line "$TMP/err" "benchmark 'x' ran different commands: '\./prog --size 10' in a\.json, '\./prog --size 20' in b\.json; .*--force" ||
		return 1
	expect_exit 2 "$PMCBENCH" compare a.json b.json || return 1
	expect_exit 0 "$PMCBENCH" gate --force --baseline a.json b.json || return 1
	# Two backends: named, not "every metric lacks values".
	mkresult v.json backend=valgrind 'x::instructions=5e6,0,1@sim'
	expect_exit 2 "$PMCBENCH" gate --baseline a.json v.json || return 1
	expect_one_line "$TMP/err" "a\.json was measured with the perf backend and v\.json with the valgrind backend" ||
		return 1
	# No benchmark in common.
	mkresult y.json 'y::task-clock=1e6,0.01'
	expect_exit 2 "$PMCBENCH" gate --baseline a.json y.json || return 1
	expect_one_line "$TMP/err" "measure different benchmarks \('x' and 'y'\)" || return 1
	# A baseline newer than the new result: a warning, the arguments may be swapped.
	set_field a.json created 2026-03-02T00:00:00Z
	set_field b.json created 2026-03-01T00:00:00Z
	expect_exit 0 "$PMCBENCH" compare --force a.json b.json || return 1
	expect_grep '^warning: a\.json \(the baseline\) was created after b\.json .*are the arguments swapped\?' \
		"$TMP/out"
}

# Marks benchmark NAME of FILE as skipped with REASON (a string, or JSON with json:...):
# no runs, no metrics, as a benchmark program writes it.
skip_bench() {
	python3 - "$@" <<'EOF_PY'
import json, sys
path, name, reason = sys.argv[1:4]
d = json.load(open(path))
for b in d["benchmarks"]:
    if b["name"] == name:
        b["skipped"] = json.loads(reason[5:]) if reason.startswith("json:") else reason
        b["runs"], b["metrics"] = [], {}
json.dump(d, open(path, "w"))
EOF_PY
}

# A benchmark skipped in the new run is named, not judged: the gate decides on the
# benchmarks that ran, and refuses when nothing but skipped ones is in common.
test_skipped_benchmarks_are_named_not_judged() {
	mkresult a.json 'x::task-clock=1e6,0.01' 'avx::task-clock=1e6,0.01'
	mkresult b.json 'x::task-clock=1e6,0.0101' 'avx::task-clock=9e6,0.01'
	skip_bench b.json avx 'no AVX2 on this CPU'
	expect_exit 0 "$PMCBENCH" gate --baseline a.json b.json || return 1
	expect_grep "^warning: benchmark 'avx' \(no AVX2 on this CPU\) was skipped in b.json and is not compared$" "$TMP/out" || return 1
	expect_grep '^gate: PASS; .*; 1 skipped benchmark not compared$' "$TMP/out" || return 1
	expect_no_grep '^avx ' "$TMP/out" || return 1
	mkresult c.json 'avx::task-clock=1e6,0.01'
	expect_exit 2 "$PMCBENCH" gate --baseline c.json b.json || return 1
	expect_one_line "$TMP/err" "nothing to compare: every benchmark in both results was skipped in one of them \(e.g. 'avx' \(no AVX2 on this CPU\) in b.json\)" || return 1
	skip_bench b.json avx 'json:5'
	expect_exit 2 "$PMCBENCH" compare a.json b.json || return 1
	expect_one_line "$TMP/err" '^pmcbench: b.json: benchmarks\[1\].skipped: expected a string \(why the benchmark was skipped\), found a number; regenerate'
}

# Two saved runs of one command (README, "Commands"): each is one invocation, so its times
# cannot be gated; the default set leaves them out, says so, and judges the work counts
# (page faults here), so the gate a user writes first passes. A limit naming a time is
# still refused, and a result of times alone has nothing left to gate: refused too.
test_two_saved_runs_of_a_command() {
	"$PMCBENCH" run -q -r 8 -o base.json -- "$WORK" loop 100000 >/dev/null 2>&1 || fail "run" || return 1
	"$PMCBENCH" run -q -r 8 -o new.json -- "$WORK" loop 100000 >/dev/null 2>&1 || fail "run" || return 1
	if [ "$(json_get base.json '"instructions" in d["benchmarks"][0]["metrics"] and d["benchmarks"][0]["metrics"]["instructions"]["samples"][0] is not None')" = True ]; then
		# With a PMU the default set judges instructions, which do not drift between
		# invocations, and leaves the times out, saying so.
		expect_exit 0 "$PMCBENCH" gate --baseline base.json new.json || return 1
		expect_grep '^warning: [0-9]+ rows \(e\.g\. task-clock\) are not tested, and the gate leaves them out unless a limit names them' \
			"$TMP/out" || return 1
		expect_grep '^instructions ' "$TMP/out" || return 1
	else
		# Without one nothing left stands for the time (page faults do not): refused,
		# never a pass that could not see it.
		expect_exit 2 "$PMCBENCH" gate --baseline base.json new.json || return 1
		expect_one_line "$TMP/err" "metric 'task-clock' of .* cannot be gated against a single invocation.*--backend valgrind" || return 1
	fi
	expect_exit 2 "$PMCBENCH" gate --baseline base.json new.json --threshold task-clock=+5% || return 1
	expect_one_line "$TMP/err" "metric 'task-clock' of .* cannot be gated against a single invocation" || return 1
	expect_exit 2 "$PMCBENCH" gate --metric task-clock --baseline base.json new.json || return 1
	expect_one_line "$TMP/err" "metric 'task-clock' of .* cannot be gated against a single invocation"
}
