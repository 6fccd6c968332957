#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-jcache: t-journal-wb-bigcache with raid5j's journal
# cache on (module parameter writeback_journal_cache=1, default 0 until
# issue 16 is done), so that CI runs the eviction, reload and log-mark
# paths and their assertions (evicted stripes, reads from the journal);
# the same script runs with the default in t-journal-wb-bigcache.
export R5J_MODPARAMS="${R5J_MODPARAMS:+$R5J_MODPARAMS }writeback_journal_cache=1"
export VM_TEST=${VM_TEST:-t-journal-wb-jcache}
exec "$(dirname "$0")/t-journal-wb-bigcache.sh"
