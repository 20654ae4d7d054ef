# Benchmark programs of the microbenchmark library under the valgrind backend
# (docs/microbench.md, "Exact counts: the valgrind backend"): exact per-operation counts
# that repeat run after run and do not depend on how the harness was built; the perf-only
# options refused; crashes, exits and skips contained. The programs exist only in builds
# without sanitizers (tests/targets/meson.build): valgrind cannot run ASan's.

need_programs() {
	if [ -z "${PMC_MB_LCG:-}" ]; then
		skip "no benchmark programs in a sanitized build"
	fi
}

# samples FILE BENCH: every metric's id and samples, one per line.
samples() {
	json_get "$1" "'\n'.join(k + ' ' + json.dumps(m['samples']) + ' ' + str(m.get('status')) for b in d['benchmarks'] if b['name'] == '$2' for k, m in sorted(b['metrics'].items()))"
}

test_mb_valgrind_counts_are_exact_and_repeat() {
	need_programs
	expect_exit 0 "$PMC_MB_LCG" --backend valgrind -q -o a.json || return 1
	expect_exit 0 "$PMC_MB_LCG" --backend=valgrind -q -o b.json || return 1
	[ "$(json_get a.json 'd["backend"]')" = valgrind ] || fail "backend is not valgrind" || return 1
	[ "$(json_get a.json 'len(d["benchmarks"])')" = 4 ] || fail "4 benchmarks expected" || return 1
	# The LCG's body: a multiply and an add, whatever the loop around it costs.
	[ "$(json_get a.json '[b for b in d["benchmarks"] if b["name"] == "lcg"][0]["metrics"]["instructions/op"]["samples"]')" = "[2]" ] ||
		fail "lcg: instructions/op is not [2]" || return 1
	[ "$(json_get a.json '[b for b in d["benchmarks"] if b["name"] == "lcg"][0]["metrics"]["instructions/op"]["status"]')" = exact ] ||
		fail "lcg: instructions/op is not exact" || return 1
	# Valgrind counts no time: no wall-time/op, rather than an invented one.
	expect_no_grep '"wall-time/op"' a.json || return 1
	for bench in lcg sum/64 sum/512 sum/4096; do
		samples a.json "$bench" >a.txt
		samples b.json "$bench" >b.txt
		[ -s a.txt ] || fail "$bench: no metrics" || return 1
		cmp -s a.txt b.txt || { diff a.txt b.txt >&2; fail "$bench: counts differ between two runs"; return 1; }
	done
	# The sum over 8 times the elements costs nearly 8 times as much (less with a
	# vectorizing compiler's fixed cost per call).
	python3 - a.json <<'PY' || fail "sum/4096 does not cost 6 to 8.5 times sum/512" || return 1
import json, sys
d = json.load(open(sys.argv[1]))
ir = {b["name"]: b["metrics"]["instructions/op"]["samples"][0] for b in d["benchmarks"]}
sys.exit(0 if ir["sum/64"] < ir["sum/512"] and 6 < ir["sum/4096"] / ir["sum/512"] < 8.5 else 1)
PY
	expect_exit 0 "$PMCBENCH" gate --baseline a.json b.json --threshold instructions/op=+0.1% || return 1
	expect_grep 'gate: PASS' "$TMP/out"
}

# --profile under valgrind: the exact profile of the marked stretches (the backend's dumps
# read by the profile layer, harness/4-profile/marked.c), where the body is nearly all
# of the instructions.
test_mb_valgrind_profile_is_the_exact_body() {
	need_programs
	expect_exit 0 "$PMC_MB_LCG" --backend valgrind --profile --filter '^lcg$' -q -o a.json || return 1
	[ -f a.profiles/lcg.json ] || { ls -R . >&2; fail "no exact profile of lcg"; return 1; }
	[ "$(json_get a.profiles/lcg.json 'd["kind"] + " " + d["event"]')" = "exact Ir" ] ||
		fail "the profile is not callgrind's exact Ir" || return 1
	expect_exit 0 "$PMCBENCH" report a.profiles/lcg.json || return 1
	awk '$5 == "lcg" && $1 + 0 >= 95 { found = 1 } END { exit !found }' "$TMP/out" ||
		{ cat "$TMP/out" >&2; fail "lcg is not 95% or more of the exact profile's self count"; return 1; }
}

test_mb_valgrind_counts_do_not_depend_on_the_harness_build() {
	need_programs
	local edge edge0
	# The two programs differ in the harness only: its loop edges are bigger without
	# optimization (so each batch's fixed cost is different).
	edge=$(nm -S "$PMC_MB_LCG" | awk '$4 == "pmc_loop_edge" {print $2}')
	edge0=$(nm -S "$PMC_MB_LCG_O0" | awk '$4 == "pmc_loop_edge" {print $2}')
	[ -n "$edge" ] && [ -n "$edge0" ] && [ "$edge" != "$edge0" ] ||
		fail "pmc_loop_edge should differ between the builds ($edge, $edge0)" || return 1
	expect_exit 0 "$PMC_MB_LCG" --backend valgrind -q -o a.json || return 1
	expect_exit 0 "$PMC_MB_LCG_O0" --backend valgrind -q -o b.json || return 1
	# What the body executes is identical. (Simulated misses model caches and branch
	# predictors, which the code around the loop also touches: they repeat exactly for
	# one binary but may move by a few events per batch between harness builds, and so
	# does est-cycles, which counts them.)
	for bench in lcg sum/64 sum/4096; do
		samples a.json "$bench" | grep -Ev 'misses|est-cycles' >a.txt
		samples b.json "$bench" | grep -Ev 'misses|est-cycles' >b.txt
		expect_grep '^instructions/op ' a.txt && expect_grep '^branch-cond/op ' a.txt || return 1
		cmp -s a.txt b.txt || { diff a.txt b.txt >&2; fail "$bench: counts differ between harness builds"; return 1; }
	done
}

test_mb_valgrind_refuses_perf_only_options() {
	need_programs
	local opt
	for opt in "-r 3" "--min-time 0.1" "-e task-clock" "--no-fork" "-w 2"; do
		# shellcheck disable=SC2086 # the option and its value
		expect_exit 2 "$PMC_MB_LCG" --backend valgrind $opt || return 1
		expect_one_line "$TMP/err" 'does not apply to --backend valgrind' || return 1
	done
	expect_exit 2 "$PMC_MB_LCG" --backend simulator || return 1
	expect_one_line "$TMP/err" "unknown backend 'simulator'; use perf or valgrind" || return 1
	# The names come from the registry of backends (counters/backend.h), as does the
	# suggestion for a typo.
	expect_exit 2 "$PMC_MB_LCG" --backend valgrnd || return 1
	expect_one_line "$TMP/err" "unknown backend 'valgrnd'; did you mean 'valgrind'?"
}

# The comparison options judge the gate against --baseline: without it they would do
# nothing, so they are refused as `pmcbench run` refuses them, before anything runs.
test_mb_comparison_options_need_a_baseline() {
	need_programs
	local opt
	for opt in "--threshold *=5%" "--alpha 0.01" "--fail-on-inconclusive"; do
		# shellcheck disable=SC2086 # the option and its value
		expect_exit 2 "$PMC_MB_LCG" -r 2 -q -o a.json $opt || return 1
		expect_one_line "$TMP/err" "^pmcbench: ${opt%% *} judges a comparison, and here nothing is compared; give --baseline FILE" || return 1
		[ ! -e a.json ] || fail "$opt: a.json written" || return 1
	done
	# With --baseline the same options are used. A time of two separate runs of the
	# program is not gated: all the processes of each share its invocation's
	# conditions (docs/statistics.md, "The unit of replication"); a work count is.
	expect_exit 0 "$PMC_MB_LCG" -r 8 --min-time 0.002 -q -o base.json || return 1
	expect_exit 2 "$PMC_MB_LCG" -r 8 --min-time 0.002 -q --baseline base.json \
		--threshold '*=1000%' || return 1
	expect_grep "cannot be gated against a single invocation: the samples of all its processes share that invocation's conditions" "$TMP/err" || return 1
	expect_grep "./bench-new --against ./bench-old" "$TMP/err" || return 1
	expect_exit 0 "$PMC_MB_LCG" -r 8 --min-time 0.002 -q --baseline base.json \
		--threshold 'page-faults/op=1000%' || return 1
}

test_mb_valgrind_contains_crashes_exits_and_skips() {
	need_programs
	# --timeout is generous: it must only ever stop 'hang', whatever the machine's load.
	expect_exit 2 "$PMC_MB_FAULTS" --backend valgrind --timeout 10 -q -o f.json || return 1
	expect_grep "'hang' under valgrind timed out after 10 s" "$TMP/err" || return 1
	expect_grep "'crash' crashed under valgrind: killed by signal 6" "$TMP/err" || return 1
	expect_grep "'quit' exited with status 0 under valgrind" "$TMP/err" || return 1
	expect_grep "'skipper' skipped itself: needs a feature this machine lacks" "$TMP/err" || return 1
	expect_grep "3 of 5 benchmarks failed" "$TMP/err" || return 1
	# The benchmark that worked is written, and only it has counts.
	[ "$(json_get f.json '[b["name"] for b in d["benchmarks"] if b.get("runs")]')" = "['mix']" ] ||
		fail "only mix should have runs" || return 1
	[ "$(json_get f.json '[b["skipped"] for b in d["benchmarks"] if "skipped" in b]')" = "['needs a feature this machine lacks']" ] ||
		fail "skipper should be recorded as skipped, with its reason"
}

test_mb_valgrind_runs_a_shared_object() {
	need_programs
	expect_exit 0 "$PMCBENCH" run --library "$PMC_BENCHLIB" --backend valgrind --filter '^lcg$' \
		-q -o l.json || return 1
	[ "$(json_get l.json '[b for b in d["benchmarks"] if b["name"] == "lcg"][0]["metrics"]["instructions/op"]["samples"]')" = "[2]" ] ||
		fail "lcg in the shared object: instructions/op is not [2]"
}

# docs/microbench.md, "Processes": each benchmark's samples come from several processes,
# each a new start of the program, interleaved across benchmarks; each run records its
# process, and compare tests over the processes.
test_mb_samples_come_from_several_processes() {
	need_programs
	expect_exit 0 "$PMC_MB_LCG" -q --filter '^lcg$' --min-time 0.001 -o a.json || return 1
	# The defaults: 8 samples, one in each of 8 processes.
	[ "$(json_get a.json '[r["process"] for r in d["benchmarks"][0]["runs"]]')" = \
		"[1, 2, 3, 4, 5, 6, 7, 8]" ] || fail "runs' processes" || return 1
	# Every run per the same batch size, calibrated once.
	[ "$(json_get a.json 'len(set(r["iterations"] for r in d["benchmarks"][0]["runs"]))')" = 1 ] ||
		fail "one batch size" || return 1
	# The loop's own cost is beside the figure, not subtracted from it.
	json_get a.json 'd["benchmarks"][0]["metrics"]["wall-time/op"]["loop_overhead"]' >lo.txt ||
		return 1
	python3 -c 'import sys; v = float(open("lo.txt").read()); sys.exit(0 if v > 0 else 1)' ||
		fail "no loop_overhead on wall-time/op" || return 1
	# -r 7 over 3 processes: the first takes the one left over.
	expect_exit 0 "$PMC_MB_LCG" -q --filter '^sum/64$' --min-time 0.001 -r 7 --processes 3 \
		-o b.json || return 1
	[ "$(json_get b.json '[r["process"] for r in d["benchmarks"][0]["runs"]]')" = \
		"[1, 1, 1, 2, 2, 3, 3]" ] || fail "7 samples over 3 processes" || return 1
	# Two results of the program: its time is not tested between them, however many
	# processes each has (they all ran in one invocation); tests/test_compare.c checks
	# that a work count is tested over the processes.
	expect_exit 0 "$PMCBENCH" compare --metric task-clock/op b.json b.json || return 1
	expect_grep ' not tested ' "$TMP/out" || return 1
	expect_grep "a benchmark program's two builds: --against, --library" "$TMP/out" || return 1
	# More processes than samples: one sample each.
	expect_exit 0 "$PMC_MB_LCG" -q --filter '^lcg$' --min-time 0.001 -r 2 --processes 6 \
		-o c.json || return 1
	[ "$(json_get c.json '[r["process"] for r in d["benchmarks"][0]["runs"]]')" = "[1, 2]" ] ||
		fail "2 samples, 2 processes" || return 1
	# --no-fork: one process, recorded, and its timing comparison not tested.
	expect_exit 0 "$PMC_MB_LCG" -q --filter '^lcg$' --min-time 0.001 -r 4 --no-fork \
		-o d.json || return 1
	[ "$(json_get d.json '[r["process"] for r in d["benchmarks"][0]["runs"]]')" = "[1, 1, 1, 1]" ] ||
		fail "--no-fork: one process" || return 1
	expect_exit 0 "$PMCBENCH" compare --metric task-clock/op d.json d.json || return 1
	expect_grep ' not tested ' "$TMP/out" || return 1
	expect_exit 2 "$PMC_MB_LCG" -q --no-fork --processes 2 || return 1
	expect_one_line "$TMP/err" "--processes 2 needs processes of their own; drop --no-fork"
}

# -e is repeatable, and the lists join, as `pmcbench run -e a -e b` joins them: one option
# table for both (harness/7-cli/cli_session.c).
test_mb_event_lists_join() {
	need_programs
	expect_exit 0 "$PMC_MB_LCG" -q --filter '^lcg$' --min-time 0.001 -r 2 --processes 2 \
		-e task-clock -e page-faults -o e.json || return 1
	[ "$(json_get e.json 'd["environment"]["events"]')" = "task-clock,page-faults" ] ||
		fail "events recorded: $(json_get e.json 'd["environment"]["events"]')" || return 1
	[ "$(json_get e.json 'sorted(k for k in d["benchmarks"][0]["metrics"] if k in ("task-clock/op", "page-faults/op"))')" = \
		"['page-faults/op', 'task-clock/op']" ] || fail "both lists' events counted"
}

# Complexity fits of exact counts do not vary: a pass over n integers is 4 instructions per
# element, O(n) as declared; insertion sort of reversed input is found to be O(n^2) among
# O(1) ... O(n^3); the fit is the same in a second run (docs/microbench.md, "Complexity").
test_mb_valgrind_complexity_fits_are_exact() {
	need_programs
	command -v valgrind >/dev/null || skip "valgrind not installed"
	local q="[(f['name'], f['metric'], f['big_o'], round(f['coef'], 6), f['points']) for f in d['complexity']]"
	expect_exit 0 "$PMC_MB_COMPLEXITY" --backend valgrind --filter '^(insertion|sum)/' -o a.json || return 1
	expect_grep "'insertion' is O\\(n\\^2\\): instructions/op" "$TMP/err" || return 1
	expect_exit 0 "$PMC_MB_COMPLEXITY" --backend valgrind --filter '^(insertion|sum)/' -q -o b.json || return 1
	[ "$(json_get a.json "$q")" = "$(json_get b.json "$q")" ] || fail "the fits differ" || return 1
	[ "$(json_get a.json "[f['big_o'] for f in d['complexity']]")" = "['O(n)', 'O(n^2)']" ] ||
		fail "fits: $(json_get a.json "$q")" || return 1
	# The fit's coefficient is what the counts say per element (gcc's sum loop takes 4
	# instructions an element, clang's vectorized one about 1.2): at the largest n the
	# fitted c*n is the benchmark's exact instructions/op, less its fixed cost.
	local rel="[abs(f['coef'] * n - v) / v < 0.05 for f in d['complexity'] if f['name'] == 'sum'
		for n, v in [max((int(b['name'].split('/')[1]), b['metrics']['instructions/op']['samples'][0])
				 for b in d['benchmarks'] if b['name'].startswith('sum/'))]]"
	[ "$(json_get a.json "$rel")" = "[True]" ] || fail "sum: $(json_get a.json "$q")"
}

# One bad registration (a NULL function, a name registered in two files) is named by its
# file:line and skipped; the others are listed and run, and the program exits 2 at the end.
test_mb_bad_registrations_are_skipped_by_place() {
	need_programs
	expect_exit 2 "$PMC_MB_BADREG" --list || return 1
	[ "$(cat "$TMP/out")" = "$(printf 'good\ntwice\nalso_good')" ] ||
		fail "listed: $(cat "$TMP/out")" || return 1
	expect_grep "mb_badreg.c:[0-9]+: benchmark 'nofn': no function; skipped" "$TMP/err" || return 1
	expect_grep "mb_badreg2.c:[0-9]+: benchmark 'twice' is also registered at .*mb_badreg.c:[0-9]+; give them different names; skipped" "$TMP/err" || return 1
	expect_exit 2 "$PMC_MB_BADREG" -q -r 2 --min-time 0.001 -o r.json || return 1
	expect_grep "2 benchmark definitions were skipped" "$TMP/err" || return 1
	[ "$(json_get r.json '[b["name"] for b in d["benchmarks"]]')" = "['good', 'twice', 'also_good']" ] ||
		fail "benchmarks: $(json_get r.json '[b["name"] for b in d["benchmarks"]]')"
}

# A benchmark program stopped by its parent (SIGTERM, as a CI job cancelled) takes the
# child running its current benchmark with it (PR_SET_PDEATHSIG), never leaves it spinning.
test_mb_child_never_outlives_its_program() {
	need_programs
	local pid child="" i
	"$PMC_MB_FAULTS" --filter '^hang$' -q -r 1 >/dev/null 2>&1 &
	pid=$!
	for i in $(seq 100); do
		child=$(cat "/proc/$pid/task/$pid/children" 2>/dev/null | awk '{print $1}')
		[ -n "$child" ] && break
		sleep 0.1
	done
	[ -n "$child" ] || { kill -KILL "$pid"; fail "no child started"; return 1; }
	kill -TERM "$pid"
	wait "$pid" 2>/dev/null
	for i in $(seq 50); do
		kill -0 "$child" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL "$child"
	fail "the child $child outlived its program"
}

# stop_while_stuck SIG: runs the stop program until its 'stuck' benchmark's process runs,
# sends SIG to the program alone, and checks what a Ctrl-C (SIGINT) or a cancelled CI job
# (SIGTERM) must leave: the program ends by the signal (exit 128 + SIG, as `pmcbench run`),
# its child is gone, one line says so, and r.json holds 'fast', marked incomplete
# (docs/microbench.md, "Interrupted").
stop_while_stuck() {
	local sig=$1 code=$2 pid rc child="" i
	"$PMC_MB_STOP" -q -r 2 --processes 2 --min-time 0.001 -o r.json >out 2>err </dev/null &
	pid=$!
	for i in $(seq 300); do
		for child in $(cat "/proc/$pid/task/$pid/children" 2>/dev/null); do
			tr '\0' ' ' <"/proc/$child/cmdline" 2>/dev/null |
				grep -q -- '--process-child stuck ' && break 2
		done
		child=""
		sleep 0.1
	done
	[ -n "$child" ] || { kill -KILL "$pid"; fail "'stuck' never started"; return 1; }
	kill "-$sig" "$pid"
	wait "$pid"
	rc=$?
	# Reaped by the program before it ended: not even a zombie is left.
	[ ! -e "/proc/$child" ] || { kill -KILL "$child"; fail "the child $child outlived its program"; return 1; }
	[ "$rc" = "$code" ] || { cat err >&2; fail "exit status $rc, expected $code"; return 1; }
	expect_one_line err "^pmcbench: interrupted by signal [0-9]+ \(.*\); the runs that finished were written to r.json, marked incomplete$" || return 1
	[ "$(json_get r.json '[(b["name"], len(b["runs"])) for b in d["benchmarks"]]')" = "[('fast', 1)]" ] ||
		fail "benchmarks: $(json_get r.json '[(b["name"], len(b["runs"])) for b in d["benchmarks"]]')" || return 1
	expect_grep '^"incomplete":"stopped by signal [0-9]+ \(.*\) in process 1 of 2: ' r.json
}

# Ctrl-C, or SIGINT to the program alone, while a benchmark runs: what finished is written.
test_mb_sigint_writes_what_finished() {
	need_programs
	stop_while_stuck INT 130
}

# SIGTERM (a CI job cancelled) too, and the child does not outlive the program.
test_mb_sigterm_writes_what_finished() {
	need_programs
	stop_while_stuck TERM 143
}

# --timeout none switches the default limit off (nothing to enforce, so --no-fork takes
# it); 0 is refused, as it could as well mean "at once".
test_mb_timeout_none() {
	need_programs
	expect_exit 0 "$PMC_MB_LCG" -q --filter '^lcg$' -r 2 --processes 2 --min-time 0.001 \
		--timeout none -o a.json || return 1
	[ "$(json_get a.json 'len(d["benchmarks"][0]["runs"])')" = 2 ] || fail "two runs" || return 1
	expect_exit 0 "$PMC_MB_LCG" -q --filter '^lcg$' -r 1 --min-time 0.001 --no-fork \
		--timeout none || return 1
	expect_exit 2 "$PMC_MB_LCG" -q --timeout 0 || return 1
	expect_one_line "$TMP/err" "--timeout: '0' is not a positive number of seconds"
}

# Under the valgrind backend a pause switches collection off, and what each
# pmc_pause/pmc_resume pair leaves counted (28 instructions of the LCG's 30 here) is
# subtracted with a loop of pairs: the paused LCG is within two instructions of the LCG's
# 2 (0.6 with GCC 12 at -O2: how the calls' surroundings are counted), and repeats exactly.
test_mb_valgrind_pauses_are_subtracted() {
	need_programs
	command -v valgrind >/dev/null || skip "valgrind not installed"
	local q="{b['name']: b['metrics']['instructions/op']['samples'][0] for b in d['benchmarks']}"
	expect_exit 0 "$PMC_MB_PAUSED" --backend valgrind -q -o a.json || return 1
	expect_exit 0 "$PMC_MB_PAUSED" --backend valgrind -q -o b.json || return 1
	[ "$(json_get a.json "$q")" = "$(json_get b.json "$q")" ] || fail "two runs differ" || return 1
	[ "$(json_get a.json "d['benchmarks'][0]['metrics']['instructions/op']['samples'][0]")" = 2 ] ||
		fail "lcg: $(json_get a.json "$q")" || return 1
	# What is left is the code around the calls, which depends on the compiler (gcc 2.6,
	# clang 7 here); without the subtraction the paused loop counts about 30.
	[ "$(json_get a.json "2 <= d['benchmarks'][1]['metrics']['instructions/op']['samples'][0] < 12")" = True ] ||
		fail "lcg_paused: $(json_get a.json "$q")"
}

# docs/microbench.md, "Exact counts": each loop form has its own bookkeeping, and the
# empty loop subtracted is the one of the body's form, so a body of 1, 2 or 10 instructions
# counts 1, 2 or 10 per operation written as `while (pmc_loop(s))` or as `PMC_LOOP(s)`, and
# the LCG its multiply and add in both (subtracting the while loop's empty loop from a
# PMC_LOOP body counted it at 0, clamped, and 10 nops at 8).
test_mb_valgrind_counts_agree_across_loop_forms() {
	need_programs
	command -v valgrind >/dev/null || skip "valgrind not installed"
	expect_exit 0 "$PMC_MB_FORMS" --backend valgrind -q -o a.json || return 1
	json_get a.json "'\n'.join(b['name'] + ' ' + json.dumps(b['metrics']['instructions/op']['samples']) + ' ' + str(b['metrics']['instructions/op'].get('note')) for b in sorted(d['benchmarks'], key=lambda b: b['name']))" >got.txt
	cat >want.txt <<'EOF2'
lcg_local [2] None
lcg_while [2] None
nop10_local [10] None
nop10_while [10] None
nop1_local [1] None
nop1_while [1] None
nop2_local [2] None
nop2_while [2] None
EOF2
	cmp -s want.txt got.txt || { diff want.txt got.txt >&2; fail "instructions/op per loop form"; }
}

# The C++ header's range loop, `for (auto _ : state)`, has its own empty loop too: bodies of
# 1 and 10 instructions and the LCG count 1, 10 and 2 (tests/install/bench.cpp).
test_mb_valgrind_counts_the_cxx_range_loop() {
	need_programs
	command -v valgrind >/dev/null || skip "valgrind not installed"
	[ -n "${PMC_MB_CXX:-}" ] || skip "no C++ compiler"
	expect_exit 0 "$PMC_MB_CXX" --backend valgrind --filter '_range$' -q -o a.json || return 1
	json_get a.json "'\n'.join(b['name'] + ' ' + json.dumps(b['metrics']['instructions/op']['samples']) + ' ' + str(b['metrics']['instructions/op'].get('note')) for b in d['benchmarks'])" >got.txt
	printf '%s\n' 'nop1_range [1] None' 'nop10_range [10] None' 'lcg_range [2] None' >want.txt
	cmp -s want.txt got.txt || { diff want.txt got.txt >&2; fail "instructions/op of the range loop"; }
}

# Google Benchmark's --benchmark_min_time forms: "0.5s" is seconds, "100x" a batch of 100
# iterations in every process (no calibration); anything else one line and exit 2.
test_mb_min_time_takes_seconds_with_s_and_iterations_with_x() {
	need_programs
	expect_exit 0 "$PMC_MB_FORMS" --filter '^nop1_while$' --min-time 0.001s -r 2 -q -o a.json || return 1
	expect_exit 0 "$PMC_MB_FORMS" --filter '^nop1_while$' --min-time 100x -r 3 --processes 3 -q -o b.json || return 1
	[ "$(json_get b.json '[r["iterations"] for r in d["benchmarks"][0]["runs"]]')" = "[100, 100, 100]" ] ||
		fail "--min-time 100x: $(json_get b.json '[r["iterations"] for r in d["benchmarks"][0]["runs"]]')" || return 1
	for bad in 0x 1.5x x 5y 0s; do
		expect_exit 2 "$PMC_MB_FORMS" --min-time "$bad" || return 1
		expect_one_line "$TMP/err" "--min-time: '$bad' is not" || return 1
	done
}

# Google Benchmark's flags as aliases, its negative filter, and messages that send the user
# to the program's own --help (not to a 'pmcbench help' that has no such page); --version.
test_mb_google_benchmark_flags() {
	need_programs
	expect_exit 0 "$PMC_MB_FORMS" --benchmark_list_tests --benchmark_filter='-_local$' || return 1
	printf '%s\n' nop1_while nop2_while nop10_while lcg_while >want.txt
	cmp -s want.txt "$TMP/out" || { diff want.txt "$TMP/out" >&2; fail "--benchmark_filter=-RE"; return 1; }
	expect_exit 0 "$PMC_MB_FORMS" --benchmark_list_tests=false --benchmark_filter='^nop1_while$' \
		--benchmark_min_time=0.001s --benchmark_repetitions=2 --benchmark_format=json \
		--benchmark_out=a.json || return 1
	[ "$(json_get a.json '[b["name"] + " " + str(len(b["runs"])) for b in d["benchmarks"]]')" = "['nop1_while 2']" ] ||
		fail "the aliases' run: $(json_get a.json '[b["name"] for b in d["benchmarks"]]')" || return 1
	expect_grep '"schema":"pmcbench-result/1"' "$TMP/out" || return 1
	expect_exit 2 "$PMC_MB_FORMS" --benchmark_format=xml || return 1
	expect_one_line "$TMP/err" "unknown format 'xml'; use console, json or csv" || return 1
	expect_exit 2 "$PMC_MB_FORMS" --bogus || return 1
	expect_one_line "$TMP/err" "see '$PMC_MB_FORMS --help'" || return 1
	expect_exit 2 "$PMC_MB_FORMS" extra || return 1
	expect_one_line "$TMP/err" "see '$PMC_MB_FORMS --help'" || return 1
	expect_exit 0 "$PMC_MB_FORMS" --version || return 1
	expect_one_line "$TMP/out" '^pmc-mb-forms [(]libpmcbench [0-9]' || return 1
	# --benchmark_out_format: --benchmark_out's file as the result (json), CSV or the report.
	expect_exit 0 "$PMC_MB_FORMS" -q --benchmark_filter='^nop1_while$' --benchmark_min_time=10x \
		--benchmark_repetitions=2 --benchmark_out=b.json --benchmark_out_format=json || return 1
	[ "$(json_get b.json 'd["benchmarks"][0]["runs"][1]["iterations"]')" = 10 ] ||
		fail "--benchmark_out_format=json is not the result" || return 1
	expect_exit 0 "$PMC_MB_FORMS" -q --benchmark_filter='^nop1_while$' --benchmark_min_time=10x \
		--benchmark_repetitions=2 --benchmark_out=b.txt --benchmark_out_format=csv || return 1
	expect_grep '^benchmark,metric,unit,run,value,' b.txt || return 1
	[ "$(grep -c '^"nop1_while","wall-time/op","ns",[12],[0-9.]*,,,,,,10$' b.txt)" = 2 ] ||
		fail "--benchmark_out_format=csv: not a wall-time/op row per run" || return 1
	expect_exit 0 "$PMC_MB_FORMS" -q --benchmark_filter='^nop1_while$' --benchmark_min_time=10x \
		--benchmark_repetitions=2 --benchmark_out=c.txt --benchmark_out_format=console || return 1
	expect_grep '^nop1_while +[0-9.]+ [mun]?s +' c.txt || return 1
	expect_exit 2 "$PMC_MB_FORMS" --benchmark_out=d.x --benchmark_out_format=xml || return 1
	expect_one_line "$TMP/err" "--benchmark_out_format: unknown format 'xml'; use json, csv or console" || return 1
	[ ! -e d.x ] || fail "a refused run wrote d.x" || return 1
	expect_exit 2 "$PMC_MB_FORMS" --benchmark_out_format=csv || return 1
	expect_one_line "$TMP/err" "--benchmark_out_format names the format of --benchmark_out FILE" || return 1
	# --benchmark_counters_tabular: the report has a column per counter already; =false,
	# which would ask for GB's counters after each line, is refused.
	expect_exit 0 "$PMC_MB_FORMS" -q --benchmark_filter='^nop1_while$' --benchmark_min_time=10x \
		--benchmark_repetitions=1 --benchmark_counters_tabular=true || return 1
	expect_exit 2 "$PMC_MB_FORMS" --benchmark_counters_tabular=false || return 1
	expect_one_line "$TMP/err" "the report always shows a column per counter"
}

# --reference N or NAME (nanobench's relative column): every benchmark compared with that
# one by `run --reference`'s report, round by round over the processes; a reference that
# is not there, and one beside --baseline or two builds, is one line and exit 2.
test_mb_reference_compares_the_benchmarks_with_one() {
	need_programs
	local f='^(nop1|lcg)_(while|local)$' second
	expect_exit 0 "$PMC_MB_FORMS" --filter "$f" --reference lcg_while -r 2 --processes 2 \
		--min-time 100x -q -o a.json || return 1
	expect_grep "^Comparison against the reference 'lcg_while':" "$TMP/out" || return 1
	expect_grep '^benchmark +lcg_while +benchmark +change' "$TMP/out" || return 1
	for b in nop1_while nop1_local lcg_local; do
		expect_grep "^$b +[0-9.]+[mun]?s" "$TMP/out" || return 1
	done
	expect_no_grep '^lcg_while +[0-9.]+[mun]?s ± ' "$TMP/out" || return 1
	# The processes are the rounds, as two builds' are.
	[ "$(json_get a.json '[r["round"] for r in d["benchmarks"][0]["runs"]]')" = "[1, 2]" ] ||
		fail "--reference: the runs are not in rounds" || return 1
	# The Nth of --list: 2 is nop1_local's (the list's order, after --filter).
	second=$("$PMC_MB_FORMS" --filter "$f" --list | sed -n 2p)
	[ -n "$second" ] || fail "--list gave no second benchmark" || return 1
	expect_exit 0 "$PMC_MB_FORMS" --filter "$f" --reference 2 -r 1 --processes 1 --min-time 10x -q || return 1
	expect_grep "^Comparison against the reference '$second':" "$TMP/out" || return 1
	expect_exit 2 "$PMC_MB_FORMS" --filter "$f" --reference 5 || return 1
	expect_one_line "$TMP/err" "--reference 5: there are 4 benchmarks [(]after --filter[)]; see '.*--list'" || return 1
	expect_exit 2 "$PMC_MB_FORMS" --reference nope || return 1
	expect_one_line "$TMP/err" "--reference 'nope' names no benchmark" || return 1
	expect_exit 2 "$PMC_MB_FORMS" --reference 1 --baseline a.json || return 1
	expect_one_line "$TMP/err" "--reference compares this run's benchmarks with one of them; --baseline" || return 1
	expect_exit 2 "$PMC_MB_FORMS" --reference 1 --against "$PMC_MB_FORMS" || return 1
	expect_one_line "$TMP/err" "two builds are compared with each other" || return 1
	# Without --reference, --gate still needs two builds to judge.
	expect_exit 2 "$PMC_MB_FORMS" --gate || return 1
	expect_one_line "$TMP/err" "or the benchmarks with --reference"
}

# docs/microbench.md, "The report": one line per benchmark, as Google Benchmark's console
# prints it, with the counters no benchmark measured in one line; -v gives the detail,
# with the batch size; a complexity fit is a BigO and an RMS line.
test_mb_report_is_one_line_per_benchmark() {
	need_programs
	expect_exit 0 "$PMC_MB_LCG" -q -r 2 --processes 2 --min-time 0.001 || return 1
	expect_grep '^Benchmark +Time +CPU +Iterations' "$TMP/out" || return 1
	for b in lcg 'sum/64' 'sum/512' 'sum/4096'; do
		[ "$(grep -c "^$b " "$TMP/out")" = 1 ] || fail "no single line for $b" || return 1
	done
	expect_grep '^lcg +[0-9.]+ [mun]?s +[0-9.]+ [mun]?s +[0-9]+( |$)' "$TMP/out" || return 1
	expect_no_grep '<not supported>|<not counted>|Benchmark: ' "$TMP/out" || return 1
	# A counter this machine cannot count is named once, never shown as 0.
	if grep -q 'not counted\|unsupported' "$TMP/err"; then
		fail "the missing counters are said in the report, not on stderr" || return 1
	fi
	[ "$(grep -c '^Not measured: ' "$TMP/out")" -le 1 ] || fail "missing counters twice" || return 1

	expect_exit 0 "$PMC_MB_LCG" -v -q -r 2 --processes 2 --min-time 0.001 --filter '^lcg$' ||
		return 1
	expect_grep '^Benchmark: lcg \(2 runs of [0-9,]+ iterations\)' "$TMP/out" || return 1
	expect_grep "^  The empty loop's cost, included \(not subtracted\): wall-time/op " \
		"$TMP/out" || return 1
	expect_exit 0 "$PMC_MB_COMPLEXITY" -q -r 2 --processes 2 --min-time 0.001 \
		--filter '^insertion/(32|64|128)$' || return 1
	expect_grep '^insertion_BigO +[0-9.]+ [mun]?s (N\^2|N\^3|NlgN|N|lgN|\(1\))$' "$TMP/out" ||
		return 1
	expect_grep '^insertion_RMS +[0-9]+ %$' "$TMP/out"
}

# A report that is one document on stdout stays one: what a benchmark prints goes to
# stderr, and arrives; with the table on a file or a pipe, it arrives on stdout.
test_mb_benchmark_output_stays_out_of_a_document() {
	need_programs
	expect_exit 0 "$PMC_MB_PRINTS" -r 3 --processes 3 --min-time 0.001 --format json || return 1
	python3 -m json.tool "$TMP/out" >/dev/null || fail "stdout is not one JSON document" ||
		return 1
	[ "$(grep -c '^mb_prints: hello from the benchmark$' "$TMP/err")" = 3 ] ||
		fail "the benchmark's lines did not arrive on stderr" || return 1
	expect_exit 0 "$PMC_MB_PRINTS" -r 2 --no-fork --min-time 0.001 --format csv || return 1
	expect_no_grep 'hello' "$TMP/out" || return 1
	expect_grep '^mb_prints: hello from the benchmark$' "$TMP/err" || return 1
	expect_exit 0 "$PMC_MB_PRINTS" -q -r 3 --processes 3 --min-time 0.001 || return 1
	[ "$(grep -c '^mb_prints: hello from the benchmark$' "$TMP/out")" = 3 ] ||
		fail "the benchmark's lines did not arrive on stdout (a file)" || return 1
	"$PMC_MB_PRINTS" -q -r 2 --processes 2 --min-time 0.001 2>/dev/null | cat >piped.txt
	[ "$(grep -c '^mb_prints: hello from the benchmark$' piped.txt)" = 2 ] ||
		fail "the benchmark's lines did not arrive through a pipe"
}

# Under the valgrind backend too, SIGINT stops the benchmark running under valgrind (its
# process group killed), 'fast' is written, marked incomplete, and the program ends by
# the signal (docs/microbench.md, "Interrupted").
test_mb_sigint_under_valgrind() {
	need_programs
	command -v valgrind >/dev/null || { skip "no valgrind"; return 0; }
	local pid rc child="" i
	"$PMC_MB_STOP" -q --backend valgrind -o r.json >out 2>err </dev/null &
	pid=$!
	for i in $(seq 600); do
		for child in $(cat "/proc/$pid/task/$pid/children" 2>/dev/null); do
			tr '\0' ' ' <"/proc/$child/cmdline" 2>/dev/null |
				grep -q -- '--valgrind-child stuck ' && break 2
		done
		child=""
		sleep 0.1
	done
	[ -n "$child" ] || { kill -KILL "$pid"; fail "'stuck' never started under valgrind"; return 1; }
	kill -INT "$pid"
	wait "$pid"
	rc=$?
	[ ! -e "/proc/$child" ] || { kill -KILL "$child"; fail "valgrind ($child) outlived its program"; return 1; }
	[ "$rc" = 130 ] || { cat err >&2; fail "exit status $rc, expected 130"; return 1; }
	expect_one_line err "^pmcbench: interrupted by signal [0-9]+ \(.*\); the runs that finished were written to r.json, marked incomplete$" || return 1
	[ "$(json_get r.json '[b["name"] for b in d["benchmarks"]]')" = "['fast']" ] ||
		fail "benchmarks: $(json_get r.json '[b["name"] for b in d["benchmarks"]]')" || return 1
	expect_grep '^"incomplete":"stopped by signal [0-9]+ \(.*\) after 1 of 2 benchmarks' r.json
}
