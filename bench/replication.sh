#!/bin/bash
# How often does each way of comparing two measurements call a change significant
# (false alarm, A/A) or catch a real one (+5%), now that a benchmark program runs each
# benchmark in several processes and `compare` tests over those processes?
#
# Every repetition measures, in a rotating order (so that all designs meet the same
# load), each side first in turn (even repetitions A first, odd ones B first):
#
#   prog A/A   two invocations of bench/replication_prog.c at its defaults (8
#              processes of one sample), PMC_REPL_SCALE=1 both;
#              `compare a.json b.json --format json` and
#              `gate --baseline a.json b.json --threshold task-clock/op=+5%
#              --metric task-clock/op`
#   prog +5%   the same, b at PMC_REPL_SCALE=1.05 (5% more work per operation: a
#              chain of 1050 instead of 1000 multiply-adds, a memcpy of 275251
#              instead of 262144 bytes; the same binary)
#   cmd sep    A = `pmc-work loop 20000000`, two `pmcbench run -r 10 -o X.json -- A`;
#              compare --format json, gate --threshold task-clock=+5% --metric
#              task-clock (drifting metrics are not tested between two invocations:
#              expect "not tested" and gate exit 2)
#   cmd int    `pmcbench run -r 10 -c A -c B --threshold task-clock=+5% --gate`
#   A/A, +5%   (paired over the rounds), B = A or `pmc-work loop 21000000`; B first
#              on odd repetitions (-n B -c B -n A -c A --reference 2). `run` writes its
#              comparison as a table only, so its --report file is read.
#
# Every comparison judges task-clock/op and wall-time/op (task-clock and wall-time for the
# commands) with --metric, so that the Benjamini-Hochberg family is the metrics counted
# here (2 benchmarks x 2 metrics; 2 metrics), not every metric of the result. Counted per
# benchmark and metric: rows called significant (either way: a false alarm in
# A/A), significant and slower (a detection at +5%), the verdicts regression and
# improvement; per measurement the gate's exit status (0 pass, 1 regression, 2 error).
# Wall time per measurement: both invocations (prog, cmd sep) or the one run (cmd int),
# without the compare and gate that follow.
#
# Targets: A/A at most 5% significant and at most 5% gate exit 1 (threshold +5%), for
# the program design and the command designs; +5% detected by the program design at
# least as often as by the interleaved paired design (33/40 at 10 rounds before).
#
# Usage: bench/replication.sh [BUILDDIR] [REPS]   (defaults build 40; needs python3;
#        the measurements are kept in a temporary directory whose path is printed)
set -euo pipefail
build=${1:-build}
reps=${2:-40}
pmcbench=$build/harness/7-cli/pmcbench
prog=$build/bench/replication-prog
work=$build/tests/targets/pmc-work
for f in "$pmcbench" "$prog" "$work"; do
	[ -x "$f" ] || { echo "replication: no $f; build first: ninja -C $build" >&2; exit 2; }
done
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "replication: REPS must be a whole number > 0, not '$reps'" >&2; exit 2; }
pmcbench=$(cd "$(dirname "$pmcbench")" && pwd)/$(basename "$pmcbench")
prog=$(cd "$(dirname "$prog")" && pwd)/$(basename "$prog")
work=$(cd "$(dirname "$work")" && pwd)/$(basename "$work")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/replication.XXXXXX")
mkdir "$tmp/m"
n_a=20000000
n_b=21000000
scale_b=1.05

now() { echo "${EPOCHREALTIME/,/.}"; }

# Runs a command, its output to $1.out and $1.err; any failure but the exit statuses
# listed in $ok (space-separated) stops the experiment. Leaves the status in $code.
ok="0"
check() {
	local out=$1
	shift
	code=0
	"$@" >"$out.out" 2>"$out.err" || code=$?
	if [[ " $ok " != *" $code "* ]]; then
		echo "replication: '$*' exited $code:" >&2
		cat "$out.err" >&2
		exit 2
	fi
}

# The program on one side: SIDE (a or b) SCALE FILE.
prog_side() {
	ok="0" check "$3" env PMC_REPL_SCALE="$2" "$prog" -q -o "$3.json"
}

# One measurement: DESIGN REP. Files $tmp/m/DESIGN.REP.*; appends "DESIGN REP FIRST
# WALL GATE-EXIT" to $tmp/records.
measure() {
	local d=$1 i=$2 f=$tmp/m/$1.$2 first t0 t1 sb=1 b
	if ((i % 2 == 0)); then first=a; else first=b; fi
	case $d in
	prog-aa | prog-p5)
		[ "$d" = prog-p5 ] && sb=$scale_b
		t0=$(now)
		if [ $first = a ]; then
			prog_side a 1 "$f.a"
			prog_side b "$sb" "$f.b"
		else
			prog_side b "$sb" "$f.b"
			prog_side a 1 "$f.a"
		fi
		t1=$(now)
		ok="0" check "$f.cmp" "$pmcbench" compare "$f.a.json" "$f.b.json" --format json \
			--metric task-clock/op --metric wall-time/op
		ok="0 1 2 3" check "$f.gate" "$pmcbench" gate --baseline "$f.a.json" "$f.b.json" \
			--threshold task-clock/op=+5% --metric task-clock/op
		;;
	cmd-sep-aa)
		t0=$(now)
		ok="0" check "$f.a" "$pmcbench" run -q -r 10 -o "$f.a.json" -- "$work" loop "$n_a"
		ok="0" check "$f.b" "$pmcbench" run -q -r 10 -o "$f.b.json" -- "$work" loop "$n_a"
		t1=$(now)
		ok="0" check "$f.cmp" "$pmcbench" compare "$f.a.json" "$f.b.json" --format json \
			--metric task-clock --metric wall-time
		ok="0 1 2 3" check "$f.gate" "$pmcbench" gate --baseline "$f.a.json" "$f.b.json" \
			--threshold task-clock=+5% --metric task-clock
		;;
	cmd-int-aa | cmd-int-p5)
		b=$n_a
		[ "$d" = cmd-int-p5 ] && b=$n_b
		local cmds=(-n A -c "$work loop $n_a" -n B -c "$work loop $b")
		[ $first = b ] && cmds=(-n B -c "$work loop $b" -n A -c "$work loop $n_a" --reference 2)
		t0=$(now)
		ok="0 1" check "$f.gate" "$pmcbench" run -q -r 10 "${cmds[@]}" -o "$f.json" \
			--metric task-clock --metric wall-time --threshold task-clock=+5% --gate \
			--report "$f.txt"
		t1=$(now)
		;;
	esac
	echo "$d $i $first $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') $code" >>"$tmp/records"
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
echo "replication: $(nproc) CPUs, load average $load0 at the start; measurements in $tmp" >&2
designs=(prog-aa prog-p5 cmd-sep-aa cmd-int-aa cmd-int-p5)
t_start=$(now)
for ((i = 0; i < reps; i++)); do
	printf '\rreplication: repetition %d/%d ' $((i + 1)) "$reps" >&2
	for ((k = 0; k < ${#designs[@]}; k++)); do
		measure "${designs[(i + k) % ${#designs[@]}]}" "$i"
	done
done
echo >&2
load1=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$tmp" "$reps" "$load0" "$load1" "$t_start" "$(now)" "$(nproc)" "$n_a" "$n_b" "$scale_b" <<'EOF'
import json, os, re, statistics, sys

tmp, reps, load0, load1, t0, t1, ncpu, n_a, n_b, scale_b = sys.argv[1:]
reps = int(reps)

DESIGNS = [("prog-aa", "prog", "A/A"), ("prog-p5", "prog", "+5%"),
           ("cmd-sep-aa", "cmd sep", "A/A"), ("cmd-int-aa", "cmd int", "A/A"),
           ("cmd-int-p5", "cmd int", "+5%")]
METRICS = {"prog": ["task-clock/op", "wall-time/op"],
           "cmd sep": ["task-clock", "wall-time"], "cmd int": ["task-clock", "wall-time"]}

records = {}
with open(os.path.join(tmp, "records")) as f:
    for line in f:
        d, i, first, wall, code = line.split()
        records[(d, int(i))] = {"first": first, "wall": float(wall), "gate": int(code)}


def rows_compare_json(path, metrics):
    """{(benchmark, metric): row} from `compare --format json`."""
    with open(path) as f:
        rep = json.load(f)
    out = {}
    for m in rep["metrics"]:
        if m["id"] in metrics:
            for r in m["rows"]:
                if r.get("testable") is False:
                    test = "not tested"
                elif r.get("processes"):
                    test = "%d+%d procs" % tuple(r["processes"])
                else:
                    test = "n=%d+%d" % (r["old"]["n"], r["new"]["n"])
                out[(r["benchmark"], m["id"])] = {
                    "significant": bool(r.get("significant")), "ratio": r.get("ratio"),
                    "verdict": r.get("verdict"), "test": test}
    return out


ROW = re.compile(r"\s(~|[+-][0-9.]+%)\s")
TEST = re.compile(r"(q=\S+ \d+ pairs|q=\S+ n=\S+|q=\S+ \S+ procs|not tested)")
VERDICT = re.compile(r"(regression|improvement|no change|inconclusive)\b[^%]*$")


def rows_run_report(path, metrics):
    """{("B", metric): row} from the table `run --report` wrote (row B, against A)."""
    out, metric = {}, None
    with open(path) as f:
        for line in f:
            h = re.match(r"^(\S+) \[", line)
            if h:
                metric = h.group(1)
                continue
            if metric in metrics and line.startswith("B "):
                ch, test, v = ROW.search(line), TEST.search(line), VERDICT.search(line)
                if not (ch and v):
                    raise SystemExit(f"replication: cannot read row B of {metric} in {path}")
                sig = ch.group(1) != "~"
                ratio = None
                if sig:
                    ratio = 1 + float(ch.group(1).rstrip("%")) / 100
                out[("B", metric)] = {"significant": sig, "ratio": ratio,
                                      "verdict": v.group(1),
                                      "test": re.sub(r"q=\S+ ", "", test.group(1)) if test else "?"}
    return out


def medians_ratio(bench_b, bench_a, metric):
    a = statistics.median(x for x in bench_a["metrics"][metric]["samples"] if x is not None)
    b = statistics.median(x for x in bench_b["metrics"][metric]["samples"] if x is not None)
    return b / a


# Per measurement: its rows, and the change median(B)/median(A) of every row (for the
# interleaved runs computed from the result, the report showing only significant ones).
meas = []
for d, kind, case in DESIGNS:
    for i in range(reps):
        rec = records.get((d, i))
        if rec is None:
            continue
        f = os.path.join(tmp, "m", f"{d}.{i}")
        if kind == "cmd int":
            rows = rows_run_report(f + ".txt", METRICS[kind])
            with open(f + ".json") as fj:
                res = {b["name"]: b for b in json.load(fj)["benchmarks"]}
            for (b, m), r in rows.items():
                r["change"] = medians_ratio(res["B"], res["A"], m)
        else:
            rows = rows_compare_json(f + ".cmp.out", METRICS[kind])
            with open(f + ".a.json") as fa, open(f + ".b.json") as fb:
                ra = {b["name"]: b for b in json.load(fa)["benchmarks"]}
                rb = {b["name"]: b for b in json.load(fb)["benchmarks"]}
            for (b, m), r in rows.items():
                r["change"] = medians_ratio(rb[b], ra[b], m)
        meas.append({"design": d, "kind": kind, "case": case, "rep": i, "rows": rows, **rec})

# The raw numbers, one line per measurement and row.
with open(os.path.join(tmp, "raw.tsv"), "w") as f:
    f.write("design\trep\tfirst\twall_s\tgate_exit\tbenchmark\tmetric\ttest\tsignificant\t"
            "ratio_hl\tchange_medians\tverdict\n")
    for m in meas:
        for (b, met), r in sorted(m["rows"].items()):
            f.write("\t".join(str(x) for x in (
                m["design"], m["rep"], m["first"], m["wall"], m["gate"], b, met, r["test"],
                int(r["significant"]), r["ratio"], "%.5f" % r["change"], r["verdict"])) + "\n")


def frac(k, n):
    return f"{k}/{n} {100 * k / n:.0f}%" if n else "-"


print(f"replication: {reps} repetitions; {ncpu} CPUs; load average {load0} at the start, "
      f"{load1} at the end; {float(t1) - float(t0):.0f} s in all")
print(f"prog = bench/replication_prog.c at its defaults (8 processes of one sample), "
      f"+5%: PMC_REPL_SCALE={scale_b}; cmd: A = pmc-work loop {n_a}, +5%: B = loop {n_b}, -r 10")
print("signif: rows significant either way; slower: significant and slower; regr/impr: "
      "verdicts; change: median over the measurements of median(B)/median(A) - 1")
print()
hdr = ["design", "case", "benchmark", "metric", "test", "change", "signif", "slower",
       "regr", "impr"]
table = []
for d, kind, case in DESIGNS:
    ms = [m for m in meas if m["design"] == d]
    keys = sorted({k for m in ms for k in m["rows"]},
                  key=lambda k: (METRICS[kind].index(k[1]), k[0] != "lcg", k[0]))
    for b, met in keys:
        rs = [m["rows"][(b, met)] for m in ms if (b, met) in m["rows"]]
        n = len(rs)
        tests = sorted({r["test"] for r in rs})
        table.append([kind, case, b if kind == "prog" else ("B" if kind == "cmd int" else "A"),
                      met, ",".join(tests),
                      "%+.2f%%" % (100 * (statistics.median(r["change"] for r in rs) - 1)),
                      frac(sum(r["significant"] for r in rs), n),
                      frac(sum(r["significant"] and (r["ratio"] or 0) > 1 for r in rs), n),
                      frac(sum(r["verdict"] == "regression" for r in rs), n),
                      frac(sum(r["verdict"] == "improvement" for r in rs), n)])
w = [max(len(str(r[k])) for r in table + [hdr]) for k in range(len(hdr))]
for r in [hdr] + table:
    print("  ".join(str(x).ljust(w[k]) for k, x in enumerate(r)).rstrip())
print()
hdr2 = ["design", "case", "gate", "wall/meas", "exit 0", "exit 1", "exit 2", "exit 3"]
t2 = []
for d, kind, case in DESIGNS:
    ms = [m for m in meas if m["design"] == d]
    n = len(ms)
    gate = {"prog": "task-clock/op=+5%", "cmd sep": "task-clock=+5%",
            "cmd int": "run --gate task-clock=+5%"}[kind]
    t2.append([kind, case, gate, "%.2f s" % statistics.median(m["wall"] for m in ms)] +
              [frac(sum(m["gate"] == c for m in ms), n) for c in (0, 1, 2, 3)])
w = [max(len(str(r[k])) for r in t2 + [hdr2]) for k in range(len(hdr2))]
for r in [hdr2] + t2:
    print("  ".join(str(x).ljust(w[k]) for k, x in enumerate(r)).rstrip())
print()


def count(d, met, pred, bench=None):
    rs = [r for m in meas if m["design"] == d for (b, mt), r in m["rows"].items()
          if mt == met and (bench is None or b == bench)]
    return sum(pred(r) for r in rs), len(rs)


def gates(d, c):
    ms = [m for m in meas if m["design"] == d]
    return sum(m["gate"] == c for m in ms), len(ms)


def target(text, k, n, good):
    print(f"  {'met    ' if good else 'NOT met'}  {text}: {frac(k, n)}")


sig = lambda r: r["significant"]
slower = lambda r: r["significant"] and (r["ratio"] or 0) > 1
print("targets:")
for d, mets in (("prog-aa", ("task-clock/op", "wall-time/op")), ("cmd-sep-aa", ("task-clock", "wall-time")),
                ("cmd-int-aa", ("task-clock", "wall-time"))):
    for met in mets:
        for b in (("lcg", "copy") if d.startswith("prog") else (None,)):
            k, n = count(d, met, sig, b)
            target(f"{d} {b + ' ' if b else ''}{met} significant <= 5%", k, n, k <= 0.05 * n)
    k, n = gates(d, 1)
    target(f"{d} gate exit 1 <= 5%", k, n, k <= 0.05 * n)
ki, ni = count("cmd-int-p5", "task-clock", slower)
for b in ("lcg", "copy"):
    k, n = count("prog-p5", "task-clock/op", slower, b)
    target(f"prog-p5 {b} task-clock/op detected >= cmd-int-p5's {ki}/{ni}", k, n,
           n and ni and k / n >= ki / ni)
    target(f"prog-p5 {b} task-clock/op detected >= 33/40", k, n, n and k / n >= 33 / 40)
k, n = gates("cmd-sep-aa", 2)
print(f"  note     cmd-sep-aa gate exit 2 (not tested between two invocations): {frac(k, n)}")
print(f"\nraw numbers: {tmp}/raw.tsv (measurements in {tmp}/m)")
EOF
