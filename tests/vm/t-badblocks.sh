#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-badblocks: an array whose member has recorded bad blocks (raid456
# records them when a member write fails) reads back what was written, not
# what the bad range still holds.
#
#	   d0   d1   d2   bad3          bad3: dm table over d3, member
#	    \    \   /    /                   sectors 4096-4607 (of data) on
#	   +--------------+                   dm-flakey error_writes: writes
#	   |   /dev/md0   |                   there fail, reads work
#	   +--------------+
#	   RAID5, 64K chunk, 4 x 32M, --assume-clean (zeroed disks), bad block
#	   log (mdadm 1.2 default)
#
#	1. raid456 (always): write "b" over 0-24M; then bad3's range takes
#	   no writes, and 4K random writes "c" (one at a time) go over array
#	   6M-6.75M (bad3's rows 32-35): the writes into the range fail,
#	   raid456 records bad blocks and keeps bad3 in sync: /proc/mdstat
#	   [UUUU], mdadm --examine-badblocks lists entries; "c" verifies
#	2. stop, unload raid456, remove the dm device: d3 itself still holds
#	   "b" in the bad range
#	3. $PERSONALITY assembles d0..d3: [UUUU], the bad block list is the
#	   same; "c" verifies, and 0-24M read with 4K and with 64K
#	   (chunk-aligned) reads has the md5 raid456 read in step 1: the bad
#	   range is rebuilt from parity, never read
#	4. 4K random writes "d" over 4M-8M (the bad range and around it),
#	   verified; stop, assemble: "d" verifies, 8M-24M has raid456's md5
#
# raid456 itself returns stale data if the failing writes are full-row
# writes (a batched stripe's write error is dropped): step 1 writes 4K.
# Before the fix step 3 fails (the stale "b" read back from the bad range).
# Asserts as above, plus no kernel BUG/WARNING/Oops.
# Disks: 4 x 64 MiB.  Boots: 1.  Timeout: 200 s.

. "$(dirname "$0")/lib.sh"

DISKS="d0 d1 d2 d3"
vm_disks 64M $DISKS

vm_boot --timeout 200 - $DISKS <<'EOF' || vm_fail "$PERSONALITY"
. /test/guest-lib.sh
modprobe dm-mod && modprobe dm-flakey || fail "dm modules"
d3=$(disk d3)
SZ=$(blockdev --getsz $d3)

# ---- 1. bad blocks recorded by raid456 ---------------------------------
load_personality raid456
echo "0 $SZ linear $d3 0" | dmsetup create bad3 || fail "dmsetup create"
D="$(disks d0 d1 d2) /dev/mapper/bad3"
run mdadm --create /dev/md0 --run --level=5 --chunk=64 --raid-devices=4 \
	--size=32M --assume-clean $D
grep -q '^md0 : active raid5' /proc/mdstat || fail "md0 not active under raid456"
# (no udev: /dev/mapper/bad3 is a node, not a link to dm-N)
OFF=$(cat /sys/block/md0/md/dev-dm-*/offset) || fail "no data offset for bad3"
log "bad3 data offset $OFF"
fio_verify b /dev/md0 --rw=write --bs=192k --iodepth=4 --offset=0 --size=24m
# member rows 32-35 (array 6M-6.75M; row 32: bad3 holds parity, 33-35:
# data) stop taking writes on bad3
B0=$((OFF + 4096)) BN=512
dmsetup suspend bad3 || fail "dmsetup suspend"
printf '%s\n' "0 $B0 linear $d3 0" \
	"$B0 $BN flakey $d3 $B0 0 3600 1 error_writes" \
	"$((B0 + BN)) $((SZ - B0 - BN)) linear $d3 $((B0 + BN))" |
	dmsetup load bad3 || fail "dmsetup load"
dmsetup resume bad3 || fail "dmsetup resume"
# one 4K write at a time: raid456 batches full-row writes, and a batch
# member's write error is dropped (break_stripe_batch_list() clears
# R5_WriteError: neither a bad block nor a failed member, stale data)
fio_verify c /dev/md0 --rw=randwrite --bs=4k --iodepth=1 --offset=6m \
	--size=768k
sleep 1
cat /proc/mdstat
grep -A1 '^md0 ' /proc/mdstat | grep -qF '[UUUU]' ||
	fail "raid456 failed the member instead of recording bad blocks"
bb=$(mdadm --examine-badblocks /dev/mapper/bad3)
printf '%s\n' "$bb"
NBB=$(printf '%s\n' "$bb" | grep -cE '^ *[0-9]+ for [0-9]+ sectors')
[ "$NBB" -gt 0 ] || fail "raid456 recorded no bad blocks"
say "raid456 recorded $NBB bad block ranges on bad3"
report badblocks "$NBB"
# what the array holds, as raid456 reads it
SUM=$(dd if=/dev/md0 bs=1M count=24 iflag=direct 2>/dev/null | md5sum)
SUM2=$(dd if=/dev/md0 bs=1M skip=8 count=16 iflag=direct 2>/dev/null | md5sum)
run mdadm --stop /dev/md0
rmmod raid456 || fail "rmmod raid456"
dmsetup remove bad3 || fail "dmsetup remove"
# d3 itself: its bad range kept "b", never got "c"
b=$(dd if=$d3 bs=512 skip=$((B0 + 128)) count=128 2>/dev/null | md5sum)
log "d3 row 33 md5 $b"
pass "t-badblocks/recorded"

# ---- 2-3. the other personality reads it -------------------------------
load_personality
D=$(disks d0 d1 d2 d3)
bb3=$(mdadm --examine-badblocks $d3 | grep -cE '^ *[0-9]+ for [0-9]+ sectors')
expect_eq "$bb3" "$NBB" "bad block ranges on d3"
run mdadm --assemble /dev/md0 $D
check raid5 /dev/md0
check state '[UUUU]' /dev/md0
fio_verify c /dev/md0 --rw=randwrite --bs=4k --iodepth=1 --offset=6m \
	--size=768k --verify_only
# 4K reads and chunk-aligned 64K reads (the bypass declines the bad range,
# the stripes rebuild it): the same bytes as raid456 read
for bs in 4k 64k; do
	sum=$(dd if=/dev/md0 bs=$bs iflag=direct count=$((24 * 1024 / ${bs%k})) 2>/dev/null | md5sum)
	expect_eq "$sum" "$SUM" "md5 of 0-24M read with bs=$bs"
done
pass "t-badblocks/read"

# ---- 4. writes over and around the bad range ---------------------------
fio_verify d /dev/md0 --rw=randwrite --bs=4k --iodepth=16 --offset=4m \
	--size=4m
run mdadm --stop /dev/md0
run mdadm --assemble /dev/md0 $D
check state '[UUUU]' /dev/md0
fio_verify d /dev/md0 --rw=randwrite --bs=4k --iodepth=16 --offset=4m \
	--size=4m --verify_only
sum=$(dd if=/dev/md0 bs=1M skip=8 count=16 iflag=direct 2>/dev/null | md5sum)
expect_eq "$sum" "$SUM2" "md5 of 8M-24M"
pass "t-badblocks/write"
run mdadm --stop /dev/md0
check dmesg
EOF
echo "PASS $VM_TEST"
