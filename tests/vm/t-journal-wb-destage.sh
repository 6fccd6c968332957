#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-destage: the write-back destage policy (journal.md section
# 15, "Destage policy").  RAID5 of 4 x 32 MiB, 16K chunk (a full stripe is
# 48 KiB, 4 rows), 16 MiB journal, stripe_cache_size 256, write-back:
#   1. 100 stripes with one 4 KiB block dirty (partial): all 100 stay
#      cached (raid5j: dirty_stripes 100; below the high mark, 192);
#   2. 100 more partial stripes (200 dirty > 192): the oldest idle ones
#      are evicted down to the low mark (still dirty, in the journal:
#      dirty_stripes 200, evicted_stripes >= 56, at most 128 + 16 in
#      the stripe cache: stripes still being logged when the policy
#      counted the idle ones are not among them);
#   3. one full 48 KiB stripe written: its 4 rows are destaged at once,
#      without member reads (destaged_full +4, destage_reads +0,
#      dirty_stripes unchanged);
#   3b. a hot stripe (its first chunk written twice, then the other
#      two): full, but held like a partial one (destaged_full +0,
#      dirty_stripes +4), as rows of a hot set that fill up write by
#      write are rewritten again soon;
#   4. the marks in sysfs: 75 / 50 by default, shown in journal_stats in
#      stripes (192 / 128); a high mark below the low one, a low above the
#      high one, 0, 91 (above 90) and "x" are refused with EINVAL and
#      change nothing; writeback_log_high 70 by default, 10 and 90 taken,
#      9, 91 and -1 refused with EINVAL;
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
journaled_raid5 "$(disk j)" --bitmap=none
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
	expect_eq "$(jstat dirty_stripes)" 100 "dirty stripes after 100 partial writes"
	p0=$(jstat destaged_partial)
fi
partial 300 100 22
if $r5j; then
	sleep 2
	d=$(jstat dirty_stripes) ev=$(jstat evicted_stripes)
	say "after 200 partial stripes: dirty_stripes $d, evicted_stripes $ev, destaged_partial +$(( $(jstat destaged_partial) - p0 ))"
	# the policy counts idle stripes: the last ones fio wrote may still
	# have been in the journal then, and stay in memory until the age limit
	expect_eq "$d" 200 "dirty stripes (evicted ones included)"
	[ $((d - ev)) -le 144 ] ||
		fail "dirty stripes in memory above the low mark (+16): $((d - ev))"
	[ "$ev" -ge 56 ] || fail "evicted_stripes $ev < 56"
	d=$(jstat dirty_stripes) f0=$(jstat destaged_full) r0=$(jstat destage_reads)
fi
dd if=/dev/urandom of=/tmp/full bs=48K count=1 2>/dev/null
dd if=/tmp/full of=/dev/md0 bs=48K seek=200 count=1 oflag=direct 2>/dev/null ||
	fail "full stripe write"
if $r5j; then
	sleep 1
	expect_eq "$(( $(jstat destaged_full) - f0 ))" 4 "rows of the full stripe destaged at once"
	expect_eq "$(( $(jstat destage_reads) - r0 ))" 0 "member reads of the full stripe's destage"
	expect_eq "$(jstat dirty_stripes)" "$d" "dirty stripes after the full stripe"
fi
# a hot stripe: its first chunk written twice, then the other two
dd if=/dev/urandom of=/tmp/hot bs=48K count=1 2>/dev/null
for n in 1 2; do
	dd if=/tmp/hot of=/dev/md0 bs=16K seek=630 count=1 oflag=direct conv=notrunc 2>/dev/null ||
		fail "hot chunk write $n"
done
dd if=/tmp/hot of=/dev/md0 bs=16K skip=1 seek=631 count=2 oflag=direct 2>/dev/null ||
	fail "hot stripe's other chunks"
if $r5j; then
	sleep 1
	# full, but rewritten: held for the policy like a partial one
	expect_eq "$(( $(jstat destaged_full) - f0 ))" 4 "full destages after the hot stripe (held)"
	expect_eq "$(jstat dirty_stripes)" "$((d + 4))" "dirty stripes after the hot stripe"

	expect_eq "$(cat $MD/writeback_dirty_high) $(cat $MD/writeback_dirty_low)" "75 50" "marks"
	expect_eq "$(jstat dirty_high) $(jstat dirty_low)" "192 128" "marks in stripes"
	# a refused value: EINVAL, the attribute unchanged
	for bad in "dirty_high 40" "dirty_low 80" "dirty_high 0" \
		"dirty_high 91" "dirty_low 0" "dirty_low x" "log_high 9" \
		"log_high 91" "log_high -1"; do
		set -- $bad
		was=$(cat $MD/writeback_$1)
		if (echo "$2" > $MD/writeback_$1) 2>/tmp/err; then
			fail "writeback_$1 $2 accepted"
		else
			grep -q "Invalid argument" /tmp/err ||
				fail "writeback_$1 $2: not EINVAL: $(cat /tmp/err)"
		fi
		expect_eq "$(cat $MD/writeback_$1)" "$was" "writeback_$1 after $2 was refused"
	done
	echo 90 > $MD/writeback_dirty_high || fail "writeback_dirty_high 90 refused"
	echo 60 > $MD/writeback_dirty_low || fail "writeback_dirty_low 60 refused"
	expect_eq "$(jstat dirty_high) $(jstat dirty_low)" "230 153" "marks in stripes after the change"
	echo 50 > $MD/writeback_dirty_low && echo 75 > $MD/writeback_dirty_high ||
		fail "marks back to 75 / 50 refused"
	expect_eq "$(cat $MD/writeback_log_high) $(jstat log_high)" "70 70" "writeback_log_high"
	for v in 10 90 70; do
		echo $v > $MD/writeback_log_high || fail "writeback_log_high $v refused"
		expect_eq "$(cat $MD/writeback_log_high) $(jstat log_high)" "$v $v" "writeback_log_high set to $v"
	done
fi

journal_mode write-through
$r5j && expect_eq "$(jstat dirty_stripes)" 0 "dirty stripes after the switch"
# every block written reads back
for s in 0 99 300 399; do
	p=11; [ $s -ge 300 ] && p=22
	a=$(dd if=/dev/md0 bs=4K skip=$((s * 12)) count=1 iflag=direct 2>/dev/null | od -An -tx1 | tr -d ' \n' | head -c 8)
	expect_eq "$a" "5a${p}5a${p}" "block of stripe $s"
done
a=$(dd if=/dev/md0 bs=48K skip=200 count=1 iflag=direct 2>/dev/null | md5sum)
expect_eq "$a" "$(md5sum < /tmp/full)" "the full stripe"
a=$(dd if=/dev/md0 bs=48K skip=210 count=1 iflag=direct 2>/dev/null | md5sum)
expect_eq "$a" "$(md5sum < /tmp/hot)" "the hot stripe"
echo check > $MD/sync_action
wait_sync /dev/md0
expect_eq "$(cat $MD/mismatch_cnt)" 0 "mismatch_cnt"
run mdadm --stop /dev/md0
scan_dmesg || fail "kernel complained"
EOF2
exit 0
