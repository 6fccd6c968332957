#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-reshape-journal-chunk: t-reshape-journal with a chunk change (RAID5 4
# members, 16K -> 32K, data_offset moved) in place of the grow: power cut
# mid-reshape, journal replayed and reshape resumed with a member missing.
export RESHAPE_JOURNAL_KIND=chunk VM_TEST=t-reshape-journal-chunk
exec "$(dirname "$0")/t-reshape-journal.sh"
