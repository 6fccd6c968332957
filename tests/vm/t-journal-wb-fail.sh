#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-fail: the journal fails (dm-error) while acknowledged
# write-back data is only in the log and the cache.
#   - 512 KiB written in write-back (raid5j: dirty stripes > 0);
#   - the journal device switched to dm-error; the next write fails (EIO)
#     and the kernel says the journal failed (raid456 6.1 takes the write:
#     it goes on without the journal, "Disabling writeback cache for
#     degraded array"; recorded, not asserted);
#   - the acknowledged 512 KiB still read back;
#   - stop; assemble the members alone (--force, read-only: no journal):
#     the 512 KiB are on the members (journal.md section 15: dirty stripes
#     are written to the members, FUA, once the journal failed).
# ~30 s.

. "$(dirname "$0")/lib.sh"

vm_disks 32M d0 d1 d2 d3
vm_disk j 8M
vm_boot --timeout 300 - d0 d1 d2 d3 j <<'EOF2' || vm_fail "boot"
. /test/guest-lib.sh
load_personality
journal_dm
journaled_raid5 /dev/mapper/jdm
journal_mode write-back

dd if=/dev/urandom of=/tmp/pat bs=64K count=8 2>/dev/null
run dd if=/tmp/pat of=/dev/md0 bs=64K oflag=direct
[ "$PERSONALITY" = raid5j ] && { [ "$(jstat dirty_stripes)" -gt 0 ] ||
	fail "no dirty stripe after a write-back write"; }

dmsetup suspend jdm
echo "0 $jsz error" | dmsetup load jdm
dmsetup resume jdm
if dd if=/tmp/pat of=/dev/md0 bs=4K count=1 seek=1000 oflag=direct 2>/dev/null; then
	# raid456 (6.1) goes on without the journal (recorded, testing.md)
	[ "$PERSONALITY" = raid456 ] ||
		fail "a write after the journal failure succeeded"
	say "raid456: a write after the journal failure succeeded"
fi
sleep 2
dmesg | grep -iE 'journal' | tail -5
cat /proc/mdstat
run dd if=/dev/md0 of=/tmp/rd bs=64K count=8 iflag=direct
cmp /tmp/pat /tmp/rd || fail "acknowledged data changed after the journal failure"
pass "journal failed: write refused, acknowledged data reads back"

timeout 60 mdadm --stop /dev/md0 || fail "stop after the journal failure"
run mdadm --assemble --run --force /dev/md0 $M
run dd if=/dev/md0 of=/tmp/rd bs=64K count=8 iflag=direct
cmp /tmp/pat /tmp/rd || fail "acknowledged data not on the members"
run mdadm --stop /dev/md0
scan_dmesg || fail "kernel complained"
pass "acknowledged write-back data on the members"
EOF2
