#!/bin/sh
# Installs the project into a temporary DESTDIR and builds each example of bench/examples/
# outside the tree with nothing but `pkg-config pmcbench`: linked against the shared
# library (run with LD_LIBRARY_PATH into the destdir) and statically against
# libpmcbench.a. Each example runs in an empty directory; every .json it leaves there must
# be a result the installed `pmcbench compare` reads. The public headers must also compile
# as C++ (tests/install/header.cpp), and the C++ header's every option build and run
# (tests/install/bench.cpp, its benchmarks those of bench.cpp.list), with g++ and clang++
# where they are there.
#
# Usage: test_install.sh BUILDDIR SRCDIR BINDIR LIBDIR INCLUDEDIR MANDIR EXAMPLE.c...
# (the directories absolute, as configured: /usr/local/bin, ...)
# Environment: MESON (the meson command), CC (the build's C compiler), EXTRA_CFLAGS
# (the build's sanitizer flags), WERROR (true: warnings fail the example builds),
# DATADIR (the configured datadir, for the shell completion scripts).
set -eu
builddir=$1 srcdir=$2 bindir=$3 libdir=$4 includedir=$5 mandir=$6
shift 6
CC=${CC:-cc}
MESON=${MESON:-meson}
EXTRA_CFLAGS=${EXTRA_CFLAGS:-}
werror=
[ "${WERROR:-false}" = true ] && werror=-Werror

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmcbench-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest
fail() {
	echo "test_install: $*" >&2
	exit 1
}

DESTDIR=$dest $MESON install -C "$builddir" --no-rebuild --quiet >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log" >&2; fail "meson install into $dest failed"; }

for f in "$bindir/pmcbench" "$includedir/pmcbench.h" "$includedir/pmcbench.hpp" "$includedir/pmcbench/common.h" \
	"$libdir/libpmcbench.a" "$libdir/pkgconfig/pmcbench.pc" "$mandir/man1/pmcbench.1"; do
	[ -e "$dest$f" ] || fail "meson install did not install $f"
done
# Shell completion where bash-completion and zsh look for it (docs/cli.md).
if [ -n "${DATADIR:-}" ]; then
	for f in "$DATADIR/bash-completion/completions/pmcbench" "$DATADIR/zsh/site-functions/_pmcbench"; do
		[ -s "$dest$f" ] || fail "meson install did not install $f"
	done
	bash -n "$dest$DATADIR/bash-completion/completions/pmcbench" ||
		fail "the installed bash completion does not parse"
fi
ls "$dest$libdir"/libpmcbench.so* >/dev/null 2>&1 || fail "meson install did not install libpmcbench.so"
"$dest$bindir/pmcbench" --version >/dev/null || fail "the installed pmcbench does not run"

# README's sequence, `meson install` then `ldconfig` as root (the .pc adds no rpath, as
# packagers expect): ldconfig run on a copy of this system's loader configuration in the
# destdir must then find libpmcbench in the installed libdir; where the loader does not
# search it (a custom prefix; /usr/local/lib64 on Fedora), README says to add the libdir
# to /etc/ld.so.conf.d/ first, which is checked the same way.
ldconfig=$(command -v ldconfig || echo /sbin/ldconfig)
if [ -x "$ldconfig" ] && [ -r /etc/ld.so.conf ]; then
	mkdir -p "$dest/etc"
	cp /etc/ld.so.conf "$dest/etc/"
	[ -d /etc/ld.so.conf.d ] && cp -r /etc/ld.so.conf.d "$dest/etc/"
	"$ldconfig" -r "$dest" 2>/dev/null || fail "ldconfig -r $dest failed"
	if ! "$ldconfig" -r "$dest" -p | grep -q "libpmcbench.so.0 .*=> $libdir/"; then
		mkdir -p "$dest/etc/ld.so.conf.d"
		echo "$libdir" >"$dest/etc/ld.so.conf.d/pmcbench.conf"
		"$ldconfig" -r "$dest" 2>/dev/null || fail "ldconfig -r $dest failed"
		"$ldconfig" -r "$dest" -p | grep -q "libpmcbench.so.0 .*=> $libdir/" ||
			fail "after ldconfig the loader does not find libpmcbench.so.0 in $libdir"
	fi
fi

# pkg-config finds pmcbench.pc in the destdir and prefixes its paths with the destdir;
# its private dependencies (jansson, libelf) come from the system.
PKG_CONFIG_PATH=$dest$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
PKG_CONFIG_SYSROOT_DIR=$dest
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
cflags=$(pkg-config --cflags pmcbench) || fail "pkg-config --cflags pmcbench failed"
libs=$(pkg-config --libs pmcbench) || fail "pkg-config --libs pmcbench failed"
static_libs=$(pkg-config --static --libs pmcbench) || fail "pkg-config --static --libs pmcbench failed"
# Only libpmcbench itself static (as README shows); the C library and the dependencies
# stay shared.
static_libs=$(echo " $static_libs " | sed 's/ -lpmcbench / -l:libpmcbench.a /')
case " $cflags " in *" -I$dest"*) ;; *) fail "pkg-config --cflags does not point into the destdir: $cflags" ;; esac

# Runs one built example in an empty directory; checks any result it saves. A benchmark
# program (one that calls pmc_main) runs quickly and saves its result, which the
# installed pmcbench then gates against itself.
run_example() { # NAME BINARY [LD_LIBRARY_PATH] [ARGS...]
	wd=$tmp/run-$1
	n=$1 bin=$2 lp=$3
	shift 3
	rm -rf "$wd" && mkdir "$wd"
	(cd "$wd" && LD_LIBRARY_PATH=$lp "$bin" "$@") >"$wd.out" 2>&1 ||
		{ cat "$wd.out" >&2; fail "$n failed"; }
	for json in "$wd"/*.json; do
		[ -e "$json" ] || continue
		"$dest$bindir/pmcbench" compare "$json" "$json" >"$wd.compare" 2>&1 ||
			{ cat "$wd.compare" >&2; fail "$n saved $(basename "$json"), which pmcbench compare cannot read"; }
		# Against itself the gate passes on work counts; where only times were
		# measured (no PMU) it refuses them: two runs of a program are two invocations.
		[ $# -eq 0 ] || "$dest$bindir/pmcbench" gate --baseline "$json" "$json" >"$wd.gate" 2>&1 ||
			{ [ $? -eq 2 ] && grep -q "cannot be gated against a single invocation" "$wd.gate"; } ||
			{ cat "$wd.gate" >&2; fail "pmcbench gate of $n's $(basename "$json") against itself failed"; }
	done
	echo "ok: $n ($(head -n 1 "$wd.out"))"
}

[ $# -gt 0 ] || fail "no examples given"
for src in "$@"; do
	name=$(basename "$src" .c)
	cp "$srcdir/bench/examples/$src" "$tmp/$src" || fail "bench/examples/$src is missing"
	# An example that says it links pmcbench-alloc (docs/microbench.md, "Allocations")
	# links it, through its own pkg-config file; statically, its archive first.
	ex_libs=$libs ex_static_libs=$static_libs
	if grep -q 'pkg-config --cflags --libs pmcbench-alloc' "$tmp/$src"; then
		ex_libs=$(pkg-config --libs pmcbench-alloc) || fail "pkg-config --libs pmcbench-alloc failed"
		ex_static_libs="-l:libpmcbench-alloc.a $static_libs"
	fi
	# shellcheck disable=SC2086 # the flags are lists of words
	$CC -std=c11 -Wall -Wextra -Wpedantic $werror $EXTRA_CFLAGS $cflags -o "$tmp/$name" \
		"$tmp/$src" $ex_libs || fail "$src does not build against the installed pmcbench"
	set --
	if grep -q 'pmc_main(' "$tmp/$src"; then
		set -- -r 8 --min-time 0.002 -q -o out.json
	fi
	run_example "$name (shared)" "$tmp/$name" "$dest$libdir" "$@"

	# shellcheck disable=SC2086
	$CC -std=c11 -Wall -Wextra -Wpedantic $werror $EXTRA_CFLAGS $cflags -o "$tmp/$name-static" \
		"$tmp/$src" $ex_static_libs || fail "$src does not link statically against libpmcbench.a"
	if readelf -d "$tmp/$name-static" | grep -q 'NEEDED.*libpmcbench'; then
		fail "$name-static still needs libpmcbench.so"
	fi
	# The static program runs the same library code as the shared one, whose run above
	# covers every benchmark (and the examples suite runs each in every build): its
	# first benchmark shows that it links, runs and saves what pmcbench reads, in a
	# fraction of the time (the examples take a minute under ASan).
	if [ $# -gt 0 ]; then
		first=$(LD_LIBRARY_PATH="" "$tmp/$name-static" --list | head -n 1)
		[ -n "$first" ] || fail "$name-static --list names no benchmark"
		first=$(printf '%s\n' "$first" | sed 's/[][\\.*^$+?(){}|]/\\&/g')
		set -- "$@" --filter "^$first\$"
	fi
	run_example "$name (static)" "$tmp/$name-static" "" "$@"
done

# A benchmark that crashes or calls exit() is contained in its child: the others'
# results are still written, the failures named, and the exit status is 2.
cat >"$tmp/crash.c" <<'EOF_C'
#include <pmcbench.h>
#include <stdlib.h>
static void fine(struct pmc_state *s) { while (pmc_loop(s)) pmc_clobber_memory(); }
PMC_BENCHMARK(fine);
static void crash(struct pmc_state *s) { while (pmc_loop(s)) ; abort(); }
PMC_BENCHMARK(crash);
static void quit(struct pmc_state *s) { (void)s; exit(0); }
PMC_BENCHMARK(quit);
int main(int argc, char **argv) { return pmc_main(argc, argv); }
EOF_C
# shellcheck disable=SC2086
$CC -std=c11 -Wall -Wextra $EXTRA_CFLAGS $cflags -o "$tmp/crash" "$tmp/crash.c" $libs ||
	fail "crash.c does not build"
set +e
(cd "$tmp" && LD_LIBRARY_PATH=$dest$libdir ./crash -r 3 --min-time 0.001 -q -o crash.json) \
	>"$tmp/crash.out" 2>&1
rc=$?
set -e
[ "$rc" = 2 ] || { cat "$tmp/crash.out" >&2; fail "a crashing benchmark: exit $rc, expected 2"; }
grep -q "'crash' crashed: killed by signal" "$tmp/crash.out" || { cat "$tmp/crash.out" >&2; fail "the crash is not reported"; }
grep -q "'quit' exited with status 0" "$tmp/crash.out" || { cat "$tmp/crash.out" >&2; fail "the exit is not reported"; }
grep -q '"name":"fine"' "$tmp/crash.json" || fail "the other benchmark's result was not written"
echo "ok: crashing benchmarks contained (exit 2, the others written)"

# A benchmark that never finishes is killed after --timeout and named; one that skips
# itself is in the result as skipped; the others' results are written; exit 2. The
# outer timeout only keeps a broken --timeout from hanging the test.
cat >"$tmp/hang.c" <<'EOF_C'
#include <pmcbench.h>
#include <unistd.h>
static void fine(struct pmc_state *s) { while (pmc_loop(s)) pmc_clobber_memory(); }
PMC_BENCHMARK(fine);
static void hang(struct pmc_state *s) { (void)s; for (;;) pause(); }
PMC_BENCHMARK(hang);
static void avx(struct pmc_state *s) { pmc_skip(s, "no AVX2 on this CPU"); }
PMC_BENCHMARK(avx);
int main(int argc, char **argv) { return pmc_main(argc, argv); }
EOF_C
# shellcheck disable=SC2086
$CC -std=gnu11 -Wall -Wextra $EXTRA_CFLAGS $cflags -o "$tmp/hang" "$tmp/hang.c" $libs ||
	fail "hang.c does not build"
guard=
command -v timeout >/dev/null 2>&1 && guard="timeout 120"
set +e
(cd "$tmp" && LD_LIBRARY_PATH=$dest$libdir $guard ./hang -r 3 --min-time 0.001 --timeout 0.5 \
	-q -o hang.json) >"$tmp/hang.out" 2>&1
rc=$?
set -e
[ "$rc" = 2 ] || { cat "$tmp/hang.out" >&2; fail "a benchmark that never ends with --timeout 0.5: exit $rc, expected 2"; }
grep -q "'hang' timed out after 0.5 s" "$tmp/hang.out" || { cat "$tmp/hang.out" >&2; fail "the timeout is not reported"; }
grep -q '"name":"fine"' "$tmp/hang.json" || fail "the other benchmark's result was not written"
grep -q '"name":"avx","command":null,"build_id":null,"skipped":"no AVX2 on this CPU","runs":\[\],"metrics":{}' \
	"$tmp/hang.json" || { cat "$tmp/hang.json" >&2; fail "the skipped benchmark is not in the result as skipped"; }
! grep -q '"name":"hang"' "$tmp/hang.json" || fail "the benchmark that timed out is in the result"
"$dest$bindir/pmcbench" compare "$tmp/hang.json" "$tmp/hang.json" >"$tmp/hang.compare" 2>&1 ||
	{ cat "$tmp/hang.compare" >&2; fail "pmcbench compare cannot read a result with a skipped benchmark"; }
grep -q "benchmark 'avx' (no AVX2 on this CPU) was skipped" "$tmp/hang.compare" ||
	{ cat "$tmp/hang.compare" >&2; fail "compare does not name the skipped benchmark"; }
set +e
(cd "$tmp" && LD_LIBRARY_PATH=$dest$libdir ./hang --no-fork --timeout 1) >"$tmp/nofork.out" 2>&1
rc=$?
set -e
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/nofork.out")" = 1 ] &&
	grep -q -- "--timeout cannot be enforced with --no-fork" "$tmp/nofork.out" ||
	{ cat "$tmp/nofork.out" >&2; fail "--timeout with --no-fork: exit $rc, expected 2 and one line"; }
echo "ok: a benchmark past --timeout killed and named, a skipped one recorded (exit 2, the others written)"

# The C++ header (pmcbench.hpp) with both C++ compilers: header.cpp includes the C headers,
# bench.cpp registers with every option of the builder, lists what it registered and runs.
ncxx=0
cxxs="g++ clang++"
# A sanitizer's runtime is the C compiler's: only its C++ compiler links with it.
if [ -n "$EXTRA_CFLAGS" ]; then
	case $CC in *clang*) cxxs=clang++ ;; *) cxxs=g++ ;; esac
fi
for cxx in $cxxs; do
	command -v "$cxx" >/dev/null 2>&1 || { echo "skip: no $cxx, the C++ checks with it did not run"; continue; }
	ncxx=$((ncxx + 1))
	# shellcheck disable=SC2086
	$cxx -std=c++11 -Wall -Wextra -Wpedantic $werror $EXTRA_CFLAGS $cflags -o "$tmp/header-cxx" \
		"$srcdir/tests/install/header.cpp" $libs || fail "the public headers do not build as C++11 with $cxx"
	# The oldest standard the header takes with one compiler, the newest with the other.
	std=c++11
	[ "$cxx" = clang++ ] && std=c++20
	# shellcheck disable=SC2086
	$cxx -std=$std -O1 -Wall -Wextra -Wpedantic $werror $EXTRA_CFLAGS $cflags -o "$tmp/bench-cxx" \
		"$srcdir/tests/install/bench.cpp" $libs || fail "tests/install/bench.cpp does not build as $std with $cxx"
	run_example "header.cpp ($cxx)" "$tmp/header-cxx" "$dest$libdir"
	(LD_LIBRARY_PATH=$dest$libdir "$tmp/bench-cxx" --list) >"$tmp/bench-cxx.list" 2>&1 ||
		{ cat "$tmp/bench-cxx.list" >&2; fail "bench.cpp ($cxx) --list failed"; }
	cmp -s "$srcdir/tests/install/bench.cpp.list" "$tmp/bench-cxx.list" ||
		{ diff "$srcdir/tests/install/bench.cpp.list" "$tmp/bench-cxx.list" >&2; fail "bench.cpp ($cxx) registered other benchmarks"; }
	(cd "$tmp" && LD_LIBRARY_PATH=$dest$libdir ./bench-cxx -r 1 --min-time 0.0001 --no-fork -q -o cxx.json) \
		>"$tmp/bench-cxx.out" 2>&1 || { cat "$tmp/bench-cxx.out" >&2; fail "bench.cpp ($cxx) failed"; }
	grep -q '"name":"absent","command":null,"build_id":null,"skipped":"no such device"' "$tmp/cxx.json" ||
		fail "bench.cpp ($cxx): the skipped benchmark is not in the result as skipped"
	grep -q '"name":"shared/threads:8"' "$tmp/cxx.json" || fail "bench.cpp ($cxx): shared/threads:8 did not run"
	grep -q '"name":"own_time",[^]]*"runs":\[{"exit_code":0,"process":1,"iterations":1000}' "$tmp/cxx.json" ||
		fail "bench.cpp ($cxx): own_time's ->Iterations(1000) is not its batch size"
	# ->UseManualTime(): 2 ms per iteration as the body said, exactly (it slept 1 ms).
	grep -A3 '"name":"device",' "$tmp/cxx.json" |
		grep -q '^"wall-time/op":{"unit":"ns",.*"samples":\[2000000\(,2000000\)*\]}' ||
		fail "bench.cpp ($cxx): device's manual time is not its wall-time/op of 2000000 ns"
	# ->Unit(pmc::kMicrosecond): the report in us, the result in ns with the unit named.
	grep -q '^device  *2000\.00 us  *\([0-9.e+]* us\|-\) ' "$tmp/bench-cxx.out" ||
		{ cat "$tmp/bench-cxx.out" >&2; fail "bench.cpp ($cxx): device's times are not shown in us"; }
	grep -q '"name":"device",.*"time_unit":"us",' "$tmp/cxx.json" ||
		fail "bench.cpp ($cxx): device's result does not name its time unit"
	# ->MeasureProcessCPUTime(): the 1 ms of CPU the body's thread spent is in cpu-time/op
	# (the calling thread's CPU time misses it).
	pcpu=$(grep -A40 '"name":"worker",' "$tmp/cxx.json" | grep -m1 '^"cpu-time/op":{"unit":"ns",' |
		sed 's/.*"samples":\[\([0-9.e+]*\).*/\1/')
	awk -v v="$pcpu" 'BEGIN { exit !(v + 0 >= 1000000) }' ||
		fail "bench.cpp ($cxx): worker's cpu-time/op is '$pcpu', not the 1 ms its thread spent"
	# pmc::Counter with Google Benchmark's flags: kIsRate | kInvert is a time per step (ns),
	# kIs1024 a count in 1024-based steps kept as the value it is, kAvgIterations | kInvert
	# operations per count (0.5), a plain value a total.
	grep -A30 '"name":"gb_counters",' "$tmp/cxx.json" | grep -q '^"time/steps":{"unit":"ns","better":"lower",' ||
		fail "bench.cpp ($cxx): gb_counters' inverted rate is not time/steps in ns"
	grep -A30 '"name":"gb_counters",' "$tmp/cxx.json" | grep -q '^"mem":{"unit":"count:1024",.*"samples":\[3145728\]' ||
		fail "bench.cpp ($cxx): gb_counters' kIs1024 counter is not mem, 3145728, in count:1024"
	grep -A30 '"name":"gb_counters",' "$tmp/cxx.json" | grep -q '^"op/per":{"unit":"count","better":"higher",.*"samples":\[0.5\]' ||
		fail "bench.cpp ($cxx): gb_counters' kAvgIterations | kInvert is not op/per, 0.5"
	grep -q '^gb_counters .* 3Mi ' "$tmp/bench-cxx.out" ||
		{ cat "$tmp/bench-cxx.out" >&2; fail "bench.cpp ($cxx): gb_counters' mem is not shown as 3Mi"; }
	# ->Repetitions(3) over -r 1: three runs, in one process with --no-fork, else in three.
	one='{"exit_code":0,"process":1,"iterations":10}'
	grep -q "\"name\":\"thrice\",.*\"runs\":\[$one,$one,$one\]" "$tmp/cxx.json" ||
		fail "bench.cpp ($cxx): thrice's ->Repetitions(3) did not give it 3 runs"
	(cd "$tmp" && LD_LIBRARY_PATH=$dest$libdir ./bench-cxx --filter '^(thrice|c_style)$' -r 1 \
		--min-time 0.0001 -q -o rep.json) >"$tmp/rep.out" 2>&1 || { cat "$tmp/rep.out" >&2; fail "bench.cpp ($cxx) -r 1 failed"; }
	grep -q '"name":"thrice",.*"runs":\[{[^]]*"process":1,[^]]*"process":2,[^]]*"process":3,[^]]*\]' "$tmp/rep.json" ||
		fail "bench.cpp ($cxx): thrice's 3 runs were not in 3 processes"
	grep -q '"name":"c_style",.*"runs":\[{"exit_code":0,"process":1,"iterations":[0-9]*}\]' "$tmp/rep.json" ||
		fail "bench.cpp ($cxx): c_style's -r 1 is not 1 run"
	"$dest$bindir/pmcbench" compare "$tmp/cxx.json" "$tmp/cxx.json" >"$tmp/cxx.compare" 2>&1 ||
		{ cat "$tmp/cxx.compare" >&2; fail "bench.cpp ($cxx) saved a result pmcbench compare cannot read"; }
	echo "ok: bench.cpp ($cxx): $(wc -l <"$tmp/bench-cxx.list") benchmarks registered and run"
done
[ "$ncxx" -gt 0 ] || echo "skip: no C++ compiler, the C++ checks did not run"
