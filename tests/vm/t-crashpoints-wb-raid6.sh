#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-crashpoints-wb-raid6: t-crashpoints-wb on RAID6 (five members, P and Q
# logged), about 12 points, one member missing in turn.
export LEVEL=6 JMODE=write-back POINTS=${POINTS:-12}
export VM_TEST=${VM_TEST:-t-crashpoints-wb-raid6}
exec "$(dirname "$0")/t-crashpoints-wt.sh"
