# --export FILE (docs/export.md): the result of `run` and of a benchmark program, and the
# comparison of `compare` and `gate`, in the format each file's extension names, read back
# here (CSV with Python's csv module, Go's benchmark format by its rules) and checked
# against the samples of the result file; an extension that names no format is one line
# and exit 2 before anything runs.

# check_csv_result RESULT.json EXPORT.csv: one row per benchmark, metric and run holding
# the sample exactly, empty where the sample is null.
check_csv_result() {
	python3 - "$1" "$2" <<'PY'
import csv, json, sys
d = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2], newline="")))
want = [(b["name"], k, i, v) for b in d["benchmarks"] for k, m in b["metrics"].items()
        for i, v in enumerate(m["samples"])]
assert len(rows) == len(want), (len(rows), len(want))
for row, (bench, metric, i, v) in zip(rows, want):
    assert (row["benchmark"], row["metric"], int(row["run"])) == (bench, metric, i + 1), row
    if v is None:
        assert row["value"] == "", row
    else:
        assert float(row["value"]) == v, (row, v)
    b = [x for x in d["benchmarks"] if x["name"] == bench][0]
    assert row["iterations"] == str(b["runs"][i].get("iterations", "")), row
PY
}

# go_lines FILE: the benchmark lines of a Go benchmark file as JSON, one object per line:
# {"name", "n", "values": {unit: value}, "config": {key: value}}, after checking the
# format's rules (an even number of fields, at least four; numbers; UTF-8).
go_lines() {
	python3 - "$1" <<'PY'
import json, re, sys
config = {}
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.rstrip("\n")
    if line.startswith("Benchmark"):
        f = line.split()
        assert len(f) >= 4 and len(f) % 2 == 0, line
        values = {f[i + 1]: float(f[i]) for i in range(2, len(f), 2)}
        assert len(values) == (len(f) - 2) // 2, "a unit twice: " + line
        print(json.dumps({"name": f[0][9:], "n": int(f[1]), "values": values,
                          "config": dict(config)}))
    elif line.startswith("Unit ") or line.startswith("#") or not line:
        continue
    else:
        m = re.match(r"([a-z][^\sA-Z:]*):(?:[ \t]+(.*))?$", line)
        assert m, "neither a result nor a configuration line: " + line
        config[m.group(1)] = m.group(2) or ""
PY
}

# check_go_result RESULT.json EXPORT.txt: a line per run with a value, under the
# benchmark's name (spaces as _), N the run's iterations or 1, every sample exactly.
check_go_result() {
	go_lines "$2" >lines.json || return 1
	python3 - "$1" lines.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
lines = [json.loads(l) for l in open(sys.argv[2])]
UNITS = {"wall-time": "ns/op", "wall-time/op": "ns/op", "task-clock": "task-clock-ns/op",
         "user-time": "user-time-ns/op", "max-rss": "max-rss-B/op",
         "page-faults": "page-faults/op", "instructions/op": "instructions/op",
         "cpus-utilized": "cpus-utilized-CPUs"}
k = 0
for b in d["benchmarks"]:
    for i, run in enumerate(b["runs"]):
        got = {u: v for m, u in UNITS.items() if m in b["metrics"]
               for v in [b["metrics"][m]["samples"][i]] if v is not None}
        if not got:
            continue
        line = lines[k]
        k += 1
        assert line["name"] == b["name"].replace(" ", "_"), (line["name"], b["name"])
        assert line["n"] == run.get("iterations", 1), (line["n"], run)
        for u, v in got.items():
            assert line["values"][u] == v, (b["name"], i, u, line["values"].get(u), v)
        assert line["config"]["backend"] == d["backend"], line["config"]
assert k == len(lines), (k, len(lines))
PY
}

test_export_run_writes_every_format() {
	expect_exit 0 "$PMCBENCH" run -q -r 3 -n 'loop a' -o r.json --export a.csv --export a.txt \
		--export a.md --export a.json --export A.CSV -- "$WORK" loop 100000 || return 1
	# The table on stdout as without exports; the exports are files.
	expect_grep '^Benchmark: loop a' "$TMP/out" || return 1
	# The JSON export is the result file, byte for byte.
	cmp -s r.json a.json || fail "a.json differs from the result file" || return 1
	cmp -s a.csv A.CSV || fail "the extension's case changed the format" || return 1
	check_csv_result r.json a.csv || fail "the CSV does not hold the samples" || return 1
	check_go_result r.json a.txt || fail "the Go format does not hold the samples" || return 1
	expect_grep '^Unit ns/op better=lower$' a.txt || return 1
	expect_grep '^### loop a' a.md || return 1
	# Nothing was left behind by the atomic writes.
	[ "$(ls -A | grep -c '^\.')" = 0 ] || { ls -A >&2; fail "temporary files left"; }
}

test_export_of_a_command_with_several_runs_and_the_gobench_format() {
	# Go's benchmark format on stdout: one document, nothing else.
	expect_exit 0 "$PMCBENCH" run -q -r 2 --format gobench -n a -c "$WORK loop 1000" \
		-n b -c "$WORK loop 2000" || return 1
	cp "$TMP/out" out.txt
	go_lines out.txt >lines.json || return 1
	[ "$(grep -c '"name": "a"' lines.json)" = 2 ] || fail "two lines for a" || return 1
	[ "$(grep -c '"name": "b"' lines.json)" = 2 ] || fail "two lines for b" || return 1
	# The comparison of the two commands went to stderr.
	expect_grep 'Comparison against the reference|task-clock' "$TMP/err" || return 1
}

test_export_benchmark_program_keeps_iterations() {
	if [ -z "${PMC_MB_LCG:-}" ]; then
		skip "no benchmark programs in a sanitized build"
	fi
	expect_exit 0 "$PMC_MB_LCG" -q -r 3 --min-time 0.001 -o r.json --export r.txt \
		--export r.csv || return 1
	[ "$(json_get r.json 'all(r["iterations"] >= 1 for b in d["benchmarks"] for r in b["runs"])')" = True ] ||
		fail "runs without iterations" || return 1
	check_go_result r.json r.txt || fail "the Go format does not hold the samples" || return 1
	check_csv_result r.json r.csv || fail "the CSV does not hold the samples" || return 1
	expect_exit 2 "$PMC_MB_LCG" -q --export r.xls || return 1
	expect_one_line "$TMP/err" "unknown extension '.xls'" || return 1
}

test_export_compare_writes_every_format() {
	mkresult old.json 'sort::task-clock=2e6,0.01' 'sort::wall-time=3e6,0.01' \
		'hash::task-clock=5e5,0.01' || return 1
	mkresult new.json 'sort::task-clock=2.4e6,0.01' 'sort::wall-time=3e6,0.01' \
		'hash::task-clock=5e5,0.01' || return 1
	expect_exit 0 "$PMCBENCH" compare --export c.csv --export c.txt --export c.md \
		--export c.json old.json new.json || return 1
	expect_grep 'regression' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" compare --format json old.json new.json || return 1
	cmp -s "$TMP/out" c.json || fail "c.json is not the JSON report" || return 1
	expect_grep '^## pmcbench compare' c.md || return 1
	python3 - c.json c.csv <<'PY' || fail "the CSV is not the report's rows" || return 1
import csv, json, sys
rep = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2], newline="")))
want = [(m, r) for m in rep["metrics"] for r in m["rows"]]
assert len(rows) == len(want) == 3, (len(rows), len(want))
for row, (m, r) in zip(rows, want):
    assert row["benchmark"] == r["benchmark"] and row["metric"] == m["id"], row
    assert row["verdict"] == r["verdict"], (row["verdict"], r["verdict"])
    assert float(row["old_median"]) == r["old"]["median"], row
    assert float(row["new_median"]) == r["new"]["median"], row
    assert abs(float(row["ratio"]) - r["ratio"]) <= 1e-9 * r["ratio"], row
PY
	# Both sides' samples, under side: old and side: new.
	go_lines c.txt >lines.json || return 1
	python3 - old.json new.json lines.json <<'PY' || fail "the Go format does not hold both sides" || return 1
import json, sys
old, new = (json.load(open(p)) for p in sys.argv[1:3])
lines = [json.loads(l) for l in open(sys.argv[3])]
for side, d in (("old", old), ("new", new)):
    for b in d["benchmarks"]:
        mine = [l for l in lines if l["config"].get("side") == side and l["name"] == b["name"]]
        assert len(mine) == len(b["runs"]), (side, b["name"], len(mine))
        for i, l in enumerate(mine):
            assert l["values"]["task-clock-ns/op"] == b["metrics"]["task-clock"]["samples"][i]
PY
	# gate writes them too, also when it fails.
	expect_exit 1 "$PMCBENCH" gate --export g.csv --baseline old.json new.json || return 1
	expect_grep '"regression"' g.csv || return 1
}

test_export_bad_extension_is_one_line_before_anything_runs() {
	expect_exit 2 "$PMCBENCH" run -r 1 --export a.csv --export out.xlsx --shell -- 'touch ran' || return 1
	expect_one_line "$TMP/err" "^pmcbench: --export 'out.xlsx': unknown extension '.xlsx'; use .json, .csv, .md or .txt" || return 1
	[ ! -e ran ] || fail "the command ran" || return 1
	[ ! -e a.csv ] || fail "a.csv was written" || return 1
	expect_exit 2 "$PMCBENCH" run -r 1 --export results --shell -- 'touch ran' || return 1
	expect_one_line "$TMP/err" "^pmcbench: --export 'results': no extension" || return 1
	expect_exit 2 "$PMCBENCH" run -r 1 --export no/such/dir/a.csv --shell -- 'touch ran' || return 1
	expect_one_line "$TMP/err" "^pmcbench: --export: cannot write into 'no/such/dir'" || return 1
	[ ! -e ran ] || fail "the command ran" || return 1
	# A directory that passes access(W_OK) but takes no new file (/proc, even as root).
	expect_exit 2 "$PMCBENCH" run -r 1 -o /proc/r.json --shell -- 'touch ran' || return 1
	expect_one_line "$TMP/err" "^pmcbench: --output: cannot write /proc/r\.json" || return 1
	[ ! -e ran ] || fail "the command ran" || return 1
	mkresult a.json 'x::task-clock=1e6,0.01' || return 1
	expect_exit 2 "$PMCBENCH" compare --export c.html a.json a.json || return 1
	expect_one_line "$TMP/err" "unknown extension '.html'" || return 1
	expect_exit 2 "$PMCBENCH" gate --export c --baseline a.json a.json || return 1
	expect_one_line "$TMP/err" "--export 'c': no extension" || return 1
}
