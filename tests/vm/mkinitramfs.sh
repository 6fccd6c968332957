#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the test VM's base initramfs for a Debian 6.1 kernel:
#
#   tests/vm/mkinitramfs.sh KVER OUT.cpio
#
# Contents: busybox-static (all applets), the host's bash, mdadm, mdmon, fio,
# dmsetup, mkfs.ext4/e2fsck and kmod with every library ldd names, and the
# kernel modules listed below with their dependencies as resolved by
# `modprobe -S KVER --show-depends`, plus depmod's index.
#
# The base holds no test code and no raid5j.ko: those travel in a small
# second cpio made at every boot (see vm_boot in lib.sh) and appended to
# this one, so editing a test or rebuilding the module never rebuilds this.
#
# The result is cached: OUT.key records a digest of every input (this
# script, the path, size and mtime of each binary, library and module);
# nothing is done when it still matches.

set -euo pipefail

die() { echo "mkinitramfs: error: $*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: $0 KVER OUT.cpio"
kver=$1 out=$2
# VM_MODROOT: modules of a kernel not installed on the host (debug lane),
# in VM_MODROOT/lib/modules/KVER; they land in the image's /lib/modules.
modroot=${VM_MODROOT:-}
moddir=$modroot/lib/modules/$kver
[ -d "$moddir/kernel" ] || die "$moddir missing: is linux-image-$kver installed?"

# Programs copied from the host, by name ($PATH lookup).
PROGS=(bash mdadm mdmon fio dmsetup mke2fs mkfs.ext4 e2fsck tune2fs dumpe2fs
       kmod blkid wipefs lvm)
# lvm's commands (lvcreate, pvcreate, ...) are names of the one binary.
LVM_LINKS=(pvcreate pvremove pvs vgcreate vgremove vgchange vgs vgreduce
	   vgextend lvcreate lvremove lvchange lvconvert lvs lvextend)
# Names kmod answers to.
KMOD_LINKS=(modprobe insmod rmmod lsmod modinfo depmod)
# Kernel modules; dependencies come along.  crc32c_generic is named since
# busybox-style loaders ignore softdeps, and libcrc32c needs a crc32c.
MODULES=(virtio_pci virtio_blk virtio_console
	 md-mod raid456 raid0 raid1 raid10 xor raid6_pq
	 async_tx async_memcpy async_xor async_pq async_raid6_recov
	 crc32c_generic crc32c-intel libcrc32c
	 dm-mod dm-flakey dm-log-writes dm-delay dm-snapshot loop null_blk
	 ext4)
# Taken when the kernel has them: md's faulty personality (t-media-errors)
# left the kernel in 6.8, so Debian's 6.12 has none; the debug kernel has
# no dm-raid (LVM RAID: t-lvm-raid*).
OPTIONAL_MODULES=(faulty dm-raid dm-mirror dm-zero)
# Host configuration files worth having.
ETC=(/etc/mke2fs.conf)

progs=()
for p in "${PROGS[@]}"; do
	path=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$p") ||
		die "$p not found on the host (run: make deps)"
	progs+=("$path")
done
busybox=$(PATH=/usr/bin:/bin command -v busybox) || die "busybox-static missing"
ldd "$busybox" >/dev/null 2>&1 &&
	die "$busybox is dynamically linked; install busybox-static"

libs_of() {	# shared objects (and the ELF interpreter) of binaries "$@"
	ldd "$@" 2>/dev/null | awk '
		/=> \// { print $3; next }
		/^\t\/.*\(0x/ { print $1 }' | sort -u
}

kos=$( {
	for m in "${MODULES[@]}"; do
		modprobe -C /dev/null ${modroot:+-d "$modroot"} -S "$kver" --show-depends "$m" ||
			die "module $m not found for $kver"
	done
	for m in "${OPTIONAL_MODULES[@]}"; do
		modprobe -C /dev/null ${modroot:+-d "$modroot"} -S "$kver" --show-depends "$m" 2>/dev/null || true
	done
} | awk '$1 == "insmod" { print $2 }' | awk '!seen[$0]++')

libs=$(libs_of "${progs[@]}")

# Cache key: everything that can change the image.
key=$( {
	sha256sum < "$0"
	echo "$kver ${MODULES[*]}"
	# shellcheck disable=SC2086
	stat -L -c '%n %s %Y' "$busybox" "${progs[@]}" $libs $kos "${ETC[@]}" 2>/dev/null
} | sha256sum | cut -d' ' -f1)
if [ -f "$out" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$key" ]; then
	exit 0
fi

echo "  INITRAMFS $out ($kver)"
mkdir -p "$(dirname "$out")"
root=$(mktemp -d "$(dirname "$out")/root.XXXXXX")
trap 'rm -rf "$root" "$root.cpio"' EXIT

# Merged-/usr layout, as on Debian 12.
mkdir -p "$root"/{usr/bin,usr/sbin,usr/lib,usr/lib64,etc,proc,sys,dev,run,tmp,mnt,root,test}
ln -s usr/bin "$root/bin"
ln -s usr/sbin "$root/sbin"
ln -s usr/lib "$root/lib"
ln -s usr/lib64 "$root/lib64"

# Host path -> path inside the merged-/usr image.
usrpath() {
	case $1 in
	/usr/*) echo "$1" ;;
	/bin/* | /sbin/* | /lib/* | /lib64/*) echo "/usr$1" ;;
	*) echo "$1" ;;
	esac
}

put() {		# copy host file $1 (dereferenced) to the same place in the image
	local dst
	dst=$root$(usrpath "${1#"$modroot"}")
	mkdir -p "$(dirname "$dst")"
	cp -L "$1" "$dst"
}

cp "$busybox" "$root/usr/bin/busybox"
for p in "${progs[@]}"; do
	put "$p"
done
for l in $libs; do
	put "$l"
done
for f in "${ETC[@]}"; do
	[ -f "$f" ] && put "$f"
done
for l in "${KMOD_LINKS[@]}"; do
	ln -sf ../bin/kmod "$root/usr/sbin/$l"
done
for l in "${LVM_LINKS[@]}"; do
	ln -sf lvm "$root/usr/sbin/$l"
done
# lvm2 without udev or dmeventd (the VM has neither); lvm wants its
# run and lock directories.
mkdir -p "$root/etc/lvm" "$root/run/lvm" "$root/run/lock/lvm"
cat > "$root/etc/lvm/lvm.conf" <<'LVMCONF'
devices {
	obtain_device_list_from_udev = 0
	external_device_info_source = "none"
	scan = [ "/dev" ]
}
global {
	use_lvmlockd = 0
	event_activation = 0
}
activation {
	udev_sync = 0
	udev_rules = 0
	monitoring = 0
}
LVMCONF
# Every busybox applet that is not already a real program.
for a in $("$busybox" --list-full); do
	dst=$root$(usrpath "/$a")
	[ -e "$dst" ] || [ -L "$dst" ] || ln -s /usr/bin/busybox "$dst"
done

# Kernel modules and their index.
for ko in $kos; do
	put "$ko"
done
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ -f "$moddir/$f" ] && put "$moddir/$f"
done
depmod -b "$root" "$kver"

# Library cache, so the loader finds everything whatever its defaults.
mkdir -p "$root/etc/ld.so.conf.d"
echo /usr/lib/x86_64-linux-gnu > "$root/etc/ld.so.conf"
for d in "$root"/usr/lib/x86_64-linux-gnu/*/; do
	[ -d "$d" ] && echo "${d#"$root"}" >> "$root/etc/ld.so.conf"
done
ldconfig -r "$root"

echo "root:x:0:0:root:/root:/bin/bash" > "$root/etc/passwd"
echo "root:x:0:" > "$root/etc/group"
mkdir -p "$root/etc/mdadm"
printf 'CREATE owner=root group=root mode=0600\n' > "$root/etc/mdadm/mdadm.conf"

(cd "$root" && find . -mindepth 1 | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0) > "$root.cpio"
mv -f "$root.cpio" "$out"
echo "$key" > "$out.key"
