#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-interop-to-raid456: raid5j writes in write-back mode and is
# killed (power cut), raid456 recovers the journal with a member missing
# (t-journal-wb-powercut with WRITE_PERSONALITY=raid5j
# RESTART_PERSONALITY=raid456): every acknowledged block intact.
export WRITE_PERSONALITY=raid5j RESTART_PERSONALITY=raid456 JMODE=write-back
export CYCLES=${CYCLES:-1} VM_TEST=t-journal-wb-interop-to-raid456
exec "$(dirname "$0")/t-journal-powercut.sh"
