# Attached counting (docs/cli.md, run -p and -a; docs/events.md, "Attached counting"), as
# perf stat -p PID and -a: a running server (tests/targets/attach_target.c) counted while a
# client command makes it work, for a duration, or every CPU; and the errors. Against the
# real kernel.

# Starts the server with N getpid() calls per request in $TMP; sets SERVER (its pid).
start_server() {
	[ -n "${PMC_ATTACH_TARGET:-}" ] || skip "PMC_ATTACH_TARGET (tests/targets/attach_target.c) is not set"
	mkfifo "$TMP/in" "$TMP/out" || return 1
	"$PMC_ATTACH_TARGET" "$1" "$TMP/in" "$TMP/out" "$TMP/ready" &
	SERVER=$!
	# Its pipes are open once the file exists; a bounded wait, not a timing.
	for _ in $(seq 200); do [ -e "$TMP/ready" ] && return 0; sleep 0.05; done
	fail "the server did not start"
}

stop_server() {
	printf q >"$TMP/in"
	wait "$SERVER"
}

# The client: one request, and its answer.
CLIENT='printf x >in && head -c 1 out >/dev/null'

need_getpid_tracepoint() {
	[ "$(id -u)" = 0 ] || skip "not root: tracepoints need root (or CAP_PERFMON and tracefs access)"
	[ -d /sys/kernel/tracing/events ] || [ -d /sys/kernel/debug/tracing/events ] ||
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
		skip "no tracefs: this kernel cannot mount it at /sys/kernel/tracing"
	[ -d /sys/kernel/tracing/events/syscalls/sys_enter_getpid ] ||
		[ -d /sys/kernel/debug/tracing/events/syscalls/sys_enter_getpid ] ||
		skip "no syscall tracepoints (CONFIG_FTRACE_SYSCALLS)"
}

# Each window counts exactly the server's calls made during the client's run, in a thread
# the server started after the attach; the client's own calls are not counted.
test_attach_pid_counts_exactly_the_servers_work_per_window() {
	need_getpid_tracepoint
	start_server 777 || return 1
	cd "$TMP" || return 1
	expect_exit 0 "$PMCBENCH" run -p "$SERVER" -r 3 -e syscalls:sys_enter_getpid,task-clock \
		-o a.json -- sh -c "$CLIENT" || { stop_server; return 1; }
	stop_server
	json_get a.json "[int(v) for v in d['benchmarks'][0]['metrics']['syscalls:sys_enter_getpid']['samples']]" >got
	[ "$(cat got)" = "[777, 777, 777]" ] || { cat got >&2; fail "not 777 getpid calls in each of 3 windows"; return 1; }
	json_get a.json "all(v > 0 for v in d['benchmarks'][0]['metrics']['task-clock']['samples'])" >got
	[ "$(cat got)" = True ] || fail "the server's task-clock is not above 0 in every window" || return 1
	[ "$(json_get a.json "d['benchmarks'][0]['name']")" = pmc-attach-targ ] ||
		fail "the benchmark is not named after the process's comm" || return 1
	expect_grep "^pid $SERVER, 1 thread at the start$" <(json_get a.json "d['environment']['attach']") || return 1
	expect_grep "^while 'sh -c .*' ran$" <(json_get a.json "d['environment']['attach-window']") || return 1
}

# Without a command: a duration, the process idle in it (nothing counted: exactly 0).
test_attach_pid_for_a_duration() {
	need_getpid_tracepoint
	start_server 5 || return 1
	cd "$TMP" || return 1
	expect_exit 0 "$PMCBENCH" run -n server -p "$SERVER" --duration 0.2 -r 2 -e syscalls:sys_enter_getpid \
		-o a.json || { stop_server; return 1; }
	stop_server
	[ "$(json_get a.json "[int(v) for v in d['benchmarks'][0]['metrics']['syscalls:sys_enter_getpid']['samples']]")" = "[0, 0]" ] ||
		fail "an idle server counted getpid calls" || return 1
	[ "$(json_get a.json "d['environment']['attach-window']")" = "0.2 s" ] || fail "window not recorded" || return 1
	[ "$(json_get a.json "d['benchmarks'][0]['name']")" = server ] || fail "-n does not name the target" || return 1
}

# Until the attached process exits: one window, ended by its exit.
test_attach_pid_until_it_exits() {
	[ "$(id -u)" = 0 ] || skip "not root"
	sleep 0.3 &
	local p=$!
	expect_exit 0 "$PMCBENCH" run -p "$p" -e task-clock -o "$TMP/a.json" || return 1
	[ "$(json_get "$TMP/a.json" "d['environment']['attach-window']")" = "until the process exited" ] ||
		fail "window not recorded" || return 1
	[ "$(json_get "$TMP/a.json" "len(d['benchmarks'][0]['metrics']['wall-time']['samples'])")" = 1 ] ||
		fail "not one window" || return 1
}

# Every CPU while a command sleeps: task-clock over all CPUs is about CPUs x the window
# (idle time included, as perf stat -a counts it): between 0.5 and 1.5 times that.
test_attach_all_cpus_task_clock() {
	[ "$(id -u)" = 0 ] || skip "not root: -a needs root or CAP_PERFMON"
	expect_exit 0 "$PMCBENCH" run -a -r 2 -e task-clock -o "$TMP/a.json" -- sleep 0.3 || return 1
	python3 - "$TMP/a.json" "$(getconf _NPROCESSORS_ONLN)" <<'PY' || { fail "task-clock is not about CPUs x wall-time"; return 1; }
import json, sys
d = json.load(open(sys.argv[1]))
m = d["benchmarks"][0]["metrics"]
cpus = int(sys.argv[2])
assert d["benchmarks"][0]["name"] == "system-wide"
assert d["environment"]["attach"] == "system-wide, %d CPUs" % cpus, d["environment"]["attach"]
for tc, wall in zip(m["task-clock"]["samples"], m["wall-time"]["samples"]):
    assert 0.5 * cpus * wall < tc < 1.5 * cpus * wall, (tc, wall, cpus)
PY
	expect_exit 0 "$PMCBENCH" run -a --duration 0.2 -e task-clock -o "$TMP/b.json" || return 1
	[ "$(json_get "$TMP/b.json" "d['environment']['attach-window']")" = "0.2 s" ] ||
		fail "-a --duration: window not recorded" || return 1
	[ "$(json_get "$TMP/b.json" "d['benchmarks'][0]['metrics']['task-clock']['samples'][0] > 0.1e9")" = True ] ||
		fail "-a --duration 0.2: task-clock not above 0.1 s" || return 1
}

test_attach_errors() {
	local gone
	sleep 0 & gone=$!
	wait "$gone"
	expect_exit 2 "$PMCBENCH" run -p "$gone" --duration 0.1 -e task-clock || return 1
	expect_one_line "$TMP/err" "^pmcbench: -p $gone: no such process$" || return 1
	expect_exit 2 "$PMCBENCH" run -p 1 -c true -c false || return 1
	expect_one_line "$TMP/err" "-p counts the target while one command runs \(the load\); give one command, not 2" || return 1
	expect_exit 2 "$PMCBENCH" run -p 1x || return 1
	expect_one_line "$TMP/err" "-p '1x': not a list of process ids; give PID\[,PID...\]" || return 1
	expect_exit 2 "$PMCBENCH" run -a || return 1
	expect_one_line "$TMP/err" "-a needs a window: --duration SECONDS" || return 1
	expect_exit 2 "$PMCBENCH" run -p 1 -r 3 || return 1
	expect_one_line "$TMP/err" "-r 3 windows need --duration SECONDS or a command" || return 1
	expect_exit 2 "$PMCBENCH" run --duration 1 -- true || return 1
	expect_one_line "$TMP/err" "--duration is how long -p or -a count" || return 1
	expect_exit 2 "$PMCBENCH" run -p 1 -a --duration 1 || return 1
	expect_one_line "$TMP/err" "-p counts processes and -a every CPU; give one of them" || return 1
	expect_exit 2 "$PMCBENCH" run -p 1 --backend valgrind --duration 1 || return 1
	expect_one_line "$TMP/err" "--backend valgrind cannot attach" || return 1
}

# As an unprivileged user: another user's process (the kernel's ptrace check), and every
# CPU under perf_event_paranoid >= 1.
test_attach_denied_unprivileged() {
	[ "$(id -u)" = 0 ] || skip "not root: cannot run as another user"
	command -v setpriv >/dev/null || skip "no setpriv"
	local as=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
	"${as[@]}" test -x "$PMCBENCH" || skip "nobody cannot run $PMCBENCH"
	chmod 711 "$TMP"; mkdir "$TMP/u" && chown nobody "$TMP/u" && cd "$TMP/u" || return 1
	sleep 30 & local p=$!
	expect_exit 2 "${as[@]}" "$PMCBENCH" run -p "$p" --duration 0.1 -e task-clock:u
	local st=$?
	kill "$p"
	[ $st = 0 ] || return 1
	expect_one_line "$TMP/err" "^pmcbench: -p $p: the kernel refuses to count it \(permission denied\): counting another user's process needs root or CAP_PERFMON" || return 1
	if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 1 ]; then
		expect_exit 2 "${as[@]}" "$PMCBENCH" run -a -e task-clock:u -- true || return 1
		expect_one_line "$TMP/err" "^pmcbench: -a counts every CPU: that needs root or CAP_PERFMON, or kernel.perf_event_paranoid <= 0 \(it is [0-9]+" || return 1
	fi
}
