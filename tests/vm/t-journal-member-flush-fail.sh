#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-member-flush-fail: journal_tail never moves past writes a
# member may have lost because its flush failed (journal.md L2).
#
#	  d0   d1 under dm "fd1"   d2   d3        j (64 MiB)
#	        (linear, then dm-flakey error_writes: writes and flushes
#	         fail, reads work)
#	    |  /dev/md0 RAID5 4 x 32 MiB, 64K chunk, write-through journal
#
# Every disk sits behind a volatile write cache (VM_NBD_CACHE=1).  Boot 1:
# md's safe_mode_delay is raised so that no superblock write (which
# carries a flush) follows the writes; fio writes MB (8) MiB of random
# 4 KiB blocks: acknowledged, in the log and, not yet flushed, in the
# members' caches.  Then d1 fails its writes and flushes (dm-flakey
# error_writes), and the reclaim thread flushes the members before it
# moves journal_tail (journal_stats reclaims grows).  Without the fix the
# flush error was ignored: the tail moved past the log, d1 stayed in the
# array, and the power cut lost d1's cached writes, so boot 2 read stale
# blocks from it with no error.  With it: "flush of ... failed", d1
# failed (its failure recorded before the tail moves).
# Boot 2 (the power cut, no dm): the array assembles (--run: d1, failed,
# stays out); fio verifies every block.
# raid456 (which ignores member flush errors the same way) is run for
# the record; its result is reported, not asserted.  ~1.5 minutes.

. "$(dirname "$0")/lib.sh"

export VM_NBD_CACHE=1
M="d0 d1 d2 d3"
vm_disks 32M $M
vm_disk j 64M
FIO="--rw=randwrite --bs=4k --iodepth=16 --size=24M --io_size=${MB:-8}M \
--randseed=7 --verify=crc32c --verify_fatal=1"
# a second burst right after a reclaim: the next one, 5 s later, must
# flush it (the first burst may have been flushed already)
FIO2="--rw=randwrite --bs=4k --iodepth=16 --offset=32M --size=8M \
--io_size=1M --randseed=9 --verify=crc32c --verify_fatal=1"

vm_boot --timeout 300 --kill-mark cut --kill-after 0.2 --env FIO="$FIO" \
	--env FIO2="$FIO2" \
	- $M j <<'EOF' || vm_fail "boot 1"
. /test/guest-lib.sh
load_personality
modprobe dm-mod || fail "no dm-mod"
modprobe dm-flakey || fail "no dm-flakey"
D1=$(disk d1)
sz=$(blockdev --getsz "$D1")
echo "0 $sz linear $D1 0" | dmsetup create fd1 || fail "dmsetup"
dmsetup mknodes fd1
run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 --chunk=64 \
	--assume-clean --write-journal=$(disk j) $(disk d0) /dev/mapper/fd1 \
	$(disk d2) $(disk d3)
# no superblock write (with its flush) after the writes
echo 600 > /sys/block/md0/md/safe_mode_delay
sleep 1
# shellcheck disable=SC2086
fio_verify w /dev/md0 $FIO --do_verify=0
r0=$(jstat reclaims)
for i in $(seq 100); do		# the periodic reclaim, at most 5 s
	[ "$PERSONALITY" = raid5j ] || break
	[ "$(jstat reclaims)" -gt "$r0" ] && break
	sleep 0.1
done
# shellcheck disable=SC2086
fio_verify w2 /dev/md0 $FIO2 --do_verify=0
r0=$(jstat reclaims)
report used_sectors "$(jstat used_sectors)"
dmsetup suspend fd1
echo "0 $sz flakey $D1 0 0 1 1 error_writes" | dmsetup load fd1
dmsetup resume fd1
# the reclaim thread runs every 5 s: wait for it to try
for i in $(seq 200); do
	[ "$PERSONALITY" = raid5j ] || break
	dmesg | grep -q "flush of .* failed" && break
	[ "$(jstat reclaims)" -gt "$r0" ] && break
	sleep 0.1
done
sleep 1
report reclaims "$r0 -> $(jstat reclaims)"
report flush_failed "$(dmesg | grep -c 'flush of .* failed')"
dmesg | grep -E 'md/raid:md0|flush' | tail -n 5
grep -A2 '^md0' /proc/mdstat
mark cut
sleep 1000
EOF
[ "$VM_KILLED" = 1 ] || vm_fail "boot 1 was not cut"
vm_log "after the second burst: used_sectors $(vm_val used_sectors), reclaims $(vm_val reclaims), member flush failures reported $(vm_val flush_failed)"

vm_boot --timeout 300 --env FIO="$FIO" --env FIO2="$FIO2" - $M j <<'EOF' ||
. /test/guest-lib.sh
load_personality
run mdadm --assemble --run /dev/md0 $(disks d0 d1 d2 d3 j)
grep -A2 '^md0' /proc/mdstat
# shellcheck disable=SC2086
fio_verify w /dev/md0 $FIO --verify_only
# shellcheck disable=SC2086
fio_verify w2 /dev/md0 $FIO2 --verify_only
run mdadm --stop /dev/md0
pass
EOF
	vm_fail "boot 2"
# the scenario reached the path: a member flush failed at reclaim
[ "$PERSONALITY" = raid456 ] || [ "$(grep -c 'flush of .* failed' "$VM_LOG")" -gt 0 ] ||
	vm_fail "no member flush failed: the test proves nothing"
echo "PASS $VM_TEST"
exit 0
