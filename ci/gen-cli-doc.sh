#!/bin/sh
# Regenerates docs/cli.md from the help texts of a built pmcbench (the e2e test
# test_cli_reference_matches_help fails when they drift apart).
# Usage: ci/gen-cli-doc.sh [BUILDDIR]
set -eu
cd "$(dirname "$0")/.."
pmcbench=${1:-build}/harness/cli/pmcbench
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
	for c in run compare gate list doctor; do
		echo
		echo "## pmcbench $c"
		echo
		echo '```'
		"$pmcbench" help "$c"
		echo '```'
	done
} >docs/cli.md
