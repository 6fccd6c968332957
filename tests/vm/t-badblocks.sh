#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-badblocks: an array whose member has recorded bad blocks (raid456
# records them when a member write fails) reads back what was written, not
# what the bad range still holds (issue 21, finding 4).
#
#	   d0   d1   d2   bad3          bad3: dm table over d3, member
#	    \    \   /    /                   sectors 4096-4607 (of data) on
#	   +--------------+                   dm-flakey error_writes: writes
#	   |   /dev/md0   |                   there fail, reads work
#	   +--------------+
#	   RAID5, 64K chunk, 4 x 32M, --assume-clean (zeroed disks), bad block
#	   log (mdadm 1.2 default)
#
#	1. raid456 (always): write "b" (full-row 192K writes) over 0-24M;
#	   the writes into bad3's range fail, raid456 records bad blocks and
#	   keeps bad3 in sync: /proc/mdstat [UUUU], mdadm --examine-badblocks
#	   lists entries; "b" verifies under raid456
#	2. stop, unload raid456, remove the dm device: d3 itself now reads
#	   back zeroes in the bad range (the writes never reached it)
#	3. $PERSONALITY assembles d0..d3: [UUUU], the bad block list is the
#	   same; "b" verifies (192K reads), and 0-24M read with 4K and with
#	   64K (chunk-aligned) reads has the md5 raid456 read in step 1: the
#	   bad range is rebuilt from parity, never read
#	4. 4K random writes "c" over 4M-8M (the bad range and around it),
#	   verified; stop, assemble, "c" and the rest of "b" verify from disk
#
# Before the fix step 3 fails (zeroes read back from the bad range).
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
dm=$(basename "$(readlink -f /dev/mapper/bad3)")
OFF=$(cat /sys/block/md0/md/dev-$dm/offset) || fail "no data offset for $dm"
log "bad3 data offset $OFF"
# member rows 32-35 (row 32: bad3 holds parity, 33-35: data)
B0=$((OFF + 4096)) BN=512
dmsetup suspend bad3 || fail "dmsetup suspend"
printf '%s\n' "0 $B0 linear $d3 0" \
	"$B0 $BN flakey $d3 $B0 0 3600 1 error_writes" \
	"$((B0 + BN)) $((SZ - B0 - BN)) linear $d3 $((B0 + BN))" |
	dmsetup load bad3 || fail "dmsetup load"
dmsetup resume bad3 || fail "dmsetup resume"
fio_verify b /dev/md0 --rw=write --bs=192k --iodepth=4 --offset=0 --size=24m
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
run mdadm --stop /dev/md0
rmmod raid456 || fail "rmmod raid456"
dmsetup remove bad3 || fail "dmsetup remove"
# d3 itself: its bad range never got the writes
z=$(dd if=$d3 bs=512 skip=$((B0 + 128)) count=8 2>/dev/null | tr -d '\0' | wc -c)
expect_eq "$z" 0 "bytes other than zero in d3's bad range (the writes must have failed)"
pass "t-badblocks/recorded"

# ---- 2-3. the other personality reads it -------------------------------
load_personality
D=$(disks d0 d1 d2 d3)
bb3=$(mdadm --examine-badblocks $d3 | grep -cE '^ *[0-9]+ for [0-9]+ sectors')
expect_eq "$bb3" "$NBB" "bad block ranges on d3"
run mdadm --assemble /dev/md0 $D
check raid5 /dev/md0
check state '[UUUU]' /dev/md0
fio_verify b /dev/md0 --rw=write --bs=192k --iodepth=4 --offset=0 --size=24m \
	--verify_only
# 4K reads and chunk-aligned 64K reads (the bypass declines the bad range,
# the stripes rebuild it): the same bytes as raid456 read
for bs in 4k 64k; do
	sum=$(dd if=/dev/md0 bs=$bs iflag=direct count=$((24 * 1024 / ${bs%k})) 2>/dev/null | md5sum)
	expect_eq "$sum" "$SUM" "md5 of 0-24M read with bs=$bs"
done
pass "t-badblocks/read"

# ---- 4. writes over and around the bad range ---------------------------
fio_verify c /dev/md0 --rw=randwrite --bs=4k --iodepth=16 --offset=4m \
	--size=4m
run mdadm --stop /dev/md0
run mdadm --assemble /dev/md0 $D
check state '[UUUU]' /dev/md0
fio_verify c /dev/md0 --rw=randwrite --bs=4k --iodepth=16 --offset=4m \
	--size=4m --verify_only
fio_verify b /dev/md0 --rw=write --bs=192k --iodepth=4 --offset=8m --size=16m \
	--verify_only
pass "t-badblocks/write"
run mdadm --stop /dev/md0
check dmesg
EOF
echo "PASS $VM_TEST"
