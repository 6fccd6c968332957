#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-interop-from-raid456: raid456 writes in write-back mode and is
# killed (power cut), raid5j recovers the journal with a member missing
# (t-journal-wb-powercut with WRITE_PERSONALITY=raid456
# RESTART_PERSONALITY=raid5j): every acknowledged block intact.
export WRITE_PERSONALITY=raid456 RESTART_PERSONALITY=raid5j JMODE=write-back
export CYCLES=${CYCLES:-1} VM_TEST=t-journal-wb-interop-from-raid456
exec "$(dirname "$0")/t-journal-powercut.sh"
