#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-bigcache-full: the journal full under sustained random
# writes.  RAID5 of 4 x 48 MiB (LEVEL=6: 5 members), 16K chunk,
# a 16 MiB journal, write-back.  Two fio writers, each over its own 48 MiB
# (96 MiB in all, six times the journal), write 4 KiB random blocks qd16,
# WRITE_MB (48) MiB in all: three times the journal, then each reads its
# blocks back and checks them (crc32c).
#   - no hang: the writes and the verify end within LIMIT_S (300) s (a
#     watchdog fails the test with journal_stats and the blocked tasks);
#   - writers resume: md0's completed I/Os, sampled every second, never
#     stand still longer than STALL_S (60) s while fio runs;
#   - then the switch to write-through drains, dirty_stripes 0, fio's
#     verify_only passes again, check: mismatch_cnt 0.
# raid5j (skipped with a SAY line under raid456): the journal filled (writers waited for log space,
# space_waits > 0, or the log's used sectors plus the dirty stripes' parity
# reserve reached writeback_log_high % of the ring), stripes were evicted,
# dirty_bytes never above the ring, and on RAID5 at some point at least
# 29 % of it (L11's smaller reserve; MIN_DIRTY_PCT, which
# t-journal-wb-fixed-full raises to 50 for L12); after the switch
# dirty_bytes 0.  RECOVERABLE_BY (raid456, the module's default; raid5j
# in that wrapper): the module is loaded with writeback_recoverable_by
# set so, and journal_stats must show the rules it gives (guest-lib.sh
# expect_recoverable_by).  ~1.5 minutes.

. "$(dirname "$0")/lib.sh"

RECOVERABLE_BY=${RECOVERABLE_BY:-raid456}
export R5J_MODPARAMS="${R5J_MODPARAMS:+$R5J_MODPARAMS }writeback_recoverable_by=$RECOVERABLE_BY"

LEVEL=${LEVEL:-5}
D="d0 d1 d2 d3"
[ "$LEVEL" = 6 ] && D="d0 d1 d2 d3 d4"
vm_disks 48M $D
vm_disk j 16M

vm_boot --timeout 600 --env D="$D" --env LEVEL="$LEVEL" \
	--env WRITE_MB="${WRITE_MB:-48}" --env LIMIT_S="${LIMIT_S:-300}" \
	--env STALL_S="${STALL_S:-60}" --env MIN_DIRTY_PCT="${MIN_DIRTY_PCT:-29}" \
	--env RECOVERABLE_BY="$RECOVERABLE_BY" \
	--env RING_SLACK="${RING_SLACK:-1024}" - $D j <<'EOF' || vm_fail "boot"
. /test/guest-lib.sh
load_personality
MD=/sys/block/md0/md
wbc=false
raid5j_only "journal cache assertions" && wbc=true
n=$(echo $D | wc -w)
run mdadm --create /dev/md0 --run --level=$LEVEL --raid-devices=$n \
	--chunk=16 --assume-clean --bitmap=none --write-journal=$(disk j) $(disks $D)
journal_mode write-back
per=$((WRITE_MB / 2))
FIO="--rw=randwrite --bs=4k --iodepth=16 --numjobs=2 --size=48M \
	--offset_increment=48M --io_size=${per}M --randseed=7 --group_reporting"

# progress: seconds without a completed md0 I/O while fio runs
stall_watch_start
# a hang fails here, with what the array was doing
hang_watchdog "$LIMIT_S"
[ "$PERSONALITY" = raid5j ] &&
	jstat_watch_start used_sectors fill evicted_stripes dirty_bytes dirty_stripes \
		r456
# shellcheck disable=SC2086
fio_watched full /dev/md0 $FIO
say "$((WRITE_MB)) MiB of random 4K writes + verify: $(echo "$t1 $t0" | awk '{ print $1 - $2 }') s, longest stall of md0's I/O ${stall} s"
[ "$stall" -le "$STALL_S" ] || fail "md0's I/O stood still for $stall s (limit $STALL_S)"
if [ "$PERSONALITY" = raid5j ]; then
	jstat_watch_stop
	ring=$(jstat ring_sectors)
	um=$(jstat_max used_sectors) fm=$(jstat_max fill)
	pct=$((fm * 100 / ring))
	sw=$(jstat space_waits)
	say "journal: ring $ring sectors, max used $um ($((um * 100 / ring)) %), max used + parity reserve $fm ($pct %), max evicted_stripes $(jstat_max evicted_stripes), max dirty_bytes $(jstat_max dirty_bytes) ($(($(jstat_max dirty_bytes) * 100 / (ring * 512))) % of the ring), max dirty_stripes $(jstat_max dirty_stripes), space_waits $sw, parity_waits $(jstat parity_waits), evictions $(jstat evictions), journal_reads $(jstat journal_reads), log_high $(jstat log_high), fixed_reserve $(jstat fixed_reserve), x_units $(jstat x_units), room_short $(jstat room_short)"
	expect_recoverable_by "$RECOVERABLE_BY"
	# stripe_unblocked: the daemon's or a read's stripe taken while
	# writers waited for the free share
	say "raid5j_stats: $(grep -E '^stripe_(waits|unblocked) ' $MD/raid5j_stats | tr '\n' ' ')"
	if $wbc; then
		h=$(cat $MD/writeback_log_high 2>/dev/null) || fail "no writeback_log_high in sysfs"
		# filled: writers waited, or the mark was reached, counted as
		# the daemon counts it (raid456's room included when on)
		r456pct=0
		[ "$(jstat raid456_room)" = 1 ] &&
			r456pct=$(( $(jstat_max r456) * 100 / ring ))
		[ "$sw" -gt 0 ] || [ "$pct" -ge "$h" ] || [ "$r456pct" -ge "$h" ] ||
			fail "the journal never filled: no space wait, at most $pct % used or reserved, $r456pct % of raid456's room (writeback_log_high $h %)"
		[ "$(jstat_max evicted_stripes)" -gt 0 ] || fail "no stripe evicted"
		[ "$(jstat_max dirty_bytes)" -le $((ring * 512)) ] ||
			fail "dirty_bytes $(jstat_max dirty_bytes) above the ring ($((ring * 512)))"
		# L11 keeps P blocks per dirty stripe: RAID5 holds 31-34 % of
		# the ring in dirty 4 KiB blocks (journal.md); with
		# writeback_recoverable_by=raid5j (L12) above half the ring,
		# MIN_DIRTY_PCT 50
		# raid456's room (recoverable_by raid456): raid456 could recover the
		# log at any moment; the log and all its recovery writes (each
		# data-only stripe rewritten, then its parity) fit the ring
		if [ "$(jstat raid456_room)" = 1 ]; then
			say "raid456's room: max used + recovery $(jstat_max r456) of $ring sectors"
			[ "$(jstat_max r456)" -le $((ring + RING_SLACK)) ] ||
				fail "raid456's recovery would overwrite the log: used + recovery $(jstat_max r456) sectors, ring $ring (+ $RING_SLACK for destages in flight)"
		fi
		# raid456's room caps random 4 KiB blocks on RAID5 near a
		# sixth of the ring (log + recovery: about 5 blocks per 4 KiB block;
		# 17 % measured): at least 15 %
		mindirty=$MIN_DIRTY_PCT
		[ "$(jstat raid456_room)" = 1 ] && [ "$MIN_DIRTY_PCT" -gt 15 ] && mindirty=15
		if [ "$LEVEL" = 5 ]; then
			[ "$(jstat_max dirty_bytes)" -ge $((ring * 512 * mindirty / 100)) ] ||
				fail "dirty_bytes at most $(jstat_max dirty_bytes), below $mindirty % of the ring ($((ring * 512 * mindirty / 100))): the parity reserve takes too much of the journal"
		fi
	fi
fi
journal_mode write-through
if [ "$PERSONALITY" = raid5j ]; then
	expect_eq "$(jstat dirty_stripes)" 0 "dirty_stripes after the switch"
	$wbc && expect_eq "$(jstat dirty_bytes)" 0 "dirty_bytes after the switch"
fi
# shellcheck disable=SC2086
fio_verify full /dev/md0 $FIO --verify_only
check mismatch /dev/md0
run mdadm --stop /dev/md0
check dmesg
pass
EOF
exit 0
