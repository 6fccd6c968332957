#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-fixed-full: t-journal-wb-bigcache-full with the module
# loaded with writeback_recoverable_by=raid5j (L12, journal.md
# "Beyond half the ring"): the journal keeps a fixed reserve R in place
# of a parity page per dirty stripe, so random 4 KiB dirty data must
# reach at least half of the ring on RAID5 (L11 stops at 31-34 %),
# with every block verified after and journal_stats showing
# fixed_reserve 1, raid456_room 0.  Under raid456 the same I/O and
# verify run, without the journal assertions (raid456 has no such
# parameter).
export RECOVERABLE_BY=raid5j
export VM_TEST=${VM_TEST:-t-journal-wb-fixed-full}
export MIN_DIRTY_PCT=${MIN_DIRTY_PCT:-50}
exec "$(dirname "$0")/t-journal-wb-bigcache-full.sh"
