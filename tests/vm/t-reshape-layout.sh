#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-reshape-layout: reshapes that keep the member count
# (Documentation/reshape.md 5.3): mdadm --grow --chunk and --layout of a
# RAID5 under verified I/O, and a layout change stopped mid-way and
# resumed by the other personality.
#
#	  a0 a1 a2 a3      md0  RAID5, 64K chunk, left-symmetric:
#	                        --chunk=128, then --layout=right-asymmetric
#	  b0 b1 b2 b3      md1  RAID5, 64K chunk, left-symmetric:
#	                        --chunk=32 (forwards: data_offset moves
#	                        down), then --layout=left-asymmetric
#	                        (backwards: it moves back up) held at
#	                        sync_max HOLD, stopped
#	  (virtio, 32 MiB each, created --assume-clean; no backup file:
#	  mdadm 4.2 moves data_offset, so md picks the direction)
#
#	boot 1  PERSONALITY: md0: fio writes A (random, 0-24M) and T (the
#	        last 2 MiB); per change: grow (held to 3-6 MB/s), fio passes
#	        over B (random, 24-40M, write and verify, new seed a pass) and
#	        read-verify A while it runs; after it: A, B, T verify.  Then
#	        check, stop.  md1: fio A; --chunk=32 to its end; md/sync_max
#	        HOLD; --layout grow (backwards); wait until it sits at HOLD;
#	        A verifies across the position; 64 KiB written across it
#	        (W1, within 60 s) verify; stop.
#	host    md1's members' superblocks show the reshape in progress.
#	boot 2  INTEROP (default: the other personality): md0 assembles with
#	        128K chunk, right-asymmetric; A B T verify; check.  md1
#	        assembles and the reshape resumes; A verifies while it runs
#	        and after, W1 verifies; layout left-asymmetric; check.
#
# Asserts:
#  - mdadm --grow succeeds (raid5j before this engine: refused "... not
#    supported yet", the boot fails with mdadm's message);
#  - a reshape line in raid456's /proc/mdstat format while it runs; at
#    least one fio pass of B overlapped each reshape and verified;
#  - after each: md/chunk_size and md/layout are the new ones,
#    md/reshape_position none, the array size unchanged; data verifies;
#    mismatch_cnt 0 after check;
#  - md1's layout change runs backwards (md/reshape_direction) and
#    stops with reshape_position strictly inside the array, A
#    verified across it, a write across it completes (a write waiting
#    for a step that sync_max holds back hangs) and verifies; every
#    member's superblock has "Reshape pos'n";
#  - boot 2: the other personality runs both, resumes md1 to its end,
#    every region verifies, mismatch_cnt 0.
#
# Disks: 8 x 32 MiB.  Boots: 2.  Timeouts: 240 s, 200 s (x
# VM_TIMEOUT_SCALE).

. "$(dirname "$0")/lib.sh"

case $PERSONALITY in
raid5j) INTEROP=${INTEROP:-raid456} ;;
*) INTEROP=${INTEROP:-raid5j} ;;
esac
ALL="a0 a1 a2 a3 b0 b1 b2 b3"
HOLD=16384			# md1: sync_max, sectors of each member
vm_disks 32M $ALL

GUEST_DIR=$BUILD/boot/$VM_TEST.guest
mkdir -p "$GUEST_DIR"
cat > "$GUEST_DIR/prelude.sh" <<'EOF'
. /test/guest-lib.sh
load_personality
M=1048576
reg_A() { echo "--rw=randwrite --bssplit=4k/30:16k/30:64k/40 --iodepth=8 --offset=0 --size=24m --io_size=6m"; }
reg_B() { echo "--rw=randwrite --bssplit=4k/40:32k/30:128k/30 --iodepth=8 --offset=24m --size=16m --io_size=3m --randseed=$1"; }
reg_T() { echo "--rw=write --bs=128k --iodepth=4 --offset=$(($1 - 2 * M)) --size=2m"; }
EOF

# ---- boot 1: chunk and layout changes under I/O; one held and stopped ----
g=$(guest 1 <<'EOF'
D=/dev/md0
run mdadm --create $D --run --level=5 --chunk=64 --layout=left-symmetric \
	--raid-devices=4 --assume-clean $(disks a0 a1 a2 a3)
size=$(blockdev --getsize64 $D)
fio_verify A0 $D $(reg_A)
fio_verify T0 $D $(reg_T $size)
echo 6000 > /sys/block/md0/md/sync_speed_max
echo 3000 > /sys/block/md0/md/sync_speed_min
i=0
# change: mdadm option, md/chunk_size and md/layout expected after it
for change in "--chunk=128 131072 2" "--layout=right-asymmetric 131072 1"; do
	set -- $change
	what="md0 $1"
	say "$what (data_offset $(data_offset $(disk a0)))"
	t0=$(cut -d' ' -f1 /proc/uptime)
	if ! mdadm --grow $D $1 > /tmp/grow.out 2>&1; then
		cat /tmp/grow.out
		fail "$what: mdadm --grow failed under $PERSONALITY: $(tail -n 2 /tmp/grow.out | tr '\n' ' ')| kernel: $(dmesg | tail -n 3 | tr '\n' ' ')"
	fi
	cat /tmp/grow.out
	say "  $(wait_reshape_line $D)"
	fio_over_reshape "$what" $D 0 $i
	i=$seed n=$npass
	say "  reshape done in $(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.1f", b - a }') s; $n fio passes of B, $moved during it; data_offset now $(data_offset $(disk a0))"
	expect_eq "$(md_sysfs $D chunk_size)" $2 "$what md/chunk_size"
	expect_eq "$(md_sysfs $D layout)" $3 "$what md/layout"
	expect_eq "$(md_sysfs $D reshape_position)" none "$what md/reshape_position"
	expect_eq "$(blockdev --getsize64 $D)" $size "$what array size"
	check raid5 $D
	check nosync
	fio_verify A0 $D $(reg_A) --verify_only
	fio_verify B0 $D $(reg_B $i) --verify_only
	fio_verify T0 $D $(reg_T $size) --verify_only
	pass "$what"
done
check mismatch $D
report md0 "$size $i"
run mdadm --stop $D

D=/dev/md1
run mdadm --create $D --run --level=5 --chunk=64 --layout=left-symmetric \
	--raid-devices=4 --assume-clean $(disks b0 b1 b2 b3)
fio_verify A1 $D $(reg_A)
# a first change moves data_offset down (forwards): the held one goes back up
run mdadm --grow $D --chunk=32
wait_grow_children
wait_sync $D
expect_eq "$(md_sysfs $D chunk_size)" 32768 "md1 --chunk=32 md/chunk_size"
fio_verify A1 $D $(reg_A) --verify_only
echo $HOLD > /sys/block/md1/md/sync_max || fail "md1: sync_max $HOLD refused"
if ! mdadm --grow $D --layout=left-asymmetric > /tmp/grow.out 2>&1; then
	cat /tmp/grow.out
	fail "md1: mdadm --grow failed under $PERSONALITY: $(tail -n 2 /tmp/grow.out | tr '\n' ' ')| kernel: $(dmesg | tail -n 3 | tr '\n' ' ')"
fi
say "md1: $(wait_reshape_line $D)"
wait_reshape_held $D $HOLD
pos=$(md_sysfs $D reshape_position)
say "md1: held at sync_completed $c (sync_max $HOLD), reshape_position $pos, direction $(md_sysfs $D reshape_direction)"
[ "$c" -le $HOLD ] || fail "md1: reshape went past sync_max: $c"
expect_eq "$(md_sysfs $D reshape_direction)" backwards "md1 md/reshape_direction"
[ "$pos" != none ] && [ "$pos" -gt 0 ] && [ "$pos" -lt $((size / 512)) ] ||
	fail "md1: reshape_position '$pos' not inside the array"
reshaping $D || fail "md1: the reshape is no longer running"
fio_verify A1 $D $(reg_A) --verify_only
# a write across the held position (both geometries, nothing in flight
# between the on-disk position and the progress) must not wait for a step
timeout 60 fio --name=W1 --filename=$D --rw=write --bs=64k --iodepth=1 \
	--ioengine=libaio --direct=1 --offset=$(((pos - 64) * 512)) --size=64k \
	--verify=crc32c --verify_fatal=1 --do_verify=1 > /tmp/w1.out 2>&1 ||
	fail "md1: a write across the held position did not complete in 60 s: $(tail -n 3 /tmp/w1.out | tr '\n' ' ')"
report md1pos $pos
run mdadm --stop $D
wait_grow_children
pass "md1 layout change stopped mid-way at $pos"
check dmesg
EOF
)
vm_boot --timeout 240 --env HOLD=$HOLD "$g" $ALL || vm_fail "boot 1 ($PERSONALITY)"
B1=$VM_BOOT_SECS
facts=$(vm_val md0)
[ -n "$facts" ] || vm_fail "boot 1 reported nothing for md0"
for d in b0 b1 b2 b3; do
	pos=$(mdadm --examine "$(vm_disk_path $d)" | sed -n "s/^ *Reshape pos'n : //p")
	[ -n "$pos" ] || vm_fail "$d: no reshape in progress in its superblock"
	echo "$d: reshape position $pos"
done

# ---- boot 2: the other personality reads md0, resumes md1 ----------------
g=$(guest 2 <<'EOF'
set -- $FACTS
size=$1 passes=$2
D=/dev/md0
run mdadm --assemble $D $(disks a0 a1 a2 a3)
check raid5 $D
check nosync
expect_eq "$(md_sysfs $D chunk_size)" 131072 "md0 md/chunk_size"
expect_eq "$(md_sysfs $D layout)" 1 "md0 md/layout"
expect_eq "$(blockdev --getsize64 $D)" $size "md0 size"
fio_verify A0 $D $(reg_A) --verify_only
fio_verify B0 $D $(reg_B $passes) --verify_only
fio_verify T0 $D $(reg_T $size) --verify_only
check mismatch $D
pass "md0 (reshaped by $CHANGED_BY) read by $PERSONALITY"
run mdadm --stop $D

D=/dev/md1
echo 3000 > /proc/sys/dev/raid/speed_limit_max
echo 1000 > /proc/sys/dev/raid/speed_limit_min
if ! mdadm --assemble $D $(disks b0 b1 b2 b3) > /tmp/asm.out 2>&1; then
	cat /tmp/asm.out
	fail "md1 (stopped mid-reshape): assembly failed under $PERSONALITY: $(tail -n 2 /tmp/asm.out | tr '\n' ' ')| kernel: $(dmesg | tail -n 3 | tr '\n' ' ')"
fi
cat /tmp/asm.out
check raid5 $D
say "md1 resumed: $(wait_reshape_line $D)"
fio_verify A1 $D $(reg_A) --verify_only
fio --name=W1 --filename=$D --rw=write --bs=64k --iodepth=1 --ioengine=libaio \
	--direct=1 --offset=$(((POS1 - 64) * 512)) --size=64k --verify=crc32c --verify_fatal=1 \
	--verify_only > /tmp/w1.out 2>&1 ||
	fail "md1: W1 (written across the held position) does not verify: $(tail -n 3 /tmp/w1.out | tr '\n' ' ')"
reshaping $D || log "md1: the reshape ended during the verify"
wait_grow_children
wait_sync $D
expect_eq "$(md_sysfs $D reshape_position)" none "md1 md/reshape_position"
expect_eq "$(md_sysfs $D layout)" 0 "md1 md/layout"
expect_eq "$(md_sysfs $D chunk_size)" 32768 "md1 md/chunk_size"
fio_verify A1 $D $(reg_A) --verify_only
check mismatch $D
pass "md1 (stopped by $CHANGED_BY) resumed and finished by $PERSONALITY"
run mdadm --stop $D
check dmesg
EOF
)
PERSONALITY=$INTEROP vm_boot --timeout 200 --env FACTS="$facts" \
	--env POS1="$(vm_val md1pos)" \
	--env CHANGED_BY="$PERSONALITY" "$g" $ALL ||
	vm_fail "boot 2 ($INTEROP)"
echo "boot times: ${B1}s ($PERSONALITY) ${VM_BOOT_SECS}s ($INTEROP)"
echo "PASS $VM_TEST"
