# Helpers for the end-to-end tests. Each tests/e2e/t_*.sh file defines functions named
# test_*; run.sh runs each in a fresh temporary directory and reports each (TAP).
# Available: $PMCBENCH (the built binary), $WORK (tests/targets/pmc-work), $TMP.
# Write each check as `expect_... || return 1` (or `[ ... ] || fail "why" || return 1`):
# the case stops at its first failure. A check whose status is ignored still fails the
# case, as every failure goes through fail, which run.sh hears of.

fail() {
	echo "    FAIL: $*" >&2
	[ -z "${PMC_E2E_FAILED:-}" ] || : >>"$PMC_E2E_FAILED"
	return 1
}

# skip REASON: this machine cannot run the case (or the rest of it): it ends here and is
# reported as skipped, with REASON, apart from the passes. Never for a failure. Call it
# in the case's own shell (it exits), not inside $(...) or a pipeline.
skip() {
	[ -n "$*" ] || { fail "skip without a reason"; exit 1; }
	echo "    skipped: $*" >&2
	[ -z "${PMC_E2E_SKIP:-}" ] || printf '%s\n' "$*" >"$PMC_E2E_SKIP"
	exit 77
}

# expect_exit CODE CMD...: runs CMD, keeps stdout in $TMP/out and stderr in $TMP/err,
# and fails unless it exits with CODE.
expect_exit() {
	local want=$1 got
	shift
	"$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	got=$?
	if [ "$got" != "$want" ]; then
		echo "    command: $*" >&2
		echo "    --- stdout" >&2; head -c 3000 "$TMP/out" >&2
		echo "    --- stderr" >&2; head -c 3000 "$TMP/err" >&2
		fail "exit status $got, expected $want"
		return 1
	fi
}

# expect_grep PATTERN FILE: fails unless FILE has a line matching the extended regex.
expect_grep() {
	if ! grep -Eq -- "$1" "$2"; then
		echo "    --- $2" >&2; head -c 3000 "$2" >&2
		fail "no line matching '$1' in $2"
		return 1
	fi
}

# expect_no_grep PATTERN FILE
expect_no_grep() {
	if grep -Eq -- "$1" "$2"; then
		echo "    --- $2" >&2; head -c 3000 "$2" >&2
		fail "unexpected line matching '$1' in $2"
		return 1
	fi
}

# expect_lines N FILE: FILE has exactly N lines.
expect_lines() {
	local got
	got=$(wc -l <"$2")
	[ "$got" -eq "$1" ] || { cat "$2" >&2; fail "$2 has $got lines, expected $1"; }
}

# jq-free JSON queries through python3's json module: json_get FILE EXPR, where EXPR is
# a Python expression over the loaded document `d`.
json_get() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# expect_one_line FILE PATTERN: FILE holds exactly one line, and it matches PATTERN.
expect_one_line() {
	expect_lines 1 "$1" && expect_grep "$2" "$1"
}

# mkresult OUT [backend=NAME] [env:KEY=VALUE] [one-invocation] [switches=V/I] BENCH::METRIC=CENTER[,SPREAD[,N]][@FLAGS]...
# Each metric gets N samples (default 10) spread evenly over CENTER * (1 +- SPREAD), in a
# scrambled order without ties. FLAGS: sim (simulated), unsup (unsupported: no samples),
# unit=U (override the unit). Each run records a process of its own (independent
# samples, as a benchmark program's processes); with one-invocation the runs record
# none, as the runs of one `pmcbench run` of a command. switches=V/I: each run records V
# voluntary and I involuntary context switches (else none: not known).
mkresult() {
	python3 - "$@" <<'EOF'
import json, sys
UNITS = {"task-clock": ("ns", "lower"), "wall-time": ("ns", "lower"),
         "max-rss": ("bytes", "lower"), "ipc": ("ratio", "higher")}
def u(i, n):
    return ((i * 7 + 3) % n) / (n - 1) * 2 - 1 if n > 1 else 0.0
doc = {"schema": "pmcbench-result/1", "tool": {"name": "pmcbench", "version": "0.1.0"},
       "created": "2026-01-01T00:00:00Z", "backend": "perf", "environment": {},
       "benchmarks": []}
benches = {}
one = "one-invocation" in sys.argv[2:]
switches = {}
for a in sys.argv[2:]:
    if a == "one-invocation":
        continue
    if a.startswith("switches="):
        v, i = a[9:].split("/")
        switches = {"voluntary_switches": int(v), "involuntary_switches": int(i)}
        continue
    if a.startswith("backend="):
        doc["backend"] = a[8:]
        continue
    if a.startswith("env:"):
        k, v = a[4:].split("=", 1)
        doc["environment"][k] = v
        continue
    spec, _, flags = a.partition("@")
    key, _, vals = spec.partition("=")
    bench, _, metric = key.partition("::")
    parts = vals.split(",")
    center, spread, n = (parts + ["0", "10"][len(parts) - 1:])[:3]
    center, spread, n = float(center), float(spread), int(n)
    unit, better = UNITS.get(metric, ("count", "lower"))
    m = {"unit": unit, "better": better, "derived": False, "simulated": False,
         "cross_group": False,
         "samples": [round(center * (1 + spread * u(i, n)), 3) for i in range(n)]}
    for f in filter(None, flags.split(",")):
        if f == "sim":
            m["simulated"] = True
        elif f.startswith("unit="):
            m["unit"] = f[5:]
        elif f == "unsup":
            m["samples"] = [None] * n
            m["status"] = "unsupported"
            m["raw"] = {k: [None] * n for k in ("value", "time_enabled", "time_running")}
            m["error"] = "ENOENT"
    b = benches.setdefault(bench, {"name": bench, "command": None, "build_id": None,
                                   "runs": [dict({"exit_code": 0, "signal": 0,
                                                  "timed_out": False},
                                                 **({} if one else {"process": i + 1}),
                                                 **switches)
                                            for i in range(n)],
                                   "metrics": {}})
    b["metrics"][metric] = m
doc["benchmarks"] = list(benches.values())
with open(sys.argv[1], "w") as f:
    json.dump(doc, f, indent=1)
EOF
}
