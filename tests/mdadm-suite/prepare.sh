#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side: make the tarball the guest runs mdadm's tests from.
#
#   tests/mdadm-suite/prepare.sh KVER OUT.tar
#
# Contents (all generated, nothing committed):
#   mdadm-VERSION/test, mdadm-VERSION/tests/   from `apt-get source mdadm`
#                                              (fetch-mdadm-source.sh)
#   mdadm-VERSION/tests/05r5-internalbitmap,   edited: mdadm's upstream fix
#                      05r5-bitmapfile         of their racy dirty counts
#   mdadm-VERSION/tests/21raid5cache-write-through
#                                              derived: 21raid5cache with
#                                              journal_mode left write-through
#   helpers/swap_super raid6check test_stripe  built from that source (the
#                                              tests call them; Debian does
#                                              not package them); the tests
#                                              still run the packaged mdadm
#   helpers/mdmon                              the packaged /sbin/mdmon (DDF/IMSM
#                                              tests); the initramfs lacks it
#   modules/linear.ko                          md linear, which the harness's
#                                              initramfs lacks
# Rebuilt only when the mdadm version, this directory or the kernel change.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
die() { echo "mdadm-suite prepare: error: $*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: $0 KVER OUT.tar"
kver=$1 out=$2

src=$("$here/fetch-mdadm-source.sh") || die "cannot fetch the mdadm source"
# md linear left the kernel in 6.8 (Debian's 6.12 has none): then no copy.
linear=$( { modprobe -C /dev/null -S "$kver" --show-depends linear 2>/dev/null || true; } |
	awk '$1 == "insmod" && $2 ~ /\/linear\.ko/ { print $2 }')

key=$( {
	echo "$src $kver $linear"
	cat "$here"/prepare.sh
	stat -c '%n %s %Y' "$src/.fetched" ${linear:+"$linear"} \
		"$(PATH=/usr/sbin:/sbin:$PATH command -v mdmon)"
} | sha256sum | cut -d' ' -f1)
if [ -f "$out" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$key" ]; then
	exit 0
fi
echo "  MDADM-SUITE $out ($(basename "$src"))"

work=$(mktemp -d "$(dirname "$out")/prep.XXXXXX")
trap 'rm -rf "$work"' EXIT

# helpers: plain C against libc, seconds to build; without libudev
build=$work/build
cp -a "$src" "$build"
make -s -C "$build" -j2 swap_super test_stripe raid6check \
	CXFLAGS="-O2 -DNO_LIBUDEV" CWFLAGS="-Wall" > "$work/build.log" 2>&1 || {
	tail -n 20 "$work/build.log" >&2
	die "building mdadm's test helpers failed"
}

tree=$work/tree
base=$(basename "$src")
mkdir -p "$tree/$base" "$tree/helpers" "$tree/modules"
cp -a "$src/test" "$src/tests" "$tree/$base/"
sed 's|^\([[:space:]]*\)echo write-back > /sys/block/md0/md/journal_mode|\1echo write-through > /sys/block/md0/md/journal_mode|' \
	"$src/tests/21raid5cache" > "$tree/$base/tests/21raid5cache-write-through"
if grep -q 'echo write-back' "$tree/$base/tests/21raid5cache-write-through" ||
   ! grep -q 'echo write-through' "$tree/$base/tests/21raid5cache-write-through"; then
	die "21raid5cache changed: cannot derive its write-through variant"
fi
# mdadm's bitmap tests as mdadm fixed them upstream (commit 7664a385,
# mdadm 4.4: "It's not right to compare bitmap bits with a number after io
# comes. Because maybe those bits are already flushed"): the counts taken
# right after the writes (dirty1 >= 400, dirty4 >= 400) race md's bitmap
# daemon, which clears bits a second or two after the writes end, and fail
# under either personality once the VM is slow.  The checks that bits are
# cleared after 4 s (dirty2, dirty5) and stay set while degraded (dirty3)
# stay.  05r5-bitmapfile has the same lines (upstream deleted the test when
# bitmap files were deprecated): the same edit.
for t in 05r5-internalbitmap 05r5-bitmapfile; do
	f=$tree/$base/tests/$t
	sed -i -e 's/^if \[ \$dirty1 -lt 400 -o \$dirty2 -ne 0 \]$/if [ $dirty2 -ne 0 ]/' \
	       -e 's/^if \[ \$dirty4 -lt 400 -o \$dirty5 -ne 0 \]$/if [ $dirty5 -ne 0 ]/' "$f"
	if grep -q -- '-lt 400 -o' "$f" || [ "$(grep -c '^if \[ \$dirty[25] -ne 0 \]$' "$f")" != 2 ]; then
		die "$t changed: cannot apply mdadm's upstream fix of its dirty counts"
	fi
done
# 07changelevels as mdadm fixed it upstream (commit f5b2dddd, 2024: "07changelevels
# fix"; 4.2's test always fails, mdadm's own 07changelevels.broken): no
# "-z 19968" (mdadm 4.2 reserves 1 MiB, so 20000K members are too small)
# and the array sizes 1 MiB a member smaller, a block device test instead
# of testdev, no level and chunk change in one step, no RAID5 -> RAID1
# steps ("It can't work now"), 15 s before each geometry check so a
# reshape cannot end before mdadm's monitor starts.  And the data check
# made real: dotest compares $[textK*1024] bytes, a misspelt testK, i.e.
# none (upstream too).  As 07changelevels-fixed
# (tier reshape); mdadm's own stays as it is.
f=$tree/$base/tests/07changelevels-fixed
sed -e '/^ testdev \$md0 \$1 19968 64 nd$/d' \
    -e 's/^ sleep 0\.5$/ sleep 15/' \
    -e 's/^\(mdadm -CR \$md0 -l1 -n2 -x1 \$dev0 \$dev1 \$dev2\) -z 19968$/\1/' \
    -e 's/^testdev \$md0 1 \$mdsize1a 64$/[ -b $md0 ] || die "$md0 is not a block device."/' \
    -e 's/^mdadm --grow \$md0 -l5 -n3 --chunk 64$/mdadm --grow $md0 -l5 -n3/' \
    -e 's/--array-size 37888$/--array-size 35840/' \
    -e 's/--array-size 18944$/--array-size 17920/' \
    -e 's/--array-size 39936$/--array-size 37888/' \
    -e 's/--array-size 19968$/--array-size 18944/' \
    -e '/^mdadm -G --level=1 \$md0$/,+1d' \
    -e '/^checkgeo md0 raid1 2$/d' \
    -e 's/\$\[textK\*1024\]/$[testK*1024]/' \
	"$src/tests/07changelevels" > "$f"
if grep -Eq 'testdev|19968|--chunk 64$|level=1|raid1 2|textK' "$f" ||
   [ "$(grep -c -- '--array-size' "$f")" != 4 ] || ! grep -q '^ sleep 15$' "$f"; then
	die "07changelevels changed: cannot derive 07changelevels-fixed"
fi
for h in swap_super test_stripe raid6check; do
	install -m 0755 "$build/$h" "$tree/helpers/$h"
done
install -m 0755 "$(PATH=/usr/sbin:/sbin:$PATH command -v mdmon)" "$tree/helpers/mdmon" ||
	die "no mdmon (package mdadm)"
[ -n "$linear" ] && cp "$linear" "$tree/modules/"

mkdir -p "$(dirname "$out")"
(cd "$tree" && tar -cf - .) > "$out.tmp"
mv -f "$out.tmp" "$out"
echo "$key" > "$out.key"
