#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-journal-dies: the journal dies with evicted write-back data
# (README, "When the journal dies").  RAID5 of 4 x 32 MiB, 16K chunk, an
# 8 MiB journal behind dm (jdm), stripe_cache_size 32 so that dirty
# stripes are evicted (raid5j's journal cache).
#   boot 1: write-back; NBLK (200) stamped 4 KiB blocks, one per stripe
#      (raid5j: evicted_stripes > 0); the journal's table swapped to
#      dm-error (every read and write fails); every block reads back (no
#      EIO, nothing stale: the evicted blocks come from their RAM copies);
#      dirty_stripes reaches 0 within 30 s (everything on the members);
#      then the power is cut (qemu killed, no stop).
#   boot 2: the members assembled without the journal (--force: read-only,
#      as mainline): every block reads back.
# raid456 keeps its dirty data in RAM: the same assertions hold.  ~1 minute.

. "$(dirname "$0")/lib.sh"

vm_stamp
vm_disks 32M d0 d1 d2 d3
vm_disk j 8M
vm_boot --timeout 300 --kill-mark cut --kill-after 1 \
	--env NBLK="${NBLK:-200}" - d0 d1 d2 d3 j <<'EOF2' || vm_fail "boot 1"
. /test/guest-lib.sh
load_personality
journal_dm
journaled_raid5 /dev/mapper/jdm
journal_mode write-back
echo 32 > /sys/block/md0/md/stripe_cache_size || fail "stripe_cache_size 32"

run /test/stamp put /dev/md0 0 12 "$NBLK" 1
if [ "$PERSONALITY" = raid5j ]; then
	say "after the writes: evicted_stripes $(jstat evicted_stripes), dirty_stripes $(jstat dirty_stripes), ram_copy_bytes $(jstat ram_copy_bytes)"
	[ "$(jstat evicted_stripes)" -gt 0 ] ||
		fail "no stripe evicted: the scenario does not test evicted data"
fi

dmsetup suspend jdm
echo "0 $jsz error" | dmsetup load jdm
dmsetup resume jdm
# a write finds the journal dead (raid456 6.1 goes on without it)
dd if=/dev/zero of=/dev/md0 bs=4K count=1 seek=20000 oflag=direct 2>/dev/null
/test/stamp get /dev/md0 0 12 "$NBLK" 1 > /tmp/get1
tail -n 1 /tmp/get1
grep -vE '^stamp' /tmp/get1 | head -n 5
[ "$(tail -n 1 /tmp/get1)" = "stamp get: ok $NBLK eio 0 stale 0 garbage 0" ] ||
	fail "acknowledged blocks lost while the array runs after the journal died: $(tail -n 1 /tmp/get1)"
pass "journal dead: all $NBLK acknowledged blocks read back"

if [ "$PERSONALITY" = raid5j ]; then
	n=0
	while [ "$(jstat dirty_stripes)" -gt 0 ]; do
		n=$((n + 1))
		[ $n -le 30 ] || fail "dirty_stripes $(jstat dirty_stripes) 30 s after the journal died"
		sleep 1
	done
	say "dirty_stripes 0 after ${n} s; journal_read_failures $(jstat journal_read_failures), lost_blocks $(jstat lost_blocks)"
else
	sleep 5
fi
sync
mark cut
sleep 100
EOF2

vm_boot --timeout 200 --env NBLK="${NBLK:-200}" - d0 d1 d2 d3 <<'EOF2' || vm_fail "boot 2"
. /test/guest-lib.sh
load_personality
M=$(disks d0 d1 d2 d3)
run mdadm --assemble --run --force /dev/md0 $M
cat /proc/mdstat
/test/stamp get /dev/md0 0 12 "$NBLK" 1 > /tmp/get2
tail -n 1 /tmp/get2
grep -vE '^stamp' /tmp/get2 | head -n 5
[ "$(tail -n 1 /tmp/get2)" = "stamp get: ok $NBLK eio 0 stale 0 garbage 0" ] ||
	fail "after the power cut, assembled without the journal: $(tail -n 1 /tmp/get2)"
run mdadm --stop /dev/md0
pass "power cut after the journal died and the destage ended: all $NBLK blocks on the members"
EOF2
