# Kernel event counts without a PMU (docs/events.md, "Tracepoints", "Function calls"):
# tracepoints by name and glob, the --syscalls preset and gates on it, uprobes per
# operation, and their errors. Against the real kernel; skipped where tracefs or the
# uprobe PMU is missing or the tests do not run as root.

need_tracefs() {
	[ "$(id -u)" = 0 ] || skip "not root: tracepoints need root (or CAP_PERFMON and tracefs access)"
	[ -d /sys/kernel/tracing/events ] || [ -d /sys/kernel/debug/tracing/events ] ||
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
		skip "no tracefs: this kernel cannot mount it at /sys/kernel/tracing"
	local root=/sys/kernel/tracing
	[ -d $root/events ] || root=/sys/kernel/debug/tracing
	[ -d $root/events/syscalls/sys_enter_getpid ] || skip "no syscall tracepoints (CONFIG_FTRACE_SYSCALLS)"
}

need_uprobes() {
	[ "$(id -u)" = 0 ] || skip "not root: the uprobe PMU needs root (or CAP_PERFMON)"
	[ -r /sys/bus/event_source/devices/uprobe/type ] || skip "no uprobe PMU in this kernel"
}

# Uprobes through tracefs probes (docs/events.md, "Function calls"): the uprobe PMU for the
# event's name, and tracefs's uprobe_events to define the probes in; tracefs is mounted
# here when it is not (as need_tracefs does; pmcbench itself never mounts it for probes).
need_uprobe_probes() {
	need_uprobes
	[ -d /sys/kernel/tracing/events ] || [ -d /sys/kernel/debug/tracing/events ] ||
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
		skip "no tracefs: this kernel cannot mount it at /sys/kernel/tracing"
	TRACEFS=/sys/kernel/tracing
	[ -d $TRACEFS/events ] || TRACEFS=/sys/kernel/debug/tracing
	[ -w $TRACEFS/uprobe_events ] || skip "no uprobe_events in tracefs (CONFIG_UPROBE_EVENTS)"
}

# The pids of pmcbench probe groups in uprobe_events whose pmcbench has ended: none after
# a run, which deletes its own and those of any pmcbench killed before. A pmcbench of
# another test deletes its probes and then exits: a group listed while it was alive and
# found gone after is read again, and only a group still listed then is left over.
probe_group_pids() {
	sed -n 's,^[pr]:pmcbench_\([0-9]*\)/.*,\1,p' $TRACEFS/uprobe_events | sort -u
}
gone_probe_groups() {
	local pid gone=
	for pid in $(probe_group_pids); do
		kill -0 "$pid" 2>/dev/null || gone="$gone $pid"
	done
	[ -n "$gone" ] || return 0
	for pid in $(probe_group_pids); do
		case " $gone " in *" $pid "*) echo "$pid" ;; esac
	done
}

# values FILE METRIC [BENCH]: the metric's samples, one per line, as integers.
values() {
	python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = d["benchmarks"][0] if len(sys.argv) < 4 else [x for x in d["benchmarks"] if x["name"] == sys.argv[3]][0]
for v in b["metrics"][sys.argv[2]]["samples"]:
    print(v if not isinstance(v, float) else ("%.3f" % v))
PY
}

test_tp_getpid_counts_exactly_n_in_every_run() {
	need_tracefs
	expect_exit 0 "$PMCBENCH" run -r 5 -e syscalls:sys_enter_getpid,sched:sched_switch \
		-o a.json -- "$WORK" getpid 1234 || return 1
	values a.json syscalls:sys_enter_getpid >got || return 1
	printf '1234\n1234\n1234\n1234\n1234\n' >want
	cmp -s got want || { cat got >&2; fail "getpid counts are not 1234 in every run"; return 1; }
	# sched:sched_switch follows the machine's load: not one of the counts the footnote
	# vouches for (pmc_metric_kernel_identical).
	expect_grep "kernel's exact counts .*identical in every run \(1 event\)" "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" run -r 2 -e 'syscalls:sys_enter_getpid:u' -o b.json -- "$WORK" getpid 0 || return 1
	values b.json syscalls:sys_enter_getpid:u >got || return 1
	printf '0\n0\n' >want
	cmp -s got want || { cat got >&2; fail "getpid 0 counted something"; return 1; }
}

# A benchmark program's pmc_pause/pmc_resume pair without a PMU (docs/microbench.md,
# "Untimed work"): a software group is never on a counter, so it is disabled and enabled
# with ioctl(), two system calls a pair whatever the group holds, and no more (the default
# events, one group, too). pause_syscalls (tests/guest/pmu_bench.c) counts them with
# raw_syscalls:sys_enter around each pair; the arm64 guest's test_pause_without_syscalls
# has the pair read through the pages, with none.
test_tp_pause_pair_syscalls_without_a_pmu() {
	need_tracefs
	local ev got
	for ev in task-clock '{task-clock,page-faults}' default; do
		if [ "$ev" = default ]; then
			set -- "$PMC_PMU_BENCH"
		else
			set -- "$PMC_PMU_BENCH" -e "$ev"
		fi
		expect_exit 0 "$@" -q --min-time 500x --processes 2 --filter pause_syscalls \
			--format csv || return 1
		got=$(awk -F, '$2 == "\"pause-syscalls/op\"" { print $5 }' "$TMP/out" | sort -u | tr '\n' ' ')
		[ "$got" = "2 " ] || fail "$ev: ${got% } system calls a pair, not 2" || return 1
	done
}

# Whether repeated runs read the same count is said per metric, in the table and the
# result, and decides how a gate judges it (docs/metrics.md, "Identical runs").
test_tp_identical_runs_flag() {
	need_tracefs
	expect_exit 0 "$PMCBENCH" run -r 5 -e syscalls:sys_enter_getpid -o same.json -- "$WORK" getpid 300 || return 1
	expect_grep "syscalls:sys_enter_getpid +=  identical in 5 runs" "$TMP/out" || return 1
	[ "$(json_get same.json 'd["benchmarks"][0]["metrics"]["syscalls:sys_enter_getpid"]["identical_runs"]')" = True ] ||
		{ fail "getpid counts not flagged identical"; return 1; }
	# Each run opens one file more than the one before: its count varies.
	printf '#!/bin/sh
n=$(cat "%s/count" 2>/dev/null || echo 0)
echo $((n + 1)) >"%s/count"
i=0
while [ $i -lt $n ]; do : <"%s/count"; i=$((i + 1)); done
' \
		"$TMP" "$TMP" "$TMP" >vary && chmod +x vary
	expect_exit 0 "$PMCBENCH" run -r 5 -e syscalls:sys_enter_openat -o vary.json -- ./vary || return 1
	expect_no_grep "identical in [0-9]+ runs" "$TMP/out" || return 1
	expect_grep "syscalls:sys_enter_openat +± " "$TMP/out" || return 1
	[ "$(json_get vary.json 'd["benchmarks"][0]["metrics"]["syscalls:sys_enter_openat"]["identical_runs"]')" = False ] ||
		{ fail "varying openat counts flagged identical"; return 1; }
	# Identical sides are compared as counts; varying ones by the test.
	expect_exit 0 "$PMCBENCH" compare same.json same.json --all --format json || return 1
	expect_grep '"identical_runs": ?true' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" compare same.json same.json --all || return 1
	expect_grep "0% \(identical runs\) +identical n=5\+5" "$TMP/out" || return 1
	expect_no_grep "simulated" "$TMP/out" || return 1
	# Three runs a side decide, where a test would need four: one getpid more is a change.
	expect_exit 0 "$PMCBENCH" run -r 3 -q -e syscalls:sys_enter_getpid -o a3.json -- "$WORK" getpid 300 || return 1
	expect_exit 0 "$PMCBENCH" run -r 3 -q -e syscalls:sys_enter_getpid -o b3.json -- "$WORK" getpid 301 || return 1
	expect_exit 1 "$PMCBENCH" gate --baseline a3.json b3.json --force --threshold syscalls:sys_enter_getpid=+0% || return 1
	expect_grep "\+0\.33[0-9]*% \(identical runs\) +identical n=3\+3" "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" gate --baseline a3.json a3.json --threshold syscalls:sys_enter_getpid=+0% || return 1
	expect_exit 0 "$PMCBENCH" compare vary.json vary.json --all --metric syscalls:sys_enter_openat --format json || return 1
	expect_grep '"kind": ?"tested"' "$TMP/out" || return 1
	expect_no_grep '"identical_runs"' "$TMP/out" || return 1
}

test_tp_glob_equals_perf_stat() {
	need_tracefs
	command -v perf >/dev/null || skip "no perf"
	# LC_ALL=C as pmcbench gives its commands: env's own setlocale() then opens nothing.
	env -i PATH="$PATH" LC_ALL=C perf stat -x, -e 'syscalls:sys_enter_*' -o perf.csv -- env -i "$WORK" open 7 /etc/hostname ||
		skip "perf stat cannot count tracepoints here"
	expect_exit 0 "$PMCBENCH" run -r 3 -e 'syscalls:sys_enter_*' -o a.json -- env -i "$WORK" open 7 /etc/hostname || return 1
	python3 - a.json perf.csv <<'PY' >&2 || { fail "counts differ from perf stat's"; return 1; }
import json, sys
d = json.load(open(sys.argv[1]))
m = d["benchmarks"][0]["metrics"]
perf = {}
for line in open(sys.argv[2]):
    f = line.strip().split(",")
    if len(f) > 3 and f[2].startswith("syscalls:"):
        perf[f[2]] = int(f[0])
ours = {k: v["samples"] for k, v in m.items() if k.startswith("syscalls:sys_enter_")}
assert len(ours) == len(perf) > 100, (len(ours), len(perf))
bad = [(k, ours[k], perf[k]) for k in perf if any(s != perf[k] for s in ours[k])]
assert not bad, bad
print("equal to perf stat's for", len(perf), "tracepoints")
assert perf["syscalls:sys_enter_openat"] >= 7
assert m["syscalls:total"]["samples"][0] == sum(perf.values())
PY
	# The table: the non-zero ones by count, the zero ones only counted in a note.
	expect_grep "^ +[0-9]+ +syscalls:total " "$TMP/out" || return 1
	expect_no_grep "syscalls:sys_enter_accept4 " "$TMP/out" || return 1
	expect_grep "not shown: .*[0-9]+ that counted 0 in every run \(all are in the result file\)" "$TMP/out" || return 1
	awk '/syscalls:sys_enter_/ {print $1}' "$TMP/out" | tr -d , >order
	sort -rn order | cmp -s - order || { cat "$TMP/out" >&2; fail "tracepoints not sorted by count"; return 1; }
}

# A gate on one system call: a build that opens one more file per run fails; A/A passes.
test_tp_gate_on_openat() {
	need_tracefs
	# One program, two builds: the second opens one more file per run.
	printf '#!/bin/sh\nexec "%s" open 10 /etc/hostname\n' "$WORK" >prog && chmod +x prog
	expect_exit 0 "$PMCBENCH" run -r 5 --syscalls -q -o base.json -- ./prog || return 1
	expect_exit 0 "$PMCBENCH" run -r 5 --syscalls -q -o same.json -- ./prog || return 1
	printf '#!/bin/sh\nexec "%s" open 11 /etc/hostname\n' "$WORK" >prog
	expect_exit 0 "$PMCBENCH" run -r 5 --syscalls -q -o more.json -- ./prog || return 1
	expect_exit 0 "$PMCBENCH" gate --baseline base.json same.json --threshold syscalls:sys_enter_openat=+0% || return 1
	expect_exit 1 "$PMCBENCH" gate --baseline base.json more.json --threshold syscalls:sys_enter_openat=+0% || return 1
	expect_grep "syscalls:sys_enter_openat" "$TMP/out" || return 1
	# Their total too.
	expect_exit 0 "$PMCBENCH" gate --baseline base.json same.json --threshold syscalls:total=+0% || return 1
	expect_exit 1 "$PMCBENCH" gate --baseline base.json more.json --threshold syscalls:total=+0% || return 1
}

test_tp_errors_are_one_line() {
	need_tracefs
	expect_exit 2 "$PMCBENCH" run -r 1 -e 'syscalls:sys_entr_*' -- true || return 1
	expect_one_line "$TMP/err" "'syscalls:sys_entr_\*' matches no tracepoint" || return 1
	expect_exit 2 "$PMCBENCH" run -r 1 -e 'sycalls:sys_enter_getpid' -- true || return 1
	expect_one_line "$TMP/err" "unknown tracepoint subsystem 'sycalls'.*did you mean 'syscalls'" || return 1
	expect_exit 2 "$PMCBENCH" run -r 1 -e 'syscalls:sys_enter_getpdi' -- true || return 1
	expect_one_line "$TMP/err" "did you mean 'syscalls:sys_enter_getpid'" || return 1
	command -v setpriv >/dev/null || skip "no setpriv to run as an unprivileged user"
	cp "$PMCBENCH" "$TMP/pmcbench-copy" 2>/dev/null && chmod 755 "$TMP" "$TMP/pmcbench-copy"
	expect_exit 2 setpriv --reuid=65534 --regid=65534 --clear-groups "$PMCBENCH" run -r 1 \
		-e 'syscalls:sys_enter_getpid' -- true || return 1
	expect_one_line "$TMP/err" "tracefs .*(not readable by this user|not mounted).*(run as root|sudo)" || return 1
}

test_tp_list_tracepoint() {
	need_tracefs
	expect_exit 0 "$PMCBENCH" list tracepoint 'syscalls:sys_enter_getp*' || return 1
	expect_grep "syscalls:sys_enter_getpid" "$TMP/out" || return 1
	expect_grep "syscalls:sys_enter_getppid" "$TMP/out" || return 1
	expect_no_grep "sys_exit_getpid|sched:" "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" list tracepoint || return 1
	expect_grep "sched:sched_switch" "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" list --names tracepoint 'sched:sched_sw*' || return 1
	expect_grep "^sched:sched_switch$" "$TMP/out" || return 1
}

# A benchmark calling malloc three times per operation: exactly 3 mallocs/op.
test_uprobe_mallocs_per_op() {
	need_uprobes
	[ -n "${PMC_MB_ALLOCS:-}" ] || skip "no benchmark programs in this build (sanitized)"
	expect_exit 0 "$PMC_MB_ALLOCS" --allocs -r 2 --filter '^(three|no)_mallocs$' -o a.json || return 1
	values a.json uprobe:libc:malloc/op three_mallocs >got || return 1
	values a.json uprobe:libc:free/op three_mallocs >>got || return 1
	values a.json uprobe:libc:malloc/op no_mallocs >>got || return 1
	printf '3\n3\n3\n3\n0\n0\n' >want
	cmp -s got want || { cat got >&2; fail "not exactly 3 mallocs and frees per operation"; return 1; }
	expect_grep "uprobe:libc:malloc/op" "$TMP/out" || return 1
	expect_grep "uprobe.*disturb" "$TMP/err" || return 1
}

# A multithreaded benchmark's inherited counters read after its threads are joined hold
# every thread's events (docs/microbench.md, "Threads"): 3 getppid calls per operation on
# 1, 2 and 4 threads, exactly 3/op in every run.
test_tp_threads_count_every_thread() {
	need_tracefs
	[ -n "${PMC_MB_THREADS:-}" ] || skip "no benchmark programs in this build (sanitized)"
	expect_exit 0 "$PMC_MB_THREADS" -e syscalls:sys_enter_getppid -r 5 --min-time 0.002 \
		-o a.json || return 1
	: >got
	for b in getppid_3/threads:1 getppid_3/threads:2 getppid_3/threads:4; do
		values a.json syscalls:sys_enter_getppid/op "$b" >>got || return 1
	done
	printf '3\n%.0s' $(seq 15) >want
	cmp -s got want || { cat got >&2; fail "not exactly 3 getppid per operation on every thread"; return 1; }
}

# A uprobe on a multithreaded benchmark, through tracefs probes (each of its processes
# defines its own): exactly its 3 calls per operation on one thread and on two, without a
# note. (Through the uprobe PMU the threads' calls are missed, and the metric is not
# measured: tests/test_alloc.c.)
test_uprobe_threads_counted() {
	need_uprobe_probes
	[ -n "${PMC_MB_THREADS:-}" ] || skip "no benchmark programs in this build (sanitized)"
	local ev="uprobe:$PMC_MB_THREADS:mark"
	expect_exit 0 "$PMC_MB_THREADS" -e "$ev" --filter '^mark_3/' -r 2 --min-time 0.002 \
		-o a.json || return 1
	values a.json "$ev/op" mark_3/threads:1 >got || return 1
	values a.json "$ev/op" mark_3/threads:2 >>got || return 1
	printf '3\n3\n3\n3\n' >want
	cmp -s got want || { cat got >&2; fail "a threaded uprobe count is not 3 per operation"; return 1; }
	[ "$(json_get a.json "[b for b in d['benchmarks'] if b['name'] == 'mark_3/threads:2'][0]['metrics']['$ev/op'].get('note')")" = None ] ||
		{ fail "a note on the threaded uprobe metric"; return 1; }
	[ -z "$(gone_probe_groups)" ] || { cat $TRACEFS/uprobe_events >&2; fail "probes left in uprobe_events"; return 1; }
}

# A function of the program itself, by path; the same file stripped has no such symbol.
test_uprobe_by_path_and_stripped_file() {
	need_uprobes
	expect_exit 0 "$PMCBENCH" run -r 2 -e "uprobe:$WORK:loop" -o a.json -- "$WORK" loop 1000 || return 1
	values a.json "uprobe:$WORK:loop" >got || return 1
	printf '1\n1\n' >want
	cmp -s got want || { cat got >&2; fail "loop() not counted once per run"; return 1; }
	cp "$WORK" stripped && strip --strip-all stripped || skip "no strip"
	expect_exit 2 "$PMCBENCH" run -r 1 -e "uprobe:$TMP/stripped:loop" -- ./stripped loop 10 || return 1
	expect_one_line "$TMP/err" "stripped has no function symbol 'loop'" || return 1
	expect_exit 2 "$PMCBENCH" run -r 1 -e "uprobe:libnosuch:foo" -- "$WORK" loop 10 || return 1
	expect_one_line "$TMP/err" "does not load a library 'libnosuch'" || return 1
}

# A program whose two threads and forked child call mark() 1500 times in all: the
# threads and the child start (through the uprobe PMU their pthread_create and fork got
# EFAULT) and the count is exactly 1500 in every run; no probe of it is left afterwards,
# nor one that a killed pmcbench left before.
test_uprobe_threads_and_children_count() {
	need_uprobe_probes
	local ev="uprobe:$WORK:mark" gone
	sh -c : &
	gone=$!
	wait $gone
	echo "p:pmcbench_$gone/e0_mark $WORK:0x0" >>$TRACEFS/uprobe_events ||
		{ fail "cannot define a probe as a killed pmcbench would have left it"; return 1; }
	expect_exit 0 "$PMCBENCH" run -r 3 -e "$ev,$ev%return" -o a.json -- "$WORK" spread 1500 || return 1
	values a.json "$ev" >got || return 1
	values a.json "$ev%return" >>got || return 1
	printf '1500\n%.0s' 1 2 3 4 5 6 >want
	cmp -s got want || { cat got >&2; fail "mark() not counted 1500 times over threads and a child"; return 1; }
	[ -z "$(gone_probe_groups)" ] || { cat $TRACEFS/uprobe_events >&2; fail "probes left in uprobe_events"; return 1; }
	! grep -q "uprobe PMU" "$TMP/err" || { cat "$TMP/err" >&2; fail "counted through the uprobe PMU"; return 1; }
}

test_doctor_reports_kernel_counts() {
	need_tracefs
	expect_exit 0 "$PMCBENCH" doctor || return 1
	expect_grep "^    tracefs: +/sys/kernel/(debug/)?tracing$" "$TMP/out" || return 1
	expect_grep "^    tracepoint PMU: +type [0-9]+; syscalls:sys_enter_getpid opens$" "$TMP/out" || return 1
	if [ -r /sys/bus/event_source/devices/uprobe/type ]; then
		expect_grep "^    uprobe PMU: +type $(cat /sys/bus/event_source/devices/uprobe/type)" "$TMP/out" || return 1
	fi
}

# run -I (docs/metrics.md, "Intervals"): 1000 getpid() calls, a sleep of 350 ms, 1000
# more. The first burst is in the first interval the command runs in, the second ends the run, so it is in the
# last (partial) interval, and the intervals between count a real 0 (at least two of the
# 100 ms ones fit in the sleep). A busy machine may stretch the sleep, and a tick may fall
# inside a burst (the calls then split between two intervals): the check allows both, but
# not a call in the quiet middle. Every run's intervals sum to its total and end where it
# did.
test_tp_intervals_show_the_phases() {
	need_tracefs
	expect_exit 0 "$PMCBENCH" run -r 2 -I 100 -e syscalls:sys_enter_getpid -o iv.json -- \
		"$WORK" phases 1000 350 || return 1
	expect_grep "^Counts per interval: .*phases 1000 350 \(run 2 of 2; every run's are in the result file\)$" "$TMP/out" || return 1
	expect_grep "^  time \(s\)  syscalls:sys_enter_getpid$" "$TMP/out" || return 1
	expect_grep "^ +0\.[0-9]{3} +[1-9][0-9,]*$" "$TMP/out" || return 1
	expect_grep "^ +0\.[0-9]{3} +0$" "$TMP/out" || return 1
	python3 - iv.json <<'PY' || { fail "the result's intervals are not the phases"; return 1; }
import json, sys
b = json.load(open(sys.argv[1]))["benchmarks"][0]
ev = "syscalls:sys_enter_getpid"
assert len(b["runs"]) == 2, b["runs"]
for r, run in enumerate(b["runs"]):
    iv = run["intervals"]
    counts = [i["counts"][ev] for i in iv]
    ends = [i["end_ns"] for i in iv]
    assert all(type(c) is int for c in counts), counts
    # The bursts, and the real zeros between them.
    # A loaded machine may start the command after the first tick: the intervals before
    # its first call are real zeros too.
    start = next(k for k, c in enumerate(counts) if c > 0)
    first = next(k for k in range(start, len(counts)) if counts[k] == 0)
    last = max(k for k, c in enumerate(counts) if c == 0)
    assert sum(counts[start:first]) == 1000, counts
    assert counts[first:last + 1] == [0] * (last + 1 - first) and last - first >= 1, counts
    assert counts[-1] > 0 and sum(counts[last + 1:]) == 1000, counts
    assert ends == sorted(set(ends)) and ends[0] >= 100000000, ends
    assert sum(counts) == b["metrics"][ev]["samples"][r], (counts, b["metrics"][ev])
    assert ends[-1] == b["metrics"]["wall-time"]["samples"][r], (ends, b["metrics"]["wall-time"])
PY
}

test_intervals_refused_where_they_cannot_be() {
	expect_exit 2 "$PMCBENCH" run -I 5 -- "$WORK" getpid 1 || return 1
	expect_one_line "$TMP/err" "^pmcbench: -I 5: the interval must be at least 10 ms, as perf stat's; give -I 10 or more$" || return 1
	expect_exit 2 "$PMCBENCH" run -I 100 --backend valgrind -- "$WORK" getpid 1 || return 1
	expect_one_line "$TMP/err" "^pmcbench: -I reads the counters while a command runs: not with --backend valgrind" || return 1
	expect_exit 2 "$PMCBENCH" run -I x -- "$WORK" getpid 1 || return 1
	expect_lines 1 "$TMP/err" || return 1
	expect_exit 2 "$PMCBENCH" run -I 100 -p $$ --duration 0.1 -e task-clock || return 1
	expect_one_line "$TMP/err" "^pmcbench: -I reads the counters of a command pmcbench runs; -p counts in windows instead" || return 1
}
