#!/bin/sh
# Installs what pmcbench needs to build and test on Debian/Ubuntu. As root it runs
# apt-get; otherwise it prints the exact command to run and fails if anything is missing.
set -eu

# Build: compilers (CI builds with gcc and clang), meson, ninja, the libraries (libsqlite3
# and libpq: the history's two engines, docs/history.md; libdw: DWARF call graphs,
# docs/profile.md).
# Tests: cmocka, postgresql (the server ci/pg-test-server.sh starts for the history's
# tests), valgrind (the simulated-counter backend and its tests), python3 (the
# layer check, the man page, JSON in end-to-end tests), g++ (the public headers as C++),
# man-db (the man page renders), zsh (its completion script is tested). Benchmarks
# (optional peers): linux-perf, hyperfine.
# Test-only: chromium runs the flame graph's script (tests/e2e/flamegraph_browser.sh,
# skipped without it), sudo the CI action's runner-like test (tests/e2e/t_action.sh); as root
# they are installed whenever missing, so CI runs them.
PACKAGES="gcc g++ clang meson ninja-build pkg-config libelf-dev libdw-dev libiberty-dev libjansson-dev libcsv-dev libsqlite3-dev libpq-dev libcmocka-dev valgrind python3 man-db zsh postgresql"
TEST_OPTIONAL="chromium sudo"
OPTIONAL="linux-perf hyperfine"
# The arm64 guest stage (ci/guest/run.sh, docs/testing.md): QEMU's arm64 emulator, the
# cross compiler and cpio; with --guest.
GUEST="qemu-system-arm gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu cpio"
with_optional=no
for arg in "$@"; do
	case $arg in
	--with-optional) with_optional=yes ;;
	--guest) PACKAGES="$PACKAGES $GUEST" ;;
	*) echo "ci/install-deps.sh: unknown argument '$arg'; use --with-optional or --guest" >&2
		exit 2 ;;
	esac
done

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
	echo "run: sudo apt-get update && sudo apt-get install -y$missing$missing_test" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
[ -z "$missing" ] || apt-get install -y -qq --no-install-recommends $missing >/dev/null
if [ -n "$missing_test" ]; then
	apt-get install -y -qq --no-install-recommends $missing_test >/dev/null || \
		echo "ci/install-deps.sh: test packages ($missing_test) not installed; their tests are skipped" >&2
fi
if [ $with_optional = yes ]; then
	apt-get install -y -qq --no-install-recommends $OPTIONAL >/dev/null || \
		echo "ci/install-deps.sh: optional packages ($OPTIONAL) not installed" >&2
fi
