# End-to-end tests of the valgrind backend: exact counts and a one-run gate.

# Builds prog.c into the executable named $1.
build_prog() {
	cc -O1 -o "$1" prog.c || fail "cc failed"
}

write_prog() {
	cat >prog.c <<EOC
#include <stdio.h>
static volatile unsigned long sink;
int main(void)
{
	unsigned long n = $1;
	for (unsigned long i = 0; i < n; i++)
		sink += i * 3;
	printf("%lu\\n", sink);
	return 0;
}
EOC
}

test_valgrind_counts_are_exact_and_repeatable() {
	command -v valgrind >/dev/null || skip "valgrind not installed"
	expect_exit 0 "$PMCBENCH" run --backend valgrind -o a.json -- "$WORK" loop 20000 &&
	expect_exit 0 "$PMCBENCH" run --backend valgrind -o b.json -- "$WORK" loop 20000 || return 1
	local q="{k: v['samples'] for k, v in d['benchmarks'][0]['metrics'].items()}"
	[ "$(json_get a.json "$q")" = "$(json_get b.json "$q")" ] || fail "two runs differ" || return 1
	[ "$(json_get a.json "d['backend']")" = valgrind ] || fail "backend not recorded" || return 1
	[ "$(json_get a.json "d['benchmarks'][0]['metrics']['instructions']['status']")" = exact ] ||
		fail "status not exact" || return 1
	[ "$(json_get a.json "d['benchmarks'][0]['metrics']['instructions']['simulated']")" = True ] ||
		fail "not marked simulated" || return 1
	# Which valgrind counted: the tool, and the version it reports.
	[ "$(json_get a.json "d['environment']['valgrind-tool']")" = callgrind ] ||
		fail "valgrind-tool not recorded" || return 1
	[ "$(json_get a.json "d['environment']['valgrind-version']")" = "$(valgrind --version)" ] ||
		fail "valgrind-version not recorded" || return 1
	expect_grep 'simulated' "$TMP/out"
}

test_valgrind_gate_on_one_line_change() {
	command -v valgrind >/dev/null || skip "valgrind not installed"
	command -v cc >/dev/null || skip "no C compiler (cc)"
	write_prog 100000 && build_prog ./prog || return 1
	expect_exit 0 "$PMCBENCH" run --backend valgrind -o base.json -n prog -- ./prog || return 1
	# Unchanged code, rebuilt: passes.
	build_prog ./prog && expect_exit 0 "$PMCBENCH" run --backend valgrind -o same.json -n prog -- ./prog &&
	expect_exit 0 "$PMCBENCH" gate --baseline base.json same.json --threshold instructions=+0.1% || return 1
	# One line changed: 1% more loop iterations is a regression beyond 0.1%.
	write_prog 101000 && build_prog ./prog &&
	expect_exit 0 "$PMCBENCH" run --backend valgrind -o new.json -n prog -- ./prog &&
	expect_exit 1 "$PMCBENCH" gate --baseline base.json new.json --threshold instructions=+0.1% &&
	expect_grep 'regression' "$TMP/out"
}

test_valgrind_counts_children() {
	command -v valgrind >/dev/null || skip "valgrind not installed"
	expect_exit 0 "$PMCBENCH" run --backend valgrind -o one.json -- "$WORK" fork 0 50000 &&
	expect_exit 0 "$PMCBENCH" run --backend valgrind -o three.json -- "$WORK" fork 3 50000 || return 1
	local a b
	a=$(json_get one.json "d['benchmarks'][0]['metrics']['instructions']['samples'][0]")
	b=$(json_get three.json "d['benchmarks'][0]['metrics']['instructions']['samples'][0]")
	# Three children each run a 50000-iteration loop of several instructions.
	python3 -c "import sys; sys.exit(0 if $b - $a >= 3 * 50000 * 3 else 1)" || fail "children not counted: $a vs $b"
}

test_mixed_backends_are_refused() {
	command -v valgrind >/dev/null || skip "valgrind not installed"
	expect_exit 0 "$PMCBENCH" run --backend valgrind -o vg.json -n w -- "$WORK" loop 1000 &&
	expect_exit 0 "$PMCBENCH" run -r 3 -e instructions,task-clock -o hw.json -n w -- "$WORK" loop 1000 || return 1
	# This machine may have no PMU: make hw.json look like a result from one that has,
	# with instructions counted by hardware in every run.
	python3 - hw.json <<'PY' || return 1
import json, sys
d = json.load(open(sys.argv[1]))
m = d["benchmarks"][0]["metrics"]["instructions"]
n = len(m["samples"])
m["samples"] = [730000] * n
m["status"] = "counted"
m["raw"] = {"value": [730000] * n, "time_enabled": [1000] * n, "time_running": [1000] * n}
m.pop("error", None); m.pop("note", None)
json.dump(d, open(sys.argv[1], "w"))
PY
	expect_exit 2 "$PMCBENCH" gate --baseline hw.json vg.json &&
	expect_grep 'simulated' "$TMP/err" && expect_lines 1 "$TMP/err" || return 1
	# --force compares them anyway (a gate on 3 runs against 1 could detect nothing).
	"$PMCBENCH" compare --force hw.json vg.json --metric instructions >"$TMP/out" 2>"$TMP/err"
	[ $? -eq 0 ] || { cat "$TMP/err"; fail "--force did not allow the comparison"; }
}

test_valgrind_errors() {
	command -v valgrind >/dev/null || skip "valgrind not installed"
	expect_exit 2 "$PMCBENCH" run --backend valgrind -- "$WORK" kill 11 &&
	expect_grep 'signal 11' "$TMP/err" && expect_lines 1 "$TMP/err" || return 1
	expect_exit 2 "$PMCBENCH" run --backend valgrind -e cycles -- "$WORK" loop 1 &&
	expect_lines 1 "$TMP/err" || return 1
	# Without valgrind in PATH: the install line.
	expect_exit 2 env PATH=/nonexistent "$PMCBENCH" run --backend valgrind -- "$WORK" loop 1 &&
	expect_grep 'apt-get install valgrind' "$TMP/err"
}

test_valgrind_counts_ignore_the_callers_environment() {
	command -v valgrind >/dev/null || skip "valgrind not installed"
	local pad q="d['benchmarks'][0]['metrics']['instructions']['samples']"
	pad=$(printf '%0100d' 0)
	# The same program from two callers, one with an extra 100-character variable.
	expect_exit 0 "$PMCBENCH" run --backend valgrind -o a.json -n w -- "$WORK" loop 20000 &&
	expect_exit 0 env PMC_PADDING="$pad" "$PMCBENCH" run --backend valgrind -o b.json -n w -- "$WORK" loop 20000 ||
		return 1
	[ "$(json_get a.json "$q")" = "$(json_get b.json "$q")" ] ||
		fail "counts differ: $(json_get a.json "$q") vs $(json_get b.json "$q")" || return 1
	json_get a.json "d['environment']['target-env']" | grep -Eq '^normalized: HOME, LC_ALL=C, PATH' ||
		fail "target-env not recorded: $(json_get a.json "d['environment'].get('target-env')")" || return 1
	expect_exit 0 "$PMCBENCH" gate --baseline a.json b.json --threshold instructions=+0.1% &&
	expect_no_grep 'environments differ' "$TMP/err" || return 1
	# The control: with the whole environment, the variable moves the counts, and the
	# gate warns that the environments differ.
	expect_exit 0 "$PMCBENCH" run --backend valgrind --env-inherit -o c.json -n w -- "$WORK" loop 20000 &&
	expect_exit 0 env PMC_PADDING="$pad" "$PMCBENCH" run --backend valgrind --env-inherit -o d.json -n w -- "$WORK" loop 20000 ||
		return 1
	[ "$(json_get c.json "$q")" != "$(json_get d.json "$q")" ] || fail "--env-inherit: the variable did not matter" || return 1
	"$PMCBENCH" gate --baseline c.json d.json --threshold instructions=+1% >"$TMP/out" 2>"$TMP/err"
	cat "$TMP/out" "$TMP/err" >"$TMP/all"
	expect_grep "environments differ \(target-env 'inherited: " "$TMP/all" || return 1
	# --env-keep passes a variable on, by name only in the result.
	expect_exit 0 env PMC_PADDING="$pad" "$PMCBENCH" run --backend valgrind --env-keep PMC_PADDING -o e.json -- "$WORK" loop 1 &&
	json_get e.json "d['environment']['target-env']" | grep -q 'PMC_PADDING' &&
	! grep -q "$pad" e.json || fail "--env-keep not recorded, or its value was" || return 1
	expect_exit 2 "$PMCBENCH" run --backend valgrind --env-keep A=1 -- "$WORK" loop 1 &&
	expect_one_line "$TMP/err" "--env-keep: 'A=1' is not a variable name" &&
	expect_exit 2 "$PMCBENCH" run --env-inherit --env-keep A -- "$WORK" loop 1 &&
	expect_one_line "$TMP/err" "no effect with --env-inherit"
}
