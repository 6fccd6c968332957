#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-ext4: t-journal-ext4 in write-back mode.  ext4's fsync
# returns once the data is in the log (REQ_PREFLUSH/FUA acknowledged at the
# journal); the power is cut 3-7 s into the fsync'ing writers; the restart
# (no --force) recovers the data-only stripes: every fsync'd file intact,
# e2fsck -fn clean, mismatch_cnt 0.  Odd cycles restart whole, even cycles
# without a member.  Every disk sits behind a volatile write cache
# (VM_NBD_CACHE=1, nbdkit's cache filter): a write that was neither
# flushed nor FUA is lost at the cut, so a log write missing its FUA loses
# fsync'd files.  CYCLES (default 3); R5J_WB_EXT4_CYCLES=N for a long run.
export JMODE=write-back MISSING=even VM_NBD_CACHE=${VM_NBD_CACHE:-1}
export CYCLES=${R5J_WB_EXT4_CYCLES:-${CYCLES:-3}}
export VM_TEST=${VM_TEST:-t-journal-wb-ext4}
exec "$(dirname "$0")/t-journal-ext4.sh"
