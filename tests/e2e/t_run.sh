# End-to-end tests of `pmcbench run` on real commands.

test_help_and_version() {
	expect_exit 0 "$PMCBENCH" --help && expect_grep '^Usage: pmcbench' "$TMP/out" &&
	expect_exit 0 "$PMCBENCH" --version && expect_grep '^pmcbench [0-9]+\.[0-9]+.* \(commit [^)]+\)$' "$TMP/out" &&
	expect_exit 0 "$PMCBENCH" help run && expect_grep 'runs=N' "$TMP/out" &&
	expect_exit 0 "$PMCBENCH" run --help && expect_grep 'timeout=SECONDS' "$TMP/out" &&
	expect_exit 2 "$PMCBENCH" && expect_exit 2 "$PMCBENCH" frobnicate &&
	expect_grep "unknown command 'frobnicate'" "$TMP/err"
}

test_run_writes_result_json() {
	# 16,000 pages (62 MiB): more than pmcbench holds, so that max-rss is the command's.
	expect_exit 0 "$PMCBENCH" run -q -r 5 -o res.json -- "$WORK" touch 16000 || return 1
	[ "$(json_get res.json 'd["schema"]')" = "pmcbench-result/1" ] || fail "schema" || return 1
	[ "$(json_get res.json 'd["backend"]')" = perf ] || fail "backend" || return 1
	[ "$(json_get res.json 'len(d["benchmarks"])')" = 1 ] || fail "one benchmark" || return 1
	[ "$(json_get res.json 'len(d["benchmarks"][0]["runs"])')" = 5 ] || fail "5 runs" || return 1
	# Software events and wait4 figures have one sample per run.
	for m in task-clock page-faults context-switches cpu-migrations wall-time user-time system-time max-rss; do
		[ "$(json_get res.json "len([x for x in d['benchmarks'][0]['metrics']['$m']['samples'] if x is not None])")" = 5 ] ||
			fail "metric $m has not 5 samples" || return 1
	done
	# 16,000 touched pages: at least 16,000 page faults and 62 MiB in every run.
	[ "$(json_get res.json "min(d['benchmarks'][0]['metrics']['page-faults']['samples']) >= 16000")" = True ] ||
		fail "page-faults below 16000" || return 1
	[ "$(json_get res.json "min(d['benchmarks'][0]['metrics']['max-rss']['samples']) >= 16000 * 4096")" = True ] ||
		fail "max-rss below 16000 pages" || return 1
	# The build-id of the measured binary is recorded.
	json_get res.json 'd["benchmarks"][0]["build_id"]' | grep -Eq '^[0-9a-f]{16,}$' || fail "build_id" || return 1
	# The environment fingerprint.
	for k in kernel perf_event_paranoid aslr; do
		json_get res.json "d['environment']['$k']" >/dev/null || fail "env $k" || return 1
	done
}

# A command that needs less memory than pmcbench starts in pmcbench's memory, whose peak
# the kernel keeps across exec in the command's max-rss: that figure is pmcbench's, so it
# is not measured (null) and the report says why, where time(1) would show its own.
test_max_rss_of_a_small_command_is_not_pmcbenchs() {
	expect_exit 0 "$PMCBENCH" run -r 3 -o small.json -- "$WORK" loop 10 || return 1
	[ "$(json_get small.json "d['benchmarks'][0]['metrics']['max-rss']['samples']")" = "[None, None, None]" ] ||
		fail "a small command has a max-rss" || return 1
	json_get small.json "d['benchmarks'][0]['metrics']['max-rss']['note']" |
		grep -q "at or below pmcbench's own" || fail "no note" || return 1
	expect_grep "max-rss +not measured: a run's peak at or below pmcbench's own \\([0-9.]+ MiB\\)" "$TMP/out"
}

test_missing_hardware_counters_are_not_numbers() {
	# On a machine without a PMU the hardware events are unsupported: said once, never
	# stored as numbers. On a machine with one they are counted; both are valid.
	expect_exit 0 "$PMCBENCH" run -r 3 -o res.json -- "$WORK" loop 1000 || return 1
	local status
	# status is one name when every run agrees, else one name per run.
	status=$(json_get res.json "(lambda s: s if isinstance(s, str) else s[0])(d['benchmarks'][0]['metrics']['cycles']['status'])")
	case $status in
	unsupported|denied)
		expect_grep '^pmcbench: note: [0-9]+ events? not counted \(cycles, instructions' "$TMP/err" || return 1
		[ "$(grep -c 'not counted' "$TMP/err")" = 1 ] || fail "note printed more than once" || return 1
		[ "$(json_get res.json "d['benchmarks'][0]['metrics']['cycles']['samples']")" = "[None, None, None]" ] ||
			fail "unsupported cycles stored as numbers" || return 1
		expect_grep 'not supported|not counted|denied' "$TMP/out" || return 1
		# No IPC without cycles and instructions.
		[ "$(json_get res.json "'ipc' in d['benchmarks'][0]['metrics']")" = False ] || fail "ipc invented" ;;
	counted|scaled)
		[ "$(json_get res.json "'ipc' in d['benchmarks'][0]['metrics']")" = True ] || fail "ipc missing" ;;
	*) fail "unexpected status '$status'" ;;
	esac
}

test_require_counters() {
	expect_exit 0 "$PMCBENCH" run -r 1 -e cycles -- "$WORK" loop 10 || return 1
	if grep -q 'not counted' "$TMP/err"; then
		expect_exit 2 "$PMCBENCH" run -r 1 -e cycles --require-counters -- "$WORK" loop 10 &&
		expect_grep 'cannot be counted' "$TMP/err" && expect_lines 1 "$TMP/err"
	else
		# cycles counts here: the option lets the run through.
		expect_exit 0 "$PMCBENCH" run -r 1 -e cycles --require-counters -- "$WORK" loop 10
	fi
}

test_events_option_and_msr() {
	[ -e /sys/bus/event_source/devices/msr/events/tsc ] || skip "no msr/tsc/ event here"
	expect_exit 0 "$PMCBENCH" run -q -r 3 -e '{msr/tsc/,task-clock}' -o res.json -- "$WORK" loop 100000 || return 1
	[ "$(json_get res.json "(lambda s: s if isinstance(s, str) else s[0])(d['benchmarks'][0]['metrics']['msr/tsc/']['status'])")" = counted ] ||
		fail "msr/tsc/ not counted" || return 1
	[ "$(json_get res.json "min(d['benchmarks'][0]['metrics']['msr/tsc/']['samples']) > 0")" = True ] || fail "tsc zero"
}

test_every_unknown_event_in_one_line() {
	expect_exit 2 "$PMCBENCH" run -q -r 1 -e cyles,task-clok,instructions -- true || return 1
	expect_one_line "$TMP/err" "^pmcbench: --events 'cyles,task-clok,instructions': column 1: 2 unknown events: 'cyles' \(did you mean 'cycles'.*\), 'task-clok' at column 7 \(did you mean 'task-clock'\?\)$"
}

test_inherit_counts_children() {
	# Page faults, one per fresh page a child touches, do not depend on the machine's
	# load as a task-clock ratio does: four children touching 2000 pages each make at
	# least 8000 faults, all counted only if the children's counts are inherited; the
	# one-child run makes about a quarter of that.
	local t="'$WORK' touch 2000"
	expect_exit 0 "$PMCBENCH" run -q -r 2 -w 0 -e page-faults --shell -o one.json -c "$t" &&
	expect_exit 0 "$PMCBENCH" run -q -r 2 -w 0 -e page-faults --shell -o four.json \
		-c "$t & $t & $t & $t & wait" || return 1
	local a b
	a=$(json_get one.json "min(d['benchmarks'][0]['metrics']['page-faults']['samples'])")
	b=$(json_get four.json "min(d['benchmarks'][0]['metrics']['page-faults']['samples'])")
	python3 -c "import sys; sys.exit(0 if $b >= 4 * 2000 and $a < 4000 else 1)" ||
		fail "page-faults $b for 4 children vs $a for 1"
}

test_failing_command_is_an_error() {
	expect_exit 2 "$PMCBENCH" run -q -r 3 -e task-clock -- "$WORK" exit 3 &&
	expect_grep "run 1 of '.*pmc-work exit 3' exited with status 3" "$TMP/err" && expect_lines 1 "$TMP/err" &&
	expect_grep "run it with --show-output to see what it said; --ignore-failure records failing runs" "$TMP/err" &&
	expect_exit 2 "$PMCBENCH" run -q -r 2 -w 0 -e task-clock -- "$WORK" kill 9 &&
	expect_grep 'killed by signal 9' "$TMP/err" &&
	expect_exit 0 "$PMCBENCH" run -q -r 2 -e task-clock --ignore-failure -o res.json -- "$WORK" exit 3 &&
	[ "$(json_get res.json "[r['exit_code'] for r in d['benchmarks'][0]['runs']]")" = "[3, 3]" ] || fail "exit codes not recorded"
}

test_timeout_kills_run() {
	expect_exit 2 "$PMCBENCH" run -q -r 1 -w 0 --timeout 0.2 -- "$WORK" sleep 10000 &&
	expect_grep 'timed out and was killed; give it a longer --timeout' "$TMP/err" &&
	expect_no_grep 'show-output' "$TMP/err" &&
	expect_exit 0 "$PMCBENCH" run -q -r 1 -w 0 --timeout 0.2 --ignore-failure -o res.json -- "$WORK" sleep 10000 &&
	[ "$(json_get res.json "d['benchmarks'][0]['runs'][0]['timed_out']")" = True ] || fail "timed_out not recorded"
}

test_input_and_output() {
	printf 'hello from stdin\n' >in.txt
	expect_exit 0 "$PMCBENCH" run -q -r 1 -w 0 --show-output --input in.txt -- "$WORK" echo &&
	expect_grep '^hello from stdin$' "$TMP/out" &&
	expect_exit 0 "$PMCBENCH" run -q -r 1 -w 0 --input in.txt -- "$WORK" echo &&
	expect_no_grep 'hello from stdin' "$TMP/out"
}

test_several_commands_interleaved_and_compared() {
	# 10 rounds: paired, the signed-rank test's smallest p is 2/2^n (0.031 at 6 rounds,
	# which Benjamini-Hochberg over several rows can lift above alpha).
	expect_exit 0 "$PMCBENCH" run -q -r 10 -e page-faults -n small -c "$WORK touch 100" \
		-n big -c "'$WORK' touch 2000" -o res.json || return 1
	[ "$(json_get res.json "[b['name'] for b in d['benchmarks']]")" = "['small', 'big']" ] || fail "names" || return 1
	# The comparison against the first command: 1900 more page faults is a significant
	# increase, far beyond the default 5%.
	expect_grep "^Comparison against the reference 'small'" "$TMP/out" &&
	expect_grep '^big .*regression' "$TMP/out" || return 1
	# --reference 2 turns it around: small against big is an improvement.
	expect_exit 0 "$PMCBENCH" run -q -r 10 -e page-faults -n small -c "$WORK touch 100" \
		-n big -c "$WORK touch 2000" --reference 2 &&
	expect_grep "^Comparison against the reference 'big'" "$TMP/out" &&
	expect_grep '^small .*improvement' "$TMP/out"
}

test_run_takes_comparison_options() {
	expect_exit 0 "$PMCBENCH" run -q -r 6 -e page-faults -o base.json -n w -- "$WORK" touch 100 || return 1
	# Gate on the fly with comparison options before and after other options. The
	# command differs from the baseline's (touch 2000, not 100): --force says it is meant.
	expect_exit 1 "$PMCBENCH" run -q -r 6 --force --no-fdr -e page-faults --threshold page-faults=+10% \
		--alpha=0.05 --metric page-faults --baseline base.json -n w -- "$WORK" touch 2000 &&
	expect_grep 'regression' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" run -q -r 6 --force -e page-faults --threshold 'page-faults=+5000%' \
		--metric page-faults --baseline base.json -n w -- "$WORK" touch 2000 || return 1
	# With --format json stdout stays one JSON document; the verdict goes to stderr.
	expect_exit 1 "$PMCBENCH" run -q -r 6 --force -e page-faults --format=json --threshold page-faults=+10% \
		--metric page-faults --baseline base.json -n w -- "$WORK" touch 2000 &&
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/out" || fail "stdout is not one JSON document" || return 1
	expect_grep 'regression' "$TMP/err"
}

test_interrupt_stops_the_command() {
	# A number of its own, so that another test run on the machine is not mistaken for it.
	local n=$((27000000 + $$)) pid code
	"$PMCBENCH" run -q -r 1 -w 0 -e task-clock -- "$WORK" sleep "$n" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	sleep 0.5
	kill -INT "$pid"
	wait "$pid"
	code=$?
	[ "$code" = 130 ] || fail "exit status $code after SIGINT, expected 130" || return 1
	sleep 0.2
	! pgrep -f "pmc-work slee[p] $n\$" >/dev/null || fail "the measured command survived" || return 1
	expect_grep 'interrupted' "$TMP/err"
}

test_write_failure_is_an_error() {
	[ -w /dev/full ] || skip "no writable /dev/full"
	"$PMCBENCH" run -q -r 1 -e task-clock -- "$WORK" loop 1 >/dev/full 2>"$TMP/err"
	[ $? = 2 ] || fail "writing to a full device did not fail" || return 1
	expect_grep 'standard output' "$TMP/err"
}

test_duplicate_events_are_refused() {
	expect_exit 2 "$PMCBENCH" run -e task-clock,cs,context-switches -- true &&
	expect_grep "'context-switches' is given twice" "$TMP/err" && expect_lines 1 "$TMP/err"
}

test_user_only_counting_is_labelled() {
	# An unprivileged user under perf_event_paranoid >= 2 may count user space only:
	# the metric ids say so (":u") and so does the environment.
	[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null || skip "needs root and setpriv(1) to run as another user"
	[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 2 ] || skip "perf_event_paranoid is below 2"
	chmod 777 "$TMP"
	expect_exit 0 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$PMCBENCH" run -q -r 2 -e task-clock -o "$TMP/u.json" -- "$WORK" loop 10 || return 1
	[ "$(json_get u.json "list(d['benchmarks'][0]['metrics'])[0]")" = "task-clock:u" ] || fail "not labelled :u" || return 1
	[ "$(json_get u.json "d['environment']['counting']")" = user-only ] || fail "counting not user-only" || return 1
	# -q keeps stderr to errors; without it the note says why.
	expect_no_grep 'counting user space only' "$TMP/err" || return 1
	expect_exit 0 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$PMCBENCH" run -r 2 -e task-clock -o "$TMP/u.json" -- "$WORK" loop 10 || return 1
	expect_grep 'counting user space only' "$TMP/err"
}

# issue 19: with -q the note of counters this machine cannot count is left out (the
# report still shows each as not supported); without it, it is said once.
test_quiet_leaves_out_the_counter_note() {
	expect_exit 0 "$PMCBENCH" run -q -r 2 -e 'cycles,task-clock' -- "$WORK" loop 10 || return 1
	expect_no_grep '^pmcbench: note' "$TMP/err" || return 1
	if ! grep -q 'cycles' "$TMP/out"; then
		fail "the report does not show cycles"
		return 1
	fi
	expect_exit 0 "$PMCBENCH" run -r 2 -e 'cycles,task-clock' -- "$WORK" loop 10 || return 1
	if grep -q 'not supported' "$TMP/out"; then
		[ "$(grep -c '^pmcbench: note: .* not counted' "$TMP/err")" = 1 ] ||
			fail "the note is not said once" || return 1
	fi
}

test_shell_option() {
	expect_exit 0 "$PMCBENCH" run -q -r 1 -w 0 --shell --show-output -c "echo a | tr a b" &&
	expect_grep '^b$' "$TMP/out" || return 1
	# The words after "--" as one shell command, whatever their number.
	expect_exit 0 "$PMCBENCH" run -q -r 1 -w 0 --shell --show-output -- 'echo a | tr a c' &&
	expect_grep '^c$' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" run -q -r 1 -w 0 --shell --show-output -- echo d &&
	expect_grep '^d$' "$TMP/out"
}

test_formats() {
	expect_exit 0 "$PMCBENCH" run -q -r 2 -e task-clock --format json -- "$WORK" loop 10 &&
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/out" || fail "json on stdout" || return 1
	expect_exit 0 "$PMCBENCH" run -q -r 2 -e task-clock --format csv -- "$WORK" loop 10 &&
	expect_grep '^benchmark,metric,unit,run,value,status' "$TMP/out" &&
	expect_grep '"?,"?task-clock"?,"?ns"?,2,[0-9.e+]+,"?counted' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" run -q -r 2 -e task-clock --format markdown -- "$WORK" loop 10 &&
	expect_grep '^\|' "$TMP/out"
}

test_bad_input_exits_2_with_one_line() {
	expect_exit 2 "$PMCBENCH" run -r 0 -- true && expect_lines 1 "$TMP/err" || return 1
	expect_exit 2 "$PMCBENCH" run -r abc -- true && expect_grep "not a whole number" "$TMP/err" || return 1
	expect_exit 2 "$PMCBENCH" run --timeout -1 -- true && expect_lines 1 "$TMP/err" || return 1
	expect_exit 2 "$PMCBENCH" run -e 'cycels' -- true && expect_grep "column 1" "$TMP/err" &&
		expect_grep "cycles" "$TMP/err" && expect_lines 1 "$TMP/err" || return 1
	expect_exit 2 "$PMCBENCH" run -e '{cycles,instructions' -- true && expect_grep "column" "$TMP/err" || return 1
	expect_exit 2 "$PMCBENCH" run -- pmc-no-such-command && expect_grep "command not found" "$TMP/err" &&
		expect_lines 1 "$TMP/err" || return 1
	touch notexec
	expect_exit 2 "$PMCBENCH" run -- ./notexec && expect_grep "not executable" "$TMP/err" || return 1
	expect_exit 2 "$PMCBENCH" run && expect_grep "no command" "$TMP/err" || return 1
	expect_exit 2 "$PMCBENCH" run --input /nonexistent -- true && expect_lines 1 "$TMP/err" || return 1
	expect_exit 2 "$PMCBENCH" run --frob -- true && expect_grep "unknown option '--frob'" "$TMP/err" || return 1
	expect_exit 2 "$PMCBENCH" run -c "echo 'unterminated" && expect_grep "column 6" "$TMP/err" || return 1
	expect_exit 2 "$PMCBENCH" run --format xml -- true && expect_lines 1 "$TMP/err" || return 1
	expect_exit 2 "$PMCBENCH" run -o /nonexistent-dir/x.json -- true && expect_lines 1 "$TMP/err"
}

test_output_is_atomic_and_kept_on_failure() {
	mkdir d && cd d || return 1
	echo '{"precious": true}' >res.json
	# A failing run must not touch an existing result file.
	expect_exit 2 "$PMCBENCH" run -q -r 1 -o res.json -- "$WORK" exit 1 &&
	expect_grep precious res.json &&
	expect_exit 0 "$PMCBENCH" run -q -r 1 -o res.json -- "$WORK" exit 0 &&
	expect_no_grep precious res.json &&
	[ "$(ls -A | grep -v '^res.json$' | grep -c .)" = 0 ] || fail "temporary files left: $(ls -A)"
}

test_list_and_doctor() {
	expect_exit 0 "$PMCBENCH" list && expect_grep 'task-clock' "$TMP/out" && expect_grep 'cycles' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" doctor && [ -s "$TMP/out" ] || fail "doctor printed nothing"
}

test_cli_reference_matches_help() {
	# docs/cli.md holds every command's help text; it must not drift from the binary.
	local doc here
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	doc=$here/../../docs/cli.md
	# Every command of `pmcbench --help`, so that a new one cannot be left out.
	"$PMCBENCH" --help >commands.txt || return 1
	for c in $(sed -nE 's/^  ([a-z]+) +.*/\1/p' commands.txt | grep -vx help); do
		"$PMCBENCH" help "$c" >help.txt || return 1
		python3 - "$doc" help.txt "$c" <<'PY' || fail "docs/cli.md is out of date for '$c': regenerate it" || return 1
import sys
doc, help_text, cmd = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3]
sys.exit(0 if help_text in doc else 1)
PY
	done
}

test_stats_option_prints_every_summary() {
	expect_exit 0 "$PMCBENCH" run -q -r 6 -e page-faults --stats -- "$WORK" touch 100 || return 1
	expect_grep '^metric +unit +n +mean +stddev +median +ci-low +ci-high +MAD +min +max +CV%$' "$TMP/out" &&
	expect_grep '^page-faults +count +6 ' "$TMP/out" &&
	expect_no_grep 'nan|inf' "$TMP/out"
}

test_command_environment_is_normalized() {
	# The perf backend runs commands with the same normalized environment as valgrind.
	expect_exit 0 env PMC_X=1 LC_ALL=de_DE.UTF-8 "$PMCBENCH" run -q -r 1 -w 0 -e task-clock --shell -o res.json \
		-c 'test -z "${PMC_X+set}" && test "$LC_ALL" = C && test -n "$PATH"' &&
	json_get res.json "d['environment']['target-env']" | grep -q '^normalized: ' ||
		fail "target-env not recorded" || return 1
	expect_exit 0 env PMC_X=1 "$PMCBENCH" run -q -r 1 -w 0 -e task-clock --shell --env-keep PMC_X \
		-c 'test "$PMC_X" = 1' &&
	expect_exit 0 env PMC_X=1 "$PMCBENCH" run -q -r 1 -w 0 -e task-clock --shell --env-inherit -o inh.json \
		-c 'test "$PMC_X" = 1' &&
	json_get inh.json "d['environment']['target-env']" | grep -q '^inherited: ' || fail "inherited not recorded"
}

# Several commands are run in rounds, recorded as such, and compared round by round
# (docs/compare.md, "Paired"); --unpaired compares them as independent samples.
test_run_rounds_are_recorded_and_paired() {
	expect_exit 0 "$PMCBENCH" run -n a -c "$WORK loop 1000" -n b -c "$WORK loop 2000" -r 6 \
		-e task-clock -q -o r.json --report rep.txt || return 1
	[ "$(json_get r.json 'd["design"]')" = "{'mode': 'interleaved', 'rounds': 6}" ] ||
		fail "design should be interleaved, 6 rounds" || return 1
	[ "$(json_get r.json '[r["round"] for b in d["benchmarks"] for r in b["runs"]]')" = \
		"[1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6]" ] || fail "each run's round" || return 1
	expect_grep ' 6 pairs ' rep.txt || return 1
	expect_grep 'Wilcoxon signed-rank' rep.txt || return 1
	expect_exit 0 "$PMCBENCH" run -n a -c "$WORK loop 1000" -n b -c "$WORK loop 2000" -r 6 \
		-e task-clock -q --unpaired --all --report rep2.txt || return 1
	expect_grep ' n=6\+6 ' rep2.txt || return 1
	expect_no_grep 'pairs' rep2.txt || return 1
	# One command has nothing to pair.
	expect_exit 2 "$PMCBENCH" run --unpaired -- "$WORK" loop 10 || return 1
	expect_one_line "$TMP/err" 'give two or more'
}

# --runs auto: rounds until the sequential rule decides every limit's metric
# (docs/compare.md, "Sequential"). Twice the work is a regression past +5% whatever the
# machine's load, since each round's two runs share it.
test_run_sequential_decides_and_gates() {
	expect_exit 1 "$PMCBENCH" run -n A -c "$WORK loop 20000000" -n B -c "$WORK loop 40000000" \
		-r auto --threshold task-clock=+5% --gate -e task-clock -q -o s.json || return 1
	expect_grep '^  B task-clock: .* limit \+5%: regression$' "$TMP/out" || return 1
	expect_grep '^gate: FAIL \(regression\)' "$TMP/out" || return 1
	python3 - s.json <<'PY' || fail "the design should say how many rounds ran and why" || return 1
import json, sys
d = json.load(open(sys.argv[1]))["design"]
n = d["rounds"]
assert 8 <= n < 100 and d["stopped"] == "decided after %d rounds" % n, d
assert all(len(b["runs"]) == n for b in json.load(open(sys.argv[1]))["benchmarks"])
PY
	# Without --gate the decision is reported and run exits 0.
	expect_exit 0 "$PMCBENCH" run -n A -c "$WORK loop 20000000" -n B -c "$WORK loop 40000000" \
		-r auto --threshold task-clock=+5% -e task-clock -q || return 1
	expect_grep 'Sequential decision \(--runs auto\): decided after' "$TMP/out"
}

test_run_sequential_bad_options_exit_2() {
	local two=(-c "$WORK loop 10" -c "$WORK loop 20")
	expect_exit 2 "$PMCBENCH" run -r auto --threshold task-clock=+5% -- "$WORK" loop 10 || return 1
	expect_one_line "$TMP/err" '--runs auto compares several commands' || return 1
	expect_exit 2 "$PMCBENCH" run "${two[@]}" -r auto || return 1
	expect_one_line "$TMP/err" 'name the metrics to decide with --threshold' || return 1
	expect_exit 2 "$PMCBENCH" run "${two[@]}" -r auto --threshold task-clock=+2ms || return 1
	expect_one_line "$TMP/err" 'give the limit in %' || return 1
	expect_exit 2 "$PMCBENCH" run "${two[@]}" -r auto --threshold task-clock=+5% --max-runs 5 || return 1
	expect_one_line "$TMP/err" 'cannot decide before round 8' || return 1
	expect_exit 2 "$PMCBENCH" run "${two[@]}" --max-runs 20 || return 1
	expect_one_line "$TMP/err" 'give -r auto too' || return 1
	expect_exit 2 "$PMCBENCH" run "${two[@]}" -r auto --threshold instructions=+1% --backend valgrind || return 1
	expect_one_line "$TMP/err" 'exact, one run decides' || return 1
	expect_exit 2 "$PMCBENCH" run --gate -- "$WORK" loop 10 || return 1
	expect_one_line "$TMP/err" '--gate compares several commands' || return 1
	# A limit on a metric that is not measured never passes undecided: an error after
	# the first round.
	expect_exit 2 "$PMCBENCH" run "${two[@]}" -r auto --threshold page-faults=+5% --gate \
		-e task-clock || return 1
	expect_one_line "$TMP/err" "has no value of page-faults in round 1"
}

# The first two CPUs this shell may use, as "c0,c1", or nothing with fewer.
duet_cpus() {
	python3 -c 'import os; c = sorted(os.sched_getaffinity(0)); print("%d,%d" % tuple(c[:2]) if len(c) > 1 else "")'
}

test_duet_records_rounds_and_cpus() {
	local cpus c0 c1
	cpus=$(duet_cpus)
	[ -n "$cpus" ] || skip "one CPU: no --duet"
	c0=${cpus%,*} c1=${cpus#*,}
	expect_exit 0 "$PMCBENCH" run -q --duet -r 3 -e task-clock,page-faults -o d.json \
		-n small -c "$WORK touch 100" -n big -c "$WORK touch 2000" || return 1
	[ "$(json_get d.json "d['design']['mode'], d['design']['rounds'], d['design']['cpus']")" = "('duet', 3, [$c0, $c1])" ] ||
		fail "design: $(json_get d.json "d.get('design')")" || return 1
	# Round r: the first command on the first CPU when r is odd, on the second when even.
	[ "$(json_get d.json "[(r['round'], r['cpu']) for r in d['benchmarks'][0]['runs']]")" = "[(1, $c0), (2, $c1), (3, $c0)]" ] &&
	[ "$(json_get d.json "[(r['round'], r['cpu']) for r in d['benchmarks'][1]['runs']]")" = "[(1, $c1), (2, $c0), (3, $c1)]" ] ||
		fail "rounds and CPUs: $(json_get d.json "[b['runs'] for b in d['benchmarks']]")" || return 1
	# Each command's counts are its own: 2000 fresh pages fault 2000 times.
	[ "$(json_get d.json "min(d['benchmarks'][1]['metrics']['page-faults']['samples']) >= 2000 > max(d['benchmarks'][0]['metrics']['page-faults']['samples'])")" = True ] ||
		fail "page-faults mixed up" || return 1
	# The result loads again, and compares.
	expect_exit 0 "$PMCBENCH" compare d.json d.json
}

test_duet_runs_both_at_once() {
	# Each command opens one end of a named pipe, which blocks until the other end is
	# open: they finish only when run at the same time (the timeout is a guard).
	[ -n "$(duet_cpus)" ] || skip "one CPU: no --duet"
	mkfifo meet || return 1
	expect_exit 0 "$PMCBENCH" run -q --duet -r 3 -w 2 --timeout 30 -e task-clock \
		-c "$WORK meet meet w" -c "$WORK meet meet r" || return 1
	expect_exit 2 "$PMCBENCH" run -q -r 1 -w 0 --timeout 0.3 -e task-clock \
		-c "$WORK meet meet w" -c "$WORK meet meet r" && expect_grep 'timed out' "$TMP/err"
}

test_duet_errors_exit_2() {
	expect_exit 2 "$PMCBENCH" run --duet -c "$WORK exit 0" && expect_lines 1 "$TMP/err" &&
	expect_grep 'give exactly two \(-c A -c B\), not 1' "$TMP/err" || return 1
	expect_exit 2 "$PMCBENCH" run --duet -- "$WORK" exit 0 && expect_grep 'not 1' "$TMP/err" || return 1
	expect_exit 2 "$PMCBENCH" run --duet -c true -c true -c true && expect_lines 1 "$TMP/err" &&
	expect_grep 'not 3' "$TMP/err" || return 1
	expect_exit 2 "$PMCBENCH" run --duet --backend valgrind -c true -c false && expect_lines 1 "$TMP/err" &&
	expect_grep '--duet does not apply to --backend valgrind' "$TMP/err" || return 1
	command -v taskset >/dev/null || skip "no taskset(1): --duet on one CPU is not tested"
	local c0
	c0=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')
	expect_exit 2 taskset -c "$c0" "$PMCBENCH" run --duet -c true -c true && expect_lines 1 "$TMP/err" &&
	expect_grep '--duet needs two CPUs; this process may use 1 \(taskset/cgroup\)' "$TMP/err"
}

test_duet_failure_is_an_error() {
	[ -n "$(duet_cpus)" ] || skip "one CPU: no --duet"
	expect_exit 2 "$PMCBENCH" run -q --duet -r 2 -e task-clock -c "$WORK exit 0" -c "$WORK exit 3" &&
	expect_grep "warm-up run 1 of '.*pmc-work exit 3' exited with status 3" "$TMP/err" &&
	expect_lines 1 "$TMP/err" || return 1
	expect_exit 0 "$PMCBENCH" run -q --duet -r 2 -e task-clock --ignore-failure -o d.json \
		-c "$WORK exit 0" -c "$WORK exit 3" &&
	[ "$(json_get d.json "[[r['exit_code'] for r in b['runs']] for b in d['benchmarks']]")" = "[[0, 0], [3, 3]]" ] ||
		fail "exit codes not recorded"
}

test_duet_interrupt_stops_both() {
	# Commands that would sleep for 11 days: pmcbench exits only if it stops both.
	[ -n "$(duet_cpus)" ] || skip "one CPU: no --duet"
	# Numbers of their own, so that another test run on the machine is not mistaken for it.
	local n=$((900000000 + $$ * 10)) pid code i
	local pat="^$WORK slee[p] ($((n + 1))|$((n + 2)))\$"
	"$PMCBENCH" run -q --duet -r 1 -w 0 -e task-clock -c "$WORK sleep $((n + 1))" \
		-c "$WORK sleep $((n + 2))" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	# Until both commands run (anchored: pmcbench's own command line names them too).
	for i in $(seq 600); do
		[ "$(pgrep -fc "$pat")" = 2 ] && break
		sleep 0.05
	done
	[ "$(pgrep -fc "$pat")" = 2 ] || { kill -9 "$pid"; pkill -9 -f "$pat"; fail "the commands never started"; return 1; }
	kill -INT "$pid"
	# A guard, not a measurement: a pmcbench that left one command running would wait
	# for it for days.
	for i in $(seq 600); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -9 "$pid"; pkill -9 -f "$pat"
		fail "pmcbench still waits 30 s after SIGINT: a command was not stopped"
		return 1
	fi
	wait "$pid"
	code=$?
	[ "$code" = 130 ] || fail "exit status $code after SIGINT, expected 130" || return 1
	# Both children were killed and reaped before pmcbench exited.
	! pgrep -f "$pat" >/dev/null || fail "a measured command survived" || return 1
	expect_grep 'interrupted' "$TMP/err"
}

# run -c A -c B: the headline is the first line, once, on a time metric (whether the
# two differ significantly here is up to the machine, so either wording passes). Four
# rounds cannot decide (the signed-rank test's smallest p is 2/16): the headline says so
# and what it needs, never "no significant difference" (issue 18, item 4).
test_run_headline_first() {
	expect_exit 0 "$PMCBENCH" run -q -r 4 -n one -c true -n two -c true || return 1
	head -n 1 "$TMP/out" >"$TMP/first"
	expect_grep '^undecided between two and one: [0-9.]+x \((task-clock|wall-time), paired(; the commands mostly wait: CPU time < 20%)?\); need >= [0-9]+ rounds to detect a difference at alpha=0\.05( among [0-9]+ gated tests)?$' \
		"$TMP/first" || return 1
	[ "$(grep -Ec ' ran .* than |^no significant difference|^undecided between' "$TMP/out")" = 1 ] ||
		fail "the headline is not printed exactly once" || return 1
	expect_exit 0 "$PMCBENCH" run -q -r 10 -n one -c true -n two -c true || return 1
	head -n 1 "$TMP/out" >"$TMP/first"
	expect_grep '^(two ran [0-9.]+x (slower|faster) than one|no significant difference between two and one: [0-9.]+x)( \[[0-9.]+x, [0-9.]+x\])? \((task-clock|wall-time)(, paired)?(; the commands mostly wait: CPU time < 20%)?\)(; not significant among [0-9]+ tests \(q=[0-9.e-]+\))?$' \
		"$TMP/first" || return 1
	# With a document on stdout there is no headline in it.
	expect_exit 0 "$PMCBENCH" run -q -r 4 --format json -c true -c 'true 1' || return 1
	expect_no_grep ' ran .* than |^no significant difference|^undecided' "$TMP/out"
}

# -n names the command that follows it; one left without a command is an error.
test_name_goes_before_its_command() {
	expect_exit 0 "$PMCBENCH" run -q -r 2 -e task-clock -c true -n nb -c 'true 1' -o r.json ||
		return 1
	[ "$(json_get r.json "[b['name'] for b in d['benchmarks']]")" = "['true', 'nb']" ] ||
		fail "names: $(json_get r.json "[b['name'] for b in d['benchmarks']]")" || return 1
	expect_exit 2 "$PMCBENCH" run -q -r 2 -c true -c 'true 1' -n late &&
	expect_grep "-n 'late' names the command that follows it" "$TMP/err" || return 1
	expect_exit 2 "$PMCBENCH" run -q -r 2 -n a -n b -c true &&
	expect_grep "-n 'b' follows -n 'a'" "$TMP/err" || return 1
	expect_exit 0 "$PMCBENCH" run -q -r 2 -e task-clock -n solo -o s.json -- true || return 1
	[ "$(json_get s.json "d['benchmarks'][0]['name']")" = solo ] || fail "solo name"
}

test_run_ascii_in_the_c_locale() {
	LC_ALL=C "$PMCBENCH" run -q -r 3 -e task-clock -c true -c 'true 1' >c.txt 2>/dev/null ||
		fail "run failed" || return 1
	LC_ALL=C grep -qP '[^\x00-\x7F]' c.txt && { fail "non-ASCII bytes in the C locale"; return 1; }
	expect_grep 'task-clock +\+- ' c.txt
}

# The progress line: on a terminal (a pseudo-terminal through script), the run count and
# the running median; with stderr in a file, none for a run this short (a log gets one
# line every 10 s). Nothing here depends on how long the runs take.
test_progress_on_a_terminal_only() {
	command -v script >/dev/null || skip "no script(1): progress on a terminal is not tested"
	script -qec "'$PMCBENCH' run -r 3 -e task-clock -n aa -c true >/dev/null" /dev/null \
		>tty.txt </dev/null || fail "run on a pseudo-terminal failed" || return 1
	# The headline's metric (docs/compare.md, "The headline"): task-clock, or the
	# wall-time when the machine is so loaded that true's runs wait more than they work.
	expect_grep 'run 3/3: aa, median [0-9.]+ ?[a-z]+ (task-clock|wall-time)' tty.txt || return 1
	expect_exit 0 "$PMCBENCH" run -r 3 -e task-clock -n aa -c true || return 1
	expect_no_grep 'run [0-9]+/3' "$TMP/err" || return 1
	script -qec "'$PMCBENCH' run -q -r 3 -e task-clock -n aa -c true >/dev/null" /dev/null \
		>tty.txt </dev/null || fail "run -q failed" || return 1
	expect_no_grep 'run [0-9]+/3' tty.txt
}

# Options that would do nothing are errors; shell syntax without --shell is one warning.
test_options_that_do_nothing_are_errors() {
	expect_exit 2 "$PMCBENCH" run -q -r 2 --threshold task-clock=5% -c true &&
	expect_grep '^pmcbench: --threshold judges a comparison' "$TMP/err" || return 1
	expect_exit 2 "$PMCBENCH" run -q -r 2 --metric task-clock -- true &&
	expect_grep '^pmcbench: --metric judges a comparison' "$TMP/err" || return 1
	expect_exit 2 "$PMCBENCH" run -q -r 2 --valgrind-tool cachegrind -c true &&
	expect_grep '^pmcbench: --valgrind-tool .* without --backend valgrind' "$TMP/err" || return 1
	# --color is how to show, not what to judge: accepted with one command.
	expect_exit 0 "$PMCBENCH" run -q -r 2 -e task-clock --color=never -c true || return 1
	expect_exit 0 "$PMCBENCH" run -q -r 2 -e task-clock -c 'true | cat' -c 'true 1 && 2' || return 1
	expect_lines 1 "$TMP/err" || return 1
	expect_grep "^pmcbench: warning: -c 'true \| cat' holds shell syntax \('\|'\)" "$TMP/err" || return 1
	expect_exit 0 "$PMCBENCH" run -q -r 2 -e task-clock --shell -c 'true | cat' || return 1
	expect_no_grep 'shell syntax' "$TMP/err"
}

# The run table: ± is the CV (its footer says so) and a min … max column beside it.
test_run_table_min_max() {
	expect_exit 0 "$PMCBENCH" run -q -r 3 -e task-clock,page-faults -c true || return 1
	expect_grep '^ +[0-9.]+ [mun]?s +task-clock +± [0-9.]+% +[0-9.]+[mun]?s … [0-9.]+[mun]?s' \
		"$TMP/out" || return 1
	# A kernel count the same in every run says so instead (docs/metrics.md, "Identical runs").
	expect_grep '^ +[0-9.]+ +page-faults +(± [0-9.]+% +[0-9]+ … [0-9]+|= +identical in 3 runs)$' "$TMP/out" || return 1
	expect_grep '± is the coefficient of variation' "$TMP/out" || return 1
	expect_grep '^  min … max: the smallest and the largest value over the runs\.$' "$TMP/out"
}

# -d, -dd, -ddd (perf stat's detailed cache events, docs/events.md "Presets"): counted
# besides the default or -e's events; without a hardware PMU (no cpu PMU in sysfs, as
# on our VMs) said once in one note line, and the run goes on with what counts.
test_run_detailed_presets() {
	expect_exit 0 "$PMCBENCH" run -r 2 -dd -e task-clock -o d.json -- true || return 1
	json_get d.json 'sorted(d["benchmarks"][0]["metrics"])' >got || return 1
	for ev in L1-dcache-loads L1-dcache-load-misses LLC-loads LLC-load-misses \
		L1-icache-loads L1-icache-load-misses dTLB-loads dTLB-load-misses iTLB-loads iTLB-load-misses task-clock; do
		expect_grep "'$ev'" got || return 1
	done
	expect_no_grep "prefetch|'cycles'" got || return 1
	[ "$(json_get d.json 'd["benchmarks"][0]["metrics"]["task-clock"]["samples"][0] > 0')" = True ] ||
		{ fail "task-clock not measured beside -dd"; return 1; }
	if ! ls -d /sys/bus/event_source/devices/cpu* >/dev/null 2>&1; then
		expect_lines 1 "$TMP/err" || return 1
		expect_grep "^pmcbench: note: 10 events not counted \(L1-dcache-loads, .*, iTLB-load-misses\): no hardware PMU" "$TMP/err" || return 1
		expect_grep "<not supported> +L1-dcache-loads, L1-dcache-load-misses, .*, iTLB-load-misses: unsupported \(ENOENT\)$" "$TMP/out" || return 1
	fi
	# -ddd adds the prefetches; -d alone beside the default events.
	expect_exit 0 "$PMCBENCH" run -r 1 -ddd -e task-clock -o d3.json -- true || return 1
	json_get d3.json 'sorted(d["benchmarks"][0]["metrics"])' >got || return 1
	for ev in L1-dcache-prefetches L1-dcache-prefetch-misses iTLB-loads LLC-loads; do
		expect_grep "'$ev'" got || return 1
	done
	expect_exit 0 "$PMCBENCH" run -r 1 --detailed -o d1.json -- true || return 1
	json_get d1.json 'sorted(d["benchmarks"][0]["metrics"])' >got || return 1
	expect_grep "'LLC-load-misses'" got || return 1
	expect_grep "'cycles'" got || return 1
	expect_no_grep "icache" got || return 1
}

# run --baseline --format markdown: the gate's report follows run's format (README).
test_run_baseline_markdown() {
	expect_exit 0 "$PMCBENCH" run -q -r 4 -e page-faults -o b.json -n w -- "$WORK" touch 10 || return 1
	expect_exit 0 "$PMCBENCH" run -q -r 4 -e page-faults --baseline b.json --format markdown \
		--threshold page-faults=+50% --metric page-faults -n w -- "$WORK" touch 10 || return 1
	expect_grep '^## pmcbench gate: PASS' "$TMP/out" || return 1
	expect_no_grep '^benchmark +b\.json' "$TMP/out"
}

# issue 19: hyperfine's --setup, --prepare and --cleanup: unmeasured shell commands, once
# before each command's runs, before every run, once after them; a failing one is an
# error naming it; not with --duet.
test_setup_prepare_cleanup() {
	expect_exit 0 "$PMCBENCH" run -q -r 3 -w 1 -e task-clock -n a -c true -n b -c 'true 1' \
		--setup "echo setup >> $TMP/log" --prepare "echo prepare >> $TMP/log" \
		--cleanup "echo cleanup >> $TMP/log" || return 1
	[ "$(grep -c '^setup$' "$TMP/log")" = 2 ] || fail "setup: $(grep -c setup "$TMP/log") times" || return 1
	[ "$(grep -c '^prepare$' "$TMP/log")" = 8 ] || fail "prepare: $(grep -c prepare "$TMP/log") times" || return 1
	[ "$(grep -c '^cleanup$' "$TMP/log")" = 2 ] || fail "cleanup: $(grep -c cleanup "$TMP/log") times" || return 1
	# setup comes first and cleanup last.
	[ "$(head -n 1 "$TMP/log")" = setup ] && [ "$(tail -n 1 "$TMP/log")" = cleanup ] ||
		fail "order: $(tr '\n' ' ' < "$TMP/log")" || return 1
	expect_exit 2 "$PMCBENCH" run -q -r 2 --prepare 'exit 3' -- true || return 1
	expect_one_line "$TMP/err" "^pmcbench: --prepare 'exit 3' for 'true' exited with status 3" || return 1
	expect_exit 2 "$PMCBENCH" run -q -r 2 --duet --prepare true -c true -c true || return 1
	expect_one_line "$TMP/err" "--prepare does not go with --duet"
}

test_failing_command_shows_the_end_of_its_stderr() {
	expect_exit 2 "$PMCBENCH" run -q -r 2 -e task-clock -- sh -c 'echo boom >&2; exit 3' || return 1
	expect_grep "^pmcbench: warm-up run 1 of 'sh -c echo boom >&2; exit 3' exited with status 3; run it with --show-output" "$TMP/err" &&
	expect_grep "^pmcbench: its standard error said:$" "$TMP/err" &&
	expect_grep "^  boom$" "$TMP/err" && expect_lines 3 "$TMP/err" || return 1
	# The runs before the failing one wrote too: only its own words are shown (the memory
	# file is reused from run to run).
	expect_exit 2 "$PMCBENCH" run -q -r 3 -w 0 -e task-clock -- \
		sh -c 'n=$(($(cat n 2>/dev/null || echo 0) + 1)); echo $n > n; echo "run $n said" >&2; [ $n -lt 3 ] || exit 3' || return 1
	expect_grep "^pmcbench: measured run 3 of" "$TMP/err" && expect_grep "^pmcbench: its standard error said:$" "$TMP/err" &&
	expect_grep "^  run 3 said$" "$TMP/err" && expect_lines 3 "$TMP/err" || return 1
	# Long output: its last ten lines, with the size of all of it; no control byte.
	expect_exit 2 "$PMCBENCH" run -q -r 2 -e task-clock -- \
		sh -c 'seq 1 5000 >&2; printf "\033]0;title\007x\n" >&2; exit 3' || return 1
	expect_grep "^pmcbench: the last 10 lines of its standard error \($(( $(seq 1 5000 | wc -c) + 12 )) bytes in all; --show-output shows them\):$" "$TMP/err" &&
	expect_grep "^  4992$" "$TMP/err" && expect_no_grep "^  4991$" "$TMP/err" &&
	expect_grep "^   \]0;title x$" "$TMP/err" && expect_lines 12 "$TMP/err" || return 1
	if LC_ALL=C grep -q "$(printf '[\033\007]')" "$TMP/err"; then fail "a control byte reached stderr"; return 1; fi
	# Hundreds of megabytes on stderr neither block the command nor fill the memory.
	expect_exit 2 timeout 60 "$PMCBENCH" run -q -r 1 -w 0 -e task-clock -- \
		sh -c 'yes abcdefg | head -c 300000000 >&2; echo last words >&2; exit 4' || return 1
	expect_grep "^  last words$" "$TMP/err" && expect_grep "\(300000011 bytes in all" "$TMP/err" || return 1
	expect_exit 0 timeout 60 "$PMCBENCH" run -q -r 2 -w 0 -e task-clock -- \
		sh -c 'head -c 300000000 /dev/zero >&2' || return 1
	# One long line: its end. A failing --prepare shows its stderr too.
	expect_exit 2 "$PMCBENCH" run -q -r 1 -w 0 -e task-clock -- sh -c 'printf "%05000d" 7 >&2; exit 1' &&
	expect_grep "^pmcbench: the end of its standard error \(5000 bytes in all" "$TMP/err" &&
	expect_grep "^  \.\.\.0+7$" "$TMP/err" || return 1
	expect_exit 2 "$PMCBENCH" run -q -r 1 -e task-clock --prepare 'echo cannot prepare >&2; exit 1' -- true &&
	expect_grep "^  cannot prepare$" "$TMP/err" || return 1
	# What was shown is not repeated.
	expect_exit 2 "$PMCBENCH" run -q -r 1 -e task-clock --show-output -- sh -c 'echo boom >&2; exit 3' &&
	expect_lines 2 "$TMP/err" && expect_grep "^boom$" "$TMP/err"
}

test_parameter_list_expands_commands() {
	expect_exit 0 "$PMCBENCH" run -q -r 1 -w 0 -e task-clock -L n 1,10,100 -o res.json -- sh -c 'exit 0 # {n}' || return 1
	[ "$(json_get res.json "[b['name'] for b in d['benchmarks']]")" = "['sh -c exit 0 # 1', 'sh -c exit 0 # 10', 'sh -c exit 0 # 100']" ] ||
		fail "names: $(json_get res.json "[b['name'] for b in d['benchmarks']]")" || return 1
	[ "$(json_get res.json "[b['parameters'] for b in d['benchmarks']]")" = "[{'n': '1'}, {'n': '10'}, {'n': '100'}]" ] ||
		fail "parameters: $(json_get res.json "[b.get('parameters') for b in d['benchmarks']]")" || return 1
	# The file loads back, parameters and all.
	expect_exit 0 "$PMCBENCH" compare res.json res.json || return 1
	# Several: every combination, a command's together, the last parameter fastest;
	# substituted in -n names, --setup and --prepare too (their log says which ran).
	expect_exit 0 "$PMCBENCH" run -q -r 2 -w 0 -e task-clock -L m a,b -P n 1 2 \
		-n 'x{m}{n}' -c "$WORK exit 0" -n 'y{n}{m}' -c "$WORK exit 0 {m}" \
		--setup "echo s{m}{n} >> $TMP/log" --prepare "echo p{m}{n} >> $TMP/log" -o two.json || return 1
	[ "$(json_get two.json "[b['name'] for b in d['benchmarks']]")" = "['xa1', 'xa2', 'xb1', 'xb2', 'y1a', 'y2a', 'y1b', 'y2b']" ] ||
		fail "names: $(json_get two.json "[b['name'] for b in d['benchmarks']]")" || return 1
	[ "$(json_get two.json "[b['parameters'] for b in d['benchmarks']][5]")" = "{'m': 'a', 'n': '2'}" ] ||
		fail "parameters: $(json_get two.json "[b['parameters'] for b in d['benchmarks']]")" || return 1
	[ "$(json_get two.json "d['benchmarks'][6]['command']")" = "$WORK exit 0 b" ] || fail "command not substituted" || return 1
	[ "$(grep -c '^sa2$' "$TMP/log")" = 2 ] && [ "$(grep -c '^pb1$' "$TMP/log")" = 4 ] &&
		[ "$(wc -l < "$TMP/log")" = 24 ] || fail "setup/prepare: $(sort "$TMP/log" | uniq -c | tr '\n' ' ')" || return 1
	# A scan with a fractional step: every value with as many decimals.
	expect_exit 0 "$PMCBENCH" run -q -r 1 -w 0 -e task-clock --parameter-scan t 0 0.5 \
		--parameter-step-size 0.25 -o scan.json -- "$WORK" exit 0 '{t}' || return 1
	[ "$(json_get scan.json "[b['parameters']['t'] for b in d['benchmarks']]")" = "['0.00', '0.25', '0.50']" ] ||
		fail "scan: $(json_get scan.json "[b['name'] for b in d['benchmarks']]")"
}

test_parameter_errors_exit_2() {
	local spec
	while IFS='|' read -r spec want; do
		# shellcheck disable=SC2086 # spec is a list of options
		expect_exit 2 "$PMCBENCH" run -q -r 1 $spec -- echo '{n}' || { echo "    spec: $spec" >&2; return 1; }
		expect_one_line "$TMP/err" "$want" || { echo "    spec: $spec" >&2; return 1; }
	done <<'CASES'
-L n|--parameter-list n: no values; give them after the name
-L 1n 1,2|--parameter-list '1n': a parameter's name is a letter or '_'
-L n-x 1|a parameter's name is a letter
-L n 1,2 -L n 3|parameter 'n' is given twice
-L n 1,1|the value '1' is given twice
-L n 1 -L x 1,2|parameter 'x' is used nowhere: no command, -n name, --setup, --prepare or --cleanup holds \{x\}
-D 2|--parameter-step-size is the step of --parameter-scan; give -P VAR MIN MAX too
-P n 3 1|--parameter-scan n 3 1: the first value is above the last
-P n 1 x|--parameter-scan 'x': not a number
-P n 1|--parameter-scan n: give the first and the last value
-P n 1 2 -D 0|--parameter-step-size '0': the step must be above 0
-P n 1 100000|gives 100000 values, more than 10000
-P n 999999999999999 999999999999999 -D 0.00000000000001|--parameter-scan '999999999999999': with 14 digits after the point, as the other values have, it has more than 15; give fewer digits
-n same -L n 1,2|two commands are named 'same'; put a parameter in the name
CASES
	expect_exit 2 "$PMCBENCH" run -q -r 1 -L n '' -- echo '{n}' &&
	expect_one_line "$TMP/err" "--parameter-list n '': no values"
}

# 27 events need 27 descriptors, more than a soft RLIMIT_NOFILE of 16 allows: pmcbench
# raises its soft limit to the hard one, as perf does (it failed with "out of file
# descriptors"), and the command measured still gets 16, as it would without pmcbench.
test_run_raises_the_descriptor_limit_but_not_the_commands() {
	local ev="" e
	[ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge 64 ] ||
		skip "the hard RLIMIT_NOFILE is below 64"
	for e in task-clock cpu-clock page-faults minor-faults major-faults context-switches \
		cpu-migrations alignment-faults emulation-faults; do
		ev="$ev$e,$e:u,$e:k,"
	done
	expect_exit 0 sh -c 'ulimit -Sn 16 && exec "$@"' sh "$PMCBENCH" run -q -r 2 \
		--show-output -e "${ev%,}" -o nofile.json -c 'sh -c "ulimit -Sn"' || return 1
	[ "$(grep -c '^16$' "$TMP/out")" -ge 2 ] ||
		{ cat "$TMP/out" >&2; fail "the command did not see its own limit of 16"; return 1; }
	[ "$(json_get nofile.json 'd["benchmarks"][0]["metrics"]["task-clock:k"]["status"]')" = counted ] ||
		fail "task-clock:k not counted"
}
