#!/bin/sh
# Configures and builds pmcbench. Usage: ci/build.sh [lean|plain|sanitize] [BUILDDIR] [werror]
# lean (the default, README's first command): the pmcbench command and its library only,
# no tests, no benchmark programs (-Dtests=disabled -Dbench=disabled), so it needs only
# ci/install-deps.sh's BUILD_PACKAGES, and a unity build (-Dunity=on: the libraries that
# allow it compiled as one file each; meson.build); plain: everything, tests too, a file at
# a time; sanitize: plain with ASan+UBSan. ci/first-command.sh counts what lean builds.
# The compiler is meson's choice, or $CC (CC=clang ci/build.sh). Warnings are errors
# only when asked for (the third argument, or PMC_WERROR=1): CI asks, a user's build
# with another compiler never fails on a warning.
set -eu
cd "$(dirname "$0")/.."
kind=${1:-lean}
dir=${2:-build}
case $kind in
lean) opts="-Db_sanitize=none -Db_lundef=true -Dtests=disabled -Dbench=disabled -Dunity=on" ;;
plain) opts="-Db_sanitize=none -Db_lundef=true -Dtests=auto -Dbench=auto -Dunity=off" ;;
sanitize) opts="-Db_sanitize=address,undefined -Db_lundef=false -Dtests=auto -Dbench=auto -Dunity=off" ;;
*) echo "ci/build.sh: unknown build kind '$kind'; use lean, plain or sanitize" >&2; exit 2 ;;
esac
werror=false
case ${3:-} in
werror) werror=true ;;
"") ;;
*) echo "ci/build.sh: unknown third argument '$3'; use werror or nothing" >&2; exit 2 ;;
esac
case ${PMC_WERROR:-0} in 1 | true | yes) werror=true ;; esac
opts="$opts -Dwerror=$werror"
if [ -f "$dir/build.ninja" ]; then
	# shellcheck disable=SC2086 # opts is a list of options
	meson configure "$dir" $opts >/dev/null
else
	# shellcheck disable=SC2086
	meson setup "$dir" $opts
fi
# PMC_SETUP_ONLY=1: configured, not built (ci/first-command.sh counts the steps).
case ${PMC_SETUP_ONLY:-0} in 1 | true | yes) exit 0 ;; esac
ninja -C "$dir"
