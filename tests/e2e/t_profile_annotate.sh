# Instructions (docs/profile.md, "Instructions"): `report --annotate FUNC` lays a
# profile's per-address weights over the function's code. $PMC_PROF_LINES is
# tests/targets/prof_lines.c built -O2 -g: outer's two inlined loops are where its time
# goes; $PMC_PROF_LINES_NODEBUG is the same without its debug info.

# A build without Capstone refuses --annotate in one line that says how to get it, and
# the case ends there.
need_disassembler() {
	printf 'main;outer 10\n' >probe.folded
	"$PMCBENCH" report --annotate outer probe.folded >probe.out 2>probe.err
	if grep -q "built without Capstone" probe.err; then
		expect_one_line probe.err "install it .*libcapstone-dev.*-Dcapstone=enabled" || exit 1
		skip "pmcbench was built without Capstone"
	fi
}

# The source lines of a loop's body in prof_lines.c, as "|19|20|" for a match.
loop_lines() {
	grep -nE 'x = x \* 6364136223846793005u|x \^= x (<<|>>) (13|7|17);|for \(int i = 0; i < 2000' \
		"$PMC_SRCDIR/tests/targets/prof_lines.c" | cut -d: -f1 | tr '\n' '|' | sed 's/^/|/'
}

# outer's instructions: their shares add up to 100%, the hottest lies in outer's range
# (as nm gives it) on a line of one of the loops, and the rows fit the terminal.
test_annotate_finds_the_hot_loop() {
	need_disassembler
	expect_exit 0 "$PMCBENCH" record -o p.json -- "$PMC_PROF_LINES" 30000 || return 1
	COLUMNS=80 expect_exit 0 "$PMCBENCH" report --annotate outer p.json || return 1
	awk 'length($0) > 80 { bad = 1; print } END { exit bad }' "$TMP/out" ||
		fail "a line wider than 80 columns" || return 1
	expect_exit 0 "$PMCBENCH" report --annotate outer p.json || return 1
	expect_grep '^Instructions of outer in .*pmc-prof-lines \(0x[0-9a-f]+, [0-9]+ bytes, [0-9]+ instructions\): self [0-9.]+% of the profile' "$TMP/out" || return 1
	expect_grep '^ +100% +[0-9.]+% +total: .* in [0-9]+ samples at [0-9]+ of [0-9]+ instructions$' "$TMP/out" || return 1
	# Rows: "SHARE% PROFILE% [*] ADDRESS INSTRUCTION... FILE:LINE"; rows without samples
	# start with blanks.
	awk '$1 ~ /^[0-9.]+%$/ && $2 ~ /^[0-9.]+%$/ && $0 !~ /total:/ {
		sum += $1; if ($1 + 0 > best) { best = $1 + 0; row = $0 } }
		END { printf "%.2f\n", sum; print row }' "$TMP/out" >hot
	sum=$(sed -n 1p hot)
	awk -v s="$sum" 'BEGIN { exit !(s >= 99.5 && s <= 100.5) }' ||
		fail "the instructions' shares add up to $sum%, not 100%" || return 1
	row=$(sed -n 2p hot)
	addr=$(echo "$row" | awk '{ for (i = 3; i <= NF; i++) if ($i ~ /^[0-9a-f]+$/) { print $i; exit } }')
	line=$(echo "$row" | grep -oE 'prof_lines\.c:[0-9]+' | cut -d: -f2)
	case "$(loop_lines)" in
	*"|$line|"*) ;;
	*) fail "the hottest instruction ($row) is on line $line, not in a loop ($(loop_lines))"; return 1 ;;
	esac
	start=$(sed -n 's/^Instructions of outer in .* (0x\([0-9a-f]*\), \([0-9]*\) bytes.*/\1 \2/p' "$TMP/out")
	python3 -c 'import sys; a, s, n = int(sys.argv[1], 16), int(sys.argv[2], 16), int(sys.argv[3])
sys.exit(not s <= a < s + n)' "$addr" $start ||
		fail "the hottest address $addr is not in outer's range ($start)" || return 1
	# outer's address as binutils' nm gives it: the same function.
	if command -v nm >/dev/null; then
		nm "$PMC_PROF_LINES" | grep -qE "^0*${start%% *} [Tt] outer$" ||
			fail "nm puts outer elsewhere than 0x${start%% *}" || return 1
	fi
}

# The flame graph's tooltip of outer lists its hottest instructions, the annotation's: the
# heaviest row of report --annotate (its instruction and source line) is the first row
# under "hottest instructions" in outer's tooltip, and a function under 1% of the profile
# has none.
test_flame_graph_tooltip_holds_the_hot_instruction() {
	need_disassembler
	expect_exit 0 "$PMCBENCH" record -o p.json -- "$PMC_PROF_LINES" 30000 || return 1
	expect_exit 0 "$PMCBENCH" report --annotate outer p.json || return 1
	# The heaviest row: its instruction's text and FILE:LINE, as the tooltip writes them.
	awk '$1 ~ /^[0-9.]+%$/ && $2 ~ /^[0-9.]+%$/ && $0 !~ /total:/ { if ($1 + 0 > best) {
		best = $1 + 0; row = $0 } } END { print row }' "$TMP/out" >hot
	insn=$(sed -E 's/^ +[0-9.]+% +[0-9.]+% +\*? +[0-9a-f]+  (.*[^ ]) +prof_lines\.c:.*/\1/' hot)
	src=$(grep -oE 'prof_lines\.c:[0-9]+' hot)
	[ -n "$insn" ] && [ -n "$src" ] || { fail "no hottest row in: $(cat hot)"; return 1; }
	expect_exit 0 "$PMCBENCH" report --svg p.svg p.json || return 1
	python3 - p.svg "$insn" "$src" >&2 <<'PY' || fail "outer's tooltip does not hold $insn ($src)" || return 1
import html, re, sys
svg = open(sys.argv[1]).read()
titles = [html.unescape(t) for t in re.findall(r"<title>(.*?)</title>", svg, re.S)]
outer = [t for t in titles if t.startswith("outer (")]
print("\n".join(outer[:1]))
lines = outer[0].split("\n") if outer else []
ok = len(lines) >= 3 and lines[1] == "hottest instructions (share of its samples):"
# The first row: the heaviest instruction, with its source line.
ok = ok and sys.argv[2] in lines[2] and sys.argv[3] in lines[2]
ok = ok and 2 <= len(lines) - 2 <= 5  # at most 5 rows
# main's self share is under 1%: its frames have no rows.
ok = ok and all("\n" not in t for t in titles if t.startswith("main ("))
sys.exit(0 if ok else 1)
PY
}

# Under LC_ALL=C the report is ASCII; without debug information the instructions come
# without source lines, none invented.
test_annotate_ascii_and_without_debug_info() {
	need_disassembler
	# The program's path is UTF-8 ("dé"): shown so in a UTF-8 locale, in ASCII under C.
	mkdir "$(printf 'd\303\251')" || return 1
	cp "$PMC_PROF_LINES" "$(printf 'd\303\251')/prog" || return 1
	expect_exit 0 "$PMCBENCH" record -o p.json -- "./$(printf 'd\303\251')/prog" 3000 || return 1
	LC_ALL=C.UTF-8 expect_exit 0 "$PMCBENCH" report --annotate outer p.json || return 1
	expect_grep "^Instructions of outer in .*/$(printf 'd\303\251')/prog " "$TMP/out" || return 1
	LC_ALL=C expect_exit 0 "$PMCBENCH" report --annotate outer p.json || return 1
	expect_grep '^Instructions of outer in .*/d\?/prog ' "$TMP/out" || return 1
	LC_ALL=C grep -q "$(printf '[\200-\377]')" "$TMP/out" && { fail "non-ASCII output"; return 1; }
	if [ -z "${PMC_PROF_LINES_NODEBUG:-}" ]; then
		skip "no objcopy: no program without its debug info"
	fi
	expect_exit 0 "$PMCBENCH" record -o n.json -- "$PMC_PROF_LINES_NODEBUG" 3000 || return 1
	expect_exit 0 "$PMCBENCH" report --annotate outer n.json || return 1
	expect_grep '^ +100% .*total:' "$TMP/out" || return 1
	expect_no_grep 'prof_lines\.c:|Hottest source lines' "$TMP/out"
}

# What cannot be annotated is said in one line, exit 2: an unknown function (with the
# close names), a profile without addresses (another tool's, or an older file), a
# function no sample ended in, another view beside it.
test_annotate_refused_where_it_cannot_be_shown() {
	need_disassembler
	expect_exit 0 "$PMCBENCH" record -o p.json -- "$PMC_PROF_LINES" 3000 || return 1
	expect_exit 2 "$PMCBENCH" report --annotate outr p.json || return 1
	expect_one_line "$TMP/err" "no function 'outr' in p.json; did you mean 'outer'" || return 1
	expect_lines 0 "$TMP/out" || return 1
	printf 'main;outer 10\n' >f.folded
	expect_exit 2 "$PMCBENCH" report --annotate outer f.folded || return 1
	expect_one_line "$TMP/err" "f.folded keeps no sampled addresses.*record it again" || return 1
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); del d["lines"]
json.dump(d, open(sys.argv[2], "w"))' p.json old.json || return 1
	expect_exit 2 "$PMCBENCH" report --annotate outer old.json || return 1
	expect_one_line "$TMP/err" "old.json keeps no sampled addresses" || return 1
	expect_exit 2 "$PMCBENCH" report --annotate outer --tree=caller p.json || return 1
	expect_one_line "$TMP/err" "--annotate and --tree are two views" || return 1
	expect_exit 2 "$PMCBENCH" report --annotate outer --lines outer p.json || return 1
	expect_one_line "$TMP/err" "two views" || return 1
	expect_exit 2 "$PMCBENCH" report --annotate outer --top 3 p.json || return 1
	expect_one_line "$TMP/err" "--annotate shows every instruction of FUNC: --top applies to the function table" || return 1
	# The code is read at report time: a program replaced by another since the
	# recording, or gone, is said so, never shown as the function's code. Where the
	# samples ended depends on the recording, so in the other program that address
	# lies in some function or between functions: either is said.
	cp "$PMC_PROF_LINES" ./prog || return 1
	expect_exit 0 "$PMCBENCH" record -o c.json -- ./prog 3000 || return 1
	cp "$PMC_PROF_WORK" ./prog || return 1
	expect_exit 2 "$PMCBENCH" report --annotate outer c.json || return 1
	expect_one_line "$TMP/err" "prog has (the function '[a-z_]+'|no function) at 0x[0-9a-f]+, where samples of outer ended: the file changed since the recording; record again$" || return 1
	rm prog
	expect_exit 2 "$PMCBENCH" report --annotate outer c.json || return 1
	expect_one_line "$TMP/err" "prog: No such file or directory \(its object is gone since the recording\)"
}

# A failing gate's explanation shows the instructions of the function that grew, from the
# new profile: $PMC_PROF_WORK's prof_cold does 6x the work, and its hottest instruction is
# on the line of the loop inlined into it (tests/targets/prof_work.c, chain).
test_gate_explanation_shows_the_culprits_instructions() {
	need_disassembler
	expect_exit 1 "$PMCBENCH" run -r 8 --profile -n old -c "$PMC_PROF_WORK 30000 10000" \
		-n new -c "$PMC_PROF_WORK 30000 60000" --threshold task-clock=+1% --gate || return 1
	expect_grep '^new: task-clock \+[0-9.]+% .* in prof_cold' "$TMP/out" || return 1
	expect_grep '^  hottest instructions of prof_cold in the new profile \(share of its samples\):$' "$TMP/out" || return 1
	loop=$(grep -n 'x = x \* 6364136223846793005UL' "$PMC_SRCDIR/tests/targets/prof_work.c" | cut -d: -f1)
	sed -n '/^  hottest instructions of prof_cold/{n;p;}' "$TMP/out" >first
	expect_grep "^ +[0-9.]+% +[0-9a-f]+  [a-z].*  prof_work\.c:$loop \(chain\)$" first
}
