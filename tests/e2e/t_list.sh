# `pmcbench list [FILTER]` (docs/cli.md, "list"): groups, descriptions from the metric
# registry, the filter, --names for shell completion, --format json, exit statuses.

test_list_groups_and_descriptions() {
	expect_exit 0 "$PMCBENCH" list || return 1
	for h in '^Hardware events:' '^Hardware cache events:' '^Software events:' \
		'^Raw events:' '^Simulated metrics' '^Derived metrics'; do
		expect_grep "$h" "$TMP/out" || return 1
	done
	# Descriptions come from the registry; aliases name their canonical event.
	expect_grep '^  task-clock +counted +CPU time of the task$' "$TMP/out" || return 1
	expect_grep '^  cs +alias of context-switches$' "$TMP/out" || return 1
	expect_grep '^  D1-read-misses +L1 data cache read misses \(simulated\)$' "$TMP/out" || return 1
	expect_grep '^  ipc +instructions per cycle$' "$TMP/out" || return 1
	# Without a PMU (this VM) the group says so once, not on every line.
	if ! "$PMCBENCH" list cycles 2>/dev/null | grep -q '^  cycles +counted'; then
		expect_grep '^  not on this machine \(ENOENT\)' "$TMP/out" || return 1
		expect_grep '^  instructions +instructions retired' "$TMP/out" || return 1
	fi
}

test_list_filter() {
	# A substring, ignoring case, over names and descriptions.
	expect_exit 0 "$PMCBENCH" list -n TLB || return 1
	expect_grep '^  dTLB-load-misses +data TLB load misses$' "$TMP/out" || return 1
	expect_no_grep 'task-clock|^Software' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" list -n 'per cycle' || return 1
	expect_grep '^  ipc ' "$TMP/out" || return 1
	# A shell pattern matches the whole name.
	expect_exit 0 "$PMCBENCH" list -n 'cpu-c*' || return 1
	expect_grep '^  cpu-clock ' "$TMP/out" && expect_grep '^  cpu-cycles ' "$TMP/out" || return 1
	expect_no_grep '^  cycles ' "$TMP/out" || return 1
	# Nothing matched: exit 1, as grep, with a word on stderr.
	expect_exit 1 "$PMCBENCH" list no-such-event-anywhere || return 1
	[ -s "$TMP/out" ] && { fail "stdout not empty"; return 1; }
	expect_one_line "$TMP/err" "nothing matches 'no-such-event-anywhere'" || return 1
	expect_exit 2 "$PMCBENCH" list a b || return 1
	expect_grep "unexpected argument 'b'" "$TMP/err"
}

test_list_names() {
	expect_exit 0 "$PMCBENCH" list --names || return 1
	expect_grep '^cycles$' "$TMP/out" && expect_grep '^task-clock$' "$TMP/out" &&
		expect_grep '^cs$' "$TMP/out" || return 1
	# Only names that -e accepts: no headings, no metrics.
	expect_no_grep ' |:|^ipc$|^est-cycles$' "$TMP/out" || return 1
	# Every name it gives opens as an event list.
	while read -r n; do
		"$PMCBENCH" run -e "$n" --runs 1 --format json -o x.json -- true \
			>/dev/null 2>"$TMP/e" || { cat "$TMP/e" >&2; fail "-e $n refused"; return 1; }
	done < <(grep -E '^(task-clock|cs|msr/tsc/)$' "$TMP/out")
	expect_exit 0 "$PMCBENCH" list --names 'cpu-c*' || return 1
	expect_lines 2 "$TMP/out"
}

test_list_json() {
	expect_exit 0 "$PMCBENCH" list --format json clock || return 1
	[ "$(json_get "$TMP/out" '[e["name"] for e in d if e["group"] == "software"]')" = \
		"['task-clock', 'cpu-clock']" ] || { cat "$TMP/out" >&2; fail "software entries"; return 1; }
	[ "$(json_get "$TMP/out" 'd[0]["status"]')" = counted ] || { fail "status"; return 1; }
	expect_exit 2 "$PMCBENCH" list --format yaml || return 1
	expect_grep "unknown format 'yaml'" "$TMP/err"
}
