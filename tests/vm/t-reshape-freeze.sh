#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-reshape-freeze: a grow frozen between two checkpoints, written across
# the position while frozen, stopped, assembled and finished: every write
# made while frozen must survive the resume (Documentation/reshape.md
# section 5.3a).
#
#	  p0 p1 p2 +p3      md1  RAID5 3->4, 16K chunk, no backup file
#	  (virtio, 32 MiB each, created --assume-clean, no journal)
#
#   boot 1  PERSONALITY: create; A (16-24 MiB) written and verified; the
#           grow starts (held to 1 MB/s); 3 s later `frozen`, before the
#           first 10 s checkpoint: raid5j has copied rows past the
#           position on disk.  B (0-16 MiB, across the position) is
#           written: raid5j serves it at once (its rows behind the
#           copied point go to the new geometry); raid456 holds writes
#           between its last checkpoint and its copy point until the
#           reshape runs again, so there B waits, `idle` lets it go and
#           the array is frozen again.  B verified; stopped.
#   host    every member's superblock shows the reshape in progress.
#   boot 2  PERSONALITY: assemble; the reshape resumes from the position
#           on disk and ends; A and B verify; check mismatch_cnt 0.
#
# What it catches: 6.1's md core puts back, on `frozen` or `idle`, the
# reshape position it read before it interrupted the sync thread.  A
# raid5j that recorded its progress before that and let md core write the
# older position resumed from there after the stop and copied the
# old-geometry rows, still holding the data from before B, over B.
#
# Disks: 4 x 32 MiB.  Boots: 2.  Timeouts: 150 s a boot (x VM_TIMEOUT_SCALE).

. "$(dirname "$0")/lib.sh"

MEMBERS="p0 p1 p2 p3"
vm_disks 32M $MEMBERS

vm_boot --timeout 150 - $MEMBERS <<'EOF' || vm_fail "boot 1 ($PERSONALITY: grow, freeze, write)"
. /test/guest-lib.sh
load_personality
M=1048576
D=/dev/md1
run mdadm --create $D --run --level=5 --chunk=16 --raid-devices=3 \
	--assume-clean $(disks p0 p1 p2)
fio_verify A $D --rw=randwrite --bssplit=4k/50:64k/50 --iodepth=8 \
	--offset=$((16 * M)) --size=8m --io_size=4m
run mdadm $D --add $(disk p3)
echo 1000 > /sys/block/md1/md/sync_speed_max
echo 500 > /sys/block/md1/md/sync_speed_min
if ! mdadm --grow $D --raid-devices=4 > /tmp/grow.out 2>&1; then
	cat /tmp/grow.out
	fail "mdadm --grow failed: $(tail -n 2 /tmp/grow.out | tr '\n' ' ')"
fi
say "$(wait_reshape_line $D)"
sleep 3
echo frozen > /sys/block/md1/md/sync_action
sleep 1
pos=$(md_sysfs $D reshape_position)
[ "$pos" != none ] || fail "the reshape ended before the freeze"
say "frozen: md/reshape_position $pos; $(dmesg | grep -F 'restored by md core' | tail -n 1)"
[ $((pos * 512)) -lt $((16 * M)) ] ||
	fail "the position ($pos) is past B: B would not cross it"
if [ "$PERSONALITY" = raid456 ]; then
	(fio_verify B $D --rw=write --bs=64k --iodepth=4 --size=16m) &
	b=$!
	sleep 3
	kill -0 $b 2>/dev/null && say "raid456: B waits while frozen"
	echo idle > /sys/block/md1/md/sync_action
	wait $b || fail "B failed"
	echo frozen > /sys/block/md1/md/sync_action
else
	fio_verify B $D --rw=write --bs=64k --iodepth=4 --size=16m
fi
say "after B: md/reshape_position $(md_sysfs $D reshape_position), sync_action $(md_sysfs $D sync_action)"
reshaping $D || fail "the reshape ended while B ran: nothing to resume"
run mdadm --stop $D
pass "frozen grow written across the position and stopped"
EOF
for d in $MEMBERS; do
	pos=$(mdadm --examine "$(vm_disk_path "$d")" | sed -n "s/^ *Reshape pos'n : //p")
	[ -n "$pos" ] || vm_fail "$d: no reshape in progress in its superblock"
	echo "$d: reshape position $pos"
done

vm_boot --timeout 150 - $MEMBERS <<'EOF' || vm_fail "boot 2 ($PERSONALITY: resume, verify)"
. /test/guest-lib.sh
load_personality
M=1048576
D=/dev/md1
run mdadm --assemble $D $(disks p0 p1 p2 p3)
say "assembled at md/reshape_position $(md_sysfs $D reshape_position)"
fast_sync
wait_sync $D
expect_eq "$(md_sysfs $D raid_disks)" 4 "md/raid_disks"
expect_eq "$(md_sysfs $D reshape_position)" none "md/reshape_position"
fio_verify B $D --rw=write --bs=64k --iodepth=4 --size=16m --verify_only
fio_verify A $D --rw=randwrite --bssplit=4k/50:64k/50 --iodepth=8 \
	--offset=$((16 * M)) --size=8m --io_size=4m --verify_only
check mismatch $D
run mdadm --stop $D
check dmesg
pass "resumed from the position on disk: A and B intact"
EOF
echo "PASS $VM_TEST: writes made while the grow was frozen survive the stop and the resume"
