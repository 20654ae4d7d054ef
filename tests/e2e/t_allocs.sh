# Allocations per operation of benchmark programs (docs/microbench.md, "Allocations"):
# allocs/op and alloc-bytes/op from pmcbench-alloc, linked into the program, and allocs/op
# from the uprobes of --allocs where it is not; exact for benchmarks whose allocations are
# known (tests/targets/mb_allocs.c), with the source named in the result and the table,
# and a metric no source measured reported as not measured, never 0.

need_counted() {
	[ -n "${PMC_MB_ALLOCS_COUNTED:-}" ] || skip "no benchmark programs in this build (sanitized)"
}

need_uprobes() {
	[ "$(id -u)" = 0 ] || skip "not root: the uprobe PMU needs root (or CAP_PERFMON)"
	[ -r /sys/bus/event_source/devices/uprobe/type ] || skip "no uprobe PMU in this kernel"
}

# per_op FILE METRIC BENCH...: "BENCH METRIC v1 v2 ..." for each BENCH, its samples as
# integers ("none" for a sample not measured), then the metric's note.
per_op() {
	python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
metric = sys.argv[2]
for name in sys.argv[3:]:
    b = [x for x in d["benchmarks"] if x["name"] == name][0]
    m = b["metrics"].get(metric)
    if m is None:
        print(name, metric, "absent")
        continue
    vals = ["none" if v is None else ("%g" % v) for v in m["samples"]]
    print(name, metric, " ".join(vals), "|", m.get("note", ""))
PY
}

COUNTED_NOTE="counted in the benchmark's process (pmcbench-alloc, or its own memory manager)"
UPROBE_NOTE="calls of malloc, calloc and realloc, counted through uprobes"
NO_BYTES="uprobes count calls, not bytes; link pmcbench-alloc to count them"

# k mallocs of n bytes: k allocs/op and k * n bytes/op exactly, in every sample; setup's
# and a pause's allocations are no operation's; each of two threads counts its own.
test_counter_counts_exactly_per_op() {
	need_counted
	expect_exit 0 "$PMC_MB_ALLOCS_COUNTED" -r 2 --min-time 0.002 -o a.json || return 1
	per_op a.json allocs/op three_mallocs k_mallocs/k:1/n:24 k_mallocs/k:5/n:1000 mixed \
		paused threaded/threads:2 no_mallocs >got || return 1
	per_op a.json alloc-bytes/op three_mallocs k_mallocs/k:1/n:24 k_mallocs/k:5/n:1000 \
		mixed paused threaded/threads:2 no_mallocs >>got || return 1
	cat >want <<EOF2
three_mallocs allocs/op 3 3 | $COUNTED_NOTE
k_mallocs/k:1/n:24 allocs/op 1 1 | $COUNTED_NOTE
k_mallocs/k:5/n:1000 allocs/op 5 5 | $COUNTED_NOTE
mixed allocs/op 4 4 | $COUNTED_NOTE
paused allocs/op 1 1 | $COUNTED_NOTE
threaded/threads:2 allocs/op 1 1 | $COUNTED_NOTE
no_mallocs allocs/op 0 0 | $COUNTED_NOTE
three_mallocs alloc-bytes/op 112 112 | $COUNTED_NOTE
k_mallocs/k:1/n:24 alloc-bytes/op 24 24 | $COUNTED_NOTE
k_mallocs/k:5/n:1000 alloc-bytes/op 5000 5000 | $COUNTED_NOTE
mixed alloc-bytes/op 240 240 | $COUNTED_NOTE
paused alloc-bytes/op 8 8 | $COUNTED_NOTE
threaded/threads:2 alloc-bytes/op 40 40 | $COUNTED_NOTE
no_mallocs alloc-bytes/op 0 0 | $COUNTED_NOTE
EOF2
	diff want got >&2 || { fail "allocations per operation not exact"; return 1; }
	[ "$(json_get a.json 'd["benchmarks"][0]["metrics"]["alloc-bytes/op"]["unit"]')" = bytes ] ||
		{ fail "alloc-bytes/op is not in bytes"; return 1; }
	# The table's columns, and the line that names their source.
	expect_grep "allocs/op +alloc-bytes/op" "$TMP/out" || return 1
	expect_grep "^k_mallocs/k:5/n:1000 .* 5 +4\.883KiB$" "$TMP/out" || return 1
	expect_grep "^allocs/op, alloc-bytes/op: counted in the benchmark's process" "$TMP/out" || return 1
}

# Without pmcbench-alloc nor --allocs, nothing measured allocations: no such metric.
test_no_source_no_metric() {
	need_counted
	expect_exit 0 "$PMC_MB_ALLOCS" -r 1 --min-time 0.002 --filter '^three_mallocs$' -o a.json || return 1
	per_op a.json allocs/op three_mallocs >got || return 1
	per_op a.json alloc-bytes/op three_mallocs >>got || return 1
	printf 'three_mallocs allocs/op absent\nthree_mallocs alloc-bytes/op absent\n' >want
	diff want got >&2 || { fail "allocations reported that nothing measured"; return 1; }
	expect_no_grep "allocs/op" "$TMP/out" || return 1
}

# A program without pmcbench-alloc, with --allocs: the calls through uprobes, exact; the
# bytes not measured, and said so; posix_memalign and aligned_alloc are not among the
# probes. A multithreaded benchmark's are exact through tracefs probes (root with tracefs
# mounted, as here); through the uprobe PMU they miss threads' calls, so are not used.
test_uprobes_count_the_calls() {
	local threaded="1 1 | $UPROBE_NOTE" tracefs=/sys/kernel/tracing
	need_counted
	need_uprobes
	[ -d $tracefs/events ] || tracefs=/sys/kernel/debug/tracing
	[ -w $tracefs/uprobe_events ] ||
		threaded="none none | the kernel's uprobes miss calls on the threads of a multithreaded benchmark; link pmcbench-alloc to count them"
	expect_exit 0 "$PMC_MB_ALLOCS" --allocs -r 2 --min-time 0.002 \
		--filter '^(three_mallocs|k_mallocs/k:5/n:24|mixed|threaded.*|no_mallocs)$' -o a.json || return 1
	per_op a.json allocs/op three_mallocs k_mallocs/k:5/n:24 mixed threaded/threads:2 \
		no_mallocs >got || return 1
	per_op a.json alloc-bytes/op three_mallocs >>got || return 1
	cat >want <<EOF2
three_mallocs allocs/op 3 3 | $UPROBE_NOTE
k_mallocs/k:5/n:24 allocs/op 5 5 | $UPROBE_NOTE
mixed allocs/op 2 2 | $UPROBE_NOTE
threaded/threads:2 allocs/op $threaded
no_mallocs allocs/op 0 0 | $UPROBE_NOTE
three_mallocs alloc-bytes/op none none | $NO_BYTES
EOF2
	diff want got >&2 || { fail "uprobe allocations per operation not exact"; return 1; }
	expect_grep "^allocs/op: calls of malloc, calloc and realloc, counted through uprobes" "$TMP/out" || return 1
	expect_grep "alloc-bytes/op \(not measured: uprobes count calls, not bytes" "$TMP/out" || return 1
}

# Both in one program: the counter measures allocs/op (and the bytes), and the kernel's
# uprobe counts of malloc agree with it.
test_counter_and_uprobes_agree() {
	need_counted
	need_uprobes
	expect_exit 0 "$PMC_MB_ALLOCS_COUNTED" --allocs -r 2 --min-time 0.002 \
		--filter '^(three_mallocs|k_mallocs/k:5/n:1000)$' -o a.json || return 1
	per_op a.json allocs/op three_mallocs k_mallocs/k:5/n:1000 >got || return 1
	per_op a.json uprobe:libc:malloc/op three_mallocs k_mallocs/k:5/n:1000 | sed 's/ |.*//' >>got || return 1
	cat >want <<EOF2
three_mallocs allocs/op 3 3 | $COUNTED_NOTE
k_mallocs/k:5/n:1000 allocs/op 5 5 | $COUNTED_NOTE
three_mallocs uprobe:libc:malloc/op 3 3
k_mallocs/k:5/n:1000 uprobe:libc:malloc/op 5 5
EOF2
	diff want got >&2 || { fail "the counter and the uprobes disagree"; return 1; }
}

# Identical in every run, the counts are compared as counts (docs/metrics.md, "Identical
# runs"): A/A is no change, one more allocation per operation a regression at +0%.
test_gate_judges_allocations_as_counts() {
	need_counted
	expect_exit 0 "$PMC_MB_ALLOCS_COUNTED" -r 2 --min-time 0.002 --filter '^three_mallocs$' -o a.json || return 1
	expect_exit 0 "$PMC_MB_ALLOCS_COUNTED" -r 2 --min-time 0.002 --filter '^three_mallocs$' -o b.json || return 1
	expect_exit 0 "$PMCBENCH" gate --baseline a.json b.json --metric allocs/op \
		--threshold 'allocs/op=+0%' || return 1
	expect_grep "^three_mallocs +3 +3 +0% \(identical runs\) +identical n=2\+2 +\+0% +no change" "$TMP/out" || return 1
	python3 - b.json <<'PY' || return 1
import json, sys
d = json.load(open(sys.argv[1]))
d["benchmarks"][0]["metrics"]["allocs/op"]["samples"] = [4, 4]
json.dump(d, open(sys.argv[1], "w"))
PY
	expect_exit 1 "$PMCBENCH" gate --baseline a.json b.json --metric allocs/op \
		--threshold 'allocs/op=+0%' || return 1
	expect_grep "^three_mallocs +3 +4 .*regression" "$TMP/out" || return 1
}
