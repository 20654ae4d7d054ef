# No terminal control leaves pmcbench raw (issue 35, item 4): every string field of a
# result, a profile and the profiles a gate explains with, made hostile one at a time and
# all at once (an OSC title and clipboard write, a screen clear, a carriage return that
# forges "PASS", other C0 controls, DEL, CSI as a C1 control), and names given to run,
# through every command and format that prints them (hostile_strings.py): stdout, stderr
# and the text files written (--report, --export) hold none of them raw, JSON gives the
# names back as given, and a unit with a control character is refused on load.

hostile() {
	python3 "$(dirname "${BASH_SOURCE[0]}")/hostile_strings.py" "$PMCBENCH" "$@" >hostile.txt 2>&1
	local rc=$?
	cat hostile.txt >&2
	[ $rc -eq 0 ] || fail "raw control characters in pmcbench's output (hostile.txt above)"
}

test_every_field_of_a_result_reaches_the_terminal_escaped() {
	expect_exit 0 "$PMCBENCH" run -q -r 6 -w 0 -o r.json -- true || return 1
	# What a run of one command does not write: parameters, a skipped benchmark, a
	# complexity fit, an interrupted run's reason.
	python3 - r.json <<'EOF' || return 1
import json, sys
d = json.load(open(sys.argv[1]))
d["benchmarks"][0]["parameters"] = {"n": "10"}
d["benchmarks"].append({"name": "skipped", "command": None, "build_id": None,
                        "skipped": "no AVX2 on this CPU", "runs": [], "metrics": {}})
d["complexity"] = [{"name": "true", "metric": "task-clock", "big_o": "O(n)", "coef": 4.0,
                    "rms": 0.01, "points": 4}]
d["incomplete"] = "stopped by signal 2 (Interrupt)"
json.dump(d, open(sys.argv[1], "w"))
EOF
	hostile result r.json || return 1
	expect_grep '^[0-9]+ commands run, 0 escapes found$' hostile.txt || return 1
	# The fields added are read (a field refused is checked only in its load error).
	expect_no_grep 'refused \(.*(benchmarks/0/parameters/n|benchmarks/1/skipped|complexity/0/name|incomplete)[,)]' hostile.txt
}

# Units are words printed after every value: one with a control character is refused,
# with the file and the place, and exit 2; the message shows it escaped.
test_a_unit_with_a_control_character_is_refused_on_load() {
	mkresult a.json 'x::task-clock=1e6,0.01' || return 1
	mkresult b.json $'x::task-clock=1e6,0.01@unit=ns\e[2J' || return 1
	expect_exit 2 "$PMCBENCH" compare a.json b.json || return 1
	expect_grep '^pmcbench: b\.json: benchmarks\[0\]\.metrics\.task-clock\.unit: a unit holds no control characters, not "ns\\x1b\[2J"' "$TMP/err" || return 1
	expect_no_grep $'\e' "$TMP/err" || return 1
	expect_exit 0 "$PMCBENCH" record -o p.json -- true || return 1
	python3 -c 'import json, sys; d = json.load(open("p.json")); d["unit"] += "\u009b2J"; json.dump(d, open("p2.json", "w"))' || return 1
	expect_exit 2 "$PMCBENCH" report p2.json || return 1
	expect_grep '^pmcbench: p2\.json: unit: a unit holds no control characters' "$TMP/err"
}

test_every_field_of_a_profile_reaches_the_terminal_escaped() {
	expect_exit 0 "$PMCBENCH" record -o p.json -- "$PMC_PROF_WORK" 300 100 || return 1
	hostile profile p.json || return 1
	expect_grep '^[0-9]+ commands run, 0 escapes found$' hostile.txt
}

# The gate's explanation from the profiles beside two results (names of functions,
# objects, files, tasks), in the table and in Markdown.
test_the_gates_explanation_from_hostile_profiles_is_escaped() {
	command -v valgrind >/dev/null || skip "valgrind not installed"
	expect_exit 0 "$PMCBENCH" run --backend valgrind --profile -n work -o base.json -- \
		"$PMC_PROF_WORK" 300 100 || return 1
	expect_exit 0 "$PMCBENCH" run --backend valgrind --profile -n work -o new.json -- \
		"$PMC_PROF_WORK" 300 200 || return 1
	hostile explain base.json new.json || return 1
	expect_grep '^[0-9]+ commands run, 0 escapes found$' hostile.txt
}

# Names given to run: the two-command headline, the reference line of three, -r auto's
# decision lines, a --baseline's comparison, in the table, Markdown and --report files.
test_names_given_to_run_reach_the_terminal_escaped() {
	hostile run || return 1
	expect_grep '^[0-9]+ commands run, 0 escapes found$' hostile.txt
}

# The sink itself: pmcbench's own colours pass on --color=always, the same bytes from a
# name do not when colour is off (output that is not a terminal).
test_colour_passes_only_when_asked_for() {
	mkresult a.json 'x::task-clock=1e6,0.01' || return 1
	mkresult b.json 'x::task-clock=2e6,0.01' || return 1
	expect_exit 0 "$PMCBENCH" compare --color=always a.json b.json || return 1
	expect_grep $'\e\\[1;31m' "$TMP/out" || return 1
	mkresult c.json $'x\e[1;31m::task-clock=1e6,0.01' || return 1
	expect_exit 0 "$PMCBENCH" compare --all c.json c.json || return 1
	expect_grep 'x \[1;31m' "$TMP/out" || return 1
	expect_no_grep $'\e' "$TMP/out"
}
