#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-past-full: t-journal-wb-bigcache-full past raid456's limit
# (journal.md, "Past raid456's limit"), with the defaults but for the
# limit itself: raid456's recovery holds at most 32768 data-only stripes,
# so past them raid456 refuses a log and its room need not hold; a
# journal large enough for that is used whole.  A 16 MiB journal reaches
# it with writeback_raid456_stripes=RAID456_STRIPES (256; the limit is
# that plus stripe_cache_size, 512).  Asserts that rule 8' turned on by
# itself (fixed_reserve 1), that the log passed the limit (raid456_past,
# wb_stripes above raid456_limit, the dmesg line), dirty data at least
# half of the ring (MIN_DIRTY_PCT) on RAID5, raid456's flush within the
# ring in every sample below the limit, and everything
# t-journal-wb-bigcache-full asserts.  Under raid456 the same I/O and
# verify.
export R5J_MODPARAMS="${R5J_MODPARAMS:+$R5J_MODPARAMS }writeback_raid456_stripes=${RAID456_STRIPES:-256}"
export VM_TEST=${VM_TEST:-t-journal-wb-past-full}
export MIN_DIRTY_PCT=${MIN_DIRTY_PCT:-50}
export PAST=1
exec "$(dirname "$0")/t-journal-wb-bigcache-full.sh"
