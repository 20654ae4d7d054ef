#!/bin/sh
# Regenerates docs/cli.md from the help texts of a built pmcbench (the e2e test
# test_cli_reference_matches_help fails when they drift apart).
# Usage: ci/gen-cli-doc.sh [BUILDDIR]
set -eu
cd "$(dirname "$0")/.."
pmcbench=${1:-build}/pmcbench
{
	echo "# Command-line reference"
	echo
	echo "The help texts of every command, as \`pmcbench help COMMAND\` prints them. Exit codes:"
	echo "0 success (no regression), 1 regression beyond a threshold (\`gate\`, \`run --baseline\`),"
	echo "2 error, 3 inconclusive (only with \`--fail-on-inconclusive\`)."
	for c in run compare gate list doctor; do
		echo
		echo "## pmcbench $c"
		echo
		echo '```'
		"$pmcbench" help "$c"
		echo '```'
	done
} >docs/cli.md
