#!/bin/sh
# The arm64 guest stage (docs/testing.md, "Against a real PMU"): cross-builds pmcbench
# and the programs of tests/guest/ for arm64, packs them with their libraries, busybox
# and tests/guest/t_pmu.sh into an initramfs, and boots Debian's arm64 cloud kernel on it
# under qemu-system-aarch64 (TCG, -icount: instructions counted exactly), whose
# armv8_pmuv3 driver is a real kernel PMU driver. The guest's test status is this
# script's exit status.
# Usage: ci/guest/run.sh [BUILDDIR] [CASE...]   (default build-guest-arm64; CASE: run
# only the test_* cases whose name contains it)
# Environment: PMC_GUEST_CACHE (the downloaded packages, kept between runs; default
# ~/.cache/pmcbench-guest), PMC_GUEST_TIMEOUT (seconds, default 900), PMC_GUEST_EXTRA
# (more arm64 programs to put in the guest's PATH, for debugging: space-separated paths).
set -eu
cd "$(dirname "$0")/../.."
src=$(pwd)
builddir=${1:-build-guest-arm64}
[ $# -gt 0 ] && shift
cache=${PMC_GUEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmcbench-guest}
limit=${PMC_GUEST_TIMEOUT:-900}
start=$(date +%s)

sh ci/install-deps.sh --guest
sh ci/guest/fetch.sh "$cache"
sysroot=$cache/sysroot
fetched=$(date +%s)

# The cross build: only what the guest runs (the unit tests are the native builds').
mkdir -p "$builddir"
cross=$builddir/arm64-cross.ini
cat >"$cross.new" <<EOF_INI
[binaries]
c = 'aarch64-linux-gnu-gcc'
ar = 'aarch64-linux-gnu-ar'
strip = 'aarch64-linux-gnu-strip'
objcopy = 'aarch64-linux-gnu-objcopy'
pkgconfig = 'pkg-config'
[built-in options]
c_args = ['--sysroot=$sysroot']
c_link_args = ['--sysroot=$sysroot']
[properties]
sys_root = '$sysroot'
pkg_config_libdir = ['$sysroot/usr/lib/aarch64-linux-gnu/pkgconfig', '$sysroot/usr/share/pkgconfig']
[host_machine]
system = 'linux'
cpu_family = 'aarch64'
cpu = 'aarch64'
endian = 'little'
EOF_INI
if ! cmp -s "$cross.new" "$cross" || [ ! -f "$builddir/build.ninja" ]; then
	mv "$cross.new" "$cross"
	rm -rf "$builddir/meson-private" "$builddir/build.ninja"
	meson setup "$builddir" --cross-file "$cross" -Db_sanitize=none -Dwerror=true >/dev/null
else
	rm -f "$cross.new"
fi
targets="pmcbench tests/guest/pmu-work tests/guest/pmu-work-nop tests/guest/runas tests/guest/pmu-bench"
# shellcheck disable=SC2086 # a list of targets
ninja -C "$builddir" $targets >/dev/null
built=$(date +%s)

# The initramfs: busybox, /init, the programs in /pmc/bin and every shared library they
# need (their DT_NEEDED, followed), at the paths the arm64 loader looks in.
root=$builddir/guest-root
rm -rf "$root"
mkdir -p "$root/bin" "$root/pmc/bin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp" \
	"$root/etc"
cp "$sysroot/bin/busybox" "$root/bin/"
cp ci/guest/init "$root/init"
cp tests/guest/t_pmu.sh "$root/pmc/"
echo "$*" >"$root/pmc/cases"
for f in ${PMC_GUEST_EXTRA:-}; do
	cp "$f" "$root/pmc/bin/"
done
for t in $targets; do
	cp "$builddir/$t" "$root/pmc/bin/"
done
needed() {
	aarch64-linux-gnu-readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
}
find_lib() {
	for d in lib/aarch64-linux-gnu usr/lib/aarch64-linux-gnu lib usr/lib; do
		[ -e "$sysroot/$d/$1" ] && { echo "$d/$1"; return 0; }
	done
	echo "ci/guest/run.sh: $1 not in the sysroot ($sysroot); add its package to ci/guest/fetch.sh" >&2
	return 1
}
todo=$(for f in "$root"/pmc/bin/*; do needed "$f"; done | sort -u)
done_libs=""
while [ -n "$todo" ]; do
	next=""
	for lib in $todo; do
		case " $done_libs " in *" $lib "*) continue ;; esac
		done_libs="$done_libs $lib"
		rel=$(find_lib "$lib")
		mkdir -p "$root/$(dirname "$rel")"
		cp -L "$sysroot/$rel" "$root/$rel"
		next="$next $(needed "$sysroot/$rel")"
	done
	todo=$(echo $next | tr ' ' '\n' | sort -u)
done
cp -L "$sysroot/lib/ld-linux-aarch64.so.1" "$root/lib/"
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet) >"$builddir/initramfs.cpio"
packed=$(date +%s)

kernel=$(ls "$sysroot"/boot/vmlinuz-* | head -n 1)
log=$builddir/guest.log
echo "== arm64 guest: $(basename "$kernel"), log in $log"
# -icount shift=0: one instruction per ns of virtual time, so cycles = instructions and
# every count is exact; -cpu max: the PMU with 64-bit events and user access.
timeout "$limit" qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on -icount shift=0 \
	-smp 1 -m 1024 -nographic -no-reboot -nic none -kernel "$kernel" \
	-initrd "$builddir/initramfs.cpio" \
	-append "console=ttyAMA0 quiet panic=-1 rdinit=/init" </dev/null | tr -d '\r' |
	tee "$log" | grep -v '^\[ *[0-9.]*\] ' || true
end=$(date +%s)
echo "== arm64 guest: fetch $((fetched - start)) s, build $((built - fetched)) s," \
	"pack $((packed - built)) s, boot and tests $((end - packed)) s"
code=$(sed -n 's/^PMC-GUEST-EXIT=\([0-9]*\)$/\1/p' "$log" | tail -n 1)
if [ -z "$code" ]; then
	echo "ci/guest/run.sh: the guest ended without a test status (timeout after $limit s," \
		"or a crash: $log)" >&2
	exit 1
fi
exit "$code"
