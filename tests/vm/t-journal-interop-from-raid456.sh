#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-interop-from-raid456: t-journal-powercut with the journal written (and
# the power cut) under raid456 and recovered under raid5j: the journal format is
# mainline's, so a crashed array moves between the personalities.
# Every acknowledged block must survive, mismatch_cnt 0 after rebuild.
# Disks as t-journal-powercut; CYCLES default 2.
export WRITE_PERSONALITY=raid456 RESTART_PERSONALITY=raid5j CYCLES=${CYCLES:-2}
export VM_TEST=t-journal-interop-from-raid456
exec "$(dirname "$0")/t-journal-powercut.sh"
