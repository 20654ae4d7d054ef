#!/bin/sh
# Installs the host's tools of the arm64 guest stage (ci/guest/run.sh): QEMU's arm64
# system emulator, the cross compiler and cpio. As root it runs apt-get; otherwise it
# prints the command to run and fails if anything is missing.
set -eu
PACKAGES="qemu-system-arm gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu cpio"
missing=""
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -Eq "ok (installed|triggers-pending)" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "ci/guest/install.sh: missing packages:$missing" >&2
	echo "run: sudo apt-get update && sudo apt-get install -y$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086 # a list of package names
apt-get install -y -qq --no-install-recommends $missing >/dev/null
