#!/bin/sh
# Installs what pmcbench needs on Debian/Ubuntu. As root it runs apt-get; otherwise it
# prints the exact command to run and fails if anything is missing.
#   ci/install-deps.sh            what building and running pmcbench needs (README's first
#                                 command: BUILD_PACKAGES only)
#   ci/install-deps.sh --tests    and what its tests need (bash ci/test.sh)
#   --with-optional               and the benchmarks' peers; --guest: the arm64 guest stage
#   --list                        prints the packages it would install, one line, and
#                                 exits (ci/first-command.sh counts what they bring)
set -eu

# Building pmcbench and its library (ci/build.sh): C compiler, meson, ninja, the libraries
# meson.build requires (libdw: DWARF call graphs, docs/profile.md; libsqlite3: the
# history's default engine, docs/history.md). One list, which other CI files read: keep it
# one line, and the same as meson.build's required dependencies.
BUILD_PACKAGES="gcc libc6-dev meson ninja-build pkg-config python3 libelf-dev libdw-dev libiberty-dev libjansson-dev libcsv-dev libsqlite3-dev"
# Tests (--tests): clang (CI builds with gcc and clang), g++ (the public headers as C++),
# libpq-dev (the history's PostgreSQL engine, optional in a build) and postgresql (the
# server ci/pg-test-server.sh starts for its tests), cmocka, valgrind (the
# simulated-counter backend and its tests), man-db (the man page renders), zsh (its
# completion script is tested), cmake (find_package(pmcbench), tests/install/),
# libcapstone-dev (report --annotate's disassembler, optional in a build: -Dcapstone),
# clang-format (the sources checked as .clang-format writes them: ci/check-format.sh).
TEST_PACKAGES="g++ clang clang-format libpq-dev libcmocka-dev valgrind man-db zsh postgresql cmake libcapstone-dev"
# Test-only: chromium runs the flame graph's script (tests/e2e/flamegraph_browser.sh,
# skipped without it), sudo the CI action's runner-like test (tests/e2e/t_action.sh); as
# root they are installed whenever missing, so CI runs them.
TEST_OPTIONAL="chromium sudo"
# Benchmarks (optional peers): linux-perf, hyperfine.
OPTIONAL="linux-perf hyperfine"
# The arm64 guest stage (ci/guest/run.sh, docs/testing.md): QEMU's arm64 emulator, the
# cross compiler and cpio; with --guest (which brings the tests' packages too).
GUEST="qemu-system-arm gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu cpio"

PACKAGES=$BUILD_PACKAGES
tests=no
with_optional=no
list=no
for arg in "$@"; do
	case $arg in
	--tests) tests=yes ;;
	--with-optional) with_optional=yes ;;
	--guest) tests=yes; GUEST_WANTED=yes ;;
	--list) list=yes ;;
	*) echo "ci/install-deps.sh: unknown argument '$arg'; use --tests, --with-optional, --guest or --list" >&2
		exit 2 ;;
	esac
done
if [ $tests = yes ]; then
	PACKAGES="$PACKAGES $TEST_PACKAGES"
else
	TEST_OPTIONAL=""
fi
[ -z "${GUEST_WANTED:-}" ] || PACKAGES="$PACKAGES $GUEST"
if [ $list = yes ]; then
	[ $with_optional = no ] && OPTIONAL=""
	# shellcheck disable=SC2086 # lists of packages, printed as one
	echo $PACKAGES $TEST_OPTIONAL $OPTIONAL
	exit 0
fi

missing=""
for p in $PACKAGES; do
	# "installed", or "triggers-pending" (installed, a trigger such as man-db's not run yet).
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -Eq "ok (installed|triggers-pending)" ||
		missing="$missing $p"
done
missing_test=""
for p in $TEST_OPTIONAL; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -Eq "ok (installed|triggers-pending)" ||
		missing_test="$missing_test $p"
done
if [ -z "$missing" ] && [ $with_optional = no ]; then
	[ -z "$missing_test" ] && exit 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "ci/install-deps.sh: test packages missing (their tests are skipped):$missing_test" >&2
		echo "run: sudo apt-get install -y$missing_test" >&2
		exit 0
	fi
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "ci/install-deps.sh: missing packages:$missing$missing_test" >&2
	echo "run: sudo apt-get update && sudo apt-get install -y --no-install-recommends$missing$missing_test" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086 # lists of packages
[ -z "$missing" ] || apt-get install -y -qq --no-install-recommends $missing >/dev/null
if [ -n "$missing_test" ]; then
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing_test >/dev/null || \
		echo "ci/install-deps.sh: test packages ($missing_test) not installed; their tests are skipped" >&2
fi
if [ $with_optional = yes ]; then
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $OPTIONAL >/dev/null || \
		echo "ci/install-deps.sh: optional packages ($OPTIONAL) not installed" >&2
fi
