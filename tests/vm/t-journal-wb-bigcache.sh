#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-bigcache: write-back with a journal much larger than the
# stripe cache (a cache as large as the journal).  RAID5 of
# 4 x 32 MiB, then RAID6 of 5 x 32 MiB, 16K chunk, 64 MiB journal,
# stripe_cache_size 17 (the minimum: 17 rows of 4 KiB pages), write-back.
# Per level:
#   1. fio, 4 KiB random writes qd16 over a WS_MB (16) MiB working set,
#      IO_MB (4) MiB of them (1024 distinct blocks: ~800 partial rows
#      dirty, 47x the stripe cache, a tenth of the journal), then
#      verified by the same fio right after (reads of data that is dirty,
#      of stripes evicted to the journal among them);
#   2. drop_caches (the shrinker drops the evicted entries' RAM copies),
#      then the working set read whole (dd 64K, direct) while dirty: its
#      md5 is the reference for 3-4;
#   3. stop (destages everything), assemble: the md5 and fio's verify_only
#      of pass 1 unchanged;
#   4. write-back again, a second pass (another seed) rewriting blocks of
#      the first, verified; md5 while dirty; switch to write-through (the
#      switch returns once everything is destaged): dirty_stripes 0, the
#      md5 and the second pass verify again, check: mismatch_cnt 0.
# raid5j (skipped with a SAY line under raid456): journal_stats sampled every 0.2 s during the passes: evicted_stripes > 0
# and dirty_bytes > 0 at some point, evictions and journal_reads grew
# (blocks read back from the journal: by the verify reads or the
# destages), log_high shown, writeback_log_high in 10-90; after the switch
# evicted_stripes 0 and dirty_bytes 0.  raid456 keeps every dirty page
# in RAM: the data assertions only.
# LEVELS ("5 6"), WS_MB, IO_MB.  ~2 minutes.

. "$(dirname "$0")/lib.sh"

LEVELS=${LEVELS:-5 6}
vm_disks 32M d0 d1 d2 d3 d4
vm_disk j 64M

vm_boot --timeout 420 --env LEVELS="$LEVELS" --env WS_MB="${WS_MB:-16}" \
	--env IO_MB="${IO_MB:-4}" - d0 d1 d2 d3 d4 j <<'EOF' || vm_fail "boot"
. /test/guest-lib.sh
load_personality
MD=/sys/block/md0/md
wbc=false
raid5j_only "journal cache assertions" && wbc=true
WATCH="evicted_stripes dirty_bytes dirty_stripes"

region_md5() {
	dd if=/dev/md0 bs=64K count=$((WS_MB * 16)) iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1
}

# wpass NAME SEED [fio options]: random 4 KiB writes over the working set
wpass() {
	local name=$1 seed=$2
	shift 2
	fio_verify "$name" /dev/md0 --rw=randwrite --bs=4k --iodepth=16 \
		--size=${WS_MB}M --io_size=${IO_MB}M --randseed=$seed "$@"
}

# drop_ram_copies: memory pressure (the shrinkers run): evicted entries
# keep no RAM copy, so the whole read after it reloads them from the
# journal (journal_reads)
drop_ram_copies() {
	echo 3 > /proc/sys/vm/drop_caches
}

# cache_checks WHEN: the journal cache's stats over the sampling just ended
cache_checks() {
	local ev db
	ev=$(jstat_max evicted_stripes) db=$(jstat_max dirty_bytes)
	say "RAID$LEVEL $1: max evicted_stripes $ev, max dirty_bytes $db, max dirty_stripes $(jstat_max dirty_stripes), evictions $(jstat evictions), journal_reads $(jstat journal_reads), log_high $(jstat log_high)"
	$wbc || return 0
	[ "$ev" -gt 0 ] || fail "RAID$LEVEL $1: evicted_stripes never above 0 (the journal cache did not evict)"
	[ "$db" -gt 0 ] || fail "RAID$LEVEL $1: dirty_bytes never above 0"
	[ "$(jstat evictions)" -gt "$ev0" ] || fail "RAID$LEVEL $1: evictions did not grow ($ev0 -> $(jstat evictions))"
	[ "$(jstat journal_reads)" -gt "$jr0" ] ||
		fail "RAID$LEVEL $1: journal_reads did not grow ($jr0 -> $(jstat journal_reads)): nothing read back from the journal"
}

for LEVEL in $LEVELS; do
	if [ "$LEVEL" = 6 ]; then D="d0 d1 d2 d3 d4"; else D="d0 d1 d2 d3"; fi
	n=$(echo $D | wc -w)
	for d in $D j; do
		mdadm --zero-superblock $(disk $d) 2>/dev/null
	done
	run mdadm --create /dev/md0 --run --level=$LEVEL --raid-devices=$n \
		--chunk=16 --assume-clean --bitmap=none --write-journal=$(disk j) $(disks $D)
	echo 17 > $MD/stripe_cache_size || fail "stripe_cache_size 17 refused"
	expect_eq "$(cat $MD/stripe_cache_size)" 17 "stripe_cache_size"
	journal_mode write-back
	if $wbc; then
		grep -q '^log_high ' $MD/journal_stats || fail "journal_stats has no log_high"
		h=$(cat $MD/writeback_log_high 2>/dev/null) ||
			fail "no writeback_log_high in sysfs"
		[ "$h" -ge 10 ] && [ "$h" -le 90 ] || fail "writeback_log_high $h not in 10-90"
	fi
	ev0=$(jstat evictions) jr0=$(jstat journal_reads)

	# 1-2: written, verified and read whole while dirty
	[ "$PERSONALITY" = raid5j ] && jstat_watch_start $WATCH
	t0=$(cut -d' ' -f1 /proc/uptime)
	wpass p1 11
	drop_ram_copies
	sum1=$(region_md5)
	t1=$(cut -d' ' -f1 /proc/uptime)
	[ "$PERSONALITY" = raid5j ] && { jstat_watch_stop; cache_checks "pass 1"; }
	say "RAID$LEVEL pass 1 (${IO_MB} MiB random 4K over ${WS_MB} MiB, verify, whole read): $(echo "$t1 $t0" | awk '{ print $1 - $2 }') s"

	# 3: stop destages everything; the data is the same after assembly
	run mdadm --stop /dev/md0
	run mdadm --assemble /dev/md0 $(disks $D j)
	echo 17 > $MD/stripe_cache_size || fail "stripe_cache_size 17 refused"
	expect_eq "$(region_md5)" "$sum1" "RAID$LEVEL working set after stop/assemble"
	wpass p1 11 --verify_only

	# 4: rewrites while dirty, then the switch drains
	journal_mode write-back
	ev0=$(jstat evictions) jr0=$(jstat journal_reads)
	[ "$PERSONALITY" = raid5j ] && jstat_watch_start $WATCH
	wpass p2 22
	drop_ram_copies
	sum2=$(region_md5)
	[ "$PERSONALITY" = raid5j ] && { jstat_watch_stop; cache_checks "pass 2"; }
	[ "$sum2" != "$sum1" ] || fail "RAID$LEVEL pass 2 changed nothing"
	journal_mode write-through
	if [ "$PERSONALITY" = raid5j ]; then
		expect_eq "$(jstat dirty_stripes)" 0 "RAID$LEVEL dirty_stripes after the switch"
		if $wbc; then
			expect_eq "$(jstat evicted_stripes)" 0 "RAID$LEVEL evicted_stripes after the switch"
			expect_eq "$(jstat dirty_bytes)" 0 "RAID$LEVEL dirty_bytes after the switch"
		fi
	fi
	expect_eq "$(region_md5)" "$sum2" "RAID$LEVEL working set after the switch"
	wpass p2 22 --verify_only
	check mismatch /dev/md0
	run mdadm --stop /dev/md0
	pass "raid$LEVEL"
done
check dmesg
EOF
exit 0
