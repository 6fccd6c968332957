#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-lvm-raid-interop: LVM RAID sets move between raid456 and raid5j (the
# same on-disk format; what installing or removing the modprobe.d rule
# does to a machine's LVs), one boot, the modules swapped between phases.
#
#	   d0     d1     d2     d3     d4        virtio, 64 MiB each, PVs of VG vg
#	    \      \      |      /      /
#	     +------+-----+-----+------+
#	     | vg/r5  raid5, 3 stripes  |        24 MiB
#	     | vg/r6  raid6, 3 stripes  |        24 MiB
#	     +--------------------------+
#
#   A  raid456 (no rule): create, sync, fio writes the first half of each
#   B  the rule installed, modprobe dm-raid (raid5j): activate, A's data
#      verifies, fio writes the second half, check: mismatch 0
#   C  raid5j uninstalled (module and rules), modprobe dm-raid (raid456):
#      activate, all data verifies, check: mismatch 0
#
# Asserts: each phase runs on the module it names (the other one not
# loaded), the data written in every earlier phase verifies, checks find
# no mismatch, no kernel BUG/WARNING/Oops/hung task.
# PERSONALITY=raid456 (validation): B runs on raid456 too.
#
# Disks: 5 x 64 MiB.  Boots: 1.  Timeout: 150 s.

. "$(dirname "$0")/lib.sh"

export VM_FILES="${VM_FILES:+$VM_FILES }$R5J_ROOT/tools/boot/raid5j.conf $R5J_ROOT/tools/boot/raid5j-dmraid.conf"
vm_disks 64M d0 d1 d2 d3 d4
vm_boot --timeout 150 - d0 d1 d2 d3 d4 <<'EOF'
. /test/guest-lib.sh

# phase MOD: load dm-raid on MOD (raid5j: through the rule), the other
# personality not loaded
phase() {
	local other=raid5j
	[ "$1" = raid5j ] && other=raid456
	run /sbin/modprobe dm-raid
	grep -qw "^$1" /proc/modules || fail "modprobe dm-raid did not load $1"
	grep -qw "^$other" /proc/modules && fail "$other is loaded"
	fast_sync
}

# unload: deactivate the VG and unload dm-raid and the personality
unload() {
	run vgchange -an vg
	run rmmod dm_raid
	grep -qw '^raid5j_dmraid' /proc/modules && run rmmod raid5j_dmraid
	grep -qw '^raid5j' /proc/modules && run rmmod raid5j
	grep -qw '^raid456' /proc/modules && run rmmod raid456
	return 0
}

H1="--rw=write --bs=64k --iodepth=8 --size=12m"
H2="--rw=write --bs=64k --iodepth=8 --offset=12m --size=12m"

log "==== A: raid456"
phase raid456
lvm_setup
D=$(disks d0 d1 d2 d3 d4)
run pvcreate -y $D
run vgcreate vg $D
run lvcreate -y -Wn --type raid5 -i 3 -I 64k -L 24M -n r5 vg
run lvcreate -y -Wn --type raid6 -i 3 -I 64k -L 24M -n r6 vg
for lv in r5 r6; do
	lv_wait_idle $lv
	fio_verify h1$lv /dev/vg/$lv $H1
done
unload
pass "t-lvm-raid-interop/created-on-raid456"

log "==== B: $PERSONALITY"
[ "$PERSONALITY" = raid5j ] && install_boot_rule
phase "$PERSONALITY"
run vgchange -ay vg
for lv in r5 r6; do
	lv_wait_idle $lv
	fio_verify h1$lv /dev/vg/$lv $H1 --verify_only
	fio_verify h2$lv /dev/vg/$lv $H2
	lv_check $lv
done
unload
pass "t-lvm-raid-interop/activated-on-$PERSONALITY"

log "==== C: raid456"
# raid5j uninstalled: the rules, raid5j_dmraid.ko (while installed,
# depmod makes dm-raid depend on it) and raid5j.ko
rm -f /etc/modprobe.d/raid5j.conf /etc/modprobe.d/raid5j-dmraid.conf
rm -f "/lib/modules/$(uname -r)/extra/raid5j.ko" "/lib/modules/$(uname -r)/extra/raid5j_dmraid.ko"
run depmod -a
phase raid456
run vgchange -ay vg
for lv in r5 r6; do
	lv_wait_idle $lv
	fio_verify h1$lv /dev/vg/$lv $H1 --verify_only
	fio_verify h2$lv /dev/vg/$lv $H2 --verify_only
	lv_check $lv
done
run vgchange -an vg
pass "t-lvm-raid-interop/back-on-raid456"
check dmesg
pass
EOF
[ $? -eq 0 ] || vm_fail "the guest failed"
exit 0
