#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-create-assemble: plain mdadm --create / --stop / --assemble, RAID5 then
# RAID4, on the personality under test.
#
#	   d0      d1      d2      d3        virtio, 32 MiB each
#	    \       \      /       /
#	     +-------+----+-------+
#	     |      /dev/md0      |          RAID5 (left-symmetric, 512K chunk),
#	     +--------------------+          then RAID4 on the same disks
#
# Asserts, for each level:
#  - create works; after the initial sync /proc/mdstat shows "active raidN"
#    and "[4/4] [UUUU]", md/level is raidN, the module under test is in use,
#    mdadm --detail says State : clean;
#  - data written by fio before --stop verifies after --assemble, the
#    assembled array is whole and does not resync; a new fio write+verify
#    passes;
#  - no kernel BUG/WARNING/Oops/hung task.
#
# Disks: 4 x 32 MiB.  Boots: 1.  Timeout: 150 s.

. "$(dirname "$0")/lib.sh"

vm_disks 32M d0 d1 d2 d3
vm_boot --timeout 150 - d0 d1 d2 d3 <<'EOF'
. /test/guest-lib.sh
load_personality
fast_sync
D=$(disks d0 d1 d2 d3)

for level in 5 4; do
	log "==== RAID$level"
	run mdadm --create /dev/md0 --run --level=$level --raid-devices=4 $D
	wait_sync /dev/md0
	check raid$level /dev/md0
	check state '[4/4] [UUUU]' /dev/md0
	check clean /dev/md0
	mdadm --detail /dev/md0

	# data that must outlive stop/assemble
	fio_verify before-stop /dev/md0 --rw=write --bs=64k --iodepth=8 --size=24m
	run mdadm --stop /dev/md0
	[ -e /sys/block/md0/md/level ] && fail "md0 still there after --stop"

	run mdadm --assemble /dev/md0 $D
	check raid$level /dev/md0
	check state '[4/4] [UUUU]' /dev/md0
	check nosync
	check clean /dev/md0
	fio_verify before-stop /dev/md0 --rw=write --bs=64k --iodepth=8 --size=24m \
		--verify_only
	fio_verify after-assemble /dev/md0 --rw=randwrite --bs=16k --iodepth=16 \
		--offset=32m --size=16m

	run mdadm --stop /dev/md0
	run mdadm --zero-superblock $D
	pass "t-create-assemble/raid$level"
done
check dmesg
EOF
