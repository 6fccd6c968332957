#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-resync-rmw: a small write at or above the resync point takes its
# parity from the data (reconstruct-write), as raid456 forces there: the
# parity is not made good yet, and a read-modify-write would carry its
# error into the new parity, so a member lost before the resync reaches
# the row would rebuild the block just written wrong.
#
#	d0 d1 d2 d3 d4 d5	RAID5 left-symmetric, 6 x 32 MiB, 64K chunk,
#	                	--assume-clean, no bitmap
#
#  1. created, stopped; the first 4 KiB of chunk stripe 0's parity (raid
#     disk 5) overwritten with random bytes behind md's back;
#  2. assembled (clean: no resync), sync_action frozen, resync_start 0:
#     the whole array is above the resync point;
#  3. one 4 KiB O_DIRECT write at array offset 0 (row 0 of chunk stripe
#     0, data disk 0): rmw would read 2 blocks, rcw 4, so rmw_level 1
#     picks rmw where nothing forces rcw;
#  4. stopped, assembled without d0 (md_mod start_dirty_degraded): the
#     block, rebuilt from the other data and the parity, reads back what
#     was written.
# raid5j before rcw was forced there: the block read back wrong.
#
# Disks: 6 x 32 MiB.  Boots: 1.  ~30 s.

. "$(dirname "$0")/lib.sh"

vm_disks 32M d0 d1 d2 d3 d4 d5
vm_boot --timeout 150 - d0 d1 d2 d3 d4 d5 <<'EOF'
. /test/guest-lib.sh
load_personality
D=$(disks d0 d1 d2 d3 d4 d5)
DA=($D)
MD=/sys/block/md0/md

run mdadm --create /dev/md0 --run --level=5 --layout=left-symmetric \
	--chunk=64 --raid-devices=6 --assume-clean --bitmap=none $D
run mdadm --stop /dev/md0
dof=$(mdadm --examine "${DA[5]}" | sed -n 's/^ *Data Offset : \([0-9]*\) sectors.*/\1/p')
[ -n "$dof" ] || fail "no Data Offset on ${DA[5]}"
dd if=/dev/urandom of="${DA[5]}" bs=512 seek="$dof" count=8 conv=notrunc,fsync \
	2>/dev/null || fail "dd to ${DA[5]} failed"
run mdadm --assemble /dev/md0 $D
echo frozen > $MD/sync_action || fail "cannot freeze md0"
echo 0 > $MD/resync_start || fail "cannot set resync_start"
expect_eq "$(cat $MD/resync_start)" 0 "resync_start"
pass "t-resync-rmw/setup"

dd if=/dev/urandom of=/tmp/blk bs=4096 count=1 2>/dev/null
dd if=/tmp/blk of=/dev/md0 bs=4096 count=1 oflag=direct conv=notrunc \
	2>/dev/null || fail "write to md0 failed"
[ "$PERSONALITY" = raid5j ] &&
	log "raid5j_stats: $(grep -E '^(rmw|rcw)' $MD/raid5j_stats | tr '\n' ' ')"

# read back degraded after a restart, so that nothing comes from the
# stripe cache: the block is rebuilt from the other data and the parity
run mdadm --stop /dev/md0
echo 1 > /sys/module/md_mod/parameters/start_dirty_degraded ||
	fail "cannot set md_mod start_dirty_degraded"
run mdadm --assemble --run /dev/md0 "${DA[1]}" "${DA[2]}" "${DA[3]}" "${DA[4]}" "${DA[5]}"
echo frozen > $MD/sync_action
dd if=/dev/md0 of=/tmp/back bs=4096 count=1 iflag=direct 2>/dev/null ||
	fail "degraded read of md0 failed"
cmp -s /tmp/blk /tmp/back ||
	fail "the block written above the resync point reads back wrong with d0 missing (its parity came from rmw over unsynced parity)"
pass "t-resync-rmw/degraded-read"
run mdadm --stop /dev/md0
check dmesg
pass
EOF
[ $? -eq 0 ] || vm_fail "the guest failed"
exit 0
