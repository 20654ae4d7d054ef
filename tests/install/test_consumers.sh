#!/bin/sh
# pmcbench used from another project's build, as README ("pmcbench in your build") shows:
#   subproject  a parent meson project with pmcbench in subprojects/ (a symlink to this
#               source tree) finds it with dependency('pmcbench'), through the wrap's
#               [provide] and meson.override_dependency; pmcbench builds its library and
#               nothing else (no pmcbench command, no tests, no benchmark programs, nothing
#               of the CLI installed); the parent's benchmark program builds and runs.
#   cmake       a CMake project finds the installed pmcbench with find_package(pmcbench)
#               in a `meson install --destdir` prefix and links pmcbench::pmcbench; its
#               benchmark program builds and runs. Skipped (77) without cmake.
# Usage: test_consumers.sh subproject SRCDIR
#        test_consumers.sh cmake BUILDDIR PREFIX LIBDIR
# Environment: MESON (the meson command), CC (the build's C compiler), EXTRA_CFLAGS
# (the build's sanitizer flags, which a program linking the sanitized library needs).
set -eu
what=$1
shift
MESON=${MESON:-meson}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmcbench-consumer.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "test_consumers $what: $*" >&2
	exit 1
}

# The parent's benchmark program: two registered benchmarks, run through pmc_main.
cat >"$tmp/bench.c" <<'EOF_C'
#include <pmcbench.h>
#include <stdint.h>
static void lcg(struct pmc_state *s)
{
	uint64_t x = 1;
	while (pmc_loop(s)) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		pmc_do_not_optimize(x);
	}
}
PMC_BENCHMARK(lcg);
static void empty(struct pmc_state *s) { while (pmc_loop(s)) pmc_clobber_memory(); }
PMC_BENCHMARK(empty);
int main(int argc, char **argv) { return pmc_main(argc, argv); }
EOF_C

# Runs the built program: it lists its two benchmarks, runs them, and saves both.
run_bench() { # BINARY [LD_LIBRARY_PATH]
	(LD_LIBRARY_PATH=${2:-} "$1" --list) >"$tmp/list" 2>&1 || { cat "$tmp/list" >&2; fail "$1 --list failed"; }
	printf 'lcg\nempty\n' | cmp -s - "$tmp/list" || { cat "$tmp/list" >&2; fail "$1 --list: not lcg and empty"; }
	(cd "$tmp" && LD_LIBRARY_PATH=${2:-} "$1" -r 2 --min-time 0.001 -q -o out.json) >"$tmp/run" 2>&1 ||
		{ cat "$tmp/run" >&2; fail "$1 failed"; }
	grep -q '"name":"lcg"' "$tmp/out.json" && grep -q '"name":"empty"' "$tmp/out.json" ||
		fail "$1 did not save both benchmarks"
}

case $what in
subproject)
	srcdir=$1
	parent=$tmp/parent
	mkdir -p "$parent/subprojects"
	ln -s "$srcdir" "$parent/subprojects/pmcbench"
	# A wrap as a user's would be; the directory is there, so nothing is fetched.
	cat >"$parent/subprojects/pmcbench.wrap" <<'EOF_W'
[wrap-git]
url = https://example.invalid/pmcbench.git
revision = v0.1.0
directory = pmcbench

[provide]
dependency_names = pmcbench
EOF_W
	cat >"$parent/meson.build" <<'EOF_M'
project('parent', 'c', default_options : ['c_std=c11'])
pmcbench_dep = dependency('pmcbench')
executable('bench', 'bench.c', dependencies : pmcbench_dep, install : true)
EOF_M
	cp "$tmp/bench.c" "$parent/"
	# The subproject even where a pmcbench.pc is installed; the compiler cache (where
	# meson finds ccache) hits across temporary directories.
	CCACHE_BASEDIR=$tmp CCACHE_NOHASHDIR=1 $MESON setup --force-fallback-for=pmcbench \
		"$parent/build" "$parent" >"$tmp/setup.log" 2>&1 ||
		{ cat "$tmp/setup.log" >&2; fail "meson setup of the parent failed"; }
	CCACHE_BASEDIR=$tmp CCACHE_NOHASHDIR=1 ninja -C "$parent/build" >"$tmp/build.log" 2>&1 ||
		{ tail -n 30 "$tmp/build.log" >&2; fail "the parent does not build"; }
	run_bench "$parent/build/bench"
	# The library only: no pmcbench command, no tests, no benchmark programs of its own.
	$MESON introspect --targets "$parent/build" >"$tmp/targets.json"
	python3 - "$tmp/targets.json" <<'EOF_PY' || fail "the subproject built more than its library"
import json, sys
targets = json.load(open(sys.argv[1]))
names = sorted(t["name"] for t in targets if t["subproject"] == "pmcbench")
extra = [t["name"] for t in targets if t["subproject"] == "pmcbench" and t["type"] == "executable"]
assert not extra, "executables: %s" % extra
assert "pmcbench" in names and all(not n.startswith("test_") for n in names), names
EOF_PY
	$MESON introspect --tests "$parent/build" >"$tmp/tests.json"
	python3 -c 'import json, sys; t = json.load(open(sys.argv[1])); sys.exit(len(t) > 0)' \
		"$tmp/tests.json" || { cat "$tmp/tests.json" >&2; fail "the parent runs pmcbench's tests"; }
	# Installed: the parent's program and the library, never the pmcbench command.
	DESTDIR=$tmp/dest $MESON install -C "$parent/build" --no-rebuild --quiet >"$tmp/install.log" 2>&1 ||
		{ cat "$tmp/install.log" >&2; fail "meson install of the parent failed"; }
	[ -z "$(find "$tmp/dest" -name pmcbench -type f)" ] || fail "the parent installs the pmcbench command"
	[ -z "$(find "$tmp/dest" -name 'pmcbench.1')" ] || fail "the parent installs pmcbench's man page"
	echo "ok: dependency('pmcbench') as a subproject: the library only, the parent's benchmarks run"
	;;
cmake)
	builddir=$1 prefix=$2 libdir=$3
	command -v cmake >/dev/null 2>&1 || { echo "SKIP: no cmake"; exit 77; }
	dest=$tmp/dest
	DESTDIR=$dest $MESON install -C "$builddir" --no-rebuild --quiet >"$tmp/install.log" 2>&1 ||
		{ cat "$tmp/install.log" >&2; fail "meson install into $dest failed"; }
	[ -s "$dest$libdir/cmake/pmcbench/pmcbenchConfig.cmake" ] &&
		[ -s "$dest$libdir/cmake/pmcbench/pmcbenchConfigVersion.cmake" ] ||
		fail "meson install did not install $libdir/cmake/pmcbench/pmcbenchConfig.cmake and its version file"
	mkdir "$tmp/proj"
	cp "$tmp/bench.c" "$tmp/proj/"
	cat >"$tmp/proj/CMakeLists.txt" <<'EOF_CM'
cmake_minimum_required(VERSION 3.13)
project(consumer C)
find_package(pmcbench 0.1 REQUIRED)
add_executable(bench bench.c)
target_link_libraries(bench PRIVATE pmcbench::pmcbench)
EOF_CM
	cmake -S "$tmp/proj" -B "$tmp/proj/build" -DCMAKE_PREFIX_PATH="$dest$prefix" \
		-DCMAKE_C_COMPILER="${CC##* }" -DCMAKE_C_FLAGS="${EXTRA_CFLAGS:-}" >"$tmp/cmake.log" 2>&1 ||
		{ cat "$tmp/cmake.log" >&2; fail "cmake does not find pmcbench in $dest$prefix"; }
	cmake --build "$tmp/proj/build" >"$tmp/cmake-build.log" 2>&1 ||
		{ cat "$tmp/cmake-build.log" >&2; fail "the CMake project does not build"; }
	# A version the package does not offer is refused.
	sed -i 's/pmcbench 0.1 REQUIRED/pmcbench 9.0 REQUIRED/' "$tmp/proj/CMakeLists.txt"
	! cmake -S "$tmp/proj" -B "$tmp/proj/build9" -DCMAKE_PREFIX_PATH="$dest$prefix" \
		>"$tmp/cmake9.log" 2>&1 || fail "find_package(pmcbench 9.0) found version 0.1"
	# The build tree's rpath (CMake's default) points into the destdir.
	LD_LIBRARY_PATH="" ldd "$tmp/proj/build/bench" | grep -q "libpmcbench.so.0 => $dest$libdir/" ||
		{ ldd "$tmp/proj/build/bench" >&2; fail "the CMake program does not load libpmcbench from $dest$libdir"; }
	run_bench "$tmp/proj/build/bench"
	echo "ok: find_package(pmcbench) and pmcbench::pmcbench in $dest$prefix"
	;;
*) fail "unknown check; use subproject or cmake" ;;
esac
