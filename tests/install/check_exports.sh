#!/bin/sh
# The shared library exports the public API and nothing else: every defined dynamic
# symbol starts with pmc_ and is declared in include/pmcbench.h or include/pmcbench/*.h.
# Usage: check_exports.sh LIBPMCBENCH.so INCLUDEDIR
set -eu
lib=$1 inc=$2
syms=$(nm -D --defined-only "$lib" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort -u)
[ -n "$syms" ] || { echo "check_exports: $lib exports nothing; expected the pmc_ API" >&2; exit 1; }
bad=0
for s in $syms; do
	case $s in
	pmc_*) ;;
	*)
		echo "check_exports: $lib exports '$s', which is not a pmc_ symbol: declare it static, or leave it out of PMC_API and libpmcbench.map" >&2
		bad=1
		continue
		;;
	esac
	if ! grep -Eq "(^|[^A-Za-z0-9_])${s}[[:space:]]*\\(" "$inc"/pmcbench.h "$inc"/pmcbench/*.h; then
		echo "check_exports: $lib exports '$s', which no header in $inc/pmcbench/ declares: declare it there (docs/api.md) or drop its PMC_API" >&2
		bad=1
	fi
done
[ $bad -eq 0 ] || exit 1
echo "ok: $(echo "$syms" | wc -l) exported symbols, all pmc_ and declared in $inc"
