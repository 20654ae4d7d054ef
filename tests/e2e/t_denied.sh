# The CI recipe's steps (ci/examples/github-actions.yml, docs/ci.md) on a runner where
# every perf_event_open is denied, as GitHub's hosted runners deny it to their unprivileged
# user at kernel.perf_event_paranoid=4 before the recipe's sysctl: tests/paranoid4.c,
# preloaded, fails the syscall with EACCES and says 4 for the sysctl, and the steps run as
# an unprivileged user (nobody when the tests run as root). pmcbench must go on with what
# wait4 measures, say so once with the fix, report each counter denied (never 0), and
# never pass a gate it could not judge.

# Sets AS (the command prefix that runs as an unprivileged user) and moves into a
# directory that user may write; skips the case when it cannot.
denied_setup() {
	if [ -z "${PMC_PARANOID4:-}" ] || [ ! -f "$PMC_PARANOID4" ]; then
		skip "PMC_PARANOID4 (the shim, tests/paranoid4.c) is not set"
	fi
	unprivileged_setup
}

unprivileged_setup() {
	AS=()
	if [ "$(id -u)" = 0 ]; then
		if command -v setpriv >/dev/null; then
			AS=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
		elif command -v runuser >/dev/null; then
			AS=(runuser -u nobody --)
		else
			skip "root without setpriv or runuser: cannot run as an unprivileged user"
		fi
		chmod 711 "$TMP"
		mkdir "$TMP/u" && chown nobody "$TMP/u" && cd "$TMP/u" || return 1
		if ! "${AS[@]}" test -x "$PMCBENCH" || ! "${AS[@]}" test -x "$WORK"; then
			skip "nobody cannot run $PMCBENCH (a build directory others cannot read)"
		fi
	fi
}

# denied CMD...: CMD as the unprivileged user with the shim. Under gcc's ASan the runtime
# must come first in the load order, which a preload changes: its check is turned off (the
# shim defines no function ASan intercepts but fopen, which it passes on).
denied() {
	"${AS[@]}" env LD_PRELOAD="$PMC_PARANOID4" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$@"
}

# expect_denied_note FILE: FILE has exactly one note, that every event is denied, with
# the fix when pmcbench read the sysctl through the shim (clang's ASan runtime intercepts
# fopen before a preload can, so the real value is read there).
expect_denied_note() {
	[ "$(grep -c 'note:' "$1")" = 1 ] || { cat "$1" >&2; fail "not one note in $1"; return 1; }
	expect_grep '^pmcbench: note: every event is denied \(.*task-clock.*\): ' "$1" || return 1
	if [ "$(json_get "$2" "d['environment'].get('perf_event_paranoid')")" = 4 ]; then
		expect_grep 'perf_event_paranoid is 4.*sysctl kernel\.perf_event_paranoid=1' "$1"
	else
		echo "    note: the shim's perf_event_paranoid=4 is not what this build read (its ASan runtime intercepts fopen); the note's fix is not checked" >&2
	fi
}

# A denied counter is "denied" with no value in the result, the reports and the CSV.
expect_denied_counters() {
	python3 - "$1" <<'PY' || fail "$1: a denied counter has a value, or a time metric has none"
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["benchmarks"]:
    ms = b["metrics"]
    for e in ("cycles", "instructions", "task-clock", "page-faults", "context-switches"):
        m = ms[e]
        assert m["status"] == "denied" and m["error"] == "EACCES", (e, m)
        assert all(v is None for v in m["samples"]), (e, m["samples"])
        assert "summary" not in m, (e, m)
    for t in ("wall-time", "user-time", "system-time", "max-rss"):
        # A command smaller than pmcbench has no max-rss of its own (docs/metrics.md):
        # null, with the note saying why, never pmcbench's figure.
        ok = lambda v: isinstance(v, (int, float)) or (
            t == "max-rss" and v is None and "pmcbench's own" in ms[t].get("note", ""))
        assert len(ms[t]["samples"]) == len(ms["task-clock"]["samples"]) and all(
            ok(v) for v in ms[t]["samples"]), (t, ms[t])
PY
}

# The timing job's first step without the sysctl: run measures and reports.
test_denied_run_goes_on_with_wait4() {
	denied_setup || return 1
	expect_exit 0 denied "$PMCBENCH" run -q -r 3 -o r.json -n w -c "$WORK loop 100000" || return 1
	expect_denied_note "$TMP/err" r.json || return 1
	expect_grep 'going on without counters, with what wait4 measures \(wall-time, user-time, system-time, max-rss\)' "$TMP/err" || return 1
	expect_denied_counters r.json || return 1
	# The counters denied for one reason are one line (docs/cli.md, "Width").
	[ "$(grep -c '<denied>' "$TMP/out")" = 1 ] &&
		expect_grep '<denied> +cycles, .*task-clock.*: denied \(EACCES\)' "$TMP/out" || return 1
	expect_grep 'wall-time' "$TMP/out" || return 1
	expect_exit 0 denied "$PMCBENCH" run -q -r 2 --format csv -n w -c "$WORK loop 100000" || return 1
	expect_grep '^"w","task-clock","ns",1,,"denied",' "$TMP/out" || return 1
	expect_no_grep '^"w","task-clock","ns",[0-9]+,0' "$TMP/out"
}

# Without task-clock, cpu-time is user+system of each run and the headline's CPU time
# (docs/compare.md, "The headline"); on a machine so loaded that the loop gets less than a
# fifth of a CPU the headline is in wall-time and says why.
test_denied_headline_on_user_and_system_time() {
	denied_setup || return 1
	expect_exit 0 denied "$PMCBENCH" run -q -r 8 -o r.json -n a -c "$WORK loop 100000" \
		-n b -c "$WORK loop 3000000" || return 1
	expect_grep '^b ran [0-9.]+x slower than a .*\((cpu-time, paired|wall-time, paired; the commands mostly wait: CPU time < 20%)\)$' \
		"$TMP/out" || return 1
	expect_grep '^ +[0-9.]+ [mun]?s +cpu-time ' "$TMP/out" || return 1
	python3 - r.json <<'PY' || fail "cpu-time is not user-time + system-time in every run"
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["benchmarks"]:
    u, s, c = (b["metrics"][k]["samples"] for k in ("user-time", "system-time", "cpu-time"))
    assert len(c) == len(u) == 8 and all(abs(ci - ui - si) < 1e-6 for ci, ui, si in zip(c, u, s)), (u, s, c)
PY
}

# The timing job's measure step as the recipe writes it (TIME_LIMIT task-clock=+5%,
# --profile): task-clock has no value, so the limit cannot be judged: exit 2, an error
# naming the metric and the denial (docs/ci.md), one note, one warning of --profile.
test_denied_timing_step_is_an_error_not_a_pass() {
	denied_setup || return 1
	expect_exit 2 denied "$PMCBENCH" run -q -n base -c "$WORK loop 100000" \
		-n pr -c "$WORK loop 100000" -r auto --max-runs 10 --max-time 60 --timeout 300 \
		--threshold task-clock=+5% --metric task-clock --gate --profile \
		--format markdown --report t.md -o t.json || return 1
	[ "$(grep -c 'note:' "$TMP/err")" = 1 ] || { cat "$TMP/err" >&2; fail "not one note"; return 1; }
	expect_grep '^pmcbench: note: every event is denied' "$TMP/err" || return 1
	[ "$(grep -c 'warning: --profile' "$TMP/err")" = 1 ] ||
		{ cat "$TMP/err" >&2; fail "not one --profile warning"; return 1; }
	expect_grep 'warning: --profile: .*no profiles are recorded' "$TMP/err" || return 1
	expect_grep "task-clock=\+5%: '(base|pr)' has no value of task-clock in round 1 \(denied on this machine" "$TMP/err"
}

# The same step with a limit on what wait4 measures judges it: a pull request whose loop
# runs 300 times the iterations fails (1), one with 1/300 of them passes (0).
test_denied_timing_step_gates_wall_time() {
	denied_setup || return 1
	expect_exit 1 denied "$PMCBENCH" run -q -n base -c "$WORK loop 100000" \
		-n pr -c "$WORK loop 30000000" -r auto --max-runs 30 --max-time 120 \
		--threshold wall-time=+5% --metric wall-time --gate -o slow.json || return 1
	expect_grep 'regression' "$TMP/out" || return 1
	expect_exit 0 denied "$PMCBENCH" run -q -n base -c "$WORK loop 30000000" \
		-n pr -c "$WORK loop 100000" -r auto --max-runs 30 --max-time 120 \
		--threshold wall-time=+5% --metric wall-time --gate -o fast.json || return 1
	expect_denied_counters fast.json
}

# gate against a baseline measured the same way: a limit on a denied counter checked
# nothing, which is an error (2), never a pass (docs/ci.md, docs/compare.md).
test_denied_gate_on_a_denied_counter_is_an_error() {
	denied_setup || return 1
	expect_exit 0 denied "$PMCBENCH" run -q -r 3 -o base.json -n w -c "$WORK loop 100000" || return 1
	expect_exit 0 denied "$PMCBENCH" run -q -r 3 -o new.json -n w -c "$WORK loop 100000" || return 1
	for limit in task-clock=+5% instructions=+0.1%; do
		expect_exit 2 denied "$PMCBENCH" gate --baseline base.json new.json --threshold "$limit" \
			--format markdown --output g.md || return 1
		expect_grep "threshold '${limit//+/\\+}' checked nothing: '${limit%%=*}' has no measured values in either result \(denied\)" "$TMP/err" || return 1
	done
}

# The exact job does not need perf_event_open: valgrind's counts, the profile, the gate.
test_denied_exact_job_is_unaffected() {
	denied_setup || return 1
	command -v valgrind >/dev/null || skip "no valgrind"
	expect_exit 0 denied "$PMCBENCH" run --backend valgrind --timeout 600 -q --profile \
		-o base.json -n w -c "$WORK loop 1000" || return 1
	expect_no_grep 'denied' "$TMP/err" || return 1
	expect_exit 0 denied "$PMCBENCH" run --backend valgrind --timeout 600 -q --profile \
		-o new.json -n w -c "$WORK loop 2000" || return 1
	expect_exit 1 denied "$PMCBENCH" gate --force --baseline base.json new.json \
		--threshold instructions=+0.1% --format markdown --output g.md || return 1
	expect_grep 'instructions' g.md
}

# A benchmark program (the recipe's MICROBENCH) counts in processes of its own, which
# inherit the preload: the same one note, one warning of --profile, denied per operation.
test_denied_benchmark_program() {
	denied_setup || return 1
	if [ -z "${PMC_MB_LCG:-}" ]; then
		skip "no benchmark program in this build (sanitized builds have none)"
	fi
	"${AS[@]}" test -x "$PMC_MB_LCG" || skip "nobody cannot run $PMC_MB_LCG"
	expect_exit 0 denied "$PMC_MB_LCG" -q -r 2 --min-time 0.01 --profile -o mb.json || return 1
	expect_denied_note "$TMP/err" mb.json || return 1
	expect_grep "going on without counters, with the clock's wall-time/op" "$TMP/err" || return 1
	[ "$(grep -c 'warning: --profile' "$TMP/err")" = 1 ] ||
		{ cat "$TMP/err" >&2; fail "not one --profile warning"; return 1; }
	python3 - mb.json <<'PY' || fail "mb.json: a denied counter has a value"
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["benchmarks"]:
    ms = b["metrics"]
    assert ms["task-clock/op"]["status"] == "denied", ms["task-clock/op"]
    assert all(v is None for v in ms["task-clock/op"]["samples"])
    assert all(v > 0 for v in ms["wall-time/op"]["samples"])
PY
}

# The real kernel at perf_event_paranoid 2 (no shim): it records context switches and CPU
# migrations in kernel mode only, so their user-space-only retry would count 0 as a
# number (it did: "counted", 0); they are denied, saying why, while task-clock and
# page-faults fall back to :u and count.
test_paranoid2_kernel_recorded_events_denied() {
	[ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)" = 2 ] ||
		skip "perf_event_paranoid is not 2 here"
	unprivileged_setup || return 1
	expect_exit 0 "${AS[@]}" "$PMCBENCH" run -r 2 -o r.json -n w \
		-e context-switches,cpu-migrations,task-clock,page-faults -c "$WORK loop 1000" ||
		return 1
	expect_grep 'note: 2 events not counted \(context-switches, cpu-migrations\): .*records these events in kernel mode only \(a :u count is always 0\)' "$TMP/err" || return 1
	python3 - r.json <<'PY' || fail "r.json: a kernel-recorded event was counted under :u"
import json, sys
d = json.load(open(sys.argv[1]))
ms = d["benchmarks"][0]["metrics"]
for e in ("context-switches", "cpu-migrations"):
    assert ms[e]["status"] == "denied" and ms[e]["error"] == "EACCES", (e, ms[e])
    assert all(v is None for v in ms[e]["samples"]), (e, ms[e])
    assert e + ":u" not in ms, ms.keys()
for e in ("task-clock:u", "page-faults:u"):
    assert all(v > 0 for v in ms[e]["samples"]), (e, ms[e])
PY
}
