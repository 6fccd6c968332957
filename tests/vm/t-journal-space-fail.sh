#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-space-fail: a journal far too small for the load, then a
# journal that dies, then a journal that is missing.
#
#	  d0    d1    d2    d3      j (4 MiB) under dm-linear "jdm"
#	   \     \    /     /       |  (switched to dm-error to kill it)
#	    +-----+--+-----+--------+       j2: replacement journal
#	    |  /dev/md0 RAID5 4 x 48 MiB, 64K chunk
#	    +-------------------------
#
# Asserts:
#  - heavy verified writes through a 4 MiB journal finish (no deadlock):
#    writers waited for space (journal_stats space_waits > 0) and reclaim
#    ran (reclaims > 0); data verifies; check: mismatch_cnt 0;
#  - the journal fails (dm-error): dmesg says so, writes fail with EIO,
#    every acknowledged block still reads back intact, array not failed;
#  - mdadm --add-journal of a new device works after the failed one is
#    removed, and writes work again and verify;
#  - boot 2: assembling without the journal is refused by mdadm; with
#    --force the array starts read-only ("journal disk is missing").
#
# Disks: 4 x 48 MiB, 2 x 4 MiB.  Boots: 2.  Timeout: 240 s.

. "$(dirname "$0")/lib.sh"

vm_disks 48M d0 d1 d2 d3
vm_disks 4M j j2
vm_boot --timeout 240 - d0 d1 d2 d3 j j2 <<'EOF' || vm_fail "boot 1"
. /test/guest-lib.sh
load_personality
modprobe dm-mod || fail "no dm-mod"
jsz=$(blockdev --getsz $(disk j))
echo "0 $jsz linear $(disk j) 0" | dmsetup create jdm || fail "dmsetup"
run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 --chunk=64 \
	--assume-clean --write-journal=/dev/mapper/jdm $(disks d0 d1 d2 d3)
check state '[4/4] [UUUU]' /dev/md0

A="--rw=randwrite --bs=4k --iodepth=32 --offset=0 --size=24m"
B="--rw=write --bs=1m --iodepth=8 --offset=32m --size=64m"
fio_verify A /dev/md0 $A
fio_verify B /dev/md0 $B
J=/sys/block/md0/md/journal_stats
cat $J
waits=$(awk '/^space_waits/{print $2}' $J)
reclaims=$(awk '/^reclaims/{print $2}' $J)
report space_waits $waits
report reclaims $reclaims
[ "$waits" -gt 0 ] || fail "the tiny journal never made a writer wait"
[ "$reclaims" -gt 0 ] || fail "no reclaim ran"
check mismatch /dev/md0 0
pass "t-journal-space-fail/tiny-journal"

# kill the journal
dmsetup suspend jdm
echo "0 $jsz error" | dmsetup load jdm
dmsetup resume jdm
dd if=/dev/urandom of=/dev/md0 bs=4k count=16 seek=30000 oflag=direct 2>/dev/null &&
	fail "a write succeeded with the journal dead"
dmesg | grep -q "journal device .* failed" || fail "no dmesg line about the journal"
dd if=/dev/urandom of=/dev/md0 bs=4k count=16 seek=30000 oflag=direct 2>/dev/null &&
	fail "a second write succeeded with the journal dead"
fio_verify A /dev/md0 $A --verify_only
fio_verify B /dev/md0 $B --verify_only
grep -A1 '^md0' /proc/mdstat
mdadm --detail /dev/md0 | grep -iE 'state|journal'
pass "t-journal-space-fail/journal-dead"

run mdadm /dev/md0 --remove /dev/mapper/jdm
# mdadm adds a journal only to a read-only array
mdadm --readonly /dev/md0 2>/dev/null
run mdadm /dev/md0 --add-journal $(disk j2)
mdadm --readwrite /dev/md0 2>/dev/null
cat /sys/block/md0/md/journal_mode
fio_verify C /dev/md0 --rw=randwrite --bs=8k --iodepth=16 --offset=100m --size=16m
fio_verify A /dev/md0 $A --verify_only
pass "t-journal-space-fail/add-journal"
run mdadm --stop /dev/md0
EOF

vm_boot --timeout 120 - d0 d1 d2 d3 j j2 <<'EOF' || vm_fail "boot 2"
. /test/guest-lib.sh
load_personality
must_fail mdadm --assemble /dev/md0 $(disks d0 d1 d2 d3)
mdadm --stop /dev/md0 2>/dev/null
run mdadm --assemble --force /dev/md0 $(disks d0 d1 d2 d3)
dmesg | grep -q "journal disk is missing, force array readonly" ||
	fail "no 'journal disk is missing' line"
grep -A1 '^md0' /proc/mdstat
grep -q 'md0 : active (read-only)' /proc/mdstat || fail "not read-only"
fio_verify C /dev/md0 --rw=randwrite --bs=8k --iodepth=16 --offset=100m --size=16m --verify_only
run mdadm --stop /dev/md0
pass "t-journal-space-fail/missing-journal"
EOF
exit 0
