#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-reshape-serve: an array a grow was interrupted on (by raid456) is
# assembled by the personality under test, which reads and writes through
# both geometries, also degraded; raid456 then finishes the grow and reads
# the same data (issue 18, build step 1: Documentation/reshape.md
# section 5).
#
#	  r0 r1 r2 +r3     md0  RAID5 3->4, 64K chunk, no backup file
#	                        (32 MiB members, --assume-clean)
#
#   boot 1  raid456: X [0,4M) Y [4M,20M) Z [20M, end-1M) written by fio;
#           add r3, md/sync_max HOLD, grow to 4; wait until the reshape
#           sits at sync_max; stop.  Host: every member's superblock has
#           the reshape in progress.
#   boot 2  PERSONALITY: assemble.  raid5j: a kernel line "reshape
#           interrupted at", reshape_position as boot 1 left it and still
#           there 3 s later, no reshape line in /proc/mdstat, the size the
#           old one.  raid456 (validation): its reshape resumes.  Both: X Y Z
#           verify (Y straddles the position), Y2 written over Y and
#           verified, X Z verify; r1 failed, X Y2 Z verify degraded (blocks
#           of r1 rebuilt from prev- and next-geometry stripes).
#   boot 3  raid456: assemble (r1 stale: left out), the reshape ends
#           (degraded), X Y2 Z verify; r1 added back and rebuilt; 4
#           members, no position, size 3 x component; X Y2 Z verify,
#           check: mismatch_cnt 0.
#
# Disks: 4 x 32 MiB.  Boots: 3.  Timeouts: 200 s a boot (x VM_TIMEOUT_SCALE).

. "$(dirname "$0")/lib.sh"

MEMBERS="r0 r1 r2 r3"
HOLD=8192			# md/sync_max, sectors of each member
vm_disks 32M $MEMBERS

PERSONALITY=raid456 vm_boot --timeout 200 --env HOLD=$HOLD - $MEMBERS <<'EOF' ||
. /test/guest-lib.sh
load_personality
M=1048576
D=/dev/md0
run mdadm --create $D --run --level=5 --chunk=64 --raid-devices=3 \
	--assume-clean $(disks r0 r1 r2)
old=$(blockdev --getsize64 $D)
report old $old
zsize=$(((old / M - 21) * M))
report zsize $zsize
fio_verify X $D --rw=write --bs=64k --iodepth=4 --offset=0 --size=4m
fio_verify Y $D --rw=randwrite --bssplit=4k/30:16k/30:64k/40 --iodepth=8 \
	--offset=4m --size=16m
fio_verify Z $D --rw=write --bs=128k --iodepth=4 --offset=20m --size=$zsize
run mdadm $D --add $(disk r3)
echo $HOLD > /sys/block/md0/md/sync_max || fail "sync_max $HOLD refused"
if ! mdadm --grow $D --raid-devices=4 > /tmp/grow.out 2>&1; then
	cat /tmp/grow.out
	fail "mdadm --grow failed: $(tail -n 2 /tmp/grow.out | tr '\n' ' ')"
fi
# held at sync_max: sync_completed still past half of it for 2 s
t=0 still=0 prev=
while :; do
	c=$(md_sysfs $D sync_completed)
	c=${c%% *}
	if [ "$c" = "$prev" ] && [ "${c:-0}" -ge $((HOLD / 2)) ] 2>/dev/null; then
		still=$((still + 1))
		[ $still -ge 4 ] && break
	else
		still=0
	fi
	prev=$c
	[ $t -ge 240 ] && fail "reshape not held at sync_max $HOLD: sync_completed '$c'"
	sleep 0.5
	t=$((t + 1))
done
pos=$(md_sysfs $D reshape_position)
say "held at sync_completed $c, reshape_position $pos"
[ "$pos" != none ] && [ "$pos" -gt $((8 * M / 512)) ] && [ "$pos" -lt $((20 * M / 512)) ] ||
	fail "reshape_position '$pos' not inside Y (4-20 MiB), where this test needs it"
report pos $pos
run mdadm --stop $D
pass "grow held and stopped under raid456"
EOF
	vm_fail "boot 1 (raid456)"
POS=$(vm_val pos) OLD=$(vm_val old) ZSIZE=$(vm_val zsize)
[ -n "$POS" ] && [ -n "$OLD" ] && [ -n "$ZSIZE" ] || vm_fail "boot 1 reported no position or sizes"
for d in $MEMBERS; do
	p=$(mdadm --examine "$(vm_disk_path "$d")" | sed -n "s/^ *Reshape pos'n : //p")
	[ -n "$p" ] || vm_fail "$d: no reshape in progress in its superblock"
	vm_log "$d: reshape position $p"
done

PERSONALITY=$PERSONALITY vm_boot --timeout 200 --env POS="$POS" \
	--env OLD="$OLD" --env ZSIZE="$ZSIZE" - $MEMBERS <<'EOF' ||
. /test/guest-lib.sh
load_personality
D=/dev/md0
LOGN=$(dmesg | wc -l)
if ! mdadm --assemble $D $(disks r0 r1 r2 r3) > /tmp/asm.out 2>&1; then
	cat /tmp/asm.out
	fail "assembly mid-reshape failed: $(tail -n 2 /tmp/asm.out | tr '\n' ' ')| kernel: $(dmesg | tail -n 3 | tr '\n' ' ')"
fi
check raid5 $D
lines=$(dmesg | tail -n +$((LOGN + 1)))
printf '%s\n' "$lines" | grep 'md/raid:md0: reshape'
if [ "$PERSONALITY" = raid5j ]; then
	printf '%s\n' "$lines" | grep -q "md/raid:md0: reshape interrupted at $POS " ||
		fail "no 'reshape interrupted at $POS' kernel line"
	expect_eq "$(md_sysfs $D reshape_position)" "$POS" "md/reshape_position"
	sleep 3
	expect_eq "$(md_sysfs $D reshape_position)" "$POS" "md/reshape_position 3 s later"
	grep -A3 '^md0 ' /proc/mdstat | grep -q 'reshape =' &&
		fail "raid5j shows a running reshape: $(tr '\n' ' ' < /proc/mdstat)"
	expect_eq "$(blockdev --getsize64 $D)" "$OLD" "size mid-reshape"
	pass "reshape held, array running"
else
	fast_sync
fi
fio_verify X $D --rw=write --bs=64k --iodepth=4 --offset=0 --size=4m --verify_only
fio_verify Y $D --rw=randwrite --bssplit=4k/30:16k/30:64k/40 --iodepth=8 \
	--offset=4m --size=16m --verify_only
fio_verify Z $D --rw=write --bs=128k --iodepth=4 --offset=20m --size=$ZSIZE --verify_only
pass "old data read across the position"
fio_verify Y2 $D --rw=randwrite --bssplit=4k/30:16k/20:64k/30:256k/20 --iodepth=8 \
	--offset=4m --size=16m
fio_verify X $D --rw=write --bs=64k --iodepth=4 --offset=0 --size=4m --verify_only
fio_verify Z $D --rw=write --bs=128k --iodepth=4 --offset=20m --size=$ZSIZE --verify_only
pass "new data written across the position"
run mdadm $D --fail $(disk r1)
check degraded 1 $D
# drop cached stripes: the reads below go to the members
echo 17 > /sys/block/md0/md/stripe_cache_size
echo 256 > /sys/block/md0/md/stripe_cache_size
fio_verify X $D --rw=write --bs=64k --iodepth=4 --offset=0 --size=4m --verify_only
fio_verify Y2 $D --rw=randwrite --bssplit=4k/30:16k/20:64k/30:256k/20 --iodepth=8 \
	--offset=4m --size=16m --verify_only
fio_verify Z $D --rw=write --bs=128k --iodepth=4 --offset=20m --size=$ZSIZE --verify_only
pass "degraded reads across the position"
[ "$PERSONALITY" = raid5j ] &&
	expect_eq "$(md_sysfs $D reshape_position)" "$POS" "md/reshape_position at the end"
run mdadm --stop $D
check dmesg
EOF
	vm_fail "boot 2 ($PERSONALITY)"

PERSONALITY=raid456 vm_boot --timeout 200 --env ZSIZE="$ZSIZE" - $MEMBERS <<'EOF' ||
. /test/guest-lib.sh
load_personality
fast_sync
D=/dev/md0
run mdadm --assemble --run $D $(disks r0 r1 r2 r3)
check raid5 $D
wait_sync $D
expect_eq "$(md_sysfs $D reshape_position)" none "md/reshape_position after the grow"
expect_eq "$(md_sysfs $D raid_disks)" 4 "md/raid_disks"
fio_verify X $D --rw=write --bs=64k --iodepth=4 --offset=0 --size=4m --verify_only
fio_verify Y2 $D --rw=randwrite --bssplit=4k/30:16k/20:64k/30:256k/20 --iodepth=8 \
	--offset=4m --size=16m --verify_only
fio_verify Z $D --rw=write --bs=128k --iodepth=4 --offset=20m --size=$ZSIZE --verify_only
mdadm $D --remove $(disk r1) 2>/dev/null
run mdadm --zero-superblock $(disk r1)
run mdadm $D --add $(disk r1)
wait_sync $D
check state '[4/4] [UUUU]' $D
expect_eq "$(blockdev --getsize64 $D)" $(($(md_sysfs $D component_size) * 3 * 1024)) "size"
fio_verify X $D --rw=write --bs=64k --iodepth=4 --offset=0 --size=4m --verify_only
fio_verify Y2 $D --rw=randwrite --bssplit=4k/30:16k/20:64k/30:256k/20 --iodepth=8 \
	--offset=4m --size=16m --verify_only
fio_verify Z $D --rw=write --bs=128k --iodepth=4 --offset=20m --size=$ZSIZE --verify_only
check mismatch $D
run mdadm --stop $D
pass "raid456 finished the grow, data intact"
check dmesg
EOF
	vm_fail "boot 3 (raid456)"
echo "PASS $VM_TEST"
