#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-fixed-full: t-journal-wb-bigcache-full with rule 8'
# (module parameter writeback_fixed_reserve=1, journal.md "Beyond half
# the ring"; default 0): the journal keeps a fixed reserve R in place of
# a parity page per dirty stripe, so random 4 KiB dirty data must reach
# at least half of the ring on RAID5 (rule 8 stops at 31-34 %), with
# every block verified after and journal_stats showing fixed_reserve 1.
# Under raid456 the same I/O and verify run, without the journal
# assertions (raid456 has no such parameter).
export R5J_MODPARAMS="${R5J_MODPARAMS:+$R5J_MODPARAMS }writeback_fixed_reserve=1 writeback_raid456_room=${RAID456_ROOM:-0}"
export VM_TEST=${VM_TEST:-t-journal-wb-fixed-full}
export MIN_DIRTY_PCT=${MIN_DIRTY_PCT:-50}
export FIXED_RESERVE=1
exec "$(dirname "$0")/t-journal-wb-bigcache-full.sh"
