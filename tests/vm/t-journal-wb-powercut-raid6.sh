#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-powercut-raid6: t-journal-wb-powercut on RAID6 (five members,
# P and Q logged at destage).  Not in CI (t-journal-powercut-raid6 covers
# RAID6 replay there); the long tier (make check-long) runs it for 100
# cycles.
export LEVEL=6 JMODE=write-back CYCLES=${CYCLES:-2}
export VM_TEST=${VM_TEST:-t-journal-wb-powercut-raid6}
exec "$(dirname "$0")/t-journal-powercut.sh"
