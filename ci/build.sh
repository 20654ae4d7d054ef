#!/bin/sh
# Configures and builds pmcbench. Usage: ci/build.sh [plain|sanitize] [BUILDDIR]
set -eu
cd "$(dirname "$0")/.."
kind=${1:-plain}
dir=${2:-build}
case $kind in
plain) opts="" ;;
sanitize) opts="-Db_sanitize=address,undefined -Db_lundef=false" ;;
*) echo "ci/build.sh: unknown build kind '$kind'; use plain or sanitize" >&2; exit 2 ;;
esac
if [ -f "$dir/build.ninja" ]; then
	meson configure "$dir" $opts
else
	meson setup "$dir" $opts
fi
ninja -C "$dir"
