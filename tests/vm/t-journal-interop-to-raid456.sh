#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-interop-to-raid456: t-journal-powercut with the journal written (and
# the power cut) under raid5j and recovered under raid456: the journal format is
# mainline's, so a crashed array moves between the personalities.
# Every acknowledged block must survive, mismatch_cnt 0 after rebuild.
# Disks as t-journal-powercut; CYCLES default 2.
export WRITE_PERSONALITY=raid5j RESTART_PERSONALITY=raid456 CYCLES=${CYCLES:-2}
export VM_TEST=t-journal-interop-to-raid456
exec "$(dirname "$0")/t-journal-powercut.sh"
