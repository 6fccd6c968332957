#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-stale-read-error: a stripe's read error belongs to the device that had
# it; once that device is re-added, the stripe (still cached) must count the
# slot as good again.  Before the fix the flag stayed
# until the stripe was reused: when another member then failed and a spare
# was rebuilt, those stripes failed (two members "lost"), md core moved
# recovery past them and the spare went In_sync with zeroes there.
#
#	   ea    b    c    d        s (spare)     virtio 64 MiB each
#	    \    \   /    /                       ea: dm table over a
#	   +--------------+
#	   |   /dev/md0   |      RAID5, 64K chunk, 4 x 32M, --assume-clean,
#	   +--------------+      internal bitmap, no bad block log,
#	                         stripe_cache_size 8192 (every row of a member)
#
#	1. write "a" over 0-24M (full-row writes), stop and assemble (cache
#	   empty)
#	2. ea's member rows 16-17 read (and write) errors (dm error target);
#	   one chunk-aligned 64K read of array 3M, ea's chunk of row 16: the
#	   read fails, ea fails ([_UUU]), the read returns data
#	3. ea readable again; --remove, --re-add: the bitmap has no dirty
#	   chunk, so the re-add is quick and those stripes stay cached: [UUUU]
#	4. b fails, is removed, s is added: the rebuild completes, [UUUU]
#	5. stop, assemble from a s c d (nothing cached): [UUUU], "a"
#	   verifies, check: mismatch_cnt 0; the rebuild of step 4 was never
#	   interrupted ("md: md0: recovery interrupted")
#
# raid456 clears its ReadError flag once the member is not in sync, so it
# passes as is.  Asserts as above, plus no kernel BUG/WARNING/Oops.
# Disks: 5 x 64 MiB.  Boots: 1.  Timeout: 240 s.

. "$(dirname "$0")/lib.sh"

DISKS="a b c d s"
vm_disks 64M $DISKS

vm_boot --timeout 240 - $DISKS <<'EOF' || vm_fail "$PERSONALITY"
. /test/guest-lib.sh
load_personality
fast_sync
modprobe dm-mod || fail "dm-mod"
a=$(disk a)
SZ=$(blockdev --getsz $a)
echo "0 $SZ linear $a 0" | dmsetup create ea || fail "dmsetup create"
M="/dev/mapper/ea $(disks b c d)"
swap_table() {	# swap_table TABLE: ea's new table
	log "dm ea -> $1"
	dmsetup suspend ea || fail "dmsetup suspend"
	printf '%s\n' "$1" | dmsetup load ea || fail "dmsetup load"
	dmsetup resume ea || fail "dmsetup resume"
}

# ---- 1. data, then an empty cache --------------------------------------
run mdadm --create /dev/md0 --run --level=5 --chunk=64 --raid-devices=4 \
	--size=32M --assume-clean --bitmap=internal --bitmap-chunk=64K $M
run mdadm --stop /dev/md0
# no bad block log: raid456 then fails a member whose read error it
# cannot rewrite (as raid5j does) instead of recording a bad block
run mdadm --assemble /dev/md0 --update=no-bbl $M
check raid5 /dev/md0
fio_verify a /dev/md0 --rw=write --bs=192k --iodepth=4 --offset=0 --size=24m
run mdadm --stop /dev/md0
run mdadm --assemble /dev/md0 $M
check state '[UUUU]' /dev/md0
echo 8192 > /sys/block/md0/md/stripe_cache_size || fail "stripe_cache_size"
# (no udev: /dev/mapper/ea is a node, not a link to dm-N)
OFF=$(cat /sys/block/md0/md/dev-dm-*/offset) || fail "no data offset for ea"

# ---- 2. a read error on ea ---------------------------------------------
E0=$((OFF + 2048)) EN=256
swap_table "$(printf '%s\n' "0 $E0 linear $a 0" "$E0 $EN error" \
	"$((E0 + EN)) $((SZ - E0 - EN)) linear $a $((E0 + EN))")"
# array 3M = row 16, whose first data chunk is ea's
run dd if=/dev/md0 of=/dev/null bs=64k skip=48 count=1 iflag=direct
sleep 1
check state '[_UUU]' /dev/md0
swap_table "0 $SZ linear $a 0"

# ---- 3. ea comes back --------------------------------------------------
run mdadm /dev/md0 --remove /dev/mapper/ea
run mdadm /dev/md0 --re-add /dev/mapper/ea
sleep 1
wait_sync /dev/md0
check state '[UUUU]' /dev/md0
pass "t-stale-read-error/re-add"

# ---- 4. another member fails, a spare is rebuilt -----------------------
LOGN=$(dmesg | wc -l)
run mdadm /dev/md0 --fail $(disk b)
run mdadm /dev/md0 --remove $(disk b)
run mdadm /dev/md0 --add $(disk s)
sleep 1
wait_sync /dev/md0
sleep 1
wait_sync /dev/md0
dmesg | tail -n +$((LOGN + 1)) | grep -E 'md0|md:'
# (asserted after the data check, which shows what an interrupted
# rebuild left on s)
INTR=$(dmesg | tail -n +$((LOGN + 1)) | grep -c 'recovery interrupted')
check state '[UUUU]' /dev/md0

# ---- 5. what the members hold ------------------------------------------
run mdadm --stop /dev/md0
dmsetup remove ea || fail "dmsetup remove"
run mdadm --assemble /dev/md0 $(disks a s c d)
check state '[UUUU]' /dev/md0
fio_verify a /dev/md0 --rw=write --bs=192k --iodepth=4 --offset=0 --size=24m \
	--verify_only
check mismatch /dev/md0
pass "t-stale-read-error/data"
[ "$INTR" = 0 ] || fail "the rebuild onto s was interrupted $INTR times"
pass "t-stale-read-error/rebuild"
run mdadm --stop /dev/md0
check dmesg
EOF
echo "PASS $VM_TEST"
