#!/bin/sh
# Downloads the arm64 Debian packages the guest stage needs (ci/guest/run.sh): the cloud
# kernel, busybox, and pmcbench's libraries with their -dev files for the cross build.
# They are unpacked into a sysroot with dpkg-deb -x; nothing is installed on the host and
# its apt configuration is untouched: apt runs with its own lists, cache and status under
# CACHE, reading the host's sources (the same mirror the host uses) for arm64.
# Usage: ci/guest/fetch.sh CACHE   (prints nothing when CACHE is complete already)
set -eu
cache=${1:?usage: ci/guest/fetch.sh CACHE}
# The packages, by the name apt resolves (the kernel's metapackage names the current
# image). Runtime libraries come with their -dev packages' dependencies.
PACKAGES="linux-image-cloud-arm64 busybox-static libc6 libc6-dev libgcc-s1 libstdc++6
libelf1 libelf-dev libdw1 libdw-dev libjansson4 libjansson-dev libcsv3 libcsv-dev
libiberty-dev libsqlite3-0 libsqlite3-dev libpq5 libpq-dev libcmocka0 libcmocka-dev
zlib1g zlib1g-dev liblzma5 liblzma-dev libbz2-1.0 libbz2-dev libzstd1 libzstd-dev
libssl3 libssl-dev libgssapi-krb5-2 libkrb5-3 libk5crypto3 libkrb5support0 libkeyutils1 libcom-err2
libldap-2.5-0 libsasl2-2 libgnutls30 libidn2-0 libunistring2 libtasn1-6 libnettle8
libhogweed6 libgmp10 libp11-kit0 libffi8 libcrypt1 linux-libc-dev"
stamp=$cache/fetched
want=$(echo $PACKAGES | tr ' ' '\n' | sort | tr '\n' ' ')
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	exit 0
fi
# The cache is ours, not _apt's: apt downloads as the user running this (no sandbox
# user, whose access to the cache it would warn about on every file).
apt_dir=$cache/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$cache/debs" "$cache/sysroot"
: >"$apt_dir/status"
set -- -o APT::Architecture=arm64 -o APT::Architectures=arm64 \
	-o Dir::State="$apt_dir" -o Dir::State::Lists="$apt_dir/lists" \
	-o Dir::State::status="$apt_dir/status" -o Dir::Cache="$apt_dir" \
	-o Debug::NoLocking=1 -o APT::Sandbox::User="$(id -un)" -qq
apt-get "$@" update
# Each package's name as apt resolves it today (the metapackage's image, one version).
kernel=$(apt-cache "$@" depends linux-image-cloud-arm64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
[ -n "$kernel" ] || { echo "ci/guest/fetch.sh: no linux-image for linux-image-cloud-arm64" >&2; exit 1; }
cd "$cache/debs"
rm -f ./*.deb
# shellcheck disable=SC2086 # a list of package names
apt-get "$@" download $(echo $PACKAGES | sed 's/linux-image-cloud-arm64//') "$kernel"
rm -rf "$cache/sysroot"
mkdir -p "$cache/sysroot"
for deb in ./*.deb; do
	dpkg-deb -x "$deb" "$cache/sysroot"
done
# Absolute symlinks of the -dev packages (libfoo.so -> /lib/...) point into the host;
# make them relative to the sysroot so the cross linker finds the arm64 objects.
find "$cache/sysroot" -type l | while read -r link; do
	target=$(readlink "$link")
	case $target in
	/*) ln -sf "$cache/sysroot$target" "$link" ;;
	esac
done
echo "$want" >"$stamp"
