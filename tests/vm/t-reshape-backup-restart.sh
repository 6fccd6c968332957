#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-reshape-backup-restart: a reshape that needs mdadm's backup file, cut
# by a power cut, then assembled with the backup file
# (Documentation/reshape.md section 2.4): mdadm writes the backed-up
# window back in the old geometry when it is not yet behind the on-disk
# position (Grow_restart()), starts the array and goes on monitoring
# (Grow_continue()); the kernel resumes from reshape_position.
#
#	  b0 b1 b2 b3    md0  RAID5 4 x 32 MiB, 64K chunk -> 128K chunk with
#	                      --backup-file (in place: every step needs the
#	                      backup), reshape held to 3 MB/s
#	  bk             64 MiB ext4 holding the backup file
#	  dump           128 MiB: boot 2 copies md0 here
#
#   boot 1  8 stamp writers for 3 s (t-journal-powercut's writer: every
#           acknowledgement sent to the host at once), then the grow
#           (mdadm suspends the whole array for an in-place reshape with
#           a backup file: no user write can run during it); the power
#           is cut 0.3-1.5 s after the reshape passes 3 MiB of each
#           member.
#   host    every member's superblock shows the reshape in progress,
#           neither at its start nor at its end.
#   boot 2  mdadm --assemble --backup-file: the array starts, the reshape
#           resumes and ends at the 128K chunk, md0 copied to dump,
#           sync_max back to max, check: mismatch_cnt 0.
#   host    "stamp check": every acknowledged block holds its last
#           acknowledged generation or a later one, nothing else is
#           garbage.
#
# raid5j holds such a reshape at sync_max until mdadm's backup covers the
# next window (R7, R8 in reshape.md section 3), so the on-disk position
# always lies inside the backup's windows.  raid456 runs unheld at "max"
# (mdadm 4.2): KNOWN raid456, its restart may scramble the rows it had
# moved past its 10 s checkpoint (Documentation/lab/notes-backup-restart.md 2).
# mdadm 4.2 segfaults after starting the array (548e9b91): said KNOWN.
# WRITE_PERSONALITY / RESTART_PERSONALITY (default PERSONALITY) pick who
# writes and who restarts.  Disks: 4 x 32 MiB + 64 MiB + 128 MiB.
# Boots: 2.  Timeouts: 200 s a boot (x VM_TIMEOUT_SCALE).

. "$(dirname "$0")/lib.sh"

vm_stamp
MEMBERS="b0 b1 b2 b3"
STRIPE_BLOCKS=48		# 3 data members x 64 KiB / 4 KiB
WRITE_PERSONALITY=${WRITE_PERSONALITY:-$PERSONALITY}
RESTART_PERSONALITY=${RESTART_PERSONALITY:-$PERSONALITY}
vm_disks 32M $MEMBERS
vm_disk bk 64M
vm_disk dump 128M
kill_ms=$((300 + RANDOM % 1200))

PERSONALITY=$WRITE_PERSONALITY vm_boot --timeout 200 --kill-mark cut \
	--kill-after "$(printf '%d.%03d' $((kill_ms / 1000)) $((kill_ms % 1000)))" \
	--env STRIPE_BLOCKS=$STRIPE_BLOCKS - $MEMBERS bk <<'EOF' ||
. /test/guest-lib.sh
load_personality
D=/dev/md0
run mkfs.ext4 -q -F "$(disk bk)"
mkdir -p /bk
run mount -t ext4 "$(disk bk)" /bk
run mdadm --create $D --run --level=5 --chunk=64 --raid-devices=4 \
	--assume-clean $(disks b0 b1 b2 b3)
report blocks $(($(blockdev --getsize64 $D) / 4096))
# the data first: mdadm suspends the whole array (suspend_lo 0,
# suspend_hi the end) for all of an in-place reshape with a backup file
blocks=$(($(blockdev --getsize64 $D) / 4096))
/test/stamp write $D $blocks $STRIPE_BLOCKS 8 3 "$R5J_RESULT_PORT" 1000000000 ||
	fail "stamp writers failed"
echo 3000 > /sys/block/md0/md/sync_speed_max
echo 3000 > /sys/block/md0/md/sync_speed_min
if ! mdadm --grow $D --chunk=128 --backup-file=/bk/md0.bak > /tmp/grow.out 2>&1; then
	cat /tmp/grow.out
	fail "mdadm --grow --chunk=128 --backup-file failed under $PERSONALITY: $(tail -n 2 /tmp/grow.out | tr '\n' ' ')| kernel: $(dmesg | tail -n 3 | tr '\n' ' ')"
fi
say "md0: $(wait_reshape_line $D)"
[ -s /bk/md0.bak ] || fail "no backup file written"
# R7 (reshape.md section 3): every step overwrites its own sources, so
# raid5j holds the reshape at sync_max and mdadm's monitor raises it
# window by window; raid456 runs at "max" (mdadm 4.2 wrote it)
sm=$(md_sysfs $D sync_max)
if [ "$PERSONALITY" = raid5j ]; then
	[ "$sm" != max ] || fail "md0: sync_max is max during an in-place reshape: raid5j runs past mdadm's backup"
fi
say "md0: sync_max $sm during the reshape"
# /proc/mdstat's progress (raid456 writes reshape_position only every
# 10 s here, raid5j at every step)
t=0
while :; do
	n=$(mdstat_reshape $D | sed -n 's/.*(\([0-9]*\)\/[0-9]*).*/\1/p')
	[ "${n:-0}" -ge 3072 ] 2>/dev/null && break
	reshaping $D || fail "the reshape ended before 3 MiB of each member"
	[ $t -ge 1200 ] && fail "the reshape did not pass 3 MiB in 60 s: '$(mdstat_reshape $D)'"
	sleep 0.05
	t=$((t + 1))
done
say "md0 at $(mdstat_reshape $D), reshape_position $(md_sysfs $D reshape_position), suspend_lo $(md_sysfs $D suspend_lo) hi $(md_sysfs $D suspend_hi)"
mark cut
sleep 60
fail "the writer ran to its end: the power cut did not come"
EOF
	vm_fail "boot 1 ($WRITE_PERSONALITY)"
[ "$VM_KILLED" = 1 ] || vm_fail "boot 1 was not killed"
blocks=$(vm_val blocks)
[ -n "$blocks" ] || vm_fail "no md0 size"
grep '^A ' "$VM_RESULTS" > "$BUILD/vm-logs/$VM_TEST.acks"
acks=$(wc -l < "$BUILD/vm-logs/$VM_TEST.acks")
[ "$acks" -gt 0 ] || vm_fail "no write acknowledged before the grow"
end=$((blocks * 8))
for d in $MEMBERS; do
	pos=$(mdadm --examine "$(vm_disk_path "$d")" | sed -n "s/^ *Reshape pos'n : \([0-9]*\).*/\1/p")
	if [ -z "$pos" ]; then
		mdadm --examine "$(vm_disk_path "$d")"
		vm_fail "$d: no reshape in progress in its superblock (the cut came after the end)"
	fi
	# --examine gives KiB of the array
	[ "$((pos * 2))" -lt "$end" ] ||
		vm_fail "$d: reshape position $pos KiB at the end of the array"
	echo "$d: reshape position $pos KiB"
done
echo "power cut ${kill_ms} ms after the reshape passed 3 MiB, $acks writes acknowledged before it"

PERSONALITY=$RESTART_PERSONALITY vm_boot --timeout 200 --env BLOCKS="$blocks" \
	- $MEMBERS bk dump <<'EOF' ||
. /test/guest-lib.sh
load_personality
D=/dev/md0
mkdir -p /bk
run mount -t ext4 "$(disk bk)" /bk
[ -s /bk/md0.bak ] || fail "the backup file did not survive the power cut"
rc=0
mdadm -v --assemble $D --backup-file=/bk/md0.bak $(disks b0 b1 b2 b3) > /tmp/asm.out 2>&1 || rc=$?
cat /tmp/asm.out
# mdadm 4.2 restores the backup, starts the array and forks its monitor,
# then the parent reopens the fd it closed and segfaults (fixed upstream
# in 548e9b91, mdadm-4.3; Documentation/lab/notes-backup-restart.md 5): the array and the
# monitor are fine
if [ "$rc" = 139 ] && grep -q '^md0 : active' /proc/mdstat; then
	say "KNOWN (mdadm 4.2, 548e9b91): mdadm --assemble segfaulted after starting md0 and its monitor"
elif [ "$rc" != 0 ]; then
	fail "assembly with the backup file failed under $PERSONALITY (exit $rc): $(tail -n 2 /tmp/asm.out | tr '\n' ' ')| kernel: $(dmesg | tail -n 3 | tr '\n' ' ')"
fi
check raid5 $D
say "md0 assembled: $(tr '\n' ' ' < /proc/mdstat)"
fast_sync
wait_grow_children
wait_sync $D
expect_eq "$(md_sysfs $D reshape_position)" none "md/reshape_position after the resumed reshape"
expect_eq "$(md_sysfs $D chunk_size)" 131072 "md/chunk_size"
expect_eq "$(md_sysfs $D raid_disks)" 4 "md/raid_disks"
sm=$(md_sysfs $D sync_max)
if [ "$sm" != max ]; then
	say "KNOWN (mdadm 4.2, Documentation/lab/notes-syncmax.md 2.4): sync_max left at $sm after the resumed reshape: set to max"
	echo max > /sys/block/md0/md/sync_max
fi
say "md/array_state $(md_sysfs $D array_state)"
dd if=$D of=$(disk dump) bs=4096 count=$BLOCKS iflag=direct 2>/dev/null ||
	fail "copying md0 failed"
sync
check mismatch $D
run mdadm --stop $D
umount /bk
check dmesg
pass "resumed from the backup file"
EOF
	vm_fail "boot 2 ($RESTART_PERSONALITY)"
# raid456 under mdadm 4.2 runs unheld: its on-disk position can be behind
# rows it moved in place, which the restore and the resume then rewrite
if ! vm_stamp_check "$(vm_disk_path dump)" "$blocks" "$BUILD/vm-logs/$VM_TEST.acks" > "$BUILD/vm-logs/$VM_TEST.check" 2>&1; then
	tail -n 1 "$BUILD/vm-logs/$VM_TEST.check"
	[ "$RESTART_PERSONALITY" = raid456 ] ||
		vm_fail "acknowledged data lost or garbage after the resumed reshape"
	echo "KNOWN raid456 (Documentation/lab/notes-backup-restart.md 2): the restart from the backup file lost acknowledged blocks: $(tail -n 1 "$BUILD/vm-logs/$VM_TEST.check")"
	echo "PASS $VM_TEST: reshape with a backup file cut mid-way, resumed from it ($WRITE_PERSONALITY -> $RESTART_PERSONALITY), data lost (KNOWN raid456)"
	exit 0
fi
tail -n 1 "$BUILD/vm-logs/$VM_TEST.check"
echo "PASS $VM_TEST: reshape with a backup file cut mid-way, resumed from it ($WRITE_PERSONALITY -> $RESTART_PERSONALITY), $acks acknowledged writes intact"
