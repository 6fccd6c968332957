#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-destage: the write-back destage policy (journal.md section
# 15, "Destage policy").  RAID5 of 4 x 32 MiB, 16K chunk (a full stripe is
# 48 KiB, 4 rows), 16 MiB journal, stripe_cache_size 256, write-back:
#   1. 100 stripes with one 4 KiB block dirty (partial): all 100 stay
#      cached (raid5j: dirty_stripes 100; below the high mark, 192);
#   2. 100 more partial stripes (200 dirty > 192): a batch destages the
#      oldest partial ones down to the low mark (destage_batches +1,
#      dirty_stripes <= 128 + 16, destaged_partial >= 56: stripes still
#      being logged when the batch counted the idle ones are not in it);
#   3. one full 48 KiB stripe written: its 4 rows are destaged at once,
#      without member reads (destaged_full +4, destage_reads +0,
#      dirty_stripes unchanged);
#   4. the marks in sysfs: 75 / 50 by default, shown in journal_stats in
#      stripes (192 / 128); a high mark below the low one, a low above the
#      high one, 0 and 91 (above 90) are refused;
#   5. switch to write-through: dirty_stripes 0, every block written reads
#      back, check counts 0.
# raid456 has no such counters: the data and mismatch_cnt are asserted.
# Before the policy (destage beyond a quarter of the cache) raid5j kept 64
# of the 100 partial stripes.  Steps 1-2 must finish within the 5 s
# before the age limit destages the first 100.
# ~1 minute.

. "$(dirname "$0")/lib.sh"

vm_disks 32M d0 d1 d2 d3
vm_disk j 16M
D="d0 d1 d2 d3"

vm_boot --timeout 240 --env D="$D" - $D j <<'EOF2' || vm_fail "boot"
. /test/guest-lib.sh
load_personality
MD=/sys/block/md0/md
# a journal_stats value, 0 where the module has no such line
st() { awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }' $MD/journal_stats; }
run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 --chunk=16 \
	--assume-clean --bitmap=none --write-journal=$(disk j) $(disks $D)
echo 256 > $MD/stripe_cache_size
journal_mode write-back
r5j=false
[ "$PERSONALITY" = raid5j ] && r5j=true

# 4 KiB of /tmp/blocks at each of N full stripes from FIRST (row 0 of
# their first chunk): one dirty block per stripe
partial() {	# partial FIRST N SKIP
	fio --name=p --filename=/dev/md0 --direct=1 --ioengine=psync \
		--rw=write:44k --bs=4k --offset=$(($1 * 48))k \
		--number_ios=$2 --size=$(($2 * 48))k --buffer_pattern=0x5a$3 \
		--output=/dev/null || fail "fio partial $1"
}

partial 0 100 11
if $r5j; then
	expect_eq "$(st dirty_stripes)" 100 "dirty stripes after 100 partial writes"
	b0=$(st destage_batches) p0=$(st destaged_partial)
fi
partial 300 100 22
if $r5j; then
	sleep 2
	d=$(st dirty_stripes)
	say "after 200 partial stripes: dirty_stripes $d, destaged_partial +$(( $(st destaged_partial) - p0 )), destage_batches +$(( $(st destage_batches) - b0 ))"
	# the batch counts idle stripes: the last ones fio wrote may still
	# have been in the journal then, and stay dirty until the age limit
	[ "$d" -le 144 ] || fail "dirty stripes above the low mark (+16) after a batch: $d"
	expect_eq "$(( $(st destage_batches) - b0 ))" 1 "destage batches"
	[ $(( $(st destaged_partial) - p0 )) -ge 56 ] ||
		fail "destaged_partial +$(( $(st destaged_partial) - p0 )) < 56"
	d=$(st dirty_stripes) f0=$(st destaged_full) r0=$(st destage_reads)
fi
dd if=/dev/urandom of=/tmp/full bs=48K count=1 2>/dev/null
dd if=/tmp/full of=/dev/md0 bs=48K seek=200 count=1 oflag=direct 2>/dev/null ||
	fail "full stripe write"
if $r5j; then
	sleep 1
	expect_eq "$(( $(st destaged_full) - f0 ))" 4 "rows of the full stripe destaged at once"
	expect_eq "$(( $(st destage_reads) - r0 ))" 0 "member reads of the full stripe's destage"
	expect_eq "$(st dirty_stripes)" "$d" "dirty stripes after the full stripe"

	expect_eq "$(cat $MD/writeback_dirty_high) $(cat $MD/writeback_dirty_low)" "75 50" "marks"
	expect_eq "$(st dirty_high) $(st dirty_low)" "192 128" "marks in stripes"
	for bad in "high 40" "low 80" "high 0" "high 91" "low 0"; do
		set -- $bad
		echo $2 > $MD/writeback_dirty_$1 2>/dev/null &&
			fail "writeback_dirty_$1 $2 accepted"
	done
	echo 90 > $MD/writeback_dirty_high || fail "writeback_dirty_high 90 refused"
	echo 60 > $MD/writeback_dirty_low || fail "writeback_dirty_low 60 refused"
	expect_eq "$(st dirty_high) $(st dirty_low)" "230 153" "marks in stripes after the change"
	echo 50 > $MD/writeback_dirty_low && echo 75 > $MD/writeback_dirty_high ||
		fail "marks back to 75 / 50 refused"
fi

journal_mode write-through
$r5j && expect_eq "$(st dirty_stripes)" 0 "dirty stripes after the switch"
# every block written reads back
for s in 0 99 300 399; do
	p=11; [ $s -ge 300 ] && p=22
	a=$(dd if=/dev/md0 bs=4K skip=$((s * 12)) count=1 iflag=direct 2>/dev/null | od -An -tx1 | tr -d ' \n' | head -c 8)
	expect_eq "$a" "5a${p}5a${p}" "block of stripe $s"
done
a=$(dd if=/dev/md0 bs=48K skip=200 count=1 iflag=direct 2>/dev/null | md5sum)
expect_eq "$a" "$(md5sum < /tmp/full)" "the full stripe"
echo check > $MD/sync_action
wait_sync /dev/md0
expect_eq "$(cat $MD/mismatch_cnt)" 0 "mismatch_cnt"
run mdadm --stop /dev/md0
scan_dmesg || fail "kernel complained"
EOF2
exit 0
