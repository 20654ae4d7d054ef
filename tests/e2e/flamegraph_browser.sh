#!/bin/bash
# The flame graph's script in a real browser (docs/profile.md, "Flame graphs"): a demo
# SVG from tests/flamegraph_demo.c loads in headless Chromium without a script error, a
# search given as ?s=REGEX highlights the matching frames and shows their share, a zoom
# given as ?z=NAME widens a frame and its children and hides the rest, in a flame graph and
# in an icicle graph (the root at the top), a search ignores case with ?i=1 (the 'ic'
# control), a tooltip's lines after its first (a function's hottest instructions) are no
# part of the frame's name, and a screenshot is drawn. Skipped (exit 77) when Chromium is absent; ci/install-deps.sh
# installs it. Usage: flamegraph_browser.sh FLAMEGRAPH_DEMO [SCREENSHOT.png]
set -euo pipefail
demo=$1
shot=${2:-}
browser=""
for b in chromium chromium-browser google-chrome; do
	command -v "$b" >/dev/null 2>&1 && browser=$b && break
done
if [ -z "$browser" ]; then
	echo "SKIP: no chromium in PATH (ci/install-deps.sh installs it)"
	exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# A private profile directory and no first-run work, so that parallel runs do not meet.
run() {
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$dir/profile" --virtual-time-budget=5000 "$@" 2>"$dir/stderr"
}

"$demo" "$dir/fg.svg" || fail "flamegraph_demo failed"
"$demo" "$dir/diff.svg" diff || fail "flamegraph_demo diff failed"

# Loads: the script marks the root when it has run, and on an exception writes it there.
run --dump-dom "file://$dir/fg.svg" >"$dir/dom.txt" || { cat "$dir/stderr" >&2; fail "chromium --dump-dom failed"; }
grep -q 'data-ready="1"' "$dir/dom.txt" || { head -c 2000 "$dir/dom.txt" >&2; fail "the script did not run"; }
grep -q 'data-error="\|id="script-error"' "$dir/dom.txt" && fail "script error: $(grep -o 'data-error="[^"]*"' "$dir/dom.txt")"
grep -q 'data-match="' "$dir/dom.txt" && fail "a frame is highlighted without a search"

# Search at load: hash_bytes is 900 + 260 of 3221 samples (36.01%), in two frames (not
# hash_table_insert, whose tooltip names hash_bytes on a line after its first).
run --dump-dom "file://$dir/fg.svg?s=hash_b.tes" >"$dir/search.txt" || fail "chromium --dump-dom with a search failed"
grep -q 'data-ready="1"' "$dir/search.txt" || fail "the script did not run with a search"
n=$(grep -o 'data-match="1"' "$dir/search.txt" | wc -l)
[ "$n" -eq 2 ] || fail "expected 2 highlighted frames, got $n"
grep -q 'data-matched="36.01%"' "$dir/search.txt" || fail "matched share: $(grep -o 'data-matched="[^"]*"' "$dir/search.txt")"
grep -q 'Matched: 36.01%' "$dir/search.txt" || fail "the matched share is not shown"
grep -q 'fill="rgb(230,0,230)"' "$dir/search.txt" || fail "no frame in the highlight colour"
# Nested matches count once: main is every sample but [kernel]'s 200 of 3221.
run --dump-dom "file://$dir/fg.svg?s=main%7Crun_" >"$dir/nested.txt" || fail "chromium --dump-dom failed"
grep -q 'data-matched="93.79%"' "$dir/nested.txt" || fail "nested matches: $(grep -o 'data-matched="[^"]*"' "$dir/nested.txt")"

# A search that is no regular expression ('[kernel', '(') is searched as text, and the rest
# of the URL still applies (issue 34: '?s=(' threw and stopped the page): [kernel] is 200
# of 3221 samples (6.21%), and the zoom after it happens.
run --dump-dom "file://$dir/fg.svg?s=%5Bkernel&z=hash_table_insert" >"$dir/badre.txt" || fail "chromium --dump-dom failed"
grep -q 'data-ready="1"' "$dir/badre.txt" || fail "the script did not run with a bad regular expression"
grep -q 'data-error="' "$dir/badre.txt" && fail "script error with ?s=[kernel: $(grep -o 'data-error="[^"]*"' "$dir/badre.txt")"
grep -q 'data-search-text="1"' "$dir/badre.txt" || fail "?s=[kernel was not searched as text"
grep -q 'data-matched="6.21%"' "$dir/badre.txt" || fail "?s=[kernel matched $(grep -o 'data-matched="[^"]*"' "$dir/badre.txt")"
grep -q 'class="f anc"' "$dir/badre.txt" || fail "the zoom after a bad search did not happen"
run --dump-dom "file://$dir/fg.svg?s=(&z=%E0%A4%A" >"$dir/badre2.txt" || fail "chromium --dump-dom failed"
grep -q 'data-ready="1"' "$dir/badre2.txt" || fail "the script did not run with ?s=( and a bad escape"
grep -q 'data-matched="0.00%"' "$dir/badre2.txt" || fail "?s=( matched $(grep -o 'data-matched="[^"]*"' "$dir/badre2.txt")"

# Zoom at load (?z=NAME, as a click does): hash_table_insert fills the 1180 px between the
# margins, its child grow (350 of its 1250 samples) is widened to 330.40 px, its ancestor
# main is greyed and [kernel] beside it hidden.
run --dump-dom "file://$dir/fg.svg?z=hash_table_insert" >"$dir/zoom.txt" || fail "chromium --dump-dom with a zoom failed"
tr -d '\n' <"$dir/zoom.txt" | sed 's/<g /\n<g /g' >"$dir/zoom-frames.txt"
frame() { grep -F -m1 "<title>$1 (" "$dir/zoom-frames.txt" || true; }
frame hash_table_insert | grep -q 'x="10.00" y="[0-9]*" width="1180.00"' || fail "zoomed frame: $(frame hash_table_insert)"
frame grow | grep -q 'x="10.00" y="[0-9]*" width="330.40"' || fail "child after zoom: $(frame grow)"
frame main | grep -q '^<g class="f anc"' || fail "ancestor after zoom: $(frame main)"
grep -F '<title>[kernel] (' "$dir/zoom-frames.txt" | grep -q '^<g class="f hid"' || fail "[kernel] not hidden after zoom"
grep -q 'id="reset" class="ctl"' "$dir/zoom.txt" || fail "no reset control after zoom"

# Case: the search is case-sensitive, and with ?i=1 (the 'ic' control) it is not.
run --dump-dom "file://$dir/fg.svg?s=HASH_B.TES" >"$dir/case.txt" || fail "chromium --dump-dom failed"
grep -q 'data-match="1"' "$dir/case.txt" && fail "a case-sensitive search matched HASH_B.TES"
grep -q 'data-matched="0.00%"' "$dir/case.txt" || fail "case-sensitive: $(grep -o 'data-matched="[^"]*"' "$dir/case.txt")"
run --dump-dom "file://$dir/fg.svg?s=HASH_B.TES&i=1" >"$dir/icase.txt" || fail "chromium --dump-dom failed"
n=$(grep -o 'data-match="1"' "$dir/icase.txt" | wc -l)
[ "$n" -eq 2 ] || fail "ignoring case: expected 2 highlighted frames, got $n"
grep -q 'data-matched="36.01%"' "$dir/icase.txt" || fail "ignoring case: $(grep -o 'data-matched="[^"]*"' "$dir/icase.txt")"
grep -q 'id="ic" class="ctl on"' "$dir/icase.txt" || fail "the ic control is not shown on"

# An icicle graph: the root at the top; a zoom widens and hides as in a flame graph, its
# ancestor main above it now.
"$demo" "$dir/icicle.svg" icicle || fail "flamegraph_demo icicle failed"
run --dump-dom "file://$dir/icicle.svg?z=hash_table_insert" >"$dir/izoom.txt" || fail "chromium --dump-dom (icicle) failed"
grep -q 'data-ready="1"' "$dir/izoom.txt" || fail "the icicle graph's script did not run"
tr -d '\n' <"$dir/izoom.txt" | sed 's/<g /\n<g /g' >"$dir/zoom-frames.txt"
frame hash_table_insert | grep -q 'x="10.00" y="[0-9]*" width="1180.00"' || fail "icicle zoomed frame: $(frame hash_table_insert)"
frame grow | grep -q 'x="10.00" y="[0-9]*" width="330.40"' || fail "icicle child after zoom: $(frame grow)"
frame main | grep -q '^<g class="f anc"' || fail "icicle ancestor after zoom: $(frame main)"
grep -F '<title>[kernel] (' "$dir/zoom-frames.txt" | grep -q '^<g class="f hid"' || fail "icicle: [kernel] not hidden after zoom"
y_all=$(frame all | sed -n 's/.* y="\([0-9]*\)".*/\1/p')
y_main=$(frame main | sed -n 's/.* y="\([0-9]*\)".*/\1/p')
[ "$y_all" -lt "$y_main" ] || fail "icicle: the root (y=$y_all) is not above main (y=$y_main)"

run --dump-dom "file://$dir/diff.svg" >"$dir/diffdom.txt" || fail "chromium --dump-dom (differential) failed"
grep -q 'data-ready="1"' "$dir/diffdom.txt" || fail "the differential graph's script did not run"

# Drawn: a screenshot exists and is not blank (a blank 1200x600 PNG is under 10 KB).
(cd "$dir" && run --screenshot="$dir/out.png" --window-size=1200,600 "file://$dir/fg.svg") || fail "chromium --screenshot failed"
[ -s "$dir/out.png" ] || fail "no screenshot"
size=$(stat -c %s "$dir/out.png")
[ "$size" -gt 20000 ] || fail "screenshot of $size bytes: nothing drawn?"
[ -n "$shot" ] && cp "$dir/out.png" "$shot"
echo "ok: script ran, search highlighted 2 frames (36.01%), ignoring case too, zoom in a flame and an icicle graph, screenshot $size bytes"
