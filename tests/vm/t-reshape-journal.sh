#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-reshape-journal: a grow of a journaled RAID5 (write-through journal)
# under verified I/O, cut by a power cut; restarted with a member missing:
# journal replayed, reshape resumed, every acknowledged block verified
# (Documentation/reshape.md section 4, journal.md 16).
#
#	  p0 p1 p2 +p3  jj   md1  RAID5 3->4, 16K chunk, no backup file
#	                          (mdadm moves data_offset), journal jj
#	  dump               128 MiB: boot 3 copies the stamped half here
#	  (members virtio, 32 MiB each, created --assume-clean)
#
#   boot 1  PERSONALITY: create; write-back mode refused while the grow
#           runs (J5); fio A (upper half of the old size) written and
#           verified while the grow (held to 1-2 MB/s) runs; then "stamp
#           write" over the lower half (8 writers, every acknowledgement
#           to the host at once); the power is cut 2-4 s into it.
#   host    every member's superblock shows the reshape in progress.
#   boot 2  raid456: assembling the journaled array mid-reshape is
#           refused ("don't support reshape with journal"; J6).
#   boot 3  raid5j: assemble without p1 (--run, no --force): the journal
#           is replayed in the geometry the on-disk position gives each
#           stripe (J3), the reshape resumes degraded (0.5-1 MB/s);
#           frozen (raid5j goes back to the on-disk position, J2): the
#           stamped half is copied to the dump disk (read through both
#           geometries), A verifies, W written and verified across the
#           position; idle: the reshape resumes; B is written and
#           verified while it runs; it ends: 4 members; the stamped half
#           reads as copied but for W, W verifies; p1 added back and
#           rebuilt; check mismatch_cnt 0; A B W verify.
#   host    "stamp check": every acknowledged block holds its last
#           acknowledged generation or a later one, nothing is garbage.
#   boot 4  raid456 assembles the finished array: A B verify, check 0.
#
# PERSONALITY=raid456 (expected to differ, J6): raid456 refuses the grow
# of a journaled array ("Cannot set device shape"), the array unchanged;
# that is asserted and the scenario ends there.
#
# RESHAPE_JOURNAL_KIND=chunk (t-reshape-journal-chunk): the same with a
# chunk change in place of the grow: md1 is RAID5 over all four members
# from the start, 16K -> 32K chunk, no backup file (mdadm moves
# data_offset); every assertion above with the member count kept.
#
# Disks: 4 x 32 MiB, 16 MiB journal, 128 MiB dump.  Boots: 4 (raid5j),
# 1 (raid456).  Timeouts: 150 s a boot (x VM_TIMEOUT_SCALE).

. "$(dirname "$0")/lib.sh"

vm_stamp
MEMBERS="p0 p1 p2 p3"
KIND=${RESHAPE_JOURNAL_KIND:-grow}
case $KIND in
grow)	STRIPE_BLOCKS=8		# 2 data members x 16 KiB / 4 KiB
	CHUNK_AFTER=16384 ;;
chunk)	STRIPE_BLOCKS=12	# 3 data members x 16 KiB / 4 KiB
	CHUNK_AFTER=32768 ;;
*)	vm_fail "RESHAPE_JOURNAL_KIND must be grow or chunk, not '$KIND'" ;;
esac
vm_disks 32M $MEMBERS
vm_disk jj 16M
vm_disk dump 128M
kill_ms=$((2000 + RANDOM % 2000))

vm_boot --timeout 150 --kill-mark writing \
	--kill-after "$(printf '%d.%03d' $((kill_ms / 1000)) $((kill_ms % 1000)))" \
	--env STRIPE_BLOCKS=$STRIPE_BLOCKS --env KIND=$KIND - $MEMBERS jj <<'EOF' ||
. /test/guest-lib.sh
load_personality
M=1048576
D=/dev/md1
if [ "$KIND" = grow ]; then
	run mdadm --create $D --run --level=5 --chunk=16 --raid-devices=3 \
		--assume-clean --write-journal=$(disk jj) $(disks p0 p1 p2)
	grow="--raid-devices=4"
else
	run mdadm --create $D --run --level=5 --chunk=16 --raid-devices=4 \
		--assume-clean --write-journal=$(disk jj) $(disks p0 p1 p2 p3)
	grow="--chunk=32"
fi
size=$(blockdev --getsize64 $D)
half=$((size / 2 / M * M))
report blocks $((half / 4096))
report half $half
[ "$KIND" = grow ] && run mdadm $D --add $(disk p3)
echo 2000 > /sys/block/md1/md/sync_speed_max
echo 1000 > /sys/block/md1/md/sync_speed_min
if [ "$PERSONALITY" = raid456 ]; then
	# J6: raid456 refuses to reshape an array with a log
	must_fail mdadm --grow $D $grow
	expect_eq "$(md_sysfs $D chunk_size)" 16384 "raid456: md/chunk_size"
	[ "$KIND" = grow ] &&
		expect_eq "$(md_sysfs $D raid_disks)" 3 "raid456: md/raid_disks"
	expect_eq "$(md_sysfs $D reshape_position)" none "raid456: md/reshape_position"
	expect_eq "$(blockdev --getsize64 $D)" "$size" "raid456: size"
	report refused 1
	run mdadm --stop $D
	pass "raid456 refuses the $KIND reshape of a journaled array"
	exit 0
fi
if ! mdadm --grow $D $grow > /tmp/grow.out 2>&1; then
	cat /tmp/grow.out
	fail "mdadm --grow failed: $(tail -n 2 /tmp/grow.out | tr '\n' ' ')| kernel: $(dmesg | tail -n 3 | tr '\n' ' ')"
fi
say "$(wait_reshape_line $D)"
# J5: no write-back while a reshape runs
echo write-back > /sys/block/md1/md/journal_mode 2>/dev/null &&
	fail "journal_mode write-back accepted during the reshape"
grep -q '\[write-through\]' /sys/block/md1/md/journal_mode ||
	fail "journal_mode: $(cat /sys/block/md1/md/journal_mode)"
fio_verify A $D --rw=randwrite --bssplit=4k/40:16k/30:64k/30 --iodepth=8 \
	--offset=$half --size=8m --io_size=4m
reshaping $D || fail "the reshape ended before fio A: no overlap"
say "after A: reshape_position $(md_sysfs $D reshape_position); $(grep -E 'stripes|units|tail_writes' /sys/block/md1/md/journal_stats | tr '\n' ' ')"
mark writing
/test/stamp write $D $((half / 4096)) $STRIPE_BLOCKS 8 60 "$R5J_RESULT_PORT" 1000000000
fail "the writer ran to its end: the power cut did not come"
EOF
	vm_fail "boot 1 ($PERSONALITY)"
if [ "$PERSONALITY" = raid456 ]; then
	[ "$(vm_val refused)" = 1 ] || vm_fail "raid456: no refusal reported"
	echo "PASS $VM_TEST: raid456 refuses the $KIND reshape of a journaled array (J6)"
	exit 0
fi
[ "$VM_KILLED" = 1 ] || vm_fail "boot 1 was not killed"
blocks=$(vm_val blocks)
half=$(vm_val half)
[ -n "$blocks" ] && [ -n "$half" ] || vm_fail "no array size"
grep '^A ' "$VM_RESULTS" > "$BUILD/vm-logs/$VM_TEST.acks"
acks=$(wc -l < "$BUILD/vm-logs/$VM_TEST.acks")
[ "$acks" -gt 0 ] || vm_fail "no write acknowledged before the power cut"
for d in $MEMBERS; do
	pos=$(mdadm --examine "$(vm_disk_path "$d")" | sed -n "s/^ *Reshape pos'n : //p")
	[ -n "$pos" ] || vm_fail "$d: no reshape in progress in its superblock"
	echo "$d: reshape position $pos"
done
echo "power cut ${kill_ms} ms into the writes, $acks writes acknowledged"

PERSONALITY=raid456 vm_boot --timeout 150 - $MEMBERS jj <<'EOF' ||
. /test/guest-lib.sh
load_personality
must_fail mdadm --assemble /dev/md1 $(disks p0 p1 p2 p3) $(disk jj)
dmesg | grep -F "md/raid:md1: don't support reshape with journal" ||
	fail "no raid456 refusal line: $(dmesg | grep md1 | tail -n 3 | tr '\n' ' ')"
mdadm --stop /dev/md1 2>/dev/null
pass "raid456 refuses the journaled array mid-reshape"
EOF
	vm_fail "boot 2 (raid456)"
for d in $MEMBERS; do
	mdadm --examine "$(vm_disk_path "$d")" | grep -q "Reshape pos'n" ||
		vm_fail "$d: raid456's refused assembly changed the superblock"
done

vm_boot --timeout 150 --env HALF="$half" --env BLOCKS="$blocks" \
	--env CHUNK_AFTER=$CHUNK_AFTER - $MEMBERS jj dump <<'EOF' || vm_fail "boot 3 (raid5j: replay and resume)"
. /test/guest-lib.sh
load_personality
M=1048576
D=/dev/md1
run mdadm --assemble --run $D $(disks p0 p2 p3) $(disk jj)
dmesg | grep -E 'md1.*(journal|reshape)' | tail -n 4
dmesg | grep -q 'md/raid:md1: journal: recovered' ||
	fail "no journal recovery line"
reshaping $D || fail "no reshape after the assembly: $(tr '\n' ' ' < /proc/mdstat)"
echo 1000 > /sys/block/md1/md/sync_speed_max
echo 500 > /sys/block/md1/md/sync_speed_min
say "resumed at reshape_position $(md_sysfs $D reshape_position), degraded $(md_sysfs $D degraded)"
# Interrupted (frozen) with a journal: raid5j goes back to the position
# on disk instead of recording one with the log not retired (J2);
# reads and writes across it must complete, and the resumed reshape
# carry the writes.
sleep 2
echo frozen > /sys/block/md1/md/sync_action
sleep 1
pos=$(md_sysfs $D reshape_position)
say "frozen: reshape_position $pos, sync_completed $(md_sysfs $D sync_completed); $(dmesg | grep -F 'back to the position on disk' | tail -n 1)"
[ "$pos" != none ] || fail "the reshape ended before the freeze"
# the stamped half, read through both geometries after the replay
dd if=$D of=$(disk dump) bs=4096 count=$BLOCKS iflag=direct 2>/dev/null ||
	fail "copying the stamped half failed"
sync
fio_verify A $D --rw=randwrite --bssplit=4k/40:16k/30:64k/30 --iodepth=8 \
	--offset=$HALF --size=8m --io_size=4m --verify_only
off=$((pos * 512 / M * M))
[ $off -ge $M ] && off=$((off - M))
W=0
# outside A and B (HALF .. HALF + 16 MiB), inside the array
if [ $((off + 2 * M)) -le $HALF ] ||
   { [ $off -ge $((HALF + 16 * M)) ] &&
     [ $((off + 2 * M)) -le $(blockdev --getsize64 $D) ]; }; then
	W=1
	fio_verify W $D --rw=randwrite --bssplit=4k/50:64k/50 --iodepth=8 \
		--offset=$off --size=2m --io_size=2m
fi
echo idle > /sys/block/md1/md/sync_action
sleep 1
reshaping $D || fail "the reshape did not resume after the freeze"
echo system > /sys/block/md1/md/sync_speed_max
echo system > /sys/block/md1/md/sync_speed_min
fio_verify B $D --rw=randwrite --bssplit=4k/40:32k/30:128k/30 --iodepth=8 \
	--offset=$((HALF + 8 * M)) --size=8m --io_size=3m
reshaping $D || say "the reshape ended during B"
fast_sync
wait_sync $D
expect_eq "$(md_sysfs $D raid_disks)" 4 "md/raid_disks"
expect_eq "$(md_sysfs $D chunk_size)" "$CHUNK_AFTER" "md/chunk_size"
expect_eq "$(md_sysfs $D reshape_position)" none "md/reshape_position"
expect_eq "$(blockdev --getsize64 $D)" $(($(md_sysfs $D component_size) * 3 * 1024)) "size"
# the stamped half as read after the replay, but for W
if [ $W = 1 ] && [ $off -lt $HALF ]; then
	cmp -n $off $(disk dump) $D || fail "stamped half below W changed by the reshape"
	# busybox cmp: FILE1 FILE2 SKIP1 SKIP2
	cmp -n $((HALF - off - 2 * M)) $(disk dump) $D $((off + 2 * M)) $((off + 2 * M)) ||
		fail "stamped half above W changed by the reshape"
else
	cmp -n $HALF $(disk dump) $D || fail "stamped half changed by the reshape"
fi
if [ $W = 1 ]; then
	fio_verify W $D --rw=randwrite --bssplit=4k/50:64k/50 --iodepth=8 \
		--offset=$off --size=2m --io_size=2m --verify_only
	say "W ($off, 2 MiB, written while frozen) verifies"
else
	say "W skipped: the position ($pos) was in A or B"
fi
run mdadm $D --add $(disk p1)
wait_sync $D
check state "[4/4]" $D
check mismatch $D
fio_verify A $D --rw=randwrite --bssplit=4k/40:16k/30:64k/30 --iodepth=8 \
	--offset=$HALF --size=8m --io_size=4m --verify_only
fio_verify B $D --rw=randwrite --bssplit=4k/40:32k/30:128k/30 --iodepth=8 \
	--offset=$((HALF + 8 * M)) --size=8m --io_size=3m --verify_only
if [ $W = 1 ]; then
	fio_verify W $D --rw=randwrite --bssplit=4k/50:64k/50 --iodepth=8 \
		--offset=$off --size=2m --io_size=2m --verify_only
fi
run mdadm --stop $D
check dmesg
pass "replayed, resumed degraded, rebuilt"
EOF
vm_stamp_check "$(vm_disk_path dump)" "$blocks" "$BUILD/vm-logs/$VM_TEST.acks" ||
	vm_fail "acknowledged data lost or garbage after the replay and the resumed grow"

PERSONALITY=raid456 vm_boot --timeout 150 --env HALF="$half" \
	--env CHUNK_AFTER=$CHUNK_AFTER - $MEMBERS jj <<'EOF' || vm_fail "boot 4 (raid456 after the reshape)"
. /test/guest-lib.sh
load_personality
M=1048576
D=/dev/md1
run mdadm --assemble $D $(disks p0 p1 p2 p3) $(disk jj)
expect_eq "$(md_sysfs $D raid_disks)" 4 "raid456: md/raid_disks"
expect_eq "$(md_sysfs $D chunk_size)" "$CHUNK_AFTER" "raid456: md/chunk_size"
fio_verify A $D --rw=randwrite --bssplit=4k/40:16k/30:64k/30 --iodepth=8 \
	--offset=$HALF --size=8m --io_size=4m --verify_only
fio_verify B $D --rw=randwrite --bssplit=4k/40:32k/30:128k/30 --iodepth=8 \
	--offset=$((HALF + 8 * M)) --size=8m --io_size=3m --verify_only
check mismatch $D
run mdadm --stop $D
pass "raid456 assembles the array once the reshape is done"
EOF
echo "PASS $VM_TEST: journaled $KIND reshape cut by a power cut, replayed and resumed degraded, $acks acknowledged writes intact; raid456 refused it mid-reshape, took it after"
