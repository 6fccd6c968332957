#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-ext4: t-journal-ext4 in write-back mode.  ext4's fsync
# returns once the data is in the log (REQ_PREFLUSH/FUA acknowledged at the
# journal); the power is cut 3-7 s into the fsync'ing writers; the restart
# (no --force) recovers the data-only stripes: every fsync'd file intact,
# e2fsck -fn clean, mismatch_cnt 0.  Odd cycles restart whole, even cycles
# without a member.  CYCLES (default 3); R5J_WB_EXT4_CYCLES=N for a long run.
export JMODE=write-back MISSING=even
export CYCLES=${R5J_WB_EXT4_CYCLES:-${CYCLES:-3}}
export VM_TEST=${VM_TEST:-t-journal-wb-ext4}
exec "$(dirname "$0")/t-journal-ext4.sh"
