# End-to-end tests of `pmcbench history` (docs/history.md): adding results (idempotent,
# commit and branch from the options, CI's variables or git), listing, showing and
# exporting series, gating against the last results of a fingerprint, and bad input (a
# corrupt file, a newer schema, no server, a wrong password): one line, exit 2, nothing
# written. The PostgreSQL cases run on a server of ci/pg-test-server.sh.

# hres FILE DAY [MKRESULT ARGS...]: a result measured on 2026-01-DAY (its content differs
# by day too), of benchmark x by default.
hres() {
	local file=$1 day=$2
	shift 2
	[ $# -gt 0 ] || set -- 'x::wall-time=1e6,0.01' 'x::task-clock=2e6,0.01'
	mkresult "$file" env:hostname=box env:kernel=Linux env:cpu-model=cpu "$@" || return 1
	python3 - "$file" "$day" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["created"] = "2026-01-%02dT00:00:00Z" % int(sys.argv[2])
json.dump(d, open(sys.argv[1], "w"))
EOF
}

test_add_list_show_export() {
	hres a.json 1 && hres b.json 2 'x::wall-time=1.1e6,0.01' && hres c.json 3 'x::wall-time=1.2e6,0.01' || return 1
	expect_exit 0 "$PMCBENCH" history add --db h.db --commit aaa111 --branch main --tag os=deb a.json || return 1
	expect_grep '^a.json: added as [0-9a-f]{12} \(commit aaa111, branch main\)$' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" history add --db h.db --commit bbb222 --branch topic b.json c.json || return 1
	# The same result again is the same entry: nothing added.
	cp a.json copy.json
	expect_exit 0 "$PMCBENCH" history add --db h.db --commit ccc333 copy.json || return 1
	expect_grep '^copy.json: already there as [0-9a-f]{12}$' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" history list --db h.db || return 1
	expect_lines 5 "$TMP/out" || return 1
	expect_grep '^2026-01-01T00:00:00Z +aaa111 +main +box +[0-9a-f]{16} +[0-9a-f]{12} +os=deb$' "$TMP/out" || return 1
	expect_grep '^3 entries in h.db$' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" history list --db h.db --branch topic --since 2026-01-03 || return 1
	expect_lines 3 "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" history list --db h.db --from aaa --to bbb222 --tag os=deb || return 1
	expect_lines 3 "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" history show --db h.db x wall-time || return 1
	expect_grep '^x wall-time on box \(fingerprint [0-9a-f]{16}\): 0 change points in 3 points$' "$TMP/out" || return 1
	expect_grep '^2026-01-03T00:00:00Z +bbb222 +topic +10 +1.2ms ' "$TMP/out" || return 1
	# Every sample, exactly: 10 runs of 2 metrics in a.json, of 1 in b.json and c.json.
	expect_exit 0 "$PMCBENCH" history export --db h.db -o all.csv || return 1
	[ "$(wc -l <all.csv)" -eq 41 ] || fail "all.csv: $(wc -l <all.csv) lines, expected 41" || return 1
	expect_grep '^entry,measured,commit,branch,machine,fingerprint,tags,benchmark,metric,unit,run,value$' all.csv || return 1
	python3 - <<'EOF' || fail "the exported samples are not the files' samples" || return 1
import csv, json
rows = list(csv.DictReader(open("all.csv")))
want = sorted(json.load(open(f))["benchmarks"][0]["metrics"]["wall-time"]["samples"]
              for f in ("a.json", "b.json", "c.json"))
got = {}
for r in rows:
    if r["metric"] == "wall-time":
        got.setdefault(r["entry"], []).append(float(r["value"]))
assert sorted(got.values()) == want, (sorted(got.values()), want)
EOF
	expect_exit 0 "$PMCBENCH" history export --db h.db --format json --metric task-clock || return 1
	[ "$(json_get "$TMP/out" 'len(d)')" = 1 ] || fail "json export: not 1 point" || return 1
	[ "$(json_get "$TMP/out" 'd[0]["samples"][0] is not None')" = True ] || fail "no samples" || return 1
}

test_commit_and_branch_from_ci_or_git() {
	hres a.json 1 && hres b.json 2 'x::wall-time=2e6,0.01' || return 1
	expect_exit 0 env GITHUB_SHA=feedbeef GITHUB_HEAD_REF= GITHUB_REF_NAME=release \
		"$PMCBENCH" history add --db h.db a.json || return 1
	expect_grep '\(commit feedbeef, branch release\)$' "$TMP/out" || return 1
	git init -q -b work repo && (cd repo && git -c user.name=t -c user.email=t@t \
		commit -q --allow-empty -m one) || return 1
	local head
	head=$(git -C repo rev-parse HEAD)
	(cd repo && env -u GITHUB_SHA -u GITHUB_REF_NAME -u GITHUB_HEAD_REF -u CI_COMMIT_SHA \
		-u CI_COMMIT_REF_NAME "$PMCBENCH" history add --db ../h.db ../b.json) >"$TMP/out" 2>"$TMP/err" ||
		fail "add in a git checkout failed: $(cat "$TMP/err")" || return 1
	expect_grep "\(commit $head, branch work\)$" "$TMP/out"
}

# run --history adds the result it saved, with the commit and branch that history add
# finds; without -o there is no result file to add.
test_run_adds_to_the_history() {
	expect_exit 0 env GITHUB_SHA=c0ffee GITHUB_HEAD_REF= GITHUB_REF_NAME=main \
		"$PMCBENCH" run -q -r 2 -o r.json --history h.db -- true || return 1
	expect_grep '^r\.json: added as [0-9a-f]{12} \(commit c0ffee, branch main\)$' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" history list --db h.db || return 1
	expect_grep '^1 entry in h\.db$' "$TMP/out" || return 1
	expect_grep ' c0ffee +main ' "$TMP/out" || return 1
	expect_exit 2 "$PMCBENCH" run -q -r 2 --history h.db -- true || return 1
	expect_one_line "$TMP/err" '--history adds the saved result to the history; give -o FILE too'
}

# A run records the compiler that built the measured binary (its ELF .comment, as readelf
# shows it), a script none; the history keeps it in the entry and its fingerprint, and
# --compiler speaks only for a result that names none.
test_compiler_of_the_binary_in_the_fingerprint() {
	expect_exit 0 "$PMCBENCH" run -q -r 2 -o w.json -- "$WORK" loop 10 || return 1
	local want got
	want=$(readelf -p .comment "$WORK" | python3 -c '
import re, sys
seen = []
for line in sys.stdin:
    m = re.match(r"\s*\[\s*[0-9a-f]+\]\s+(.*\S)", line)
    if m and m.group(1) not in seen:
        seen.append(m.group(1))
print("; ".join(seen))')
	[ -n "$want" ] || fail "readelf shows no .comment in $WORK" || return 1
	got=$(json_get w.json 'd["environment"].get("compiler")')
	[ "$got" = "$want" ] || fail "compiler '$got', readelf shows '$want'" || return 1
	printf '#!/bin/sh\n:\n' >script.sh && chmod +x script.sh
	expect_exit 0 "$PMCBENCH" run -q -r 2 -o s.json -- ./script.sh || return 1
	[ "$(json_get s.json '"compiler" in d["environment"]')" = False ] ||
		fail "a script has a compiler" || return 1
	# The same result but for its compiler: another fingerprint. --compiler does not
	# replace the one a result names, and names it for a result without one.
	python3 -c '
import json
d = json.load(open("w.json"))
d["environment"]["compiler"] = "clang version 99"
json.dump(d, open("other.json", "w"))' || return 1
	expect_exit 0 "$PMCBENCH" history add --db h.db --compiler ignored w.json other.json || return 1
	expect_exit 0 "$PMCBENCH" history add --db h.db --compiler cc-1 s.json || return 1
	python3 -c '
import sqlite3, sys
rows = sqlite3.connect("h.db").execute("SELECT source, compiler, fingerprint FROM pmc_entry")
e = {r[0]: r[1:] for r in rows}
assert e["w.json"][0] == sys.argv[1], e
assert e["other.json"][0] == "clang version 99", e
assert e["s.json"][0] == "cc-1", e
assert e["w.json"][1] != e["other.json"][1], e' "$want" ||
		fail "the entries' compilers and fingerprints" || return 1
}

test_gate_against_the_history() {
	local d
	for d in 1 2 3 4 5; do
		hres "r$d.json" "$d" "x::wall-time=1e6,0.02" || return 1
	done
	expect_exit 0 "$PMCBENCH" history add --db h.db r1.json r2.json r3.json r4.json r5.json || return 1
	hres same.json 6 'x::wall-time=1.001e6,0.02' && hres slow.json 7 'x::wall-time=1.3e6,0.02' || return 1
	expect_exit 0 "$PMCBENCH" history gate --db h.db --threshold wall-time=+5% same.json || return 1
	expect_grep 'history \(last 5 on [0-9a-f]{16}\)' "$TMP/out" || return 1
	expect_exit 1 "$PMCBENCH" history gate --db h.db --last 3 --threshold wall-time=+5% slow.json || return 1
	expect_grep 'history \(last 3 on [0-9a-f]{16}\)' "$TMP/out" || return 1
	expect_grep '^gate: FAIL' "$TMP/out" || return 1
	# The report in gate's formats: one JSON document with the decision.
	expect_exit 1 "$PMCBENCH" history gate --db h.db --last 3 --format json \
		--threshold wall-time=+5% slow.json || return 1
	[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["exit_code"])' "$TMP/out")" = 1 ] ||
		fail "--format json: no JSON report with exit_code 1" || return 1
	expect_exit 2 "$PMCBENCH" history gate --db h.db --format nope slow.json || return 1
	expect_one_line "$TMP/err" "unknown format" || return 1
	# --last goes to 128 (a history of 100 results and more); the 5 there are taken.
	expect_exit 0 "$PMCBENCH" history gate --db h.db --last 128 --threshold wall-time=+5% same.json || return 1
	expect_grep 'history \(last 5 on [0-9a-f]{16}\)' "$TMP/out" || return 1
	expect_exit 2 "$PMCBENCH" history gate --db h.db --last 129 same.json || return 1
	# Another machine has no history here: an error, not a pass.
	mkresult other.json env:hostname=elsewhere 'x::wall-time=1e6,0.02' || return 1
	expect_exit 2 "$PMCBENCH" history gate --db h.db other.json || return 1
	expect_one_line "$TMP/err" 'holds no earlier result of other.json.s benchmarks on its fingerprint' || return 1
	# A CI runner's hostname is new every job: --machine names the kind of runner.
	for d in 1 2 3; do
		mkresult "ci$d.json" "env:hostname=runner-$d" "x::wall-time=1.0${d}e6,0.02" || return 1
		sed -i "s/2026-01-01T00:00:00Z/2026-02-0${d}T00:00:00Z/" "ci$d.json"
	done
	expect_exit 0 "$PMCBENCH" history add --db h.db --machine gha ci1.json ci2.json ci3.json || return 1
	mkresult ci9.json env:hostname=runner-9 'x::wall-time=5e6,0.02' || return 1
	expect_exit 2 "$PMCBENCH" history gate --db h.db ci9.json || return 1
	expect_exit 1 "$PMCBENCH" history gate --db h.db --machine gha --threshold wall-time=+5% ci9.json || return 1
	expect_grep 'history \(last 3 on [0-9a-f]{16}\)' "$TMP/out"
}

test_bad_input_is_one_line_and_writes_nothing() {
	hres a.json 1 || return 1
	# A result that does not load: no store is made.
	echo '{"schema": "pmcbench-result/1"' >bad.json
	expect_exit 2 "$PMCBENCH" history add --db h.db a.json bad.json || return 1
	expect_one_line "$TMP/err" '^pmcbench: bad.json' || return 1
	[ ! -e h.db ] || fail "h.db was made for input that did not load" || return 1
	# Reading never makes a store.
	expect_exit 2 "$PMCBENCH" history list --db h.db || return 1
	expect_one_line "$TMP/err" "^pmcbench: h.db: no history there; 'pmcbench history add' makes one$" || return 1
	[ ! -e h.db ] || fail "list made h.db" || return 1
	# A corrupt file.
	head -c 8192 /dev/urandom >junk.db
	cp junk.db junk.orig
	expect_exit 2 "$PMCBENCH" history add --db junk.db a.json || return 1
	expect_one_line "$TMP/err" '^pmcbench: junk.db: not a readable SQLite database .*move the damaged file away' || return 1
	cmp -s junk.db junk.orig || fail "the corrupt file was written" || return 1
	# A store of a newer schema.
	expect_exit 0 "$PMCBENCH" history add --db h.db a.json || return 1
	python3 -c 'import sqlite3; c = sqlite3.connect("h.db"); c.execute("UPDATE pmc_meta SET value = 7 WHERE key = ?", ("schema",)); c.commit()' || return 1
	cp h.db h.orig
	hres b.json 2 'x::wall-time=3e6,0.01' || return 1
	expect_exit 2 "$PMCBENCH" history add --db h.db b.json || return 1
	expect_one_line "$TMP/err" "^pmcbench: h.db: history schema 7 is newer than this pmcbench's \(3\); use the pmcbench that wrote it, or a newer one$" || return 1
	cmp -s h.db h.orig || fail "the newer store was written" || return 1
	# No server there; its password is never shown.
	expect_exit 2 "$PMCBENCH" history list --db 'postgresql://ci:s3cret@127.0.0.1:1/perf' || return 1
	expect_one_line "$TMP/err" '^pmcbench: postgresql://ci:\*\*\*@127.0.0.1:1/perf: cannot connect \(.*\); check the host and port, and that the server is running$' || return 1
	expect_no_grep s3cret "$TMP/err" || return 1
	# Unknown actions and misuse.
	expect_exit 2 "$PMCBENCH" history lst || return 1
	expect_one_line "$TMP/err" "unknown history action 'lst'; did you mean 'list'" || return 1
	expect_exit 2 "$PMCBENCH" history show --db h.orig x || return 1
	expect_one_line "$TMP/err" 'history show needs BENCHMARK METRIC' || return 1
	expect_exit 2 "$PMCBENCH" history list --db h.db --since yesterday || return 1
	expect_one_line "$TMP/err" "--since 'yesterday': not a time"
}

# A history engine this build left out (meson's -Dsqlite, -Dpostgresql; the built ones
# are in PMC_HISTORY_ENGINES, from tests/meson.build): a store that asks for it is one
# line naming the engine, its package and the option, exit 2, and nothing is written or
# run (tests/test_history_engines.c checks the table in every build).
test_engine_left_out_is_named() {
	local built=" ${PMC_HISTORY_ENGINES-sqlite postgresql} " tried=0
	hres a.json 1 || return 1
	case $built in *" postgresql "*) ;; *)
		tried=1
		expect_exit 2 "$PMCBENCH" history list --db 'postgresql://ci:s3cret@127.0.0.1:1/perf' || return 1
		expect_one_line "$TMP/err" "^pmcbench: postgresql://ci:\*\*\*@127.0.0.1:1/perf: this pmcbench is built without the history's PostgreSQL engine; install libpq-dev and build it again with -Dpostgresql=enabled \(docs/history.md\)$" || return 1
		;;
	esac
	case $built in *" sqlite "*) ;; *)
		tried=1
		expect_exit 2 "$PMCBENCH" history add --db h.sqlite a.json || return 1
		expect_one_line "$TMP/err" "^pmcbench: h.sqlite: this pmcbench is built without the history's SQLite engine; install libsqlite3-dev and build it again with -Dsqlite=enabled \(docs/history.md\)$" || return 1
		# run --history refuses before the runs: no result is written.
		expect_exit 2 "$PMCBENCH" run -r 1 -o r.json --history h.db -- true || return 1
		expect_one_line "$TMP/err" "^pmcbench: --history: h.db: this pmcbench is built without the history's SQLite engine" || return 1
		[ ! -e h.sqlite ] && [ ! -e h.db ] && [ ! -e r.json ] || fail "a file was written" || return 1
		;;
	esac
	[ $tried = 1 ] || skip "both history engines are built"
}

# A store that cannot be read says why, in one line, exit 2: a --db that is a directory,
# a file this user may not read, and a file with a damaged page that list itself does not
# read (the points'), which list checks for.
test_store_that_cannot_be_read_says_why() {
	hres a.json 1 || return 1
	mkdir dir.db
	expect_exit 2 "$PMCBENCH" history list --db dir.db || return 1
	expect_one_line "$TMP/err" "^pmcbench: dir.db is a directory, not a history file; name a file \(--db dir.db/pmcbench-history.db\)$" || return 1
	expect_exit 2 "$PMCBENCH" history add --db dir.db a.json || return 1
	expect_one_line "$TMP/err" "^pmcbench: dir.db is a directory" || return 1
	expect_exit 2 "$PMCBENCH" history add --db nodir/h.db a.json || return 1
	expect_one_line "$TMP/err" "^pmcbench: nodir/h.db: No such file or directory; its directory must exist$" || return 1
	expect_exit 0 "$PMCBENCH" history add --db h.db a.json || return 1
	# The root page of pmc_point overwritten: list reads pmc_entry only.
	cp h.db damaged.db
	python3 - <<'PY' || return 1
import sqlite3
c = sqlite3.connect("damaged.db")
page = c.execute("SELECT rootpage FROM sqlite_master WHERE name = 'pmc_point'").fetchone()[0]
size = c.execute("PRAGMA page_size").fetchone()[0]
c.close()
with open("damaged.db", "r+b") as f:
    f.seek((page - 1) * size)
    f.write(b"\x13" * size)
PY
	expect_exit 2 "$PMCBENCH" history show --db damaged.db x wall-time || return 1
	expect_exit 2 "$PMCBENCH" history list --db damaged.db || return 1
	expect_one_line "$TMP/err" "^pmcbench: damaged.db: the file is damaged \(.*\); move it away and add the results again$" || return 1
	expect_exit 0 "$PMCBENCH" history list --db h.db || return 1
	# Garbage over the page in the middle of the file, whichever table or index it holds.
	cp h.db middle.db
	python3 - <<'PY' || return 1
import os, sqlite3
size = sqlite3.connect("middle.db").execute("PRAGMA page_size").fetchone()[0]
pages = os.path.getsize("middle.db") // size
with open("middle.db", "r+b") as f:
    f.seek((pages // 2) * size)
    f.write(bytes(range(256)) * (size // 256))
PY
	expect_exit 2 "$PMCBENCH" history list --db middle.db || return 1
	expect_one_line "$TMP/err" "^pmcbench: middle.db: the file is damaged \(.*\); move it away and add the results again$" || return 1
	# Not readable by this user (root reads anything: the check runs as nobody then).
	cp h.db locked.db
	chmod 000 locked.db
	local as=()
	if [ "$(id -u)" = 0 ]; then
		command -v setpriv >/dev/null && id nobody >/dev/null 2>&1 || skip "root, without setpriv or user nobody"
		as=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
		chmod o+x "$TMP" "$(dirname "$TMP")" 2>/dev/null
		[ -x "$PMCBENCH" ] && "${as[@]}" test -x "$PMCBENCH" || skip "nobody cannot run $PMCBENCH here"
	fi
	expect_exit 2 "${as[@]}" "$PMCBENCH" history list --db "$PWD/locked.db" || return 1
	expect_one_line "$TMP/err" "^pmcbench: $PWD/locked.db: cannot read it \(Permission denied\); check its permissions$"
}

# The same commands on a PostgreSQL server, and its own bad input: a wrong password.
test_postgresql_store() {
	local server="$PMC_SRCDIR/ci/pg-test-server.sh" status=0
	hres a.json 1 && hres b.json 2 'x::wall-time=1.2e6,0.01' || return 1
	cat >pg.sh <<'EOF'
set -u
P=$1
url=$PMC_TEST_PG_URL
bad="postgresql://pmc:wrong-pw@${url#*@}"
"$P" history add --db "$url" --commit aaa --branch main a.json b.json >add.out 2>&1 || exit 11
"$P" history add --db "$url" a.json >again.out 2>&1 || exit 12
"$P" history list --db "$url" >list.out 2>&1 || exit 13
"$P" history export --db "$url" >export.csv 2>&1 || exit 14
"$P" history list --db "$bad" >bad.out 2>bad.err && exit 15
[ $? -eq 2 ] || exit 16
exit 0
EOF
	bash "$server" -- bash pg.sh "$PMCBENCH" >server.out 2>&1 || status=$?
	[ "$status" -ne 77 ] || skip "no PostgreSQL server binaries"
	[ "$status" -eq 0 ] || { cat server.out ./*.out >&2; fail "pg.sh failed with $status"; return 1; }
	expect_grep '^a.json: already there as ' again.out || return 1
	expect_grep '^2 entries in postgresql://pmc:\*\*\*@127.0.0.1:[0-9]+/postgres$' list.out || return 1
	[ "$(wc -l <export.csv)" -eq 31 ] || fail "export.csv: $(wc -l <export.csv) lines" || return 1
	expect_one_line bad.err "^pmcbench: postgresql://pmc:\*\*\*@127.0.0.1:[0-9]+/postgres: the server refused the credentials \(password authentication failed for user \"pmc\"\); check the user and the password \(PGPASSWORD, ~/.pgpass or the URL\)$" || return 1
	expect_no_grep wrong-pw bad.err
}

# A step in a series of 30 entries: `changes` names it with the commits it lies between,
# its size and interval; `show` marks it; a flat series has none; the answer is the
# same every time.
test_changes_find_the_step() {
	python3 - <<'PY' || return 1
import json, random
random.seed(7)
for i in range(30):
    level = 100 if i < 18 else 110
    d = {"schema": "pmcbench-result/1", "tool": {"name": "pmcbench", "version": "0.1.0"},
         "created": "2026-03-01T%02d:%02d:00Z" % (i // 60, i % 60), "backend": "perf",
         "environment": {"hostname": "box"},
         "benchmarks": [{"name": "work", "command": None, "build_id": None,
                         "runs": [{"exit_code": 0} for _ in range(5)],
                         "metrics": {
                             "wall-time": {"unit": "ns", "better": "lower", "derived": False,
                                           "simulated": False, "cross_group": False,
                                           "samples": [level * 1e6 * (1 + random.gauss(0, 0.01)) for _ in range(5)]},
                             "task-clock": {"unit": "ns", "better": "lower", "derived": False,
                                            "simulated": False, "cross_group": False,
                                            "samples": [50e6 * (1 + random.gauss(0, 0.01)) for _ in range(5)]}}}]}
    json.dump(d, open("r%02d.json" % i, "w"))
PY
	local i
	for i in $(seq 0 29); do
		"$PMCBENCH" history add --db h.db --commit "$(printf 'c%03d' "$i")" --branch main \
			"$(printf 'r%02d.json' "$i")" >/dev/null || { fail "add r$i"; return 1; }
	done
	expect_exit 0 "$PMCBENCH" history changes --db h.db || return 1
	expect_lines 3 "$TMP/out" || return 1
	# p: the two sides apart without an overlap, Mann-Whitney's p-value at the change (18
	# points against 12) times 23 splits.
	expect_grep '^work +wall-time +box +c017\.\.c018 +2026-03-01T00:18:00Z +\+10\.[0-9]% \[\+[0-9.]+%, \+[0-9.]+%\] +100(\.[0-9])?ms +110(\.[0-9])?ms +0\.00012$' "$TMP/out" || return 1
	expect_grep '^1 change point in 2 series of h.db$' "$TMP/out" || return 1
	cp "$TMP/out" first.txt
	expect_exit 0 "$PMCBENCH" history changes --db h.db || return 1
	cmp -s first.txt "$TMP/out" || fail "a second run gave another answer" || return 1
	expect_exit 0 "$PMCBENCH" history changes --db h.db --metric task-clock --format json || return 1
	[ "$(json_get "$TMP/out" 'len(d["changes"])')" = 0 ] || fail "a change point in the flat series" || return 1
	expect_exit 0 "$PMCBENCH" history changes --db h.db --format json || return 1
	[ "$(json_get "$TMP/out" 'd["changes"][0]["commit_before"] + " " + d["changes"][0]["commit"] + " " + str(d["changes"][0]["index"])')" = "c017 c018 18" ] ||
		fail "json: $(cat "$TMP/out")" || return 1
	expect_exit 0 "$PMCBENCH" history show --db h.db work wall-time || return 1
	expect_grep '^work wall-time on box \(fingerprint [0-9a-f]{16}\): 1 change point in 30 points$' "$TMP/out" || return 1
	grep -A1 -- '^---- change point: +10' "$TMP/out" | grep -Eq '^2026-03-01T00:18:00Z +c018 ' ||
		fail "show does not mark the change before c018: $(cat "$TMP/out")" || return 1
	expect_exit 2 "$PMCBENCH" history changes --db h.db --alpha 2 || return 1
	expect_one_line "$TMP/err" "--alpha '2': give a probability"
}

# What a team reads (history changes --new-since, --regressions-only, --min-change, as a
# table, Markdown and JSON): 30 entries c000..c029 of one benchmark, wall-time +10% at
# c018 (a regression), task-clock -10% at c018 (an improvement), ipc -2% at c012 (a
# regression: higher is better for it, by the metric registry), instructions never
# measured. Exit 1 only with --new-since and a regression among the new changes.
test_changes_new_since_judges_each_metric() {
	python3 - <<'PY' || return 1
import json, random
random.seed(11)
def m(unit, better, samples):
    return {"unit": unit, "better": better, "derived": False, "simulated": False,
            "cross_group": False, "samples": samples}
for i in range(30):
    noise = lambda v: [v * (1 + random.gauss(0, 0.005)) for _ in range(5)]
    d = {"schema": "pmcbench-result/1", "tool": {"name": "pmcbench", "version": "0.1.0"},
         "created": "2026-03-01T00:%02d:00Z" % i, "backend": "perf",
         "environment": {"hostname": "box"},
         "benchmarks": [{"name": "work", "command": None, "build_id": None,
                         "runs": [{"exit_code": 0} for _ in range(5)],
                         "metrics": {
                             "wall-time": m("ns", "lower", noise(100e6 if i < 18 else 110e6)),
                             "task-clock": m("ns", "lower", noise(50e6 if i < 18 else 45e6)),
                             "ipc": m("ratio", "higher", noise(2.0 if i < 12 else 1.96)),
                             "instructions": m("count", "lower", [None] * 5)}}]}
    json.dump(d, open("r%02d.json" % i, "w"))
PY
	local i
	for i in $(seq 0 29); do
		"$PMCBENCH" history add --db h.db --commit "$(printf 'c%03d' "$i")" --branch main \
			"$(printf 'r%02d.json' "$i")" >/dev/null || { fail "add r$i"; return 1; }
	done
	# Every change, old or new: no verdict, exit 0.
	expect_exit 0 "$PMCBENCH" history changes --db h.db || return 1
	expect_grep '^3 change points in 4 series of h.db$' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" history changes --db h.db --format json || return 1
	[ "$(json_get "$TMP/out" 'd["schema"], d["verdict"], d["new_since"], sorted((c["metric"], c["commit"], c["way"]) for c in d["changes"])')" = \
		"('pmcbench-changes/1', None, None, [('ipc', 'c012', 'regression'), ('task-clock', 'c018', 'improvement'), ('wall-time', 'c018', 'regression')])" ] ||
		fail "json: $(cat "$TMP/out")" || return 1
	# New since c017 (after its entry): the two at c018; the regression makes it exit 1.
	expect_exit 1 "$PMCBENCH" history changes --db h.db --new-since c017 || return 1
	expect_lines 4 "$TMP/out" || return 1
	expect_grep '^work +wall-time +box +c017\.\.c018 ' "$TMP/out" || return 1
	expect_grep '^work +task-clock +box +c017\.\.c018 ' "$TMP/out" || return 1
	expect_grep '^2 new change points after c017 in 4 series of h.db: 1 regression$' "$TMP/out" || return 1
	expect_exit 1 "$PMCBENCH" history changes --db h.db --new-since c017 --format json || return 1
	[ "$(json_get "$TMP/out" 'd["verdict"], d["regressions"], d["new_since"], d["series"], [(c["metric"], c["way"], c["backend"], c["machine"], c["commit_before"], c["commit"], c["index"], c["points"], round(c["change_pct"])) for c in sorted(d["changes"], key=lambda c: c["metric"])]')" = \
		"('regression', 1, 'c017', 4, [('task-clock', 'improvement', 'perf', 'box', 'c017', 'c018', 18, 30, 10), ('wall-time', 'regression', 'perf', 'box', 'c017', 'c018', 18, 30, 10)])" ] ||
		fail "json: $(cat "$TMP/out")" || return 1
	# The same by time (at or after it), and regressions only.
	expect_exit 1 "$PMCBENCH" history changes --db h.db --new-since 2026-03-01T00:18:00 --regressions-only || return 1
	expect_lines 3 "$TMP/out" || return 1
	expect_grep '^work +wall-time ' "$TMP/out" || return 1
	expect_no_grep 'task-clock' "$TMP/out" || return 1
	# Nothing new after c018: pass.
	expect_exit 0 "$PMCBENCH" history changes --db h.db --new-since c018 --format json || return 1
	[ "$(json_get "$TMP/out" 'd["verdict"], d["regressions"], d["changes"]')" = "('pass', 0, [])" ] ||
		fail "json: $(cat "$TMP/out")" || return 1
	# An improvement alone is no regression: exit 0 with it reported.
	expect_exit 0 "$PMCBENCH" history changes --db h.db --new-since c017 --metric task-clock || return 1
	expect_grep '^1 new change point after c017 in 1 series of h.db: 0 regressions$' "$TMP/out" || return 1
	# --min-change drops the 2% ipc change, --regressions-only the improvement.
	expect_exit 0 "$PMCBENCH" history changes --db h.db --min-change 5% --format json || return 1
	[ "$(json_get "$TMP/out" 'sorted(c["metric"] for c in d["changes"]), d["min_change_pct"]')" = "(['task-clock', 'wall-time'], 5.0)" ] ||
		fail "json: $(cat "$TMP/out")" || return 1
	expect_exit 0 "$PMCBENCH" history changes --db h.db --regressions-only || return 1
	expect_grep '^2 change points in 4 series of h.db \(regressions only\)$' "$TMP/out" || return 1
	expect_grep '^work +ipc +box +c011\.\.c012 ' "$TMP/out" || return 1
	# Markdown for a pull request: the verdict first, then a row per change.
	expect_exit 1 "$PMCBENCH" history changes --db h.db --new-since c017 --format markdown || return 1
	[ "$(head -1 "$TMP/out")" = '**Regression: 1 new regression** after `c017` (2 new change points in 4 series of `h.db`)' ] ||
		fail "markdown: $(cat "$TMP/out")" || return 1
	expect_grep '^\| benchmark \| metric \| machine \| backend \| commits \|' "$TMP/out" || return 1
	expect_grep '^\| work \| wall-time \| box \| perf \| `c017\.\.c018` \| 2026-03-01T00:18:00Z \| \+(9\.9|10\.)[0-9]*% \\\[.*\\\] \| .* \| regression \|$' "$TMP/out" || return 1
	expect_grep '^\| work \| task-clock \| box \| perf \| `c017\.\.c018` \| .* \| improvement \|$' "$TMP/out" || return 1
	[ "$(grep -c '^| work ' "$TMP/out")" = 2 ] || fail "markdown rows: $(cat "$TMP/out")" || return 1
	expect_exit 0 "$PMCBENCH" history changes --db h.db --new-since c018 --format md || return 1
	[ "$(cat "$TMP/out")" = '**Pass: no new regression** after `c018` (0 new change points in 4 series of `h.db`)' ] ||
		fail "markdown: $(cat "$TMP/out")" || return 1
	# Bad input: one line, exit 2.
	expect_exit 2 "$PMCBENCH" history changes --db h.db --new-since v9 || return 1
	expect_one_line "$TMP/err" "^pmcbench: --new-since 'v9' is no time .*no entry measured commit v9" || return 1
	expect_exit 2 "$PMCBENCH" history changes --db h.db --min-change lots || return 1
	expect_one_line "$TMP/err" "--min-change 'lots': give a size in percent" || return 1
	expect_exit 2 "$PMCBENCH" history changes --db h.db --format xml || return 1
	expect_one_line "$TMP/err" "--format 'xml': history changes writes table, markdown or json"
}

# The trend chart of a series (show --svg) and the page of a suite (changes --html) are
# well-formed, hold a point per entry and the change point, and render in headless
# Chromium without an error (skipped without Chromium; ci/install-deps.sh installs it).
# 28 entries, the step at 12: a change is reported once its place is settled, min-size
# significant looks after its first (docs/history.md, "Stable as the series grows").
test_trend_chart_in_a_browser() {
	python3 - <<'PY' || return 1
import json, random
random.seed(3)
for i in range(28):
    level = 10 if i < 12 else 12
    d = {"schema": "pmcbench-result/1", "tool": {"name": "pmcbench", "version": "0.1.0"},
         "created": "2026-04-01T00:%02d:00Z" % i, "backend": "perf",
         "environment": {"hostname": "box<&>"},
         "benchmarks": [{"name": "w<b>&\"x\"", "command": None, "build_id": None,
                         "runs": [{"exit_code": 0} for _ in range(4)],
                         "metrics": {"wall-time": {"unit": "ns", "better": "lower", "derived": False,
                                                   "simulated": False, "cross_group": False,
                                                   "samples": [level * 1e6 * (1 + random.gauss(0, 0.01)) for _ in range(4)]}}}]}
    json.dump(d, open("r%02d.json" % i, "w"))
PY
	local i
	for i in $(seq 0 27); do
		"$PMCBENCH" history add --db h.db --commit "$(printf 'd%03d' "$i")" \
			"$(printf 'r%02d.json' "$i")" >/dev/null || { fail "add r$i"; return 1; }
	done
	expect_exit 0 "$PMCBENCH" history show --db h.db --svg trend.svg 'w<b>&"x"' wall-time || return 1
	expect_exit 0 "$PMCBENCH" history changes --db h.db --html page.html || return 1
	python3 - <<'PY' || fail "the chart is not what it should be" || return 1
import xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse("trend.svg").getroot()
chart = root.find("s:g[@class='chart']", ns)
assert chart.get("data-points") == "28" and chart.get("data-changes") == "1", chart.attrib
assert len(chart.findall("s:g[@class='point']", ns)) == 28
change = chart.find("s:g[@class='change']", ns)
assert change.get("data-index") == "12", change.attrib
assert "d011 and d012" in change.find("s:title", ns).text
assert 'w<b>&"x"' in chart.find("s:text[@class='title']", ns).text
page = open("page.html").read()
assert page.count('<svg xmlns') == 1 and 'id="changes"' in page and "d011..d012" in page
PY
	local browser=""
	for b in chromium chromium-browser google-chrome; do
		command -v "$b" >/dev/null 2>&1 && browser=$b && break
	done
	[ -n "$browser" ] || skip "no chromium (ci/install-deps.sh installs it)"
	for f in trend.svg page.html; do
		timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
			--user-data-dir="$PWD/profile" --virtual-time-budget=2000 \
			--dump-dom "file://$PWD/$f" >"$f.dom" 2>/dev/null || { fail "chromium failed on $f"; return 1; }
		expect_no_grep 'parsererror|This page contains the following errors' "$f.dom" || return 1
		[ "$(grep -o 'class="point"' "$f.dom" | wc -l)" -eq 28 ] || fail "$f: not 28 points in the DOM" || return 1
		expect_grep 'class="change" data-index="12"' "$f.dom" || return 1
	done
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$PWD/profile" --window-size=960,400 \
		--screenshot="$PWD/trend.png" "file://$PWD/trend.svg" >/dev/null 2>&1 || { fail "no screenshot"; return 1; }
	[ -s trend.png ] || fail "empty screenshot"
}

# More than 8 series: every chart title of `changes --html` (its table of change points
# and its charts) and of `show --svg` (one chart per fingerprint) names its own series.
# The charts of 20 series are held in an array that grows; a title taken from an element
# before the array moved printed garbage (a use-after-free under ASan).
test_charts_of_twenty_series_name_each() {
	python3 - <<'PY' || return 1
import json, random
random.seed(11)
def doc(i, host, names):
    level = 100 if i < 12 else 120
    return {"schema": "pmcbench-result/1", "tool": {"name": "pmcbench", "version": "0.1.0"},
            "created": "2026-05-01T00:%02d:00Z" % i, "backend": "perf",
            "environment": {"hostname": host},
            "benchmarks": [{"name": b, "command": None, "build_id": None,
                            "runs": [{"exit_code": 0} for _ in range(4)],
                            "metrics": {"wall-time": {"unit": "ns", "better": "lower",
                                                      "derived": False, "simulated": False,
                                                      "cross_group": False,
                                                      "samples": [level * 1e6 * (1 + random.gauss(0, 0.01)) for _ in range(4)]}}}
                           for b in names]}
names = ["bench-%02d" % k for k in range(20)]
for i in range(28):
    json.dump(doc(i, "box", names), open("s%02d.json" % i, "w"))
    for m in range(20 if i < 3 else 0):
        json.dump(doc(i, "host-%02d" % m, ["w"]), open("m%02d-%02d.json" % (m, i), "w"))
PY
	local i
	for i in $(seq -w 0 27); do
		"$PMCBENCH" history add --db h.db --commit "e0$i" "s$i.json" $(ls "m"*"-$i.json" 2>/dev/null) >/dev/null ||
			{ fail "add entry $i"; return 1; }
	done
	expect_exit 0 "$PMCBENCH" history changes --db h.db --html page.html || return 1
	expect_exit 0 "$PMCBENCH" history show --db h.db --svg trend.svg w wall-time || return 1
	python3 - <<'PY' || fail "a chart does not name its series" || return 1
import re, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
page = open("page.html", encoding="utf-8").read()
rows = re.findall(r'<tr><td><a href="#chart(\d+)">([^<]*)</a></td><td>e0(\d\d)\.\.e0(\d\d)</td>', page)
# bench-00..19 on box, each with its step at entry 12 (w on host-00..19: 3 entries, none).
want = ["bench-%02d wall-time on box (perf)" % k for k in range(20)]
got = sorted(t for _, t, _, _ in rows)
assert got == want, got
assert all((a, b) == ("11", "12") for _, _, a, b in rows), rows
charts = dict(re.findall(r'<div id="chart(\d+)">(.*?)</div>', page, re.S))
assert len(charts) == 40, len(charts)
titles = set()
for idx, svg in charts.items():
    titles.add(ET.fromstring(svg).find(".//s:text[@class='title']", ns).text)
for idx, title, _, _ in rows:
    assert ET.fromstring(charts[idx]).find(".//s:text[@class='title']", ns).text == title, idx
assert titles == set(want) | {"w wall-time on host-%02d (perf)" % k for k in range(20)}, sorted(titles)
root = ET.parse("trend.svg").getroot()
titles = [t.text for t in root.findall(".//s:text[@class='title']", ns)]
hosts = sorted(re.sub(r"^w wall-time on (host-\d\d) \(perf\)$", r"\1", t) for t in titles)
assert hosts == ["host-%02d" % k for k in range(20)], titles
PY
	# As a browser shows the page: every series named in the table and over its chart.
	command -v chromium >/dev/null 2>&1 || skip "no chromium (ci/install-deps.sh installs it)"
	timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$PWD/profile" --virtual-time-budget=2000 \
		--dump-dom "file://$PWD/page.html" >page.dom 2>/dev/null || { fail "chromium failed on page.html"; return 1; }
	python3 - <<'PY' || fail "the page in Chromium does not name every series" || return 1
import re
dom = open("page.dom", encoding="utf-8").read()
for k in range(20):
    name = "bench-%02d wall-time on box (perf)<" % k
    assert dom.count(name) == 2, name
for k in range(20):
    assert dom.count("w wall-time on host-%02d (perf)<" % k) == 1, k
assert "\ufffd" not in dom
PY
}

# Charts name where they were measured and mark every change: 40 entries v00..v39, each
# with valgrind's exact instructions (+3.94% at v20, -1.84% at v34, 6 points before the
# end) and perf's wall-time (+20% at v20) with instructions never measured (as on a
# machine without a PMU); 8 more of wall-time on another kernel. The never-measured
# series gets no chart (show --svg of it alone is an error), every title names the
# machine and backend and no hash, two series alike but for their kernel say so, every
# change point has its marker, and every label sits above the plot, off the data.
test_charts_name_where_and_mark_every_step() {
	python3 - <<'PY' || return 1
import json, random
random.seed(5)
def m(unit, samples, sim=False):
    return {"unit": unit, "better": "lower", "derived": False, "simulated": sim,
            "cross_group": False, "samples": samples}
def doc(t, backend, kernel, runs, metrics):
    return {"schema": "pmcbench-result/1", "tool": {"name": "pmcbench", "version": "0.1.0"},
            "created": t, "backend": backend,
            "environment": {"hostname": "box", "kernel": kernel, "cpu-model": "cpu X"},
            "benchmarks": [{"name": "work", "command": None, "build_id": None,
                            "runs": [{"exit_code": 0}] * runs, "metrics": metrics}]}
noisy = lambda v: [v * (1 + random.gauss(0, 0.01)) for _ in range(4)]
for i in range(40):
    level = 100000 if i < 20 else 103940 if i < 34 else 102027
    json.dump(doc("2026-06-01T00:%02d:00Z" % i, "valgrind", "Linux 6.1", 1,
                  {"instructions": m("count", [level], True)}), open("v%02d.json" % i, "w"))
    json.dump(doc("2026-06-01T01:%02d:00Z" % i, "perf", "Linux 6.1", 4,
                  {"instructions": m("count", [None] * 4),
                   "wall-time": m("ns", noisy(10e6 if i < 20 else 12e6))}), open("p%02d.json" % i, "w"))
    if i < 8:
        json.dump(doc("2026-06-01T02:%02d:00Z" % i, "perf", "Linux 6.2", 4,
                      {"wall-time": m("ns", noisy(10e6))}), open("k%02d.json" % i, "w"))
PY
	local i
	for i in $(seq -w 0 39); do
		"$PMCBENCH" history add --db h.db --commit "v$i" "v$i.json" "p$i.json" $(ls "k$i.json" 2>/dev/null) >/dev/null ||
			{ fail "add v$i"; return 1; }
	done
	expect_exit 0 "$PMCBENCH" history changes --db h.db --html page.html || return 1
	expect_exit 0 "$PMCBENCH" history changes --db h.db --format json || return 1
	cp "$TMP/out" changes.json
	expect_exit 0 "$PMCBENCH" history show --db h.db --svg trend.svg work instructions || return 1
	python3 - <<'PY' || fail "the charts are not what they should be" || return 1
import json, re, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
changes = json.load(open("changes.json"))["changes"]
page = open("page.html", encoding="utf-8").read()
charts = [ET.fromstring(svg) for svg in re.findall(r'<div id="chart\d+">(.*?)</div>', page, re.S)]
# 4 series, one never measured: 3 charts, and the page names the fourth.
assert len(charts) == 3, len(charts)
assert re.search(r'<p id="unmeasured">[^<]*: work instructions on box \(perf\)</p>', page), page
def check(chart):
    g = chart.find("s:g[@class='chart']", ns)
    title = g.find("s:text[@class='title']", ns).text
    assert not re.search(r"[0-9a-f]{16}", title), title
    assert g.find("s:text[@class='subtitle']", ns).text.startswith("kernel Linux 6."), title
    marks = g.findall("s:g[@class='change']", ns)
    fp = g.get("data-fingerprint")
    want = sorted(c["index"] for c in changes if c["fingerprint"] == fp and title.startswith("work " + c["metric"] + " "))
    assert int(g.get("data-changes")) == len(marks) == len(want), (title, len(marks), want)
    assert sorted(int(m.get("data-index")) for m in marks) == want, title
    top = float(g.find("s:rect[@class='frame']", ns).get("y"))
    for mk in marks:
        label, line = mk.find("s:text[@class='cplabel']", ns), mk.find("s:line", ns)
        assert float(label.get("y")) < top, (title, label.get("y"), top)
        assert float(line.get("y1")) <= float(label.get("y")), title
    return title, want
got = dict(check(c) for c in charts)
assert got == {"work instructions on box (valgrind)": [20, 34],
               "work wall-time on box (perf) - kernel Linux 6.1": [20],
               "work wall-time on box (perf) - kernel Linux 6.2": []}, got
rows = re.findall(r'<tr><td><a href="#chart\d+">([^<]*)</a></td><td>(v\d\d)\.\.(v\d\d)</td>', page)
assert sorted(rows) == [("work instructions on box (valgrind)", "v19", "v20"),
                        ("work instructions on box (valgrind)", "v33", "v34"),
                        ("work wall-time on box (perf) - kernel Linux 6.1", "v19", "v20")], rows
svg = ET.parse("trend.svg").getroot()
assert [check(svg)] == [("work instructions on box (valgrind)", [20, 34])]
PY
	# A series that was never measured has nothing to draw: an error, and no file.
	local fp
	fp=$(json_get changes.json '[c["fingerprint"] for c in d["changes"] if c["metric"] == "wall-time"][0]')
	expect_exit 2 "$PMCBENCH" history show --db h.db --fingerprint "$fp" --svg none.svg work instructions || return 1
	expect_one_line "$TMP/err" "^pmcbench: none.svg: nothing to draw: work instructions on box \(perf\) was never measured" || return 1
	[ ! -e none.svg ] || fail "none.svg written"
}

# bisect: commits 1-5 touch 20 pages, 6-9 touch 3000 (page faults count them, without a
# PMU too): git bisect run names commit 6 and its measured change; the tree is left as
# it was. A dirty tree and ends that do not differ are errors.
test_bisect_names_the_first_bad_commit() {
	git init -q -b main repo || return 1
	local i
	for i in 1 2 3 4 5 6 7 8 9; do
		if [ "$i" -lt 6 ]; then echo 20 >repo/n.txt; else echo 3000 >repo/n.txt; fi
		echo "$i" >repo/c.txt
		git -C repo add -A && git -C repo -c user.name=t -c user.email=t@t commit -qm "commit $i" || return 1
	done
	local six
	six=$(git -C repo rev-parse HEAD~3)
	cd repo || return 1
	expect_exit 0 env TMPDIR="$TMP" "$PMCBENCH" history bisect --good HEAD~8 --bad HEAD --build true \
		--threshold page-faults=+20% -- sh -c "exec '$WORK' touch \$(cat n.txt)" || return 1
	expect_grep "^first bad commit: $six commit 6$" "$TMP/out" || return 1
	expect_grep '^sh -c .* \+[0-9.]+% \[.*\] .*regression$' "$TMP/out" || return 1
	[ "$(git symbolic-ref --short HEAD)" = main ] || fail "HEAD is not main again" || return 1
	[ ! -e .git/BISECT_LOG ] || fail "the bisect was not reset" || return 1
	# Ends without the regression: nothing to bisect.
	expect_exit 2 env TMPDIR="$TMP" "$PMCBENCH" history bisect --good HEAD~8 --bad HEAD~5 --build true \
		--threshold page-faults=+20% -- sh -c "exec '$WORK' touch \$(cat n.txt)" || return 1
	expect_one_line "$TMP/err" 'is not a regression beyond page-faults=\+20% against the good end' || return 1
	[ "$(git symbolic-ref --short HEAD)" = main ] || fail "HEAD is not main after the error" || return 1
	echo changed >c.txt
	expect_exit 2 "$PMCBENCH" history bisect --good HEAD~8 --bad HEAD --build true \
		--threshold page-faults=+20% -- true || return 1
	expect_one_line "$TMP/err" 'the working tree has changes .*commit or stash them first'
}

# bisect under valgrind: exact counts need one run a step (the default there, and --runs 1
# is taken); commits 1-5 loop 100000 times, 6-9 103000. A timing backend refuses --runs 1,
# saying why.
test_bisect_under_valgrind_runs_once_a_step() {
	command -v valgrind >/dev/null || skip "valgrind not installed"
	git init -q -b main repo || return 1
	local i
	for i in 1 2 3 4 5 6 7 8 9; do
		if [ "$i" -lt 6 ]; then echo 100000 >repo/n.txt; else echo 103000 >repo/n.txt; fi
		echo "$i" >repo/c.txt
		git -C repo add -A && git -C repo -c user.name=t -c user.email=t@t commit -qm "commit $i" || return 1
	done
	local six
	six=$(git -C repo rev-parse HEAD~3)
	cd repo || return 1
	expect_exit 2 "$PMCBENCH" history bisect --good HEAD~8 --bad HEAD --build true --runs 1 \
		--threshold task-clock=+5% -- "$WORK" loop 1 || return 1
	expect_one_line "$TMP/err" "^pmcbench: --runs 1: the perf backend's measurements vary from run to run, .*--backend valgrind, whose exact counts need 1$" || return 1
	expect_exit 2 "$PMCBENCH" history bisect --good HEAD~8 --bad HEAD --build true --runs 3 \
		--backend valgrind --backend nope --threshold task-clock=+5% -- "$WORK" loop 1 || return 1
	expect_one_line "$TMP/err" "unknown backend 'nope'" || return 1
	mkdir "$TMP/b1" "$TMP/b0"
	expect_exit 0 env TMPDIR="$TMP/b1" "$PMCBENCH" history bisect --good HEAD~8 --bad HEAD --build true \
		--runs 1 --backend valgrind --threshold instructions=+1% -- sh -c "exec '$WORK' loop \$(cat n.txt)" || return 1
	expect_grep "^first bad commit: $six commit 6$" "$TMP/out" || return 1
	# The default under valgrind is one run too.
	expect_exit 0 env TMPDIR="$TMP/b0" "$PMCBENCH" history bisect --good HEAD~8 --bad HEAD --build true \
		--backend valgrind --threshold instructions=+1% -- sh -c "exec '$WORK' loop \$(cat n.txt)" || return 1
	expect_grep "^first bad commit: $six commit 6$" "$TMP/out" || return 1
	python3 - "$TMP"/b1/pmcbench-bisect-*/ "$TMP"/b0/pmcbench-bisect-*/ <<'PY' || fail "a step ran more than once" || return 1
import glob, json, os, sys
for d in sys.argv[1:]:
    files = glob.glob(os.path.join(d, "*.json"))
    assert len(files) >= 3, files
    for f in files:
        runs = json.load(open(f))["benchmarks"][0]["runs"]
        assert len(runs) == 1, (f, len(runs))
PY
}

# The CI recipe (docs/ci.md, "A history of results"; ci/examples/github-actions-history.yml)
# under valgrind: pushes to main add their result, a pull request is gated with --last 10
# and a 1% limit on instructions. After an accepted change (one push at the new level), the
# baseline is the series' current level, not both levels pooled: the next pull request's
# A/A gate passes and a +2.5% change fails, and neither warns that the baseline was created
# after the result (the pooled baseline carries the time of its newest entry).
test_ci_recipe_gate_after_an_accepted_change() {
	command -v valgrind >/dev/null || skip "valgrind not installed"
	local i
	measure() { "$PMCBENCH" run -q --backend valgrind -n bench -o "$1" -- "$WORK" loop "$2" >/dev/null; }
	# Each push on a day of its own, as CI's pushes are (a result is an entry once).
	push() {
		measure "push$1.json" "$2" || { fail "measure push $1"; return 1; }
		sed -i -E "s/\"created\": *\"[^\"]*\"/\"created\":\"2026-01-$1T00:00:00Z\"/" "push$1.json"
		"$PMCBENCH" history add --db h.db --machine gha --branch main --commit "c$1" \
			"push$1.json" >/dev/null || { fail "add push $1"; return 1; }
	}
	gate() {
		expect_exit "$1" "$PMCBENCH" history gate --db h.db --machine gha --branch main --last 10 \
			--threshold instructions=+1% "$2" || return 1
		expect_no_grep 'swapped' "$TMP/err" || return 1
		expect_no_grep 'swapped' "$TMP/out"
	}
	for i in $(seq 10 19); do push "$i" 100000 || return 1; done
	measure same.json 100000 && measure slower.json 103000 || { fail "measure"; return 1; }
	gate 0 same.json || return 1
	gate 1 slower.json || return 1
	# The change is accepted: main measures 103000 from now on.
	push 20 103000 || return 1
	measure aa.json 103000 && measure plus2.json 105000 || { fail "measure"; return 1; }
	gate 0 aa.json || return 1
	expect_grep '^gate: PASS' "$TMP/out" || return 1
	gate 1 plus2.json || return 1
	expect_grep '^gate: FAIL' "$TMP/out" || return 1
	# Back to the old level would be a -3% change, not a pass against a pool of both.
	"$PMCBENCH" history gate --db h.db --machine gha --branch main --last 10 \
		--threshold instructions=-1% same.json >/dev/null 2>&1
	[ $? -eq 1 ] || fail "a return to the old level is not a change against the new one" || return 1
	# A second push at the new level: the same answers.
	push 21 103000 || return 1
	gate 0 aa.json && gate 1 plus2.json || return 1
	# Exact counts: the step is a change point once the new level has min-size (4) points,
	# sized by the two levels exactly, and says it was reported with those 4 points.
	expect_exit 0 "$PMCBENCH" history changes --db h.db --branch main --metric instructions || return 1
	expect_grep '^0 change points in 1 series' "$TMP/out" || return 1
	push 22 103000 && push 23 103000 || return 1
	expect_exit 0 "$PMCBENCH" history changes --db h.db --branch main --metric instructions \
		--format json || return 1
	[ "$(json_get "$TMP/out" '(lambda d: (len(d), d[0]["commit_before"], d[0]["commit"], d[0]["ratio_lo"] == d[0]["ratio"] == d[0]["ratio_hi"] == d[0]["after"] / d[0]["before"], d[0]["p"], d[0]["first_index"] == d[0]["index"], d[0]["reported_with"] - d[0]["index"]))(d["changes"])')" = "(1, 'c19', 'c20', True, 0.0, True, 4)" ] ||
		fail "changes: $(cat "$TMP/out")" || return 1
	# A bad run on main (half the work) is the newest level, and a pull request fails
	# against it until it is removed.
	push 24 50000 || return 1
	gate 1 aa.json || return 1
	local bad
	bad=$("$PMCBENCH" history list --db h.db --from c24 | awk '$2 == "c24" {print $6}')
	expect_exit 0 "$PMCBENCH" history remove --db h.db "$bad" || return 1
	expect_one_line "$TMP/out" "^$bad: removed \(measured 2026-01-24T00:00:00Z, commit c24\)$" || return 1
	gate 0 aa.json || return 1
	expect_exit 2 "$PMCBENCH" history remove --db h.db "$bad" || return 1
	expect_one_line "$TMP/err" "h.db holds no entry $bad" || return 1
	expect_exit 2 "$PMCBENCH" history remove --db h.db c24 || return 1
	expect_one_line "$TMP/err" "'c24' is not an entry key"
}

# A benchmark run as `-- ./my-prog` is named './my-prog'; asked for as 'my-prog' (README's
# example once did), show and list say which name is near instead of finding nothing.
test_a_near_benchmark_name_is_offered() {
	hres a.json 1 './my-prog::wall-time=1e6,0.01' || return 1
	expect_exit 0 "$PMCBENCH" history add --db h.db --commit aaa111 --branch main a.json || return 1
	expect_exit 2 "$PMCBENCH" history show --db h.db my-prog wall-time || return 1
	expect_one_line "$TMP/err" "^pmcbench: no entry of h\.db has metric 'wall-time' of benchmark 'my-prog'; did you mean '\./my-prog'\?$" ||
		return 1
	expect_exit 0 "$PMCBENCH" history list --db h.db --benchmark my-prog || return 1
	expect_grep '^0 entries in h\.db$' "$TMP/out" || return 1
	expect_one_line "$TMP/err" "^pmcbench: note: no entry has benchmark 'my-prog'; did you mean '\./my-prog'\?$" ||
		return 1
	# Nothing near: the hint of before, and no note.
	expect_exit 2 "$PMCBENCH" history show --db h.db zzzzzz wall-time || return 1
	expect_one_line "$TMP/err" "benchmark 'zzzzzz'; 'pmcbench history list --benchmark NAME' shows" || return 1
	expect_exit 0 "$PMCBENCH" history list --db h.db --benchmark zzzzzz || return 1
	[ ! -s "$TMP/err" ] || fail "a note without a near name: $(cat "$TMP/err")" || return 1
	expect_exit 0 "$PMCBENCH" history show --db h.db ./my-prog wall-time
}
