# What a person at a terminal gets (docs/cli.md): shell completion for bash and zsh,
# colour on the status and verdict words, and the summary of three or more commands.

# The completion scripts live in the source tree, beside the CLI.
completion_dir() {
	if [ -n "${PMC_SRCDIR:-}" ]; then
		echo "$PMC_SRCDIR/harness/7-cli/completion"
		return
	fi
	echo "$(cd "$(dirname "$PMCBENCH")/../../.." && pwd)/harness/7-cli/completion"
}

# bash_complete WORD...: COMPREPLY of the bash completion for the command line WORD...
# (the last word the one being completed), one a line.
bash_complete() {
	PATH=$(dirname "$PMCBENCH"):$PATH bash -c '
		source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_pmcbench
		printf "%s\n" "${COMPREPLY[@]}"' bash "$(completion_dir)/pmcbench.bash" "$@"
}

test_completion_bash() {
	local f
	f=$(completion_dir)/pmcbench.bash
	[ -f "$f" ] || { fail "no $f (is PMCBENCH inside a build directory of the tree?)"; return 1; }
	bash -n "$f" || { fail "$f does not parse"; return 1; }
	bash_complete pmcbench comp >c.txt && expect_one_line c.txt '^compare$' || return 1
	bash_complete pmcbench run --rep >c.txt || return 1
	expect_grep '^--report$' c.txt || return 1
	bash_complete pmcbench run --ru >c.txt && expect_one_line c.txt '^--runs$' || return 1
	bash_complete pmcbench run -e cpu-c >c.txt || return 1
	expect_grep '^cpu-clock$' c.txt && expect_grep '^cpu-cycles$' c.txt || return 1
	# The last item of an event list.
	bash_complete pmcbench run -e cycles,task-c >c.txt &&
		expect_one_line c.txt '^cycles,task-clock$' || return 1
	bash_complete pmcbench compare --color = al >c.txt && expect_one_line c.txt '^always$' || return 1
	bash_complete pmcbench run --format=j >c.txt && expect_one_line c.txt '^--format=json$' || return 1
	bash_complete pmcbench list --na >c.txt && expect_one_line c.txt '^--names$' || return 1
	bash_complete pmcbench help ga >c.txt && expect_one_line c.txt '^gate$' || return 1
	bash_complete pmcbench history ex >c.txt && expect_one_line c.txt '^export$' || return 1
	bash_complete pmcbench history list --mach >c.txt && expect_one_line c.txt '^--machine$' || return 1
	# Files where a command takes files.
	: >old-result.json
	bash_complete pmcbench compare old-r >c.txt && expect_one_line c.txt '^old-result\.json$' || return 1
	bash_complete pmcbench run -o old-r >c.txt && expect_one_line c.txt '^old-result\.json$' || return 1
	# Every option of every command's help is offered: the script reads the help.
	for cmd in run compare gate list doctor; do
		"$PMCBENCH" help "$cmd" | grep -oE '^ {2,6}(-[A-Za-z0-9], )?--[a-z][a-z0-9-]*' |
			grep -oE -- '--[a-z0-9-]+$' | sort -u >want.txt
		bash_complete pmcbench "$cmd" -- | sort -u >got.txt
		[ -s want.txt ] && comm -23 want.txt got.txt >missing.txt &&
			[ ! -s missing.txt ] || { cat missing.txt >&2; fail "$cmd: options not completed"; return 1; }
	done
}

# Tracepoints after -e (docs/cli.md, "Shell completion"): the subsystem with its colon,
# then the subsystem's events, from `pmcbench list --names tracepoint`; bash splits a
# word at its colons (COMP_WORDBREAKS) and replaces only the text after the last one.
# And the presets' options.
test_completion_tracepoints_and_presets() {
	local f
	f=$(completion_dir)/pmcbench.bash
	[ "$(bash -c 'source "$1"; complete -p pmcbench' bash "$f")" = "complete -F _pmcbench pmcbench" ] ||
		{ fail "the bash completion does not register _pmcbench"; return 1; }
	bash_complete pmcbench run --sysc >c.txt && expect_one_line c.txt '^--syscalls$' || return 1
	bash_complete pmcbench run --allo >c.txt && expect_one_line c.txt '^--allocs$' || return 1
	bash_complete pmcbench run --deta >c.txt && expect_one_line c.txt '^--detailed$' || return 1
	bash_complete pmcbench run -d >c.txt && expect_grep '^-d$' c.txt || return 1
	[ "$(id -u)" = 0 ] || skip "not root: tracepoints are listed for root (or CAP_PERFMON)"
	"$PMCBENCH" list --names tracepoint 'sched:sched_switch' >/dev/null 2>&1 || skip "no sched:sched_switch tracepoint here"
	# Unsplit words (COMP_WORDBREAKS without a colon), then as bash splits them.
	bash_complete pmcbench run -e sche >c.txt && expect_grep '^sched:$' c.txt || return 1
	expect_no_grep '^sched:sched' c.txt || return 1
	bash_complete pmcbench run -e cycles,sched:sched_swi >c.txt &&
		expect_one_line c.txt '^cycles,sched:sched_switch$' || return 1
	bash_complete pmcbench run -e sched : sched_swi >c.txt && expect_one_line c.txt '^sched_switch$' || return 1
	bash_complete pmcbench run -e sched : >c.txt && expect_grep '^sched_switch$' c.txt || return 1
	expect_no_grep ':' c.txt || return 1
	bash_complete pmcbench run --events cycles,syscalls : sys_enter_getpi >c.txt &&
		expect_one_line c.txt '^sys_enter_getpid$' || return 1
	command -v zsh >/dev/null || skip "no zsh (ci/install-deps.sh installs it)"
	zsh_complete 'pmcbench run -e cycles,sche' 'sched:' >z.txt
	expect_grep 'pmcbench run -e cycles,sched:' z.txt || return 1
	zsh_complete 'pmcbench run -e sched:sched_swi' 'sched_switch' >z.txt
	expect_grep 'pmcbench run -e sched:sched_switch' z.txt
}

# A real completion in an interactive zsh, through a pseudo-terminal (zsh/zpty): the line
# typed, TAB, and what the line became.
zsh_complete() {
	zsh -f -c '
		zmodload zsh/zpty || exit 1
		zpty -b z "zsh -f -i"
		zpty -w z "PS1=\"> \"; fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D; PATH=$2:\$PATH"
		zpty -w -n z "$3"$'"'"'\t'"'"'
		out= i=0
		while (( i++ < 100 )); do
			zpty -r -t z chunk && out+=$chunk
			[[ $out == *$4* ]] && break
			sleep 0.1
		done
		zpty -d z
		print -r -- "$out"' zsh "$(completion_dir)" "$(dirname "$PMCBENCH")" "$1" "$2"
}

test_completion_zsh() {
	command -v zsh >/dev/null || skip "no zsh (ci/install-deps.sh installs it)"
	zsh -n "$(completion_dir)/_pmcbench" || { fail "_pmcbench does not parse"; return 1; }
	zsh_complete 'pmcbench comp' 'pmcbench compare' >z.txt
	expect_grep 'pmcbench compare' z.txt || return 1
	zsh_complete 'pmcbench run --ru' 'pmcbench run --runs' >z.txt
	expect_grep 'pmcbench run --runs' z.txt || return 1
	zsh_complete 'pmcbench history cha' 'pmcbench history changes' >z.txt
	expect_grep 'pmcbench history changes' z.txt || return 1
	zsh_complete 'pmcbench run -e cycles,task-c' 'task-clock' >z.txt
	expect_grep 'pmcbench run -e cycles,task-clock' z.txt
}

# The run table: the status words of counts not counted in yellow (red when denied),
# only with colour on.
test_color_run_statuses() {
	"$PMCBENCH" list -n --format json cycles >l.json
	if [ "$(json_get l.json 'd[0].get("status", "")')" = counted ]; then
		skip "cycles counts here: the colour of a status word of an uncounted event is not tested"
	fi
	expect_exit 0 "$PMCBENCH" run -q -r 2 --color=always -e cycles,task-clock -- "$WORK" loop 10 || return 1
	expect_grep $'cycles +\033\\[33munsupported \\(ENOENT\\)\033\\[0m$' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" run -q -r 2 -e cycles,task-clock -- "$WORK" loop 10 || return 1
	expect_no_grep $'\033' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" run -q -r 2 --color=always --format markdown -e cycles,task-clock -- "$WORK" loop 10 || return 1
	expect_no_grep $'\033' "$TMP/out" || return 1
	command -v script >/dev/null || skip "no script(1): colour on a terminal is not tested"
	script -qec "'$PMCBENCH' run -q -r 2 -e cycles,task-clock -- '$WORK' loop 10" /dev/null >tty.txt </dev/null
	expect_grep $'\033\\[33munsupported' tty.txt || return 1
	NO_COLOR=1 script -qec "'$PMCBENCH' run -q -r 2 -e cycles,task-clock -- '$WORK' loop 10" /dev/null >tty.txt </dev/null
	expect_no_grep $'\033\\[' tty.txt
}

# The headline of compare: "faster"/"slower" coloured on a terminal, and the regression
# verdict red; never with NO_COLOR, in a pipe or in Markdown.
test_color_headline() {
	mkresult a.json 'sort::task-clock=2e6,0.01'
	mkresult b.json 'sort::task-clock=2.4e6,0.01'
	expect_exit 0 "$PMCBENCH" compare --color=always a.json b.json || return 1
	expect_grep $'^b\\.json ran 1\\.[0-9]+x \033\\[1;31mslower\033\\[0m than ' "$TMP/out" || return 1
	expect_grep $'\033\\[1;31mregression\033\\[0m$' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" compare --color=always --format markdown a.json b.json || return 1
	expect_no_grep $'\033' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" compare a.json b.json || return 1
	expect_no_grep $'\033' "$TMP/out" || return 1
	command -v script >/dev/null || skip "no script(1): colour on a terminal is not tested"
	script -qec "'$PMCBENCH' compare b.json a.json" /dev/null >tty.txt </dev/null
	expect_grep $'\033\\[1;32mfaster\033\\[0m than' tty.txt || return 1
	expect_grep $'\033\\[1;32mimprovement' tty.txt || return 1
	NO_COLOR=1 script -qec "'$PMCBENCH' compare b.json a.json" /dev/null >tty.txt </dev/null
	expect_no_grep $'\033\\[' tty.txt
}

# Three commands: hyperfine's summary first, from the fastest, one line per other command
# with its factor and interval. Which is fastest depends on the machine's load, so only
# the form and the names are checked.
test_headline_three_commands() {
	expect_exit 0 "$PMCBENCH" run -q -r 8 -n one -c "$WORK loop 1000" -n two -c "$WORK loop 2000" \
		-n three -c "$WORK loop 3000" || return 1
	head -n 3 "$TMP/out" >h.txt
	expect_grep '^(one|two|three) ran$' h.txt || return 1
	local first
	first=$(head -n 1 h.txt | cut -d' ' -f1)
	for n in one two three; do
		[ "$n" = "$first" ] && continue
		expect_grep "^  ([0-9.]+x (faster|slower) than $n( \\[[0-9.]+x, [0-9.]+x\\])?|(no significant difference|undecided) from $n: [0-9.]+x.*) \\((task-clock|wall-time)(, paired)?\\)(;.*)?$" h.txt ||
			return 1
	done
	# The comparison against the reference follows the table, without a second summary.
	[ "$(grep -c ' ran$' "$TMP/out")" = 1 ] || { fail "the summary is repeated"; return 1; }
	expect_grep '^benchmark +one +command +change' "$TMP/out"
}

# max_width FILE: the widest line of FILE in columns (code points).
max_width() {
	python3 -c 'import sys; print(max([len(l.rstrip("\n")) for l in open(sys.argv[1], encoding="utf-8")] or [0]))' "$1"
}

# At COLUMNS=80 no line of run (one and two commands), compare or a benchmark program is
# wider than 80 columns (docs/cli.md, "Width"); the rows a PMU-less machine cannot count
# are one line.
test_width_80() {
	local w
	# A short path: the command's name is printed whole, and a long one (a CI checkout's
	# build directory) is "one name alone" longer than the line.
	ln -sf "$WORK" pmc-work
	COLUMNS=80 expect_exit 0 "$PMCBENCH" run -r 3 -- ./pmc-work loop 10 || return 1
	cat "$TMP/out" "$TMP/err" >one.txt
	w=$(max_width one.txt)
	[ "$w" -le 80 ] || { cat one.txt >&2; fail "run of one command: a line of $w columns"; return 1; }
	if grep -q 'unsupported (ENOENT)' one.txt; then
		[ "$(grep -c '<not supported>' one.txt)" = 1 ] &&
			expect_grep '^  <not supported> +cycles, instructions, ' one.txt ||
			{ cat one.txt >&2; fail "the rows not supported are not one line"; return 1; }
	fi
	COLUMNS=80 expect_exit 0 "$PMCBENCH" run -r 6 -n a -c "./pmc-work loop 10" -n b -c "./pmc-work loop 20" || return 1
	cat "$TMP/out" "$TMP/err" >two.txt
	w=$(max_width two.txt)
	[ "$w" -le 80 ] || { cat two.txt >&2; fail "run of two commands: a line of $w columns"; return 1; }
	mkresult a.json 'sort::task-clock=2e6,0.01' 'sort::wall-time=2.1e6,0.01'
	mkresult b.json 'sort::task-clock=2.4e6,0.01' 'sort::wall-time=2.5e6,0.01'
	COLUMNS=80 expect_exit 0 "$PMCBENCH" compare a.json b.json || return 1
	w=$(max_width "$TMP/out")
	[ "$w" -le 80 ] || { cat "$TMP/out" >&2; fail "compare: a line of $w columns"; return 1; }
	# One base and two files; a table per benchmark (--row metric), whose medians fill
	# the line: the change goes under the row too.
	mkresult c.json 'sort::task-clock=2.1e6,0.01' 'sort::wall-time=2.2e6,0.01'
	COLUMNS=80 expect_exit 0 "$PMCBENCH" compare a.json b.json c.json || return 1
	w=$(max_width "$TMP/out")
	[ "$w" -le 80 ] || { cat "$TMP/out" >&2; fail "compare of three files: a line of $w columns"; return 1; }
	COLUMNS=80 expect_exit 0 "$PMCBENCH" compare --row metric a.json b.json || return 1
	w=$(max_width "$TMP/out")
	[ "$w" -le 80 ] || { cat "$TMP/out" >&2; fail "compare --row metric: a line of $w columns"; return 1; }
	# Without COLUMNS, in a pipe: every column, as before.
	expect_exit 0 "$PMCBENCH" compare a.json b.json || return 1
	expect_grep '^benchmark +a\.json +b\.json +change \(HL\) +test +limit +verdict$' "$TMP/out" || return 1
	local prog
	prog="$(dirname "$PMCBENCH")/../../bench/examples/sort"
	[ -x "$prog" ] || skip "no bench/examples/sort beside $PMCBENCH"
	COLUMNS=80 expect_exit 0 "$prog" --min-time 0.001 -r 2 || return 1
	cat "$TMP/out" "$TMP/err" >b.txt
	w=$(max_width b.txt)
	[ "$w" -le 80 ] || { cat b.txt >&2; fail "a benchmark program: a line of $w columns"; return 1; }
}

# Commands that mostly sleep: the headline is in wall-time, says why, and names the
# slower command (sleep 0.05 against sleep 0.01: about 5x). Each run records its context
# switches, the sleep among the voluntary ones, which keep it a command that waits
# however loaded the machine (docs/compare.md, "The headline").
test_headline_wall_time_when_waiting() {
	expect_exit 0 "$PMCBENCH" run -q -r 8 -o r.json -n a -c 'sleep 0.01' -n b -c 'sleep 0.05' ||
		return 1
	expect_grep '^b ran [3-6]\.[0-9]+x slower than a .*\(wall-time, paired; the commands mostly wait' \
		"$TMP/out" || return 1
	python3 - r.json <<'PY' || fail "a sleep's run without its context switches"
import json, sys
runs = [r for b in json.load(open(sys.argv[1]))["benchmarks"] for r in b["runs"]]
assert len(runs) == 16, len(runs)
assert all(r["voluntary_switches"] >= 1 and r["involuntary_switches"] >= 0 for r in runs), runs
PY
}

# bench_program NAME: the path of a built benchmark program of bench/examples, or skips.
bench_program() {
	local prog
	prog="$(dirname "$PMCBENCH")/../../bench/examples/$1"
	[ -x "$prog" ] || skip "no bench/examples/$1 beside $PMCBENCH"
	echo "$prog"
}

# In the C locale (a character set other than UTF-8) every output is ASCII: run's table
# and Markdown, a benchmark program, run --library (README, "Output"); the JSON report is
# data and keeps its UTF-8.
test_ascii_in_the_c_locale() {
	local prog lib
	LC_ALL=C "$PMCBENCH" run -q -r 3 -n a -c "$WORK loop 10" -n b -c "$WORK loop 20" \
		--format markdown >md.txt 2>&1 || { fail "run --format markdown failed"; return 1; }
	LC_ALL=C grep -qP '[^\x00-\x7F]' md.txt && { cat md.txt >&2; fail "non-ASCII in Markdown"; return 1; }
	expect_grep '\+-' md.txt || return 1
	prog=$(bench_program sort) || return 1
	LC_ALL=C "$prog" --min-time 0.001 -r 6 --filter 'qsort' >b.txt 2>&1 || { fail "$prog failed"; return 1; }
	LC_ALL=C grep -qP '[^\x00-\x7F]' b.txt && { cat b.txt >&2; fail "non-ASCII from a benchmark program"; return 1; }
	expect_grep '^sort_qsort/1000 .* \+- ' b.txt || return 1
	# The same program in a UTF-8 locale keeps its symbols.
	LC_ALL=C.UTF-8 "$prog" --min-time 0.001 -r 6 --filter 'qsort/1000$' >u.txt 2>&1 || return 1
	expect_grep ' ± ' u.txt || return 1
	lib=${PMC_BENCHLIB:-}
	if [ -n "$lib" ] && [ -f "$lib" ]; then
		LC_ALL=C "$PMCBENCH" run --library "$lib" --min-time 0.001 -r 6 >l.txt 2>&1 ||
			{ cat l.txt >&2; fail "run --library failed"; return 1; }
		LC_ALL=C grep -qP '[^\x00-\x7F]' l.txt && { cat l.txt >&2; fail "non-ASCII from run --library"; return 1; }
	fi
	return 0
}

# Markdown for a pull request: the verdict, then the headline, then the tables; the metrics
# with nothing to say in one <details>; the rows a PMU-less machine cannot count one line
# per reason, not a row each.
test_markdown_for_a_pull_request() {
	expect_exit 0 "$PMCBENCH" run -q -r 6 -n a -c "$WORK loop 10" -n b -c "$WORK loop 20" \
		--format markdown || return 1
	[ "$(head -n 1 "$TMP/out")" = "## pmcbench compare" ] || { head -n 5 "$TMP/out" >&2; fail "the verdict is not first"; return 1; }
	sed -n 5p "$TMP/out" | grep -Eq '^\*\*(b ran .* than a|no significant difference between b and a|undecided between b and a).*\*\*$' ||
		{ head -n 6 "$TMP/out" >&2; fail "the headline does not follow the verdict"; return 1; }
	# The runs' tables after the comparison.
	local cmp runs
	cmp=$(grep -n '^## pmcbench compare' "$TMP/out" | cut -d: -f1)
	runs=$(grep -n '^### a$' "$TMP/out" | cut -d: -f1)
	[ -n "$runs" ] && [ "$runs" -gt "$cmp" ] || { fail "the runs' tables come before the comparison"; return 1; }
	# cpu-migrations is 0 on both sides: folded with the others without change.
	expect_grep '^<details><summary>[0-9]+ metrics? without change: .*cpu-migrations' "$TMP/out" || return 1
	if grep -q 'unsupported (ENOENT)' "$TMP/out"; then
		expect_no_grep '^\| cycles \|' "$TMP/out" || return 1
		# The reason once: the second benchmark's line says "as above".
		[ "$(grep -c '^- \\<not supported\\> cycles, instructions, .*: unsupported (ENOENT)$' "$TMP/out")" = 1 ] &&
			[ "$(grep -c '^- \\<not supported\\> cycles, instructions, .*: as above$' "$TMP/out")" = 1 ] ||
			{ grep -- '^- ' "$TMP/out" >&2; fail "the reason of the unsupported counters is not said once"; return 1; }
	fi
}

# In a pipe (no width) every row of a comparison keeps its columns under their headers,
# however wide a cell ("0.3877 CPUs ± 2.93%" pushed its row out of line).
test_comparison_columns_stay_aligned() {
	mkresult a.json 'x::task-clock=2e6,0.01' 'x::cpus-utilized=0.3877,0.03@unit=CPUs'
	mkresult b.json 'x::task-clock=2.4e6,0.01' 'x::cpus-utilized=0.3827,0.05@unit=CPUs'
	expect_exit 0 "$PMCBENCH" compare --all a.json b.json || return 1
	python3 - "$TMP/out" <<'PY' || { cat "$TMP/out" >&2; fail "a row is out of line with its header"; return 1; }
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
checked = 0
for i, h in enumerate(lines):
    if not h.startswith("benchmark "):
        continue
    cols = [h.index(w) for w in ("change (HL)", "test", "limit", "verdict")]
    for row in lines[i + 1:]:
        if not row or row.startswith("geomean"):
            break
        for c in cols:
            assert row[c - 2:c] == "  " and row[c] != " ", (h, row, c)
        checked += 1
assert checked >= 2, checked
PY
}

# The valgrind backend's tables, of one command and of two, fit 80 columns at COLUMNS=80.
test_valgrind_tables_fit_80() {
	command -v valgrind >/dev/null || skip "no valgrind"
	local w
	ln -sf "$WORK" pmc-work
	COLUMNS=80 expect_exit 0 "$PMCBENCH" run --backend valgrind -r 1 -n a -c "./pmc-work loop 1000" \
		-n b -c "./pmc-work loop 2000" || return 1
	cat "$TMP/out" "$TMP/err" >vg.txt
	expect_grep '^instructions \[count, lower is better\] \(simulated\)$' vg.txt || return 1
	w=$(max_width vg.txt)
	[ "$w" -le 80 ] || { cat vg.txt >&2; fail "valgrind: a line of $w columns"; return 1; }
}
