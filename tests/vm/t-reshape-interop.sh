#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-reshape-interop: a grow stopped mid-way and a grow cut by a power cut,
# both resumed by the other personality; the data verified
# (Documentation/reshape.md section 7).
#
#	  i0 i1 i2 +i3     md0  RAID5 3->4, 64K chunk, no backup file
#	                        (mdadm moves data_offset): sync_max held at
#	                        8 MiB of each member, then mdadm --stop
#	  p0 p1 p2 +p3     md1  RAID5 3->4, 16K chunk, no backup file:
#	                        8 stamp writers, qemu SIGKILLed mid-reshape
#	  dump             128 MiB: boot 2 copies md1's old extent here
#	  (members virtio, 32 MiB each, created --assume-clean)
#
# Each leg:
#   boot 1  WRITE personality: md0: fio A (random, 0-16M) and T (the last
#           2 MiB of the old size), add i3, md/sync_max 16384, grow; wait
#           until the reshape sits at sync_max; A verifies across the
#           position; stop.  md1: add p3, grow held to 1-2 MB/s, "stamp
#           write" (t-journal-powercut's writer: every acknowledgement to
#           the host at once); the power is cut 2-5 s into the writes.
#   host    every member's superblock shows the reshape in progress.
#   boot 2  RESTART personality: assemble md0: the reshape resumes
#           (reshape line in /proc/mdstat); A verifies and B is written
#           while it runs; it ends: 4 members, size 3 x component, A B T
#           verify, C written in the new space, check 0.  Assemble md1:
#           the reshape resumes and ends, 4 members; its old extent is
#           copied to the dump disk; check 0.
#   host    "stamp check": every acknowledged block holds its last
#           acknowledged generation or a later one, nothing else is
#           garbage.
#
# Legs: WRITE_PERSONALITY -> RESTART_PERSONALITY when either is set
# (unset: PERSONALITY); else two legs, raid456 -> PERSONALITY and
# PERSONALITY -> raid456.  PERSONALITY=raid456 (validation): raid456 on
# both sides, twice.  raid5j before the reshape engine: the raid456 ->
# raid5j leg fails at boot 2 (assembly of md0 refused mid-reshape), the
# raid5j -> raid456 leg at boot 1 (mdadm --grow refused).
#
# Disks: 8 x 32 MiB + 128 MiB.  Boots: 2 a leg.  Timeouts: 200 s a boot
# (x VM_TIMEOUT_SCALE).

. "$(dirname "$0")/lib.sh"

vm_stamp
MEMBERS="i0 i1 i2 i3 p0 p1 p2 p3"
STRIPE_BLOCKS=8			# md1: 2 data members x 16 KiB / 4 KiB
HOLD=16384			# md0: sync_max, sectors of each member

# leg N WRITER RESTARTER
leg() {
	local n=$1 wp=$2 rp=$3 kill_ms blocks acks what="leg $1 ($2 -> $3)"
	vm_disks 32M $MEMBERS
	vm_disk dump 128M
	kill_ms=$((2000 + RANDOM % 3000))

	PERSONALITY=$wp vm_boot --timeout 200 --kill-mark writing \
		--kill-after "$(printf '%d.%03d' $((kill_ms / 1000)) $((kill_ms % 1000)))" \
		--env HOLD=$HOLD --env STRIPE_BLOCKS=$STRIPE_BLOCKS \
		--env GEN_BASE=$((n * 1000000000)) - $MEMBERS <<'EOF' ||
. /test/guest-lib.sh
load_personality
M=1048576
D=/dev/md0
run mdadm --create $D --run --level=5 --chunk=64 --raid-devices=3 \
	--assume-clean $(disks i0 i1 i2)
old=$(blockdev --getsize64 $D)
report old0 $old
fio_verify A $D --rw=randwrite --bssplit=4k/30:16k/30:64k/40 --iodepth=8 \
	--offset=0 --size=16m --io_size=6m
fio_verify T $D --rw=write --bs=128k --iodepth=4 --offset=$((old - 2 * M)) --size=2m
run mdadm $D --add $(disk i3)
echo $HOLD > /sys/block/md0/md/sync_max || fail "md0: sync_max $HOLD refused"
if ! mdadm --grow $D --raid-devices=4 > /tmp/grow.out 2>&1; then
	cat /tmp/grow.out
	fail "md0: mdadm --grow failed under $PERSONALITY: $(tail -n 2 /tmp/grow.out | tr '\n' ' ')| kernel: $(dmesg | tail -n 3 | tr '\n' ' ')"
fi
say "md0: $(wait_reshape_line $D)"
wait_reshape_held $D $HOLD
pos=$(md_sysfs $D reshape_position)
say "md0: held at sync_completed $c (sync_max $HOLD), reshape_position $pos"
[ "$c" -le $HOLD ] || fail "md0: reshape went past sync_max: $c"
[ "$pos" != none ] && [ "$pos" -gt 0 ] && [ "$pos" -lt $((old / 512)) ] ||
	fail "md0: reshape_position '$pos' not inside the array"
reshaping $D || fail "md0: the reshape is no longer running"
fio_verify A $D --rw=randwrite --bssplit=4k/30:16k/30:64k/40 --iodepth=8 \
	--offset=0 --size=16m --io_size=6m --verify_only
run mdadm --stop $D
pass "md0 grow stopped mid-way"

D=/dev/md1
run mdadm --create $D --run --level=5 --chunk=16 --raid-devices=3 \
	--assume-clean $(disks p0 p1 p2)
report blocks $(($(blockdev --getsize64 $D) / 4096))
run mdadm $D --add $(disk p3)
echo 2000 > /sys/block/md1/md/sync_speed_max
echo 1000 > /sys/block/md1/md/sync_speed_min
if ! mdadm --grow $D --raid-devices=4 > /tmp/grow.out 2>&1; then
	cat /tmp/grow.out
	fail "md1: mdadm --grow failed under $PERSONALITY: $(tail -n 2 /tmp/grow.out | tr '\n' ' ')| kernel: $(dmesg | tail -n 3 | tr '\n' ' ')"
fi
say "md1: $(wait_reshape_line $D)"
blocks=$(($(blockdev --getsize64 $D) / 4096))
mark writing
/test/stamp write $D $blocks $STRIPE_BLOCKS 8 60 "$R5J_RESULT_PORT" "$GEN_BASE"
fail "the writer ran to its end: the power cut did not come"
EOF
		vm_fail "$what: boot 1 ($wp)"
	[ "$VM_KILLED" = 1 ] || vm_fail "$what: boot 1 was not killed"
	blocks=$(vm_val blocks)
	[ -n "$blocks" ] || vm_fail "$what: no md1 size"
	grep '^A ' "$VM_RESULTS" > "$BUILD/vm-logs/$VM_TEST.leg$n.acks"
	acks=$(wc -l < "$BUILD/vm-logs/$VM_TEST.leg$n.acks")
	[ "$acks" -gt 0 ] || vm_fail "$what: no write acknowledged before the power cut"
	local d pos
	for d in $MEMBERS; do
		pos=$(mdadm --examine "$(vm_disk_path "$d")" | sed -n "s/^ *Reshape pos'n : //p")
		[ -n "$pos" ] || vm_fail "$what: $d: no reshape in progress in its superblock"
		echo "$what: $d: reshape position $pos"
	done
	echo "$what: power cut ${kill_ms} ms into the writes, $acks writes acknowledged"

	PERSONALITY=$rp vm_boot --timeout 200 --env OLD0="$(vm_val old0)" \
		--env BLOCKS="$blocks" - $MEMBERS dump <<'EOF' ||
. /test/guest-lib.sh
load_personality
M=1048576
D=/dev/md0
# slow, so that the I/O below meets the resumed reshape
echo 1200 > /proc/sys/dev/raid/speed_limit_max
echo 800 > /proc/sys/dev/raid/speed_limit_min
if ! mdadm --assemble $D $(disks i0 i1 i2 i3) > /tmp/asm.out 2>&1; then
	cat /tmp/asm.out
	fail "md0 (stopped mid-reshape): assembly failed under $PERSONALITY: $(tail -n 2 /tmp/asm.out | tr '\n' ' ')| kernel: $(dmesg | tail -n 3 | tr '\n' ' ')"
fi
cat /tmp/asm.out
check raid5 $D
say "md0 resumed: $(wait_reshape_line $D)"
fio_verify A $D --rw=randwrite --bssplit=4k/30:16k/30:64k/40 --iodepth=8 \
	--offset=0 --size=16m --io_size=6m --verify_only
fio_verify B $D --rw=randwrite --bssplit=4k/40:32k/30:128k/30 --iodepth=8 \
	--offset=16m --size=16m --io_size=3m
reshaping $D || fail "md0: the reshape ended before the I/O: no overlap"
fast_sync
wait_sync $D
expect_eq "$(md_sysfs $D raid_disks)" 4 "md0 md/raid_disks"
expect_eq "$(md_sysfs $D reshape_position)" none "md0 md/reshape_position"
expect_eq "$(blockdev --getsize64 $D)" $(($(md_sysfs $D component_size) * 3 * 1024)) "md0 size"
fio_verify A $D --rw=randwrite --bssplit=4k/30:16k/30:64k/40 --iodepth=8 \
	--offset=0 --size=16m --io_size=6m --verify_only
fio_verify B $D --rw=randwrite --bssplit=4k/40:32k/30:128k/30 --iodepth=8 \
	--offset=16m --size=16m --io_size=3m --verify_only
fio_verify T $D --rw=write --bs=128k --iodepth=4 --offset=$((OLD0 - 2 * M)) --size=2m --verify_only
fio_verify C $D --rw=randwrite --bssplit=4k/50:64k/50 --iodepth=8 \
	--offset=$OLD0 --size=8m --io_size=4m
check mismatch $D
run mdadm --stop $D
pass "md0 resumed and verified"

D=/dev/md1
if ! mdadm --assemble $D $(disks p0 p1 p2 p3) > /tmp/asm.out 2>&1; then
	cat /tmp/asm.out
	fail "md1 (power cut mid-reshape): assembly failed under $PERSONALITY: $(tail -n 2 /tmp/asm.out | tr '\n' ' ')| kernel: $(dmesg | tail -n 3 | tr '\n' ' ')"
fi
cat /tmp/asm.out
check raid5 $D
reshaping $D || fail "md1: no reshape after the assembly: $(tr '\n' ' ' < /proc/mdstat)"
say "md1 resumed at reshape_position $(md_sysfs $D reshape_position)"
wait_sync $D
expect_eq "$(md_sysfs $D raid_disks)" 4 "md1 md/raid_disks"
expect_eq "$(md_sysfs $D reshape_position)" none "md1 md/reshape_position"
dd if=$D of=$(disk dump) bs=4096 count=$BLOCKS iflag=direct 2>/dev/null ||
	fail "copying md1 failed"
sync
check mismatch $D
run mdadm --stop $D
pass "md1 resumed"
check dmesg
EOF
		vm_fail "$what: boot 2 ($rp)"
	vm_stamp_check "$(vm_disk_path dump)" "$blocks" "$BUILD/vm-logs/$VM_TEST.leg$n.acks" ||
		vm_fail "$what: acknowledged data lost or garbage after the resumed grow"
	echo "PASS $VM_TEST/$what: stopped and power-cut grows resumed, $acks acknowledged writes intact"
}

if [ -n "${WRITE_PERSONALITY:-}${RESTART_PERSONALITY:-}" ]; then
	leg 1 "${WRITE_PERSONALITY:-$PERSONALITY}" "${RESTART_PERSONALITY:-$PERSONALITY}"
else
	leg 1 raid456 "$PERSONALITY"
	leg 2 "$PERSONALITY" raid456
fi
echo "PASS $VM_TEST"
