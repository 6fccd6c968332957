#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-nocache: t-journal-wb-bigcache with raid5j's journal cache off
# (module parameter writeback_journal_cache=0; on by default since issue
# 16e), so that CI still runs part 1's write-back (dirty stripes only in
# the stripe cache, batches destaged at the marks) and the script's
# assertions for it; t-journal-wb-bigcache itself runs with the default.
export R5J_MODPARAMS="${R5J_MODPARAMS:+$R5J_MODPARAMS }writeback_journal_cache=0"
export VM_TEST=${VM_TEST:-t-journal-wb-nocache}
exec "$(dirname "$0")/t-journal-wb-bigcache.sh"
