#!/bin/bash
# The history's store at scale (issue 36): `pmcbench history changes` over SERIES series x
# ENTRIES one-sample points (bench/gen_history.py: ENTRIES results of SERIES / 10
# benchmarks x 10 metrics, one run each, a tenth of the series with a 5% step). Builds the
# SQLite store once with `history add` (and, with PMC_HISTORY_PG_URL set, e.g. the URL
# ci/pg-test-server.sh prints, a PostgreSQL store in that emptied database), then prints
# for each store: its bytes per point, and `history changes`' wall and CPU seconds and peak
# RSS (GNU time), beside the same command on one benchmark (10 series), whose RSS is the
# floor that memory bounded by a series stays at. Targets (issue 36, for 10,000 x 1,000):
# at most 100 bytes per point, changes under 30 s and 1 GB: per million points, 3 s.
#
# Usage: bench/history_scale.sh [BUILD] [SERIES] [ENTRIES]
#   BUILD    the meson build directory (default: build beside this script's directory)
#   SERIES   series in the store (default 1000)
#   ENTRIES  results added, the points of each series (default 1000)
# The files are kept in ${PMC_HISTORY_SCALE_DIR:-/tmp/pmcbench-history-scale}/SERIES-ENTRIES
# and reused (delete the directory after a change of the store's layout).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
series=${2:-1000}
entries=${3:-1000}
dir=${PMC_HISTORY_SCALE_DIR:-/tmp/pmcbench-history-scale}/$series-$entries
pmcbench=$build/harness/7-cli/pmcbench
pg=${PMC_HISTORY_PG_URL:-}

[ -x "$pmcbench" ] || { echo "history_scale: $pmcbench is not executable; build first (ninja -C $build)" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "history_scale: needs GNU time (/usr/bin/time)" >&2; exit 2; }
mkdir -p "$dir"
if [ ! -s "$dir/results.done" ]; then
	echo "generating $entries results of $series series in $dir ..."
	python3 "$here/gen_history.py" "$dir/results" --series "$series" --entries "$entries"
	echo ok >"$dir/results.done"
fi
if [ ! -s "$dir/history.db" ]; then
	echo "adding them to $dir/history.db ..."
	/usr/bin/time -f "history add (SQLite): %e s wall, %U+%S s CPU" \
		"$pmcbench" history add --db "$dir/history.db.tmp" --commit c --branch main \
		"$dir"/results/*.json >/dev/null
	mv "$dir/history.db.tmp" "$dir/history.db"
fi
if [ -n "$pg" ]; then
	psql -q "$pg" -c "DROP SCHEMA public CASCADE; CREATE SCHEMA public" >/dev/null 2>&1
	/usr/bin/time -f "history add (PostgreSQL): %e s wall, %U+%S s CPU" \
		"$pmcbench" history add --db "$pg" --commit c --branch main "$dir"/results/*.json >/dev/null
	psql -q "$pg" -c "VACUUM ANALYZE" >/dev/null
fi

python3 - "$pmcbench" "$dir" "$series" "$entries" "$pg" <<'PY'
import os, subprocess, sys

pmcbench, d, series, entries, pg = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
points = series * entries
stores = [("SQLite", os.path.join(d, "history.db"))] + ([("PostgreSQL", pg)] if pg else [])


def timed(args):
    p = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M"] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("history_scale: %s exited %d: %s" % (" ".join(args), p.returncode, p.stderr))
    wall, user, sys_, rss = p.stderr.strip().splitlines()[-1].split()
    return float(wall), float(user) + float(sys_), int(rss) * 1024, p.stdout


def size_of(name, db):
    if name == "SQLite":
        return os.path.getsize(db)
    q = ("SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n ON "
         "n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r' AND "
         "c.relname LIKE 'pmc_%'")
    return int(subprocess.check_output(["psql", "-At", db, "-c", q], text=True).strip())


print("%d series x %d points = %d points; %d CPUs, load average %.2f" %
      (series, entries, points, os.cpu_count(), os.getloadavg()[0]))
ok = True
for name, db in stores:
    size = size_of(name, db)
    wall, cpu, rss, out = timed([pmcbench, "history", "changes", "--db", db])
    one_wall, one_cpu, one_rss, _ = timed([pmcbench, "history", "changes", "--db", db,
                                           "--benchmark", "bench/00000"])
    summary = [l for l in out.splitlines() if " change points in " in l or " change point in " in l]
    per_m = cpu / (points / 1e6)
    bpp = size / points
    print("%s: %.1f MB, %.1f bytes per point (target <= 100)" % (name, size / 1e6, bpp))
    print("  history changes: %.2f s wall, %.2f s CPU (%.2f s per million points, target < 3),"
          " peak RSS %.1f MB; %s" % (wall, cpu, per_m, rss / 1e6,
                                       (summary or out.strip().splitlines() or [""])[-1]))
    print("  one benchmark (10 series): %.2f s CPU, peak RSS %.1f MB: all / one = %.2fx RSS" %
          (one_cpu, one_rss / 1e6, rss / one_rss))
    ok = ok and bpp <= 100 and per_m < 3 and rss < 1e9
sys.exit(0 if ok else 1)
PY
