#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-jcache-park: the ring full under writers faster than the
# members, and the array keeps going (journal.md L11).
# RAID5 of 4 x 32 MiB (LEVEL=6: 5 members), 16K chunk, an 8 MiB journal,
# write-back with writeback_log_high 90.  The members sit behind dm-delay
# (writes and flushes held DELAY_MS, 20 ms; reads not), so destages and
# reclaim are slow and the writers fill the ring.  With
# writeback_recoverable_by=raid456 (the default, RECOVERABLE_BY) raid456's
# room holds the writers before the ring is full (space_waits > 0; no
# destage's parity had to park: parity_waits reported); with raid5j
# (t-journal-wb-fixed-park) the ring fills to the last block and the
# destages of stripes pinning units newer than the oldest find no room
# for their parity and park.  Two fio writers, each over its own 32 MiB,
# 4 KiB and 8 KiB random blocks qd16, WRITE_MB (24) MiB in all (three
# times the journal), then each reads its blocks back and checks them
# (crc32c).
#   - raid5j: the writers waited for ring space (space_waits > 0); with
#     RECOVERABLE_BY=raid5j parity_waits > 0 (the parking path ran); no
#     WARNING (the oldest unit's destages never park: L12s miscount
#     warning);
#   - no hang: writes and verify end within LIMIT_S (300) s (a watchdog
#     fails with journal_stats and the blocked tasks); md0's completed I/Os
#     never stand still longer than STALL_S (60) s while fio runs;
#   - every acknowledged block verifies: fio's verify, again after the
#     switch to write-through (dirty_stripes 0) and after a stop and
#     reassembly; check: mismatch_cnt 0.
# raid456 runs the same writes and checks (no journal_stats: the ring
# assertions are skipped with a SAY line).  ~1.5 minutes.
# RECOVERABLE_BY: the module is loaded with writeback_recoverable_by set
# so, and journal_stats must show the rules it gives (guest-lib.sh
# expect_recoverable_by); raid5j (L12): also x_units > 0 (the oldest
# unit's parity went into a unit X).

. "$(dirname "$0")/lib.sh"

RECOVERABLE_BY=${RECOVERABLE_BY:-raid456}
export R5J_MODPARAMS="${R5J_MODPARAMS:+$R5J_MODPARAMS }writeback_recoverable_by=$RECOVERABLE_BY"

LEVEL=${LEVEL:-5}
D="d0 d1 d2 d3"
[ "$LEVEL" = 6 ] && D="d0 d1 d2 d3 d4"
vm_disks 32M $D
vm_disk j 8M

vm_boot --timeout 600 --env D="$D" --env LEVEL="$LEVEL" \
	--env WRITE_MB="${WRITE_MB:-24}" --env LIMIT_S="${LIMIT_S:-300}" \
	--env STALL_S="${STALL_S:-60}" --env DELAY_MS="${DELAY_MS:-20}" \
	--env RECOVERABLE_BY="$RECOVERABLE_BY" - $D j <<'EOF' || vm_fail "boot"
. /test/guest-lib.sh
load_personality
MD=/sys/block/md0/md
wbc=false
raid5j_only "journal cache assertions" && wbc=true
n=$(echo $D | wc -w)
slow=$(slow_members "$DELAY_MS" $D)
# shellcheck disable=SC2086
run mdadm --create /dev/md0 --run --level=$LEVEL --raid-devices=$n \
	--chunk=16 --assume-clean --bitmap=none --write-journal=$(disk j) $slow
journal_mode write-back
if [ "$PERSONALITY" = raid5j ]; then
	echo 90 > $MD/writeback_log_high || fail "writeback_log_high 90 refused"
fi
per=$((WRITE_MB / 2))
FIO="--rw=randwrite --bssplit=4k/50:8k/50 --iodepth=16 --numjobs=2 \
	--size=32M --offset_increment=32M --io_size=${per}M --randseed=11 \
	--group_reporting"

# progress: seconds without a completed md0 I/O while fio runs
stall_watch_start
# a hang fails here, with what the array was doing, and ends the boot
hang_watchdog "$LIMIT_S" reboot
if [ "$PERSONALITY" = raid5j ]; then
	jstat_watch_start used_sectors fill dirty_bytes dirty_stripes
	# the sample with the most ring taken (used + parity reserve), whole
	(
		best=0
		while [ ! -e /tmp/fio.done ]; do
			s=$(cat $MD/journal_stats)
			f=$(echo "$s" | awk '$1 == "used_sectors" || $1 == "wb_reserved_sectors" { t += $2 } END { print t + 0 }')
			if [ "$f" -gt "$best" ]; then
				best=$f
				echo "$s" | grep -E '^(used_sectors|wb_reserved_sectors|wb_stripes|dirty_stripes|evicted_stripes|log_use|parity_waits) ' |
					tr '\n' ' ' > /tmp/fill.worst
			fi
			sleep 0.2
		done
	) &
fi
# shellcheck disable=SC2086
fio_watched park /dev/md0 $FIO
say "$WRITE_MB MiB of random 4K/8K writes + verify on members delayed $DELAY_MS ms: $(echo "$t1 $t0" | awk '{ print $1 - $2 }') s, longest stall of md0's I/O ${stall} s"
[ "$stall" -le "$STALL_S" ] || fail "md0's I/O stood still for $stall s (limit $STALL_S)"
if [ "$PERSONALITY" = raid5j ]; then
	jstat_watch_stop
	ring=$(jstat ring_sectors)
	pw=$(jstat parity_waits)
	say "journal: ring $ring sectors, max used $(jstat_max used_sectors), max used + parity reserve $(jstat_max fill) ($(( $(jstat_max fill) * 100 / ring )) %), max dirty_bytes $(jstat_max dirty_bytes), max dirty_stripes $(jstat_max dirty_stripes), parity_waits $pw, space_waits $(jstat space_waits), destaged_full $(jstat destaged_full), destaged_partial $(jstat destaged_partial), evictions $(jstat evictions), fixed_reserve $(jstat fixed_reserve), x_units $(jstat x_units)"
	say "most ring taken: $(cat /tmp/fill.worst 2>/dev/null)"
	if $wbc; then
		[ "$(jstat space_waits)" -gt 0 ] ||
			fail "no writer waited for ring space (space_waits 0): the ring never filled"
		# L11: a crash at any moment leaves recovery room for the
		# parity of every dirty stripe (checked by the driver at each
		# use of the ring)
		expect_eq "$(jstat room_short)" 0 "room_short (ring uses that left recovery less room than L11 keeps)"
		expect_recoverable_by "$RECOVERABLE_BY"
		if [ "$RECOVERABLE_BY" = raid5j ]; then
			[ "$pw" -gt 0 ] ||
				fail "no destage parked its parity for space (parity_waits 0): the scenario did not reach the parking path"
			[ "$(jstat x_units)" -gt 0 ] ||
				fail "x_units 0: no oldest unit's parity went into a unit X (L12)"
		fi
	fi
fi
journal_mode write-through
[ "$PERSONALITY" = raid5j ] &&
	expect_eq "$(jstat dirty_stripes)" 0 "dirty_stripes after the switch"
# shellcheck disable=SC2086
fio_verify park /dev/md0 $FIO --verify_only
run mdadm --stop /dev/md0
# shellcheck disable=SC2086
run mdadm --assemble /dev/md0 $slow $(disk j)
# shellcheck disable=SC2086
fio_verify park /dev/md0 $FIO --verify_only
check mismatch /dev/md0
run mdadm --stop /dev/md0
check dmesg
pass
EOF
exit 0
