#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Record where mainline raid456 puts every block, for tests/unit/test_layout.c.
#
#   host                              VM (Debian's 6.1 kernel, TCG)
#   ----                              --------------------------------------
#   geometry list  --- initramfs -->  for each geometry:
#   r5j-probe (static)                  loop devices over tmpfs files
#                                       mdadm --create (raid456, metadata 1.0)
#                                       r5j-probe fill /dev/md0   (stamps)
#                                       mdadm --stop
#                                       r5j-probe dump members  -> /out
#   table file  <-- virtio disk vda --  cat /out > /dev/vda
#
# Output (default tests/unit/data/raid456-layouts.txt):
#   G <level> <layout> <raid_disks> <chunk_sectors> <component_sectors> <array_sectors>
#   R <chunk stripe> <per member: array chunk number | P | Q> [q=<fnv1a32>]
#   X <level> <layout-name> <raid_disks> <chunk_kib> refused: <mdadm message>
#   A <level> <layout-name> <raid_disks> <chunk_kib> accepted
#
# Usage: tests/vm-gen/gen-raid456-table.sh [-o FILE] [-k KVER] [-q]
#   -q   quick: a handful of geometries (to try the harness)
#
# Needs: qemu-system-x86, mdadm, busybox-static, kmod, cpio, gcc with static
# glibc, linux-image-$KVER; installed with apt-get when missing.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
OUT=$TOP/tests/unit/data/raid456-layouts.txt
KVER=6.1.0-57-amd64
QUICK=0
while getopts "o:k:q" opt; do
	case $opt in
	o) OUT=$(realpath -m "$OPTARG") ;;
	k) KVER=$OPTARG ;;
	q) QUICK=1 ;;
	*) echo "usage: $0 [-o FILE] [-k KVER] [-q]" >&2; exit 2 ;;
	esac
done

need_pkgs=()
command -v qemu-system-x86_64 >/dev/null || need_pkgs+=(qemu-system-x86)
command -v mdadm >/dev/null || need_pkgs+=(mdadm)
dpkg -s busybox-static >/dev/null 2>&1 ||
	need_pkgs+=(busybox-static)
command -v depmod >/dev/null || need_pkgs+=(kmod)
command -v cpio >/dev/null || need_pkgs+=(cpio)
[ -f /usr/lib/x86_64-linux-gnu/libc.a ] || need_pkgs+=(libc6-dev)
[ -e /boot/vmlinuz-$KVER ] || need_pkgs+=(linux-image-$KVER)
if [ ${#need_pkgs[@]} -gt 0 ]; then
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_pkgs[@]}"
fi

WORK=$(mktemp -d /tmp/r5j-gen.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
ROOT=$WORK/root

# --- geometries -------------------------------------------------------------
# Every layout at 4 KiB chunks over every member count (RAID6 from 4); larger
# chunks over a few counts.  Two members (RAID4/5) can't be told apart by
# content (P equals the one data block), so they are only tried.
R5="left-asymmetric right-asymmetric left-symmetric right-symmetric parity-first parity-last"
R6="$R5 ddf-zero-restart ddf-N-restart ddf-N-continue left-asymmetric-6 right-asymmetric-6 left-symmetric-6 right-symmetric-6 parity-first-6"
geoms() {
	local chunk n lay
	if [ "$QUICK" = 1 ]; then
		echo "4 - 3 4 table"
		echo "5 left-symmetric 4 8 table"
		echo "6 left-asymmetric 5 4 table"
		echo "6 ddf-N-restart 5 4 table"
		echo "6 left-symmetric-6 5 4 table"
		echo "5 left-symmetric 4 12 try"
		echo "5 left-symmetric 2 4 try"
		return
	fi
	for n in $(seq 2 16); do
		mode=table; [ "$n" = 2 ] && mode=try
		echo "4 - $n 4 $mode"
		for lay in $R5; do echo "5 $lay $n 4 $mode"; done
	done
	for n in $(seq 4 16); do
		for lay in $R6; do echo "6 $lay $n 4 table"; done
	done
	for chunk in 8 64 512; do
		case $chunk in 8) ns="3 5 8";; 64) ns="4 7 16";; 512) ns="5 6";; esac
		for n in $ns; do
			echo "4 - $n $chunk table"
			for lay in $R5; do echo "5 $lay $n $chunk table"; done
			[ "$n" -ge 4 ] || continue
			for lay in $R6; do echo "6 $lay $n $chunk table"; done
		done
	done
	# What mainline accepts at the edges.
	echo "5 left-symmetric 4 12 try"
	echo "6 left-symmetric 4 12 try"
	echo "5 left-symmetric 4 2 try"
	echo "6 left-symmetric 3 4 try"
	echo "4 - 2 4 try"
}

# --- initramfs --------------------------------------------------------------
mkdir -p "$ROOT"/{bin,sbin,lib,lib64,dev,proc,sys,tmp,run/mdadm,etc}
cp /bin/busybox "$ROOT/bin/busybox"
for app in $("$ROOT/bin/busybox" --list); do
	[ -e "$ROOT/bin/$app" ] || ln -s busybox "$ROOT/bin/$app"
done
cp "$(command -v mdadm)" "$ROOT/sbin/mdadm"
for lib in $(ldd "$(command -v mdadm)" | awk '/=>/ {print $3} /ld-linux/ {print $1}'); do
	mkdir -p "$ROOT$(dirname "$lib")"
	cp -L "$lib" "$ROOT$lib"
done
gcc -O2 -static -Wall -o "$ROOT/bin/r5j-probe" "$HERE/r5j-probe.c"

for mod in raid456 loop virtio_blk virtio_pci; do
	modprobe -S "$KVER" --show-depends "$mod" | awk '$1 == "insmod" {print $2}'
done | sort -u | while read -r ko; do
	mkdir -p "$ROOT$(dirname "$ko")"
	cp "$ko" "$ROOT$ko"
done
cp /lib/modules/"$KVER"/modules.{order,builtin,builtin.modinfo} "$ROOT/lib/modules/$KVER/" 2>/dev/null || true
depmod -b "$ROOT" "$KVER"

geoms > "$ROOT/geoms"
echo "geometries: $(wc -l < "$ROOT/geoms")"

cat > "$ROOT/init" <<'EOF'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs -o size=1800m tmp /tmp
for m in crc32c_generic virtio_pci virtio_blk raid456; do modprobe $m; done
modprobe loop max_loop=20
sleep 1
OUT=/tmp/out
: > $OUT
nr=0
while read level lay n chunk mode; do
	nr=$((nr + 1))
	echo "[$nr] $level $lay $n $chunk $mode" > /dev/console
	rows=$((n + 1))
	size_k=$((rows * chunk))
	devs=""
	i=0
	while [ $i -lt $n ]; do
		dd if=/dev/zero of=/tmp/d$i bs=1k count=0 seek=$((size_k + 1024)) 2>/dev/null
		losetup /dev/loop$i /tmp/d$i
		devs="$devs /dev/loop$i"
		i=$((i + 1))
	done
	layopt=""
	[ "$lay" = - ] || layopt="--layout=$lay"
	if ! msg=$(mdadm --create /dev/md0 --run --assume-clean --metadata=1.0 \
		--bitmap=none --level=$level $layopt --raid-devices=$n \
		--chunk=$chunk --size=$size_k $devs 2>&1) ||
	   [ ! -e /sys/block/md0/md/layout ]; then
		echo "X $level $lay $n $chunk refused: $(echo "$msg" | tr '\n' ' ')" >> $OUT
	elif [ "$mode" = try ]; then
		echo "A $level $lay $n $chunk accepted" >> $OUT
		mdadm --stop /dev/md0 > /dev/null 2>&1
	else
		cs=$((chunk * 2))
		np=1; [ $level = 6 ] && np=2
		layout=$(cat /sys/block/md0/md/layout)
		comp=$(($(cat /sys/block/md0/md/component_size) * 2))
		asz=$(cat /sys/block/md0/size)
		off=$(cat /sys/block/md0/md/dev-loop0/offset)
		r5j-probe fill /dev/md0 $asz
		mdadm --stop /dev/md0 > /dev/null 2>&1
		files=""
		i=0
		while [ $i -lt $n ]; do files="$files /tmp/d$i"; i=$((i + 1)); done
		echo "G $level $layout $n $cs $comp $asz" >> $OUT
		r5j-probe dump $np $cs $rows $off $files >> $OUT 2>/tmp/err ||
			echo "E dump failed: $(cat /tmp/err)" >> $OUT
	fi
	i=0
	while [ $i -lt $n ]; do
		losetup -d /dev/loop$i
		rm -f /tmp/d$i
		i=$((i + 1))
	done
done < /geoms
echo "END" >> $OUT
cat $OUT > /dev/vda
sync
echo "r5j-gen: done" > /dev/console
echo o > /proc/sysrq-trigger
sleep 60
EOF
chmod +x "$ROOT/init"
(cd "$ROOT" && find . | cpio -o -H newc --quiet | gzip -1) > "$WORK/initramfs.gz"

# --- run --------------------------------------------------------------------
truncate -s 64M "$WORK/out.img"
timeout 7200 qemu-system-x86_64 -accel tcg,thread=multi -cpu max -m 2560 -smp 2 \
	-nographic -no-reboot -kernel /boot/vmlinuz-"$KVER" -initrd "$WORK/initramfs.gz" \
	-append "console=ttyS0 quiet panic=-1" \
	-drive file="$WORK/out.img",if=virtio,format=raw,cache=unsafe \
	> "$WORK/console.log" 2>&1 || true
grep -q "r5j-gen: done" "$WORK/console.log" || {
	tail -40 "$WORK/console.log" >&2
	echo "VM run failed" >&2
	exit 1
}

mkdir -p "$(dirname "$OUT")"
{
	echo "# raid456 layout table: generated by tests/vm-gen/gen-raid456-table.sh"
	echo "# kernel $KVER, mdadm $(mdadm --version 2>&1 | awk '{print $3}'), metadata 1.0"
	echo "# G level layout raid_disks chunk_sectors component_sectors array_sectors"
	echo "# R chunk_stripe member0..memberN-1 (array chunk number | P | Q) [q=fnv1a32 of Q blocks]"
	tr -d '\0' < "$WORK/out.img" | sed '/^END$/,$d'
} > "$OUT"
if grep -q '^E ' "$OUT"; then
	grep '^E ' "$OUT" >&2
	exit 1
fi
echo "wrote $OUT: $(grep -c '^G ' "$OUT") geometries"
