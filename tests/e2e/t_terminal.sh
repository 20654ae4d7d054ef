# What a person at a terminal gets (docs/cli.md): shell completion for bash and zsh,
# colour on the status and verdict words, and the summary of three or more commands.

# The completion scripts live in the source tree, beside the CLI.
completion_dir() {
	if [ -n "${PMC_SRCDIR:-}" ]; then
		echo "$PMC_SRCDIR/harness/6-cli/completion"
		return
	fi
	echo "$(cd "$(dirname "$PMCBENCH")/../../.." && pwd)/harness/6-cli/completion"
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
