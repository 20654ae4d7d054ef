# pmcbench in a hostile world (issue 35): outputs that never replace a device, a FIFO
# or a link; bisect stopped by a signal and safe under any path; no process left behind
# by a run; control characters, full disks and missing interpreters reported as such.
# Device nodes and FIFOs are private ones made in $TMP, never /dev's.

# mknod_null NAME: a private /dev/null (1,3), mode 0666.
mknod_null() {
	mknod "$1" c 1 3 && chmod 666 "$1" || skip "cannot mknod a device node here"
}

# expect_chr NAME: NAME is still the character device 1,3 (a regular file has replaced
# it if not).
expect_chr() {
	[ -c "$1" ] && [ "$(stat -c '%t,%T' "$1")" = "1,3" ] ||
		fail "$1 is no longer the device node: $(stat -c '%F %a' "$1")"
}

test_outputs_write_into_a_device_node() {
	mknod_null null.json; mknod_null null.csv; mknod_null null.md; mknod_null null.svg
	mkresult a.json 'x::task-clock=1e6,0.01' || return 1
	expect_exit 0 "$PMCBENCH" run -q -r 1 -o null.json --export null.csv -- true || return 1
	expect_chr null.json || return 1
	expect_chr null.csv || return 1
	expect_exit 0 "$PMCBENCH" compare --report null.md a.json a.json || return 1
	expect_chr null.md || return 1
	expect_exit 0 "$PMCBENCH" report --svg null.svg "$PMC_SRCDIR/tests/data/profile/hand.folded" || return 1
	expect_chr null.svg || return 1
	expect_exit 0 "$PMCBENCH" history add --db h.db a.json || return 1
	expect_exit 0 "$PMCBENCH" history export --db h.db -o null.csv || return 1
	expect_chr null.csv || return 1
	if [ -n "${PMC_MB_LCG:-}" ]; then
		expect_exit 0 "$PMC_MB_LCG" -q -r 1 --min-time 0.001 --filter '^sum/64$' -o null.json || return 1
		expect_chr null.json || return 1
	fi
	expect_exit 0 "$PMCBENCH" record -o null.json -- "$PMC_PROF_WORK" 20000 2000 || return 1
	expect_chr null.json || return 1
	[ "$(ls -A | grep -c '^\.')" = 0 ] || fail "temporary files left: $(ls -A)" || return 1
}

# A FIFO's reader gets the whole result, and the FIFO stays one.
test_output_into_a_fifo_reaches_its_reader() {
	mkfifo r.json || skip "cannot make a FIFO here"
	cat r.json >got.json &
	reader=$!
	expect_exit 0 "$PMCBENCH" run -q -r 1 -o r.json -- true
	st=$?
	# Replaced by a file, the FIFO would keep its reader waiting.
	[ -p r.json ] || kill "$reader"
	wait "$reader"
	[ "$st" = 0 ] || return 1
	[ -p r.json ] || fail "r.json is no longer a FIFO" || return 1
	[ "$(json_get got.json 'd["schema"]')" = pmcbench-result/1 ] || fail "the reader got: $(head -c 200 got.json)" || return 1
}

# "-" is standard output, not a file named "-"; /dev/stdout stays a link, written
# through (the descriptor's O_APPEND holds).
test_output_dash_is_standard_output() {
	expect_exit 0 "$PMCBENCH" run -q -r 1 -o - -- true || return 1
	[ ! -e ./- ] || fail "wrote a file named '-'" || return 1
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"] == "pmcbench-result/1"' "$TMP/out" ||
		fail "standard output is not the result: $(head -c 300 "$TMP/out")" || return 1
	# --history reads the saved file back: standard output is none.
	expect_exit 2 "$PMCBENCH" run -q -r 1 -o - --history h.db -- true || return 1
	expect_one_line "$TMP/err" "give -o FILE too" || return 1
	ln -s /proc/self/fd/1 stdout || return 1
	echo before >log
	"$PMCBENCH" run -q -r 1 -o stdout -- true >>log 2>"$TMP/err" || fail "run -o stdout: $(cat "$TMP/err")" || return 1
	[ -L stdout ] || fail "the link was replaced" || return 1
	[ "$(head -n 1 log)" = before ] || fail "the log was truncated: $(head -c 200 log)" || return 1
	expect_grep '"pmcbench-result/1"' log || return 1
}

# A link is followed: its target gets the result, the link stays, and a setuid
# executable target becomes 0644, never a setuid file of data.
test_output_through_a_symlink_keeps_the_link_and_drops_set_id_bits() {
	echo old >target.json
	chmod 4755 target.json
	ln -s target.json link.json
	expect_exit 0 "$PMCBENCH" run -q -r 1 -o link.json -- true || return 1
	[ -L link.json ] || fail "link.json is no longer a link" || return 1
	[ "$(json_get target.json 'd["schema"]')" = pmcbench-result/1 ] || fail "target.json: $(head -c 100 target.json)" || return 1
	[ "$(stat -c %a target.json)" = 644 ] || fail "target.json has mode $(stat -c %a target.json)" || return 1
}

# --db through a dangling link does not create the link's target.
test_history_db_through_a_dangling_symlink_is_refused() {
	mkresult a.json 'x::task-clock=1e6,0.01' || return 1
	ln -s made.db h.db
	expect_exit 2 "$PMCBENCH" history add --db h.db a.json || return 1
	expect_one_line "$TMP/err" "^pmcbench: h\.db: a symlink to a file that does not exist" || return 1
	[ ! -e made.db ] || fail "made.db was created" || return 1
}

# A repository of 9 commits: 1-5 touch 20 pages, 6-9 touch 3000 (as t_history.sh's
# bisect case), in ./repo; $1, when given, ends the subject of commit 6.
bisect_repo() {
	git init -q -b main repo || return 1
	local i
	for i in 1 2 3 4 5 6 7 8 9; do
		if [ "$i" -lt 6 ]; then echo 20 >repo/n.txt; else echo 3000 >repo/n.txt; fi
		echo "$i" >repo/c.txt
		git -C repo add -A && git -C repo -c user.name=t -c user.email=t@t commit -qm "commit $i${1:+$([ "$i" = 6 ] && printf '%s' "$1")}" || return 1
	done
}

# SIGINT at the third build (inside git bisect run) and SIGTERM at the first (measuring
# the good end) stop everything: the build is gone when pmcbench exits 130 or 143 with
# one line, the bisect is reset and HEAD is main again. The build says it is running
# through a FIFO, so that the signal comes while it does.
test_bisect_stops_on_sigint_and_sigterm() {
	bisect_repo || return 1
	cd repo || return 1
	mkfifo "$TMP/ready" || return 1
	local sig at want pid st
	for sig in INT TERM; do
		if [ $sig = INT ]; then at=3 want=130; else at=1 want=143; fi
		rm -f "$TMP/count" "$TMP/build.pid"
		env TMPDIR="$TMP" "$PMCBENCH" history bisect --good HEAD~8 --bad HEAD \
			--build "n=\$((\$(cat '$TMP/count' 2>/dev/null || echo 0) + 1)); echo \$n >'$TMP/count'; [ \$n -lt $at ] || { echo \$\$ >'$TMP/build.pid'; echo go >'$TMP/ready'; exec sleep 120; }" \
			--threshold page-faults=+20% -- sh -c "exec '$WORK' touch \$(cat n.txt)" \
			>"$TMP/out" 2>"$TMP/err" </dev/null &
		pid=$!
		read -r _ <"$TMP/ready"
		kill -$sig $pid
		wait $pid
		st=$?
		if kill -0 "$(cat "$TMP/build.pid")" 2>/dev/null; then
			kill "$(cat "$TMP/build.pid")"
			fail "SIG$sig: the build still runs after pmcbench exited" || return 1
		fi
		[ $st = $want ] || fail "SIG$sig: exit status $st, expected $want" || return 1
		expect_one_line "$TMP/err" '^pmcbench: interrupted$' || return 1
		[ "$(git symbolic-ref --short HEAD 2>/dev/null)" = main ] || fail "SIG$sig: HEAD is not main again" || return 1
		[ ! -e .git/BISECT_LOG ] || fail "SIG$sig: the bisect was not reset" || return 1
		[ -z "$(git status --porcelain --untracked-files=no)" ] || fail "SIG$sig: the tree has changes" || return 1
	done
}

# pmcbench's own path reaches no shell unquoted: under a directory named '$(touch pwned)'
# the bisect works and runs nothing of the name.
test_bisect_under_a_path_with_quotes_runs_nothing_of_it() {
	local d="$TMP/'\$(touch pwned)'"
	mkdir -p "$d" && cp "$PMCBENCH" "$d/pmcbench" || return 1
	bisect_repo || return 1
	cd repo || return 1
	expect_exit 0 env TMPDIR="$TMP" "$d/pmcbench" history bisect --good HEAD~8 --bad HEAD --build true \
		--threshold page-faults=+20% -- sh -c "exec '$WORK' touch \$(cat n.txt)" || return 1
	expect_grep "^first bad commit: $(git rev-parse HEAD~3) commit 6$" "$TMP/out" || return 1
	local pwned
	pwned=$(find "$TMP" -name pwned)
	[ -z "$pwned" ] || fail "the path ran as a command: $pwned" || return 1
}

# A command that daemonizes (a background child, a setsid grandchild) leaves nothing
# running after `pmcbench run`, with or without --timeout, and a note names what was
# ended. The sleeps' odd durations mark them for pgrep.
test_run_ends_what_its_command_leaves_running() {
	expect_exit 0 "$PMCBENCH" run -r 2 --shell -- "sleep 92.4242 & setsid sleep 93.4343 &" || {
		pkill -f 'sleep 9[23]\.4[23]4[23]'; return 1; }
	if pgrep -af 'sleep 9[23]\.4[23]4[23]' >left; then
		pkill -f 'sleep 9[23]\.4[23]4[23]'
		fail "left running: $(cat left)" || return 1
	fi
	expect_grep "^pmcbench: note: 'sleep 92\.4242 & setsid sleep 93\.4343 &' left running after its run: .*\(pid [0-9]+\)" "$TMP/err" || return 1
	[ "$(grep -c 'left running' "$TMP/err")" = 1 ] || fail "one note per command" || return 1
	expect_exit 0 "$PMCBENCH" run -r 1 --timeout 30 --shell -- "sleep 92.4444 &" || return 1
	if pgrep -af 'sleep 92\.4444' >left; then
		pkill -f 'sleep 92\.4444'
		fail "left running with --timeout: $(cat left)" || return 1
	fi
	expect_grep "left running after its run: [^ ]+ \(pid [0-9]+\)" "$TMP/err" || return 1
}

# pmcbench killed with SIGKILL mid-run takes its target with it (PR_SET_PDEATHSIG). A
# subreaper (python) receives the orphan and waits for it; the alarm only bounds the
# case when the target would live on.
test_sigkill_of_pmcbench_ends_its_target() {
	mkfifo ready || skip "cannot make a FIFO here"
	python3 - "$PMCBENCH" <<'PY' || fail "the target outlived pmcbench" || return 1
import ctypes, os, signal, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
PR_SET_CHILD_SUBREAPER = 36
assert libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
p = subprocess.Popen([sys.argv[1], "run", "-q", "-r", "1", "-w", "0", "--shell", "--",
                      "echo $$ >ready; exec sleep 91.4545"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
target = int(open("ready").read())
os.kill(p.pid, signal.SIGKILL)
p.wait()
def late(*_):
    os.kill(target, signal.SIGKILL)
    print("target %d still running after pmcbench was killed" % target, file=sys.stderr)
    sys.exit(1)
signal.signal(signal.SIGALRM, late)
signal.alarm(60)
_, st = os.waitpid(target, 0)
signal.alarm(0)
sys.exit(0 if os.WIFSIGNALED(st) and os.WTERMSIG(st) == signal.SIGKILL else 2)
PY
}

# A control character in an event list (a script's stray newline) is an error, not part
# of an event's name.
test_event_list_with_a_control_character_is_refused() {
	expect_exit 2 "$PMCBENCH" run -r 1 -e $'task-clock\n' --shell -- 'touch ran' || return 1
	expect_one_line "$TMP/err" "column 11: control character 0x0a in the event list" || return 1
	[ ! -e ran ] || fail "the command ran" || return 1
	expect_exit 2 "$PMCBENCH" run -r 1 -e $'task-clock,\tpage-faults' -- true || return 1
	expect_one_line "$TMP/err" "control character 0x09" || return 1
}

# A full disk is "No space left on device", not "Input/output error", from the writers
# of compare --report, report --svg, --export and history export -o: a small tmpfs,
# filled up, takes the files.
test_full_disk_is_named_by_every_writer() {
	mkdir full || return 1
	mount -t tmpfs -o size=64k tmpfs full 2>/dev/null || skip "cannot mount a tmpfs here"
	trap 'umount "$TMP/full"' EXIT
	dd if=/dev/zero of=full/fill bs=4k 2>/dev/null
	local a=() b=() i
	for i in $(seq 10 69); do
		a+=("bench$i::task-clock=1e6,0.01") b+=("bench$i::task-clock=1.5e6,0.01")
	done
	mkresult a.json "${a[@]}" && mkresult b.json "${b[@]}" || return 1
	expect_exit 2 "$PMCBENCH" compare --report full/r.md a.json b.json || return 1
	expect_grep "full/r\.md: cannot write the report: No space left on device" "$TMP/err" || return 1
	expect_exit 2 "$PMCBENCH" compare --export full/c.csv a.json b.json || return 1
	expect_grep "No space left on device" "$TMP/err" || return 1
	expect_exit 2 "$PMCBENCH" report --svg full/f.svg "$PMC_SRCDIR/tests/data/profile/hand.folded" || return 1
	expect_one_line "$TMP/err" "full/f\.svg: No space left on device" || return 1
	expect_exit 0 "$PMCBENCH" history add --db h.db a.json b.json || return 1
	expect_exit 2 "$PMCBENCH" history export --db h.db -o full/h.csv || return 1
	expect_one_line "$TMP/err" "full/h\.csv: No space left on device" || return 1
	expect_no_grep "Input/output error" "$TMP/err" || return 1
	[ "$(ls -A full)" = fill ] || fail "files left in the full disk: $(ls -A full)" || return 1
}

# A script whose #! interpreter is missing is named as such, not "No such file or
# directory" about a file that exists; nothing runs.
test_script_with_a_missing_interpreter_names_it() {
	printf '#!/no/such/interp -x\ntouch ran\n' >s.sh && chmod +x s.sh
	expect_exit 2 "$PMCBENCH" run -r 1 -- ./s.sh || return 1
	expect_one_line "$TMP/err" "^pmcbench: '\./s\.sh': its interpreter '/no/such/interp' \(its #! line\) does not exist" || return 1
}

# run --history into a directory that takes no new file fails before anything runs, not
# after every measurement (/proc refuses new files, even to root).
test_run_history_that_cannot_be_written_fails_first() {
	expect_exit 2 "$PMCBENCH" run -r 1 -o r.json --history /proc/h.db --shell -- 'touch ran' || return 1
	expect_one_line "$TMP/err" "^pmcbench: --history: cannot write /proc/h\.db" || return 1
	[ ! -e ran ] || fail "the command ran" || return 1
	[ ! -e r.json ] || fail "r.json was written" || return 1
}

# Strings from a store or a repository reach the terminal escaped: a commit, a branch or
# a tag with an OSC title, a screen clear or a carriage return is refused by history add
# (the one line names the option or the variable it came from, escaped), bisect's
# subject of the first bad commit is escaped. No ESC, BEL or CR byte gets out.
test_history_and_bisect_print_no_raw_escapes() {
	local esc=$'\e]0;pwned\a' clr=$'\e[2J' cr=$'\rPASS'
	mkresult a.json 'x::task-clock=1e6,0.01' || return 1
	expect_exit 2 "$PMCBENCH" history add --db h.db --commit "c0ffee$esc" a.json || return 1
	expect_grep "^pmcbench: --commit 'c0ffee\\\\x1b\\]0;pwned\\\\x07': a commit holds no control characters; give the commit's SHA" "$TMP/err" || return 1
	expect_exit 2 env GITHUB_SHA=c0ffee GITHUB_HEAD_REF="main$clr$cr" "$PMCBENCH" history add --db h.db a.json || return 1
	expect_grep "^pmcbench: GITHUB_HEAD_REF 'main.*': a branch holds no control characters" "$TMP/err" || return 1
	expect_exit 2 "$PMCBENCH" history add --db h.db --commit c0ffee --tag "k=v$cr" a.json || return 1
	expect_grep "^pmcbench: --tag 'k=v\\\\rPASS': a tag holds no control characters" "$TMP/err" || return 1
	[ ! -e h.db ] || fail "a refused add wrote the history" || return 1
	expect_no_grep $'[\e\a\r]' "$TMP/err" || return 1
	expect_exit 0 "$PMCBENCH" history add --db h.db --commit c0ffee --branch main a.json || return 1
	expect_grep 'added as' "$TMP/out" || return 1
	expect_exit 0 "$PMCBENCH" history list --db h.db || return 1
	expect_no_grep $'[\e\a\r]' "$TMP/out" || return 1
	expect_grep 'c0ffee' "$TMP/out" || return 1
	# compare's warnings quote environment values from the result files.
	mkresult e1.json "env:kernel=6.1$clr$esc" 'x::task-clock=1e6,0.01' || return 1
	mkresult e2.json 'env:kernel=6.2' 'x::task-clock=1e6,0.01' || return 1
	expect_exit 0 "$PMCBENCH" compare e1.json e2.json || return 1
	expect_grep '^warning: .*6\.1' "$TMP/out" || return 1
	expect_no_grep $'[\e\a\r]' "$TMP/out" || return 1
	# Commit 6, the first bad one, has a hostile subject.
	bisect_repo "$esc$cr" || return 1
	cd repo || return 1
	expect_exit 0 env TMPDIR="$TMP" "$PMCBENCH" history bisect --good HEAD~8 --bad HEAD --build true \
		--threshold page-faults=+20% -- sh -c "exec '$WORK' touch \$(cat n.txt)" || return 1
	expect_grep '^first bad commit: ' "$TMP/out" || return 1
	expect_no_grep $'[\e\a\r]' "$TMP/out" || return 1
}
