#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-reshape-powercut: power cuts in the middle of a shrink and of a chunk
# size change, both running backwards; restarted (the second with a member
# missing), resumed, finished, every acknowledged block verified
# (Documentation/reshape.md section 7).
#
#	  a0 a1 a2 a3      md0  RAID5 4 -> 3 after --array-size (no backup
#	                        file: mdadm moves data_offset up, a shrink
#	                        runs backwards), 64K chunk, --size=30M
#	  b0 b1 b2 b3      md1  RAID5 4, --chunk 64K -> 128K (no backup
#	                        file; --size=28M leaves more room after the
#	                        data than before it, so mdadm moves
#	                        data_offset up: backwards)
#	  dump0 dump1      128 MiB: boot 3 copies each array here
#	  (members virtio, 32 MiB each, created --assume-clean)
#
#   boot 1  md0: --array-size to 3 members' worth, fio A0 (the top
#           12 MiB) written and verified; the shrink held to 0.5-1 MB/s;
#           once md/reshape_position is strictly inside the array (a
#           checkpoint was written), 8 "stamp" writers over the rest
#           (every acknowledgement to the host at once); the power is
#           cut 1.5-3 s into the writes, writes in flight.
#   boot 2  md1: fio A1 (the top 12 MiB); --chunk=128 held to 0.5-1 MB/s,
#           backwards; once the position is inside, 3 s of stamp writes
#           across it, all complete; the array marked clean (md's safe
#           mode); the power is cut 0.3-1.3 s later, the reshape's own
#           writes in flight.
#   host    after each cut, every member's superblock has a reshape
#           position strictly between 0 and the array's end (a cut before
#           the first checkpoint or after the end fails here).
#   boot 3  md0: assembled with all members, the reshape resumes (still
#           running after the assembly) and ends: 3 members, a3 a spare,
#           size kept; A0 verifies; the stamped part copied to dump0;
#           check mismatch_cnt 0.  md1: assembled without b1 (--run, no
#           --force: the array was clean), degraded 1, the reshape
#           resumes and ends: chunk 128K; A1 verifies; the stamped part
#           copied to dump1; b1 added and rebuilt; check 0; the stamped
#           part reads as copied, A1 verifies.
#   host    "stamp check" of dump0 and dump1: every acknowledged block
#           holds its last acknowledged generation or a later one, no
#           block is garbage.
#
# Why md1's cut comes with no user write in flight: a RAID5 without a
# journal restarted degraded after a cut during writes has the write hole
# (a stripe whose data and parity disagree rebuilds the missing member's
# block wrong); md refuses that start without --force ("cannot start
# dirty degraded array", t-powercut-nojournal).  What a degraded restart
# must survive is the reshape's own interrupted writes: R1, rows whole
# with parity.  md0 takes the cut with user writes in flight, all members
# present.
#
# PERSONALITY=raid456 (validation): the same, raid456 in every boot;
# md1's stamp check fails there and is said ("KNOWN raid456", see below).
# MD1_MISSING=NAME: the member md1 restarts without (default b1; empty:
# all members, a control).
#
# Disks: 8 x 32 MiB, 2 x 128 MiB (sparse).  Boots: 3.  Timeouts: 150 s a boot
# (x VM_TIMEOUT_SCALE).

. "$(dirname "$0")/lib.sh"

vm_stamp
MD0="a0 a1 a2 a3"
MD1="b0 b1 b2 b3"
# the member md1 restarts without (empty: all members, a control)
MD1_MISSING=${MD1_MISSING-b1}
vm_disks 32M $MD0 $MD1
vm_disks 128M dump0 dump1

GUEST_DIR=$BUILD/boot/$VM_TEST.guest
mkdir -p "$GUEST_DIR"
cat > "$GUEST_DIR/prelude.sh" <<'EOF'
. /test/guest-lib.sh
load_personality
M=1048576
# the top 12 MiB of an array of SIZE bytes, written before the cut
reg_A() { echo "--rw=randwrite --bssplit=4k/30:16k/30:64k/40 --iodepth=8 --offset=$(($1 - 12 * M)) --size=12m --io_size=4m"; }
# start_held DEV WHAT MDADM-ARGS...: slow the reshape (0.5-1 MB/s), start
# it, wait for its mdstat line, then until a checkpoint put the position
# strictly inside the array (30 s at most); sets pos.
start_held() {
	local dev=$1 what=$2 end t=0
	shift 2
	end=$(($(blockdev --getsize64 "$dev") / 512))
	echo 1000 > "/sys/block/$(md_name "$dev")/md/sync_speed_max"
	echo 500 > "/sys/block/$(md_name "$dev")/md/sync_speed_min"
	if ! mdadm --grow "$dev" "$@" > /tmp/grow.out 2>&1; then
		cat /tmp/grow.out
		fail "$what: mdadm --grow $* failed under $PERSONALITY: $(tail -n 2 /tmp/grow.out | tr '\n' ' ')| kernel: $(dmesg | tail -n 3 | tr '\n' ' ')"
	fi
	cat /tmp/grow.out
	say "$what: $(wait_reshape_line "$dev"), direction $(md_sysfs "$dev" reshape_direction)"
	while :; do
		pos=$(md_sysfs "$dev" reshape_position)
		[ "$pos" = none ] && fail "$what: the reshape ended before a checkpoint"
		[ "$pos" -gt 0 ] && [ "$pos" -lt "$end" ] && break
		[ $t -ge 300 ] && fail "$what: no checkpoint inside the array after 30 s: reshape_position $pos"
		sleep 0.1
		t=$((t + 1))
	done
	say "$what: reshape_position $pos of $end after $((t / 10)).$((t % 10)) s"
}
EOF

# mid_reshape WHAT END-KIB DISK...: every member's superblock has a reshape
# position strictly inside the array (mdadm --examine prints KiB)
mid_reshape() {
	local what=$1 end=$2 d pos
	shift 2
	for d in "$@"; do
		pos=$(mdadm --examine "$(vm_disk_path "$d")" | sed -n "s/^ *Reshape pos'n : \([0-9]*\).*/\1/p")
		[ -n "$pos" ] || vm_fail "$what: $d: no reshape in progress in its superblock (the cut came after the end?)"
		[ "$pos" -gt 0 ] && [ "$pos" -lt "$end" ] ||
			vm_fail "$what: $d: reshape position $pos KiB not strictly inside the array (0..$end KiB)"
		echo "$what: $d: reshape position $pos KiB of $end"
	done
}
# power_cut N MARK MIN-MS SPAN-MS WHAT GUEST DISK...: boot GUEST (md N), cut
# the power MIN-MS plus up to SPAN-MS after its mark; the cut must land
# mid-reshape.  Sets size, blocks, acks, kill_ms; the acknowledgements in
# build/vm-logs/<test>.acksN.
power_cut() {
	local n=$1 mark=$2 what=$5 g=$6
	kill_ms=$(($3 + RANDOM % $4))
	shift 6
	vm_boot --timeout 150 --kill-mark "$mark" \
		--kill-after "$(printf '%d.%03d' $((kill_ms / 1000)) $((kill_ms % 1000)))" \
		"$g" "$@" || vm_fail "boot $((n + 1)) ($PERSONALITY): $what"
	[ "$VM_KILLED" = 1 ] || vm_fail "boot $((n + 1)) was not killed"
	size=$(vm_val size)
	blocks=$(vm_val blocks)
	[ -n "$size" ] && [ -n "$blocks" ] || vm_fail "boot $((n + 1)) reported no size"
	grep '^A ' "$VM_RESULTS" > "$BUILD/vm-logs/$VM_TEST.acks$n"
	acks=$(wc -l < "$BUILD/vm-logs/$VM_TEST.acks$n")
	[ "$acks" -gt 0 ] || vm_fail "md$n: no write acknowledged before the power cut"
	mid_reshape "md$n" $((size / 1024)) "$@"
}

# ---- boot 1: a shrink cut with writes in flight ----------------------------
g=$(guest 1 <<'EOF'
D=/dev/md0
run mdadm --create $D --run --level=5 --chunk=64 --raid-devices=4 \
	--size=30M --assume-clean $(disks a0 a1 a2 a3)
run mdadm --grow $D --array-size=$(($(md_sysfs $D component_size) * 2))
size=$(blockdev --getsize64 $D)
report size $size
report blocks $(((size - 12 * M) / 4096))
fio_verify A0 $D $(reg_A $size)
# mdadm 4.2 writes the members' new_offset (up) before raid_disks, and md
# core takes a higher offset only backwards (t-reshape-shrink)
echo backwards > /sys/block/md0/md/reshape_direction
start_held $D "md0 4->3" --raid-devices=3
expect_eq "$(md_sysfs $D reshape_direction)" backwards "md0 md/reshape_direction"
mark writing
# next geometry: 2 data members x 64 KiB = 32 blocks a stripe
/test/stamp write $D $(((size - 12 * M) / 4096)) 32 8 60 "$R5J_RESULT_PORT" 1000000000
fail "the writer ran to its end: the power cut did not come"
EOF
)
power_cut 0 writing 1500 1500 shrink "$g" $MD0
B1=$VM_BOOT_SECS size0=$size blocks0=$blocks acks0=$acks
echo "md0: power cut ${kill_ms} ms into the writes, $acks0 writes acknowledged"

# ---- boot 2: a chunk change cut with the array clean -----------------------
g=$(guest 2 <<'EOF'
D=/dev/md1
run mdadm --create $D --run --level=5 --chunk=64 --raid-devices=4 \
	--size=28M --assume-clean $(disks b0 b1 b2 b3)
size=$(blockdev --getsize64 $D)
report size $size
report blocks $(((size - 12 * M) / 4096))
fio_verify A1 $D $(reg_A $size)
start_held $D "md1 --chunk=128" --chunk=128
expect_eq "$(md_sysfs $D reshape_direction)" backwards "md1 md/reshape_direction"
# prev geometry: 3 data members x 64 KiB = 48 blocks a stripe; 3 s
/test/stamp write $D $(((size - 12 * M) / 4096)) 48 8 3 "$R5J_RESULT_PORT" 2000000000 ||
	fail "stamp write failed"
t=0
while [ "$(md_sysfs $D array_state)" != clean ]; do
	[ $t -ge 100 ] && fail "md1 not clean 10 s after the writes: $(md_sysfs $D array_state)"
	sleep 0.1
	t=$((t + 1))
done
# md core writes the clean superblock after the state change
sleep 0.5
pos=$(md_sysfs $D reshape_position)
say "md1: clean, reshape_position $pos"
[ "$pos" != none ] || fail "md1: the reshape ended before the cut"
mark quiet
sleep 60
fail "the power cut did not come"
EOF
)
power_cut 1 quiet 300 1000 "chunk change" "$g" $MD1
B2=$VM_BOOT_SECS size1=$size blocks1=$blocks acks1=$acks
# The cut came with no user write in flight: the superblocks must say
# clean, so that the degraded restart needs no --force.  A reshape's own
# writes leave the array clean (raid456's, and raid5j's now that its steps
# no longer go through md_write_start(): when they did, 3 of 5 cuts left
# it active).
for d in $MD1; do
	st=$(mdadm --examine "$(vm_disk_path "$d")" | sed -n 's/^ *State : //p')
	[ "$st" = clean ] ||
		vm_fail "md1: $d's superblock State '$st' after a cut with no write in flight: a reshape step marked the array dirty"
done
echo "md1: power cut ${kill_ms} ms after the array was clean, $acks1 writes acknowledged"

# ---- boot 3: restart, resume, verify -----------------------------------------
g=$(guest 3 <<'EOF'
# slow at first, so that the assembly finds the reshape still to do
echo 1000 > /proc/sys/dev/raid/speed_limit_max
echo 500 > /proc/sys/dev/raid/speed_limit_min
D=/dev/md0
if ! mdadm --assemble $D $(disks a0 a1 a2 a3) > /tmp/asm.out 2>&1; then
	cat /tmp/asm.out
	fail "md0 (cut mid-shrink): assembly failed under $PERSONALITY: $(tail -n 2 /tmp/asm.out | tr '\n' ' ')| kernel: $(dmesg | tail -n 3 | tr '\n' ' ')"
fi
cat /tmp/asm.out
check raid5 $D
reshaping $D || fail "md0: no reshape after the assembly: $(tr '\n' ' ' < /proc/mdstat)"
say "md0 resumed at reshape_position $(md_sysfs $D reshape_position): $(wait_reshape_line $D)"
fast_sync
wait_grow_children
wait_sync $D
expect_eq "$(md_sysfs $D raid_disks)" 3 "md0 md/raid_disks"
expect_eq "$(md_sysfs $D reshape_position)" none "md0 md/reshape_position"
expect_eq "$(blockdev --getsize64 $D)" "$SIZE0" "md0 size"
check state "[3/3]" $D
check spares 1 $D
spare=$(mdadm --detail $D | awk '/ spare / { print $NF }')
expect_eq "$spare" "$(disk a3)" "md0 mdadm --detail spare"
fio_verify A0 $D $(reg_A $SIZE0) --verify_only
dd if=$D of=$(disk dump0) bs=64k count=$((BLOCKS0 / 16)) iflag=direct 2>/dev/null ||
	fail "copying md0 failed"
check mismatch $D
run mdadm --stop $D
pass "md0: shrink cut mid-way resumed and finished"

echo 1000 > /proc/sys/dev/raid/speed_limit_max
echo 500 > /proc/sys/dev/raid/speed_limit_min
D=/dev/md1
if ! mdadm --assemble --run $D $(disks_but "$MISSING" b0 b1 b2 b3) > /tmp/asm.out 2>&1; then
	cat /tmp/asm.out
	fail "md1 (cut mid-reshape, ${MISSING:-none} missing): assembly failed under $PERSONALITY: $(tail -n 2 /tmp/asm.out | tr '\n' ' ')| kernel: $(dmesg | tail -n 3 | tr '\n' ' ')"
fi
cat /tmp/asm.out
check raid5 $D
check degraded $([ -n "$MISSING" ] && echo 1 || echo 0) $D
reshaping $D || fail "md1: no reshape after the assembly: $(tr '\n' ' ' < /proc/mdstat)"
say "md1 resumed (${MISSING:-none} missing) at reshape_position $(md_sysfs $D reshape_position): $(wait_reshape_line $D)"
fast_sync
wait_grow_children
wait_sync $D
expect_eq "$(md_sysfs $D reshape_position)" none "md1 md/reshape_position"
expect_eq "$(md_sysfs $D chunk_size)" 131072 "md1 md/chunk_size"
expect_eq "$(blockdev --getsize64 $D)" "$SIZE1" "md1 size"
fio_verify A1 $D $(reg_A $SIZE1) --verify_only
dd if=$D of=$(disk dump1) bs=64k count=$((BLOCKS1 / 16)) iflag=direct 2>/dev/null ||
	fail "copying md1 failed"
if [ -n "$MISSING" ]; then
	run mdadm --zero-superblock $(disk "$MISSING")
	run mdadm $D --add $(disk "$MISSING")
	wait_sync $D
fi
check state "[4/4]" $D
check mismatch $D
cmp -n $((BLOCKS1 * 4096)) $(disk dump1) $D || fail "md1: the stamped part changed in the rebuild"
fio_verify A1 $D $(reg_A $SIZE1) --verify_only
run mdadm --stop $D
pass "md1: chunk change cut mid-way resumed degraded, finished, rebuilt"
check dmesg
EOF
)
vm_boot --timeout 150 --env SIZE0="$size0" --env BLOCKS0="$blocks0" \
	--env MISSING="$MD1_MISSING" --env SIZE1="$size1" --env BLOCKS1="$blocks1" \
	"$g" $MD0 $MD1 dump0 dump1 || vm_fail "boot 3 ($PERSONALITY): restart"
vm_stamp_check "$(vm_disk_path dump0)" "$blocks0" "$BUILD/vm-logs/$VM_TEST.acks0" ||
	vm_fail "md0: acknowledged data lost or garbage after the resumed shrink"
# raid456 loses acknowledged blocks here (6 of 6 runs, also with every
# member present), 1400-12000 sectors below the superblock position: the
# part its resume redoes.  The same on-disk state resumed by raid5j was
# intact (a probe), so it is raid456's resume of a backwards
# chunk change, not the writes before the cut nor this test.
if ! vm_stamp_check "$(vm_disk_path dump1)" "$blocks1" "$BUILD/vm-logs/$VM_TEST.acks1" > "$BUILD/vm-logs/$VM_TEST.check1" 2>&1; then
	tail -n 1 "$BUILD/vm-logs/$VM_TEST.check1"
	[ "$PERSONALITY" = raid456 ] ||
		vm_fail "md1: acknowledged data lost or garbage after the degraded resume"
	echo "KNOWN raid456: md1's resumed backwards chunk change lost acknowledged blocks: $(tail -n 1 "$BUILD/vm-logs/$VM_TEST.check1")"
else
	tail -n 1 "$BUILD/vm-logs/$VM_TEST.check1"
fi
echo "boot times: ${B1}s ${B2}s ${VM_BOOT_SECS}s ($PERSONALITY)"
echo "PASS $VM_TEST: a shrink and a chunk change cut mid-way resumed ($acks0 and $acks1 acknowledged writes intact)"
