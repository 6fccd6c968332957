#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-powercut: t-journal-powercut in write-back mode.  Writes are
# acknowledged once their data is in the log; the power is cut while the
# members lag behind; boot 2 assembles with a member missing (no --force),
# recovery destages the data-only stripes, and every acknowledged block
# must be intact, mismatch_cnt 0 after the rebuild.  LEVEL=6 for RAID6;
# WRITE_PERSONALITY/RESTART_PERSONALITY for interop (as t-journal-powercut).
# Under raid5j every disk sits behind a volatile write cache
# (VM_NBD_CACHE=1: what was neither flushed nor FUA is lost at the cut), so
# an acknowledgement before the journal flush that makes its unit stable
# (journal.md L4) shows as a lost block.  raid456 (6.1) loses
# acknowledged write-back writes behind volatile caches (testing.md section 7):
# when it writes or recovers the cuts are plain unless VM_NBD_CACHE=1.
export JMODE=write-back CYCLES=${CYCLES:-2}
nbd=1
for p in "${PERSONALITY:-raid5j}" "${WRITE_PERSONALITY:-}" "${RESTART_PERSONALITY:-}"; do
	[ "$p" = raid456 ] && nbd=0
done
export VM_NBD_CACHE=${VM_NBD_CACHE:-$nbd}
export VM_TEST=${VM_TEST:-t-journal-wb-powercut}
exec "$(dirname "$0")/t-journal-powercut.sh"
