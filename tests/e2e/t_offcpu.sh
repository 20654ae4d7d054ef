# Off-CPU time (docs/profile.md, "Off-CPU time"), as perf record -e sched:sched_switch -g:
# where a command waits, each switch-out's stack weighing the nanoseconds until its thread
# runs again. $PMC_PROF_WAIT is tests/targets/prof_wait.c: 4 x 50 ms asleep in waits_here,
# 10 ms in waits_less. Against the real kernel; skipped where the tracepoint cannot be had.

need_sched_switch() {
	[ -n "${PMC_PROF_WAIT:-}" ] || skip "PMC_PROF_WAIT (tests/targets/prof_wait.c) is not set"
	[ "$(id -u)" = 0 ] || skip "not root: sched:sched_switch needs root (or CAP_PERFMON and tracefs access)"
	[ -d /sys/kernel/tracing/events ] || [ -d /sys/kernel/debug/tracing/events ] ||
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
		skip "no tracefs: this kernel cannot mount it at /sys/kernel/tracing"
	[ -d /sys/kernel/tracing/events/sched/sched_switch ] ||
		[ -d /sys/kernel/debug/tracing/events/sched/sched_switch ] ||
		skip "no sched:sched_switch tracepoint in this kernel"
}

# The sleeps are known: 210 ms, 4/5 of it in waits_here. A sleep lasts at least what it
# asked (nanosleep(2)), so the time off CPU is at least their sum; the margin above is for
# the wake-ups' latency and the waits of the start-up and exit (page faults on a loaded
# machine), which 3x bounds. The share of waits_here (200 of 210 ms, 95.2%, less what the
# start waits) is asked between 60% and 99%: above 99% waits_here would hold 99 times
# waits_less's 10 ms or more, beyond the 3x bound.
test_offcpu_names_where_the_command_sleeps() {
	need_sched_switch
	expect_exit 0 "$PMCBENCH" record --off-cpu -o off.json -- "$PMC_PROF_WAIT" || return 1
	expect_grep 'recorded [0-9]+ waits off CPU \([0-9.]+ ms\) into off.json' "$TMP/err" || return 1
	[ "$(json_get off.json 'd["event"]')" = off-cpu ] || { fail "the event is not off-cpu"; return 1; }
	[ "$(json_get off.json 'd["unit"]')" = ns ] || { fail "the unit is not ns"; return 1; }
	python3 - off.json >&2 <<'PY' || fail "off-CPU time does not match the sleeps" || return 1
import json, sys
d = json.load(open(sys.argv[1]))
def names(s):
    return {d["frames"][f].get("symbol") for f in s["frames"]}
here = sum(s["weight"] for s in d["stacks"] if "waits_here" in names(s))
less = sum(s["weight"] for s in d["stacks"] if "waits_less" in names(s))
total = d["total"]
sleeps = 210e6
print("off CPU %.1f ms: waits_here %.1f ms (%.1f%%), waits_less %.1f ms" %
      (total / 1e6, here / 1e6, 100 * here / total, less / 1e6))
# A wait starts a few microseconds after its sleep's timer is set: 1% for those.
ok = 0.99 * sleeps <= total < 3 * sleeps and 0.60 <= here / total <= 0.99
ok = ok and here >= 0.99 * 200e6 and less >= 0.99 * 10e6
sys.exit(0 if ok else 1)
PY
	# The report ranks by the time off CPU: by total, waits_here above waits_less.
	expect_exit 0 "$PMCBENCH" report --children off.json || return 1
	first=$(grep -E 'waits_here|waits_less' "$TMP/out" | head -1)
	case $first in *waits_here*) ;; *) fail "first of the two: $first"; return 1 ;; esac
	expect_exit 0 "$PMCBENCH" report --folded off.json || return 1
	expect_grep '(^|;)main;waits_here;' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" report --svg off.svg off.json || return 1
	grep -q 'waits_here' off.svg || { fail "the flame graph does not draw waits_here"; return 1; }
}

# report --diff of two off-CPU profiles ranks by the change of each function's time off
# CPU (its total: the self time is the kernel's schedule), measured, not sampled: B's
# waits_here naps 4 x 100 ms instead of 4 x 50 ms, waits_less 10 ms in both. Its change
# is the 200 ms more it asked, give or take the difference of the two runs' wake-up
# latencies (each nap lasts at least what it asked, and A's may oversleep as much as
# B's: 197.9 ms was seen), so at least 150 ms and under 3x, with no "~"; waits_less is
# listed after it and moved by less than 50 ms. The differential flame graph draws
# waits_here red.
test_offcpu_diff_ranks_by_the_change_of_waiting() {
	need_sched_switch
	expect_exit 0 "$PMCBENCH" record --off-cpu -o a.json -- "$PMC_PROF_WAIT" 50 10 || return 1
	expect_exit 0 "$PMCBENCH" record --off-cpu -o b.json -- "$PMC_PROF_WAIT" 100 10 || return 1
	expect_exit 0 "$PMCBENCH" report --diff --svg d.svg a.json b.json || return 1
	expect_grep '^Profile diff: off-cpu \(ns\), measured: functions by the change of their time off CPU' "$TMP/out" || return 1
	python3 - "$TMP/out" >&2 <<'PY' || fail "the diff does not show waits_here's change" || return 1
import re, sys
units = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
rows = {}
order = []
for line in open(sys.argv[1]):
    m = re.match(r"^ +(\S+) +(\S+) +([+-][0-9.]+)(ns|us|ms|s)?  (\S+)$", line)
    if m:
        rows[m.group(5)] = float(m.group(3)) * units[m.group(4) or "ns"]
        order.append(m.group(5))
print(rows)
here, less = rows.get("waits_here"), rows.get("waits_less", 0.0)
ok = here is not None and 150e6 <= here < 3 * 200e6 and abs(less) < 50e6
ok = ok and ("waits_less" not in order or order.index("waits_here") < order.index("waits_less"))
sys.exit(0 if ok else 1)
PY
	expect_no_grep '~' "$TMP/out" || return 1
	expect_grep 'change of the time off CPU, measured' d.svg || return 1
	grep -A1 '<title>waits_here (' d.svg | grep -qE 'fill="rgb\(255,[0-9]{1,2},[0-9]{1,2}\)"' ||
		fail "waits_here is not red in the differential flame graph"
}

# run --profile=off-cpu: the profiled run of each command records its waits (the
# option reaches the recorder: the saved profiles are off-cpu, waits_here's time is its
# naps'), and a gate that finds the wall time grew says how the time off CPU changed,
# with the command that ranks it by function and the differential flame graph. new
# naps 4 x 40 ms in waits_here, old 4 x 20 ms: +80 ms of the waits at least.
test_run_profile_off_cpu_reaches_the_recorder() {
	need_sched_switch
	expect_exit 1 "$PMCBENCH" run -r 6 --profile=off-cpu -n old -c "$PMC_PROF_WAIT 20 5" \
		-n new -c "$PMC_PROF_WAIT 40 5" --threshold wall-time=+10% --gate -o g.json || return 1
	for side in old new; do
		[ "$(json_get "g.profiles/$side.json" 'd["event"]')" = off-cpu ] ||
			{ fail "g.profiles/$side.json is not an off-CPU profile"; return 1; }
	done
	python3 - g.profiles/new.json >&2 <<'PY' || fail "new's waits are not its naps" || return 1
import json, sys
d = json.load(open(sys.argv[1]))
here = sum(s["weight"] for s in d["stacks"]
           if "waits_here" in {d["frames"][f].get("symbol") for f in s["frames"]})
print("waits_here %.1f ms" % (here / 1e6))
sys.exit(0 if 0.99 * 160e6 <= here < 3 * 160e6 else 1)
PY
	expect_grep '^new: wall-time \+[0-9.]+% .*the profiles are of off-cpu: where the commands waited' "$TMP/out" || return 1
	expect_grep '^  time off CPU \(the profiles. waits\): [0-9.]+m?s -> [0-9.]+m?s \(\+[0-9.]+ms\); by function: pmcbench report --diff g.profiles/old.json g.profiles/new.json$' "$TMP/out" || return 1
	expect_grep '^  differential flame graph: g.profiles/new.diff.svg$' "$TMP/out" || return 1
	expect_grep 'change of the time off CPU, measured' g.profiles/new.diff.svg || return 1
	expect_exit 0 "$PMCBENCH" report --diff g.profiles/old.json g.profiles/new.json || return 1
	expect_grep ' \+[0-9.]+ms  waits_here$' "$TMP/out"
}

# Options that would sample something else are refused before anything runs.
test_offcpu_option_errors() {
	expect_exit 2 "$PMCBENCH" record --off-cpu -e cpu-clock -o off.json -- true || return 1
	expect_one_line "$TMP/err" "--off-cpu samples every switch-out" || return 1
	expect_exit 2 "$PMCBENCH" record --off-cpu --backend valgrind -o off.json -- true || return 1
	expect_one_line "$TMP/err" "leave them out" || return 1
	# run --profile's kinds: off-cpu or none; not with valgrind, nor for registered
	# benchmarks, whose profile is a second of their loop's CPU time.
	expect_exit 2 "$PMCBENCH" run --profile=offcpu -c true || return 1
	expect_one_line "$TMP/err" "--profile=offcpu: not a kind of profile; give --profile .* or --profile=off-cpu" || return 1
	expect_exit 2 "$PMCBENCH" run --profile=off-cpu --backend valgrind -c true || return 1
	expect_one_line "$TMP/err" "--profile=off-cpu records where the commands wait.*--backend valgrind profiles instructions" || return 1
	expect_exit 2 "$PMCBENCH" run --library "$PMC_BENCHLIB" --profile=off-cpu -q || return 1
	expect_one_line "$TMP/err" "--profile=off-cpu records where commands wait .*a benchmark's profile samples its loop's CPU time" || return 1
	[ ! -e pmcbench.profiles ] || fail "profiles were written"
}

# Where tracefs is not readable (an unprivileged user; it is root's, mode 700), one line
# says what is missing and the fix, and the status is 2.
test_offcpu_denied_is_one_line() {
	[ "$(id -u)" = 0 ] || skip "not root: cannot run as another, unprivileged user"
	command -v setpriv >/dev/null || skip "no setpriv to run as an unprivileged user"
	chmod 755 "$TMP" && mkdir "$TMP/u" && chown nobody "$TMP/u" && cd "$TMP/u" || return 1
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups test -x "$PMCBENCH" ||
		skip "nobody cannot run $PMCBENCH (a build directory others cannot read)"
	expect_exit 2 setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
		"$PMCBENCH" record --off-cpu -o off.json -- true || return 1
	expect_one_line "$TMP/err" "record: off-CPU time samples sched:sched_switch: .*(root|CAP_PERFMON)" || return 1
	[ ! -e off.json ] || fail "a profile was written"
}
