#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-degraded: write-back with a member lost (RAID5, 4 x 32 MiB,
# 16K chunk, 8 MiB journal; the members start zeroed, --assume-clean).
#   1. write-back on; 64 scattered 4 KiB writes (every third block of the
#      first 768 KiB: stripes dirty with clean blocks beside them);
#   2. a member fails (mdadm --fail) while they are dirty; the first 768
#      KiB read back exactly (reads of a lost clean block make its stripe
#      destage first, rebuilding it from the members' old stripe);
#   3. write-back set again on the degraded array (raid456 refuses it:
#      recorded); fio verify of random writes, degraded;
#   4. the member re-added and rebuilt: "check" counts 0; stop, assemble,
#      everything reads back.
# ~1 minute.

. "$(dirname "$0")/lib.sh"

vm_disks 32M d0 d1 d2 d3
vm_disk j 8M
vm_boot --timeout 300 - d0 d1 d2 d3 j <<'EOF2' || vm_fail "boot"
. /test/guest-lib.sh
load_personality
journaled_raid5
JM=/sys/block/md0/md/journal_mode
journal_mode write-back

dd if=/dev/zero of=/tmp/expect bs=4K count=192 2>/dev/null
dd if=/dev/urandom of=/tmp/blk bs=4K count=64 2>/dev/null
for i in $(seq 0 63); do
	dd if=/tmp/blk of=/dev/md0 bs=4K skip=$i seek=$((i * 3)) count=1 \
		oflag=direct 2>/dev/null || fail "write $i"
	dd if=/tmp/blk of=/tmp/expect bs=4K skip=$i seek=$((i * 3)) count=1 \
		conv=notrunc 2>/dev/null
done
[ "$PERSONALITY" = raid5j ] && say "dirty_stripes before the failure: $(jstat dirty_stripes)"
run mdadm /dev/md0 --fail $(disk d1)
run dd if=/dev/md0 of=/tmp/rd bs=4K count=192 iflag=direct
cmp /tmp/expect /tmp/rd || fail "data changed after a member failed under dirty stripes"
[ "$PERSONALITY" = raid5j ] && say "after the reads: dirty_stripes $(jstat dirty_stripes), destaged_partial $(jstat destaged_partial)"
pass "member failed with dirty stripes: data intact"

if echo write-back > $JM 2>/dev/null; then
	say "write-back accepted on the degraded array: $(cat $JM)"
else
	[ "$PERSONALITY" = raid456 ] || fail "write-back refused on a degraded array"
	say "raid456: write-back refused on a degraded array: $(cat $JM)"
fi
fio_verify deg /dev/md0 --rw=randwrite --bsrange=4k-64k --size=8M \
	--offset=2M --iodepth=8 --numjobs=1
pass "degraded writes verify"

run mdadm /dev/md0 --remove $(disk d1)
run mdadm /dev/md0 --add $(disk d1)
fast_sync
wait_sync /dev/md0
echo check > /sys/block/md0/md/sync_action
wait_sync /dev/md0
expect_eq "$(cat /sys/block/md0/md/mismatch_cnt)" 0 "mismatch_cnt after the rebuild"
run mdadm --stop /dev/md0
run mdadm --assemble /dev/md0 $M $(disk j)
run dd if=/dev/md0 of=/tmp/rd bs=4K count=192 iflag=direct
cmp /tmp/expect /tmp/rd || fail "data lost after rebuild and assembly"
fio_verify deg /dev/md0 --rw=randwrite --bsrange=4k-64k --size=8M \
	--offset=2M --iodepth=8 --numjobs=1 --verify_only
run mdadm --stop /dev/md0
scan_dmesg || fail "kernel complained"
pass "rebuilt, check 0, data intact"
EOF2
