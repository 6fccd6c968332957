#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-fullring-powercut: a power cut with the write-back ring
# nearly full, so that recovery must go unit by unit without being forced
# (journal.md section 15, "Beyond half the ring" and "Recovery with a
# nearly full ring").  t-journal-wb-bigcache-powercut with the module
# loaded with writeback_recoverable_by=raid5j (L12), the test hook
# recovery_unit_by_unit NOT set, a small journal (JOURNAL_MB 4), a stripe cache
# of 32 (recovery must destage more data-only stripes than that, the
# wrapped scenario's check) and slow members in the writing boot: the
# members' writes throttled (THROTTLE_IOPS 25 write requests a second,
# MEMBER_DRIVE_OPTS; the journal is not throttled, and the restart boot's
# rebuild runs at full speed).  writeback_log_high is 90 (the most it
# takes) in the writing boot, and the power is cut 0-0.1 s after
# journal_stats shows a ring whose batched recovery parity no longer fits
# after the log (CUT_FULL, t-journal-powercut.sh), not at a random time:
# with the default mark (70) and a timed cut, recovery needed the
# unit-by-unit path in 1 of 6 cycles.  Every
# disk is behind a volatile cache (VM_NBD_CACHE=1), and boot 2 assembles
# without a member (a different one each cycle); every acknowledged block
# is verified, mismatch_cnt 0 after the rebuild.  Here, for each cycle:
# the journal's used sectors and dirty data at the cut are printed, and
# recovery's "journal recovery: N units, M tail moves" line read back;
# MIN_CYCLES=N makes at least N of CYCLES (default 2) cycles need it (N > 0
# and M > 0).  By default (MIN_CYCLES 0) the count is reported, not
# asserted: measured (a full-ring run) unit by unit in
# 7 of 14 cycles (1 of 6 before the cut moved to a full ring), each cut
# 0-0.1 s after the mark with the ring 96 % used.  The rest missed it
# because the ring moves faster than the cut: a reclaim moved the tail
# 712 sectors (12 % of the ring) and writers took 432 more within 61 ms
# of a mark, so the log recovery walked was up to 760 sectors shorter
# than used_sectors at the mark.  Each cycle prints journal_tail on disk
# at the cut and the sectors recovery walked, to see that.
# Under raid456 (no such parameters, no journal_stats) the same writes,
# a timed cut and verify run (plain cuts and LOSS_RECORD=1 as in the
# wrapped scenario); the unit-by-unit assertion is skipped.  raid5j
# writing and raid456 recovering (WRITE_PERSONALITY=raid5j
# RESTART_PERSONALITY=raid456): the cut is at a full ring as above
# (journal.md section 15, "raid456 recovering such a log").
export R5J_MODPARAMS="${R5J_MODPARAMS:+$R5J_MODPARAMS }writeback_recoverable_by=raid5j"
export CYCLES=${CYCLES:-2} JOURNAL_MB=${JOURNAL_MB:-4} STRIPE_CACHE=${STRIPE_CACHE:-32}
export LOG_HIGH=${LOG_HIGH:-90} CUT_FULL=${CUT_FULL:-1} JWATCH=1
export VM_TEST=${VM_TEST:-t-journal-wb-fullring-powercut}
export MEMBER_DRIVE_OPTS=${MEMBER_DRIVE_OPTS:-throttling.iops-write=${THROTTLE_IOPS:-25}}
MIN_CYCLES=${MIN_CYCLES:-0}
case " ${R5J_DEBUGFS:-} " in
*" recovery_unit_by_unit="[1Yy]" "*)
	echo "FAIL $VM_TEST: recovery_unit_by_unit set: this scenario is about the unforced case"
	exit 1 ;;
esac

root=$(cd "$(dirname "$0")/../.." && pwd)
logs=${R5J_BUILD:-$root/build}/vm-logs
mkdir -p "$logs"
rm -f "$logs/$VM_TEST".boot*.results
out=$logs/$VM_TEST.out
"$(dirname "$0")/t-journal-wb-bigcache-powercut.sh" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || exit "$rc"

write_p=${WRITE_PERSONALITY:-${PERSONALITY:-raid5j}}
rest_p=${RESTART_PERSONALITY:-${PERSONALITY:-raid5j}}
if [ "$write_p" != raid5j ] || [ "$rest_p" != raid5j ]; then
	echo "SKIP unit-by-unit assertion: raid456 writes or recovers (no writeback_recoverable_by, no journal_stats)"
	exit 0
fi

# the ring: the journal's md v1.2 superblock (4 KiB in) holds data_size
# at byte 136; the ring is that, 4 KiB aligned (jformat.c r5j_log_init)
jimg=${R5J_BUILD:-$root/build}/vm-disks/$VM_TEST/j.img
dsize=$(od -An -t u8 -j $((4096 + 136)) -N 8 "$jimg" | tr -d ' ')
ring=$(( ${dsize:-0} & ~7 ))
[ "$ring" -gt 0 ] || { echo "FAIL $VM_TEST: no journal data_size in $jimg"; exit 1; }

# boot 1 creates; then each cycle writes (boot 2c) and restarts (2c+1)
byunit=0
for c in $(seq 1 "$CYCLES"); do
	w=$logs/$VM_TEST.boot$((2 * c)).results
	r=$logs/$VM_TEST.boot$((2 * c + 1)).results
	used=$(sed -n 's/^VAL jstat.* used_sectors=\([0-9]*\).*/\1/p' "$w" | tail -n 1)
	dirty=$(sed -n 's/^VAL jstat.* dirty_bytes=\([0-9]*\).*/\1/p' "$w" | tail -n 1)
	read -r units moves < <(sed -n 's/^VAL recunits //p' "$r" | tail -n 1)
	units=${units:-0} moves=${moves:-0}
	echo "cycle $c: at the cut used ${used:-?}/$ring sectors ($(( ${used:-0} * 100 / ring )) %), dirty $(( ${dirty:-0} / 512 )) sectors ($(( ${dirty:-0} * 100 / (ring * 512) )) %); recovery: $units units, $moves tail moves"
	[ "$units" -gt 0 ] && [ "$moves" -gt 0 ] && byunit=$((byunit + 1))
done
if [ "$byunit" -lt "$MIN_CYCLES" ]; then
	echo "FAIL $VM_TEST: recovery went unit by unit (tail moves > 0) in $byunit of $CYCLES cycles, $MIN_CYCLES required"
	exit 1
fi
echo "PASS $VM_TEST: recovery went unit by unit, unforced, in $byunit of $CYCLES cycles ($MIN_CYCLES required)"
exit 0
