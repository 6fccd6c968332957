#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-raid456-cut: a power cut during raid456's recovery of a
# raid5j write-back log loses nothing.  t-journal-powercut with
# JMODE=write-back, a 4 MiB journal, every write one random 4 KiB block
# (data-only stripes), the members' writes throttled in the writing boot
# (the log fills to its bound), the power cut 6-10 s into the writes.
# Then (R456_CUT=1) raid456 assembles without a member and the power is
# cut 0-3 s after its recovery printed "recovering N data-only stripes":
# it has rewritten them after the log and logged their parity, or hangs
# there (6.1 and 6.12 do, testing.md); its superblock still names the old
# log.  Boot 2 (RESTART_PERSONALITY, default PERSONALITY) assembles
# without the member: every acknowledged block intact, check 0.
# raid5j keeps its log, raid456's rewrite and raid456's parity within the
# ring (writeback_recoverable_by=raid456, the default: journal.md,
# "raid456's room"), so raid456's writes never reach the log it found.
# With the two bounds before the one predicate (journal.md) raid456's
# parity wrapped onto the log it found: 37 acknowledged blocks lost,
# mismatch_cnt 120.  Every member stays (RESTART_ALL=1): a member missing
# loses blocks that were never written, reconstructed from stripes
# raid456's recovery wrote half (its rewritten log is not found from the
# old journal_tail), whoever recovers, fix or not.
# RESTART_PERSONALITY=raid456 hangs in raid456's recovery (mdadm blocked
# over 60 s), as raid456 does on write-back logs (t-boot-wb-guard).
# Plain cuts (raid456 recovers).  PERSONALITY=raid456 validates the test:
# it writes with its own write-back (its losses recorded, not asserted:
# LOSS_RECORD, t-journal-wb-bigcache-powercut).  2 cycles.
export JMODE=write-back CYCLES=${CYCLES:-2} JOURNAL_MB=${JOURNAL_MB:-4}
export STAMP_SMALL=1 R456_CUT=1 CUT_MS=${CUT_MS:-6000} RESTART_ALL=${RESTART_ALL:-1}
export LOG_HIGH=${LOG_HIGH:-90}
export MEMBER_DRIVE_OPTS=${MEMBER_DRIVE_OPTS:-throttling.iops-write=25}
export VM_NBD_CACHE=${VM_NBD_CACHE:-0}
[ "${WRITE_PERSONALITY:-${PERSONALITY:-raid5j}}" = raid456 ] &&
	export LOSS_RECORD=${LOSS_RECORD:-1}
export VM_TEST=${VM_TEST:-t-journal-wb-raid456-cut}
exec "$(dirname "$0")/t-journal-powercut.sh"
