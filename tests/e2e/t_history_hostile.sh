# A history database made by someone else (issue 35): stores travel as CI caches and
# artifacts. A view over an endless recursive query where pmcbench keeps its table
# pmc_point, a trigger, a sample 1e400 and a count n that is not the samples' are each one
# line naming the file and what is wrong (so is a benchmark's count of runs that is not
# its points'), exit 2, at once (timeout 20: a regression fails
# here rather than hanging CI); a store made by pmcbench is read as before.

# hostile_stores: h.db made by `history add` of a.json, and its copies view.db, trigger.db,
# huge.db, nan.db, count.db, inline-inf.db, inline-text.db, inline-count.db and runs.db,
# each changed behind pmcbench's back.
hostile_stores() {
	mkresult a.json 'x::wall-time=1e6,0.01' 'x::task-clock=2e6,0.01' || return 1
	expect_exit 0 "$PMCBENCH" history add --db h.db --commit aaa111 a.json || return 1
	python3 - <<'PY'
import shutil, sqlite3
def change(name, sql):
    shutil.copy("h.db", name)
    c = sqlite3.connect(name)
    c.executescript(sql)
    c.commit()
    c.close()
change("view.db", """ALTER TABLE pmc_point RENAME TO kept;
CREATE VIEW pmc_point AS WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r)
SELECT k.* FROM r, kept k;""")
change("trigger.db", "CREATE TRIGGER wipe AFTER INSERT ON pmc_entry BEGIN DELETE FROM pmc_point; END;")
wall = "name = (SELECT num FROM pmc_name WHERE metric = 'wall-time')"
change("huge.db", "UPDATE pmc_point SET samples = '1 1e400 3', n = 3 WHERE %s;" % wall)
change("nan.db", "UPDATE pmc_point SET samples = 'nan 2 inf', n = 3 WHERE %s;" % wall)
change("count.db", "UPDATE pmc_point SET n = 3 WHERE %s;" % wall)
# A one-sample point keeps its sample as its median (schema 3): infinite, text, or two.
change("inline-inf.db", "UPDATE pmc_point SET samples = NULL, n = 1, median = 1e999 WHERE %s;" % wall)
change("inline-text.db", "UPDATE pmc_point SET samples = NULL, n = 1, median = 'abc' WHERE %s;" % wall)
change("inline-count.db", "UPDATE pmc_point SET samples = NULL, n = 2 WHERE %s;" % wall)
change("runs.db", "UPDATE pmc_bench SET runs = 1000000000000000;")
PY
}

# later.json: a.json measured a day later, to gate against the store's entry.
later_result() {
	python3 - <<'PY'
import json
d = json.load(open("a.json"))
d["created"] = "2030-01-02T00:00:00Z"
json.dump(d, open("later.json", "w"))
PY
}

test_a_view_or_a_trigger_is_refused_at_once() {
	hostile_stores && later_result || return 1
	local cmd
	for cmd in "show x wall-time" "changes" "export" "gate later.json" "list"; do
		# shellcheck disable=SC2086
		expect_exit 2 timeout 20 "$PMCBENCH" history $cmd --db view.db || return 1
		expect_one_line "$TMP/err" "^pmcbench: view.db: not a pmcbench history: 'pmc_point' is a view, where pmcbench keeps a table; move the file away and add the results again$" || return 1
	done
	expect_exit 2 timeout 20 "$PMCBENCH" history add --db view.db later.json || return 1
	expect_one_line "$TMP/err" "^pmcbench: view.db: not a pmcbench history: 'pmc_point' is a view" || return 1
	cp trigger.db trigger.orig
	expect_exit 2 timeout 20 "$PMCBENCH" history add --db trigger.db later.json || return 1
	expect_one_line "$TMP/err" "^pmcbench: trigger.db: not a pmcbench history: it holds the trigger 'wipe' \(on 'pmc_entry'\), which pmcbench never makes; drop it if it is yours, else move the file away and add the results again$" || return 1
	cmp -s trigger.db trigger.orig || fail "trigger.db was written" || return 1
	expect_exit 2 timeout 20 "$PMCBENCH" history show --db trigger.db x wall-time || return 1
	expect_one_line "$TMP/err" "^pmcbench: trigger.db: not a pmcbench history: it holds the trigger 'wipe'" || return 1
}

test_a_damaged_point_is_named() {
	hostile_stores && later_result || return 1
	local f cmd why
	for f in huge nan count inline-inf inline-text inline-count; do
		why="its samples are not all finite numbers"
		case $f in *count) why="its count n is not the number of its samples" ;; esac
		for cmd in "show x wall-time" "changes" "export" "gate later.json"; do
			# shellcheck disable=SC2086
			expect_exit 2 timeout 20 "$PMCBENCH" history $cmd --db $f.db || return 1
			expect_one_line "$TMP/err" "^pmcbench: $f.db: entry [0-9a-f]{12}, benchmark 'x', metric 'wall-time': $why; the store was changed by something else than pmcbench: move it away and add the results again$" || return 1
		done
		# export writes series by series: -o's file is written only whole.
		expect_exit 2 timeout 20 "$PMCBENCH" history export --db $f.db -o part.csv || return 1
		[ ! -e part.csv ] || fail "$f.db: export -o wrote part.csv" || return 1
	done
	# 10^15 runs of x: the gate would make them all, with or without --metric.
	for cmd in "" "--metric wall-time"; do
		# shellcheck disable=SC2086
		expect_exit 2 timeout 20 "$PMCBENCH" history gate --db runs.db later.json $cmd || return 1
		expect_one_line "$TMP/err" "^pmcbench: runs.db: entry [0-9a-f]{12}, benchmark 'x': its count of runs is not the most samples of one of its metrics; the store was changed by something else than pmcbench: move it away and add the results again$" || return 1
	done
	# The store they were made from reads and gates as before.
	expect_exit 0 timeout 20 "$PMCBENCH" history export --db h.db -o all.csv || return 1
	[ "$(wc -l <all.csv)" -eq 21 ] || fail "all.csv: $(wc -l <all.csv) lines, expected 21" || return 1
	expect_exit 0 timeout 20 "$PMCBENCH" history show --db h.db x wall-time || return 1
	expect_grep '0 change points in 1 points$' "$TMP/out" || return 1
	expect_exit 0 timeout 20 "$PMCBENCH" history add --db h.db later.json || return 1
	expect_exit 0 timeout 20 "$PMCBENCH" history list --db h.db || return 1
	expect_grep '^2 entries in h.db$' "$TMP/out"
}
