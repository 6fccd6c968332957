#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-powercut: t-journal-powercut in write-back mode.  Writes are
# acknowledged once their data is in the log; the power is cut while the
# members lag behind; boot 2 assembles with a member missing (no --force),
# recovery destages the data-only stripes, and every acknowledged block
# must be intact, mismatch_cnt 0 after the rebuild.  LEVEL=6 for RAID6;
# WRITE_PERSONALITY/RESTART_PERSONALITY for interop (as t-journal-powercut).
export JMODE=write-back CYCLES=${CYCLES:-2}
export VM_TEST=${VM_TEST:-t-journal-wb-powercut}
exec "$(dirname "$0")/t-journal-powercut.sh"
