#!/bin/sh
# The shared library exports the public API and nothing else, each function under the
# version node that lists it: the PMC_API functions declared in include/pmcbench.h and
# include/pmcbench/*.h, the global symbols of the version script and the library's
# defined dynamic symbols must be the same set, and no symbol is listed twice.
# Usage: check_exports.sh LIBPMCBENCH.so INCLUDEDIR LIBPMCBENCH.map
set -eu
lib=$1 inc=$2 map=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmcbench-exports.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
bad=0
complain() {
	echo "check_exports: $*" >&2
	bad=1
}

# Declared: every PMC_API function, with preprocessor lines and comments left out and
# declarations joined across lines.
grep -hv '^[[:space:]]*#' "$inc"/pmcbench.h "$inc"/pmcbench/*.h | tr '\n' ' ' |
	sed 's|/\*\([^*]\|\*[^/]\)*\*/||g' | grep -oE 'PMC_API[^;(]*\(' |
	grep -oE '[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\($' | tr -d ' (' | sort >"$tmp/declared"
[ -s "$tmp/declared" ] || complain "no PMC_API function found in $inc/pmcbench/"

# Listed: "NODE SYMBOL" for each symbol in a global: section of the version script.
awk '
	/\/\*/ { comment = 1 }
	comment { if (/\*\//) comment = 0; next }
	/^[A-Za-z0-9_.]+[[:space:]]*\{/ { node = $1; sub(/\{.*/, "", node); scope = ""; next }
	/global:/ { scope = "global"; next }
	/local:/ { scope = "local"; next }
	scope == "global" && /^[[:space:]]*[A-Za-z_][A-Za-z0-9_]*;/ {
		s = $1; sub(/;.*/, "", s); print node, s
	}
' "$map" | sort -k2 >"$tmp/listed"
awk '{ print $2 }' "$tmp/listed" | uniq -d | while read -r s; do
	echo "check_exports: $map lists '$s' more than once" >&2
	echo x >>"$tmp/twice"
done
[ ! -e "$tmp/twice" ] || bad=1
awk '{ print $2 }' "$tmp/listed" | sort -u >"$tmp/listed_names"

# Exported: "SYMBOL NODE" for each defined dynamic symbol (version definitions left out).
nm -D --defined-only "$lib" | awk 'NF >= 3 && $2 != "A" {
	s = $3; v = s; sub(/@.*/, "", s); if (!sub(/^[^@]*@+/, "", v)) v = "(none)"; print s, v
}' | sort -u >"$tmp/exported"
awk '{ print $1 }' "$tmp/exported" | sort -u >"$tmp/exported_names"
[ -s "$tmp/exported_names" ] || complain "$lib exports nothing; expected the pmc_ API"

for s in $(comm -23 "$tmp/declared" "$tmp/listed_names"); do
	complain "'$s' is declared PMC_API but not listed in $map: add it to the node of the next release (docs/api.md, \"Growth rules\")"
done
for s in $(comm -13 "$tmp/declared" "$tmp/listed_names"); do
	complain "$map lists '$s', which no header in $inc/pmcbench/ declares PMC_API: declare it there or drop it from the map"
done
for s in $(comm -13 "$tmp/listed_names" "$tmp/exported_names"); do
	complain "$lib exports '$s', which $map does not list: declare it static, or leave it out of PMC_API"
done
for s in $(comm -23 "$tmp/listed_names" "$tmp/exported_names"); do
	complain "$lib does not export '$s', which $map lists: define it (with PMC_API)"
done
# Each symbol carries the version of the node that lists it.
while read -r node s; do
	v=$(awk -v s="$s" '$1 == s { print $2 }' "$tmp/exported")
	[ -z "$v" ] || [ "$v" = "$node" ] || complain "$lib exports '$s' as version $v; $map lists it under $node"
done <"$tmp/listed"
[ $bad -eq 0 ] || exit 1
echo "ok: $(wc -l <"$tmp/exported_names") exported symbols, each declared PMC_API in $inc and listed in $(basename "$map")"
