#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-lvm-raid-reshape: reshapes through dm-raid (lvm2's lvconvert) on an
# LVM RAID5 LV run by raid5j (install_boot_rule), data verified after each.
#
#	   d0     d1     d2     d3     d4     d5    virtio, 64 MiB each, PVs of VG vg
#	    \      \      |      |      /      /
#	     +------+-----+------+-----+------+
#	     | vg/r5  raid5, 3 stripes, 12 MiB |
#	     +---------------------------------+
#
#   1  lvcreate raid5 -i 3, fio writes the LV (crc32c)
#   2  lvconvert --type raid6: a takeover to raid6_ls_6 (a Q image added)
#   3  lvconvert --stripes 4: a reshape adding a stripe (dm-raid's
#      check_reshape / start_reshape), waited for, the LV extended over it
#
# Asserts: each lvconvert succeeds; dm's table has the new type / device
# count; dm-raid does not log "Failed to check/start reshape" (the
# personality refused it); the LV's sync action ends idle; the data
# written in 1 verifies after each step, and the whole grown LV takes
# writes that verify; a check finds no mismatch at the end; no kernel
# BUG/WARNING/Oops/hung task.
# PERSONALITY=raid456 (validation): the same on raid456.
#
# Disks: 6 x 64 MiB.  Boots: 1.  Timeout: 240 s.

. "$(dirname "$0")/lib.sh"

export VM_FILES="${VM_FILES:+$VM_FILES }$R5J_ROOT/tools/boot/raid5j.conf $R5J_ROOT/tools/boot/raid5j-dmraid.conf"
vm_disks 64M d0 d1 d2 d3 d4 d5
vm_boot --timeout 240 - d0 d1 d2 d3 d4 d5 <<'EOF'
. /test/guest-lib.sh
# lvm_q CMD...: run, lvm's "WARNING:" lines reworded (the console scan
# takes them for the kernel's)
lvm_q() {
	local out rc
	log "+ $*"
	out=$("$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed 's/WARNING:/lvm warning:/'
	[ $rc -eq 0 ] || fail "$* exited with $rc"
}
[ "$PERSONALITY" = raid5j ] && install_boot_rule
run /sbin/modprobe dm-raid
fast_sync
lvm_setup
D=$(disks d0 d1 d2 d3 d4 d5)
run pvcreate -y $D
run vgcreate vg $D
run lvcreate -y -Wn --type raid5 -i 3 -I 64k -L 12M -n r5 vg
lv_wait_idle r5
F="--rw=write --bs=64k --iodepth=4 --size=12m"
fio_verify r5 /dev/vg/r5 $F
pass "t-lvm-raid-reshape/created"

run lvconvert -y --type raid6 vg/r5
lv_wait_idle r5
log "$(dmsetup table vg-r5)"
expect_eq "$(dmsetup table vg-r5 | awk '{ print $4 }')" raid6_ls_6 "vg-r5 type after --type raid6"
fio_verify r5 /dev/vg/r5 $F --verify_only
pass "t-lvm-raid-reshape/raid6"

lvm_q lvconvert -y --stripes 4 vg/r5
sleep 1
lv_wait_idle r5
log "$(lvs -a -o name,segtype,stripes,size,sync_percent,raid_sync_action vg)"
log "$(dmsetup table vg-r5)"
dmesg | grep -q "Failed to check/start reshape" &&
	fail "dm-raid: the personality did not start the reshape: $(dmesg | grep -E 'reshape' | tail -n 3 | tr '\n' ' ')"
expect_eq "$(lv_field r5 stripes)" 6 "vg/r5 images after --stripes 4"
fio_verify r5 /dev/vg/r5 $F --verify_only
# the whole LV, grown by the stripe
fio_verify r5all /dev/vg/r5 --rw=write --bs=64k --iodepth=4 --size=$(blockdev --getsize64 /dev/vg/r5)
lv_check r5
run vgchange -an vg
pass "t-lvm-raid-reshape/stripes"
check dmesg
pass
EOF
[ $? -eq 0 ] || vm_fail "the guest failed"
exit 0
