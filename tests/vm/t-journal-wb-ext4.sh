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
# fsync'd files.  CYCLES (default 2: one of each, for CI's budget);
# R5J_WB_EXT4_CYCLES=N for a long run.
#
# raid456 (6.1) fails both on its own journals, so under raid456 the cuts
# are plain (no volatile cache) and every restart is whole; measured
# with the raid5j settings (MISSING=even VM_NBD_CACHE=1 to
# see it again): with the volatile cache, the first whole restart lost
# ext4's journal ("EXT4-fs (md0): error loading journal"); without it,
# the restart without a member hung in mdadm --assemble (no output in 2
# minutes), as journal.md section 15 records for raid456 write-back.
if [ "${PERSONALITY:-raid5j}" = raid456 ]; then
	export MISSING=${MISSING:-none} VM_NBD_CACHE=${VM_NBD_CACHE:-0}
fi
export JMODE=write-back MISSING=${MISSING:-even} VM_NBD_CACHE=${VM_NBD_CACHE:-1}
export CYCLES=${R5J_WB_EXT4_CYCLES:-${CYCLES:-2}}
export VM_TEST=${VM_TEST:-t-journal-wb-ext4}
exec "$(dirname "$0")/t-journal-ext4.sh"
