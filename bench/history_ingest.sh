#!/bin/bash
# Times `pmcbench history add` of one large result (issue 23's target: under 2x the time
# to load it) beside the floor of loading it: a bare jansson parse of the same file
# (jansson-floor, bench/jansson_floor.c), alternating, REPS times each, so that both see
# the same machine; prints the median wall time of each and their ratio, measured in
# this run. Each add goes into a new, empty SQLite file; with PMC_HISTORY_PG_URL set
# (e.g. the URL ci/pg-test-server.sh prints) a PostgreSQL store is timed too, emptied
# before each add. The result is synthetic (bench/gen_results.py: BENCHMARKS benchmarks
# x 10 metrics x 10 runs).
#
# Usage: bench/history_ingest.sh [BUILD] [BENCHMARKS] [REPS]
#   BUILD       the meson build directory (default: build beside this script's directory)
#   BENCHMARKS  benchmarks in the result (default 10000)
#   REPS        runs of each command (default 7)
# The files are kept in ${PMC_HISTORY_INGEST_DIR:-/tmp/pmcbench-history-ingest}.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
nbench=${2:-10000}
reps=${3:-7}
dir=${PMC_HISTORY_INGEST_DIR:-/tmp/pmcbench-history-ingest}
pmcbench=$build/harness/7-cli/pmcbench
floor=$build/bench/jansson-floor

for exe in "$pmcbench" "$floor"; do
	[ -x "$exe" ] || { echo "history_ingest: $exe is not executable; build first (ninja -C $build)" >&2; exit 2; }
done
mkdir -p "$dir"
result=$dir/r-$nbench.json
[ -s "$result" ] || python3 "$here/gen_results.py" "$result" --benchmarks "$nbench" --seed 1

python3 - "$pmcbench" "$floor" "$result" "$dir" "$reps" "${PMC_HISTORY_PG_URL:-}" <<'PY'
import os, statistics, subprocess, sys, time

pmcbench, floor, result, d, reps, pg = sys.argv[1:7]
reps = int(reps)
db = os.path.join(d, "ingest.db")
add = [pmcbench, "history", "add", "--commit", "synthetic", "--branch", "main"]
cmds = {"load (jansson floor)": [floor, result],
        "history add (SQLite)": add + ["--db", db, result]}
if pg:
    cmds["history add (PostgreSQL)"] = add + ["--db", pg, result]


def reset(name):
    if "SQLite" in name and os.path.exists(db):
        os.remove(db)
    if "PostgreSQL" in name:
        # An empty store each time: the same result twice would be one entry (no work).
        subprocess.run(["psql", "-q", pg, "-c", "DROP SCHEMA public CASCADE; CREATE SCHEMA public"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


print("%s (%.0f MB); %d CPUs, load average %.2f; %d runs each" %
      (result, os.path.getsize(result) / 1e6, os.cpu_count(), os.getloadavg()[0], reps))
walls = {name: [] for name in cmds}
for i in range(reps):
    for name in (list(cmds) if i % 2 == 0 else list(reversed(list(cmds)))):
        reset(name)
        t0 = time.perf_counter()
        p = subprocess.run(cmds[name], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        walls[name].append(time.perf_counter() - t0)
        if p.returncode != 0:
            sys.exit("%s exited %d: %s" % (" ".join(cmds[name]), p.returncode,
                                           p.stderr.decode(errors="replace").strip()))
med = {name: statistics.median(v) for name, v in walls.items()}
for name in cmds:
    print("%-26s median %.3f s (min %.3f, max %.3f)" % (name, med[name], min(walls[name]),
                                                        max(walls[name])))
ok = True
for name in cmds:
    if name.startswith("history"):
        ratio = med[name] / med["load (jansson floor)"]
        ok = ok and ratio < 2
        print("%s / load: %.2fx (target < 2x)   %s" % (name, ratio, "ok" if ratio < 2 else "OVER"))
sys.exit(0 if ok else 1)
PY
