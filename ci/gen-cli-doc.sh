#!/bin/sh
# Regenerates docs/cli.md from the help texts of a built pmcbench (the e2e test
# test_cli_reference_matches_help fails when they drift apart).
# Usage: ci/gen-cli-doc.sh [BUILDDIR]
set -eu
cd "$(dirname "$0")/.."
pmcbench=${1:-build}/harness/7-cli/pmcbench
# Every command the program lists in its own help (main.c's table), in that order, as the
# completion scripts read them: a new command needs no edit here.
commands=$("$pmcbench" --help | sed -nE 's/^  ([a-z]+) +.*/\1/p' | grep -vx help)
{
	echo "# Command-line reference"
	echo
	echo "The help texts of every command, as \`pmcbench help COMMAND\` prints them. Exit codes:"
	echo "0 success (no regression), 1 regression beyond a threshold (\`gate\`, \`run --baseline\`),"
	echo "2 error, 3 inconclusive (only with \`--fail-on-inconclusive\`)."
	echo
	echo "Every command reads its options by the same rules: a value follows its option as"
	echo "\`-oFILE\`, \`-o FILE\`, \`--output=FILE\` or \`--output FILE\`; a long option may be"
	echo "shortened to any unambiguous prefix (\`--baseline\` as \`--base\`, \`--no-fdr\` as"
	echo "\`--no-f\`); \`--\` ends the options. An unknown or ambiguous option, or one without its"
	echo "value, is an error: one line on standard error, exit status 2. \`run\` stops reading"
	echo "its options at the command, whose own options are left to it."
	echo
	echo "## Shell completion"
	echo
	echo "Installed by \`meson install\` (README); to try it from the tree, source"
	echo "\`harness/7-cli/completion/pmcbench.bash\`. Bash and zsh complete"
	echo "the commands (and the actions of \`history\`), each command's options, the values of"
	echo "\`--format\`, \`--color\`, \`--backend\` and \`--valgrind-tool\`, event names after \`-e\`"
	echo "(also after a comma in a list), tracepoints there by their subsystem (\`sche\` TAB"
	echo "gives \`sched:\`, then \`sched:sched_sw\` TAB \`sched:sched_switch\`; root, as counting them),"
	echo "and file names where an option takes a file. The scripts read the options from"
	echo "\`pmcbench help COMMAND\` and the events from \`pmcbench list --names\` (tracepoints from"
	echo "\`pmcbench list --names tracepoint\`) at completion time, so they cannot drift from the program."
	echo
	echo "## Colour"
	echo
	echo "The table reports colour their status words (a count \`unsupported\`,"
	echo "\`not-counted\` or scaled in yellow, \`denied\` in red), verdicts (regression red,"
	echo "improvement green, inconclusive yellow), the gate's outcome and the headline's"
	echo "\"faster\"/\"slower\" when \`--color=always\`, or by default on a terminal with \`NO_COLOR\`"
	echo "unset or empty; never in Markdown, CSV, JSON or a \`--report\` file."
	echo
	echo "## Control characters"
	echo
	echo "Whatever a command prints from a result file, a profile, a history or a repository"
	echo "(names, units, environment values, commits, subjects), no control character reaches"
	echo "the terminal or a CI log raw: standard output and standard error pass through one"
	echo "filter that writes each one (C0 but newline and tab, DEL, C1 as UTF-8 or as a lone"
	echo "byte) as a space, so that no escape sequence retitles the window, writes the"
	echo "clipboard or clears the screen, and no carriage return forges a line. Only"
	echo "pmcbench's own colours pass (above: on a terminal, or with \`--color=always\`), and"
	echo "on a terminal the progress line's erase. JSON writes them as escapes and gives the"
	echo "text back as it was; CSV and the reports' files write them as spaces; a unit, a"
	echo "commit, a branch or a tag that holds one is refused."
	echo
	echo "## Width"
	echo
	echo "The table reports and the messages on standard error fit the width of the terminal:"
	echo "\`COLUMNS\` when it is a number (40 or more), as ls(1) and curses programs read it;"
	echo "else the width of the terminal the report goes to (\`TIOCGWINSZ\`); else, in a pipe"
	echo "or a file, no limit, every column on one line as perf stat and hyperfine write them."
	echo "Within a width, the run table folds the rows not measured for one reason into one"
	echo "line (\`<not supported>  cycles, instructions, ...: unsupported (ENOENT)\`, also"
	echo "without a width when there are two or more), leaves out its min ... max column when"
	echo "the row would not fit and puts a row's comment under it; the comparison table's"
	echo "columns are as wide as their cells, and the test, the limit and the row's note go to"
	echo "a second line under the row (the verdict too when the row is still too wide); a"
	echo "benchmark program's table puts the columns that do not fit into more tables below,"
	echo "each with the benchmarks' names; the notes, the legend and the headline are wrapped,"
	echo "with their continuation lines indented. Only a word longer than the width (a long"
	echo "name, a command) passes it."
	for c in $commands; do
		echo
		echo "## pmcbench $c"
		echo
		echo '```'
		"$pmcbench" help "$c"
		echo '```'
	done
} >docs/cli.md
