#!/bin/sh
# The generated pmcbench(1) renders without a groff warning.
# Usage: check_man.sh MAN PMCBENCH.1
set -eu
out=$(MANWIDTH=80 "$1" --warnings -E UTF-8 -l "$2" 2>&1 >/dev/null)
if [ -n "$out" ]; then
	echo "check_man: $2 does not render cleanly:" >&2
	echo "$out" >&2
	exit 1
fi
lines=$(MANWIDTH=80 "$1" -E UTF-8 -l "$2" 2>/dev/null | wc -l)
[ "$lines" -gt 50 ] || { echo "check_man: $2 renders to only $lines lines" >&2; exit 1; }
echo "ok: $2 renders to $lines lines"
