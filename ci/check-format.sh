#!/bin/sh
# Checks that every C file of the tree is as .clang-format writes it (issue 33): prints
# each file that differs, with the command that fixes it, and exits 1. The format a
# clang-format release writes changes between releases, so only the release the tree was
# formatted with judges it; another is a skip (77), as is a machine without clang-format.
#   ci/check-format.sh [SOURCE-DIR]        check
#   ci/check-format.sh --fix [SOURCE-DIR]  rewrite the files in place
set -eu
fix=no
if [ "${1:-}" = --fix ]; then
	fix=yes
	shift
fi
cd "${1:-$(dirname "$0")/..}"
want=14
cf=${CLANG_FORMAT:-clang-format}
if ! command -v "$cf" >/dev/null 2>&1; then
	echo "ci/check-format.sh: no clang-format here (apt-get install clang-format): skipped"
	exit 77
fi
major=$("$cf" --version | sed -n 's/.*version \([0-9]*\).*/\1/p')
if [ "$major" != "$want" ]; then
	echo "ci/check-format.sh: clang-format $major here; the tree is formatted with $want: skipped"
	exit 77
fi
# The project's own C sources: not the subprojects' or generated files.
files=$(find harness counters reporters bench tests include -name '*.[ch]' \
	-not -path '*/subprojects/*' | LC_ALL=C sort)
if [ $fix = yes ]; then
	# shellcheck disable=SC2086
	"$cf" -i $files
	exit 0
fi
# One clang-format for every file; it names each place that differs ("FILE:LINE:COL:
# error: code should be clang-formatted").
# shellcheck disable=SC2086
bad=$("$cf" --dry-run $files 2>&1 | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: .*clang-format.*/\1/p' | uniq)
if [ -n "$bad" ]; then
	for f in $bad; do
		echo "$f: not as .clang-format writes it; run: ci/check-format.sh --fix"
	done
	exit 1
fi
